"""A small BERT (Devlin et al. 2019, "BERT: Pre-training of Deep Bidirectional Transformers").

* Input representation (§3, Fig. 2): E = E_token[x_i] + E_segment[s_i] + E_position[i], then
  LayerNorm and dropout; positions are *learned* embeddings (not sinusoids), segments A = 0, B = 1.
* Encoder: N Transformer encoder blocks, reused from :mod:`models.nn.transformer` (post-norm,
  GELU feed-forward, as in BERT), bidirectional self-attention with only a padding mask.
* Masked-LM head (Appendix A.1, as in the released code): h' = LN(GELU(W h + b)),
  logits = h' E_tokenᵀ + b_vocab — the output matrix is *tied* to the token embeddings.
* Next-sentence head (§3.1 "Task #2"): pooled = tanh(W_p h_[CLS] + b_p), logits = W_nsp pooled;
  class 0 = IsNext, 1 = NotNext (the convention of the released model).
* Fine-tuning heads (§4, Fig. 4): sentence classification softmax(W_c pooled), token tagging
  softmax(W_t h_i) at every position, and answer spans (§4.2, SQuAD): start score S·h_i, end
  score E·h_j, best span argmax_{i ≤ j} S·h_i + E·h_j.
* Real weights: :func:`config_from_hf` and :func:`state_dict_from_hf` map a Hugging Face
  ``BertModel`` (e.g. the installed MiniLM-L6) onto :class:`SmallBert`, name by name; the two
  then compute the same hidden states and attention (``tests/test_fill_mask.py``).

:func:`models.inference.bert.run_bert` runs it on one input and returns a trace; the
checkpoint format is in :mod:`models.checkpoints`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.nn.config import JsonConfig

from models.nn.transformer import Encoder, padding_mask

__all__ = [
    "BertConfig",
    "BertEmbeddings",
    "MaskedLMHead",
    "BertOutput",
    "SmallBert",
    "NSP_LABELS",
    "config_from_hf",
    "state_dict_from_hf",
]

NSP_LABELS = ("IsNext", "NotNext")


@dataclass
class BertConfig(JsonConfig):
    """Hyper-parameters of :class:`SmallBert` (JSON-able). Special ids follow :mod:`models.text.wordpiece`.

    ``class_labels``/``tag_labels`` name the outputs of the fine-tuning heads;
    ``trained_heads`` lists which of "mlm", "nsp", "classifier", "tagger", "span" were trained.
    ``norm_eps`` is the encoder blocks' LayerNorm ε: torch's 1e-5 for the models trained here,
    BERT's 1e-12 for released weights (the embedding and MLM-head LayerNorms always use 1e-12).
    """

    vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 3
    d_ff: int = 512
    max_len: int = 64
    type_vocab_size: int = 2
    dropout: float = 0.1
    norm_first: bool = False
    pad_id: int = 0
    mask_id: int = 4
    class_labels: list[str] = field(default_factory=lambda: ["class 0", "class 1"])
    tag_labels: list[str] = field(default_factory=lambda: ["tag 0", "tag 1"])
    class_task: str = "sentence classification (not trained)"
    tag_task: str = "token tagging (not trained)"
    trained_heads: list[str] = field(default_factory=list)
    init_std: float = 0.02
    norm_eps: float = 1e-5


class BertEmbeddings(nn.Module):
    """E = LN(E_token[x] + E_segment[s] + E_position[i]) with dropout (§3, Fig. 2)."""

    def __init__(self, c: BertConfig) -> None:
        super().__init__()
        self.tokens = nn.Embedding(c.vocab_size, c.d_model, padding_idx=c.pad_id)
        self.segments = nn.Embedding(c.type_vocab_size, c.d_model)
        self.positions = nn.Embedding(c.max_len, c.d_model)
        self.norm = nn.LayerNorm(c.d_model, eps=1e-12)
        self.dropout = nn.Dropout(c.dropout)

    def parts(self, ids: Tensor, segments: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(token, segment, position) embeddings, each (B, L, d)."""
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0).expand_as(ids)
        return self.tokens(ids), self.segments(segments), self.positions(pos)

    def forward(self, ids: Tensor, segments: Tensor) -> Tensor:
        tok, seg, pos = self.parts(ids, segments)
        return self.dropout(self.norm(tok + seg + pos))


class MaskedLMHead(nn.Module):
    """logits = LN(GELU(W h + b)) E_tokenᵀ + b_vocab, the output matrix tied to the token embeddings."""

    def __init__(self, c: BertConfig, token_embedding: nn.Embedding) -> None:
        super().__init__()
        self.dense = nn.Linear(c.d_model, c.d_model)
        self.norm = nn.LayerNorm(c.d_model, eps=1e-12)
        self.decoder = nn.Linear(c.d_model, c.vocab_size)
        self.decoder.weight = token_embedding.weight  # tied (Press & Wolf 2017)

    def forward(self, hidden: Tensor) -> Tensor:
        return self.decoder(self.norm(F.gelu(self.dense(hidden))))


@dataclass
class BertOutput:
    """One forward pass: hidden states (B, L, d), pooled [CLS] (B, d), NSP logits (B, 2) and
    self-attention stacked over layers (B, N, h, L, L)."""

    hidden: Tensor
    pooled: Tensor
    nsp_logits: Tensor
    attention: Tensor


class SmallBert(nn.Module):
    """Embeddings → encoder blocks of :mod:`models.nn.transformer` → MLM, NSP and fine-tuning heads."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        c = self.config = config
        self.embeddings = BertEmbeddings(c)
        self.encoder = Encoder(
            c.n_layers,
            c.d_model,
            c.n_heads,
            c.d_ff,
            c.dropout,
            norm_first=c.norm_first,
            activation="gelu",
            norm_eps=c.norm_eps,
        )
        self.pooler = nn.Linear(c.d_model, c.d_model)
        self.mlm = MaskedLMHead(c, self.embeddings.tokens)
        self.nsp = nn.Linear(c.d_model, 2)
        # Fine-tuning heads (§4): trained or not, as config.trained_heads says.
        self.classifier = nn.Linear(c.d_model, len(c.class_labels))
        self.tagger = nn.Linear(c.d_model, len(c.tag_labels))
        self.span = nn.Linear(c.d_model, 2)
        self._init(c.init_std)

    @torch.no_grad()
    def _init(self, std: float) -> None:
        """BERT's initialisation: weights ~ N(0, 0.02²), biases 0, LayerNorm γ = 1, β = 0."""
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                m.weight.normal_(0.0, std)
            if isinstance(m, nn.Linear) and m.bias is not None:
                m.bias.zero_()
            if isinstance(m, nn.Embedding) and m.padding_idx is not None:
                m.weight[m.padding_idx].zero_()

    def encode(self, ids: Tensor, segments: Tensor) -> tuple[Tensor, list[Tensor]]:
        """Hidden states (B, L, d) and the per-layer attention [(B, h, L, L)]; [PAD] keys are masked."""
        return self.encoder(self.embeddings(ids, segments), padding_mask(ids, self.config.pad_id))

    def pool(self, hidden: Tensor) -> Tensor:
        """tanh(W_p h_[CLS] + b_p), the sentence representation of the NSP and classification heads."""
        return torch.tanh(self.pooler(hidden[:, 0]))

    def forward(self, ids: Tensor, segments: Tensor) -> BertOutput:
        hidden, weights = self.encode(ids, segments)
        pooled = self.pool(hidden)
        return BertOutput(hidden, pooled, self.nsp(pooled), torch.stack(weights, 1))

    def mlm_logits(self, hidden: Tensor) -> Tensor:
        """Vocabulary logits for hidden states (…, d) → (…, V); pass only the chosen positions when training."""
        return self.mlm(hidden)


# --------------------------------------------------------------------------------------
# Hugging Face BertModel → SmallBert
# --------------------------------------------------------------------------------------

#: SmallBert name ← Hugging Face BertModel name, outside the encoder layers.
_HF_TOP = {
    "embeddings.tokens": "embeddings.word_embeddings",
    "embeddings.segments": "embeddings.token_type_embeddings",
    "embeddings.positions": "embeddings.position_embeddings",
    "embeddings.norm": "embeddings.LayerNorm",
    "pooler": "pooler.dense",
}
#: SmallBert name ← Hugging Face name inside encoder layer i (post-norm, as BERT).
_HF_LAYER = {
    "self_attn.w_q": "attention.self.query",
    "self_attn.w_k": "attention.self.key",
    "self_attn.w_v": "attention.self.value",
    "self_attn.w_o": "attention.output.dense",
    "sub_attn.norm": "attention.output.LayerNorm",
    "feed_forward.w_1": "intermediate.dense",
    "feed_forward.w_2": "output.dense",
    "sub_ff.norm": "output.LayerNorm",
}


def config_from_hf(hf: Mapping[str, Any], **overrides: Any) -> BertConfig:
    """The :class:`BertConfig` of a Hugging Face BERT ``config.json`` (GELU, post-norm, absolute positions).

    ``overrides`` set the other fields (``max_len`` below the model's 512 positions keeps that many,
    ``mask_id``, ``trained_heads`` …)."""
    if (
        hf.get("model_type") != "bert"
        or hf.get("hidden_act", "gelu") != "gelu"
        or hf.get("position_embedding_type", "absolute") != "absolute"
    ):
        raise ValueError("not a BERT config with GELU and absolute positions")
    config = BertConfig(
        vocab_size=int(hf["vocab_size"]),
        d_model=int(hf["hidden_size"]),
        n_heads=int(hf["num_attention_heads"]),
        n_layers=int(hf["num_hidden_layers"]),
        d_ff=int(hf["intermediate_size"]),
        max_len=int(hf["max_position_embeddings"]),
        type_vocab_size=int(hf["type_vocab_size"]),
        dropout=float(hf.get("hidden_dropout_prob", 0.1)),
        pad_id=int(hf.get("pad_token_id", 0)),
        norm_eps=float(hf["layer_norm_eps"]),
        init_std=float(hf.get("initializer_range", 0.02)),
    )
    config = replace(config, **overrides)
    if config.max_len > int(hf["max_position_embeddings"]):
        raise ValueError(f"max_len {config.max_len} > the model's {hf['max_position_embeddings']} positions")
    return config


def state_dict_from_hf(hf_state: Mapping[str, Tensor], config: BertConfig) -> dict[str, Tensor]:
    """SmallBert's embeddings, encoder and pooler from a Hugging Face ``BertModel`` state dict
    (names with or without the ``bert.`` prefix of ``BertFor…`` models); the position table is cut
    to ``config.max_len``. The heads are not in a ``BertModel`` and are left out."""
    state = {k.removeprefix("bert."): v for k, v in hf_state.items()}
    names = dict(_HF_TOP)
    for i in range(config.n_layers):
        names.update(
            {f"encoder.layers.{i}.{ours}": f"encoder.layer.{i}.{theirs}" for ours, theirs in _HF_LAYER.items()}
        )
    out: dict[str, Tensor] = {}
    for ours, theirs in names.items():
        for part in ("weight", "bias"):
            key = f"{theirs}.{part}"
            if key in state:
                out[f"{ours}.{part}"] = state[key]
            elif not ours.startswith("embeddings.") or part == "weight":
                raise KeyError(f"missing weight {key}")
    out["embeddings.positions.weight"] = out["embeddings.positions.weight"][: config.max_len]
    return out
