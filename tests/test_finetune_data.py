"""The synthetic fine-tuning data (corpora/nli.py) checked against independent readings of the words, and the
calibration error against a hand computation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corpora import en_fr, nli
from models.training.metrics import expected_calibration_error, reliability_bins

NOUNS = {n.key: n for n in en_fr.NOUNS.values()} | {n.en_pl: n for n in en_fr.NOUNS.values()}
SUBJECT_PRONOUNS = {"i", "you", "he", "she", "we", "they"}


def test_nli_labels_agree_with_a_reading_of_the_tokens_alone() -> None:
    pairs = nli.nli_pairs(300, seed=5)
    assert [p.label for p in pairs[:6]] == [0, 1, 2, 0, 1, 2]  # balanced, in turn
    disagree = [p for p in pairs if nli.label_of_edit(p.premise, p.hypothesis) != p.label]
    assert not disagree, disagree[:3]
    assert all("not" not in p.premise for p in pairs)  # premises are affirmative: dropping a word entails


def test_nli_hand_cases() -> None:
    p = tuple("the girl eats the green apple .".split())
    assert nli.label_of_edit(p, tuple("the girl eats the apple .".split())) == nli.ENTAILMENT
    assert nli.label_of_edit(p, tuple("she eats the green apple .".split())) == nli.ENTAILMENT
    assert nli.label_of_edit(p, tuple("the girl eats the red apple .".split())) == nli.CONTRADICTION
    assert nli.label_of_edit(p, tuple("the girl does not eat the green apple .".split())) == nli.CONTRADICTION
    assert nli.label_of_edit(p, tuple("the teacher eats the green apple .".split())) == nli.NEUTRAL
    assert nli.label_of_edit(p, tuple("the girl eats the big green apple .".split())) == nli.NEUTRAL


def test_qa_answers_are_the_spans_the_questions_ask_for() -> None:
    for item in nli.qa_items(150, seed=7):
        q, c, s, e = item.question, item.context, item.start, item.end
        assert 0 <= s <= e < len(c) and q[-1] == "?"
        if q[0] == "what":  # what does/do SUBJ VERB ? → the span right after "SUBJ VERB-form"
            subj = list(q[2:-2])
            assert list(c[s - len(subj) - 1 : s - 1]) == subj, item
            assert c[s - 1][:2] == q[-2][:2], item  # eats/eat, has/have
        else:  # who VERB-form REST ? → the span right before "VERB-form REST"
            assert q[0] == "who"
            rest = list(q[2:-1])
            assert list(c[e + 2 : e + 2 + len(rest)]) == rest, item
        # the answer occurs once in the context
        n = len(item.answer)
        assert sum(tuple(c[i : i + n]) == item.answer for i in range(len(c) - n + 1)) == 1


def test_subject_labels_match_the_first_noun_or_pronoun() -> None:
    for item in nli.cls_items(150, seed=9):
        first = next(t for t in item.tokens if t in NOUNS or t in SUBJECT_PRONOUNS)
        if first in SUBJECT_PRONOUNS:
            kind = 0
        else:
            feats = NOUNS[first].feats
            kind = 0 if "person" in feats else 1 if "animal" in feats else 2
        assert kind == item.label, item


def test_splits_do_not_share_sentences() -> None:
    split = nli.splits("nli", 300, 100)
    assert {p.premise for p in split["train"]}.isdisjoint(p.premise for p in split["test"])
    assert len(split["test"]) > 75


def test_ece_on_a_hand_case() -> None:
    conf = [0.9, 0.9, 0.6, 0.6, 0.3]
    right = [True, False, True, True, False]
    # bins (0.8, 0.9]: acc 0.5, conf 0.9; (0.5, 0.6]: acc 1, conf 0.6; (0.2, 0.3]: acc 0, conf 0.3
    assert expected_calibration_error(conf, right) == pytest.approx(2 / 5 * 0.4 + 2 / 5 * 0.4 + 1 / 5 * 0.3)
    bins = reliability_bins(conf, right)
    assert [b["count"] for b in bins] == [0, 0, 1, 0, 0, 2, 0, 0, 2, 0]
    assert expected_calibration_error([1.0, 1.0], [True, True]) == 0.0
    assert math.isnan(expected_calibration_error([], []))


def test_ece_against_a_direct_loop() -> None:
    rng = np.random.default_rng(0)
    conf = rng.uniform(0.05, 1.0, 500)
    right = rng.uniform(size=500) < conf**2
    total = 0.0
    for b in range(10):
        sel = [i for i, c in enumerate(conf) if b / 10 < c <= (b + 1) / 10]
        if sel:
            total += len(sel) / 500 * abs(np.mean(right[sel]) - np.mean(conf[sel]))
    assert expected_calibration_error(conf, right) == pytest.approx(total)
