"""Issue 29, items 5 and 6: the wrong-output notice of the models trained on real pairs (sentence chrF,
ROC AUC, the logistic fit and its cut, the notice's words) and the HSK test scores measured through the
page's own input pipeline, as the page shows them."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sacrebleu
from streamlit.testing.v1 import AppTest

from corpora.real_pairs import real_splits
from corpora.text import detokenize
from models import checkpoints
from models.checkpoints import load_results, load_transformer
from models.inference.notices import (
    MODEL_SIGNALS,
    SIGNALS,
    CorpusProfile,
    bad_output_chance,
    corpus_profile,
    output_signals,
    translation_notices,
    wrong_output_notice,
)
from models.inference.traces import Notice
from models.inference.translate import source_tokens, translate_transformer
from models.training import transformer as tf_recipe
from models.training.metrics import logistic_fit, roc_auc, sentence_chrf, youden_threshold
from models.training.seq2seq import real_figures
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.strings import STRINGS


def test_sentence_chrf_by_the_formula() -> None:
    """ "ab" against "abc": n = 1: P = 2/2, R = 2/3; n = 2: P = 1/1, R = 1/2; n ≥ 3: no hypothesis
    n-grams, so those orders are left out. P = 1, R = 7/12; chrF = 5 P R / (4 P + R)."""
    p, r = 1.0, (2 / 3 + 1 / 2) / 2
    assert sentence_chrf(["ab"], ["abc"]) == pytest.approx(100 * 5 * p * r / (4 * p + r))
    assert sentence_chrf(["the", "cat"], ["the", "cat"]) == pytest.approx(100.0)
    for hyp, ref in ((["i", "like", "rice"], ["i", "do", "not", "like", "rice"]), (["a", "b"], ["c"])):
        assert sentence_chrf(hyp, ref) == pytest.approx(sacrebleu.sentence_chrf("".join(hyp), ["".join(ref)]).score)


def test_roc_auc_is_the_share_of_ordered_pairs() -> None:
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [False, False, True, True]) == 1.0
    assert roc_auc([0.9, 0.8, 0.2, 0.1], [False, False, True, True]) == 0.0
    assert roc_auc([0.5, 0.5], [True, False]) == 0.5
    assert math.isnan(roc_auc([0.1, 0.2], [True, True]))
    rng = np.random.default_rng(0)
    scores, labels = rng.integers(0, 5, 40).astype(float), rng.random(40) < 0.4
    pairs = [(s, t) for (s, a), (t, b) in itertools.product(zip(scores, labels), repeat=2) if a and not b]
    brute = sum(1.0 if s > t else 0.5 if s == t else 0.0 for s, t in pairs) / len(pairs)
    assert roc_auc(scores, labels) == pytest.approx(brute)


def test_logistic_fit_and_youden_cut() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2000, 2))
    y = rng.random(2000) < 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 0] - 1.0 * x[:, 1])))
    w, b = logistic_fit(x, y, l2=0.0)
    assert w == pytest.approx([2.0, -1.0], abs=0.25) and b == pytest.approx(0.5, abs=0.2)
    assert youden_threshold([0.1, 0.4, 0.6, 0.9], [False, False, True, True]) == 0.6


FIT = {
    "signals": list(MODEL_SIGNALS),
    "mean": [0.0] * len(MODEL_SIGNALS),
    "scale": [1.0] * len(MODEL_SIGNALS),
    "coef": [-2.0, 0.0, 4.0, 0.0, 0.0, 0.0],
    "intercept": -1.0,
    "threshold": 0.5,
    "long_src": 9,
    "bad_share_flagged": 0.8,
    "bad_share_passed": 0.3,
}


@pytest.mark.parametrize(
    ("words", "unknown", "lps", "key"),
    [
        (["我", "喜欢", "茶"], [False, False, False], [-0.1, -0.2], "notice.risk.low"),
        (["我", "想", "喝", "咖啡"], [False, False, False, True], [-0.5, -1.0], "notice.risk.unknown"),
        (["我"] * 12, [False] * 12, [-1.0, -2.0], "notice.risk.long"),
        (["我", "喜欢", "茶"], [False, False, False], [-1.0, -2.0], "notice.risk.style"),
    ],
)
def test_the_notice_names_the_likely_reason_in_both_languages(words, unknown, lps, key) -> None:
    signals = output_signals(words, unknown, lps)
    assert signals["unknown_share"] == sum(unknown) / len(words) and signals["mean_log_prob"] == sum(lps) / len(lps)
    shown = ", ".join(f"“{w}”" for w, u in zip(words, unknown) if u)
    notice = wrong_output_notice(FIT, signals, sum(lps) / len(lps), shown, "HSK sentences")
    assert notice.key == key and (notice.level == "info") == (key == "notice.risk.low")
    assert (bad_output_chance(FIT, signals) >= 0.5) == (key != "notice.risk.low")
    en, zh = STRINGS[key]
    assert en.format(**notice.args) == notice.text and "test set" in notice.text
    assert "typical" not in notice.text
    if key == "notice.risk.unknown":
        assert "“咖啡”" in notice.text and "“咖啡”" in zh.format(**notice.args)


def test_corpus_signals_by_their_formulas() -> None:
    """novel_pairs, rarity and nearest_overlap of a sentence against three training sources, by hand."""
    profile = CorpusProfile.of([["a", "b", "c"], ["a", "d"], ["b", "c", "c", "e"]])
    got = profile.signals(["a", "b", "e", "x"])
    assert got["novel_pairs"] == pytest.approx(2 / 3)  # (a, b) seen; (b, e), (e, x) not
    counts = {"a": 2, "b": 2, "e": 1, "x": 0}
    assert got["rarity"] == pytest.approx(-sum(math.log1p(c) for c in counts.values()) / 4)
    # {a, b, e, x} against {a, b, c}: 2 / 5; {a, d}: 1 / 5; {b, c, e}: 2 / 5
    assert got["nearest_overlap"] == pytest.approx(2 / 5)
    assert profile.signals(["a", "d"])["nearest_overlap"] == 1.0
    assert profile.signals(["y", "z"]) == {"novel_pairs": 1.0, "rarity": 0.0, "nearest_overlap": 0.0}
    assert set(output_signals(["a"], [False], [-1.0], profile)) == set(SIGNALS)


def test_the_page_notice_reads_the_training_sources_as_the_evaluation_did() -> None:
    """A fit that holds the corpus signals: the page's notice computes them from that corpus's training
    sources, so its chance is the evaluation's formula on the same signals; a flagged sentence that the
    model knows word for word names its overlap with the closest training sentence."""
    words, unknown, lps = ["我", "喜欢", "茶"], [False, False, False], [-1.0, -2.0]
    fit = {
        **FIT,
        "signals": list(SIGNALS),
        "corpus": "hsk",
        "mean": [0.0] * len(SIGNALS),
        "scale": [1.0] * len(SIGNALS),
        "coef": [-2.0, 0, 0, 0, 0, 0, 0, 0, -3.0],
    }
    signals = output_signals(words, unknown, lps, corpus_profile("hsk"))
    scope = Notice("scope", "info", "", "notice.scope", {})
    notice = next(
        n for n in translation_notices(words, unknown, 0, True, -1.5, None, scope, lps, fit) if n.topic == "confidence"
    )
    assert notice.args["p"] == pytest.approx(bad_output_chance(fit, signals))
    assert notice.key == "notice.risk.unlike" and notice.args["overlap"] == signals["nearest_overlap"]
    assert 0 < signals["nearest_overlap"] < 1
    en, zh = STRINGS[notice.key]
    assert en.format(**notice.args) == notice.text and f"{signals['nearest_overlap']:.0%}" in zh.format(**notice.args)
    # without the training sources (a corpus this server cannot read), the page falls back on the confidence notice
    orphan = translation_notices(words, unknown, 0, True, -1.5, None, scope, lps, {**fit, "corpus": "no-such-corpus"})
    assert [n.key for n in orphan if n.topic == "confidence"] == ["notice.confidence.none"]


def test_every_real_model_has_its_fitted_notice_and_auc() -> None:
    """The saved evaluation holds each real-pairs model's fit (from the validation split) and its test AUC."""
    for part in load_results()["real"].values():
        for row in part["models"]:
            notice = row["notice"]
            assert notice["signals"] == list(SIGNALS) and notice["corpus"] == part["corpus"]
            assert 0 < notice["threshold"] < 1
            assert notice["meets_bar"] == (notice["auc_test"] >= 0.75)
            assert checkpoints.wrong_output_fit(row["name"]) == notice


def test_the_page_shows_the_evaluations_page_pipeline_figure(monkeypatch) -> None:
    """tf-hsk on a slice of the HSK test split: the evaluation reads each sentence through the page's own
    pipeline (the same tokens and output as the page's translation), and the page shows that figure."""
    loaded = load_transformer("tf-hsk")
    test = real_splits("hsk")["test"][:30]
    row = real_figures(tf_recipe.decoder_of(loaded), lambda text: source_tokens(text, loaded), test)
    assert row["page"]["bleu"] != row["bleu"], "the page's reading differs from the corpus's segmentation"
    decoded = tf_recipe.decoder_of(loaded)([source_tokens(detokenize(list(src)), loaded) for src, _ in test[:5]])
    for (src, _), hyp in zip(test[:5], decoded[0]):
        trace = translate_transformer(loaded, detokenize(list(src)))
        assert trace.src_tokens[:-1] == source_tokens(detokenize(list(src)), loaded)
        assert loaded.tgt_tokens([t for t in trace.output_ids if t != loaded.config.eos_id]) == hyp
    results = load_results()
    part = results["real"]["hsk"]
    part["models"] = [{**m, **row, "n_test": len(test)} if m["name"] == "tf-hsk" else m for m in part["models"]]
    monkeypatch.setattr(checkpoints, "load_results", lambda: results)
    at = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["tf_model"] = "tf-hsk"
    at.run()
    assert not at.exception
    markdown = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert f"BLEU {row['page']['bleu']}, chrF {row['page']['chrf']} on {len(test)} sentences" in markdown
    assert any(f"BLEU {row['bleu']}, chrF {row['chrf']}" in c.value for c in at.caption)  # the corpus's, labelled
