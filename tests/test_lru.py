"""The one LRU memory: at most ``limit`` entries, the least recently used dropped first, a read counts as use."""

from __future__ import annotations

import pytest

from drag_core.lru import LRU


def test_the_least_recently_used_entry_goes_first() -> None:
    memory: LRU[str, int] = LRU(2)
    memory.put("a", 1)
    memory.put("b", 2)
    assert memory.get("a") == 1  # "a" is now the most recently used
    memory.put("c", 3)
    assert "b" not in memory and list(memory) == ["a", "c"] and len(memory) == 2
    assert memory.get("a") == 1 and list(memory) == ["c", "a"]


def test_get_or_make_makes_once_and_keeps_the_made_value() -> None:
    made: list[str] = []
    memory: LRU[str, str] = LRU(1)

    def make() -> str:
        made.append("x")
        return "value"

    assert memory.get_or_make("k", make) == memory.get_or_make("k", make) == "value"
    assert made == ["x"]
    memory.get_or_make("other", make)
    assert "k" not in memory and made == ["x", "x"]


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        LRU(0)
