"""``drag_core.knobs``: one entry per search knob, and the CLI, the glossary and the address built from it —
so adding a knob is a ``SearchParams`` field and one entry (the README's "Adding a knob")."""

from __future__ import annotations

import argparse
import re
from dataclasses import fields

from conftest import REPO

from drag_core.app import glossary, url_state
from drag_core.cli.parser import build_parser
from drag_core.knobs import ADDRESS, BOUNDS, CHOICES, FLAGS, KNOBS, Knob, Widget
from drag_core.params import SearchParams

FIELDS = [f.name for f in fields(SearchParams)]


def _search_options() -> dict[str, argparse.Action]:
    """The ``search`` command's options, by destination."""
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in commands.choices["search"]._actions if a.option_strings}


def test_every_field_has_exactly_one_entry() -> None:
    """A new ``SearchParams`` field without an entry (or with two) fails here, and the CLI fails to build."""
    covered = [field for knob in KNOBS for field in knob.fields]
    assert sorted(covered) == sorted(FIELDS), "one entry per field, a range's two ends in one"
    assert len({k.key for k in KNOBS}) == len(KNOBS), "one widget key per knob"
    assert len(set(ADDRESS)) == len(ADDRESS) and len(set(FLAGS.values())) == len(FIELDS)


def test_an_entry_is_complete_for_how_it_is_shown() -> None:
    for knob in KNOBS:
        if knob.widget is None:
            assert not (knob.label or knob.does or knob.url or knob.pinned), knob.field
            continue
        assert knob.label and knob.does.endswith(".") and not re.search(r"\.\s+[A-Z]", knob.does), knob.field
        named = knob.widget in (Widget.SELECT, Widget.RADIO)
        assert bool(knob.choices) == named and (knob.bounds is None) == named, knob.field
        if knob.widget in (
            Widget.SLIDER,
            Widget.RANGE,
        ):  # whole numbers stepped by one, or a fraction's steps
            least, most = knob.bounds or (0, 0)
            whole = isinstance(least, int) and isinstance(most, int)
            assert knob.step == 1 if whole else 0 < (knob.step or 0) < most - least, knob.field
            assert whole or round((most - least) / knob.step, 9).is_integer(), knob.field
        assert (knob.widget == Widget.RANGE) == bool(knob.upper), knob.field
        defaults = SearchParams()
        for field in knob.fields:
            value = getattr(defaults, field)
            assert value in knob.choices if named else knob.bounds[0] <= value <= knob.bounds[1], field


def test_an_entry_fills_in_its_key_address_and_flag() -> None:
    shown = Knob("knee_pool", "Pool", "How many.", Widget.SLIDER, (1, 200))
    assert (shown.key, shown.url, shown.flag, shown.step, shown.fields) == (
        "knee_pool",
        ("knee_pool",),
        "--knee-pool",
        1,
        ("knee_pool",),
    )
    hidden = Knob("span_merge")
    assert (hidden.url, hidden.flag, hidden.step) == ((), "--span-merge", None)
    ranged = Knob("min_keep", "Kept", "Kept.", Widget.RANGE, (1, 9), upper="max_keep", key="kept")
    assert ranged.fields == ("min_keep", "max_keep") and ranged.url == ranged.fields and ranged.key == "kept"


def test_the_cli_options_are_the_registrys() -> None:
    options = _search_options()
    knobs = {dest: a for dest, a in options.items() if dest in FIELDS}
    assert list(knobs) == FIELDS, "one option per field, in the dataclass's order"
    for field, action in knobs.items():
        assert action.option_strings == [FLAGS[field]], field
        assert (tuple(action.choices) if action.choices else ()) == CHOICES.get(field, ()), field
    assert FLAGS["knee_method"] == "--knee" and FLAGS["max_keep"] == "--max-keep"  # flags tools rely on


def test_the_glossary_and_the_address_are_the_registrys() -> None:
    shown = [k for k in KNOBS if k.widget]
    assert list(glossary.KNOBS) == [k.key for k in shown]
    for knob in shown:
        assert glossary.knob_label(knob.key) == knob.label
        assert glossary.knob_help(knob.key).startswith(knob.does + " Read by "), knob.key
        assert glossary.knob_help(knob.key).endswith(glossary.PINNED) == knob.pinned, knob.key
    assert tuple(key for k in shown for key in k.url or ()) == url_state.KNOBS
    assert list(ADDRESS.values()) == [field for k in shown for field in k.fields]
    address = url_state.view_query("q", ["flat"], SearchParams())
    assert list(address)[2:] == list(url_state.KNOBS)
    for key, field in ADDRESS.items():  # each end of each range, one past it: not read
        if field in BOUNDS:
            least, most = BOUNDS[field]
            within = url_state.read_view({key: str(most)}, [])
            past = url_state.read_view({key: str(most + 1)}, [])
            assert within.knobs == {field: most} and past.ignored == [f"{key}={most + 1}"], key
    for field, values in CHOICES.items():
        assert url_state.read_view({field: values[-1]}, []).knobs == {field: values[-1]}


def test_the_compare_page_takes_its_knobs_from_the_registry() -> None:
    """No bound, label or list of knobs is written in the page (its widgets are checked in
    test_app_compare)."""
    page = (REPO / "pages" / "compare.py").read_text(encoding="utf-8")
    assert "read_view(opened, STRATEGIES)" in page, "the address read with the registry's bounds"
    assert not re.search(r"\(\s*\d+(\.\d+)?\s*,\s*\d+(\.\d+)?\s*\)", page), "a (least, most) pair in the page"
    for knob in (k for k in KNOBS if k.widget):
        assert f'"{knob.label}"' not in page and knob.does not in page, knob.field
    assert not re.search(r"\b(KNEE_METHODS|SCORE_SOURCES)\b", page), "choices from the registry"
