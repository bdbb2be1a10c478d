"""XLNet (Yang et al. 2019, "XLNet: Generalized Autoregressive Pretraining for Language Understanding"),
written out: the permutation language model with two-stream self-attention.

* Permutation LM (§2.2): for a factorisation order z (a permutation of the positions 1 … n),
  maximise log p(x) = Σ_t log p(x_{z_t} | x_{z_<t}); the tokens stay in place (positions are
  the original ones), only the attention masks follow the order.
* Two-stream self-attention (§2.3): every layer m keeps two states per position,
      content stream  h_{z_t}^(m) = Attention(Q = h_{z_t}^(m−1), KV = h_{z_≤t}^(m−1))  (sees its own token),
      query stream    g_{z_t}^(m) = Attention(Q = g_{z_t}^(m−1), KV = h_{z_<t}^(m−1))  (its position only),
  h^(0) = e(x) (token embeddings), g^(0) = w (one trainable vector), the SAME attention and FFN
  weights for both streams; p(x_{z_t} = x | x_{z_<t}) = softmax(e(x)ᵀ g_{z_t}^(M)) from the last
  layer's query stream (output embedding tied to the input one).
* Relative positions as Transformer-XL (§2.4, Dai et al. 2019 §3.3): the score of query i over key
  j is (a) q_iᵀ k_j + (b) q_iᵀ W_R R_{i−j} + (c) uᵀ k_j + (d) vᵀ W_R R_{i−j}. A key may lie on
  either side of its query here, so i − j runs from −(n − 1) to n − 1 (:func:`two_sided_rel_shift`).
* Partial prediction (§2.3): only the last ⌈n/K⌉ tokens of the order are targets (:func:`n_targets`).

Our XLNet reads one window of at most ``max_len`` tokens: no segment recurrence or memory (the
paper's Transformer-XL memory, §2.4) and no segment embeddings (one segment).

Mask convention as in :mod:`models.nn.transformer`: True where attending is allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from models.nn.positional import sinusoid_at
from models.nn.transformer import PositionwiseFeedForward, init_xavier, Residual
from models.nn.transformer_xl import RelLMConfig, RelMultiHeadAttention, rel_shift

__all__ = [
    "XLNetConfig",
    "ranks",
    "content_mask",
    "query_mask",
    "n_targets",
    "target_mask",
    "two_sided_rel_shift",
    "TwoSidedRelAttention",
    "XLNetLayer",
    "XLNet",
    "XLNetOutput",
]


@dataclass
class XLNetConfig(RelLMConfig):
    """Hyper-parameters of :class:`XLNet`. ``max_len`` is the window n it was trained on (and the
    longest input it reads); ``k_split`` the partial-prediction K it was trained with."""

    max_len: int = 32
    k_split: int = 6


def ranks(order: Tensor) -> Tensor:
    """rank(z) (…, n): the place of each position in the order, so that rank[order[t]] = t."""
    return torch.argsort(order, dim=-1)


def content_mask(order: Tensor) -> Tensor:
    """The content stream's mask (…, n, n): position i may attend to j iff rank(j) ≤ rank(i).

    §2.3: h_{z_t} = Attention(Q = h_{z_t}, KV = h_{z_≤t}) — the tokens before it in the order
    and itself (its own content included)."""
    r = ranks(order)
    return r.unsqueeze(-2) <= r.unsqueeze(-1)


def query_mask(order: Tensor) -> Tensor:
    """The query stream's mask (…, n, n): position i may attend to j iff rank(j) < rank(i).

    §2.3: g_{z_t} = Attention(Q = g_{z_t}, KV = h_{z_<t}) — strictly the tokens before it in the
    order, never its own content (it knows its position through the relative encoding). The
    first position of the order sees nothing (its row is empty; its attention is all 0)."""
    r = ranks(order)
    return r.unsqueeze(-2) < r.unsqueeze(-1)


def n_targets(n: int, k_split: int) -> int:
    """Partial prediction (§2.3): the last ⌈n/K⌉ tokens of the order are predicted (K ≥ 1)."""
    if k_split < 1:
        raise ValueError(f"K must be at least 1, not {k_split}")
    return math.ceil(n / k_split)


def target_mask(order: Tensor, k_split: int) -> Tensor:
    """bool (…, n): True at the positions predicted, those whose rank is among the last ⌈n/K⌉."""
    n = order.shape[-1]
    return ranks(order) >= n - n_targets(n, k_split)


def two_sided_rel_shift(x: Tensor) -> Tensor:
    """Transformer-XL's relative shift (:func:`models.nn.transformer_xl.rel_shift`) for keys on both
    sides of the query: (…, n, 2n − 1) scores whose column c is for distance (n − 1) − c (distances
    n − 1 … −(n − 1)) become (…, n, n) scores with out[i, j] for distance i − j.

    rel_shift gives out[i, j] = x[i, j + n − 1 − i] for every j ≤ (2n − 1) − n + i, which covers all
    j < n: the first n columns are the whole answer (column n − 1 − i + j is distance i − j)."""
    n = x.shape[-2]
    if x.shape[-1] != 2 * n - 1:
        raise ValueError(f"expected {2 * n - 1} distance columns for {n} queries, got {x.shape[-1]}")
    return rel_shift(x)[..., :n]


def _softmax_or_zero(scores: Tensor, mask: Tensor) -> Tensor:
    """softmax over the allowed keys; masked keys get exactly 0, and a row with no allowed key
    (the query stream of the order's first position) is all 0 (not NaN, and no gradient)."""
    filled = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    return torch.softmax(filled, dim=-1) * mask


class TwoSidedRelAttention(RelMultiHeadAttention):
    """Transformer-XL's relative multi-head attention (same weights W_q, W_k,E, W_v, W_k,R, W_o, u, v)
    over keys at positions 0 … n − 1 on both sides of each query (queries at the same positions)."""

    def scores(self, queries: Tensor, context: Tensor) -> Tensor:
        """A / √d_k (B, h, n, n): ``queries`` (B, n, d) (either stream) over ``context`` (B, n, d)
        (the content stream), A_ij = (a) + (b) + (c) + (d) with R_{i−j}, i − j from −(n−1) to n−1."""
        q, k = self._split(self.w_q(queries)), self._split(self.w_k(context))
        n = context.shape[1]
        distances = torch.arange(n - 1, -n, -1)  # n − 1 … −(n − 1)
        r = sinusoid_at(distances, self.d_model, queries.dtype).to(queries.device)
        r = self.w_r(r).view(2 * n - 1, self.n_heads, self.d_k).transpose(0, 1)  # (h, 2n − 1, d_k)
        ac = (q + self.u[:, None]) @ k.transpose(-1, -2)  # (a) + (c)
        bd = two_sided_rel_shift(torch.einsum("bhld,hkd->bhlk", q + self.v[:, None], r))  # (b) + (d)
        return (ac + bd) / math.sqrt(self.d_k)

    def forward(self, queries: Tensor, context: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """``mask`` (B, n, n) or (n, n). Returns (output (B, n, d), weights (B, h, n, n), scores)."""
        scores = self.scores(queries, context)
        weights = _softmax_or_zero(scores, mask.unsqueeze(-3) if mask.dim() == 3 else mask)
        heads = self.dropout(weights) @ self._split(self.w_v(context))
        b, _, n, _ = heads.shape
        return self.w_o(heads.transpose(1, 2).reshape(b, n, self.d_model)), weights, scores


class XLNetLayer(nn.Module):
    """One layer of two-stream attention: the content stream h over h (content mask), the query
    stream g over h (query mask), through the same attention and FFN weights, post-norm residuals
    (LN(x + Sublayer(x))). Attribute names as :class:`models.nn.transformer_xl.XLLayer`'s."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.attn = TwoSidedRelAttention(d_model, n_heads, dropout)
        self.sub_attn = Residual(d_model, dropout, norm_first=False)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sub_ff = Residual(d_model, dropout, norm_first=False)

    def _after(self, x: Tensor, attended: Tensor) -> Tensor:
        x = self.sub_attn.post(x, attended)
        return self.sub_ff.post(x, self.feed_forward(x))

    def forward(self, h: Tensor, g: Tensor, c_mask: Tensor, q_mask: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """(h, g) (B, n, d) → (h', g', content weights, query weights) (B, h, n, n)."""
        h_out, h_weights, _ = self.attn(h, h, c_mask)
        g_out, g_weights, _ = self.attn(g, h, q_mask)
        return self._after(h, h_out), self._after(g, g_out), h_weights, g_weights


@dataclass
class XLNetOutput:
    """One window under one order per row: logits (B, n, V) from the query stream (the prediction
    for each position from the tokens before it in the order); the last layer's content stream h
    (B, n, d); when asked for, attention stacked over layers (B, N, h, n, n) of each stream."""

    logits: Tensor
    content: Tensor
    content_attention: Tensor | None = None
    query_attention: Tensor | None = None


class XLNet(nn.Module):
    """The permutation LM: embeddings × √d (no absolute positions), N :class:`XLNetLayer`, the
    query stream's last layer through the (tied) output embedding."""

    def __init__(self, config: XLNetConfig) -> None:
        super().__init__()
        c = self.config = config
        self.embed = nn.Embedding(c.vocab_size, c.d_model, padding_idx=c.pad_id)
        self.query_init = nn.Parameter(torch.zeros(c.d_model))  # w, g^(0) at every position
        self.drop = nn.Dropout(c.dropout)
        self.layers = nn.ModuleList(XLNetLayer(c.d_model, c.n_heads, c.d_ff, c.dropout) for _ in range(c.n_layers))
        self.generator = nn.Linear(c.d_model, c.vocab_size)
        init_xavier(self)
        nn.init.normal_(self.query_init)  # the scale of the embeddings × √d
        if c.tie_embeddings:
            self.generator.weight = self.embed.weight

    def embed_tokens(self, ids: Tensor) -> Tensor:
        """h^(0) = e(x) · √d (B, n, d)."""
        return self.embed(ids) * math.sqrt(self.config.d_model)

    def streams(
        self, x: Tensor, order: Tensor, keep: bool = False
    ) -> tuple[Tensor, Tensor, list[Tensor], list[Tensor]]:
        """Both streams from embedded tokens ``x`` (B, n, d) under ``order`` (B, n) or (n,) (each
        row a permutation of 0 … n − 1): (h, g) of the last layer and, with ``keep``, each layer's
        content- and query-stream weights."""
        b, n, _ = x.shape
        order = order.expand(b, n) if order.dim() == 1 else order
        c_mask, q_mask = content_mask(order), query_mask(order)
        h = self.drop(x)
        g = self.drop(self.query_init.expand(b, n, -1))
        h_weights, g_weights = [], []
        for layer in self.layers:
            h, g, wh, wg = layer(h, g, c_mask, q_mask)
            if keep:
                h_weights.append(wh)
                g_weights.append(wg)
        return h, g, h_weights, g_weights

    def run(self, ids: Tensor, order: Tensor, keep: bool = False) -> XLNetOutput:
        """``ids`` (B, n) read under ``order`` (B, n) or (n,); ``keep`` also returns the attention."""
        h, g, wh, wg = self.streams(self.embed_tokens(ids), order, keep)
        logits = self.generator(self.drop(g))
        if not keep:
            return XLNetOutput(logits, h)
        return XLNetOutput(logits, h, torch.stack(wh, 1), torch.stack(wg, 1))

    def forward(self, ids: Tensor, order: Tensor, where: Tensor | None = None) -> Tensor:
        """logits (B, n, V): position i's prediction from the tokens before it in the order; with
        ``where`` (B, n) bool, only the (T, V) logits at its True entries (partial prediction: the
        output layer runs at the targets only)."""
        if where is None:
            return self.run(ids, order).logits
        _, g, _, _ = self.streams(self.embed_tokens(ids), order)
        return self.generator(self.drop(g[where]))
