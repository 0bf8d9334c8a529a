"""Entry point of ``python -m drag_core`` (the same CLI as the ``drag`` console script)."""

import sys

from drag_core.cli import main

sys.exit(main(prog="python -m drag_core"))
