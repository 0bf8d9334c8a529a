"""Evaluation harness: data sets, metrics, runs over strategies, parameter sweeps and reports."""
