"""Every trace type: the plain records (numpy arrays and token lists) that views draw and tests check.

One record per model family, produced directly by its decoder or runner:

* RNN seq2seq — :class:`Seq2seqDecodeTrace` (with :class:`Hypothesis` and :class:`BeamCandidate`);
* Transformer encoder–decoder — :class:`TransformerDecodeTrace` (with :class:`DecodeStep` views and the
  beam search's :class:`BeamTrace`);
* decoder-only LM — :class:`GenerationTrace` (with :class:`GenerationStep`);
* one head, step by step — :class:`HeadWalkthrough`;
* the small BERT — :class:`BertTrace`, :class:`MaskedAnalysis` for an input through masking and
  :class:`FillMaskTrace` for a text with [MASK] in it;
* a real Hugging Face encoder — :class:`HFTrace`.

Tensors never leave ``models/``. ``to_dict`` is written once, in :class:`Trace`: every field,
plus the properties a class lists in ``DERIVED``, as JSON-able Python values (``--json`` output).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from corpora.text import detokenize


def plain(value: Any, keep_arrays: bool = False) -> Any:
    """A JSON-able copy of ``value``: arrays → lists, traces → dicts, numpy scalars → Python.
    With ``keep_arrays`` the numpy arrays stay arrays (for NPZ), everything else is converted."""
    if isinstance(value, Trace):
        return value.to_dict(keep_arrays)
    if isinstance(value, np.ndarray):
        return value if keep_arrays else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): plain(v, keep_arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, keep_arrays) for v in value]
    return value


class Trace:
    """Base of every trace dataclass: one ``to_dict`` for all of them."""

    DERIVED: ClassVar[tuple[str, ...]] = ()
    #: Fields written under another key: the JSON (command-line output, downloads) keeps the key that
    #: fields were first published under when a field is renamed in Python (e.g. ``site`` as "kind").
    JSON_KEYS: ClassVar[dict[str, str]] = {}

    def to_dict(self, keep_arrays: bool = False) -> dict[str, Any]:
        """Every field and every ``DERIVED`` property as plain Python (numpy arrays kept with ``keep_arrays``)."""
        if not dataclasses.is_dataclass(self):
            raise TypeError(f"{type(self).__name__} is a Trace but not a dataclass")
        names = [f.name for f in dataclasses.fields(self)] + list(self.DERIVED)
        return {self.JSON_KEYS.get(name, name): plain(getattr(self, name), keep_arrays) for name in names}


END_TOKENS = frozenset({"</s>", "<eos>"})
START_TOKENS = frozenset({"<s>", "<bos>"})


def display_text(tokens: list[str]) -> str:
    """Display text of model tokens, without start and end tokens."""
    return detokenize([t for t in tokens if t not in END_TOKENS and t not in START_TOKENS])


def topk_dicts(tokens: list[list[str]], probs: np.ndarray) -> list[list[dict[str, Any]]]:
    """Per step, the top-k candidates as [{"token", "prob"}] (the JSON form of a top-k table)."""
    return [[{"token": t, "prob": float(p)} for t, p in zip(toks, row)] for toks, row in zip(tokens, probs)]


@dataclass
class Notice(Trace):
    """Something a reader must know next to a model's output: ``topic`` is "unknown" (input words
    the model does not know), "cut" (input longer than the model reads), "length" (output stopped
    at the length limit), "confidence" (the model's own confidence against its typical value) or
    "scope" (what the model was trained on); ``level`` is "warning" or "info". ``key`` and
    ``args``: the id of the same text in the interface's string table (ui/strings) and its fields,
    so a page can show it in the reader's language ("" when the text has no translation). In JSON
    ``topic`` keeps its first published key, "kind"."""

    JSON_KEYS: ClassVar[dict[str, str]] = {"topic": "kind"}

    topic: str
    level: str
    text: str
    key: str = ""
    args: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------
# RNN seq2seq
# --------------------------------------------------------------------------------------


@dataclass
class Hypothesis(Trace):
    """One decoded target sentence with everything computed on the way.

    ``tokens`` ends with </s> when ``finished``. Row t of ``attention`` is α_t over the source
    tokens (None for the model without attention); row t of ``topk_*`` is the model's top-k
    next-token distribution at step t; ``positions[t]`` is p_t for local attention.
    ``forced_step``: in a what-if decoding, the step whose token was forced (the steps before it
    repeat the original output, the steps after it are greedy again); None otherwise.
    """

    DERIVED: ClassVar[tuple[str, ...]] = ("topk",)

    tokens: list[str]
    token_probs: np.ndarray  # (T,) p(y_t | y_<t, x) of the emitted token
    attention: np.ndarray | None  # (T, S)
    topk_tokens: list[list[str]]  # (T, k)
    topk_probs: np.ndarray  # (T, k)
    log_prob: float  # Σ log p(y_t | y_<t, x)
    finished: bool
    score: float  # the beam-ranking score: models.inference.common.length_normalised(log_prob, |y|, α)
    positions: np.ndarray | None = None  # (T,) the aligned position p_t of local attention, else None
    forced_step: int | None = None  # the step of a what-if's forced token, else None

    @property
    def topk(self) -> list[list[dict[str, Any]]]:
        return topk_dicts(self.topk_tokens, self.topk_probs)


@dataclass
class BeamCandidate(Trace):
    """An extension considered at one beam-search step: beam ``parent`` of the previous step + token."""

    parent: int
    token: str
    token_log_prob: float
    log_prob: float  # cumulative
    kept: bool  # survived into the next step's beam
    finished: bool  # ended with the end token (kept candidates that finished leave the beam)


@dataclass
class Seq2seqDecodeTrace(Trace):
    """A whole decoding run of one RNN seq2seq model on one sentence."""

    DERIVED: ClassVar[tuple[str, ...]] = ("tgt_tokens", "attention")
    JSON_KEYS: ClassVar[dict[str, str]] = {"attention_variant": "kind"}

    model: str
    attention_variant: str  # none | bahdanau | uniform | luong-dot | luong-general | luong-concat (+ -local-m/-p)
    mode: str  # soft | hard | local
    search: str  # greedy | beam
    beam_width: int
    src_tokens: list[str]  # as the model reads them, ending with </s>
    src_unknown: list[bool]  # True where the token is not in the model's vocabulary
    input_tokens_dropped: int  # tokens cut off because the input was longer than the model's limit
    hypotheses: list[Hypothesis]  # best first
    beam_steps: list[list[BeamCandidate]] = field(default_factory=list)
    length_penalty: float = 0.0  # α of the ranking rule Σ log p / ((5 + |y|) / 6)^α
    notices: list[Notice] = field(default_factory=list)

    @property
    def best(self) -> Hypothesis:
        return self.hypotheses[0]

    @property
    def tgt_tokens(self) -> list[str]:
        return self.best.tokens

    @property
    def attention(self) -> np.ndarray | None:
        return self.best.attention

    @property
    def text(self) -> str:
        return display_text(self.tgt_tokens)


# --------------------------------------------------------------------------------------
# Transformer encoder–decoder
# --------------------------------------------------------------------------------------


@dataclass
class DecodeStep:
    """One decoder step t (predicting output position t, 0-based after the start token): a view
    of row t of a :class:`TransformerDecodeTrace`.

    ``self_attention`` (layers, heads, t + 1): the new position's row over start + outputs so far;
    ``cross_attention`` (layers, heads, S): its row over the source.
    """

    position: int
    token_id: int
    log_prob: float
    top_ids: np.ndarray
    top_probs: np.ndarray
    self_attention: np.ndarray
    cross_attention: np.ndarray


@dataclass
class TransformerDecodeTrace(Trace):
    """An encoder–decoder Transformer decoding of one source.

    Ids: ``src_ids``; ``output_ids`` (without the start token, with the end token if produced).
    Attention: encoder (layers, heads, S, S), decoder self (layers, heads, T, T) — zero above the
    diagonal, the look-ahead mask — and cross (layers, heads, T, S); row t is step t. Row t of
    ``topk_ids``/``topk_probs`` is step t's most probable next tokens; ``score`` = Σ log p.

    Token strings are filled when the decoder is given the vocabulary (``tgt_tokens`` = the
    output, ``decoder_tokens`` = start + tgt_tokens[:-1], the decoder's query positions);
    ``models.inference.translate`` adds which checkpoint and input it came from and, after a
    beam search, the beam tree (``beam_steps``) and the finished ``hypotheses``.

    What-if runs: ``forced_step`` is the step whose token was forced (None: none was);
    ``ablated_head`` = (site, layer, head) of the head switched off for the whole run (None: none).
    """

    DERIVED: ClassVar[tuple[str, ...]] = ("text", "token_probs", "topk")

    src_ids: list[int]
    output_ids: list[int]
    encoder_attention: np.ndarray
    decoder_self_attention: np.ndarray
    cross_attention: np.ndarray
    token_log_probs: np.ndarray
    topk_ids: np.ndarray
    topk_probs: np.ndarray
    score: float
    bos_id: int = 1
    eos_id: int = 2
    src_tokens: list[str] = field(default_factory=list)
    tgt_tokens: list[str] = field(default_factory=list)
    decoder_tokens: list[str] = field(default_factory=list)
    topk_tokens: list[list[str]] = field(default_factory=list)
    model: str = ""
    label: str = ""
    task: str = ""
    search: str = "greedy"
    beam_width: int = 1
    src_unknown: list[bool] = field(default_factory=list)
    input_tokens_dropped: int = 0
    beam_steps: list[list[BeamCandidate]] = field(default_factory=list)
    hypotheses: list[tuple[list[str], float]] = field(default_factory=list)  # (tokens, ranking score)
    length_penalty: float = 0.0  # α of the ranking rule Σ log p / ((5 + |y|) / 6)^α
    notices: list[Notice] = field(default_factory=list)
    forced_step: int | None = None
    ablated_head: tuple[str, int, int] | None = None

    @property
    def decoder_input_ids(self) -> list[int]:
        """The decoder's query positions: the start token followed by every output token but the last."""
        return [self.bos_id] + self.output_ids[:-1]

    @property
    def steps(self) -> list[DecodeStep]:
        return [
            DecodeStep(
                t,
                tok,
                float(self.token_log_probs[t]),
                self.topk_ids[t],
                self.topk_probs[t],
                self.decoder_self_attention[:, :, t, : t + 1],
                self.cross_attention[:, :, t, :],
            )
            for t, tok in enumerate(self.output_ids)
        ]

    @property
    def token_probs(self) -> np.ndarray:
        return np.exp(self.token_log_probs).astype(np.float32)

    @property
    def finished(self) -> bool:
        return bool(self.output_ids) and self.output_ids[-1] == self.eos_id

    @property
    def text(self) -> str:
        return display_text(self.tgt_tokens)

    @property
    def topk(self) -> list[list[dict[str, Any]]]:
        return topk_dicts(self.topk_tokens, self.topk_probs)

    @property
    def n_layers(self) -> int:
        return int(self.encoder_attention.shape[0])

    @property
    def n_heads(self) -> int:
        return int(self.encoder_attention.shape[1])


@dataclass
class BeamStep:
    """The beam after one step: each live hypothesis (ids without the start token) and its summed
    log-prob, plus hypotheses that ended with the end token at this step."""

    hypotheses: list[list[int]]
    scores: list[float]
    finished: list[list[int]]
    finished_scores: list[float]


@dataclass
class BeamTrace:
    """A Transformer beam search: the best hypothesis as a full :class:`TransformerDecodeTrace`, every beam
    per step, and all finished hypotheses ranked by normalised score."""

    best: TransformerDecodeTrace
    beams: list[BeamStep]
    finished: list[tuple[list[int], float]]
    beam_width: int
    length_penalty: float

    def tree(self, itos: list[str]) -> list[list[BeamCandidate]]:
        """The beam per step as beam-tree candidates (kept and finished hypotheses, by cumulative
        log-probability); ``parent`` = index in the previous step's beam."""
        steps: list[list[BeamCandidate]] = []
        previous: list[list[int]] = [[]]
        prev_scores: list[float] = [0.0]
        for step in self.beams:
            rows = [(h, s, False) for h, s in zip(step.hypotheses, step.scores)] + [
                (h, s, True) for h, s in zip(step.finished, step.finished_scores)
            ]
            rows.sort(key=lambda r: -r[1])
            cands = []
            for hyp, score, finished in rows:
                parent = previous.index(hyp[:-1]) if hyp[:-1] in previous else 0
                cands.append(BeamCandidate(parent, itos[hyp[-1]], score - prev_scores[parent], score, True, finished))
            steps.append(cands)
            previous, prev_scores = [list(h) for h in step.hypotheses], list(step.scores)
        return steps


# --------------------------------------------------------------------------------------
# Decoder-only language model
# --------------------------------------------------------------------------------------


@dataclass
class GenerationStep(Trace):
    """One new token at ``position`` (0-based in the whole sequence; the query that produced it
    is ``position`` − 1).

    ``top_ids``/``top_probs``: the model's most probable next tokens under softmax(logits);
    ``sampling_probs``: the probability of the same ids in the distribution actually sampled
    (after temperature and top-k filtering); ``prob``: that probability for the chosen token.
    ``attention`` (layers, heads, position): the last input position's causal row over every
    token so far (prompt included) — the row that produced this token's logits. ``token`` and
    ``top_tokens`` are filled when the generator is given the vocabulary.
    """

    DERIVED: ClassVar[tuple[str, ...]] = ("top",)

    position: int
    token_id: int
    prob: float
    top_ids: np.ndarray
    top_probs: np.ndarray
    sampling_probs: np.ndarray
    attention: np.ndarray
    token: str = ""
    top_tokens: list[str] = field(default_factory=list)

    @property
    def top(self) -> list[dict[str, Any]]:
        """The candidates as [{"token", "prob", "sampling_prob"}] (the JSON form)."""
        return [
            {"token": t, "prob": float(p), "sampling_prob": float(q)}
            for t, p, q in zip(self.top_tokens, self.top_probs, self.sampling_probs)
        ]


@dataclass
class GenerationTrace(Trace):
    """Prompt, generated ids, one :class:`GenerationStep` per new token, and the causal
    self-attention of the whole final sequence (layers, heads, T, T) (its last row is the
    input of no step: no token was drawn from it). Token strings are filled when the
    generator is given the vocabulary; ``models.inference.generate`` adds the checkpoint's
    name and what happened to the prompt."""

    DERIVED: ClassVar[tuple[str, ...]] = ("text",)

    prompt_ids: list[int]
    generated_ids: list[int]
    steps: list[GenerationStep]
    attention: np.ndarray
    seed: int | None
    temperature: float
    top_k: int | None
    prompt_tokens: list[str] = field(default_factory=list)
    generated_tokens: list[str] = field(default_factory=list)
    model: str = ""
    label: str = ""
    prompt_unknown: list[bool] = field(default_factory=list)
    input_tokens_dropped: int = 0

    @property
    def ids(self) -> list[int]:
        return self.prompt_ids + self.generated_ids

    @property
    def tokens(self) -> list[str]:
        return self.prompt_tokens + self.generated_tokens

    @property
    def text(self) -> str:
        """Prompt and continuation as display text (without start and end tokens)."""
        return display_text(self.tokens)


# --------------------------------------------------------------------------------------
# Inside one head
# --------------------------------------------------------------------------------------

#: Which attention a walkthrough opens: encoder self, masked decoder self, cross (encoder–
#: decoder), or the causal self-attention of a decoder-only LM.
TRANSFORMER_ATTENTIONS = ("encoder", "decoder", "cross", "lm")


@dataclass
class HeadWalkthrough(Trace):
    """Every intermediate of one head for one query position, as the model computed it.

    ``q`` (d_k,) = (x W^Q)[query, head]; ``keys``/``values`` (S, d_k) the head's rows of
    x' W^K and x' W^V; ``scores`` = K q; ``scaled`` = scores / √d_k; ``allowed`` (S,) the mask
    row (True = may attend); ``masked`` = scaled with −∞ where not allowed; ``weights`` =
    softmax(masked); ``output`` (d_k,) = weights · V, this head's slice of the concatenation
    before W^O. ``unscaled_weights``/``unscaled_output``: the same without ÷√d_k (what the
    softmax would do with raw dot products). ``model_weights``: the row the model itself
    returned — equal to ``weights`` up to float rounding. The axes' token strings and the
    model's size are filled for a checkpoint by ``models.inference.translate.head_view``.
    """

    JSON_KEYS: ClassVar[dict[str, str]] = {"site": "kind"}

    site: str  # which attention: one of TRANSFORMER_ATTENTIONS
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
    model: str = ""
    label: str = ""
    n_layers: int = 0
    n_heads: int = 0
    key_tokens: list[str] = field(default_factory=list)
    query_tokens: list[str] = field(default_factory=list)
    input_tokens_dropped: int = 0

    @property
    def scale(self) -> float:
        return math.sqrt(self.d_k)


# --------------------------------------------------------------------------------------
# BERT and real encoders
# --------------------------------------------------------------------------------------


@dataclass
class BertTrace(Trace):
    """Everything a page shows of one input sequence of length L through the small BERT.

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

    @property
    def embedding_sum_error(self) -> float:
        """max |token + segment + position − embedding_sum|: the drawn sum against the model's own."""
        return float(np.abs(self.token_emb + self.segment_emb + self.position_emb - self.embedding_sum).max())


@dataclass
class FillMaskTrace(Trace):
    """A text with [MASK] pieces through a masked LM (``python -m models.fill_mask``): the pieces read
    (``tokens``, with [CLS] and [SEP]) and, for each [MASK] in order, its ``position`` among them and the
    model's k most probable pieces as ``predictions`` [{"token", "prob"}]; ``filled`` is the text with
    every [MASK] replaced by its top piece; ``n_unknown`` counts [UNK] pieces in the input."""

    model: str
    tokens: list[str]
    masks: list[dict[str, Any]]
    filled: str
    n_unknown: int


@dataclass
class MaskedAnalysis(Trace):
    """One input through the masking procedure and the small BERT.

    ``plain``: the model on the unmasked input (embeddings, attention, NSP, fine-tuning heads);
    ``masked``: the model on the corrupted input, with the original ids as targets;
    ``top_tokens``: the masked run's top-k tokens at every position.
    """

    tokens: list[str]
    ids: np.ndarray
    segment_ids: np.ndarray
    special: np.ndarray
    dropped: int
    n_unknown: int
    input_ids: np.ndarray
    input_tokens: list[str]
    outcome: np.ndarray
    plain: BertTrace
    masked: BertTrace
    top_tokens: list[list[str]]


@dataclass
class HFTrace(Trace):
    """One text through a real encoder (or the real decoder: causal attention, one segment, tokens
    as the text they stand for): tokens as the tokenizer split them, segment ids,
    attention (layers, heads, L, L) float32 (rows sum to 1), how many tokens were cut,
    and the forward pass's seconds. ``top_ids``/``top_probs`` (L, k) only with an MLM head."""

    tokens: list[str]
    ids: np.ndarray
    segment_ids: np.ndarray
    special: np.ndarray
    attention: np.ndarray
    n_tokens_in: int
    truncated: int
    seconds: float
    top_ids: np.ndarray | None = None
    top_probs: np.ndarray | None = None
    top_tokens: list[list[str]] | None = None


# --------------------------------------------------------------------------------------
# Click-to-explain: one drawn attention weight
# --------------------------------------------------------------------------------------


@dataclass
class CellExplanation(Trace):
    """How one drawn attention weight α[query, key] came about, recomputed by the model's own
    modules on the same input (``models.inference.explain``).

    ``family``: "bahdanau", "luong-dot", "luong-general", "luong-concat" (RNN decoders) or
    "transformer", "bert", "hf", "llama" (dot-product heads). ``score_formula`` names the score function;
    ``terms`` are its named vectors for this query and key, in formula order (e.g. q and k, or
    W s, U h, tanh(·) and v), and ``score`` = ``scores[key_index]`` is their result.
    The row: ``scores`` (S,) e_j; ``scale`` the divisor before the softmax (√d_k; 1 = none);
    ``allowed`` (S,) the mask row (False: −∞ before the softmax); ``masked`` = scores / scale
    with −∞ where not allowed; ``softmax`` = softmax(masked). ``weights`` (S,) is the row after
    every step (= ``softmax`` unless ``after_softmax`` names one: local-p's Gaussian
    ``factor``, or hard attention's one-hot at the argmax); ``model_weights`` (S,) is the row the
    model itself returned in the same run. ``position``: local attention's p_t, else None.
    """

    DERIVED: ClassVar[tuple[str, ...]] = ("score", "weight", "error")

    family: str
    score_formula: str
    query_index: int
    key_index: int
    terms: dict[str, np.ndarray]
    scores: np.ndarray
    scale: float
    allowed: np.ndarray
    masked: np.ndarray
    softmax: np.ndarray
    weights: np.ndarray
    model_weights: np.ndarray
    layer: int = -1  # −1: a model with one attention (the RNN decoders)
    head: int = -1
    after_softmax: str = ""  # "" | "local-p Gaussian" | "hard one-hot"
    factor: np.ndarray | None = None  # (S,) local-p's exp(−(s − p_t)² / 2σ²), else None
    position: float | None = None  # p_t of local attention, else None

    @property
    def score(self) -> float:
        return float(self.scores[self.key_index])

    @property
    def weight(self) -> float:
        return float(self.weights[self.key_index])

    @property
    def error(self) -> float:
        """max |weights − model_weights| over the row: this derivation against the model's own row."""
        return float(np.abs(self.weights - self.model_weights).max())
