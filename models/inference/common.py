"""Small pieces every decoder shares: numpy out, eval mode, id tensors, padding, the length rule,
the sampling distribution."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import torch
from torch import Tensor, nn

from models.errors import KeyedError


class InputError(KeyedError, ValueError):
    """The input cannot be used (nothing to translate, a symbol the model does not read, a
    setting out of range); the message says why in plain words, in the reader's language on a
    page (models.errors.KeyedError: ``key`` and ``params``)."""


def to_numpy(t: Tensor) -> np.ndarray:
    """A tensor as a float32 numpy array on the CPU (what traces hold)."""
    return t.detach().float().cpu().numpy()


@contextmanager
def eval_mode(module: nn.Module) -> Iterator[None]:
    """Run ``module`` in eval mode (no dropout) and put it back as it was."""
    was_training = module.training
    if was_training:
        module.eval()
    try:
        yield
    finally:
        if was_training:
            module.train()


def device_of(module: nn.Module) -> torch.device:
    return next(module.parameters()).device


def as_ids(ids: Sequence[int] | Tensor, device: torch.device) -> Tensor:
    """Ids as a (1, L) long tensor (a (B, L) tensor stays as it is)."""
    t = torch.as_tensor(ids, dtype=torch.long, device=device)
    return t.unsqueeze(0) if t.dim() == 1 else t


def pad_ids(rows: Sequence[Sequence[int]], pad_id: int) -> Tensor:
    """Right-pad id lists into a (B, max(len)) long tensor."""
    width = max([1, *(len(r) for r in rows)])
    out = torch.full((len(rows), width), pad_id, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.as_tensor(list(row), dtype=torch.long)
    return out


def max_output_len(src_len: int, cap: int) -> int:
    """Decoding stops at the end token or after 2·|x| + 10 output tokens, capped by the model's limit."""
    return min(cap, 2 * src_len + 10)


#: α of the one beam-ranking rule (both families): Wu et al. (2016) tuned α in 0.6–0.7.
DEFAULT_LENGTH_PENALTY = 0.6


def length_normalised(log_prob: float, length: int, alpha: float) -> float:
    """The beam-ranking score of a hypothesis: Σ log p / lp(y) with GNMT's length penalty
    lp(y) = ((5 + |y|) / 6)^α (Wu et al. 2016, Eq. 14); α = 0 ranks by the raw Σ log p,
    larger α favours longer hypotheses."""
    return log_prob / (((5 + length) / 6) ** alpha) if alpha else log_prob


def cut_at_end(row: Sequence[int], end_id: int, pad_id: int | None = None) -> list[int]:
    """Ids up to and including the first ``end_id`` (all of them if none), without ``pad_id``."""
    row = list(row)
    end = row.index(end_id) + 1 if end_id in row else len(row)
    return [int(t) for t in row[:end] if t != pad_id]


def sampling_distribution(
    logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None
) -> torch.Tensor:
    """The distribution a token is drawn from: softmax(logits / T), kept to the k most probable
    tokens (top-k), then to the smallest set of most probable tokens whose mass reaches p (top-p,
    nucleus) and renormalised. T = 0 or k = 1 is greedy: all mass on the argmax."""
    if temperature <= 0 or top_k == 1:
        probs = torch.zeros_like(logits, dtype=torch.float32)
        probs[int(logits.argmax())] = 1.0
        return probs
    scaled = logits.float() / temperature
    if top_k is not None and top_k < scaled.numel():
        kth = scaled.topk(top_k).values[-1]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    probs = torch.softmax(scaled, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_p, order = probs.sort(descending=True)
        before = sorted_p.cumsum(0) - sorted_p  # mass of the tokens ranked above each one
        drop = order[before >= top_p]  # the first token always stays (its "before" is 0)
        probs[drop] = 0.0
        probs = probs / probs.sum()
    return probs


def softmax_row(x: np.ndarray) -> np.ndarray:
    """softmax over one row's finite entries; −∞ (masked) entries get weight 0 (all −∞: all 0)."""
    finite = np.isfinite(x)
    if not finite.any():
        return np.zeros_like(x)
    e = np.where(finite, np.exp(np.where(finite, x, 0.0) - x[finite].max()), 0.0)
    return (e / e.sum()).astype(np.float32)
