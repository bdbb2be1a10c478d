"""The positional-encoding page's computations: numpy traces built on :mod:`models.nn.positional`.

The sinusoid table and its similarities, the rotation check PE(pos+k) = M_k PE(pos), how the sum
with word embeddings depends on the ×√d_model scale, a learned position table read from a
checkpoint, the schemes side by side, the position-only attention score of a trained Transformer
(tf-en-fr's own W_Q and W_K), and the PAD row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from torch import Tensor, nn

from models.nn.positional import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    inverse_frequencies,
    relative_scores,
    rotation_matrix,
    sinusoid_at,
    sinusoidal_encoding,
    wavelengths,
)
from models.nn.transformer import Transformer, as_attention


@dataclass(frozen=True)
class SinusoidTrace:
    """The encoding table and what can be read off it.

    ``similarity[p, q] = PE(p)·PE(q)``; ``offset_formula[k] = Σ_i cos(ω_i k)`` is PE(pos)·PE(pos+k)
    for every pos (even d); ``offset_spread[k]`` is the measured max − min of it over pos.
    """

    pe: np.ndarray
    wavelengths: np.ndarray
    similarity: np.ndarray
    offsets: np.ndarray
    offset_formula: np.ndarray
    offset_measured: np.ndarray
    offset_spread: np.ndarray


def sinusoid_trace(length: int, d_model: int) -> SinusoidTrace:
    """``sinusoidal_encoding(length, d_model)`` with similarities, by position pair and by offset."""
    if length < 2 or d_model < 2:
        raise ValueError("length and d_model must be at least 2")
    pe = sinusoidal_encoding(length, d_model).numpy()
    pe64 = sinusoid_at(torch.arange(length), d_model, torch.float64).numpy()
    sim = pe64 @ pe64.T
    offsets = np.arange(length)
    measured = np.array([np.diagonal(sim, k).mean() for k in offsets])
    spread = np.array([np.ptp(np.diagonal(sim, k)) for k in offsets])
    omega = inverse_frequencies(d_model, torch.float64).numpy()[: d_model // 2]
    formula = np.cos(np.outer(offsets, omega)).sum(axis=1)
    return SinusoidTrace(pe, wavelengths(d_model).numpy(), sim.astype(np.float32), offsets, formula, measured, spread)


@dataclass(frozen=True)
class RotationCheck:
    """PE(pos + k) against M_k · PE(pos) in float64, for all pos < length.

    ``errors[pos]`` = max_dim |M_k PE(pos) − PE(pos+k)| for the chosen k; ``max_error_by_k[k]`` is
    the maximum over pos, for every k in 0 … length − 1; ``max_error_float32`` is the chosen k's
    error with the float32 table the model uses (rounding, not the formula).
    """

    k: int
    matrix: np.ndarray
    errors: np.ndarray
    max_error: float
    ks: np.ndarray
    max_error_by_k: np.ndarray
    max_error_float32: float
    pe_pos: np.ndarray = field(repr=False)
    pe_shifted: np.ndarray = field(repr=False)
    rotated: np.ndarray = field(repr=False)


def _rotate_pairs(pe: Tensor, k: Tensor, d_model: int) -> Tensor:
    """M_k · PE(pos) for rows of ``pe`` and a (K, 1, 1) batch of shifts, applying M_k's 2×2 blocks."""
    angle = k * inverse_frequencies(d_model, pe.dtype)  # (K, 1, d/2)
    c, s = torch.cos(angle), torch.sin(angle)
    even, odd = pe[..., 0::2], pe[..., 1::2]
    out = torch.empty(angle.shape[0], *pe.shape, dtype=pe.dtype)
    out[..., 0::2] = c * even + s * odd
    out[..., 1::2] = -s * even + c * odd
    return out


def rotation_check(length: int, d_model: int, k: int, pos: int = 0) -> RotationCheck:
    """Numerically check PE(pos+k) = M_k PE(pos), with the explicit matrix for ``k`` and the
    same 2×2 blocks for every other shift 0 … length − 1. ``pos`` picks the example vectors."""
    if d_model % 2:
        raise ValueError("the rotation property needs an even d_model")
    if not 0 <= k < length or not 0 <= pos < length:
        raise ValueError("k and pos must lie in 0 … length − 1")
    pe = sinusoid_at(torch.arange(2 * length), d_model, torch.float64)
    m = rotation_matrix(k, d_model)
    rotated = pe[:length] @ m.T
    errors = (rotated - pe[k : k + length]).abs().amax(dim=1)
    ks = torch.arange(length, dtype=torch.float64)
    by_k = torch.empty(length, dtype=torch.float64)
    for start in range(0, length, 32):  # chunks of shifts keep the memory small
        chunk = ks[start : start + 32]
        all_rot = _rotate_pairs(pe[:length], chunk.reshape(-1, 1, 1), d_model)  # (K, L, d)
        idx = chunk.long().reshape(-1, 1) + torch.arange(length).reshape(1, -1)  # k + pos
        by_k[start : start + len(chunk)] = (all_rot - pe[idx]).abs().amax(dim=(1, 2))
    pe32 = sinusoidal_encoding(length + k, d_model)
    err32 = (pe32[:length] @ m.T.float() - pe32[k : k + length]).abs().max().item()
    return RotationCheck(
        k,
        m.numpy(),
        errors.numpy(),
        errors.max().item(),
        ks.numpy().astype(int),
        by_k.numpy(),
        err32,
        pe[pos].numpy(),
        pe[pos + k].numpy(),
        rotated[pos].numpy(),
    )


EXAMPLE_SENTENCE = "the cat sat on the mat because the mat was warm".split()
EMBEDDING_INITS = {"1/√d_model (tied with the output layer)": "tied", "1 (nn.Embedding default)": "unit"}


@dataclass(frozen=True)
class EmbeddingMix:
    """x = s·E[word] + PE(pos) for a sentence, and how much of each survives in the sum.

    Curves over ``scales`` (s): ``word_share`` = E‖s e‖² / (E‖s e‖² + ‖PE‖²);
    ``same_word_cos`` = mean cosine of one word's x at two different positions (high: the word is
    still recognisable); ``same_pos_cos`` = mean cosine of two different words at one position
    (high: position drowns the words).
    """

    tokens: tuple[str, ...]
    scale: float
    init_std: float
    embedded: np.ndarray  # s·E (L, d)
    pe: np.ndarray  # (L, d)
    summed: np.ndarray  # (L, d)
    word_norm: float
    pe_norm: float
    scales: np.ndarray
    word_share: np.ndarray
    same_word_cos: np.ndarray
    same_pos_cos: np.ndarray


def embedding_mix(
    d_model: int,
    scale: float,
    init: str = "tied",
    length: int = 64,
    vocab: int = 200,
    seed: int = 0,
    tokens: tuple[str, ...] = tuple(EXAMPLE_SENTENCE),
) -> EmbeddingMix:
    """Embeddings ~ N(0, σ²) with σ = 1/√d (``init='tied'``) or 1 (``'unit'``), times ``scale``."""
    if init not in ("tied", "unit"):
        raise ValueError("init must be 'tied' or 'unit'")
    std = 1.0 / math.sqrt(d_model) if init == "tied" else 1.0
    rng = np.random.default_rng(seed)
    table = rng.normal(0.0, std, (vocab, d_model))
    words = {w: i for i, w in enumerate(dict.fromkeys(tokens))}
    emb = scale * table[[words[w] for w in tokens]]
    pe_all = sinusoid_at(torch.arange(max(length, len(tokens))), d_model, torch.float64).numpy()
    pe = pe_all[: len(tokens)]

    def unit(a: np.ndarray) -> np.ndarray:
        return a / np.linalg.norm(a, axis=-1, keepdims=True)

    scales = np.geomspace(0.1, 4 * math.sqrt(d_model), 40)
    n_pairs = 300
    w1, w2 = rng.integers(0, vocab, n_pairs), rng.integers(0, vocab, n_pairs)
    w2 = np.where(w2 == w1, (w2 + 1) % vocab, w2)
    p1, p2 = rng.integers(0, length, n_pairs), rng.integers(0, length, n_pairs)
    p2 = np.where(p2 == p1, (p2 + 1) % length, p2)
    share, same_word, same_pos = [], [], []
    pe_sq = float(np.mean(np.sum(pe_all[:length] ** 2, axis=1)))
    word_sq = float(np.mean(np.sum(table**2, axis=1)))
    for s in scales:
        share.append(s * s * word_sq / (s * s * word_sq + pe_sq))
        a, b = unit(s * table[w1] + pe_all[p1]), unit(s * table[w1] + pe_all[p2])
        same_word.append(float(np.mean(np.sum(a * b, axis=1))))
        a, b = unit(s * table[w1] + pe_all[p1]), unit(s * table[w2] + pe_all[p1])
        same_pos.append(float(np.mean(np.sum(a * b, axis=1))))
    return EmbeddingMix(
        tuple(tokens),
        float(scale),
        std,
        emb,
        pe,
        emb + pe,
        float(np.linalg.norm(emb, axis=1).mean()),
        float(np.linalg.norm(pe, axis=1).mean()),
        scales,
        np.array(share),
        np.array(same_word),
        np.array(same_pos),
    )


# ---------------------------------------------------------------- learned absolute positions

POSITION_TENSOR_PATTERNS = ("position_embeddings", "position_embedding", "pos_embedding", "embeddings.positions")


@dataclass(frozen=True)
class LearnedPositions:
    """A learned position-embedding matrix (max_positions × d) read from a checkpoint."""

    path: str
    tensor_name: str
    matrix: np.ndarray


def find_learned_positions(root: str | Path = "checkpoints") -> LearnedPositions | None:
    """The first 2-D tensor named like ``*position_embeddings*`` / ``*pos_embedding*`` in a
    ``*.safetensors`` file under ``root`` (sorted by path), or None when there is none."""
    root = Path(root)
    if not root.is_dir():
        return None
    for path in sorted(root.rglob("*.safetensors")):
        try:
            with safe_open(str(path), framework="pt") as f:
                for name in sorted(f.keys()):
                    if any(p in name.lower() for p in POSITION_TENSOR_PATTERNS):
                        tensor = f.get_tensor(name)
                        if tensor.dim() == 3 and tensor.shape[0] == 1:
                            tensor = tensor[0]  # (1, L, d) parameters, as in ViT-style code
                        if tensor.dim() == 2:
                            return LearnedPositions(str(path), name, tensor.float().numpy())
        except (OSError, ValueError, RuntimeError, SafetensorError):
            continue  # an unreadable or foreign file is not a learned position table
    return None


# ----------------------------------------------------------------- schemes side by side

SCHEMES = ("Learned (absolute)", "Sinusoidal (absolute)", "Transformer-XL (relative)", "RoPE", "ALiBi")


@dataclass(frozen=True)
class SchemeComparison:
    """What each scheme does with positions alone, for query i and key j < ``eval_len``.

    Learned: the cosine similarity between rows i and j of a learned position table (not a score);
    sinusoidal: the dot product PE_i·PE_j of two encodings (not a score: a model's score goes
    through W_Q and W_K, see :func:`model_position_scores`); Transformer-XL: its position terms
    (b) + (d) with one fixed content and random W_R, v; RoPE: the score of one fixed query and key
    rotated to positions i and j; ALiBi: the bias −m·(i − j) for j ≤ i, causal as in Press et al.
    (NaN above the diagonal: the future is masked). NaN also where a scheme has no value (a learned
    table has no row past its length). Each map is divided by its largest absolute value, so all
    lie in [−1, 1] and share one colour scale; ``alibi_slope`` gives ALiBi's real scale.
    """

    train_len: int
    eval_len: int
    maps: dict[str, np.ndarray]
    learned_rows: int | None
    alibi_slope: float
    rope_unseen_pairs: int  # RoPE pairs whose angle p·θ_i stays under 2π within train_len
    d_model: int


def compare_schemes(
    train_len: int,
    eval_len: int,
    d_model: int = 64,
    n_heads: int = 8,
    alibi_head: int = 0,
    seed: int = 0,
    learned: LearnedPositions | None = None,
) -> SchemeComparison:
    """Position-only score maps of learned, sinusoidal, Transformer-XL, RoPE and ALiBi encodings."""
    if d_model % 2:
        raise ValueError("d_model must be even")
    if not 1 <= train_len <= eval_len:
        raise ValueError("need 1 ≤ train_len ≤ eval_len")
    if not 0 <= alibi_head < n_heads:
        raise ValueError("alibi_head must be in 0 … n_heads − 1")
    dt = torch.float64
    maps: dict[str, np.ndarray] = {}
    learned_rows = None
    lm = np.full((eval_len, eval_len), np.nan)
    if learned is not None:
        table = learned.matrix.astype(np.float64)
        learned_rows = table.shape[0]
        n = min(eval_len, learned_rows)
        unit = table[:n] / np.maximum(np.linalg.norm(table[:n], axis=1, keepdims=True), 1e-12)
        lm[:n, :n] = unit @ unit.T  # cosine similarity of learned rows
    maps[SCHEMES[0]] = lm
    pe = sinusoid_at(torch.arange(eval_len), d_model, dt)
    maps[SCHEMES[1]] = (pe @ pe.T / (d_model / 2)).numpy()
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(d_model, generator=gen, dtype=dt) / math.sqrt(d_model)
    w_r = torch.randn(d_model, d_model, generator=gen, dtype=dt) / math.sqrt(d_model)
    u = torch.zeros(d_model, dtype=dt)
    v = torch.randn(d_model, generator=gen, dtype=dt) / math.sqrt(d_model)
    same_q = q.expand(eval_len, -1)
    terms = relative_scores(same_q, same_q, w_r, u, v)
    rel = (terms["b"] + terms["d"]).numpy()
    maps[SCHEMES[2]] = rel / np.abs(rel).max()
    k = torch.randn(d_model, generator=gen, dtype=dt) / math.sqrt(d_model)
    rq, rk = apply_rope(same_q), apply_rope(k.expand(eval_len, -1))  # fixed q and k contents
    maps[SCHEMES[3]] = (rq @ rk.T).numpy()
    alibi = alibi_bias(eval_len, n_heads, causal=True)[alibi_head].double().numpy()
    maps[SCHEMES[4]] = np.where(np.tri(eval_len, dtype=bool), alibi, np.nan)  # j > i: masked
    for name, m in maps.items():
        peak = np.nanmax(np.abs(m)) if np.isfinite(m).any() else 0.0
        if peak > 0:
            maps[name] = m / peak
    theta = inverse_frequencies(d_model, dt)
    unseen = int((train_len * theta < 2 * math.pi).sum())
    return SchemeComparison(
        train_len, eval_len, maps, learned_rows, float(alibi_slopes(n_heads)[alibi_head]), unseen, d_model
    )


# ----------------------------------------------- the position-only score of a trained model


@dataclass(frozen=True)
class ModelPositionScores:
    """The position-only part of one encoder self-attention head's score in a trained Transformer.

    ``scores[i, j] = (W_Q PE_i) · (W_K PE_j) / √d_k`` with head ``head``'s rows of layer
    ``layer``'s W_Q and W_K and the model's own (float32) PE table, for positions 0 … L − 1. The
    biases b_Q, b_K are left out: they only add terms in i alone, in j alone, or a constant. In
    layer 0 (post-norm) the input is √d·E[word] + PE, so the full score is this plus cross terms
    with the word embeddings; in a later layer PE reaches W_Q and W_K only through the residual
    stream and LayerNorm, so there it is what the layer's weights make of the bare encoding.

    ``offsets`` are i − j = −(L−1) … L−1; ``diagonal_spread[n]`` is max − min of ``scores`` along
    the diagonal i − j = ``offsets[n]``; ``variation`` is the largest spread ÷ max |score|
    (0 if the score depended on i − j only). ``worst_low``/``worst_high`` are the (i, j) cells of
    the smallest and largest score on the diagonal with the largest spread.
    """

    layer: int
    head: int
    d_k: int
    scores: np.ndarray
    offsets: np.ndarray
    diagonal_spread: np.ndarray
    peak: float
    variation: float
    worst_offset: int
    worst_low: tuple[int, int]
    worst_high: tuple[int, int]


def model_position_scores(model: nn.Module, layer: int, head: int, length: int | None = None) -> ModelPositionScores:
    """(W_Q PE_i)·(W_K PE_j)/√d_k for encoder self-attention layer ``layer``, head ``head`` (0-based)
    of an encoder–decoder :class:`~models.nn.transformer.Transformer`, over its first ``length``
    positions (all it has an encoding for when None). Computed in float64, no biases."""
    if not isinstance(model, Transformer):
        raise ValueError(f"position scores need an encoder–decoder Transformer, not a {type(model).__name__}")
    layers = model.encoder.layers
    if not 0 <= layer < len(layers):
        raise ValueError(f"layer must be in 0 … {len(layers) - 1}")
    attn = as_attention(layers[layer].self_attn)
    if not 0 <= head < attn.n_heads:
        raise ValueError(f"head must be in 0 … {attn.n_heads - 1}")
    table = model.src_embed.positions.pe
    length = table.shape[0] if length is None else length
    if not 2 <= length <= table.shape[0]:
        raise ValueError(f"length must be in 2 … {table.shape[0]}")
    rows = slice(head * attn.d_k, (head + 1) * attn.d_k)
    with torch.no_grad():
        pe = table[:length].double()
        q = pe @ attn.w_q.weight[rows].double().T  # (L, d_k)
        k = pe @ attn.w_k.weight[rows].double().T
        scores = (q @ k.T / math.sqrt(attn.d_k)).numpy()
    offsets = np.arange(-(length - 1), length)
    diagonals = [np.diagonal(scores, -o) for o in offsets]  # i − j = o: numpy's offset is j − i
    spread = np.array([np.ptp(d) for d in diagonals])
    peak = float(np.abs(scores).max())
    n = int(np.argmax(spread))
    o = int(offsets[n])
    start_i, start_j = max(o, 0), max(-o, 0)
    lo, hi = int(np.argmin(diagonals[n])), int(np.argmax(diagonals[n]))
    return ModelPositionScores(
        layer,
        head,
        attn.d_k,
        scores,
        offsets,
        spread,
        peak,
        float(spread[n] / peak) if peak > 0 else 0.0,
        o,
        (start_i + lo, start_j + lo),
        (start_i + hi, start_j + hi),
    )


# ------------------------------------------------------------------------- padding


@dataclass(frozen=True)
class PaddingTrace:
    """Position ids of a padded batch (0 = PAD, real tokens 1 … n) and the encodings they look up.

    ``table`` row 0 is all zeros (the PAD row); row p + 1 is PE(p). ``encoded[b, t] = table[ids[b, t]]``.
    """

    lengths: tuple[int, ...]
    position_ids: np.ndarray
    table: np.ndarray
    encoded: np.ndarray


def padded_positions(lengths: tuple[int, ...], d_model: int) -> PaddingTrace:
    """Right-padded batch: PAD slots get position id 0 and hence the zero row."""
    if not lengths or min(lengths) < 1:
        raise ValueError("every sentence needs at least one token")
    width = max(lengths)
    ids = np.zeros((len(lengths), width), dtype=np.int64)
    for b, n in enumerate(lengths):
        ids[b, :n] = np.arange(1, n + 1)
    table = np.zeros((width + 1, d_model), dtype=np.float32)
    table[1:] = sinusoidal_encoding(width, d_model).numpy()
    return PaddingTrace(tuple(lengths), ids, table, table[ids])
