"""Build the local model folders, offline: ``python -m drag_core.models.setup [--dir DIR] [--force]``.

The dense model (all-MiniLM-L6-v2 for fastembed) goes to ``DIR/all-MiniLM-L6-v2``; ``DIR`` defaults to
``$DRAG_MODEL_DIR``, else ``./models``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from drag_core.config import Settings
from drag_core.models.files import (
    DENSE_MODEL_NAME,
    DENSE_MODEL_SUBDIR,
    ModelFilesError,
    is_dense_model_dir,
    prepare_dense_model,
    read_manifest,
)

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Build the dense model folder and print one line saying what was done."""
    parser = argparse.ArgumentParser(prog="python -m drag_core.models.setup", description=__doc__)
    parser.add_argument(
        "--dir", type=Path, default=None, help="model root folder (default: $DRAG_MODEL_DIR or ./models)"
    )
    parser.add_argument("--force", action="store_true", help="rebuild even if the folder is already valid")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    target = (args.dir if args.dir is not None else Settings.from_env().model_dir) / DENSE_MODEL_SUBDIR
    existed = not args.force and is_dense_model_dir(target)
    started = time.perf_counter()
    try:
        folder = prepare_dense_model(target, force=args.force)
    except ModelFilesError as exc:
        print(f"error: could not build {target}: {exc}", file=sys.stderr)
        return 1
    manifest = read_manifest(folder) or {}
    source = manifest.get("source", "?")
    if existed:
        print(f"dense model already present: {folder} ({source}, fastembed name {DENSE_MODEL_NAME})")
    else:
        print(
            f"built dense model {folder} ({source}, {manifest.get('max_seq_length')} tokens, "
            f"fastembed name {DENSE_MODEL_NAME}) in {time.perf_counter() - started:.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
