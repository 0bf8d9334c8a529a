"""Entry point of ``python -m drag_core``."""

import sys

from drag_core.cli import main

sys.exit(main())
