"""Parameter sweeps: the same runs at several values of one ``SearchParams`` field (sensitivity, beam width,
RRF k, score source, …), evaluated together so every query is embedded once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from drag_core.engine import Engine
from drag_core.evaluation.datasets import Dataset
from drag_core.evaluation.runner import Progress, Report, RunSpec, evaluate, param_value

__all__ = ["Sweep", "run_sweep", "sweep_specs"]


@dataclass
class Sweep:
    """A sweep's report and which run belongs to which strategy and value.

    Attributes:
        param: the swept field of ``SearchParams``.
        report: the evaluation of every (run, value) pair.
        points: run label → (base run label, value).
    """

    param: str
    report: Report
    points: dict[str, tuple[str, Any]]


def sweep_specs(
    specs: Sequence[RunSpec], param: str, values: Sequence[str]
) -> list[tuple[RunSpec, str, Any]]:
    """Every run at every value: (the run with the value set, the base label, the typed value)."""
    out = []
    for spec in specs:
        for text in values:
            value = param_value(param, text)
            label = f"{spec.label} {param}={value}"
            out.append(
                (RunSpec(label, spec.strategy, spec.params.with_(**{param: value})), spec.label, value)
            )
    return out


def run_sweep(
    engine: Engine,
    dataset: Dataset,
    specs: Sequence[RunSpec],
    param: str,
    values: Sequence[str],
    progress: Progress | None = None,
    index: dict[str, Any] | None = None,
    slider: bool = True,
) -> Sweep:
    """Evaluate each run at each value of ``param`` (``slider``: with the answer sizes over the Sensitivity
    slider, measured once per query for a sweep of the sensitivity itself)."""
    planned = sweep_specs(specs, param, values)
    report = evaluate(engine, dataset, [spec for spec, _, _ in planned], progress, index, slider)
    return Sweep(param, report, {spec.label: (base, value) for spec, base, value in planned})
