"""The Present page (AppTest): a ready-made deck presented and walked with the step control (steps,
then the next slide, the slide and step in the URL), a bad slide number falls back to slide 1
with a notice, a bad upload is refused with the format's message and a good one is presented,
and a slide's refused value is noted, never an error."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.inference import llm as L
from models.runs.registry import Registry
from models.runs.store import list_runs
from models.runs.snapshots import read_snapshots
from models.training.runs import FINISHED, RUNS_ENV
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_llm import tiny  # noqa: F401  (the fixture: a tiny random Llama)
from tests.test_runs import TINY, wait
from ui.deck import FORMAT, Deck, Slide, deck_json
from viz_core.export import _decode

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

PAGE = str(ROOT / "pages" / "12_Present.py")
TEACHING = "1_teaching_order"


def _app(**query: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [i.value for i in at.info] + [c.value for c in at.caption])


def test_ready_made_deck_presented_and_walked():
    at = _app()
    assert not at.exception
    at.button(key="present_start").click().run()
    assert not at.exception
    assert at.query_params["deck"] == TEACHING and at.query_params["slide"] == "1"
    assert at.query_params["step"] == "1"
    assert "1 / 10" in _texts(at) and "step 1 / 9" in _texts(at)
    assert at.button(key="slide_prev").disabled  # the first step of the first slide
    for step in range(2, 10):  # slide 1's nine decoding steps, then on to slide 2
        at.button(key="slide_next").click().run()
        assert at.query_params["slide"] == "1" and at.query_params["step"] == str(step)
    at.button(key="slide_pgdn").click().run()  # the clicker's PageDown: past the last step
    assert not at.exception
    assert at.query_params["slide"] == "2" and at.query_params["step"] == "1"
    assert "2 / 10" in _texts(at)
    at.button(key="slide_pgup").click().run()  # back: slide 1 at its last step
    assert at.query_params["slide"] == "1" and at.query_params["step"] == "9"
    at.button(key="slide_end").click().run()  # Esc: back to the deck's overview
    assert "slide" not in at.query_params
    assert at.button(key="present_start")


@pytest.mark.parametrize("deck", ["3_beyond_context", "4_beyond_context_zh"])
def test_beyond_context_deck_shows_every_slide(deck):
    for number in range(1, 5):  # Transformer-XL with and without memory, XLNet left to right and in any order
        at = _app(deck=deck, slide=str(number))
        assert not at.exception and not at.error and not at.warning, (deck, number)
        assert at.query_params["slide"] == str(number) and f"{number} / 4" in _texts(at)


def test_link_to_a_slide_and_step():
    at = _app(deck=TEACHING, slide="9", step="4")
    assert not at.exception
    assert "9 / 10" in _texts(at) and "step 4 / 6" in _texts(at)
    for _ in range(3):
        at.button(key="slide_next").click().run()
    assert at.query_params["slide"] == "10" and "step" not in at.query_params  # slide 10 has no steps
    assert at.button(key="slide_next").disabled


def test_bad_slide_numbers_fall_back_to_slide_one():
    for bad in ("99", "0", "-1", "abc", "1.5", "<b>x</b>"):
        at = _app(deck=TEACHING, slide=bad)
        assert not at.exception, bad
        assert any("slide number" in i.value and "slide 1" in i.value for i in at.info), bad
        assert at.query_params["slide"] == "1" and "1 / 10" in _texts(at)
    at = _app(deck=TEACHING, slide="2", step="999")  # a stale step: the slide's own step
    assert at.query_params["step"] == "1"


def test_unknown_deck_falls_back_with_a_notice():
    at = _app(deck="no-such-deck")
    assert not at.exception
    assert any("deck" in i.value and "no\\-such\\-deck" in i.value for i in at.info)
    assert at.radio(key="present_pick").value == TEACHING


def test_bad_upload_is_refused_and_a_good_one_presented():
    at = _app(deck="upload")
    for content, words in (
        (b"{oops", "not valid JSON"),
        (b'{"format": "pptx"}', FORMAT),
        (
            json.dumps({"format": FORMAT, "version": 1, "slides": [{"page": "nope"}]}).encode(),
            "not a page a slide can show",
        ),
    ):
        at.file_uploader(key="present_upload").set_value(("deck.json", content, "application/json")).run()
        assert not at.exception
        assert any(words.replace(".", "\\.").replace("-", "\\-") in w.value for w in at.warning), words
        assert len(at.button) == 0  # nothing to present
    good = Deck("Mine", (Slide("2_Seq2seq_attention", {"s2s_model": "Luong dot", "s2s_step": "2"}, "One"),))
    at.file_uploader(key="present_upload").set_value(("mine.json", deck_json(good).encode(), "application/json"))
    at.run()
    assert not at.warning
    at.button(key="present_start").click().run()
    assert not at.exception
    assert "step 2 /" in _texts(at) and "Luong dot" in _texts(at)


def test_refused_slide_value_is_noted_not_an_error():
    bad = Deck(
        "Bad values",
        (
            Slide("2_Seq2seq_attention", {"s2s_model": "<i>gone</i>", "s2s_step": "999"}),
            Slide("4_Transformer_translation", {"tf_text": ""}),  # unusable input: the slide says why
        ),
    )
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.session_state["deck_uploaded"] = bad
    at.query_params.update(deck="upload", slide="1")
    at.run()
    assert not at.exception and not at.error
    notes = _texts(at)
    assert "This slide's model" in notes and "gone" in notes
    assert "step “999”" in notes and "Bahdanau" in notes  # the page's default model
    at.query_params["slide"] = "2"
    at.run()
    assert not at.exception and not at.error and len(at.warning) == 1
    assert not at.button(key="slide_prev").disabled  # the keys still move on from a problem slide


def test_english_deck_presented_in_chinese():
    """The ready-made deck's values are English labels; read in 中文 they still name the same
    models, attentions, layers and heads (no slide falls back), and the controls speak 中文."""
    for slide in ("4", "5"):
        at = _app(deck=TEACHING, slide=slide, lang="zh")
        assert not at.exception
        assert not at.caption, [c.value for c in at.caption]  # no refused value
        assert "第 1 / 9 步" in _texts(at)
    at = _app(deck=TEACHING, slide="1", lang="zh")
    assert not at.caption and "Bahdanau" not in _texts(at)  # the deck's model, not the page's default


def test_chinese_reader_gets_the_chinese_deck_by_default():
    at = _app(lang="zh")
    assert not at.exception
    assert at.radio(key="present_pick").value == "2_teaching_order_zh"
    assert at.title[0].value == "演示"


def test_add_this_view_records_the_page_and_every_url_setting():
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(s2s_model="Luong dot", s2s_text="the red car is small .", s2s_step="3")
    at.run()
    assert not at.exception
    at.button(key="deck_add").click().run()
    slides = at.session_state["deck_slides"]
    assert len(slides) == 1 and slides[0].page == "2_Seq2seq_attention"
    # the slide holds values, whatever the link held (an older link's label): the same in every language
    assert {"s2s_model": "s2s-luong-dot", "s2s_text": "the red car is small .", "s2s_step": "3"}.items() <= slides[
        0
    ].params.items()
    present = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    present.session_state["deck_slides"] = slides  # the same session's deck on the Present page
    present.run()
    assert present.radio(key="present_pick").value == "session"
    present.button(key="present_start").click().run()
    assert "step 3 /" in _texts(present) and "Luong dot" in _texts(present)


# ------------------------------------------------------------------------------------------------
# The slides of the Real LLM, Transformer-XL and Training studio pages: each figure is the run's
# own numbers at the slide's step, ▶ draws the next step, a refused value is noted.
# ------------------------------------------------------------------------------------------------


def _present(*slides: Slide, number: int = 1, lang: str = "en") -> AppTest:
    """Present a deck of ``slides`` (as an uploaded deck) at slide ``number``."""
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.session_state["deck_uploaded"] = Deck("New slides", slides)
    at.query_params.update(deck="upload", slide=str(number), lang=lang)
    at.run()
    assert not at.exception and not at.error and not at.warning, [w.value for w in at.warning]
    return at


def _drawn(at: AppTest) -> np.ndarray:
    """The weights of the slide's one figure: its (first) heatmap's z."""
    (chart,) = charts(at)
    heatmap = next(d for d in chart.figure["data"] if d["type"] == "heatmap")
    return np.asarray(_decode(heatmap["z"]), dtype=float)


def _next(at: AppTest) -> AppTest:
    at.button(key="slide_next").click().run()
    assert not at.exception
    return at


@pytest.fixture
def tiny_llm(tiny, monkeypatch):  # noqa: F811
    """The Real LLM page's model replaced by test_llm's tiny random Llama (3 layers, 6 heads)."""
    from ui import llm as page_llm

    monkeypatch.setattr(L, "gguf_path", lambda *args, **kwargs: ROOT / "tiny.gguf")
    monkeypatch.setattr(L, "is_converted", lambda *args, **kwargs: True)
    monkeypatch.setattr(L, "load_llm", lambda *args, **kwargs: tiny)
    page_llm.shared_llm.clear()
    page_llm.generation.clear()
    yield tiny
    page_llm.shared_llm.clear()
    page_llm.generation.clear()


def test_llm_slide_draws_each_generated_tokens_attention(tiny_llm):
    params = {
        "llm_prompt": "w3 w9 w4 w7",
        "llm_chat": "false",
        "llm_temperature": "0",
        "llm_max_new": "4",
        "llm_rows": "the 9 heads of one layer",
        "llm_layer": "2",
        "llm_step": "2",
    }
    trace = L.generate_text(
        tiny_llm, "w3 w9 w4 w7", False, max_new=4, temperature=0.0, top_k=50, top_p=0.9, seed=0, use_cache=True
    )
    at = _present(Slide("9_LLM_explorer", params))
    assert not at.caption  # every value taken
    assert f"step 2 / {len(trace.steps)}" in _texts(at)
    np.testing.assert_allclose(_drawn(at), trace.steps[1].attention[1], atol=1e-6)  # layer 2's heads, step 2
    np.testing.assert_allclose(_drawn(_next(at)), trace.steps[2].attention[1], atol=1e-6)
    assert at.query_params["step"] == "3"
    at = _present(Slide("9_LLM_explorer", {**params, "llm_layer": "99"}))
    assert "Layer “99”" in _texts(at) and "default" in _texts(at)
    middle = tiny_llm.n_layers // 2  # the page's default layer (1-based)
    np.testing.assert_allclose(_drawn(at), trace.steps[1].attention[middle - 1], atol=1e-6)
    at = _present(Slide("9_LLM_explorer", {**params, "llm_rows": "layers (mean of the 9 heads)"}))
    np.testing.assert_allclose(_drawn(at), trace.steps[1].attention.mean(axis=1), atol=1e-6)  # one row per layer


def test_a_slide_from_the_bert_finetuning_tab_shows_its_figures():
    """Issue 27 item 7: the BERT page's fine-tuning tab on a slide: both test figures of the model and task, and
    the tab's change grid, the checkpoint's recorded numbers (MiniLM-L6's from the saved evaluation)."""
    from ui.bert import finetune_record
    from ui.views.bert import FinetuneState

    for state in (FinetuneState("small", "nli"), FinetuneState("minilm", "cls")):
        at = _present(Slide("7_BERT_masking", state.link()))
        assert not at.caption  # every value taken
        training = finetune_record(state.model, state.task)[1]
        scores = training.get("test") or training
        shown = _texts(at).replace("\\", "")  # (the line is markdown-escaped)
        assert f"(§4) {scores['finetuned']:.1%}" in shown and f"(§5.3) {scores['frozen']:.1%}" in shown
        np.testing.assert_allclose(_drawn(at), np.asarray(training["attention_change"]), atol=1e-9)
    at = _present(Slide("7_BERT_masking", {"topic": "finetune", "bert_ft_task": "ner"}))
    assert "ner" in _texts(at)  # a refused task: noted, the first task shown


def test_section_slides_draw_exposure_and_label_smoothing_as_their_sections_do():
    """Issue 27 item 7: the exposure-bias sections (Transformer and seq2seq pages) and the label-smoothing
    section on slides: the same traces and saved figures the sections draw."""
    from ui import seq2seq as s2s_ui
    from ui import transformer as tf_ui
    from ui.views.seq2seq import ExposureState as Seq2seqExposure
    from ui.views.transformer import ExposureState, SmoothingState

    for page, state, trace in (
        ("4_Transformer_translation", ExposureState("tf-en-fr", 8), tf_ui.exposure_of("tf-en-fr", 8)),
        ("2_Seq2seq_attention", Seq2seqExposure("s2s-forcing-0.5", 5), s2s_ui.exposure_of("s2s-forcing-0.5", 5)),
    ):
        at = _present(Slide(page, state.link()))
        assert not at.caption  # every value taken
        (chart,) = charts(at)
        heatmaps = [d for d in chart.figure["data"] if d["type"] == "heatmap"]
        np.testing.assert_allclose(np.asarray(_decode(heatmaps[0]["z"]), dtype=float), trace.forced_attention)
        np.testing.assert_allclose(np.asarray(_decode(heatmaps[1]["z"]), dtype=float), trace.free_attention)
        shown = _texts(at).replace("\\", "")
        assert " ".join(trace.gold) in shown
        assert (f"part at step {trace.parted}" in shown) if trace.parted is not None else "never leaves" in shown
    at = _present(Slide("4_Transformer_translation", SmoothingState().link()))
    pairs = tf_ui.label_smoothing_pairs()
    drawn = charts(at)
    assert len(drawn) == len(pairs) == 2  # one reliability diagram per test set
    for chart, pair in zip(drawn, pairs.values()):
        ys = [t["y"] for t in chart.figure["data"] if str(t.get("name", "")).startswith("ε")]
        assert ys == [[b["accuracy"] for b in m["bins"] if b["count"]] for m in pair]
    assert all(f"{m['ece']:.4f}" in _texts(at).replace("\\", "") for pair in pairs.values() for m in pair)


def test_a_section_button_adds_that_section_as_a_slide():
    """The translation page's sections each add their own slide: the section's state, not the page's view."""
    from ui.deck import SESSION_KEY
    from ui.views.transformer import SmoothingState

    at = AppTest.from_file(str(ROOT / "pages" / "4_Transformer_translation.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception
    index = int(at.number_input(key="tf_exp_index").value)
    at.button(key="deck_add_exposure").click().run()
    at.button(key="deck_add_smoothing").click().run()
    first, second = at.session_state[SESSION_KEY]
    assert first.page == second.page == "4_Transformer_translation"
    assert first.params == {"topic": "exposure", "tf_model": "tf-en-fr", "tf_exp_index": str(index)}
    assert second.params == SmoothingState().link() == {"topic": "smoothing"}


def test_transformer_xl_slide_steps_through_the_segments():
    from models.checkpoints import load_txl
    from models.inference.transformer_xl import read_passage
    from ui.transformer_xl import EXAMPLES

    trace = read_passage(load_txl("xl-lm"), EXAMPLES[1], 6, 4)
    params = {
        "txl_text": EXAMPLES[1],
        "txl_seg": "6",
        "txl_mem": "4",
        "txl_layer": "layer 2",
        "txl_head": "head 3",
        "txl_step": "2",
    }
    at = _present(Slide("10_Transformer_XL", params))
    assert not at.caption and f"step 2 / {len(trace.segments)}" in _texts(at)
    np.testing.assert_allclose(_drawn(at), trace.segments[1].attention[1, 2], atol=1e-6)  # [memory | segment]
    assert _drawn(at).shape == (6, 4 + 6)
    np.testing.assert_allclose(_drawn(_next(at)), trace.segments[2].attention[1, 2], atol=1e-6)
    at = _present(Slide("10_Transformer_XL", {**params, "txl_seg": "99", "txl_head": "average over heads"}))
    assert "Segment L “99”" in _texts(at)  # the page's default segment length, 8
    default = read_passage(load_txl("xl-lm"), EXAMPLES[1], 8, 4)
    np.testing.assert_allclose(_drawn(at), default.segments[1].attention[1].mean(axis=0), atol=1e-6)


@pytest.fixture
def two_runs(tmp_path, monkeypatch):
    """Two tiny runs with different probes trained in an empty runs folder: (the one listed second,
    the one listed first: the page's default) SavedRun."""
    monkeypatch.setenv(RUNS_ENV, str(tmp_path))
    registry = Registry(tmp_path, max_active=1)
    for probe in ("the small cat is not red .", "the car is red ."):
        assert wait(registry, registry.start(replace(TINY, probe=probe))).status == FINISHED
    first, second = list_runs(tmp_path)
    return second, first


def test_studio_slide_shows_the_runs_attention_emerging(two_runs):
    older, newer = two_runs  # "newer": listed first, the newest as the page orders them
    shots = read_snapshots(older.folder)
    at = _present(Slide("11_Training_studio", {"studio_run": older.id, "studio_snap_step": "2"}))
    assert not at.caption and f"step 2 / {len(shots)}" in _texts(at)
    np.testing.assert_allclose(_drawn(at), shots[1].weights, atol=1e-6)  # the older run's map, not the newer's
    np.testing.assert_allclose(_drawn(_next(at)), shots[2].weights, atol=1e-6)
    assert f"Step {shots[2].step}\\:" in _texts(at) and at.query_params["step"] == "3"  # the next snapshot
    at = _present(Slide("11_Training_studio", {"studio_run": "<b>gone</b>"}))
    assert "training run “<b>gone</b>”" in _texts(at).replace("\\", "")
    np.testing.assert_allclose(_drawn(at), read_snapshots(newer.folder)[0].weights, atol=1e-6)  # the newest run


def test_add_this_view_keeps_the_studio_run(two_runs):
    older, newer = two_runs
    at = AppTest.from_file(str(ROOT / "pages" / "11_Training_studio.py"), default_timeout=APPTEST_TIMEOUT)
    at.session_state["studio_run"] = older.id  # the run shown with its Show button
    at.run()
    assert not at.exception and at.query_params["studio_run"] == older.id
    at.button(key="deck_add").click().run()
    (slide,) = at.session_state["deck_slides"]
    assert slide.page == "11_Training_studio" and slide.params["studio_run"] == older.id
    linked = AppTest.from_file(str(ROOT / "pages" / "11_Training_studio.py"), default_timeout=APPTEST_TIMEOUT)
    linked.query_params["studio_run"] = older.id  # the link opens the same run
    linked.run()
    assert older.name in linked.success[0].value


def test_the_studio_publishes_the_state_its_link_gave(two_runs):
    """The studio opened from a state's link builds that same state from the run it shows and publishes it:
    "Add this view" records its link."""
    from ui.deck import VIEW_STATE
    from ui.views.base import SlideParams
    from ui.views.studio import StudioState

    older, _ = two_runs
    link = StudioState(older.id).link()
    at = AppTest.from_file(str(ROOT / "pages" / "11_Training_studio.py"), default_timeout=APPTEST_TIMEOUT)
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    state = StudioState.read(SlideParams(link))[0]
    assert state.run == older.id and at.session_state[VIEW_STATE] == ("11_Training_studio", state)


def test_the_studio_view_is_a_state_of_values(two_runs):
    """The studio's view state is the run's id (an RNN's probe has no layer or head): it reads back from
    its link in either language."""
    from tests.test_view_states import AskedParams
    from ui.i18n import reading
    from ui.views.base import SlideParams
    from ui.views.studio import StudioState

    older, _ = two_runs
    state = StudioState(older.id)
    for lang in ("en", "zh"):
        with reading(lang):
            p = SlideParams(state.link())
            assert StudioState.read(p)[0] == state and not p.notes
    p = SlideParams({"studio_run": "<b>gone</b>"})
    assert StudioState.read(p)[0] != state and p.notes  # a run that is not there: the newest, noted
    asked = AskedParams(state.link())  # its link's keys are the ones it declares, and read asks for them
    StudioState.read(asked)
    assert set(state.link()) <= set(StudioState.KEYS.values()) and set(state.link()) <= asked.asked
