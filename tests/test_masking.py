"""BERT's masking procedure: 15% chosen (per sequence, as the reference code, or independently),
80/10/10, never special tokens, reproducible by seed."""

import numpy as np
import pytest

from corpora.masking import (
    IGNORE,
    INDEPENDENT,
    KEPT,
    MASKED,
    NOT_CHOSEN,
    RANDOM,
    mask_array,
    mask_sequence,
    masking_statistics,
)

MASK_ID, VOCAB = 4, 6000


def _batch(n_tokens: int = 100_000, width: int = 64, seed: int = 0):
    """Random ids with [CLS] first, [SEP] last and a few [PAD]s, about ``n_tokens`` eligible tokens."""
    rng = np.random.default_rng(seed)
    rows = n_tokens // (width - 2) + 1
    ids = rng.integers(5, VOCAB, size=(rows, width))
    ids[:, 0], ids[:, -1] = 2, 3
    special = np.zeros_like(ids, dtype=bool)
    special[:, 0] = special[:, -1] = True
    return ids, special


def test_rates_within_one_point_over_100k_tokens():
    ids, special = _batch()
    corrupted, labels, outcome = mask_array(
        ids, special, np.random.default_rng(42), mask_id=MASK_ID, vocab_size=VOCAB, rule=INDEPENDENT
    )
    eligible = (~special).sum()
    assert eligible >= 100_000
    chosen = outcome != NOT_CHOSEN
    assert abs(chosen.sum() / eligible - 0.15) < 0.01
    n = chosen.sum()
    assert abs((outcome == MASKED).sum() / n - 0.80) < 0.01
    assert abs((outcome == RANDOM).sum() / n - 0.10) < 0.01
    assert abs((outcome == KEPT).sum() / n - 0.10) < 0.01


def test_outcomes_agree_with_ids_and_labels():
    ids, special = _batch(20_000)
    corrupted, labels, outcome = mask_array(
        ids, special, np.random.default_rng(1), mask_id=MASK_ID, vocab_size=VOCAB, rule=INDEPENDENT
    )
    assert not (outcome[special] != NOT_CHOSEN).any(), "special tokens are never chosen"
    assert (corrupted[outcome == MASKED] == MASK_ID).all()
    assert (corrupted[outcome == KEPT] == ids[outcome == KEPT]).all()
    assert (corrupted[outcome == NOT_CHOSEN] == ids[outcome == NOT_CHOSEN]).all()
    rand = corrupted[outcome == RANDOM]
    assert ((rand >= 5) & (rand < VOCAB)).all(), "random replacements are non-special pieces"
    assert (labels[outcome != NOT_CHOSEN] == ids[outcome != NOT_CHOSEN]).all()
    assert (labels[outcome == NOT_CHOSEN] == IGNORE).all()


def test_seed_reproduces_a_draw_and_force_mask():
    ids = list(range(10, 40))
    special = [True] + [False] * 28 + [True]
    a = mask_sequence(ids, special, 7, mask_id=MASK_ID, vocab_size=VOCAB)
    b = mask_sequence(ids, special, 7, mask_id=MASK_ID, vocab_size=VOCAB)
    assert (a.input_ids == b.input_ids).all() and (a.outcome == b.outcome).all()
    c = mask_sequence(ids, special, 7, mask_id=MASK_ID, vocab_size=VOCAB, force_mask=[0, 3, 5], rate=0.0)
    assert c.chosen.tolist() == [3, 5], "position 0 is special and stays unchosen"
    assert c.input_ids[3] == MASK_ID and c.labels[3] == ids[3]
    assert sum(c.counts().values()) == 2


def test_statistics_converge():
    special = [True] + [False] * 20 + [True]
    stats = masking_statistics(special, n_draws=10_000, seed=0)
    final = stats.final()
    assert stats.eligible == 20 and stats.totals["eligible"] == 200_000
    assert abs(final["chosen"] - 0.15) < 0.005
    assert abs(final["[MASK]"] - 0.8) < 0.01 and abs(final["random"] - 0.1) < 0.01 and abs(final["kept"] - 0.1) < 0.01
    assert len(stats.chosen_rate) == 10_000
    assert stats.mask_share[-1] + stats.random_share[-1] + stats.kept_share[-1] == pytest.approx(1.0)


def test_bad_arguments():
    with pytest.raises(ValueError):
        mask_array(np.zeros(3), np.zeros(4, bool), np.random.default_rng(0), mask_id=4, vocab_size=10)
    with pytest.raises(ValueError):
        mask_array(
            np.zeros(3), np.zeros(3, bool), np.random.default_rng(0), mask_id=4, vocab_size=10, probs=(0.5, 0.1, 0.1)
        )
    with pytest.raises(ValueError):
        masking_statistics([False], n_draws=0)


def test_reference_rule_masks_round_15_percent_of_every_sequence():
    """create_pretraining_data.py: num_to_predict = max(1, round(len(tokens) · 0.15)), [CLS]/[SEP]
    counted and never chosen, padding not counted; random words from the whole vocabulary."""
    rng = np.random.default_rng(5)
    lengths = rng.integers(3, 64, size=3000)
    ids = np.zeros((3000, 64), dtype=np.int64)  # [PAD] = 0
    special = np.ones_like(ids, dtype=bool)
    for row, n in enumerate(lengths):
        ids[row, :n] = rng.integers(5, VOCAB, size=n)
        ids[row, 0], ids[row, n - 1] = 2, 3
        special[row, 1 : n - 1] = False
    corrupted, labels, outcome = mask_array(ids, special, np.random.default_rng(9), mask_id=MASK_ID, vocab_size=VOCAB)
    chosen = (outcome != NOT_CHOSEN).sum(axis=1)
    expected = np.minimum(lengths - 2, np.maximum(1, np.rint(0.15 * lengths)))
    assert (chosen == expected).all() and (chosen >= 1).all(), "every sequence gets a prediction"
    assert not (outcome[special] != NOT_CHOSEN).any()
    rand = corrupted[outcome == RANDOM]
    assert rand.min() < 5 and rand.max() >= VOCAB - 100, "random replacements come from the whole vocabulary"
    n = (outcome != NOT_CHOSEN).sum()
    assert abs((outcome == MASKED).sum() / n - 0.80) < 0.015


def test_independent_rule_leaves_some_sequences_without_a_prediction():
    ids = np.full((4000, 12), 7)
    special = np.zeros_like(ids, dtype=bool)
    special[:, 0] = special[:, -1] = True
    _, _, outcome = mask_array(
        ids, special, np.random.default_rng(0), mask_id=MASK_ID, vocab_size=VOCAB, rule=INDEPENDENT
    )
    empty = ((outcome != NOT_CHOSEN).sum(axis=1) == 0).mean()
    assert abs(empty - 0.85**10) < 0.03  # (1 − p)^n of the sequences: about 20% here
