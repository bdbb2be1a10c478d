"""The Transformer (Vaswani et al. 2017, "Attention Is All You Need"), written out.

* Multi-head attention (§3.2.2): headᵢ = softmax(Q Wᵢ^Q (K Wᵢ^K)ᵀ / √d_k + mask) V Wᵢ^V,
  MultiHead(Q, K, V) = Concat(head₁, …, head_h) W^O, every head's weights returned.
* Encoder–decoder (§3.1): embeddings × √d_model (§3.4) + sinusoidal positions (§3.5),
  N blocks of [self-attention, (cross-attention,) position-wise FFN (§3.3)], each sub-layer
  wrapped in dropout + residual + LayerNorm, post-norm ``LN(x + Sublayer(x))`` as in the paper
  or pre-norm ``x + Sublayer(LN(x))`` (Xiong et al. 2020) with ``norm_first=True``.
* A decoder-only language model from the same decoder blocks without cross-attention.
* Label-smoothed cross-entropy (§5.4, Szegedy et al. 2016), greedy and beam decoding, and
  sampling for the language model.

Mask convention (the same as ``models.attention``): a bool tensor that is **True where
attending is allowed**; masks given to the layers broadcast to (B, L, S) (or (B, h, L, S)).

Decoding functions return plain dataclasses of numpy arrays and ids (DESIGN.md, "The
trace"); tensors do not leave ``models/``.
"""
from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.attention import scaled_dot_product_attention
from models.positional import PositionalEncoding

__all__ = [
    "subsequent_mask", "padding_mask", "MultiHeadAttention", "PositionwiseFeedForward",
    "EncoderLayer", "DecoderLayer", "Encoder", "Decoder", "TransformerConfig", "Transformer",
    "TransformerOutput", "DecoderOnlyLM", "LMOutput", "label_smoothed_cross_entropy",
    "copy_weights_to_torch_mha", "copy_weights_from_torch_mha", "DecodeStep", "DecodeTrace",
    "BeamStep", "BeamTrace", "greedy_decode", "beam_search", "GenerationStep",
    "GenerationTrace", "generate", "greedy_batch", "ATTENTION_KINDS", "HeadWalkthrough",
    "head_walkthrough",
]


# --------------------------------------------------------------------------------------
# Masks
# --------------------------------------------------------------------------------------

def subsequent_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """Look-ahead mask (§3.2.3): bool (size, size), True at [t, s] iff s ≤ t (may attend)."""
    return torch.ones(size, size, dtype=torch.bool, device=device).tril()


def padding_mask(tokens: Tensor, pad_id: int) -> Tensor:
    """Key padding mask: bool (B, 1, S), True where ``tokens`` (B, S) is not ``pad_id``.

    It broadcasts over queries: combine with :func:`subsequent_mask` by ``&``.
    """
    return (tokens != pad_id).unsqueeze(-2)


def _expand_heads(mask: Tensor | None) -> Tensor | None:
    """(B, L, S) → (B, 1, L, S); (L, S) and 4-d masks broadcast as they are."""
    if mask is not None and mask.dim() == 3:
        return mask.unsqueeze(1)
    return mask


# --------------------------------------------------------------------------------------
# Sub-layers
# --------------------------------------------------------------------------------------

class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head₁, …, head_h) W^O with
    headᵢ = softmax(Q Wᵢ^Q (K Wᵢ^K)ᵀ / √d_k + mask) V Wᵢ^V and d_k = d_v = d_model / h.

    The h per-head projections are stored as one (d_model → d_model) ``nn.Linear`` each for
    Q, K and V (the rows of head i are ``[i·d_k, (i+1)·d_k)``), and W^O as ``w_o``.
    Dropout (if any) is applied to the attention weights before they multiply V; the
    weights returned are those before dropout.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def _split(self, x: Tensor) -> Tensor:
        """(B, L, d_model) → (B, h, L, d_k)."""
        b, n, _ = x.shape
        return x.view(b, n, self.n_heads, self.d_k).transpose(1, 2)

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """``query`` (B, L, d), ``key``/``value`` (B, S, d); ``mask`` broadcastable to (B, L, S)
        (or (B, h, L, S)), True = may attend. Returns (output (B, L, d), weights (B, h, L, S))."""
        q = self._split(self.w_q(query))
        k = self._split(self.w_k(key))
        v = self._split(self.w_v(value))
        heads, weights = scaled_dot_product_attention(q, k, v, _expand_heads(mask))
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v
        b, _, n, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(b, n, self.d_model)
        return self.w_o(concat), weights


class PositionwiseFeedForward(nn.Module):
    """FFN(x) = max(0, x W₁ + b₁) W₂ + b₂ (§3.3), applied at every position alike."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu") -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        if activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be 'relu' or 'gelu', not {activation!r}")
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x: Tensor) -> Tensor:
        return self.w_2(self.dropout(self.activation(self.w_1(x))))


class _Residual(nn.Module):
    """Dropout + residual + LayerNorm around a sub-layer.

    post-norm (paper): LN(x + Dropout(Sublayer(x))); pre-norm: x + Dropout(Sublayer(LN(x))).
    """

    def __init__(self, d_model: int, dropout: float, norm_first: bool) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def pre(self, x: Tensor) -> Tensor:
        """What the sub-layer reads: LN(x) for pre-norm, x for post-norm."""
        return self.norm(x) if self.norm_first else x

    def post(self, x: Tensor, sublayer_out: Tensor) -> Tensor:
        y = x + self.dropout(sublayer_out)
        return y if self.norm_first else self.norm(y)


class EncoderLayer(nn.Module):
    """Self-attention then FFN, each wrapped by :class:`_Residual` (§3.1)."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        norm_first: bool = False, activation: str = "relu",
    ) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.sub_attn = _Residual(d_model, dropout, norm_first)
        self.sub_ff = _Residual(d_model, dropout, norm_first)

    def forward(self, x: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``x`` (B, S, d), ``mask`` broadcastable to (B, S, S). Returns (x, weights (B, h, S, S))."""
        h = self.sub_attn.pre(x)
        attn_out, weights = self.self_attn(h, h, h, mask)
        x = self.sub_attn.post(x, attn_out)
        x = self.sub_ff.post(x, self.feed_forward(self.sub_ff.pre(x)))
        return x, weights


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder memory (omitted when
    ``cross_attention=False``, as in a decoder-only LM), then FFN (§3.1)."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        norm_first: bool = False, activation: str = "relu", cross_attention: bool = True,
    ) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.sub_self = _Residual(d_model, dropout, norm_first)
        self.cross_attn: MultiHeadAttention | None = None
        self.sub_cross: _Residual | None = None
        if cross_attention:
            self.cross_attn = MultiHeadAttention(d_model, n_heads, dropout)
            self.sub_cross = _Residual(d_model, dropout, norm_first)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.sub_ff = _Residual(d_model, dropout, norm_first)

    def forward(
        self, x: Tensor, memory: Tensor | None = None, tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """``x`` (B, T, d); ``memory`` (B, S, d) or None without cross-attention;
        ``tgt_mask`` broadcastable to (B, T, T) (include :func:`subsequent_mask`!),
        ``memory_mask`` to (B, T, S). Returns (x, self weights (B, h, T, T),
        cross weights (B, h, T, S) or None)."""
        h = self.sub_self.pre(x)
        attn_out, self_w = self.self_attn(h, h, h, tgt_mask)
        x = self.sub_self.post(x, attn_out)
        cross_w = None
        if self.cross_attn is not None and self.sub_cross is not None:
            if memory is None:
                raise ValueError("this DecoderLayer has cross-attention and needs `memory`")
            cross_out, cross_w = self.cross_attn(self.sub_cross.pre(x), memory, memory, memory_mask)
            x = self.sub_cross.post(x, cross_out)
        x = self.sub_ff.post(x, self.feed_forward(self.sub_ff.pre(x)))
        return x, self_w, cross_w


class Encoder(nn.Module):
    """N encoder layers over already-embedded input; a final LayerNorm when pre-norm."""

    def __init__(
        self, n_layers: int, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        norm_first: bool = False, activation: str = "relu",
    ) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, n_heads, d_ff, dropout, norm_first, activation) for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

    def forward(self, x: Tensor, mask: Tensor | None = None) -> tuple[Tensor, list[Tensor]]:
        """Returns (memory (B, S, d), per-layer self-attention weights [(B, h, S, S)])."""
        weights = []
        for layer in self.layers:
            x, w = layer(x, mask)
            weights.append(w)
        return self.norm(x), weights


class Decoder(nn.Module):
    """N decoder layers over already-embedded input; a final LayerNorm when pre-norm."""

    def __init__(
        self, n_layers: int, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        norm_first: bool = False, activation: str = "relu", cross_attention: bool = True,
    ) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            DecoderLayer(d_model, n_heads, d_ff, dropout, norm_first, activation, cross_attention)
            for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

    def forward(
        self, x: Tensor, memory: Tensor | None = None, tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
    ) -> tuple[Tensor, list[Tensor], list[Tensor | None]]:
        """Returns (hidden (B, T, d), self weights [(B, h, T, T)], cross weights [(B, h, T, S) | None])."""
        self_ws: list[Tensor] = []
        cross_ws: list[Tensor | None] = []
        for layer in self.layers:
            x, sw, cw = layer(x, memory, tgt_mask, memory_mask)
            self_ws.append(sw)
            cross_ws.append(cw)
        return self.norm(x), self_ws, cross_ws


# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------

@dataclass
class TransformerConfig:
    """Hyper-parameters of :class:`Transformer` and :class:`DecoderOnlyLM` (JSON-able).

    ``vocab_size`` is the target (decoder / LM) vocabulary; ``src_vocab_size`` defaults to it.
    A :class:`DecoderOnlyLM` uses ``vocab_size`` and ``num_decoder_layers`` only.
    """

    vocab_size: int
    src_vocab_size: int | None = None
    d_model: int = 128
    n_heads: int = 4
    num_encoder_layers: int = 2
    num_decoder_layers: int = 2
    d_ff: int = 512
    dropout: float = 0.1
    norm_first: bool = False
    activation: str = "relu"
    max_len: int = 512
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    tie_embeddings: bool = False

    @property
    def source_vocab_size(self) -> int:
        return self.src_vocab_size if self.src_vocab_size is not None else self.vocab_size

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TransformerConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown TransformerConfig keys: {sorted(unknown)}")
        return cls(**data)


@torch.no_grad()
def _init_xavier(module: nn.Module) -> None:
    """Glorot-uniform for every matrix, as in the reference implementations; the PAD
    embedding row stays zero (``padding_idx`` also keeps it from being trained)."""
    for p in module.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    for m in module.modules():
        if isinstance(m, nn.Embedding) and m.padding_idx is not None:
            m.weight[m.padding_idx].zero_()


class _Embedding(nn.Module):
    """Token embedding × √d_model (§3.4) plus sinusoidal positions and dropout (§3.5)."""

    def __init__(self, vocab_size: int, d_model: int, max_len: int, dropout: float, pad_id: int) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.positions = PositionalEncoding(d_model, max_len=max_len, dropout=dropout)
        self.scale = math.sqrt(d_model)

    def forward(self, ids: Tensor) -> Tensor:
        return self.positions(self.tokens(ids) * self.scale)


@dataclass
class TransformerOutput:
    """Logits and every attention weight of one forward pass; attention tensors are
    stacked over layers: encoder (B, N_enc, h, S, S), decoder self (B, N_dec, h, T, T),
    cross (B, N_dec, h, T, S)."""

    logits: Tensor
    encoder_attention: Tensor
    decoder_self_attention: Tensor
    cross_attention: Tensor


class Transformer(nn.Module):
    """Encoder–decoder Transformer (§3). ``forward(src, tgt_in)`` gives logits (B, T, V)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = self.config = config
        self.src_embed = _Embedding(c.source_vocab_size, c.d_model, c.max_len, c.dropout, c.pad_id)
        self.tgt_embed = _Embedding(c.vocab_size, c.d_model, c.max_len, c.dropout, c.pad_id)
        self.encoder = Encoder(c.num_encoder_layers, c.d_model, c.n_heads, c.d_ff, c.dropout,
                               c.norm_first, c.activation)
        self.decoder = Decoder(c.num_decoder_layers, c.d_model, c.n_heads, c.d_ff, c.dropout,
                               c.norm_first, c.activation, cross_attention=True)
        self.generator = nn.Linear(c.d_model, c.vocab_size)
        _init_xavier(self)
        if c.tie_embeddings:
            self.generator.weight = self.tgt_embed.tokens.weight

    def source_mask(self, src: Tensor) -> Tensor:
        """(B, 1, S): True at non-padding source tokens."""
        return padding_mask(src, self.config.pad_id)

    def target_mask(self, tgt: Tensor) -> Tensor:
        """(B, T, T): padding mask & look-ahead mask."""
        return padding_mask(tgt, self.config.pad_id) & subsequent_mask(tgt.shape[1], tgt.device)

    def encode(self, src: Tensor, src_mask: Tensor | None = None) -> tuple[Tensor, list[Tensor]]:
        """(memory (B, S, d), encoder self-attention per layer). ``src_mask`` defaults to padding."""
        if src_mask is None:
            src_mask = self.source_mask(src)
        return self.encoder(self.src_embed(src), src_mask)

    def decode(
        self, tgt: Tensor, memory: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None
    ) -> tuple[Tensor, list[Tensor], list[Tensor | None]]:
        """Decoder hidden states (B, T, d) and its attention; ``tgt_mask`` defaults to
        :meth:`target_mask`, ``src_mask`` (B, 1, S) to attending every memory position."""
        if tgt_mask is None:
            tgt_mask = self.target_mask(tgt)
        return self.decoder(self.tgt_embed(tgt), memory, tgt_mask, src_mask)

    def run(
        self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None
    ) -> TransformerOutput:
        """Teacher-forced pass keeping every attention weight."""
        if src_mask is None:
            src_mask = self.source_mask(src)
        memory, enc_w = self.encode(src, src_mask)
        hidden, self_w, cross_w = self.decode(tgt, memory, src_mask, tgt_mask)
        return TransformerOutput(
            logits=self.generator(hidden),
            encoder_attention=torch.stack(enc_w, 1),
            decoder_self_attention=torch.stack(self_w, 1),
            cross_attention=torch.stack([w for w in cross_w if w is not None], 1),
        )

    def forward(
        self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None
    ) -> Tensor:
        """Logits (B, T, V) for source ids (B, S) and decoder input ids (B, T) (BOS + target)."""
        return self.run(src, tgt, src_mask, tgt_mask).logits


@dataclass
class LMOutput:
    """Logits (B, T, V) and causal self-attention stacked over layers (B, N, h, T, T)."""

    logits: Tensor
    attention: Tensor


class DecoderOnlyLM(nn.Module):
    """A decoder-only language model: the decoder blocks without cross-attention, causal
    self-attention, p(x_t | x_<t) = softmax(h_t W_out)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = self.config = config
        self.embed = _Embedding(c.vocab_size, c.d_model, c.max_len, c.dropout, c.pad_id)
        self.decoder = Decoder(c.num_decoder_layers, c.d_model, c.n_heads, c.d_ff, c.dropout,
                               c.norm_first, c.activation, cross_attention=False)
        self.generator = nn.Linear(c.d_model, c.vocab_size)
        _init_xavier(self)
        if c.tie_embeddings:
            self.generator.weight = self.embed.tokens.weight

    def causal_mask(self, ids: Tensor) -> Tensor:
        """(B, T, T): padding mask & look-ahead mask."""
        return padding_mask(ids, self.config.pad_id) & subsequent_mask(ids.shape[1], ids.device)

    def run(self, ids: Tensor, mask: Tensor | None = None) -> LMOutput:
        if mask is None:
            mask = self.causal_mask(ids)
        hidden, self_w, _ = self.decoder(self.embed(ids), None, mask, None)
        return LMOutput(self.generator(hidden), torch.stack(self_w, 1))

    def forward(self, ids: Tensor, mask: Tensor | None = None) -> Tensor:
        """Next-token logits (B, T, V) for ids (B, T)."""
        return self.run(ids, mask).logits


# --------------------------------------------------------------------------------------
# Loss
# --------------------------------------------------------------------------------------

def label_smoothed_cross_entropy(
    logits: Tensor, target: Tensor, epsilon: float = 0.1, ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """Cross-entropy against the smoothed target q = (1 − ε)·onehot(y) + ε/V (§5.4;
    Szegedy et al. 2016, the same convention as ``F.cross_entropy(label_smoothing=ε)``):

        loss = −Σ_k q_k log p_k = (1 − ε)·(−log p_y) + ε·(1/V)·Σ_k (−log p_k)

    ``logits`` (…, V), ``target`` (…) long; positions with ``target == ignore_index`` count
    for nothing. ``reduction``: "mean" over counted positions, "sum", or "none".
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], not {epsilon}")
    log_p = torch.log_softmax(logits.float(), dim=-1)
    keep = target != ignore_index
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_p.gather(-1, safe_target.unsqueeze(-1)).squeeze(-1)
    uniform = -log_p.mean(dim=-1)
    loss = ((1.0 - epsilon) * nll + epsilon * uniform) * keep
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / keep.sum().clamp_min(1)
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', not {reduction!r}")


# --------------------------------------------------------------------------------------
# torch.nn.MultiheadAttention weight exchange (for the equality test)
# --------------------------------------------------------------------------------------

@torch.no_grad()
def copy_weights_to_torch_mha(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    """Copy W_q, W_k, W_v (into ``in_proj_weight`` stacked [q; k; v]) and W_o into ``theirs``."""
    if theirs.embed_dim != ours.d_model or theirs.num_heads != ours.n_heads:
        raise ValueError("embed_dim / num_heads differ")
    if not theirs._qkv_same_embed_dim:
        raise ValueError("torch MHA with kdim/vdim different from embed_dim is not supported")
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    if theirs.in_proj_bias is not None:
        if ours.w_q.bias is None:
            theirs.in_proj_bias.zero_()
        else:
            theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    if theirs.out_proj.bias is not None:
        theirs.out_proj.bias.copy_(ours.w_o.bias if ours.w_o.bias is not None else 0.0)


@torch.no_grad()
def copy_weights_from_torch_mha(theirs: nn.MultiheadAttention, ours: MultiHeadAttention) -> None:
    """The inverse of :func:`copy_weights_to_torch_mha`."""
    d = ours.d_model
    w = theirs.in_proj_weight
    ours.w_q.weight.copy_(w[:d])
    ours.w_k.weight.copy_(w[d:2 * d])
    ours.w_v.weight.copy_(w[2 * d:])
    if ours.w_q.bias is not None and theirs.in_proj_bias is not None:
        b = theirs.in_proj_bias
        ours.w_q.bias.copy_(b[:d])
        ours.w_k.bias.copy_(b[d:2 * d])
        ours.w_v.bias.copy_(b[2 * d:])
    ours.w_o.weight.copy_(theirs.out_proj.weight)
    if ours.w_o.bias is not None and theirs.out_proj.bias is not None:
        ours.w_o.bias.copy_(theirs.out_proj.bias)


# --------------------------------------------------------------------------------------
# Decoding traces (numpy only)
# --------------------------------------------------------------------------------------

def _np(t: Tensor) -> np.ndarray:
    return t.detach().float().cpu().numpy()


@dataclass
class DecodeStep:
    """One decoder step t (predicting output position t, 0-based after BOS).

    ``self_attention`` (layers, heads, t + 1): the new position's row over BOS + outputs so far;
    ``cross_attention`` (layers, heads, S): its row over the source.
    ``top_ids``/``top_probs``: the k most probable next tokens under softmax(logits).
    """

    position: int
    token_id: int
    log_prob: float
    top_ids: np.ndarray
    top_probs: np.ndarray
    self_attention: np.ndarray
    cross_attention: np.ndarray


@dataclass
class DecodeTrace:
    """An encoder–decoder decoding: ids, encoder self-attention (layers, heads, S, S) and one
    :class:`DecodeStep` per output token. ``output_ids`` excludes BOS and includes EOS if produced."""

    src_ids: list[int]
    output_ids: list[int]
    encoder_attention: np.ndarray
    steps: list[DecodeStep]
    score: float
    bos_id: int = 1

    @property
    def decoder_input_ids(self) -> list[int]:
        """The decoder's query positions: BOS followed by every output token but the last."""
        return [self.bos_id] + self.output_ids[:-1]

    def decoder_self_attention(self) -> np.ndarray:
        """(layers, heads, T, T) causal matrix assembled from the step rows (zeros above the diagonal)."""
        n = len(self.steps)
        if n == 0:
            return np.zeros((0, 0, 0, 0), dtype=np.float32)
        n_layers, n_heads, _ = self.steps[0].self_attention.shape
        out = np.zeros((n_layers, n_heads, n, n), dtype=np.float32)
        for t, step in enumerate(self.steps):
            out[:, :, t, : t + 1] = step.self_attention
        return out

    def cross_attention(self) -> np.ndarray:
        """(layers, heads, T, S) stacked step rows."""
        return np.stack([s.cross_attention for s in self.steps], axis=2) if self.steps else np.zeros((0, 0, 0, 0))


@dataclass
class BeamStep:
    """The beam after one step: each live hypothesis (ids without BOS) and its summed log-prob,
    plus hypotheses that ended with EOS at this step."""

    hypotheses: list[list[int]]
    scores: list[float]
    finished: list[list[int]]
    finished_scores: list[float]


@dataclass
class BeamTrace:
    """Beam search result: the best hypothesis as a full :class:`DecodeTrace` (attention per
    step), every beam per step, and all finished hypotheses ranked by normalised score."""

    best: DecodeTrace
    beams: list[BeamStep]
    finished: list[tuple[list[int], float]]
    beam_width: int
    length_penalty: float


def _as_ids(ids: Sequence[int] | Tensor, device: torch.device) -> Tensor:
    t = torch.as_tensor(ids, dtype=torch.long, device=device)
    return t.unsqueeze(0) if t.dim() == 1 else t


class _EvalMode:
    """Run a module in eval mode and put it back as it was (no change if already eval)."""

    def __init__(self, module: nn.Module) -> None:
        self.module = module
        self.was_training = module.training

    def __enter__(self) -> None:
        if self.was_training:
            self.module.eval()

    def __exit__(self, *exc: object) -> None:
        if self.was_training:
            self.module.train()


def _trace_from_sequence(
    model: Transformer, src: Tensor, memory: Tensor, enc_w: list[Tensor], src_mask: Tensor,
    output_ids: list[int], bos_id: int, top_k: int,
) -> DecodeTrace:
    """Teacher-force BOS + output_ids[:-1] once; row t of each causal matrix is step t."""
    dec_in = torch.tensor([[bos_id] + output_ids[:-1]], dtype=torch.long, device=src.device) \
        if output_ids else torch.tensor([[bos_id]], device=src.device)
    hidden, self_w, cross_w = model.decode(dec_in, memory, src_mask)
    log_p = torch.log_softmax(model.generator(hidden)[0].float(), dim=-1)  # (T, V)
    sw = torch.stack(self_w, 1)[0]  # (layers, h, T, T)
    cw = torch.stack([w for w in cross_w if w is not None], 1)[0]  # (layers, h, T, S)
    k = min(top_k, log_p.shape[-1])
    top_lp, top_ix = log_p.topk(k, dim=-1)
    steps = []
    score = 0.0
    for t, tok in enumerate(output_ids):
        lp = float(log_p[t, tok])
        score += lp
        steps.append(DecodeStep(
            position=t, token_id=int(tok), log_prob=lp,
            top_ids=_np(top_ix[t]).astype(np.int64), top_probs=_np(top_lp[t].exp()),
            self_attention=_np(sw[:, :, t, : t + 1]), cross_attention=_np(cw[:, :, t, :]),
        ))
    return DecodeTrace(
        src_ids=[int(i) for i in src[0].tolist()], output_ids=[int(i) for i in output_ids],
        encoder_attention=_np(torch.stack(enc_w, 1)[0]), steps=steps, score=score, bos_id=bos_id,
    )


@torch.inference_mode()
def greedy_decode(
    model: Transformer, src_ids: Sequence[int] | Tensor, max_len: int = 50,
    bos_id: int | None = None, eos_id: int | None = None, top_k: int = 5,
) -> DecodeTrace:
    """y_t = argmax_y p(y | y_<t, x), from BOS until EOS or ``max_len`` output tokens.

    One source sequence (S,) or (1, S). Each step records the top-k distribution and the new
    position's self- and cross-attention in every layer and head.
    """
    c = model.config
    bos = c.bos_id if bos_id is None else bos_id
    eos = c.eos_id if eos_id is None else eos_id
    device = next(model.parameters()).device
    src = _as_ids(src_ids, device)
    max_len = min(max_len, c.max_len - 1)
    with _EvalMode(model):
        src_mask = model.source_mask(src)
        memory, enc_w = model.encode(src, src_mask)
        ys = torch.tensor([[bos]], dtype=torch.long, device=device)
        steps: list[DecodeStep] = []
        score = 0.0
        for t in range(max_len):
            hidden, self_w, cross_w = model.decode(ys, memory, src_mask)
            log_p = torch.log_softmax(model.generator(hidden[0, -1]).float(), dim=-1)
            tok = int(log_p.argmax())
            k = min(top_k, log_p.shape[-1])
            top_lp, top_ix = log_p.topk(k)
            score += float(log_p[tok])
            steps.append(DecodeStep(
                position=t, token_id=tok, log_prob=float(log_p[tok]),
                top_ids=_np(top_ix).astype(np.int64), top_probs=_np(top_lp.exp()),
                self_attention=_np(torch.stack([w[0, :, -1, :] for w in self_w])),
                cross_attention=_np(torch.stack([w[0, :, -1, :] for w in cross_w if w is not None])),
            ))
            ys = torch.cat([ys, torch.tensor([[tok]], device=device)], dim=1)
            if tok == eos:
                break
        return DecodeTrace(
            src_ids=[int(i) for i in src[0].tolist()], output_ids=[s.token_id for s in steps],
            encoder_attention=_np(torch.stack(enc_w, 1)[0]), steps=steps, score=score, bos_id=bos,
        )


def _normalised(score: float, length: int, alpha: float) -> float:
    """GNMT length normalisation (Wu et al. 2016): score / ((5 + |y|) / 6)^α; α = 0 → raw sum."""
    return score / (((5 + length) / 6) ** alpha) if alpha else score


@torch.inference_mode()
def beam_search(
    model: Transformer, src_ids: Sequence[int] | Tensor, beam_width: int = 4, max_len: int = 50,
    length_penalty: float = 0.0, bos_id: int | None = None, eos_id: int | None = None, top_k: int = 5,
) -> BeamTrace:
    """Beam search: keep the ``beam_width`` prefixes with the highest Σ log p(y_t | y_<t, x);
    a prefix ending in EOS is finished. Stops when ``beam_width`` hypotheses are finished and
    no live prefix can still beat the worst of them, or after ``max_len`` output tokens; the
    best by length-normalised score (:func:`_normalised`, α = ``length_penalty``) wins.
    With ``beam_width=1`` it is exactly greedy decoding.
    """
    c = model.config
    bos = c.bos_id if bos_id is None else bos_id
    eos = c.eos_id if eos_id is None else eos_id
    device = next(model.parameters()).device
    src = _as_ids(src_ids, device)
    max_len = min(max_len, c.max_len - 1)
    with _EvalMode(model):
        src_mask = model.source_mask(src)
        memory, enc_w = model.encode(src, src_mask)
        live: list[list[int]] = [[]]
        live_scores = torch.zeros(1, device=device)
        finished: list[tuple[list[int], float]] = []
        beams: list[BeamStep] = []

        def rank(hyps: list[tuple[list[int], float]]) -> list[tuple[list[int], float]]:
            return sorted(hyps, key=lambda hs: _normalised(hs[1], len(hs[0]), length_penalty), reverse=True)

        for _ in range(max_len):
            n = len(live)
            ys = torch.tensor([[bos] + h for h in live], dtype=torch.long, device=device)
            hidden, _, _ = model.decode(ys, memory.expand(n, -1, -1), src_mask.expand(n, -1, -1))
            log_p = torch.log_softmax(model.generator(hidden[:, -1]).float(), dim=-1)  # (n, V)
            cand = (live_scores.unsqueeze(1) + log_p).flatten()
            vocab = log_p.shape[-1]
            cand_scores, cand_ix = cand.topk(min(2 * beam_width, cand.numel()))
            new_live: list[list[int]] = []
            new_scores: list[float] = []
            step_finished: list[tuple[list[int], float]] = []
            for s, ix in zip(cand_scores.tolist(), cand_ix.tolist()):
                hyp = live[ix // vocab] + [ix % vocab]
                if ix % vocab == eos:
                    step_finished.append((hyp, s))
                else:
                    new_live.append(hyp)
                    new_scores.append(s)
                    if len(new_live) == beam_width:
                        break
            finished = rank(finished + step_finished)[:beam_width]
            beams.append(BeamStep(new_live, new_scores, [h for h, _ in step_finished],
                                  [sc for _, sc in step_finished]))
            if not new_live:
                break
            live = new_live
            live_scores = torch.tensor(new_scores, device=device)
            if len(finished) >= beam_width:
                # Log-probs only add negative terms, so a live beam's normalised score is at
                # most its current sum normalised at max_len (α ≥ 0): stop if none can win.
                worst = _normalised(finished[-1][1], len(finished[-1][0]), length_penalty)
                if worst >= _normalised(max(new_scores), max_len, length_penalty):
                    break
        else:
            finished = rank(finished + list(zip(live, live_scores.tolist())))
        ranked = rank(finished)
        best_ids = ranked[0][0] if ranked else []
        best = _trace_from_sequence(model, src, memory, enc_w, src_mask, best_ids, bos, top_k)
        return BeamTrace(best=best, beams=beams, finished=ranked, beam_width=beam_width,
                         length_penalty=length_penalty)


@dataclass
class GenerationStep:
    """One new token of :func:`generate` at ``position`` (0-based in the whole sequence).

    ``top_ids``/``top_probs``: the model's most probable next tokens under softmax(logits);
    ``sampling_probs``: the probability of the same ids in the distribution actually sampled
    (after temperature and top-k filtering); ``prob``: that probability for the chosen token.
    ``attention`` (layers, heads, t): the last input position's causal row over every token
    so far (prompt included) — the row that produced this token's logits.
    """

    position: int
    token_id: int
    prob: float
    top_ids: np.ndarray
    top_probs: np.ndarray
    sampling_probs: np.ndarray
    attention: np.ndarray


@dataclass
class GenerationTrace:
    """Prompt, generated ids, one :class:`GenerationStep` per new token, and the causal
    self-attention of the whole final sequence (layers, heads, T, T) (its last row is the
    input of no step: no token was drawn from it)."""

    prompt_ids: list[int]
    generated_ids: list[int]
    steps: list[GenerationStep]
    attention: np.ndarray
    seed: int | None
    temperature: float
    top_k: int | None

    @property
    def ids(self) -> list[int]:
        return self.prompt_ids + self.generated_ids


@torch.inference_mode()
def generate(
    lm: DecoderOnlyLM, prompt_ids: Sequence[int] | Tensor, max_new: int = 20, temperature: float = 1.0,
    top_k: int | None = None, seed: int | None = None, stop_at_eos: bool = True, n_candidates: int = 10,
) -> GenerationTrace:
    """Sample x_t ~ softmax(logits / T) restricted to the ``top_k`` most probable tokens
    (``top_k=1`` or ``temperature=0`` is greedy and deterministic), with a ``seed``ed generator.

    Stops after ``max_new`` tokens, at EOS (if ``stop_at_eos``), or at ``config.max_len``.
    """
    c = lm.config
    device = next(lm.parameters()).device
    ids = _as_ids(prompt_ids, device)
    if ids.shape[1] == 0:
        ids = torch.tensor([[c.bos_id]], dtype=torch.long, device=device)
    if ids.shape[1] > c.max_len:
        raise ValueError(f"prompt of {ids.shape[1]} tokens is longer than max_len={c.max_len}")
    prompt = [int(i) for i in ids[0].tolist()]
    gen = torch.Generator(device=device)
    if seed is not None:
        gen.manual_seed(seed)
    else:
        gen.seed()
    steps: list[GenerationStep] = []
    with _EvalMode(lm):
        for _ in range(max_new):
            if ids.shape[1] >= c.max_len:
                break
            out = lm.run(ids)
            logits = out.logits[0, -1].float()
            model_probs = torch.softmax(logits, dim=-1)
            if temperature <= 0 or top_k == 1:  # greedy: all mass on the argmax
                tok = int(logits.argmax())
                probs = torch.zeros_like(logits)
                probs[tok] = 1.0
            else:
                scaled = logits / temperature
                if top_k is not None and top_k < scaled.numel():
                    kth = scaled.topk(top_k).values[-1]
                    scaled = scaled.masked_fill(scaled < kth, float("-inf"))
                probs = torch.softmax(scaled, dim=-1)
                tok = int(torch.multinomial(probs, 1, generator=gen))
            top_p, top_ix = model_probs.topk(min(n_candidates, model_probs.numel()))
            steps.append(GenerationStep(
                position=ids.shape[1], token_id=tok, prob=float(probs[tok]),
                top_ids=_np(top_ix).astype(np.int64), top_probs=_np(top_p),
                sampling_probs=_np(probs[top_ix]), attention=_np(out.attention[0, :, :, -1, :]),
            ))
            ids = torch.cat([ids, torch.tensor([[tok]], device=device)], dim=1)
            if stop_at_eos and tok == c.eos_id:
                break
        final = _np(lm.run(ids).attention[0])
    return GenerationTrace(
        prompt_ids=prompt, generated_ids=[s.token_id for s in steps], steps=steps, attention=final,
        seed=seed, temperature=temperature, top_k=top_k,
    )



# --------------------------------------------------------------------------------------
# Batched greedy decoding (evaluation: ids only, no attention kept)
# --------------------------------------------------------------------------------------

@torch.inference_mode()
def greedy_batch(
    model: Transformer, src_batch: Sequence[Sequence[int]], max_len: int | None = None,
) -> list[list[int]]:
    """Greedy decoding of many sources at once (right-padded); per source the output ids up
    to and including EOS (or ``max_len`` ids, default 2·|longest source| + 10)."""
    c = model.config
    device = next(model.parameters()).device
    if not src_batch:
        return []
    width = max(1, max(len(s) for s in src_batch))
    src = torch.full((len(src_batch), width), c.pad_id, dtype=torch.long)
    for i, s in enumerate(src_batch):
        src[i, : len(s)] = torch.as_tensor(list(s), dtype=torch.long)
    src = src.to(device)
    limit = min(c.max_len - 1, max_len if max_len is not None else 2 * width + 10)
    with _EvalMode(model):
        src_mask = model.source_mask(src)
        memory, _ = model.encode(src, src_mask)
        ys = torch.full((len(src_batch), 1), c.bos_id, dtype=torch.long, device=device)
        done = torch.zeros(len(src_batch), dtype=torch.bool, device=device)
        for _ in range(limit):
            hidden, _, _ = model.decode(ys, memory, src_mask)
            nxt = model.generator(hidden[:, -1]).argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, c.pad_id), nxt)
            ys = torch.cat([ys, nxt.unsqueeze(1)], dim=1)
            done |= nxt == c.eos_id
            if bool(done.all()):
                break
    out = []
    for row in ys[:, 1:].tolist():
        end = row.index(c.eos_id) + 1 if c.eos_id in row else len(row)
        out.append([int(t) for t in row[:end] if t != c.pad_id])
    return out


# --------------------------------------------------------------------------------------
# Inside one head: QKᵀ → ÷√d_k → + mask → softmax → ·V for one query, as numbers
# --------------------------------------------------------------------------------------

#: Which attention a walkthrough opens: encoder self, masked decoder self, cross (encoder–
#: decoder), or the causal self-attention of a decoder-only LM.
ATTENTION_KINDS = ("encoder", "decoder", "cross", "lm")


@dataclass
class HeadWalkthrough:
    """Every intermediate of one head for one query position, as the model computed it.

    ``q`` (d_k,) = (x W^Q)[query, head]; ``keys``/``values`` (S, d_k) the head's rows of
    x' W^K and x' W^V; ``scores`` = K q; ``scaled`` = scores / √d_k; ``allowed`` (S,) the mask
    row (True = may attend); ``masked`` = scaled with −∞ where not allowed; ``weights`` =
    softmax(masked); ``output`` (d_k,) = weights · V, this head's slice of the concatenation
    before W^O. ``unscaled_weights``/``unscaled_output``: the same without ÷√d_k (what the
    softmax would do with raw dot products). ``model_weights``: the row the model itself
    returned — equal to ``weights`` up to float rounding.
    """

    kind: str
    layer: int
    head: int
    query_index: int
    d_k: int
    q: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    scaled: np.ndarray
    allowed: np.ndarray
    masked: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    unscaled_weights: np.ndarray
    unscaled_output: np.ndarray
    model_weights: np.ndarray

    @property
    def scale(self) -> float:
        return math.sqrt(self.d_k)


def _softmax_np(x: np.ndarray) -> np.ndarray:
    finite = np.isfinite(x)
    if not finite.any():
        return np.zeros_like(x)
    e = np.where(finite, np.exp(np.where(finite, x, 0.0) - x[finite].max()), 0.0)
    return (e / e.sum()).astype(np.float32)


@torch.inference_mode()
def head_walkthrough(
    model: Transformer | DecoderOnlyLM, kind: str, layer: int, head: int, query_index: int,
    src_ids: Sequence[int] | None = None, tgt_ids: Sequence[int] | None = None,
) -> HeadWalkthrough:
    """Recompute one head of one attention sub-layer for one query, step by step.

    ``kind`` in :data:`ATTENTION_KINDS`. For a :class:`Transformer` give ``src_ids`` and the
    decoder input ``tgt_ids`` (BOS + outputs so far); for a :class:`DecoderOnlyLM` (kind
    "lm") the sequence as ``tgt_ids``. The sub-layer's real inputs (after LayerNorm when
    pre-norm) are captured by a forward hook during one teacher-forced pass.
    """
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"kind must be one of {ATTENTION_KINDS}, not {kind!r}")
    if isinstance(model, DecoderOnlyLM):
        if kind != "lm":
            raise ValueError("a decoder-only LM has only causal self-attention: kind='lm'")
        layers = model.decoder.layers
        module = layers[layer].self_attn
    else:
        if kind == "lm":
            raise ValueError("kind='lm' needs a DecoderOnlyLM")
        if kind == "encoder":
            module = model.encoder.layers[layer].self_attn
        elif kind == "decoder":
            module = model.decoder.layers[layer].self_attn
        else:
            module = model.decoder.layers[layer].cross_attn
    if not 0 <= head < module.n_heads:
        raise ValueError(f"head {head} out of range (0 … {module.n_heads - 1})")
    captured: dict[str, Any] = {}
    me = threading.get_ident()

    def hook(_mod: nn.Module, args: tuple[Any, ...], out: tuple[Tensor, Tensor]) -> None:
        # A model shared between sessions may run in other threads while the hook is on:
        # only this call's own forward pass is captured.
        if threading.get_ident() == me:
            captured["args"] = args
            captured["weights"] = out[1]

    device = next(model.parameters()).device
    handle = module.register_forward_hook(hook)
    try:
        with _EvalMode(model):
            if isinstance(model, DecoderOnlyLM):
                model.run(_as_ids(list(tgt_ids or []), device))
            else:
                model.run(_as_ids(list(src_ids or []), device), _as_ids(list(tgt_ids or []), device))
    finally:
        handle.remove()
    query, key, value, mask = captured["args"]
    n_queries = query.shape[1]
    if not 0 <= query_index < n_queries:
        raise ValueError(f"query {query_index} out of range (0 … {n_queries - 1})")
    d_k = module.d_k
    rows = slice(head * d_k, (head + 1) * d_k)
    q = module.w_q(query)[0, query_index, rows]
    k = module.w_k(key)[0, :, rows]
    v = module.w_v(value)[0, :, rows]
    scores = k @ q
    n_keys = k.shape[0]
    if mask is None:
        allowed = torch.ones(n_keys, dtype=torch.bool)
    else:
        m = mask
        while m.dim() < 4:
            m = m.unsqueeze(0) if m.dim() < 3 else m.unsqueeze(1)
        allowed = m.expand(1, module.n_heads, n_queries, n_keys)[0, head, query_index]
    scores_np = _np(scores)
    scaled = scores_np / np.float32(math.sqrt(d_k))
    allowed_np = allowed.cpu().numpy().astype(bool)
    masked = np.where(allowed_np, scaled, -np.inf).astype(np.float32)
    weights = _softmax_np(masked)
    unscaled = _softmax_np(np.where(allowed_np, scores_np, -np.inf).astype(np.float32))
    v_np = _np(v)
    return HeadWalkthrough(
        kind=kind, layer=layer, head=head, query_index=query_index, d_k=d_k, q=_np(q), keys=_np(k),
        values=v_np, scores=scores_np, scaled=scaled.astype(np.float32), allowed=allowed_np, masked=masked,
        weights=weights, output=(weights @ v_np).astype(np.float32), unscaled_weights=unscaled,
        unscaled_output=(unscaled @ v_np).astype(np.float32),
        model_weights=_np(captured["weights"][0, head, query_index]),
    )
