"""The ``drag`` command (also ``python -m drag_core``): ingest, search, docs, tree, remove, eval, sweep.

Results go to stdout (tables for people, ``--json`` for machines); progress and errors go to stderr. Exit codes:
0 ok, 1 some file failed or nothing was found, 2 bad usage or an unusable store. Start-up is kept short: the
embedding models and Qdrant are imported only by the commands that use them (plotly and Streamlit never: they
belong to the app, ``drag_core.app``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from drag_core.cli.commands import COMMANDS, UsageError
from drag_core.cli.parser import build_parser
from drag_core.config import Settings

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None, prog: str = "drag") -> int:
    """Run one command; returns the exit code."""
    args = build_parser(prog).parse_args(argv)
    # A failed file is reported once, on its result line; library warnings would repeat it on stderr.
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s: %(message)s")
    try:
        settings = Settings.from_env(store=getattr(args, "store", None))  # the only read of the environment
        return COMMANDS[args.command](args, settings)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        if not _is_expected(error):
            raise
        print(f"error: {error.args[0] if error.args else error}", file=sys.stderr)
        return 2


def _is_expected(error: Exception) -> bool:
    """Errors a user can fix (an unusable store, an unknown document, a bad value) — not bugs."""
    from drag_core.errors import DragError

    return isinstance(error, DragError | KeyError | ValueError)
