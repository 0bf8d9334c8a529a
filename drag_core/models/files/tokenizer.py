"""The tokenizer files of the model folder, with the sequence length the model was trained on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from drag_core.models.files.spec import EXTRA_FILES, MAX_SEQ_LENGTH, TOKENIZER_FILES, ModelFilesError

__all__ = ['write_tokenizer_files']

def write_tokenizer_files(source_dir: Path, out_dir: Path, max_length: int = MAX_SEQ_LENGTH) -> None:
    """Copy the tokenizer files with the sequence length set to ``max_length`` word pieces."""
    tokenizer = json.loads((source_dir / "tokenizer.json").read_text(encoding="utf-8"))
    tokenizer["truncation"] = {
        "direction": "Right",
        "max_length": max_length,
        "strategy": "LongestFirst",
        "stride": 0,
    }
    if tokenizer.get("padding"):  # pad each batch to its longest text, not to a fixed length
        tokenizer["padding"]["strategy"] = "BatchLongest"
    (out_dir / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")

    tokenizer_config = json.loads((source_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    tokenizer_config["model_max_length"] = max_length
    (out_dir / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2), encoding="utf-8")

    for name in ("special_tokens_map.json", "config.json", *EXTRA_FILES):
        if (source_dir / name).is_file():
            shutil.copyfile(source_dir / name, out_dir / name)
        elif name in TOKENIZER_FILES:
            raise ModelFilesError(f"{source_dir / name} not found")
