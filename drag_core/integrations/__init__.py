"""Adapters that let other frameworks use DRAG with KNEE (each imports its framework only when used)."""

__all__: list[str] = []
