"""Run an XLNet checkpoint (Yang et al. 2019) for the page and the commands, returning traces.

Positions: a typed order (:func:`parse_order`) uses 1-based positions, as the page shows the
tokens (1 … n); everything returned (orders, predicted and hidden positions) is 0-based.

* :func:`parse_order`, :func:`random_order`, :func:`identity_order` — factorisation orders z.
* :func:`predict` — one sentence under one order: the content and query masks, every layer and
  head's attention of both streams, and for the predicted positions (the last ⌈n/K⌉ of the order,
  partial prediction §2.3) the top-k and the true token's probability; the log-likelihood
  Σ_t log p(x_{z_t} | x_{z_<t}) over the predicted targets.
* :func:`independent_vs_sequential` — the same hidden words predicted BERT-style, each from the
  visible words alone, beside XLNet's factorisation, each from the visible words and the hidden
  ones before it (§2.3's "New York" example); :func:`dependency_cases` finds sentences where the
  two differ.

Traces are plain dataclasses of numpy arrays and token lists (:class:`models.inference.traces.Trace`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from corpora.text import tokenize
from models.checkpoints import LoadedXLNet
from models.inference.common import InputError, eval_mode, to_numpy
from models.inference.traces import Trace
from models.nn.xlnet import content_mask, n_targets, query_mask

#: the partial-prediction K a page may choose (1 = every token of the order is predicted)
MAX_K = 16
#: candidates listed per predicted position at most
MAX_TOP = 20
_NUMBER = re.compile(r"[+-]?\d+")


@dataclass
class TargetPredictions(Trace):
    """Predictions at ``positions`` (0-based, in the order they are predicted): the ``top_tokens`` and
    ``top_probs`` (m, k) of each, the true token's probability ``true_probs`` (m,) (an unknown word's
    true token is <unk>) and ``log_likelihood`` = Σ log true_probs."""

    positions: list[int]
    top_tokens: list[list[str]]
    top_probs: np.ndarray
    true_probs: np.ndarray
    log_likelihood: float


@dataclass
class XLNetTrace(Trace):
    """One sentence read under one factorisation ``order`` (0-based positions z_1 … z_n).

    ``predictions`` covers the last ⌈n/K⌉ positions of the order (K = ``k_split``);
    ``content_mask`` / ``query_mask`` (n, n) bool, True = may attend (rank(j) ≤ rank(i) /
    rank(j) < rank(i)); ``content_attention`` / ``query_attention`` (layers, heads, n, n) the
    weights the model used: each row sums to 1 over its allowed keys and is 0 elsewhere (the query
    row of the order's first position has no allowed key and is all 0)."""

    DERIVED: ClassVar[tuple[str, ...]] = ("ranks", "log_likelihood")

    model: str
    tokens: list[str]
    unknown: list[bool]
    order: list[int]
    k_split: int
    predictions: TargetPredictions
    content_mask: np.ndarray
    query_mask: np.ndarray
    content_attention: np.ndarray
    query_attention: np.ndarray

    @property
    def ranks(self) -> list[int]:
        """rank(i): the place (0-based) of position i in the order."""
        out = [0] * len(self.order)
        for t, pos in enumerate(self.order):
            out[pos] = t
        return out

    @property
    def log_likelihood(self) -> float:
        return self.predictions.log_likelihood


@dataclass
class XLNetComparison(Trace):
    """The ``hidden`` positions (0-based, ascending) of a sentence predicted two ways by the same model:
    ``independent`` — each from the visible words only (as BERT does: the other hidden words come
    later in its order and are not seen); ``sequential`` — XLNet's order ``order`` (the visible
    words, then the hidden ones left to right), each hidden word seeing the visible words and the
    hidden words before it. Only the factorisation differs."""

    DERIVED: ClassVar[tuple[str, ...]] = ("changed",)

    model: str
    tokens: list[str]
    unknown: list[bool]
    hidden: list[int]
    order: list[int]
    independent: TargetPredictions
    sequential: TargetPredictions

    @property
    def changed(self) -> list[bool]:
        """Per hidden position: the two top-1 predictions differ."""
        return [a[0] != b[0] for a, b in zip(self.independent.top_tokens, self.sequential.top_tokens)]


def identity_order(n: int) -> list[int]:
    """z = (0, 1, …, n − 1): left to right, an ordinary autoregressive LM."""
    return list(range(n))


def random_order(n: int, seed: int) -> list[int]:
    """A uniformly random permutation of 0 … n − 1, the same for the same seed."""
    return [int(i) for i in np.random.default_rng(seed).permutation(n)]


def check_order(order: Sequence[int], n: int) -> list[int]:
    """``order`` (0-based) if it holds every position 0 … n − 1 exactly once; else InputError (its
    message speaks of the 1-based positions the reader sees)."""
    seen: set[int] = set()
    for pos in order:
        if not 0 <= pos < n:
            raise InputError(
                f"Position {pos + 1} is out of range: positions run from 1 to {n}.",
                "xlnet.err.order_range",
                pos=pos + 1,
                n=n,
            )
        if pos in seen:
            raise InputError(
                f"Position {pos + 1} comes more than once: each position comes exactly once.",
                "xlnet.err.order_repeat",
                pos=pos + 1,
            )
        seen.add(pos)
    missing = ", ".join(str(p + 1) for p in range(n) if p not in seen)
    if missing:
        raise InputError(
            f"The order misses position(s) {missing}: each of 1 … {n} comes exactly once.",
            "xlnet.err.order_missing",
            missing=missing,
            n=n,
        )
    return [int(p) for p in order]


def parse_order(text: str, n: int) -> list[int]:
    """A typed order such as "3 1 4 2" or "3, 1, 4, 2": 1-based positions, each of 1 … n once,
    separated by spaces, commas or semicolons. Returns it 0-based ([2, 0, 3, 1])."""
    items = [s for s in re.split(r"[\s,;，；]+", str(text or "")) if s]
    if not items:
        raise InputError(f"Type an order: the positions 1 … {n}, each once.", "xlnet.err.order_empty", n=n)
    if not all(_NUMBER.fullmatch(s) for s in items):
        raise InputError(
            f"Type the order as whole numbers from 1 to {n}, separated by spaces or commas.", "xlnet.err.order_nan", n=n
        )
    return check_order([int(s) - 1 for s in items], n)


def prepare_sentence(loaded: LoadedXLNet, text: str) -> tuple[list[str], list[int], list[bool]]:
    """(tokens, ids, unknown flags) of a typed sentence of 2 … max_len words (no <s>: every token
    is a position of the order)."""
    words = tokenize(text)
    limit = loaded.config.max_len
    if not words:
        raise InputError("Type a sentence.", "xlnet.err.empty")
    if len(words) < 2:
        raise InputError("Type at least 2 words: XLNet predicts words from the other words.", "xlnet.err.one")
    if len(words) > limit:
        raise InputError(
            f"Type at most {limit} words (this text has {len(words)}): the model reads one window of {limit}.",
            "xlnet.err.long",
            max=limit,
            n=len(words),
        )
    return words, *loaded.encode(words)


def _check_top(top_k: int) -> None:
    if not 1 <= top_k <= MAX_TOP:
        raise InputError(f"top-k must be between 1 and {MAX_TOP}.", "xlnet.err.top_k", max=MAX_TOP)


def _predictions(
    loaded: LoadedXLNet, logits: torch.Tensor, ids: Sequence[int], positions: Sequence[int], top_k: int
) -> TargetPredictions:
    """Top-k and true-token probabilities from ``logits`` (m, V), row r for ``positions[r]``."""
    log_p = torch.log_softmax(logits.float(), dim=-1)
    true_log_p = log_p[torch.arange(len(positions)), torch.as_tensor([ids[p] for p in positions])]
    top_log_p, top_i = log_p.topk(min(top_k, log_p.shape[-1]), dim=-1)
    return TargetPredictions(
        list(positions),
        [[loaded.itos[i] for i in row] for row in top_i.tolist()],
        to_numpy(top_log_p.exp()),
        to_numpy(true_log_p.exp()),
        float(true_log_p.sum()),
    )


@torch.inference_mode()
def predict(loaded: LoadedXLNet, text: str, order: Sequence[int], k_split: int, top_k: int = 5) -> XLNetTrace:
    """Read ``text`` under the factorisation ``order`` (0-based positions); predict the last ⌈n/K⌉
    positions of the order (K = ``k_split``), each from the tokens before it in the order."""
    if not 1 <= k_split <= MAX_K:
        raise InputError(f"K must be between 1 and {MAX_K}.", "xlnet.err.k", max=MAX_K)
    _check_top(top_k)
    tokens, ids, unknown = prepare_sentence(loaded, text)
    n = len(tokens)
    order = check_order(order, n)
    z = torch.tensor(order)
    with eval_mode(loaded.model):
        out = loaded.model.run(torch.tensor([ids]), z, keep=True)
    assert out.content_attention is not None and out.query_attention is not None
    targets = order[n - n_targets(n, k_split) :]
    return XLNetTrace(
        loaded.name,
        tokens,
        unknown,
        order,
        k_split,
        _predictions(loaded, out.logits[0, targets], ids, targets, top_k),
        content_mask(z).numpy(),
        query_mask(z).numpy(),
        to_numpy(out.content_attention[0]),
        to_numpy(out.query_attention[0]),
    )


def _compare(
    loaded: LoadedXLNet, tokens: list[str], ids: list[int], unknown: list[bool], hidden: Sequence[int], top_k: int
) -> XLNetComparison:
    hidden = sorted(set(hidden))
    n = len(ids)
    bad = [p for p in hidden if not 0 <= p < n]
    if bad:
        raise InputError(f"No word {bad[0] + 1} among {n}.", "xlnet.err.position", pos=bad[0] + 1, n=n)
    if not hidden:
        raise InputError("Hide at least one word.", "xlnet.err.hidden_none")
    visible = [p for p in range(n) if p not in hidden]
    if not visible:
        raise InputError("Leave at least one word visible.", "xlnet.err.hidden_all")
    sequential = visible + hidden
    # BERT-style: row r puts hidden[r] right after the visible words, so it sees them only
    independent = [visible + [p] + [q for q in hidden if q != p] for p in hidden]
    x = torch.tensor([ids])
    with eval_mode(loaded.model):
        seq_logits = loaded.model.run(x, torch.tensor(sequential)).logits[0, hidden]
        ind_logits = loaded.model.run(x.expand(len(hidden), n), torch.tensor(independent)).logits
    ind_logits = ind_logits[torch.arange(len(hidden)), torch.tensor(hidden)]
    return XLNetComparison(
        loaded.name,
        tokens,
        unknown,
        hidden,
        sequential,
        _predictions(loaded, ind_logits, ids, hidden, top_k),
        _predictions(loaded, seq_logits, ids, hidden, top_k),
    )


@torch.inference_mode()
def independent_vs_sequential(
    loaded: LoadedXLNet, text: str, hidden_positions: Sequence[int], top_k: int = 5
) -> XLNetComparison:
    """The hidden words (0-based positions) predicted independently (BERT's assumption, §2.1:
    log p(x̄ | x̂) ≈ Σ log p(x_t | x̂)) and sequentially (XLNet: Σ_t log p(x_{z_t} | x̂, x_{z_<t}))."""
    _check_top(top_k)
    tokens, ids, unknown = prepare_sentence(loaded, text)
    return _compare(loaded, tokens, ids, unknown, hidden_positions, top_k)


@torch.inference_mode()
def dependency_cases(
    loaded: LoadedXLNet, sentences: Iterable[Sequence[str]], limit: int = 1, top_k: int = 5
) -> list[XLNetComparison]:
    """Up to ``limit`` cases among ``sentences`` (token lists) where two adjacent hidden words of
    known tokens give a later target whose sequential top-1 is the true word while its independent
    top-1 is another: conditioning on the earlier target changed the prediction, for the better."""
    found: list[XLNetComparison] = []
    for words in sentences:
        words = list(words)
        if not 4 <= len(words) <= loaded.config.max_len:
            continue
        ids, unknown = loaded.encode(words)
        for p in range(len(words) - 1):
            if unknown[p] or unknown[p + 1] or not words[p].isalpha() or not words[p + 1].isalpha():
                continue
            case = _compare(loaded, words, ids, unknown, [p, p + 1], top_k)
            later_seq, later_ind = case.sequential.top_tokens[1][0], case.independent.top_tokens[1][0]
            if later_seq == words[p + 1] != later_ind:
                found.append(case)
                if len(found) >= limit:
                    return found
                break
    return found
