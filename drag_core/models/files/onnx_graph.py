"""An fp32 ONNX graph of a BERT encoder written from its weights with the ``onnx`` package (no torch), and a
smoke test that runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from drag_core.models.files.safetensors import read_safetensors
from drag_core.models.files.spec import DENSE_DIM, ONNX_OPSET, ModelFilesError

__all__ = ['build_bert_onnx', 'export_fp32_onnx', 'smoke_test']

def build_bert_onnx(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:
    """An ONNX ``ModelProto`` of a BERT encoder (no pooler) from HF-style weights.

    Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, [batch, sequence]); output
    ``last_hidden_state`` (float32, [batch, sequence, hidden]).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    if config.get("hidden_act", "gelu") != "gelu":
        raise ModelFilesError(f"unsupported activation {config.get('hidden_act')!r}")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ModelFilesError("only absolute position embeddings are supported")
    if hidden % heads:
        raise ModelFilesError(f"hidden size {hidden} is not a multiple of {heads} heads")
    head_dim = hidden // heads

    initializers: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def weight(key: str, transpose: bool = False, scale: float = 1.0) -> str:
        if key not in weights:
            raise ModelFilesError(f"weight {key!r} missing")
        array = weights[key].astype(np.float32)
        if scale != 1.0:
            array = (array.astype(np.float64) * scale).astype(np.float32)
        return const(key, array.T if transpose else array)

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=f"{op}_{output}", **attrs))
        return output

    def linear(x: str, prefix: str, out: str, scale: float = 1.0) -> str:
        """x @ W.T + b, with an optional scale folded into W and b."""
        w = weight(f"{prefix}.weight", transpose=True, scale=scale)
        return node(
            "Add", [node("MatMul", [x, w], f"{out}/matmul"), weight(f"{prefix}.bias", scale=scale)], out
        )

    def split_heads(x: str, out: str, perm: list[int]) -> str:
        return node("Transpose", [node("Reshape", [x, split_shape], f"{out}_split")], f"{out}_t", perm=perm)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        return node(
            "LayerNormalization",
            [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")],
            out,
            axis=-1,
            epsilon=eps,
        )

    # Shared constants.
    zero = const("const/zero_1d", np.array([0], dtype=np.int64))
    one_f = const("const/one_f32", np.array(1.0, dtype=np.float32))
    half_f = const("const/half_f32", np.array(0.5, dtype=np.float32))
    sqrt2 = const("const/sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    mask_min = const("const/mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32))
    split_shape = const("const/split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_shape = const("const/merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    mask_axes = const("const/mask_axes", np.array([1, 2], dtype=np.int64))

    # Embeddings: word + position + token type, then LayerNorm.
    word = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "emb/word")
    # Position embeddings are rows 0..sequence-1 of the table: a Slice (no Range, no scalar indices).
    seq_len = node("Shape", ["input_ids"], "emb/seq_len", start=1, end=2)
    pos_table = weight("embeddings.position_embeddings.weight")
    pos = node("Slice", [pos_table, zero, seq_len, zero], "emb/position")
    tok = node("Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "emb/type")
    x = node("Add", [node("Add", [word, pos], "emb/word_pos"), tok], "emb/sum")
    x = layer_norm(x, "embeddings.LayerNorm", "emb/out")

    # Additive attention mask: 0 where attended, float32 min where padded; shape [batch, 1, 1, sequence].
    mask_f = node("Cast", ["attention_mask"], "mask/float", to=TensorProto.FLOAT)
    inverted = node("Sub", [one_f, mask_f], "mask/inverted")
    additive = node("Mul", [inverted, mask_min], "mask/additive")
    additive = node("Unsqueeze", [additive, mask_axes], "mask/out")

    for i in range(layers):
        p = f"encoder.layer.{i}"
        q = linear(x, f"{p}.attention.self.query", f"l{i}/q", scale=head_dim**-0.5)  # scaled dot product
        k = linear(x, f"{p}.attention.self.key", f"l{i}/k")
        v = linear(x, f"{p}.attention.self.value", f"l{i}/v")
        q = split_heads(q, f"l{i}/q", [0, 2, 1, 3])  # [batch, heads, sequence, head_dim]
        k = split_heads(k, f"l{i}/k", [0, 2, 3, 1])  # [batch, heads, head_dim, sequence]
        v = split_heads(v, f"l{i}/v", [0, 2, 1, 3])
        scores = node("Add", [node("MatMul", [q, k], f"l{i}/scores"), additive], f"l{i}/scores_masked")
        probs = node("Softmax", [scores], f"l{i}/probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"l{i}/ctx")], f"l{i}/ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_shape], f"l{i}/ctx_merged")
        attn = linear(ctx, f"{p}.attention.output.dense", f"l{i}/attn_out")
        x = layer_norm(
            node("Add", [attn, x], f"l{i}/attn_res"), f"{p}.attention.output.LayerNorm", f"l{i}/ln1"
        )

        h = linear(x, f"{p}.intermediate.dense", f"l{i}/ffn_in")
        # GELU(h) = h * (1 + erf(h / sqrt 2)) * 0.5, in the node order onnxruntime fuses into one Gelu kernel.
        erf = node("Erf", [node("Div", [h, sqrt2], f"l{i}/gelu_scaled")], f"l{i}/gelu_erf")
        gelu = node("Mul", [h, node("Add", [erf, one_f], f"l{i}/gelu_1p")], f"l{i}/gelu_x")
        gelu = node("Mul", [gelu, half_f], f"l{i}/gelu")
        out = linear(gelu, f"{p}.output.dense", f"l{i}/ffn_out")
        x = layer_norm(node("Add", [out, x], f"l{i}/ffn_res"), f"{p}.output.LayerNorm", f"l{i}/ln2")

    node("Identity", [x], "last_hidden_state")

    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes,
        "bert_encoder",
        inputs=[
            helper.make_tensor_value_info(name, TensorProto.INT64, dims)
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, hidden])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", ONNX_OPSET)],
        producer_name="drag_core.models.files",
        doc_string="all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) BERT encoder, fp32",
    )
    model.ir_version = min(model.ir_version, 8)  # readable by older onnxruntime builds too
    onnx.checker.check_model(model, full_check=True)
    return model


def export_fp32_onnx(source_dir: Path, out_file: Path) -> None:
    """Write the fp32 ONNX encoder of the model in ``source_dir`` (safetensors + config.json) to ``out_file``."""
    import onnx

    config = json.loads((source_dir / "config.json").read_text())
    weights = read_safetensors(source_dir / "model.safetensors")
    model = build_bert_onnx(weights, config)
    onnx.save_model(model, str(out_file))


def smoke_test(onnx_file: Path, tokenizer_file: Path, reference: Path | None = None) -> float | None:
    """Run the ONNX file on two sentences; check the output; return cosine vs ``reference`` (an ONNX file)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    encoded = tokenizer.encode_batch(["A man is eating food.", "Quarterly revenue grew by 12 percent."])
    feeds = {
        "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
    }

    def pooled(path: Path) -> np.ndarray:
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        (hidden,) = session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})
        mask = feeds["attention_mask"][:, :, None].astype(np.float32)
        vectors = (hidden * mask).sum(axis=1) / mask.sum(axis=1)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    vectors = pooled(onnx_file)
    if vectors.shape != (2, DENSE_DIM) or not np.isfinite(vectors).all():
        raise ModelFilesError(f"{onnx_file}: bad output {vectors.shape}")
    if reference is None:
        return None
    cosine = float(np.min(np.sum(vectors * pooled(reference), axis=1)))
    if cosine < 0.99:
        raise ModelFilesError(f"{onnx_file}: disagrees with {reference.name} (cosine {cosine:.4f})")
    return cosine
