"""Transformer-XL (Dai et al. 2019, "Transformer-XL: Attentive Language Models Beyond a Fixed-Length
Context"), written out: segment-level recurrence with a memory, and relative positional attention.

* Segment-level recurrence (§3.2): layer n of segment τ+1 reads
  h̃^{n−1}_{τ+1} = [SG(m^{n−1}_τ) ∘ h^{n−1}_{τ+1}], the cached layer inputs of the previous
  segment(s) (the memory, at most M positions, stop-gradient) before the segment's own.
  Queries come from the segment only; keys and values from [memory | segment].
* Relative positional attention (§3.3), per head, for query i and key j:
      A_ij = (a) q_iᵀ k_j + (b) q_iᵀ W_k,R R_{i−j} + (c) uᵀ k_j + (d) vᵀ W_k,R R_{i−j},
  q_i = W_q E_xi, k_j = W_k,E E_xj, R the sinusoid of the distance (no absolute positions
  anywhere), u, v learned per head; the score used is A_ij / √d_k.
  (a)+(c) = (q_i + u)ᵀ k_j and (b)+(d) = (q_i + v)ᵀ W_k,R R_{i−j}; the latter is computed once
  for every distance and moved into place by the "relative shift" (Appendix B, :func:`rel_shift`).
* Causal mask over [memory | segment] (:func:`xl_mask`): query i (absolute M + i) sees key j iff
  j ≤ M + i.

Mask convention as in :mod:`models.nn.transformer`: True where attending is allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from models.nn.attention import masked_softmax
from models.nn.config import JsonConfig
from models.nn.positional import relative_scores, sinusoid_at
from models.nn.transformer import PositionwiseFeedForward, init_xavier, Residual

__all__ = [
    "TXLConfig",
    "xl_mask",
    "rel_shift",
    "RelMultiHeadAttention",
    "XLLayer",
    "TransformerXL",
    "XLOutput",
    "ScoreTerms",
    "score_terms",
    "update_memory",
]


def xl_mask(seg_len: int, mem_len: int, device: torch.device | str | None = None) -> Tensor:
    """Look-ahead mask over [memory | segment]: bool (L, M + L), True at [i, j] iff j ≤ M + i.

    Every memory position is visible to every query; inside the segment it is the usual
    lower triangle."""
    keys = torch.arange(mem_len + seg_len, device=device)
    return keys.unsqueeze(0) <= (torch.arange(seg_len, device=device) + mem_len).unsqueeze(1)


def rel_shift(x: Tensor) -> Tensor:
    """Appendix B's shift: (…, L, K) scores whose column c is for distance K − 1 − c become
    scores whose column j is for query i's distance (K − L + i) − j.

    Pad one zero column in front, view as (K + 1, L), drop the first row, view back: row i moves
    left by L − 1 − i, so out[i, j] = x[i, j + L − 1 − i] for every j ≤ K − L + i (the rest,
    the future, is masked)."""
    *lead, q_len, k_len = x.shape
    padded = torch.cat([x.new_zeros(*lead, q_len, 1), x], dim=-1)
    return padded.view(*lead, k_len + 1, q_len)[..., 1:, :].reshape(*lead, q_len, k_len)


@dataclass
class RelLMConfig(JsonConfig):
    """The sizes and special ids shared by the language models with relative positional attention
    (Transformer-XL, XLNet); JSON-able."""

    vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 512
    dropout: float = 0.1
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    tie_embeddings: bool = True


@dataclass
class TXLConfig(RelLMConfig):
    """Hyper-parameters of :class:`TransformerXL`. ``seg_len`` L and ``mem_len`` M are the training
    lengths; reading and generating may use others."""

    seg_len: int = 32
    mem_len: int = 32


class RelMultiHeadAttention(nn.Module):
    """Multi-head attention with Transformer-XL's relative scores (§3.3). Projections have no bias,
    so the score is exactly the four terms (a)–(d)."""

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)  # W_k,E
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_r = nn.Linear(d_model, d_model, bias=False)  # W_k,R
        self.w_o = nn.Linear(d_model, d_model, bias=False)
        self.u = nn.Parameter(torch.zeros(n_heads, self.d_k))
        self.v = nn.Parameter(torch.zeros(n_heads, self.d_k))
        self.dropout = nn.Dropout(dropout)

    def _split(self, x: Tensor) -> Tensor:
        """(B, n, d_model) → (B, h, n, d_k)."""
        b, n, _ = x.shape
        return x.view(b, n, self.n_heads, self.d_k).transpose(1, 2)

    def scores(self, seg: Tensor, context: Tensor) -> Tensor:
        """A / √d_k (B, h, L, K) for segment inputs ``seg`` (B, L, d) and [memory | segment]
        inputs ``context`` (B, K, d), K = M + L; future entries are not yet masked."""
        q, k = self._split(self.w_q(seg)), self._split(self.w_k(context))
        k_len = context.shape[1]
        r = sinusoid_at(torch.arange(k_len - 1, -1, -1), self.d_model, seg.dtype).to(seg.device)  # R_{K−1} … R_0
        r = self.w_r(r).view(k_len, self.n_heads, self.d_k).transpose(0, 1)  # (h, K, d_k)
        ac = (q + self.u[:, None]) @ k.transpose(-1, -2)  # (a) + (c)
        bd = rel_shift(torch.einsum("bhld,hkd->bhlk", q + self.v[:, None], r))  # (b) + (d)
        return (ac + bd) / math.sqrt(self.d_k)

    def forward(self, seg: Tensor, context: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Returns (output (B, L, d), weights (B, h, L, K), scores (B, h, L, K) before the mask)."""
        scores = self.scores(seg, context)
        weights = masked_softmax(scores, mask)
        heads = self.dropout(weights) @ self._split(self.w_v(context))
        b, _, n, _ = heads.shape
        return self.w_o(heads.transpose(1, 2).reshape(b, n, self.d_model)), weights, scores


class XLLayer(nn.Module):
    """Relative self-attention over [memory | segment], then the FFN; post-norm residuals as in
    the paper (LN(x + Sublayer(x)))."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.attn = RelMultiHeadAttention(d_model, n_heads, dropout)
        self.sub_attn = Residual(d_model, dropout, norm_first=False)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sub_ff = Residual(d_model, dropout, norm_first=False)

    def forward(self, x: Tensor, memory: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """``x`` (B, L, d), ``memory`` (B, M, d) already detached. Returns (x, weights, scores)."""
        out, weights, scores = self.attn(x, torch.cat([memory, x], dim=1), mask)
        x = self.sub_attn.post(x, out)
        return self.sub_ff.post(x, self.feed_forward(x)), weights, scores


@dataclass
class XLOutput:
    """One segment's pass: logits (B, L, V); the new memory per layer [(B, M', d)]; and, when asked
    for, attention and scores stacked over layers (B, N, h, L, K) and each layer's input over
    [memory | segment] [(B, K, d)]."""

    logits: Tensor
    memory: list[Tensor]
    attention: Tensor | None = None
    scores: Tensor | None = None
    layer_inputs: list[Tensor] | None = None


def update_memory(memory: Tensor, hidden: Tensor, mem_len: int) -> Tensor:
    """The next segment's memory: the last ``mem_len`` positions of [memory | hidden], stop-gradient
    (SG in §3.2)."""
    both = torch.cat([memory, hidden], dim=1)
    return both[:, max(0, both.shape[1] - mem_len) :].detach()


class TransformerXL(nn.Module):
    """A decoder-only Transformer-XL LM: embeddings × √d (no absolute positions), N :class:`XLLayer`,
    p(x_t | x_<t) = softmax(h_t W_out) with W_out tied to the embedding when configured."""

    def __init__(self, config: TXLConfig) -> None:
        super().__init__()
        c = self.config = config
        self.embed = nn.Embedding(c.vocab_size, c.d_model, padding_idx=c.pad_id)
        self.drop = nn.Dropout(c.dropout)
        self.layers = nn.ModuleList(XLLayer(c.d_model, c.n_heads, c.d_ff, c.dropout) for _ in range(c.n_layers))
        self.generator = nn.Linear(c.d_model, c.vocab_size)
        init_xavier(self)
        if c.tie_embeddings:
            self.generator.weight = self.embed.weight

    def empty_memory(self, batch: int) -> list[Tensor]:
        """Memory of length 0 for every layer."""
        w = self.embed.weight
        return [w.new_zeros(batch, 0, self.config.d_model) for _ in self.layers]

    def run(
        self, ids: Tensor, memory: list[Tensor] | None = None, mem_len: int | None = None, keep: bool = False
    ) -> XLOutput:
        """One segment ``ids`` (B, L) after ``memory`` (per layer (B, M, d); None = empty); the new
        memory keeps ``mem_len`` positions (default the config's). ``keep`` also returns attention,
        scores and layer inputs."""
        mem_len = self.config.mem_len if mem_len is None else mem_len
        memory = self.empty_memory(ids.shape[0]) if memory is None else [m.detach() for m in memory]
        if len(memory) != len(self.layers):
            raise ValueError(f"memory has {len(memory)} layers, the model {len(self.layers)}")
        x = self.drop(self.embed(ids) * math.sqrt(self.config.d_model))
        mask = xl_mask(ids.shape[1], memory[0].shape[1], ids.device)
        new_memory, weights, scores, inputs = [], [], [], []
        for layer, mem in zip(self.layers, memory):
            new_memory.append(update_memory(mem, x, mem_len))
            if keep:
                inputs.append(torch.cat([mem, x], dim=1))
            x, w, s = layer(x, mem, mask)
            weights.append(w)
            scores.append(s)
        logits = self.generator(self.drop(x))
        if not keep:
            return XLOutput(logits, new_memory)
        return XLOutput(logits, new_memory, torch.stack(weights, 1), torch.stack(scores, 1), inputs)

    def forward(self, ids: Tensor, memory: list[Tensor] | None = None) -> tuple[Tensor, list[Tensor]]:
        """(logits (B, L, V), new memory) for one segment."""
        out = self.run(ids, memory)
        return out.logits, out.memory


@dataclass
class ScoreTerms:
    """The four terms of one head's score for one query over its keys, each already divided by √d_k
    (so that their sum is the score the model used): (K,) arrays; ``distances`` i − j (K,), and the
    sinusoids R_{i−j} (K, d_model)."""

    a: Tensor
    b: Tensor
    c: Tensor
    d: Tensor
    distances: Tensor
    r: Tensor

    @property
    def total(self) -> Tensor:
        return self.a + self.b + self.c + self.d


def score_terms(attn: RelMultiHeadAttention, context: Tensor, mem_len: int, head: int, query: int) -> ScoreTerms:
    """(a)–(d) for query ``query`` of the segment (absolute position M + query) over keys
    0 … M + query of ``context`` (K, d), the layer's input over [memory | segment], computed
    directly with explicit R_{i−j} (:func:`models.nn.positional.relative_scores`), not by the shift."""
    rows = slice(head * attn.d_k, (head + 1) * attn.d_k)
    i = mem_len + query
    keys = context[: i + 1]
    q = attn.w_q.weight[rows] @ context[i]
    k = keys @ attn.w_k.weight[rows].T
    terms = relative_scores(
        q[None],
        k,
        attn.w_r.weight[rows],
        attn.u[head],
        attn.v[head],
        torch.tensor([float(i)]),
        torch.arange(i + 1, dtype=context.dtype),
    )
    scale = math.sqrt(attn.d_k)
    distances = i - torch.arange(i + 1)
    a, b, c, d = (terms[n][0] / scale for n in "abcd")
    return ScoreTerms(a, b, c, d, distances, sinusoid_at(distances, attn.d_model, context.dtype))
