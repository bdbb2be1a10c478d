"""Attention score functions and weightings, written from the papers' formulas.

Shapes: a query ``q`` is (B, d_q); keys ``k`` are (B, S, d_k); values (B, S, d_v).
A ``mask`` is a bool tensor (B, S) that is True where a key may be attended (not padding).
Every score function returns scores e of shape (B, S).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def dot_score(q: Tensor, k: Tensor) -> Tensor:
    """Luong dot: e_i = qᵀ k_i."""
    return torch.einsum("bd,bsd->bs", q, k)


def scaled_dot_score(q: Tensor, k: Tensor) -> Tensor:
    """Scaled dot (Vaswani et al.): e_i = qᵀ k_i / √d."""
    return dot_score(q, k) / math.sqrt(q.shape[-1])


def general_score(q: Tensor, k: Tensor, w: Tensor) -> Tensor:
    """Luong general: e_i = qᵀ W k_i, with W of shape (d_q, d_k)."""
    return torch.einsum("bd,de,bse->bs", q, w, k)


def additive_score(q: Tensor, k: Tensor, w_q: Tensor, w_k: Tensor, v: Tensor) -> Tensor:
    """Bahdanau additive: e_i = vᵀ tanh(W_q q + W_k k_i).

    ``w_q`` is (d_a, d_q), ``w_k`` is (d_a, d_k), ``v`` is (d_a,).
    """
    return additive_score_projected(q @ w_q.T, k @ w_k.T, v)


def additive_score_projected(q_proj: Tensor, k_proj: Tensor, v: Tensor) -> Tensor:
    """e_i = vᵀ tanh(q' + k'_i) for already projected q' = W_q q (B, d_a) and k'_i = W_k k_i (B, S, d_a).

    Models project the keys once per sentence and reuse them at every decoding step.
    """
    return torch.tanh(q_proj.unsqueeze(1) + k_proj) @ v


def concat_score(q: Tensor, k: Tensor, w: Tensor, v: Tensor) -> Tensor:
    """Luong concat: e_i = vᵀ tanh(W [q; k_i]), with W of shape (d_a, d_q + d_k)."""
    d_q = q.shape[-1]
    return additive_score(q, k, w[:, :d_q], w[:, d_q:], v)


def cosine_score(q: Tensor, k: Tensor, eps: float = 1e-8) -> Tensor:
    """Cosine similarity: e_i = qᵀ k_i / (‖q‖ ‖k_i‖)."""
    return dot_score(q, k) / (q.norm(dim=-1, keepdim=True) * k.norm(dim=-1)).clamp_min(eps)


def masked_softmax(scores: Tensor, mask: Tensor | None = None, dim: int = -1) -> Tensor:
    """α = softmax(e) over the positions where ``mask`` is True; masked positions get exactly 0."""
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=dim)


def attend(weights: Tensor, values: Tensor) -> Tensor:
    """Context c = Σ_i α_i v_i: (B, S) weights and (B, S, d) values give (B, d)."""
    return torch.einsum("bs,bsd->bd", weights, values)


def hard_weights(weights: Tensor) -> Tensor:
    """Hard attention: a one-hot vector at argmax_i α_i, so the context is that single state."""
    return torch.nn.functional.one_hot(weights.argmax(dim=-1), weights.shape[-1]).to(weights.dtype)


def _window(mask: Tensor, offset: Tensor, half_width: int) -> Tensor:
    """Valid keys with |s − p_t| ≤ D; the nearest valid key is always kept, so no window is empty."""
    window = mask & (offset.abs() <= half_width)
    nearest = (offset.abs() + (~mask) * 1e9).argmin(dim=-1, keepdim=True)
    return window.scatter(1, nearest, True)


def _offsets(scores: Tensor, center: Tensor) -> Tensor:
    positions = torch.arange(scores.shape[-1], device=scores.device, dtype=scores.dtype)
    return positions.unsqueeze(0) - center.to(scores.dtype).unsqueeze(1)


def local_m_weights(scores: Tensor, mask: Tensor, center: Tensor, half_width: int) -> Tensor:
    """Luong et al. (2015) §3.2, local-m (monotonic alignment, p_t = t): a_t = softmax(e) over the
    window [p_t − D, p_t + D] only (Eq. 7 restricted to the window); 0 outside it. Rows sum to 1.
    ``center`` (B,) is p_t, ``half_width`` is D."""
    return masked_softmax(scores, _window(mask, _offsets(scores, center), half_width))


def predictive_position(hidden: Tensor, w_p: Tensor, v_p: Tensor, src_len: Tensor) -> Tensor:
    """Luong et al. (2015) Eq. 9, local-p: p_t = S · sigmoid(v_pᵀ tanh(W_p h_t)) ∈ (0, S), with
    ``hidden`` h_t (B, d), ``w_p`` (d_p, d), ``v_p`` (d_p,) and ``src_len`` S (B,)."""
    return src_len.to(hidden.dtype) * torch.sigmoid(torch.tanh(hidden @ w_p.T) @ v_p)


def local_p_weights(scores: Tensor, mask: Tensor, center: Tensor, half_width: int) -> Tensor:
    """Luong et al. (2015) Eq. 10, local-p: a_t(s) = align(h_t, h̄_s) · exp(−(s − p_t)² / (2σ²)),
    σ = D/2, where align is the softmax of the scores inside the window [p_t − D, p_t + D] and the
    Gaussian favours keys near the predicted p_t. As in the paper, the rows sum to at most 1.
    ``center`` (B,) is the real-valued p_t, ``half_width`` is D."""
    offset = _offsets(scores, center)
    sigma = half_width / 2
    return masked_softmax(scores, _window(mask, offset, half_width)) * torch.exp(-(offset**2) / (2 * sigma**2))


def scaled_dot_product_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """softmax(QKᵀ/√d_k + mask) V for (…, L, d_k) queries and (…, S, d_k) keys.

    ``mask`` broadcasts to (…, L, S) and is True where attending is allowed.
    Returns (output (…, L, d_v), weights (…, L, S)).
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = masked_softmax(scores, mask)
    return weights @ v, weights
