"""Dense embedding throughput through fastembed: fp32 export vs int8 ONNX, batch size 32 vs 64.

Run: ``python bench/embed_throughput.py [--texts 256] [--words 200] [--repeats 2] [--threads N]``.
Texts are synthetic ~200-word passages (about 250 word pieces, so most hit the 256-token limit like real pages).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from fastembed import TextEmbedding
from tokenizers import Tokenizer

from drag_core.config import Settings
from drag_core.models.files import (
    DENSE_MODEL_NAME,
    DENSE_MODEL_SUBDIR,
    ONNX_FILE,
    int8_onnx_path,
    prepare_dense_model,
    register_dense_model,
)

_VOCABULARY_TEXT = (
    "the company reported net revenue of million for fiscal year compared with prior period operating income "
    "increased decreased primarily due to higher lower costs sales growth margin cash flow from operations "
    "capital expenditures debt interest expense tax rate earnings per share diluted basic shareholders equity "
    "total assets liabilities goodwill impairment segment international domestic customers products services "
    "pricing demand supply chain inflation currency exchange rates risk factors management believes that our "
    "results may be affected by competition regulation litigation acquisitions restructuring charges dividends "
    "repurchases quarter annual report statements balance sheet income statement consolidated subsidiaries"
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
VOCABULARY = _VOCABULARY_TEXT.split()


def make_texts(count: int, words: int, seed: int = 0) -> list[str]:
    """``count`` deterministic pseudo-financial passages of ``words`` words each."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        sentences, n = [], 0
        while n < words:
            length = min(rng.randint(8, 22), words - n)
            sentence = " ".join(rng.choice(VOCABULARY) for _ in range(length))
            sentences.append(sentence.capitalize() + ".")
            n += length
        texts.append(" ".join(sentences))
    return texts


def run_once(model: TextEmbedding, texts: list[str], batch_size: int) -> tuple[float, float]:
    """texts per wall-clock second and per CPU second (the latter barely depends on other load) of one pass."""
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = list(model.embed(texts, batch_size=batch_size))
    return len(vectors) / (time.perf_counter() - wall), len(vectors) / (time.process_time() - cpu)


def main() -> None:
    """Print texts/s for each model and batch size, and the fp32/int8 ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads (default: ORT's)")
    args = parser.parse_args()

    fp32 = prepare_dense_model(Settings.from_env().model_dir / DENSE_MODEL_SUBDIR)
    register_dense_model()
    texts = make_texts(args.texts, args.words)
    tokenizer = Tokenizer.from_file(str(fp32 / "tokenizer.json"))
    tokenizer.no_truncation()
    tokens = np.array([len(e.ids) for e in tokenizer.encode_batch(texts)])
    print(
        f"{len(texts)} texts of {args.words} words ({tokens.mean():.0f} word pieces on average, "
        f"{(tokens > 256).mean():.0%} truncated at 256), cpus={os.cpu_count()}, threads={args.threads or 'default'}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        int8 = Path(tmp) / "int8"
        shutil.copytree(fp32, int8)
        shutil.copyfile(int8_onnx_path(), int8 / ONNX_FILE)
        models = {
            label: TextEmbedding(
                model_name=DENSE_MODEL_NAME, specific_model_path=str(folder), threads=args.threads
            )
            for label, folder in (("fp32", fp32), ("int8", int8))
        }
        for model in models.values():
            list(model.embed(texts[:32], batch_size=32))  # warm-up
        configs = [(batch_size, label) for batch_size in (32, 64) for label in models]
        best = dict.fromkeys(configs, (0.0, 0.0))
        for _ in range(args.repeats):  # interleaved, so a busy machine affects every configuration alike
            for config in configs:
                wall, cpu = run_once(models[config[1]], texts, config[0])
                best[config] = (max(best[config][0], wall), max(best[config][1], cpu))
        print(f"load average {os.getloadavg()[0]:.1f}; best of {args.repeats} interleaved runs")
        for (batch_size, label), (wall, cpu) in best.items():
            print(
                f"batch_size={batch_size:3d} {label}: {wall:6.1f} texts/s wall, {cpu:6.1f} texts per CPU second"
            )
        for batch_size in (32, 64):
            wall = best[batch_size, "fp32"][0] / best[batch_size, "int8"][0]
            cpu = best[batch_size, "fp32"][1] / best[batch_size, "int8"][1]
            print(f"batch_size={batch_size:3d} fp32/int8 ratio: {wall:.2f} wall, {cpu:.2f} CPU")


if __name__ == "__main__":
    main()
