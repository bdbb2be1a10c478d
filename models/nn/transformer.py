"""The Transformer (Vaswani et al. 2017, "Attention Is All You Need"), written out.

* Multi-head attention (§3.2.2): headᵢ = softmax(Q Wᵢ^Q (K Wᵢ^K)ᵀ / √d_k + mask) V Wᵢ^V,
  MultiHead(Q, K, V) = Concat(head₁, …, head_h) W^O, every head's weights returned.
* Encoder–decoder (§3.1): embeddings × √d_model (§3.4) + sinusoidal positions (§3.5),
  N blocks of [self-attention, (cross-attention,) position-wise FFN (§3.3)], each sub-layer
  wrapped in dropout + residual + LayerNorm, post-norm ``LN(x + Sublayer(x))`` as in the paper
  or pre-norm ``x + Sublayer(LN(x))`` (Xiong et al. 2020) with ``norm_first=True``.
* A decoder-only language model from the same decoder blocks without cross-attention.
* Label-smoothed cross-entropy (§5.4, Szegedy et al. 2016).

Decoding, sampling and the one-head walkthrough that run these modules live in
:mod:`models.inference.transformer` and :mod:`models.inference.head`.

Mask convention (the same as ``models.nn.attention``): a bool tensor that is **True where
attending is allowed**; masks given to the layers broadcast to (B, L, S) (or (B, h, L, S)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.nn.config import JsonConfig

from models.nn.attention import scaled_dot_product_attention
from models.nn.positional import PositionalEncoding

__all__ = [
    "subsequent_mask",
    "padding_mask",
    "MultiHeadAttention",
    "PositionwiseFeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "Encoder",
    "Decoder",
    "TransformerConfig",
    "Transformer",
    "TransformerOutput",
    "DecoderOnlyLM",
    "LMOutput",
    "HeadMask",
    "label_smoothed_cross_entropy",
    "as_attention",
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

    ``head_mask`` (h,) gates each head's output before W^O (Michel et al. 2019, "Are Sixteen
    Heads Really Better than One?"): Concat(ξ₁·head₁, …, ξ_h·head_h) W^O, with ξᵢ = 0 switching
    head i off; None changes nothing.
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
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        mask: Tensor | None = None,
        head_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """``query`` (B, L, d), ``key``/``value`` (B, S, d); ``mask`` broadcastable to (B, L, S)
        (or (B, h, L, S)), True = may attend; ``head_mask`` (h,) the gates ξ. Returns
        (output (B, L, d), weights (B, h, L, S))."""
        q = self._split(self.w_q(query))
        k = self._split(self.w_k(key))
        v = self._split(self.w_v(value))
        heads, weights = scaled_dot_product_attention(q, k, v, _expand_heads(mask))
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v
        if head_mask is not None:
            heads = heads * head_mask.to(heads.dtype).view(1, self.n_heads, 1, 1)
        b, _, n, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(b, n, self.d_model)
        return self.w_o(concat), weights


def as_attention(module: object) -> MultiHeadAttention:
    """A layer's ``self_attn`` or ``cross_attn`` as the :class:`MultiHeadAttention` it is (``nn.ModuleList``
    gives its layers as plain modules); ValueError for a layer without that sub-layer."""
    if not isinstance(module, MultiHeadAttention):
        raise ValueError(f"no multi-head attention here (found {type(module).__name__})")
    return module


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


class Residual(nn.Module):
    """Dropout + residual + LayerNorm around a sub-layer.

    post-norm (paper): LN(x + Dropout(Sublayer(x))); pre-norm: x + Dropout(Sublayer(LN(x))).
    ``norm_eps`` is LayerNorm's ε (torch's 1e-5 by default; BERT's released models use 1e-12).
    """

    def __init__(self, d_model: int, dropout: float, norm_first: bool, norm_eps: float = 1e-5) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model, eps=norm_eps)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def pre(self, x: Tensor) -> Tensor:
        """What the sub-layer reads: LN(x) for pre-norm, x for post-norm."""
        return self.norm(x) if self.norm_first else x

    def post(self, x: Tensor, sublayer_out: Tensor) -> Tensor:
        y = x + self.dropout(sublayer_out)
        return y if self.norm_first else self.norm(y)


class EncoderLayer(nn.Module):
    """Self-attention then FFN, each wrapped by :class:`Residual` (§3.1)."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        norm_first: bool = False,
        activation: str = "relu",
        norm_eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.sub_attn = Residual(d_model, dropout, norm_first, norm_eps)
        self.sub_ff = Residual(d_model, dropout, norm_first, norm_eps)

    def forward(self, x: Tensor, mask: Tensor | None = None, head_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``x`` (B, S, d), ``mask`` broadcastable to (B, S, S), ``head_mask`` (h,) the heads' gates.
        Returns (x, weights (B, h, S, S))."""
        h = self.sub_attn.pre(x)
        attn_out, weights = self.self_attn(h, h, h, mask, head_mask=head_mask)
        x = self.sub_attn.post(x, attn_out)
        x = self.sub_ff.post(x, self.feed_forward(self.sub_ff.pre(x)))
        return x, weights


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder memory (omitted when
    ``cross_attention=False``, as in a decoder-only LM), then FFN (§3.1)."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        norm_first: bool = False,
        activation: str = "relu",
        cross_attention: bool = True,
    ) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)
        self.sub_self = Residual(d_model, dropout, norm_first)
        self.cross_attn: MultiHeadAttention | None = None
        self.sub_cross: Residual | None = None
        if cross_attention:
            self.cross_attn = MultiHeadAttention(d_model, n_heads, dropout)
            self.sub_cross = Residual(d_model, dropout, norm_first)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout, activation)
        self.sub_ff = Residual(d_model, dropout, norm_first)

    def forward(
        self,
        x: Tensor,
        memory: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        self_head_mask: Tensor | None = None,
        cross_head_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """``x`` (B, T, d); ``memory`` (B, S, d) or None without cross-attention;
        ``tgt_mask`` broadcastable to (B, T, T) (include :func:`subsequent_mask`!),
        ``memory_mask`` to (B, T, S); ``*_head_mask`` (h,) the gates of the two attentions' heads.
        Returns (x, self weights (B, h, T, T), cross weights (B, h, T, S) or None)."""
        h = self.sub_self.pre(x)
        attn_out, self_w = self.self_attn(h, h, h, tgt_mask, head_mask=self_head_mask)
        x = self.sub_self.post(x, attn_out)
        cross_w = None
        if self.cross_attn is not None and self.sub_cross is not None:
            if memory is None:
                raise ValueError("this DecoderLayer has cross-attention and needs `memory`")
            cross_out, cross_w = self.cross_attn(
                self.sub_cross.pre(x), memory, memory, memory_mask, head_mask=cross_head_mask
            )
            x = self.sub_cross.post(x, cross_out)
        x = self.sub_ff.post(x, self.feed_forward(self.sub_ff.pre(x)))
        return x, self_w, cross_w


def _row(head_mask: Tensor | None, layer: int) -> Tensor | None:
    """Layer ``layer``'s gates (h,) of an (N, h) head mask, or None."""
    return None if head_mask is None else head_mask[layer]


class Encoder(nn.Module):
    """N encoder layers over already-embedded input; a final LayerNorm when pre-norm.
    ``norm_eps``: every LayerNorm's ε (1e-5, torch's default; 1e-12 for BERT's released weights)."""

    def __init__(
        self,
        n_layers: int,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        norm_first: bool = False,
        activation: str = "relu",
        norm_eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, n_heads, d_ff, dropout, norm_first, activation, norm_eps) for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model, eps=norm_eps) if norm_first else nn.Identity()

    def forward(
        self, x: Tensor, mask: Tensor | None = None, head_mask: Tensor | None = None
    ) -> tuple[Tensor, list[Tensor]]:
        """``head_mask`` (N, h): the gates of every layer's heads. Returns (memory (B, S, d),
        per-layer self-attention weights [(B, h, S, S)])."""
        weights = []
        for i, layer in enumerate(self.layers):
            x, w = layer(x, mask, _row(head_mask, i))
            weights.append(w)
        return self.norm(x), weights


class Decoder(nn.Module):
    """N decoder layers over already-embedded input; a final LayerNorm when pre-norm."""

    def __init__(
        self,
        n_layers: int,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        norm_first: bool = False,
        activation: str = "relu",
        cross_attention: bool = True,
    ) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            DecoderLayer(d_model, n_heads, d_ff, dropout, norm_first, activation, cross_attention)
            for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

    def forward(
        self,
        x: Tensor,
        memory: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        self_head_mask: Tensor | None = None,
        cross_head_mask: Tensor | None = None,
    ) -> tuple[Tensor, list[Tensor], list[Tensor | None]]:
        """``*_head_mask`` (N, h): the gates of every layer's heads. Returns (hidden (B, T, d),
        self weights [(B, h, T, T)], cross weights [(B, h, T, S) | None])."""
        self_ws: list[Tensor] = []
        cross_ws: list[Tensor | None] = []
        for i, layer in enumerate(self.layers):
            x, sw, cw = layer(x, memory, tgt_mask, memory_mask, _row(self_head_mask, i), _row(cross_head_mask, i))
            self_ws.append(sw)
            cross_ws.append(cw)
        return self.norm(x), self_ws, cross_ws


# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------


@dataclass
class TransformerConfig(JsonConfig):
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


@torch.no_grad()
def init_xavier(module: nn.Module) -> None:
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


def _decoder(c: TransformerConfig, cross_attention: bool) -> Decoder:
    return Decoder(
        c.num_decoder_layers,
        c.d_model,
        c.n_heads,
        c.d_ff,
        c.dropout,
        c.norm_first,
        c.activation,
        cross_attention=cross_attention,
    )


def _generator(model: nn.Module, c: TransformerConfig, embedding: _Embedding) -> nn.Linear:
    """The output layer h W_out + b: Glorot-initialise ``model`` (its other modules already built),
    then tie W_out to the decoder's token embedding when ``c.tie_embeddings`` (Press & Wolf 2017)."""
    generator = nn.Linear(c.d_model, c.vocab_size)
    model.generator = generator
    init_xavier(model)
    if c.tie_embeddings:
        generator.weight = embedding.tokens.weight
    return generator


@dataclass(frozen=True)
class HeadMask:
    """Head gates ξ of an encoder–decoder (Michel et al. 2019), one (N, h) tensor per attention
    site — 1 keeps a head, 0 zeroes its output before W^O; None leaves that site untouched."""

    encoder: Tensor | None = None
    decoder: Tensor | None = None
    cross: Tensor | None = None

    @classmethod
    def one_head_off(cls, config: TransformerConfig, site: str, layer: int, head: int) -> HeadMask:
        """Every head on but ``head`` of ``layer`` in attention ``site`` (encoder | decoder | cross)."""
        if site not in ("encoder", "decoder", "cross"):
            raise ValueError(f"site must be 'encoder', 'decoder' or 'cross', not {site!r}")
        n_layers = config.num_encoder_layers if site == "encoder" else config.num_decoder_layers
        if not (0 <= layer < n_layers and 0 <= head < config.n_heads):
            raise ValueError(f"no head {head} in layer {layer} of the {site} attention")
        gates = torch.ones(n_layers, config.n_heads)
        gates[layer, head] = 0.0
        return cls(**{site: gates})


@dataclass
class TransformerOutput:
    """Logits and every attention weight of one forward pass; attention tensors are
    stacked over layers: encoder (B, N_enc, h, S, S), decoder self (B, N_dec, h, T, T),
    cross (B, N_dec, h, T, S)."""

    logits: Tensor
    encoder_attention: Tensor
    decoder_self_attention: Tensor
    cross_attention: Tensor


def _gates(head_mask: HeadMask | None, site: str, device: torch.device) -> Tensor | None:
    """The (N, h) gates of attention ``site`` on ``device``, or None."""
    gates = None if head_mask is None else getattr(head_mask, site)
    return None if gates is None else gates.to(device)


class Transformer(nn.Module):
    """Encoder–decoder Transformer (§3). ``forward(src, tgt_in)`` gives logits (B, T, V)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = self.config = config
        self.src_embed = _Embedding(c.source_vocab_size, c.d_model, c.max_len, c.dropout, c.pad_id)
        self.tgt_embed = _Embedding(c.vocab_size, c.d_model, c.max_len, c.dropout, c.pad_id)
        self.encoder = Encoder(
            c.num_encoder_layers, c.d_model, c.n_heads, c.d_ff, c.dropout, c.norm_first, c.activation
        )
        self.decoder = _decoder(c, cross_attention=True)
        self.generator = _generator(self, c, self.tgt_embed)

    def source_mask(self, src: Tensor) -> Tensor:
        """(B, 1, S): True at non-padding source tokens."""
        return padding_mask(src, self.config.pad_id)

    def target_mask(self, tgt: Tensor) -> Tensor:
        """(B, T, T): padding mask & look-ahead mask."""
        return padding_mask(tgt, self.config.pad_id) & subsequent_mask(tgt.shape[1], tgt.device)

    def encode(
        self, src: Tensor, src_mask: Tensor | None = None, head_mask: HeadMask | None = None
    ) -> tuple[Tensor, list[Tensor]]:
        """(memory (B, S, d), encoder self-attention per layer). ``src_mask`` defaults to padding;
        ``head_mask`` switches heads off (its ``encoder`` gates)."""
        if src_mask is None:
            src_mask = self.source_mask(src)
        return self.encoder(self.src_embed(src), src_mask, _gates(head_mask, "encoder", src.device))

    def decode(
        self,
        tgt: Tensor,
        memory: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        head_mask: HeadMask | None = None,
    ) -> tuple[Tensor, list[Tensor], list[Tensor | None]]:
        """Decoder hidden states (B, T, d) and its attention; ``tgt_mask`` defaults to
        :meth:`target_mask`, ``src_mask`` (B, 1, S) to attending every memory position;
        ``head_mask`` switches heads off (its ``decoder`` and ``cross`` gates)."""
        if tgt_mask is None:
            tgt_mask = self.target_mask(tgt)
        return self.decoder(
            self.tgt_embed(tgt),
            memory,
            tgt_mask,
            src_mask,
            _gates(head_mask, "decoder", tgt.device),
            _gates(head_mask, "cross", tgt.device),
        )

    def run(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        head_mask: HeadMask | None = None,
    ) -> TransformerOutput:
        """Teacher-forced pass keeping every attention weight (``head_mask``: heads switched off)."""
        if src_mask is None:
            src_mask = self.source_mask(src)
        memory, enc_w = self.encode(src, src_mask, head_mask)
        hidden, self_w, cross_w = self.decode(tgt, memory, src_mask, tgt_mask, head_mask)
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
        self.decoder = _decoder(c, cross_attention=False)
        self.generator = _generator(self, c, self.embed)

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
    logits: Tensor,
    target: Tensor,
    epsilon: float = 0.1,
    ignore_index: int = -100,
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
