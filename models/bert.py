"""A small BERT (Devlin et al. 2019, "BERT: Pre-training of Deep Bidirectional Transformers").

* Input representation (§3, Fig. 2): E = E_token[x_i] + E_segment[s_i] + E_position[i], then
  LayerNorm and dropout; positions are *learned* embeddings (not sinusoids), segments A = 0, B = 1.
* Encoder: N Transformer encoder blocks, reused from :mod:`models.transformer` (post-norm,
  GELU feed-forward, as in BERT), bidirectional self-attention with only a padding mask.
* Masked-LM head (Appendix A.1, as in the released code): h' = LN(GELU(W h + b)),
  logits = h' E_tokenᵀ + b_vocab — the output matrix is *tied* to the token embeddings.
* Next-sentence head (§3.1 "Task #2"): pooled = tanh(W_p h_[CLS] + b_p), logits = W_nsp pooled;
  class 0 = IsNext, 1 = NotNext (the convention of the released model).
* Fine-tuning heads (§4, Fig. 4): sentence classification softmax(W_c pooled), token tagging
  softmax(W_t h_i) at every position, and answer spans (§4.2, SQuAD): start score S·h_i, end
  score E·h_j, best span argmax_{i ≤ j} S·h_i + E·h_j.

:func:`run_bert` returns a :class:`BertTrace` of numpy arrays (every layer and head's
attention, the three embedding parts, top-k predictions); tensors do not leave ``models/``.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.transformer import Encoder, padding_mask

__all__ = [
    "BertConfig", "BertEmbeddings", "MaskedLMHead", "BertOutput", "SmallBert", "BertTrace", "run_bert",
    "best_span", "LoadedBert", "save_bert", "load_bert", "NSP_LABELS",
]

NSP_LABELS = ("IsNext", "NotNext")


@dataclass
class BertConfig:
    """Hyper-parameters of :class:`SmallBert` (JSON-able). Special ids follow :mod:`models.wordpiece`.

    ``class_labels``/``tag_labels`` name the outputs of the fine-tuning heads;
    ``trained_heads`` lists which of "mlm", "nsp", "classifier", "tagger", "span" were trained.
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

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BertConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown BertConfig keys: {sorted(unknown)}")
        return cls(**data)


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
    """Embeddings → encoder blocks of :mod:`models.transformer` → MLM, NSP and fine-tuning heads."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        c = self.config = config
        self.embeddings = BertEmbeddings(c)
        self.encoder = Encoder(c.n_layers, c.d_model, c.n_heads, c.d_ff, c.dropout, norm_first=c.norm_first,
                               activation="gelu")
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
# Traces (numpy only)
# --------------------------------------------------------------------------------------

def _np(t: Tensor) -> np.ndarray:
    return t.detach().float().cpu().numpy()


@dataclass
class BertTrace:
    """Everything a page shows of one input sequence of length L (numpy).

    ``attention`` (layers, heads, L, L); embeddings (L, d): ``token_emb + segment_emb +
    position_emb = embedding_sum``, ``embedding`` = LN(embedding_sum). ``top_ids``/``top_probs``
    (L, k): the MLM's k most probable tokens at every position; ``target_probs``/``target_rank``
    (L,): probability and rank (0 = top) of ``targets`` where given (else NaN / −1).
    ``nsp_probs`` = [P(IsNext), P(NotNext)]; ``class_probs`` (C,), ``tag_probs`` (L, T),
    ``span_start``/``span_end`` (L,) scores.
    """

    ids: np.ndarray
    segment_ids: np.ndarray
    attention: np.ndarray
    token_emb: np.ndarray
    segment_emb: np.ndarray
    position_emb: np.ndarray
    embedding_sum: np.ndarray
    embedding: np.ndarray
    top_ids: np.ndarray
    top_probs: np.ndarray
    target_probs: np.ndarray
    target_rank: np.ndarray
    nsp_probs: np.ndarray
    class_probs: np.ndarray
    tag_probs: np.ndarray
    span_start: np.ndarray
    span_end: np.ndarray

    @property
    def p_is_next(self) -> float:
        return float(self.nsp_probs[0])


@torch.inference_mode()
def run_bert(model: SmallBert, ids: Sequence[int], segment_ids: Sequence[int], top_k: int = 5,
             targets: Sequence[int] | None = None) -> BertTrace:
    """One sequence through the model in eval mode; every output of every head as numpy."""
    was_training = model.training
    model.eval()
    try:
        device = next(model.parameters()).device
        x = torch.as_tensor(list(ids), dtype=torch.long, device=device).unsqueeze(0)
        s = torch.as_tensor(list(segment_ids), dtype=torch.long, device=device).unsqueeze(0)
        tok, seg, pos = model.embeddings.parts(x, s)
        out = model(x, s)
        h = out.hidden[0]
        probs = torch.softmax(model.mlm_logits(h).float(), dim=-1)  # (L, V)
        k = min(top_k, probs.shape[-1])
        top_p, top_i = probs.topk(k, dim=-1)
        n = x.shape[1]
        target_probs = np.full(n, np.nan, dtype=np.float32)
        target_rank = np.full(n, -1, dtype=np.int64)
        if targets is not None:
            t = torch.as_tensor(list(targets), dtype=torch.long, device=device)
            p_t = probs.gather(1, t.unsqueeze(1)).squeeze(1)
            target_probs = _np(p_t)
            target_rank = (probs > p_t.unsqueeze(1)).sum(1).cpu().numpy().astype(np.int64)
        span = model.span(h)
        summed = tok + seg + pos
        return BertTrace(
            ids=x[0].cpu().numpy(), segment_ids=s[0].cpu().numpy(), attention=_np(out.attention[0]),
            token_emb=_np(tok[0]), segment_emb=_np(seg[0]), position_emb=_np(pos[0]),
            embedding_sum=_np(summed[0]), embedding=_np(model.embeddings.norm(summed)[0]),
            top_ids=top_i.cpu().numpy().astype(np.int64), top_probs=_np(top_p),
            target_probs=target_probs, target_rank=target_rank,
            nsp_probs=_np(torch.softmax(out.nsp_logits[0].float(), -1)),
            class_probs=_np(torch.softmax(model.classifier(out.pooled[0]).float(), -1)),
            tag_probs=_np(torch.softmax(model.tagger(h).float(), -1)),
            span_start=_np(span[:, 0]), span_end=_np(span[:, 1]),
        )
    finally:
        if was_training:
            model.train()


def best_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, max_len: int = 30) -> tuple[int, int, float]:
    """argmax over i ≤ j < i + max_len, both ``allowed``, of start[i] + end[j] (§4.2) → (i, j, score)."""
    s = np.where(allowed, start, -np.inf)
    e = np.where(allowed, end, -np.inf)
    n = len(s)
    scores = s[:, None] + e[None, :]
    i, j = np.indices((n, n))
    scores = np.where((j >= i) & (j < i + max_len), scores, -np.inf)
    if not np.isfinite(scores).any():
        return -1, -1, float("-inf")
    flat = int(np.argmax(scores))
    return flat // n, flat % n, float(scores.flat[flat])


# --------------------------------------------------------------------------------------
# Checkpoints: model.safetensors + config.json {"family": "bert", ...} + tokenizer.json
# --------------------------------------------------------------------------------------

@dataclass
class LoadedBert:
    """A small BERT ready for inference, its WordPiece tokenizer and its training record."""

    name: str
    model: SmallBert
    tokenizer: Any  # models.wordpiece.WordPiece
    training: dict

    @property
    def config(self) -> BertConfig:
        return self.model.config


def save_bert(folder: Path, model: SmallBert, tokenizer, training: dict) -> Path:
    """Write model.safetensors (tied weights stored once), config.json and tokenizer.json."""
    from safetensors.torch import save_model

    from models.wordpiece import TOKENIZER_FILE

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_model(model.to("cpu"), str(folder / "model.safetensors"))
    config = {"family": "bert", "model": model.config.to_dict(), "training": training}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    tokenizer.save(folder / TOKENIZER_FILE)
    return folder


def load_bert(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedBert:
    """Load a BERT checkpoint (shipped name or folder); raises CheckpointError naming the bad file."""
    from safetensors.torch import load_model

    from models.checkpoint import CheckpointError, checkpoint_path, read_json
    from models.wordpiece import TOKENIZER_FILE, WordPiece

    folder = checkpoint_path(name_or_path)
    config = read_json(folder / "config.json")
    if config.get("family") != "bert":
        raise CheckpointError(f"{folder / 'config.json'} is not a BERT checkpoint")
    try:
        cfg = BertConfig.from_dict(config["model"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {exc}") from None
    tok_file = folder / TOKENIZER_FILE
    if not tok_file.exists():
        raise CheckpointError(f"missing checkpoint file: {tok_file}")
    try:
        tokenizer = WordPiece.from_file(tok_file)
    except Exception as exc:  # tokenizers raises plain Exception subclasses
        raise CheckpointError(f"corrupt checkpoint file {tok_file}: {str(exc).splitlines()[0][:200]}") from None
    weights = folder / "model.safetensors"
    if not weights.exists():
        raise CheckpointError(f"missing checkpoint file: {weights}")
    try:
        model = SmallBert(cfg)
        load_model(model, str(weights))
    except Exception as exc:
        raise CheckpointError(f"corrupt checkpoint file {weights}: {str(exc).splitlines()[0][:200]}") from None
    if tokenizer.vocab_size != cfg.vocab_size:
        raise CheckpointError(f"{tok_file} has {tokenizer.vocab_size} pieces, the model {cfg.vocab_size}")
    model.to(device).eval()
    return LoadedBert(folder.name, model, tokenizer, config.get("training", {}))
