"""Run a Transformer-XL checkpoint (Dai et al. 2019) for the page and the commands, returning traces.

* :func:`read_passage` — a passage read segment by segment with the memory carried over (§3.2):
  per segment its tokens, the memory's tokens, the attention of every layer and head over
  [memory | segment] and the look-ahead mask.
* :func:`explain_score` — one layer/head/query's score split into the four terms of §3.3,
  recomputed with explicit R_{i−j}, beside the score the model used.
* :func:`dependency` — which earlier positions can influence a token, layer by layer, composed
  from the actual masks (the paper's Figure 2), vanilla segments (M = 0) or XL.
* :func:`generate_with_memory` — sampling token by token, each new token a one-token segment
  after the memory (temperature, top-k), the memory growing up to M.

Traces are plain dataclasses of numpy arrays and token lists (:class:`models.inference.traces.Trace`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from corpora.text import tokenize
from models.checkpoints import LoadedTXL
from models.inference.common import InputError, eval_mode, sampling_distribution, to_numpy
from models.inference.generate import MAX_TOP_K, check_sampling
from models.inference.traces import Trace
from models.nn.transformer_xl import RelMultiHeadAttention, TransformerXL, XLOutput, rel_shift, score_terms, xl_mask
from models.text.vocab import SOS

MAX_TOKENS = 400
MAX_SEG, MAX_MEM = 64, 256


@dataclass
class XLSegment(Trace):
    """Segment ``index`` (tokens ``start`` … ``start`` + L − 1 of the passage) read after a memory
    holding the states of the ``len(memory_tokens)`` tokens before it. ``attention``
    (layers, heads, L, M + L) over [memory | segment]; ``mask`` (L, M + L), True = may attend."""

    index: int
    start: int
    tokens: list[str]
    memory_tokens: list[str]
    attention: np.ndarray
    mask: np.ndarray


@dataclass
class XLReadTrace(Trace):
    """A passage read in segments of ``seg_len`` with memory ``mem_len``; ``dropped`` tokens were cut
    from the end of a passage longer than :data:`MAX_TOKENS`."""

    model: str
    seg_len: int
    mem_len: int
    tokens: list[str]
    unknown: list[bool]
    segments: list[XLSegment]
    dropped: int = 0


@dataclass
class XLScoreCheck(Trace):
    """Layer/head/query's score over its visible keys 0 … M + i: the terms (a)–(d) (each ÷ √d_k),
    their sum, the score the model used (its fast path, by the relative shift) and its attention
    row; ``distances`` i − j and the sinusoids ``r`` (keys, d_model) of R_{i−j}."""

    keys: list[str]
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    total: np.ndarray
    model_score: np.ndarray
    weights: np.ndarray
    distances: np.ndarray
    r: np.ndarray

    @property
    def max_difference(self) -> float:
        """max_j |(a + b + c + d)_j − model score_j|."""
        return float(np.abs(self.total - self.model_score).max())


@dataclass
class XLGenerationStep(Trace):
    """One new token at ``position``: the model's top candidates, the sampled probability, and the
    attention (layers, heads, K) that produced it: the last query's row over [memory | its segment]
    (K = memory_len + 1 once every new token is a one-token segment; the first step's query is
    the prompt's last token, inside the prompt's last segment). Keys are the K tokens before
    ``position``."""

    position: int
    token: str
    prob: float
    top_tokens: list[str]
    top_probs: np.ndarray
    memory_len: int
    attention: np.ndarray


@dataclass
class XLGenerationTrace(Trace):
    """A prompt continued with memory ``mem_len`` (the prompt read in segments of ``seg_len``)."""

    prompt_tokens: list[str]
    steps: list[XLGenerationStep] = field(default_factory=list)
    mem_len: int = 0
    seg_len: int = 0

    @property
    def tokens(self) -> list[str]:
        return self.prompt_tokens + [s.token for s in self.steps]


def prepare_passage(loaded: LoadedTXL, text: str, minimum: int = 2) -> tuple[list[str], list[int], list[bool], int]:
    """(<s> + tokens, ids, unknown flags, tokens dropped beyond :data:`MAX_TOKENS`)."""
    words = tokenize(text)
    if len(words) + 1 < minimum:
        raise InputError(
            f"Type at least {minimum - 1} word{'s' if minimum > 2 else ''}.",
            "txl.err.words" if minimum > 2 else "txl.err.word",
            n=minimum - 1,
        )
    dropped = max(0, len(words) + 1 - MAX_TOKENS)
    tokens = [SOS] + words[: MAX_TOKENS - 1]
    return tokens, *loaded.encode(tokens), dropped


def _check_lengths(seg_len: int, mem_len: int) -> None:
    if not 1 <= seg_len <= MAX_SEG:
        raise InputError(f"The segment length must be between 1 and {MAX_SEG}.", "txl.err.seg", max=MAX_SEG)
    if not 0 <= mem_len <= MAX_MEM:
        raise InputError(f"The memory length must be between 0 and {MAX_MEM}.", "txl.err.mem", max=MAX_MEM)


def _segments(
    model: TransformerXL, ids: Sequence[int], seg_len: int, mem_len: int
) -> Iterator[tuple[int, int, XLOutput]]:
    """Yield (start, memory length, output with attention and scores) for every segment, the memory
    carried over."""
    x = torch.tensor([list(ids)], dtype=torch.long)
    memory = None
    for start in range(0, len(ids), seg_len):
        m = 0 if memory is None else memory[0].shape[1]
        out = model.run(x[:, start : start + seg_len], memory, mem_len=mem_len, keep=True)
        yield start, m, out
        memory = out.memory


@torch.inference_mode()
def read_passage(loaded: LoadedTXL, text: str, seg_len: int, mem_len: int) -> XLReadTrace:
    """Read ``text`` in segments of ``seg_len`` tokens, each after the memory of at most ``mem_len``."""
    _check_lengths(seg_len, mem_len)
    tokens, ids, unknown, dropped = prepare_passage(loaded, text)
    segments = []
    with eval_mode(loaded.model):
        for s, (start, m, out) in enumerate(_segments(loaded.model, ids, seg_len, mem_len)):
            assert out.attention is not None
            n = min(seg_len, len(ids) - start)
            segments.append(
                XLSegment(
                    s,
                    start,
                    tokens[start : start + n],
                    tokens[start - m : start],
                    to_numpy(out.attention[0]),
                    xl_mask(n, m).numpy(),
                )
            )
    return XLReadTrace(loaded.name, seg_len, mem_len, tokens, unknown, segments, dropped)


@torch.inference_mode()
def explain_score(
    loaded: LoadedTXL, text: str, seg_len: int, mem_len: int, segment: int, layer: int, head: int, query: int
) -> XLScoreCheck:
    """The four terms of one score row (:func:`models.nn.transformer_xl.score_terms`) beside the model's."""
    _check_lengths(seg_len, mem_len)
    tokens, ids, _, _ = prepare_passage(loaded, text)
    c = loaded.config
    if not (0 <= layer < c.n_layers and 0 <= head < c.n_heads):
        raise InputError(f"No head {head + 1} in layer {layer + 1}.", "txl.err.head", head=head + 1, layer=layer + 1)
    with eval_mode(loaded.model):
        for s, (start, m, out) in enumerate(_segments(loaded.model, ids, seg_len, mem_len)):
            if s < segment:
                continue
            n = min(seg_len, len(ids) - start)
            if s > segment or not 0 <= query < n:
                break
            assert out.layer_inputs is not None and out.scores is not None and out.attention is not None
            attn = loaded.model.layers[layer].attn
            if not isinstance(attn, RelMultiHeadAttention):
                raise ValueError(f"layer {layer + 1} has no relative multi-head attention")
            terms = score_terms(attn, out.layer_inputs[layer][0], m, head, query)
            visible = slice(0, m + query + 1)
            return XLScoreCheck(
                tokens[start - m : start + query + 1],
                *(
                    to_numpy(t)
                    for t in (
                        terms.a,
                        terms.b,
                        terms.c,
                        terms.d,
                        terms.total,
                        out.scores[0, layer, head, query, visible],
                        out.attention[0, layer, head, query, visible],
                        terms.distances,
                        terms.r,
                    )
                ),
            )
    raise InputError(
        f"No token {query + 1} in segment {segment + 1}.", "txl.err.query", query=query + 1, segment=segment + 1
    )


def dependency(n_tokens: int, seg_len: int, mem_len: int, n_layers: int, token: int) -> np.ndarray:
    """(n_layers + 1, n_tokens) bool: row n marks the positions whose layer-n state (row 0 = the
    input tokens) can influence ``token``'s top-layer state.

    Built from the masks the model uses: within segment s (start σ, memory M_s = min(M, σ)) the
    state at position p of layer n reads layer n − 1 at the columns that :func:`xl_mask` opens,
    placed at absolute positions σ − M_s … σ + L_s − 1. Memory 0 gives vanilla fixed segments."""
    if not 0 <= token < n_tokens:
        raise InputError(f"No token {token + 1} among {n_tokens}.", "txl.err.token", token=token + 1, n=n_tokens)
    reads = np.zeros((n_tokens, n_tokens), dtype=bool)
    for start in range(0, n_tokens, seg_len):
        n, m = min(seg_len, n_tokens - start), min(mem_len, start)
        reads[start : start + n, start - m : start + n] = xl_mask(n, m).numpy()
    rows = [np.eye(n_tokens, dtype=bool)[token]]
    for _ in range(n_layers):
        rows.append(reads[rows[-1]].any(axis=0))
    return np.stack(rows[::-1])


def shift_demo(seg_len: int, mem_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The relative shift on distances: (before, after, mask), each (L, M + L). ``before`` holds
    the distance each column of the fast product stands for (K − 1 … 0 in every row); ``after`` is
    :func:`rel_shift` of it, which puts M + i − j at [i, j] wherever the mask allows."""
    k_len = mem_len + seg_len
    before = torch.arange(k_len - 1, -1, -1, dtype=torch.float32).expand(seg_len, k_len)
    return before.numpy(), rel_shift(before.clone()).numpy(), xl_mask(seg_len, mem_len).numpy()


@torch.inference_mode()
def generate_with_memory(
    loaded: LoadedTXL,
    prompt: str,
    max_new: int = 20,
    mem_len: int = 64,
    seg_len: int = 32,
    temperature: float = 1.0,
    top_k: int | None = 40,
    seed: int = 0,
    n_candidates: int = 5,
) -> XLGenerationTrace:
    """Read ``prompt`` in segments of ``seg_len`` with memory, then sample ``max_new`` tokens, each
    fed back as a one-token segment after the memory (at most ``mem_len`` cached positions)."""
    _check_lengths(seg_len, mem_len)
    check_sampling(max_new, temperature)
    if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top-k must be between 1 and {MAX_TOP_K}.", "txl.err.top_k", max=MAX_TOP_K)
    tokens, ids, _, _ = prepare_passage(loaded, prompt, minimum=1)
    gen = torch.Generator().manual_seed(seed)
    trace = XLGenerationTrace(tokens, mem_len=mem_len, seg_len=seg_len)
    with eval_mode(loaded.model):
        *_, (_, m, out) = _segments(loaded.model, ids, seg_len, mem_len)
        for step in range(max_new):
            assert out.attention is not None
            logits = out.logits[0, -1].float()
            probs = sampling_distribution(logits, temperature, top_k)
            tok = int(torch.multinomial(probs, 1, generator=gen))  # greedy: probs is one-hot on the argmax
            top_p, top_i = torch.softmax(logits, -1).topk(min(n_candidates, logits.numel()))
            trace.steps.append(
                XLGenerationStep(
                    len(ids) + step,
                    loaded.itos[tok],
                    float(probs[tok]),
                    [loaded.itos[i] for i in top_i.tolist()],
                    to_numpy(top_p),
                    m,
                    to_numpy(out.attention[0, :, :, -1]),
                )
            )
            if step + 1 < max_new:
                m = out.memory[0].shape[1]
                out = loaded.model.run(torch.tensor([[tok]]), out.memory, mem_len=mem_len, keep=True)
    return trace


@torch.inference_mode()
def generation_speed(model: TransformerXL, context: int, n_tokens: int) -> tuple[float, float]:
    """(ms per token with cached memory, ms per token recomputing the context) at ``context`` tokens of
    (random) context: each new token a one-token segment after a memory of ``context`` cached states,
    against re-running the model on the last ``context`` tokens for every token (no cache, as a
    fixed-context Transformer must). The paper's 1,800× is at 3,800 tokens on its own model."""
    ids = torch.randint(4, model.config.vocab_size, (1, context + n_tokens), generator=torch.Generator().manual_seed(0))
    memory = model.run(ids[:, :context], mem_len=context).memory
    start = time.perf_counter()
    for i in range(n_tokens):
        memory = model.run(ids[:, context + i : context + i + 1], memory, mem_len=context).memory
    cached = (time.perf_counter() - start) / n_tokens * 1000
    start = time.perf_counter()
    for i in range(n_tokens):
        model.run(ids[:, i + 1 : context + i + 1], mem_len=0)
    recomputed = (time.perf_counter() - start) / n_tokens * 1000
    return cached, recomputed
