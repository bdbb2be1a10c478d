"""Small worked examples for "Attention from scratch", computed with ``models.nn.attention``.

* ``parse_matrix`` / ``qkv_steps``: the editable Q/K/V sandbox, every intermediate of
  softmax(QKᵀ/√d_k + mask)·V.
* ``compare_scores``: dot, scaled dot, general, additive and cosine scores for one query.
* ``softmax_saturation``: why unscaled dot products saturate the softmax as d grows.
* ``soft_hard_local``: soft, hard and local (Luong) attention on one example.

User text is parsed here into numbers or rejected with a clear ``InputError`` (a ``ValueError``
that carries its message's string id, so the page shows it in the reader's language); results
are numpy arrays in dataclasses.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import torch

from models.inference.common import InputError
from models.nn.attention import (
    additive_score,
    cosine_score,
    dot_score,
    general_score,
    hard_weights,
    local_m_weights,
    local_p_weights,
    masked_softmax,
    scaled_dot_product_attention,
    scaled_dot_score,
)

MAX_ROWS = 6
MAX_COLS = 4
MAX_ABS = 100.0
_SEPARATORS = re.compile(r"[,;\s]+")


def _shown(token: str, limit: int = 20) -> str:
    """A user token quoted for an error message, cut to ``limit`` characters."""
    return repr(token if len(token) <= limit else token[:limit] + "…")


def _count(n: int) -> str:
    return f"{n} number" if n == 1 else f"{n} numbers"


def _plural(key: str, n: int) -> str:
    """The string id of a message that counts ``n`` numbers: ``key`` + ".one" for one."""
    return f"{key}.one" if n == 1 else key


def parse_matrix(
    text: str, name: str, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS, max_abs: float = MAX_ABS
) -> np.ndarray:
    """Parse one row per line, numbers separated by spaces, commas or semicolons.

    Raises ``InputError`` (a ``ValueError``) with a message that names the matrix, row and column for text that
    is not a number, rows of different lengths, too many rows or columns, NaN/∞ and numbers
    outside [−max_abs, max_abs].
    """
    rows = [line.strip() for line in str(text).splitlines() if line.strip()]
    if not rows:
        raise InputError(f"{name} is empty: type at least one row of numbers.", "err.sb.empty", name=name)
    if len(rows) > max_rows:
        raise InputError(
            f"{name} has {len(rows)} rows; at most {max_rows} are allowed.",
            "err.sb.rows",
            name=name,
            n=len(rows),
            max=max_rows,
        )
    matrix: list[list[float]] = []
    for r, line in enumerate(rows, start=1):
        tokens = [t for t in _SEPARATORS.split(line) if t]
        if len(tokens) > max_cols:
            raise InputError(
                f"{name}, row {r} has {_count(len(tokens))}; at most {max_cols} columns are allowed.",
                _plural("err.sb.cols", len(tokens)),
                name=name,
                r=r,
                n=len(tokens),
                max=max_cols,
            )
        values = []
        for c, token in enumerate(tokens, start=1):
            try:
                value = float(token.replace("−", "-"))
            except ValueError:
                raise InputError(
                    f"{name}, row {r}, column {c}: {_shown(token)} is not a number.",
                    "err.sb.not_number",
                    name=name,
                    r=r,
                    c=c,
                    token=_shown(token),
                ) from None
            if not math.isfinite(value):
                raise InputError(
                    f"{name}, row {r}, column {c}: {_shown(token)} is not a finite "
                    f"number; use numbers between −{max_abs:g} and {max_abs:g}.",
                    "err.sb.not_finite",
                    name=name,
                    r=r,
                    c=c,
                    token=_shown(token),
                    max=max_abs,
                )
            if abs(value) > max_abs:
                raise InputError(
                    f"{name}, row {r}, column {c}: {value:g} is out of range; "
                    f"use numbers between −{max_abs:g} and {max_abs:g}.",
                    "err.sb.range",
                    name=name,
                    r=r,
                    c=c,
                    value=value,
                    max=max_abs,
                )
            values.append(value)
        if matrix and len(values) != len(matrix[0]):
            raise InputError(
                f"{name}, row {r} has {_count(len(values))} but row 1 has "
                f"{len(matrix[0])}; every row needs the same count.",
                _plural("err.sb.ragged", len(values)),
                name=name,
                r=r,
                n=len(values),
                first=len(matrix[0]),
            )
        matrix.append(values)
    return np.array(matrix, dtype=np.float64)


def format_matrix(matrix: np.ndarray) -> str:
    """The text form that ``parse_matrix`` reads: one row per line, numbers separated by spaces."""
    return "\n".join(" ".join(f"{v:g}" for v in row) for row in np.asarray(matrix))


MASKS = ("none", "causal", "padding")


@dataclass(frozen=True)
class QKVSteps:
    """Every intermediate of softmax(QKᵀ/√d_k + mask)·V for L queries and S keys."""

    q: np.ndarray  # (L, d_k)
    k: np.ndarray  # (S, d_k)
    v: np.ndarray  # (S, d_v)
    scores: np.ndarray  # QKᵀ (L, S)
    scaled: np.ndarray  # QKᵀ/√d_k
    allowed: np.ndarray  # bool (L, S): True where a query may attend a key
    masked: np.ndarray  # scaled with −∞ where not allowed
    weights: np.ndarray  # softmax over keys, rows sum to 1
    output: np.ndarray  # weights · V (L, d_v)
    d_k: int


def build_mask(n_queries: int, n_keys: int, mask: str = "none", n_padding: int = 0) -> np.ndarray:
    """True where query i may attend key j: all; causal (j ≤ i); or all but the last ``n_padding``."""
    if mask not in MASKS:
        raise ValueError(f"unknown mask {mask!r}; choose one of {', '.join(MASKS)}")
    allowed = np.ones((n_queries, n_keys), dtype=bool)
    if mask == "causal":
        allowed = np.tril(allowed)
    elif mask == "padding":
        if not 0 <= n_padding < n_keys:
            raise InputError(
                f"padding must hide between 0 and {n_keys - 1} of the {n_keys} keys: "
                "at least one key has to stay visible.",
                "err.sb.padding",
                most=n_keys - 1,
                n=n_keys,
            )
        allowed[:, n_keys - n_padding :] = False
    return allowed


def qkv_steps(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: str = "none", n_padding: int = 0) -> QKVSteps:
    """Scaled dot-product attention step by step; checks the shapes with clear messages."""
    q, k, v = (np.atleast_2d(np.asarray(m, dtype=np.float64)) for m in (q, k, v))
    if q.shape[1] != k.shape[1]:
        raise InputError(
            f"Q has {q.shape[1]} columns but K has {k.shape[1]}: queries and keys need the same width d_k.",
            "err.sb.qk_width",
            q=q.shape[1],
            k=k.shape[1],
        )
    if k.shape[0] != v.shape[0]:
        raise InputError(
            f"K has {k.shape[0]} rows but V has {v.shape[0]}: every key needs exactly one value row.",
            "err.sb.kv_rows",
            k=k.shape[0],
            v=v.shape[0],
        )
    allowed = build_mask(q.shape[0], k.shape[0], mask, n_padding)
    tq, tk, tv, tm = (torch.as_tensor(a) for a in (q, k, v, allowed))
    scores = tq @ tk.T
    scaled = scores / math.sqrt(q.shape[1])
    masked = scaled.masked_fill(~tm, float("-inf"))
    weights = masked_softmax(scaled, tm)
    output, check = scaled_dot_product_attention(tq, tk, tv, tm)
    if not torch.allclose(check, weights):  # the step-by-step path is the library's path
        raise AssertionError("step-by-step weights differ from scaled_dot_product_attention")
    return QKVSteps(
        q, k, v, scores.numpy(), scaled.numpy(), allowed, masked.numpy(), weights.numpy(), output.numpy(), q.shape[1]
    )


# ---------------------------------------------------------------------------- score functions

SCORE_NAMES = ("dot", "scaled dot", "general", "additive", "cosine")


@dataclass(frozen=True)
class ScoreParams:
    """Fixed parameters of the parametric scores: W (d×d), W_q, W_k (d_a×d), v (d_a)."""

    w: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    v: np.ndarray


def default_score_params(d: int = 2, d_a: int = 3, seed: int = 0) -> ScoreParams:
    """Small random parameters, rounded to one decimal so they can be read off the page."""
    rng = np.random.default_rng(seed)
    r = lambda *shape: np.round(rng.normal(0.0, 1.0, shape), 1)  # noqa: E731
    return ScoreParams(r(d, d), r(d_a, d), r(d_a, d), r(d_a))


@dataclass(frozen=True)
class ScoreComparison:
    """Scores e (method × key) and softmax weights α for one query."""

    names: tuple[str, ...]
    query: np.ndarray
    keys: np.ndarray
    scores: np.ndarray
    weights: np.ndarray


def compare_scores(query: np.ndarray, keys: np.ndarray, params: ScoreParams) -> ScoreComparison:
    """e_i for every score function of ``models.nn.attention`` and α = softmax(e)."""
    q = torch.as_tensor(np.asarray(query, dtype=np.float64)).reshape(1, -1)
    k = torch.as_tensor(np.asarray(keys, dtype=np.float64)).unsqueeze(0)
    if k.shape[-1] != q.shape[-1]:
        raise ValueError("the query and the keys need the same dimension")
    t = lambda a: torch.as_tensor(a, dtype=torch.float64)  # noqa: E731
    scores = torch.cat(
        [
            dot_score(q, k),
            scaled_dot_score(q, k),
            general_score(q, k, t(params.w)),
            additive_score(q, k, t(params.w_q), t(params.w_k), t(params.v)),
            cosine_score(q, k),
        ]
    )
    return ScoreComparison(SCORE_NAMES, q[0].numpy(), k[0].numpy(), scores.numpy(), masked_softmax(scores).numpy())


@dataclass(frozen=True)
class SaturationResult:
    """Averages over random draws q, k_i ~ N(0, I_d), for each dimension d.

    ``max_weight``: mean of max_i α_i.  ``grad_norm``: mean Frobenius norm of the softmax
    Jacobian ∂α/∂e = diag(α) − ααᵀ, the factor every gradient through the softmax is multiplied by.
    """

    dims: np.ndarray
    n_keys: int
    max_weight_dot: np.ndarray
    max_weight_scaled: np.ndarray
    grad_norm_dot: np.ndarray
    grad_norm_scaled: np.ndarray
    example_dot: np.ndarray  # (len(dims), n_keys): the weights of the first draw
    example_scaled: np.ndarray


def _jacobian_norm(weights: torch.Tensor) -> torch.Tensor:
    """‖diag(α) − ααᵀ‖_F for each row of (B, S) weights."""
    jac = torch.diag_embed(weights) - weights.unsqueeze(-1) * weights.unsqueeze(-2)
    return jac.flatten(1).norm(dim=-1)


def softmax_saturation(
    dims: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
    n_keys: int = 10,
    n_draws: int = 300,
    seed: int = 0,
) -> SaturationResult:
    """qᵀk has variance d for unit-variance entries, so unscaled softmax weights become one-hot
    (and their gradients vanish) as d grows; dividing by √d keeps the variance at 1."""
    gen = torch.Generator().manual_seed(seed)
    out: dict[str, list] = {k: [] for k in ("mwd", "mws", "gd", "gs", "ed", "es")}
    for d in dims:
        q = torch.randn(n_draws, d, generator=gen, dtype=torch.float64)
        k = torch.randn(n_draws, n_keys, d, generator=gen, dtype=torch.float64)
        a_dot = masked_softmax(dot_score(q, k))
        a_scaled = masked_softmax(scaled_dot_score(q, k))
        out["mwd"].append(a_dot.max(-1).values.mean().item())
        out["mws"].append(a_scaled.max(-1).values.mean().item())
        out["gd"].append(_jacobian_norm(a_dot).mean().item())
        out["gs"].append(_jacobian_norm(a_scaled).mean().item())
        out["ed"].append(a_dot[0].numpy())
        out["es"].append(a_scaled[0].numpy())
    return SaturationResult(np.array(dims), n_keys, *(np.array(out[k]) for k in ("mwd", "mws", "gd", "gs", "ed", "es")))


# ----------------------------------------------------------------- soft, hard and local attention

EXAMPLE_SOURCE = ("the agreement on the European Economic Area was signed in August 1992 .").split()


@dataclass(frozen=True)
class SoftHardLocal:
    """Weights of one query over the source tokens under three kinds of attention."""

    tokens: tuple[str, ...]
    scores: np.ndarray
    soft: np.ndarray
    hard: np.ndarray
    local_m: np.ndarray  # Luong's local-m weighting around the given p_t: softmax inside the window
    local_p: np.ndarray  # local-p's weighting around the same p_t: that softmax times a Gaussian
    window: np.ndarray  # bool: inside [p_t − D, p_t + D]
    center: float
    half_width: int


def soft_hard_local(
    focus: int,
    center: float,
    half_width: int,
    sharpness: float = 1.0,
    d: int = 64,
    seed: int = 0,
    tokens: tuple[str, ...] = tuple(EXAMPLE_SOURCE),
) -> SoftHardLocal:
    """One decoder query that resembles the key of token ``focus`` (and a little its neighbours).

    soft: α = softmax(qᵀk_i/√d); hard: one-hot at argmax α; local-m (Luong, Eq. 7 in a window):
    softmax inside [p_t − D, p_t + D]; local-p (Eq. 10): that softmax times exp(−(i − p_t)²/(2(D/2)²)).
    Here p_t is given (``center``): local-m would set it to t, local-p predicts it.
    """
    n = len(tokens)
    if not 0 <= focus < n:
        raise ValueError(f"focus must be a token index between 0 and {n - 1}")
    if half_width < 1:
        raise ValueError("the half-width D must be at least 1")
    gen = torch.Generator().manual_seed(seed)
    keys = torch.randn(1, n, d, generator=gen, dtype=torch.float64)
    keys = keys / keys.norm(dim=-1, keepdim=True) * math.sqrt(d)  # ‖k_i‖ = √d
    neighbours = keys[0, max(focus - 1, 0)] + keys[0, min(focus + 1, n - 1)]
    query = sharpness * (0.3 * keys[0, focus] + 0.15 * neighbours).unsqueeze(0)
    scores = scaled_dot_score(query, keys)
    mask = torch.ones(1, n, dtype=torch.bool)
    soft = masked_softmax(scores, mask)
    center_t = torch.tensor([float(center)], dtype=torch.float64)
    local_m = local_m_weights(scores, mask, center_t, half_width)
    local_p = local_p_weights(scores, mask, center_t, half_width)
    window = (torch.arange(n) - center).abs() <= half_width
    return SoftHardLocal(
        tuple(tokens),
        scores[0].numpy(),
        soft[0].numpy(),
        hard_weights(soft)[0].numpy(),
        local_m[0].numpy(),
        local_p[0].numpy(),
        window.numpy(),
        float(center),
        int(half_width),
    )
