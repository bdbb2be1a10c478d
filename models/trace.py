"""Decoding traces: plain records (numpy arrays and token lists) that views draw and tests check.

Tensors never leave ``models/``; a trace is what a page, a test or ``--json`` sees.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Hypothesis:
    """One decoded target sentence with everything computed on the way.

    ``tokens`` ends with </s> when ``finished``. Row t of ``attention`` is α_t over the source
    tokens (None for the model without attention); row t of ``topk_*`` is the model's top-k
    next-token distribution at step t.
    """

    tokens: list[str]
    token_probs: np.ndarray  # (T,) p(y_t | y_<t, x) of the emitted token
    attention: np.ndarray | None  # (T, S)
    topk_tokens: list[list[str]]  # (T, k)
    topk_probs: np.ndarray  # (T, k)
    log_prob: float
    finished: bool

    @property
    def score(self) -> float:
        """Length-normalised log-probability, used to rank finished hypotheses."""
        return self.log_prob / max(1, len(self.tokens))

    def to_dict(self) -> dict:
        return {
            "tokens": self.tokens,
            "token_probs": self.token_probs.tolist(),
            "attention": None if self.attention is None else self.attention.tolist(),
            "topk": [
                [{"token": t, "prob": float(p)} for t, p in zip(toks, probs)]
                for toks, probs in zip(self.topk_tokens, self.topk_probs)
            ],
            "log_prob": self.log_prob,
            "score": self.score,
            "finished": self.finished,
        }


@dataclass
class BeamCandidate:
    """An extension considered at one beam-search step: beam ``parent`` of the previous step + token."""

    parent: int
    token: str
    token_log_prob: float
    log_prob: float  # cumulative
    kept: bool  # survived into the next step's beam
    finished: bool  # ended with </s> (kept candidates that finished leave the beam)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class DecodingTrace:
    """A whole decoding run of one model on one sentence."""

    model: str
    kind: str  # none | bahdanau | luong-dot | luong-general | luong-concat
    mode: str  # soft | hard | local
    search: str  # greedy | beam
    beam_width: int
    src_tokens: list[str]  # as the model reads them, ending with </s>
    src_unknown: list[bool]  # True where the token is not in the model's vocabulary
    input_tokens_dropped: int  # tokens cut off because the input was longer than the model's limit
    hypotheses: list[Hypothesis]  # best first
    beam_steps: list[list[BeamCandidate]] = field(default_factory=list)

    @property
    def best(self) -> Hypothesis:
        return self.hypotheses[0]

    @property
    def tgt_tokens(self) -> list[str]:
        return self.best.tokens

    @property
    def attention(self) -> np.ndarray | None:
        return self.best.attention

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "kind": self.kind,
            "mode": self.mode,
            "search": self.search,
            "beam_width": self.beam_width,
            "src_tokens": self.src_tokens,
            "src_unknown": self.src_unknown,
            "input_tokens_dropped": self.input_tokens_dropped,
            "tgt_tokens": self.tgt_tokens,
            "attention": None if self.attention is None else self.attention.tolist(),
            "hypotheses": [h.to_dict() for h in self.hypotheses],
            "beam_steps": [[c.to_dict() for c in step] for step in self.beam_steps],
        }
