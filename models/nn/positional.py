"""Positional encodings (Vaswani et al. 2017, §3.5) and their relatives.

Sinusoidal (absolute), its rotation property, Transformer-XL's relative encoding, rotary (RoPE)
and ALiBi as tensor functions. The positional-encoding page's computations on top of them live in
:mod:`models.lessons.positional`.
"""

from __future__ import annotations

import math
import torch
from torch import Tensor, nn


def sinusoidal_encoding(length: int, d_model: int) -> Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)); (length, d)."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(length, d_model)
    pe[:, 0::2] = torch.sin(position * inv_freq)
    pe[:, 1::2] = torch.cos(position * inv_freq[: d_model // 2])
    return pe


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal encoding to (B, L, d) embeddings, then dropout."""

    pe: Tensor  # (max_len, d) buffer, not saved

    def __init__(self, d_model: int, max_len: int = 512, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", sinusoidal_encoding(max_len, d_model), persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout(x + self.pe[: x.shape[1]].unsqueeze(0))


# ------------------------------------------------------------------ the sinusoid as a function


def inverse_frequencies(d_model: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """ω_i = 1 / 10000^(2i/d) for i = 0 … ⌈d/2⌉ − 1 (the same formula as ``sinusoidal_encoding``)."""
    return torch.exp(torch.arange(0, d_model, 2, dtype=dtype) * (-math.log(10000.0) / d_model))


def wavelengths(d_model: int) -> Tensor:
    """λ_i = 2π / ω_i = 2π · 10000^(2i/d): a geometric progression from 2π towards 10000·2π."""
    return 2 * math.pi / inverse_frequencies(d_model, torch.float64)


def sinusoid_at(positions: Tensor, d_model: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """PE(p, 2i) = sin(p ω_i), PE(p, 2i+1) = cos(p ω_i) for any real positions p (also p < 0).

    Returns (len(positions), d_model); ``sinusoid_at(arange(L), d)`` equals
    ``sinusoidal_encoding(L, d)``.
    """
    pos = torch.as_tensor(positions, dtype=dtype).reshape(-1, 1)
    inv_freq = inverse_frequencies(d_model, dtype)
    pe = torch.zeros(pos.shape[0], d_model, dtype=dtype)
    pe[:, 0::2] = torch.sin(pos * inv_freq)
    pe[:, 1::2] = torch.cos(pos * inv_freq[: d_model // 2])
    return pe


def rotation_matrix(k: float, d_model: int, dtype: torch.dtype = torch.float64) -> Tensor:
    """M_k with PE(pos + k) = M_k · PE(pos) for every pos (column vectors), d_model even.

    Block-diagonal: for each frequency ω_i the 2×2 block acting on (PE(pos,2i), PE(pos,2i+1)) is

        R(ω_i k) = [[ cos ω_i k,  sin ω_i k],
                    [−sin ω_i k,  cos ω_i k]]

    because sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b − sin a sin b.
    """
    if d_model % 2:
        raise ValueError("the rotation property needs an even d_model (sin/cos pairs)")
    angle = float(k) * inverse_frequencies(d_model, dtype)
    c, s = torch.cos(angle), torch.sin(angle)
    m = torch.zeros(d_model, d_model, dtype=dtype)
    idx = torch.arange(0, d_model, 2)
    m[idx, idx], m[idx, idx + 1] = c, s
    m[idx + 1, idx], m[idx + 1, idx + 1] = -s, c
    return m


# ------------------------------------------------------------------- relative encodings


def relative_scores(
    q: Tensor,
    k: Tensor,
    w_r: Tensor,
    u: Tensor,
    v: Tensor,
    query_positions: Tensor | None = None,
    key_positions: Tensor | None = None,
) -> dict[str, Tensor]:
    """Transformer-XL attention score (Dai et al. 2019, §3.3) with relative sinusoids R_{i−j}.

        A_ij = q_iᵀ k_j  (a, content)  + q_iᵀ W_R R_{i−j}  (b, content-dependent position)
             + uᵀ k_j    (c, global content bias) + vᵀ W_R R_{i−j}  (d, global position bias)

    ``q`` (L, d) and ``k`` (S, d) are the projected queries W_q E_xi and keys W_k,E E_xj;
    ``w_r`` (d, d_r) projects the d_r-dimensional sinusoid R; ``u``, ``v`` (d,) are learned.
    Positions default to 0 … L−1 and 0 … S−1. Returns the four terms and their sum ``total``,
    each (L, S); (b) and (d) depend on positions only through i − j.
    """
    qi = torch.arange(q.shape[0], dtype=q.dtype) if query_positions is None else query_positions
    kj = torch.arange(k.shape[0], dtype=q.dtype) if key_positions is None else key_positions
    offsets = qi.to(q.dtype).reshape(-1, 1) - kj.to(q.dtype).reshape(1, -1)  # (L, S): i − j
    r = sinusoid_at(offsets.reshape(-1), w_r.shape[1], q.dtype).reshape(*offsets.shape, -1)
    proj = r @ w_r.T  # (L, S, d)
    terms = {
        "a": q @ k.T,
        "b": torch.einsum("id,ijd->ij", q, proj),
        "c": (k @ u).expand(q.shape[0], -1),
        "d": proj @ v,
    }
    terms["total"] = terms["a"] + terms["b"] + terms["c"] + terms["d"]
    return terms


def apply_rope(x: Tensor, positions: Tensor | None = None, base: float = 10000.0) -> Tensor:
    """Rotary position embedding (Su et al. 2021): rotate each pair (x_2i, x_2i+1) by p·θ_i.

    θ_i = base^(−2i/d). For rows x_p at positions p (default 0 … L−1) of a (…, L, d) tensor:
        (x_2i, x_2i+1) → (x_2i cos pθ_i − x_2i+1 sin pθ_i,  x_2i sin pθ_i + x_2i+1 cos pθ_i).
    Then (RoPE(q)_m)ᵀ RoPE(k)_n depends on the positions only through m − n.
    """
    d = x.shape[-1]
    if d % 2:
        raise ValueError("RoPE needs an even dimension")
    pos = torch.arange(x.shape[-2], dtype=x.dtype) if positions is None else positions.to(x.dtype)
    theta = torch.exp(torch.arange(0, d, 2, dtype=x.dtype) * (-math.log(base) / d))
    angle = pos.reshape(-1, 1) * theta  # (L, d/2)
    cos, sin = torch.cos(angle), torch.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def alibi_slopes(n_heads: int) -> Tensor:
    """ALiBi head slopes (Press et al. 2022): m_h = 2^(−8h/n) for h = 1 … n when n is a power of 2;
    otherwise the slopes of the next lower power of two, then every other slope of the next higher."""

    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]

    if n_heads < 1:
        raise ValueError("n_heads must be ≥ 1")
    if math.log2(n_heads).is_integer():
        slopes = power_of_two(n_heads)
    else:
        lower = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(lower) + power_of_two(2 * lower)[0::2][: n_heads - lower]
    return torch.tensor(slopes)


def alibi_bias(length: int, n_heads: int, causal: bool = True) -> Tensor:
    """ALiBi bias added to the attention scores (Press et al. 2022), shape (n_heads, L, L).

    ALiBi is causal: −m_h · (i − j) for keys j ≤ i, and 0 above the diagonal, where the causal
    mask hides the future anyway. ``causal=False`` gives −m_h · |i − j|, a symmetric variant for
    bidirectional encoders that is not in the ALiBi paper. No position is ever added to the
    embeddings.
    """
    i = torch.arange(length).reshape(-1, 1)
    j = torch.arange(length).reshape(1, -1)
    distance = (i - j).clamp_min(0) if causal else (i - j).abs()
    return -alibi_slopes(n_heads).reshape(-1, 1, 1) * distance.to(torch.float32)
