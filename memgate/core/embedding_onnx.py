"""MiniLM on ONNX Runtime, the graph built here from the shipped weights (no download).

:func:`build_model` writes the same BERT encoder as :class:`memgate.core.embedding._BertNumpy`
(word, position and type embeddings, six layers, mean pooling over the mask) as an ONNX
graph from ``model.safetensors``; with ``int8`` the weight products are quantised
dynamically (weights int8, activations quantised per batch: VNNI/AVX-512 kernels); the
feed-forward output products of the layers :data:`INT8_FFN_OUT_LAYERS` names (all six).
:class:`OnnxEncoder` runs it. Needs the ``onnx`` extra (``onnx``, ``onnxruntime``).

Quantising takes seconds of CPU at every start (issue 14): the int8 model is kept in
the cache folder (``MEMGATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/memgate``, else
``~/.cache/memgate``), named by a digest of the weights, the config, this module and the
two libraries' versions, so any change builds it anew. It holds the public weights only.

The kept file is trusted only when it is a regular file of this user (or root), writable by
no one else, in a folder no one else may write, and when it ends with the SHA-256 of what it
holds (a file cut short or changed on disk fails it): otherwise it is built anew and one
warning line says why. It is written under a fresh random name (``O_EXCL``, so a link
planted at a predictable name is never followed) and renamed into place; two processes
building it at once each write their own and the last rename wins (the same bytes).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "DISABLED_FUSIONS",
    "INT8_FFN_OUT_LAYERS",
    "OnnxEncoder",
    "build_model",
    "cache_dir",
    "int8_model_path",
]

log = logging.getLogger("memgate.embedding")

_OPSET = 17
#: The kept model's trailer: this tag and the SHA-256 of the bytes before it.
_TRAILER = b"MEMGATE-SHA256:"
#: ONNX Runtime fusions left out (issue 14): its CPU ``SkipLayerNormalization`` kernel
#: measured about 6 times the ``LayerNormalization`` of the same shape; without it the
#: residual ``Add`` and ``LayerNormalization`` run as written (about 12 % less CPU a pass;
#: the vectors move within int8 noise)
DISABLED_FUSIONS = ["SkipLayerNormFusion"]
#: the layers whose feed-forward output product (``l{i}.out.mm``, 1,536 to 384) is int8
#: (session 17, fastpass): all six. Kept in float32 before, for accuracy, these products
#: took about 30 % of a pass; in int8 a pass takes about 45 % less CPU. Cosine to float32
#: (mean, min): the test's fixed sentences 0.9948, 0.9931 (before 0.9970, 0.9960); the
#: 1,400 texts the LoCoMo dev conversations embed 0.9930, 0.9809 (before 0.9966, 0.9902;
#: 7 % of them under 0.99 now). LoCoMo dev recall and ``memgate eval --split dev`` were
#: not lower (README, "fastpass"); layers 3 to 5 alone kept 0.9962 but lost recall@10
INT8_FFN_OUT_LAYERS = (0, 1, 2, 3, 4, 5)


def build_model(weights_path: Path, config: dict[str, Any]) -> Any:
    """The encoder as an ``onnx.ModelProto``: inputs ``ids`` (B, L) int64, ``mask`` (B, L)
    float32, ``pos`` (L,) int64; output ``pooled`` (B, hidden), not normalised."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    raw = {k.removeprefix("bert."): v for k, v in load_file(str(weights_path)).items()}
    t = {
        k: np.ascontiguousarray(v, dtype=np.float32) for k, v in raw.items() if v.dtype.kind == "f"
    }
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    dh = hidden // heads
    eps = float(config.get("layer_norm_eps", 1e-12))
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, arr: npt.ArrayLike) -> str:
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op: str, ins: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def lin(x: str, w: npt.NDArray[np.float32], b: npt.NDArray[np.float32], name: str) -> str:
        y = node("MatMul", [x, const(f"{name}.w", np.ascontiguousarray(w.T))], f"{name}.mm")
        return node("Add", [y, const(f"{name}.b", b)], f"{name}.out")

    def ln(x: str, g: str, name: str) -> str:
        return node(
            "LayerNormalization",
            [x, const(f"{name}.g", t[f"{g}.weight"]), const(f"{name}.bias", t[f"{g}.bias"])],
            name,
            axis=-1,
            epsilon=eps,
        )

    e = "embeddings"
    w = node("Gather", [const("word", t[f"{e}.word_embeddings.weight"]), "ids"], "emb.word")
    p = node("Gather", [const("pos_table", t[f"{e}.position_embeddings.weight"]), "pos"], "emb.pos")
    x = node("Add", [w, p], "emb.wp")
    x = node("Add", [x, const("type0", t[f"{e}.token_type_embeddings.weight"][0])], "emb.sum")
    x = ln(x, f"{e}.LayerNorm", "emb.ln")
    # additive attention bias (B, 1, 1, L): 0 for tokens, -1e9 for padding
    inv = node("Sub", [const("one", np.float32(1.0)), "mask"], "mask.inv")
    bias = node("Mul", [inv, const("neg", np.float32(-1e9))], "mask.neg")
    bias = node("Unsqueeze", [bias, const("ax12", np.array([1, 2], dtype=np.int64))], "mask.bias")
    split_shape = const("qkv_shape", np.array([0, 0, 3, heads, dh], dtype=np.int64))
    merge_shape = const("ctx_shape", np.array([0, 0, hidden], dtype=np.int64))
    scale = const("scale", np.float32(1.0 / math.sqrt(dh)))
    for i in range(int(config["num_hidden_layers"])):
        pre = f"encoder.layer.{i}"
        a = f"{pre}.attention"
        wq = np.concatenate([t[f"{a}.self.{n}.weight"] for n in ("query", "key", "value")], axis=0)
        bq = np.concatenate([t[f"{a}.self.{n}.bias"] for n in ("query", "key", "value")])
        qkv = lin(x, wq, bq, f"l{i}.qkv")
        qkv = node("Reshape", [qkv, split_shape], f"l{i}.qkv5")
        qkv = node("Transpose", [qkv], f"l{i}.qkvT", perm=[2, 0, 3, 1, 4])
        parts = [f"l{i}.q0", f"l{i}.k0", f"l{i}.v0"]
        nodes.append(
            helper.make_node("Split", [qkv], parts, name=f"l{i}.split", axis=0, num_outputs=3)
            if _OPSET >= 18
            else helper.make_node("Split", [qkv], parts, name=f"l{i}.split", axis=0)
        )
        ax0 = const(f"l{i}.ax0", np.array([0], dtype=np.int64))
        q, k, v = (node("Squeeze", [n, ax0], n[:-1]) for n in parts)
        kt = node("Transpose", [k], f"l{i}.kT", perm=[0, 1, 3, 2])
        s = node("MatMul", [q, kt], f"l{i}.s")
        s = node("Mul", [s, scale], f"l{i}.ss")
        s = node("Add", [s, bias], f"l{i}.sb")
        s = node("Softmax", [s], f"l{i}.p", axis=-1)
        c = node("MatMul", [s, v], f"l{i}.ctx")
        c = node("Transpose", [c], f"l{i}.ctxT", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, merge_shape], f"l{i}.ctx3")
        o = lin(c, t[f"{a}.output.dense.weight"], t[f"{a}.output.dense.bias"], f"l{i}.proj")
        o = node("Add", [o, x], f"l{i}.res1")
        x = ln(o, f"{a}.output.LayerNorm", f"l{i}.ln1")
        h = lin(
            x,
            t[f"{pre}.intermediate.dense.weight"],
            t[f"{pre}.intermediate.dense.bias"],
            f"l{i}.inter",
        )
        # exact GELU: h * (1 + erf(h / sqrt 2)) / 2
        g = node("Mul", [h, const(f"l{i}.rs2", np.float32(1.0 / math.sqrt(2.0)))], f"l{i}.g1")
        g = node("Erf", [g], f"l{i}.g2")
        g = node("Add", [g, const(f"l{i}.one", np.float32(1.0))], f"l{i}.g3")
        g = node("Mul", [g, h], f"l{i}.g4")
        g = node("Mul", [g, const(f"l{i}.half", np.float32(0.5))], f"l{i}.g5")
        o = lin(g, t[f"{pre}.output.dense.weight"], t[f"{pre}.output.dense.bias"], f"l{i}.out")
        o = node("Add", [o, x], f"l{i}.res2")
        x = ln(o, f"{pre}.output.LayerNorm", f"l{i}.ln2")
    m3 = node("Unsqueeze", ["mask", const("ax2", np.array([2], dtype=np.int64))], "mask3")
    summed = node(
        "ReduceSum",
        [node("Mul", [x, m3], "masked"), const("ax1", np.array([1]))],
        "summed",
        keepdims=0,
    )
    count = node("ReduceSum", ["mask", const("ax1b", np.array([1]))], "count", keepdims=1)
    count = node("Max", [count, const("tiny", np.float32(1e-9))], "count1")
    node("Div", [summed, count], "pooled")
    graph = helper.make_graph(
        nodes,
        "minilm",
        [
            helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", "L"]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["B", "L"]),
            helper.make_tensor_value_info("pos", TensorProto.INT64, ["L"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", hidden])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def cache_dir() -> Path:
    """Where built models are kept: ``MEMGATE_CACHE_DIR``, else the XDG cache folder."""
    own = os.environ.get("MEMGATE_CACHE_DIR")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "memgate"


def int8_model_path(weights_path: Path, config: dict[str, Any]) -> Path:
    """The kept int8 model's file: named by everything it is built from."""
    import onnx
    import onnxruntime as ort  # type: ignore[import-untyped]

    h = hashlib.sha256()
    with open(weights_path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    h.update(json.dumps(config, sort_keys=True).encode())
    h.update(Path(__file__).read_bytes())
    h.update(f"onnx {onnx.__version__} onnxruntime {ort.__version__}".encode())
    return cache_dir() / f"minilm-int8-{h.hexdigest()[:32]}.onnx"


def _quantise(model: Any, tmp: Path) -> Path:
    """``model`` with its weight products quantised to int8, as a file in ``tmp``."""
    import onnx
    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        QuantType,
        quantize_dynamic,
    )

    path, qpath = tmp / "minilm.onnx", tmp / "minilm-int8.onnx"
    onnx.save(model, str(path))
    # only the weight products (not attention's activation products), one scale per
    # output channel: the vectors stay within 0.01 cosine of fp32 (the fixed sentences)
    ffn_out = {f"l{i}.out.mm" for i in INT8_FFN_OUT_LAYERS}
    linear = [
        n.name
        for n in model.graph.node
        if n.name.endswith(".mm") and (not n.name.endswith(".out.mm") or n.name in ffn_out)
    ]
    quantize_dynamic(
        str(path),
        str(qpath),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_quantize=linear,
        op_types_to_quantize=["MatMul"],
    )
    return qpath


def _untrusted(path: Path) -> str | None:
    """Why the kept file at ``path`` may not be loaded (None: it may): another user's, a
    link, not a regular file, or writable by others, or its folder is."""
    try:
        st = os.lstat(path)
        folder = os.stat(path.parent)
    except OSError as exc:
        return f"cannot be read ({type(exc).__name__})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    own = (os.getuid(), 0)  # ours, or root's (a cache built into an image)
    if st.st_uid not in own:
        return "belongs to another user"
    if st.st_mode & 0o022:
        return "is writable by other users"
    if folder.st_uid not in own or folder.st_mode & 0o022:
        return "is in a folder other users may write"
    return None


def _read_kept(path: Path) -> bytes | None:
    """The model kept at ``path`` when it may be trusted and is whole, else None (with one
    warning line naming the file and why, unless there is no file)."""
    if not os.path.lexists(path):
        return None
    why = _untrusted(path)
    if why is None:
        # the model and its trailer read apart: one buffer of the model's size, no copy
        # (the file is about 58 MB; a slice of a whole-file read would hold it twice)
        body, tail = b"", b""
        try:
            with path.open("rb") as f:
                cut = os.fstat(f.fileno()).st_size - len(_TRAILER) - 32
                if cut >= 0:
                    body, tail = f.read(cut), f.read()
        except OSError as exc:
            why = f"cannot be read ({type(exc).__name__})"
        if why is None and (len(body) != cut or tail[: len(_TRAILER)] != _TRAILER
                            or len(tail) != len(_TRAILER) + 32):  # fmt: skip
            why = "is cut short or not a kept model"
        elif why is None and hashlib.sha256(body).digest() != tail[-32:]:
            why = "does not match its checksum (changed on disk)"
        if why is None:
            return body
    log.warning(
        "event=int8_model_cache_rejected path=%s reason=%r action=built anew from the "
        "shipped weights (vectors unchanged); if this repeats, set MEMGATE_CACHE_DIR to "
        "a folder of your own that only you can write",
        path, why,
    )  # fmt: skip
    return None


def _keep(data: bytes, path: Path) -> None:
    """Write the built model to the cache, atomically, under a fresh name (``O_EXCL``:
    no planted link is followed) renamed into place; a cache that cannot be written is
    skipped with one warning line (the model is built again next time)."""
    part = ""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=path.name + ".", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.write(_TRAILER + hashlib.sha256(data).digest())
        os.replace(part, path)
        part = ""
    except OSError as exc:
        log.warning(
            "event=int8_model_cache_unwritable path=%s error=%s action=not kept (built "
            "again at the next start); set MEMGATE_CACHE_DIR to a folder you can write",
            path, type(exc).__name__,
        )  # fmt: skip
    finally:
        if part:
            with contextlib.suppress(OSError):
                os.unlink(part)


class OnnxEncoder:
    """Runs :func:`build_model`'s graph (fp32, or ``int8``: dynamically quantised) on
    ONNX Runtime with ``threads`` intra-op threads; built once, in a temporary folder."""

    def __init__(
        self, weights_path: Path, config: dict[str, Any], *, int8: bool, threads: int = 1
    ) -> None:
        import onnx
        import onnxruntime as ort  # type: ignore[import-untyped]

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        # the pool's threads sleep between passes instead of spinning on the core the
        # main thread needs (issue 14: embedder_threads)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        kept = int8_model_path(weights_path, config) if int8 else None
        data = _read_kept(kept) if kept is not None else None
        if data is not None:
            try:
                self._session = ort.InferenceSession(
                    data,
                    sess_options=opts,
                    providers=["CPUExecutionProvider"],
                    disabled_optimizers=DISABLED_FUSIONS,
                )
                return
            except Exception as exc:  # whole but not loadable: built anew and replaced
                log.warning(
                    "event=int8_model_cache_rejected path=%s reason=%r action=built anew",
                    kept, f"ONNX Runtime cannot load it ({type(exc).__name__})",
                )  # fmt: skip
        model = build_model(weights_path, config)
        with tempfile.TemporaryDirectory(prefix="memgate-onnx-") as tmp:
            if int8:
                data = _quantise(model, Path(tmp)).read_bytes()
            else:
                path = Path(tmp) / "minilm.onnx"
                onnx.save(model, str(path))
                data = path.read_bytes()
        self._session = ort.InferenceSession(
            data,
            sess_options=opts,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=DISABLED_FUSIONS,
        )
        if kept is not None:
            _keep(data, kept)

    def encode(
        self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        pos = np.arange(ids.shape[1], dtype=np.int64)
        (pooled,) = self._session.run(["pooled"], {"ids": ids, "mask": mask, "pos": pos})
        return np.asarray(pooled, dtype=np.float32)
