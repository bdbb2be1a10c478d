"""BERT's masked-LM corruption (Devlin et al. 2019, §3.1 "Task #1: Masked LM", Appendix A.1).

"We mask 15% of all WordPiece tokens in each sequence at random." Two rules are offered:

* ``"reference"`` (the default) — what BERT's released ``create_pretraining_data.py`` does: each
  sequence of n tokens ([CLS] and [SEP] counted, padding not) gets exactly
  max(1, round(0.15 · n)) predictions, at positions drawn without replacement among its
  non-special tokens; a random replacement is drawn from the whole vocabulary.
* ``"independent"`` — every non-special token is chosen independently with probability 0.15
  (so some sequences get no prediction at all); random replacements exclude the special tokens.

A chosen token is then replaced by

* ``[MASK]`` with probability 0.8,
* a random token with probability 0.1,
* itself (kept unchanged) with probability 0.1,

and the model must predict the original token at every chosen position — whatever became
of it — with cross-entropy. ``[CLS]``, ``[SEP]`` and ``[PAD]`` are never chosen.

Everything runs on numpy with an explicit ``numpy.random.Generator`` so a seed reproduces a
draw exactly. :func:`mask_array` is vectorised for training batches; :func:`mask_sequence`
returns a :class:`MaskingRecord` for one sequence (what the page colours); and
:func:`masking_statistics` repeats the draw many times to show the rates converging.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MASK_RATE",
    "REPLACE_PROBS",
    "RULES",
    "REFERENCE",
    "NOT_CHOSEN",
    "MASKED",
    "RANDOM",
    "KEPT",
    "OUTCOME_NAMES",
    "IGNORE",
    "mask_array",
    "MaskingRecord",
    "mask_sequence",
    "MaskingStats",
    "masking_statistics",
]

MASK_RATE = 0.15
#: (P[MASK], P[random], P[kept]) for a chosen token.
REPLACE_PROBS = (0.8, 0.1, 0.1)
#: Outcome codes per position.
NOT_CHOSEN, MASKED, RANDOM, KEPT = 0, 1, 2, 3
OUTCOME_NAMES = {NOT_CHOSEN: "not chosen", MASKED: "[MASK]", RANDOM: "random", KEPT: "kept"}
#: Label of positions that carry no loss (the ``ignore_index`` of the cross-entropy).
IGNORE = -100
#: How positions are chosen (see the module docstring); REFERENCE is the default.
REFERENCE, INDEPENDENT = "reference", "independent"
RULES = {
    REFERENCE: "max(1, round(0.15·n)) per sequence, as BERT's released code",
    INDEPENDENT: "each token independently with p = 0.15",
}


def _choose(
    ids: np.ndarray, special: np.ndarray, rng: np.random.Generator, rate: float, rule: str, pad_id: int | None
) -> np.ndarray:
    """The chosen positions (bool, ids' shape) under ``rule``; the last axis is the sequence."""
    if rule == INDEPENDENT:
        return (rng.random(ids.shape) < rate) & ~special
    if rule != REFERENCE:
        raise ValueError(f"unknown masking rule {rule!r}; choose from {sorted(RULES)}")
    rows_ids = ids.reshape(-1, ids.shape[-1]) if ids.ndim else ids.reshape(1, 1)
    rows_sp = special.reshape(rows_ids.shape)
    length = (rows_ids != pad_id).sum(axis=1) if pad_id is not None else np.full(len(rows_ids), rows_ids.shape[1])
    eligible = (~rows_sp).sum(axis=1)
    k = np.minimum(eligible, np.maximum(1, np.rint(rate * length))).astype(np.int64) if rate > 0 else 0 * eligible
    keys = np.where(rows_sp, np.inf, rng.random(rows_ids.shape))
    rank = keys.argsort(axis=1, kind="stable").argsort(axis=1, kind="stable")
    return ((rank < k[:, None]) & ~rows_sp).reshape(ids.shape)


def mask_array(
    ids: np.ndarray,
    special: np.ndarray,
    rng: np.random.Generator,
    *,
    mask_id: int,
    vocab_size: int,
    first_random_id: int = 5,
    rate: float = MASK_RATE,
    probs: Sequence[float] = REPLACE_PROBS,
    rule: str = REFERENCE,
    pad_id: int | None = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Corrupt ids (one sequence, or a batch with the sequence on the last axis). ``special``
    (same shape, bool) marks positions never chosen; ``pad_id`` marks padding, which does not
    count in a sequence's length n.

    Returns (corrupted ids, labels = original id at chosen positions else ``IGNORE``,
    outcome codes). Random replacements are uniform over the whole vocabulary ``[0, vocab_size)``
    under the reference rule, over ``[first_random_id, vocab_size)`` under the independent one.
    """
    ids = np.asarray(ids)
    special = np.asarray(special, dtype=bool)
    if ids.shape != special.shape:
        raise ValueError(f"ids {ids.shape} and special {special.shape} differ in shape")
    p_mask, p_random, p_keep = probs
    if abs(p_mask + p_random + p_keep - 1.0) > 1e-9:
        raise ValueError(f"replacement probabilities must sum to 1, not {sum(probs)}")
    chosen = _choose(ids, special, rng, rate, rule, pad_id)
    u = rng.random(ids.shape)
    outcome = np.where(
        chosen, np.where(u < p_mask, MASKED, np.where(u < p_mask + p_random, RANDOM, KEPT)), NOT_CHOSEN
    ).astype(np.int8)
    randoms = rng.integers(0 if rule == REFERENCE else first_random_id, vocab_size, size=ids.shape)
    corrupted = np.where(outcome == MASKED, mask_id, np.where(outcome == RANDOM, randoms, ids)).astype(ids.dtype)
    labels = np.where(chosen, ids, IGNORE).astype(np.int64)
    return corrupted, labels, outcome


@dataclass
class MaskingRecord:
    """One draw on one sequence: which positions were chosen and what became of each.

    ``outcome[i]`` ∈ {NOT_CHOSEN, MASKED, RANDOM, KEPT}; ``input_ids`` is what the model reads,
    ``original_ids`` what it must predict at ``chosen`` positions.
    """

    original_ids: np.ndarray
    input_ids: np.ndarray
    outcome: np.ndarray
    seed: int | None

    @property
    def chosen(self) -> np.ndarray:
        """Positions chosen for prediction, ascending."""
        return np.flatnonzero(self.outcome != NOT_CHOSEN)

    @property
    def labels(self) -> np.ndarray:
        return np.where(self.outcome != NOT_CHOSEN, self.original_ids, IGNORE)

    def counts(self) -> dict[str, int]:
        return {OUTCOME_NAMES[k]: int((self.outcome == k).sum()) for k in (MASKED, RANDOM, KEPT)}


def mask_sequence(
    ids: Sequence[int],
    special: Sequence[bool],
    seed: int | None,
    *,
    mask_id: int,
    vocab_size: int,
    first_random_id: int = 5,
    force_mask: Sequence[int] = (),
    rate: float = MASK_RATE,
    probs: Sequence[float] = REPLACE_PROBS,
    rule: str = REFERENCE,
) -> MaskingRecord:
    """Draw the 15% / 80-10-10 corruption of one (unpadded) sequence with
    ``numpy.random.default_rng(seed)`` under ``rule``.

    ``force_mask``: positions (e.g. clicked by the user) that become ``[MASK]`` whatever the draw
    said; special positions among them are ignored.
    """
    original = np.asarray(ids, dtype=np.int64)
    sp = np.asarray(special, dtype=bool)
    corrupted, _, outcome = mask_array(
        original,
        sp,
        np.random.default_rng(seed),
        mask_id=mask_id,
        vocab_size=vocab_size,
        first_random_id=first_random_id,
        rate=rate,
        probs=probs,
        rule=rule,
        pad_id=None,
    )
    for pos in force_mask:
        if 0 <= pos < len(original) and not sp[pos]:
            outcome[pos] = MASKED
            corrupted[pos] = mask_id
    return MaskingRecord(original_ids=original, input_ids=corrupted, outcome=outcome, seed=seed)


@dataclass
class MaskingStats:
    """Running rates over repeated draws (index d = after draws 0 … d).

    ``chosen_rate``: chosen ÷ eligible tokens; ``mask_share``/``random_share``/``kept_share``:
    each outcome ÷ chosen tokens. ``eligible`` counts non-special tokens per draw.
    """

    n_draws: int
    eligible: int
    chosen_rate: np.ndarray
    mask_share: np.ndarray
    random_share: np.ndarray
    kept_share: np.ndarray
    totals: dict[str, int]

    def final(self) -> dict[str, float]:
        return {
            "chosen": float(self.chosen_rate[-1]),
            "[MASK]": float(self.mask_share[-1]),
            "random": float(self.random_share[-1]),
            "kept": float(self.kept_share[-1]),
        }


def masking_statistics(
    special: Sequence[bool],
    n_draws: int = 10_000,
    seed: int = 0,
    *,
    vocab_size: int = 100,
    rate: float = MASK_RATE,
    probs: Sequence[float] = REPLACE_PROBS,
    rule: str = REFERENCE,
) -> MaskingStats:
    """Repeat the draw ``n_draws`` times on a sequence with this special-token pattern.

    Under the independent rule the chosen rate converges to ``rate`` (law of large numbers; the
    standard error after N eligible tokens is √(p(1−p)/N)); under the reference rule every draw
    chooses exactly max(1, round(rate · n)) tokens. The outcome shares converge to ``probs``.
    """
    if n_draws < 1:
        raise ValueError(f"n_draws must be at least 1, not {n_draws}")
    sp = np.broadcast_to(np.asarray(special, dtype=bool), (n_draws, len(special)))
    ids = np.zeros(sp.shape, dtype=np.int64) + 5
    _, _, outcome = mask_array(
        ids,
        sp,
        np.random.default_rng(seed),
        mask_id=4,
        vocab_size=max(vocab_size, 6),
        rate=rate,
        probs=probs,
        rule=rule,
        pad_id=None,
    )
    per_draw = np.stack([(outcome == k).sum(axis=1) for k in (MASKED, RANDOM, KEPT)], axis=1)  # (n, 3)
    cum = per_draw.cumsum(axis=0).astype(np.float64)
    chosen = cum.sum(axis=1)
    eligible = int((~np.asarray(special, dtype=bool)).sum())
    seen = eligible * np.arange(1, n_draws + 1, dtype=np.float64)
    safe = np.maximum(chosen, 1.0)
    return MaskingStats(
        n_draws=n_draws,
        eligible=eligible,
        chosen_rate=chosen / np.maximum(seen, 1.0),
        mask_share=cum[:, 0] / safe,
        random_share=cum[:, 1] / safe,
        kept_share=cum[:, 2] / safe,
        totals={
            "eligible": eligible * n_draws,
            "chosen": int(chosen[-1]),
            "[MASK]": int(cum[-1, 0]),
            "random": int(cum[-1, 1]),
            "kept": int(cum[-1, 2]),
        },
    )
