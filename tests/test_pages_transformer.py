"""AppTest of the three Transformer pages on the shipped checkpoints: default view, stepping,
switching attention/head/model, side by side, bad input (clear messages, never an exception)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT, ROOT

TRANSLATION = str(ROOT / "pages" / "4_Transformer_translation.py")
ONE_HEAD = str(ROOT / "pages" / "5_Inside_one_head.py")
GENERATION = str(ROOT / "pages" / "6_Generation.py")

BAD_IDS = ["empty", "emoji", "chinese", "html", "10000_chars"]
BAD_INPUTS = ["", "😀🎉 🚗", "红色的汽车", "<script>alert('x')</script> <b>bold</b>", ("the red car " * 850)[:10_000]]


def _open(path: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


@pytest.fixture(scope="module")
def translation() -> AppTest:
    return _open(TRANSLATION)


@pytest.fixture(scope="module")
def one_head() -> AppTest:
    return _open(ONE_HEAD)


@pytest.fixture(scope="module")
def generation() -> AppTest:
    return _open(GENERATION)


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


@pytest.mark.slow
def test_translation_steps_kinds_heads_and_compare(translation: AppTest) -> None:
    at = translation
    assert "Output of" in " ".join(s.value for s in at.caption)
    at.text_input(key="tf_text").set_value("the red car is not small .").run()
    _ok(at)
    at.button(key="tf_next").click().run()
    at.button(key="tf_next").click().run()
    assert at.slider(key="tf_step").value == 3
    for kind in ("decoder", "cross", "encoder"):
        at.radio(key="tf_kind").set_value(kind).run()
        _ok(at)
    at.selectbox(key="tf_layer").set_value(1).run()
    at.selectbox(key="tf_head").set_value(-1).run()  # average over heads
    _ok(at)
    at.selectbox(key="tf_compare").set_value(at.selectbox(key="tf_compare").options[1]).run()
    _ok(at)
    assert any("RNN attention" in s.value for s in at.subheader)
    at.slider(key="tf_beam").set_value(3).run()
    _ok(at)
    assert any("Beam search" in s.value for s in at.subheader)
    at.slider(key="tf_beam").set_value(1).run()


def test_translation_toy_model(translation: AppTest) -> None:
    at = translation
    at.selectbox(key="tf_model").set_value("tf-reverse").run()
    _ok(at)
    assert at.text_input(key="tf_text").value == "3 1 4 1 5 9 2 6"
    at.text_input(key="tf_text").set_value("1 2 x").run()
    assert not at.exception and any("not one of them" in w.value for w in at.warning)
    at.selectbox(key="tf_model").set_value("tf-en-fr").run()
    _ok(at)


@pytest.mark.parametrize("text", BAD_INPUTS, ids=BAD_IDS)
def test_translation_bad_input(translation: AppTest, text: str) -> None:
    translation.text_input(key="tf_text").set_value(text).run()
    assert not translation.exception, translation.exception
    warnings = " ".join(w.value for w in translation.warning)
    if not text.strip():
        assert "nothing to translate" in warnings
    if len(text) > 1000:
        assert "cut off" in warnings


@pytest.mark.slow
def test_one_head_chain_and_scaling_switch(one_head: AppTest) -> None:
    at = one_head
    assert [s.value for s in at.subheader][:1] == ["The chain, as numbers"]
    at.selectbox(key="head_query").set_value(2).run()
    _ok(at)
    scaled_max = float(at.metric[0].value)
    at.toggle(key="head_scale").set_value(False).run()
    _ok(at)
    assert float(at.metric[0].value) >= scaled_max - 1e-6  # without ÷√d_k the softmax is sharper
    at.toggle(key="head_scale").set_value(True).run()
    for kind in ("decoder", "cross"):
        at.selectbox(key="head_kind").set_value(kind).run()
        _ok(at)
    at.selectbox(key="head_model").set_value("tf-lm").run()
    _ok(at)
    at.selectbox(key="head_query").set_value(3).run()
    _ok(at)
    assert any("check" in c.value.lower() for c in at.caption)
    at.selectbox(key="head_model").set_value("tf-en-fr").run()


@pytest.mark.parametrize("text", BAD_INPUTS, ids=BAD_IDS)
def test_one_head_bad_input(one_head: AppTest, text: str) -> None:
    one_head.text_input(key="head_text").set_value(text).run()
    assert not one_head.exception, one_head.exception


@pytest.mark.slow
def test_generation_steps_and_sampling(generation: AppTest) -> None:
    at = generation
    assert "Generated text" in [c.value for c in at.caption]
    at.button(key="gen_next").click().run()
    _ok(at)
    assert at.slider(key="gen_step").value == 2
    at.select_slider(key="gen_top_k").set_value(1).run()
    _ok(at)
    at.slider(key="gen_temperature").set_value(1.5).run()
    at.select_slider(key="gen_top_k").set_value(0).run()
    at.selectbox(key="gen_head").set_value(-1).run()
    _ok(at)


@pytest.mark.parametrize("text", BAD_INPUTS, ids=BAD_IDS)
@pytest.mark.slow
def test_generation_bad_input(generation: AppTest, text: str) -> None:
    generation.text_input(key="gen_text").set_value(text).run()
    assert not generation.exception, generation.exception
    if len(text) > 1000:
        assert any("cut off" in w.value for w in generation.warning)


@pytest.mark.slow
def test_label_smoothing_section(translation: AppTest) -> None:
    """The ε = 0 / ε = 0.1 comparison, pair by pair, from the written evaluation: a reliability diagram per test
    set, and each pair's verdict with its ECEs, chosen by them (issue 27's bar: lower ECE with ε = 0.1 on HSK's
    real sentences; on the grammar both models are under-confident, and the page says why it is not lower)."""
    import json

    _ok(translation)
    assert any("Label smoothing" in s.value for s in translation.subheader)
    saved = json.loads((ROOT / "checkpoints" / "seq2seq_evaluation.json").read_text())["label_smoothing"]["models"]
    pairs: dict[str, list[dict]] = {}
    for m in saved:
        pairs.setdefault(m["test_set"], []).append(m)
    assert sorted(pairs) == ["grammar", "hsk"] and all(len(p) == 2 for p in pairs.values())
    from tests.charts import charts

    diagrams = {c.key: c.figure for c in charts(translation) if str(c.key).startswith("tf_reliability_")}
    assert sorted(diagrams) == ["tf_reliability_grammar", "tf_reliability_hsk"]
    for test_set, figure in diagrams.items():  # each draws its pair's bins
        shown = [t for t in figure["data"] if str(t.get("name", "")).startswith("ε")]
        saved_bins = [m["bins"] for m in pairs[test_set.removeprefix("tf_reliability_")]]
        assert [t["y"] for t in shown] == [[b["accuracy"] for b in bins if b["count"]] for bins in saved_bins]
    for test_set, label in (("grammar", "grammar, English→French"), ("hsk", "HSK, 中文→English")):
        zero, smooth = sorted(pairs[test_set], key=lambda m: m["label_smoothing"])
        verdict = next(m.value for m in translation.markdown if m.value.startswith(f"**{label}**"))
        assert f"{zero['ece']:.4f}" in verdict and f"{smooth['ece']:.4f}" in verdict
        assert ("lowered the ECE" in verdict) == (smooth["ece"] < zero["ece"])
        if test_set == "hsk":  # the bar, on real sentences
            assert smooth["ece"] < zero["ece"] and zero["mean_confidence"] > zero["token_accuracy"]
        else:
            assert "under-confident" in verdict and zero["mean_confidence"] < zero["token_accuracy"]


@pytest.mark.slow
def test_exposure_section_decodes_a_test_sentence_both_ways(translation: AppTest) -> None:
    """Issue 27 item 3 on the Transformer page: the page model's first parting test sentence, decoded from the
    gold prefix and from its own, in a table and a side-by-side figure whose rows are the two runs' words."""
    from corpora.en_fr import make_splits
    from models.checkpoints import load_transformer
    from models.training.transformer import exposure_trace
    from tests.charts import charts
    from viz_core.labels import safe_label

    _ok(translation)
    assert any("exposure bias" in s.value for s in translation.subheader)
    model = translation.selectbox(key="tf_model").value
    index = int(translation.number_input(key="tf_exp_index").value)
    loaded = load_transformer(model)
    pair = make_splits()["test"][index]
    trace = exposure_trace(
        loaded.encoder_decoder, loaded.src_stoi, loaded.tgt_stoi, loaded.tgt_itos, pair.src, pair.tgt, 64
    )
    assert trace.parted is not None  # the view opens on a sentence where the runs part
    assert any(f"part at step {trace.parted}" in i.value for i in translation.info)
    figure = next(c.figure for c in charts(translation) if c.key == "tf_exposure_attention")
    forced_axis, free_axis = (figure["layout"][a] for a in ("yaxis", "yaxis2"))
    for axis, words in ((forced_axis, trace.forced_tokens), (free_axis, trace.free_tokens)):
        labelled = [str(t).split(" · ", 1) for t in axis["ticktext"]]  # "t · word", every row or a thinned few
        shown = [(safe_label(words[int(t)]), word) for t, word in labelled]  # a long word is cut to "profess…"
        assert shown and all(w == label or label.endswith("…") and w.startswith(label[:-1]) for w, label in shown)
    # click-to-explain on either run: the mean over the last layer's heads, replayed from that run's own prefix
    from tests.charts import clicked

    title = clicked(translation, "tf_exposure_attention", (trace.parted, 0), panel=1)
    assert title.startswith("**own prefix") and f"row {trace.parted}" in title and "average over heads" in title
    heads = translation.table[0].value
    assert len(heads) == loaded.encoder_decoder.config.n_heads + 1
    assert float(heads.iloc[-1, -1].replace("\\", "")) == pytest.approx(
        float(trace.free_attention[trace.parted, 0]), abs=1e-4
    )
    assert clicked(translation, "tf_exposure_attention", (1, 2)).startswith("**gold prefix")
