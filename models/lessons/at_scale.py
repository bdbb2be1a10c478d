"""Attention at scale: the algorithms behind long contexts, each written as its paper defines it, in
numpy float32 (so that a bench can measure their peak memory with ``tracemalloc``), plus the capture
of one real head's Q, K and V from the lab's decoder LM or SmolLM2.

* exact attention: O = softmax(QKᵀ/√d + M)V, the n × n matrix held (Vaswani et al. 2017, eq. 1);
* tiled attention with the online softmax (Milakov & Gimelshein 2018; FlashAttention, Dao et al.
  2022, Algorithm 1): key blocks K_j, V_j stream past a query block Q_i, which keeps only its row
  maximum m, its row sum ℓ and its output O; the log-sum-exp L = m + log ℓ is saved, and any row of
  the attention matrix is rebuilt as P_i = exp(q_i K ᵀ/√d − L_i) (the backward pass of §3.1);
* sliding-window attention with attention sinks (StreamingLLM, Xiao et al. 2023): query t sees keys
  t − w < s ≤ t, and the first ``sinks`` tokens;
* linear attention (Katharopoulos et al. 2020, eq. 4–6 and §3.4): φ(x) = elu(x) + 1, in its parallel
  form, its recurrent form S_t = S_{t−1} + φ(k_t)v_tᵀ, z_t = z_{t−1} + φ(k_t), and chunked;
* the KV cache's size: 2 × layers × K/V heads × head dim × bytes per token (MHA, GQA, MQA;
  Shazeer 2019, Ainslie et al. 2023).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from models.inference.traces import Trace

F32 = np.float32


# --------------------------------------------------------------------------------------
# Exact attention and masks
# --------------------------------------------------------------------------------------


def allowed_mask(
    n_queries: int, n_keys: int, window: int | None = None, sinks: int = 0, q_start: int = 0, k_start: int = 0
) -> np.ndarray:
    """(n_queries, n_keys) bool, True = may attend: causal (key s ≤ query t), within the last ``window``
    keys (t − w < s; None: no window), or among the first ``sinks`` tokens (s < sinks), for the rows
    q_start … and columns k_start … of the whole matrix."""
    t = np.arange(q_start, q_start + n_queries)[:, None]
    s = np.arange(k_start, k_start + n_keys)[None, :]
    ok = s <= t
    if window is not None:
        ok &= (s > t - window) | (s < sinks)
    return ok


def exact_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = True, window: int | None = None, sinks: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(O, P): P = softmax(QKᵀ/√d + M), O = PV, with the whole n × n matrix P held (M: −∞ where
    :func:`allowed_mask` forbids; no mask when ``causal`` is False)."""
    scores = (q @ k.T).astype(F32, copy=False)
    scores *= F32(1.0 / math.sqrt(q.shape[-1]))
    if causal:
        scores[~allowed_mask(q.shape[0], k.shape[0], window, sinks)] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return (scores @ v).astype(F32), scores


def exact_output(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Causal softmax(QKᵀ/√d + M)V computed in place on the one n × n matrix (the bench's "exact" path)."""
    return exact_attention(q, k, v)[0]


# --------------------------------------------------------------------------------------
# FlashAttention: tiles and the online softmax
# --------------------------------------------------------------------------------------


@dataclass
class TileStep(Trace):
    """One key block K_j, V_j meeting the query block Q_i (Dao et al. 2022, Algorithm 1, lines 8–13):
    S = Q_i K_jᵀ/√d (−∞ where masked); m̃ = rowmax(S); m_new = max(m_old, m̃); the correction
    exp(m_old − m_new) that rescales the partial output when m grows; ``p`` = exp(S − m_new) ∈ [0, 1];
    ℓ_new = exp(m_old − m_new) ℓ_old + rowsum(p); ``output`` the normalised partial output after it."""

    key_start: int
    key_stop: int
    scores: np.ndarray
    m_old: np.ndarray
    m_new: np.ndarray
    correction: np.ndarray
    p: np.ndarray
    l_old: np.ndarray
    l_new: np.ndarray
    output: np.ndarray


@dataclass
class TiledResult:
    """The tiled pass's output O (n × d), the row maxima m, the row sums ℓ and the log-sum-exp
    L = m + log ℓ (all O(n)), and the steps of the recorded query block (empty when none was)."""

    output: np.ndarray
    m: np.ndarray
    l: np.ndarray  # noqa: E741  (the paper's ℓ)
    lse: np.ndarray
    steps: list[TileStep] = field(default_factory=list)


def tiled_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    block_q: int,
    block_k: int | None = None,
    causal: bool = True,
    record: int | None = None,
    version: int = 1,
) -> TiledResult:
    """FlashAttention's forward pass (Dao et al. 2022, Algorithm 1) in float32: for each query block
    Q_i, for each key block j (causal: only the blocks that reach the diagonal),

        S_ij = Q_i K_jᵀ/√d;  m̃ = rowmax(S_ij);  P̃ = exp(S_ij − m̃);  ℓ̃ = rowsum(P̃)
        m_new = max(m_i, m̃);  ℓ_new = e^(m_i − m_new) ℓ_i + e^(m̃ − m_new) ℓ̃
        O_i ← diag(ℓ_new)⁻¹ (diag(ℓ_i) e^(m_i − m_new) O_i + e^(m̃ − m_new) P̃ V_j)

    Only tiles of block_q × block_k scores exist at any time. ``record``: the index of a query block
    whose every step is kept (:class:`TileStep`). ``version`` 2: FlashAttention-2's order (Dao 2023,
    Algorithm 1): O_i kept unnormalised, O_i ← diag(e^(m_i − m_new)) O_i + exp(S_ij − m_new) V_j, divided
    by ℓ_i once at the end (fewer roundings; the same O in exact arithmetic)."""
    n, d = q.shape
    block_k = block_k or block_q
    scale = F32(1.0 / math.sqrt(d))
    out = np.zeros((n, v.shape[1]), dtype=F32)
    m_all = np.full(n, -np.inf, dtype=F32)
    l_all = np.zeros(n, dtype=F32)
    steps: list[TileStep] = []
    for bi, q0 in enumerate(range(0, n, block_q)):
        q1 = min(n, q0 + block_q)
        qi = q[q0:q1]
        o = np.zeros((q1 - q0, v.shape[1]), dtype=F32)
        m = np.full(q1 - q0, -np.inf, dtype=F32)
        l = np.zeros(q1 - q0, dtype=F32)  # noqa: E741
        stop = q1 if causal else k.shape[0]
        for k0 in range(0, stop, block_k):
            k1 = min(stop, k0 + block_k)
            s = (qi @ k[k0:k1].T) * scale
            if causal and k1 - 1 > q0:  # a tile that crosses the diagonal
                s[~allowed_mask(q1 - q0, k1 - k0, q_start=q0, k_start=k0)] = -np.inf
            m_tile = s.max(axis=1)
            seen = np.isfinite(m_tile)  # a row with no key in this tile adds nothing
            p_tile = np.exp(s - np.where(seen, m_tile, F32(0))[:, None])
            l_tile = p_tile.sum(axis=1)
            m_new = np.maximum(m, m_tile)
            old = np.where(np.isfinite(m), np.exp(m - m_new), F32(0)).astype(F32)
            new = np.where(seen, np.exp(m_tile - np.where(np.isfinite(m_new), m_new, F32(0))), F32(0)).astype(F32)
            l_new = old * l + new * l_tile
            if version == 2:
                o = old[:, None] * o + (new[:, None] * p_tile) @ v[k0:k1]
            else:
                o = ((l * old)[:, None] * o + new[:, None] * (p_tile @ v[k0:k1])) / l_new[:, None]
            if record == bi:
                shown = o / l_new[:, None] if version == 2 else o
                steps.append(
                    TileStep(
                        k0,
                        k1,
                        s.copy(),
                        m.copy(),
                        m_new.copy(),
                        old.copy(),
                        (new[:, None] * p_tile).astype(F32),
                        l.copy(),
                        l_new.copy(),
                        shown.copy(),
                    )
                )
            m, l = m_new.astype(F32), l_new.astype(F32)  # noqa: E741
        out[q0:q1], m_all[q0:q1], l_all[q0:q1] = (o / l[:, None] if version == 2 else o), m, l
    return TiledResult(out, m_all, l_all, (m_all + np.log(l_all)).astype(F32), steps)


def rebuild_row(q_row: np.ndarray, k: np.ndarray, lse: float, index: int, causal: bool = True) -> np.ndarray:
    """Row ``index`` of the attention matrix from q_i, K and the saved log-sum-exp L_i alone
    (Dao et al. 2022, §3.1, the backward pass): P_i = exp(q_i Kᵀ/√d − L_i), 0 beyond the diagonal."""
    s = (k @ q_row).astype(F32) * F32(1.0 / math.sqrt(q_row.shape[0]))
    row = np.exp(s - F32(lse)).astype(F32)
    if causal:
        row[index + 1 :] = 0.0
    return row


def windowed_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, window: int, sinks: int = 0, block: int = 256
) -> np.ndarray:
    """Causal sliding-window attention (each query sees its last ``window`` keys, plus the first ``sinks``
    tokens: StreamingLLM, Xiao et al. 2023), one query block at a time so that only block × (window +
    block + sinks) scores exist: O(n·w) time and memory."""
    n, d = q.shape
    out = np.empty((n, v.shape[1]), dtype=F32)
    scale = F32(1.0 / math.sqrt(d))
    for q0 in range(0, n, block):
        q1 = min(n, q0 + block)
        k0 = max(0, q0 - window + 1)
        head = min(sinks, k0)  # sink keys not already inside the window's range
        keys = np.concatenate([k[:head], k[k0:q1]]) if head else k[k0:q1]
        values = np.concatenate([v[:head], v[k0:q1]]) if head else v[k0:q1]
        cols = np.concatenate([np.arange(head), np.arange(k0, q1)])
        rows = np.arange(q0, q1)[:, None]
        ok = (cols[None, :] <= rows) & ((cols[None, :] > rows - window) | (cols[None, :] < sinks))
        s = (q[q0:q1] @ keys.T) * scale
        s[~ok] = -np.inf
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        out[q0:q1] = s @ values
    return out


# --------------------------------------------------------------------------------------
# Linear attention (Katharopoulos et al. 2020)
# --------------------------------------------------------------------------------------


def feature_map(x: np.ndarray) -> np.ndarray:
    """φ(x) = elu(x) + 1 (Katharopoulos et al. 2020, eq. 7): positive, so the normaliser never vanishes."""
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0))).astype(F32)


def linear_parallel(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = True) -> np.ndarray:
    """The parallel form (eq. 4–6): V'_i = Σ_{j≤i} φ(q_i)ᵀφ(k_j) v_j / Σ_{j≤i} φ(q_i)ᵀφ(k_j), with the
    masked n × n matrix φ(Q)φ(K)ᵀ (how it trains in parallel; quadratic)."""
    a = feature_map(q) @ feature_map(k).T
    if causal:
        a = np.tril(a)
    return ((a @ v) / a.sum(axis=1, keepdims=True)).astype(F32)


def linear_recurrent(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The recurrent form (§3.4): S_t = S_{t−1} + φ(k_t)v_tᵀ, z_t = z_{t−1} + φ(k_t),
    V'_t = φ(q_t)ᵀS_t / φ(q_t)ᵀz_t; returns (V', the final state S: d × d_v numbers whatever the length)."""
    fq, fk = feature_map(q), feature_map(k)
    s = np.zeros((q.shape[1], v.shape[1]), dtype=F32)
    z = np.zeros(q.shape[1], dtype=F32)
    out = np.empty((q.shape[0], v.shape[1]), dtype=F32)
    for t in range(q.shape[0]):
        s += np.outer(fk[t], v[t])
        z += fk[t]
        out[t] = (fq[t] @ s) / (fq[t] @ z)
    return out, s


def linear_chunked(q: np.ndarray, k: np.ndarray, v: np.ndarray, chunk: int = 128) -> np.ndarray:
    """The recurrent form a chunk at a time: the state S, z carried between chunks and the parallel
    form inside each; O(n·(chunk + d)·d) time, O(chunk² + d²) extra memory (the bench's "linear")."""
    fq, fk = feature_map(q), feature_map(k)
    s = np.zeros((q.shape[1], v.shape[1]), dtype=F32)
    z = np.zeros(q.shape[1], dtype=F32)
    out = np.empty((q.shape[0], v.shape[1]), dtype=F32)
    for c0 in range(0, q.shape[0], chunk):
        c1 = min(q.shape[0], c0 + chunk)
        a = np.tril(fq[c0:c1] @ fk[c0:c1].T)
        out[c0:c1] = (fq[c0:c1] @ s + a @ v[c0:c1]) / (fq[c0:c1] @ z + a.sum(axis=1))[:, None]
        s += fk[c0:c1].T @ v[c0:c1]
        z += fk[c0:c1].sum(axis=0)
    return out


# --------------------------------------------------------------------------------------
# The KV cache
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheShape:
    """What a decoder's KV cache holds per token: ``layers`` × ``kv_heads`` × ``head_dim`` keys and as many
    values; ``q_heads`` query heads share them (MHA: equal; GQA: a divisor; MQA: one K/V head)."""

    name: str
    layers: int
    q_heads: int
    kv_heads: int
    head_dim: int

    def bytes_per_token(self, bytes_per_value: int = 2) -> int:
        """2 (K and V) × layers × K/V heads × head dim × bytes per value."""
        return 2 * self.layers * self.kv_heads * self.head_dim * bytes_per_value

    def sharing(self) -> str:
        """How queries share K/V heads: "MHA", "GQA" or "MQA"."""
        return "MHA" if self.kv_heads == self.q_heads else "MQA" if self.kv_heads == 1 else "GQA"


SMOLLM2 = CacheShape("SmolLM2-135M", 30, 9, 3, 64)
GEMMA3 = CacheShape("Gemma 3 270M", 18, 4, 1, 256)


def cache_shapes() -> list[CacheShape]:
    """SmolLM2-135M as shipped (GQA 9:3) beside its MHA (9:9) and MQA (9:1) variants, and Gemma 3 270M
    (MQA 4:1): the same layers and head size, only the number of K/V heads changed."""
    s = SMOLLM2
    return [
        CacheShape(f"{s.name} MHA", s.layers, s.q_heads, s.q_heads, s.head_dim),
        s,
        CacheShape(f"{s.name} MQA", s.layers, s.q_heads, 1, s.head_dim),
        GEMMA3,
    ]


def window_cache_tokens(length: int, window: int | None, sinks: int = 0) -> int:
    """Tokens the KV cache holds after ``length`` tokens: all of them (full attention), or the last
    ``window`` plus the ``sinks`` first (a rolling cache)."""
    if window is None:
        return length
    return min(length, window + sinks)


# --------------------------------------------------------------------------------------
# One real head's Q, K, V
# --------------------------------------------------------------------------------------


@dataclass
class HeadQKV(Trace):
    """One head's queries, keys and values (n × d float32, after RoPE where the model has it) over
    ``tokens``, and what the model itself computed for that head: its attention weights (n × n) and
    its output (n × d, before the output projection)."""

    model: str
    layer: int
    head: int
    kv_head: int
    tokens: list[str]
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    model_weights: np.ndarray
    model_output: np.ndarray


def lab_head_qkv(model: Any, ids: Sequence[int], layer: int, head: int, tokens: list[str], name: str = "") -> HeadQKV:
    """Q, K, V of head ``head`` of layer ``layer``'s causal self-attention in the lab's
    :class:`models.nn.transformer.DecoderOnlyLM`, from the inputs that sub-layer really received
    (a forward hook), and the model's own weights and head output."""
    import torch

    from models.inference.common import as_ids, device_of, eval_mode
    from models.nn.transformer import as_attention

    module = as_attention(model.decoder.layers[layer].self_attn)
    if not 0 <= head < module.n_heads:
        raise ValueError(f"head {head} out of range (0 … {module.n_heads - 1})")
    captured: dict[str, Any] = {}
    me = threading.get_ident()

    def hook(_mod: Any, args: tuple[Any, ...], out: Any) -> None:
        if threading.get_ident() == me:  # a shared model: only this thread's pass
            captured["x"], captured["w"] = args[0], out[1]

    handle = module.register_forward_hook(hook)
    try:
        with torch.inference_mode(), eval_mode(model):
            model.run(as_ids(list(ids), device_of(model)))
    finally:
        handle.remove()
    with torch.inference_mode():
        rows = slice(head * module.d_k, (head + 1) * module.d_k)
        x = captured["x"][0]
        q, k, v = (proj(x)[:, rows].float().cpu().numpy() for proj in (module.w_q, module.w_k, module.w_v))
        weights = captured["w"][0, head].float().cpu().numpy()
    return HeadQKV(name, layer, head, head, tokens, q, k, v, weights, (weights @ v).astype(F32))


def llm_head_qkv(
    llm: Any, ids: Sequence[int], layers: Sequence[int] | None = None, heads: Sequence[int] | None = None
) -> list[HeadQKV]:
    """Q, K, V (after RoPE) of the query heads ``heads`` (default all) of ``layers`` (default all) of a
    Llama-type :class:`models.inference.llm.LLM`, captured from one forward pass: each attention module's
    input and its rotary (cos, sin), projected here as the model projects them; the K/V head a query
    head reads is h // (n_heads / n_kv_heads) (GQA). The model's own weights come from the same pass."""
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    model = llm.model
    blocks = model.model.layers
    layers = list(range(len(blocks))) if layers is None else list(layers)
    heads = list(range(llm.n_heads)) if heads is None else list(heads)
    captured: dict[int, dict[str, Any]] = {}
    me = threading.get_ident()
    handles = []
    for layer in layers:
        attn = blocks[layer].self_attn

        def pre(_mod: Any, args: tuple[Any, ...], kwargs: dict[str, Any], layer: int = layer) -> None:
            if threading.get_ident() == me:
                captured.setdefault(layer, {})["x"] = kwargs.get("hidden_states", args[0] if args else None)
                captured[layer]["rope"] = kwargs.get("position_embeddings")

        def out_pre(_mod: Any, args: tuple[Any, ...], layer: int = layer) -> None:
            if threading.get_ident() == me:
                captured.setdefault(layer, {})["heads"] = args[0]

        handles.append(attn.register_forward_pre_hook(pre, with_kwargs=True))
        handles.append(attn.o_proj.register_forward_pre_hook(out_pre))
    device = next(model.parameters()).device
    try:
        with torch.inference_mode():
            out = model(input_ids=torch.tensor([list(ids)], device=device), use_cache=False, output_attentions=True)
    finally:
        for h in handles:
            h.remove()
    group = llm.n_heads // llm.n_kv_heads
    d = llm.head_dim
    tokens = llm.token_text(ids)
    result = []
    with torch.inference_mode():
        for layer in layers:
            attn, got = blocks[layer].self_attn, captured[layer]
            x = got["x"]
            n = x.shape[1]
            q = attn.q_proj(x).view(1, n, -1, d).transpose(1, 2)
            k = attn.k_proj(x).view(1, n, -1, d).transpose(1, 2)
            v = attn.v_proj(x).view(1, n, -1, d).transpose(1, 2)
            cos, sin = got["rope"]
            q, k = apply_rotary_pos_emb(q, k, cos, sin)
            own = got["heads"][0].view(n, -1, d)
            for h in heads:
                kv = h // group
                result.append(
                    HeadQKV(
                        llm.label,
                        layer,
                        h,
                        kv,
                        tokens,
                        q[0, h].float().cpu().numpy(),
                        k[0, kv].float().cpu().numpy(),
                        v[0, kv].float().cpu().numpy(),
                        out.attentions[layer][0, h].float().cpu().numpy(),
                        own[:, h].float().cpu().numpy(),
                    )
                )
    return result


# --------------------------------------------------------------------------------------
# Cost against length, measured
# --------------------------------------------------------------------------------------

COST_METHODS = ("exact", "tiled", "window", "linear")
COST_LENGTHS: tuple[int, ...] = (128, 256, 512, 1024, 2048, 4096, 8192)
COST_BLOCK, COST_WINDOW, COST_CHUNK = 128, 256, 128  # the tiled path's tile, the window, the linear chunk


def cost_runner(method: str, block: int = COST_BLOCK, window: int = COST_WINDOW, chunk: int = COST_CHUNK) -> Any:
    """The causal attention function the cost table measures for ``method`` (in :data:`COST_METHODS`)."""
    runners = {
        "exact": exact_output,
        "tiled": lambda q, k, v: tiled_attention(q, k, v, block).output,
        "window": lambda q, k, v: windowed_attention(q, k, v, window, block=block),
        "linear": lambda q, k, v: linear_chunked(q, k, v, chunk),
    }
    return runners[method]


@dataclass
class CostTable(Trace):
    """Seconds (the fastest of ``repeats``: the least disturbed by other work on the machine) and peak
    extra bytes (tracemalloc: numpy's allocations during the call, inputs excluded) of each method at each
    length, one head of dimension ``d``, float32, on ``device``; ``matrix_bytes`` the n × n float32 matrix
    exact attention holds at each length."""

    DERIVED: ClassVar[tuple[str, ...]] = ("matrix_bytes",)

    lengths: list[int]
    methods: list[str]
    seconds: np.ndarray  # (methods, lengths)
    peak_bytes: np.ndarray  # (methods, lengths)
    d: int
    repeats: int
    device: str

    @property
    def matrix_bytes(self) -> list[int]:
        return [4 * n * n for n in self.lengths]

    def exponent(self, method: str, low: int = 1024, high: int = 8192, what: str = "seconds") -> float:
        """The fitted exponent b of value ≈ a·n^b (least squares on log–log) over lengths low … high."""
        row = (self.seconds if what == "seconds" else self.peak_bytes)[self.methods.index(method)]
        return fit_exponent(self.lengths, row, low, high)


def fit_exponent(lengths: Sequence[int], values: Sequence[float], low: int, high: int) -> float:
    """Slope of log(value) against log(n) over low ≤ n ≤ high (nan with fewer than two points)."""
    pts = [(math.log(n), math.log(float(v))) for n, v in zip(lengths, values) if low <= n <= high and v > 0]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def measure_cost(
    lengths: Sequence[int] = COST_LENGTHS,
    methods: Sequence[str] = COST_METHODS,
    d: int = 64,
    repeats: int = 3,
    seed: int = 0,
) -> CostTable:
    """Time and peak memory of each causal attention method on random float32 Q, K, V (n × d): the
    fastest of ``repeats`` timed calls after one untimed call that also measures the peak."""
    import time
    import tracemalloc

    rng = np.random.default_rng(seed)
    seconds = np.zeros((len(methods), len(lengths)))
    peaks = np.zeros((len(methods), len(lengths)))
    for j, n in enumerate(lengths):
        q, k, v = (rng.standard_normal((n, d)).astype(F32) for _ in range(3))
        for i, method in enumerate(methods):
            run = cost_runner(method)
            tracemalloc.start()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            run(q, k, v)
            peaks[i, j] = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                run(q, k, v)
                times.append(time.perf_counter() - start)
            seconds[i, j] = float(min(times))
    return CostTable(list(lengths), list(methods), seconds, peaks, d, repeats, "cpu")


def time_generation(model: Any, prompt_tokens: int, new_tokens: int, seed: int = 0) -> tuple[float, float]:
    """(ms per generated token with the KV cache, without it) for a Hugging Face causal LM generating
    ``new_tokens`` greedily after ``prompt_tokens`` random tokens: with the cache, each step runs the new
    token alone against the cached keys and values; without, each step reruns the whole sequence."""
    import time

    import torch

    gen = torch.Generator().manual_seed(seed)
    vocab = int(model.config.vocab_size)
    prompt = torch.randint(0, vocab, (1, prompt_tokens), generator=gen)
    device = next(model.parameters()).device
    prompt = prompt.to(device)
    result = []
    with torch.inference_mode():
        for cached in (True, False):
            ids = prompt
            out = model(input_ids=ids, use_cache=cached)
            past = out.past_key_values if cached else None
            first = time.perf_counter()
            for _ in range(new_tokens):
                nxt = out.logits[:, -1].argmax(-1, keepdim=True)
                ids = torch.cat([ids, nxt], dim=1)
                if cached:
                    out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                    past = out.past_key_values
                else:
                    out = model(input_ids=ids, use_cache=False)
            result.append((time.perf_counter() - first) / new_tokens * 1e3)
    return result[0], result[1]


# --------------------------------------------------------------------------------------
# Windows and sinks on a real model: the perplexity of a long text under a masked attention
# --------------------------------------------------------------------------------------


def additive_mask(n: int, window: int | None = None, sinks: int = 0) -> Any:
    """The (1, 1, n, n) float32 torch mask M added to every head's scores QKᵀ/√d of a Hugging Face
    decoder run with eager attention: 0 where :func:`allowed_mask` allows (causal, and within the window
    or among the sinks), the most negative float32 elsewhere (as transformers builds its own causal mask,
    so that full attention reproduces the model's own output bit for bit). transformers uses a 4-D mask
    as given (masking_utils: "If the mask is already 4D, simply return as-is")."""
    import torch

    allowed = torch.from_numpy(allowed_mask(n, n, window, sinks))
    mask = torch.zeros(n, n, dtype=torch.float32)
    mask.masked_fill_(~allowed, torch.finfo(torch.float32).min)
    return mask[None, None]


def token_nll(model: Any, ids: Sequence[int], window: int | None = None, sinks: int = 0) -> np.ndarray:
    """−log p(x_{t+1} | what position t may attend to) for t = 0 … n − 2 (float64), from one forward pass of a
    Hugging Face causal LM (eager attention) with :func:`additive_mask`. Masking every layer this way is what a
    rolling KV cache of the last ``window`` tokens (plus the first ``sinks``) computes, each token's keys and
    values made once when it arrived; RoPE scores depend on t − s only, so the window's positions match the
    cache's. One difference from StreamingLLM: it renumbers positions inside the cache, so its sinks sit next to
    the window; here they keep their place in the text (at most n − 1 back, within SmolLM2's trained range)."""
    import torch

    x = torch.tensor([list(ids)], device=next(model.parameters()).device)
    mask = additive_mask(len(ids), window, sinks).to(x.device)  # full attention too: the same path for all
    with torch.inference_mode():
        logits = model(input_ids=x, attention_mask=mask, use_cache=False).logits[0, :-1].double()
        nll = -torch.log_softmax(logits, dim=-1).gather(1, x[0, 1:, None])[:, 0]
    return nll.cpu().numpy()


#: (window, sinks) settings the bench measures and the page shows: None = full causal attention
WINDOW_SETTINGS: tuple[tuple[int | None, int], ...] = (
    (None, 0),
    (64, 0),
    (64, 4),
    (128, 0),
    (128, 4),
    (256, 0),
    (256, 4),
)


@dataclass
class WindowPerplexity(Trace):
    """The perplexity of one long text under each (window, sinks) setting: exp of the mean of
    :func:`token_nll` over the queries at positions ``scored_from`` … n − 2 (a window of w first drops a key at
    query w; queries before the largest window see the same keys in every setting) and over the whole text
    (``perplexity_all``); ``cache_tokens``: what the KV cache holds after the text in each setting."""

    DERIVED: ClassVar[tuple[str, ...]] = ("cache_tokens",)

    model: str
    text_source: str
    n_tokens: int
    scored_from: int
    windows: list[int | None]
    sinks: list[int]
    perplexity: list[float]
    perplexity_all: list[float]

    @property
    def cache_tokens(self) -> list[int]:
        return [window_cache_tokens(self.n_tokens, w, s) for w, s in zip(self.windows, self.sinks)]

    def ratio(self, i: int) -> float:
        """Setting i's perplexity over full attention's (the first setting)."""
        return self.perplexity[i] / self.perplexity[0]


def window_perplexities(
    model: Any,
    ids: Sequence[int],
    settings: Sequence[tuple[int | None, int]] = WINDOW_SETTINGS,
    scored_from: int | None = None,
    name: str = "",
    source: str = "",
) -> WindowPerplexity:
    """:class:`WindowPerplexity` of ``ids`` under each (window, sinks) setting (the first should be (None, 0)):
    scored from the query at the largest window on unless ``scored_from`` says otherwise."""
    windows = [w for w, _ in settings]
    start = scored_from if scored_from is not None else max((w for w in windows if w is not None), default=0)
    ppl, ppl_all = [], []
    for window, sinks in settings:
        nll = token_nll(model, ids, window, sinks)  # nll[t] predicts token t + 1
        ppl.append(float(np.exp(nll[start:].mean())))
        ppl_all.append(float(np.exp(nll.mean())))
    return WindowPerplexity(name, source, len(ids), start, windows, [s for _, s in settings], ppl, ppl_all)
