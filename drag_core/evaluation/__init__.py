"""Evaluation harness: data sets, metrics, runs over strategies, parameter sweeps and reports."""

__all__: list[str] = []
