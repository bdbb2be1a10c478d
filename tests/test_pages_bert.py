"""AppTests of the BERT masking page (shipped bert-small) and the Real model explorer (MiniLM-L6
and a tiny BertForMaskedLM folder built here): widgets, clicks, bad input never raises."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_hf_adapter import make_tiny_bert

pytestmark = pytest.mark.slow  # every test runs a page

BERT_PAGE = str(ROOT / "pages" / "7_BERT_masking.py")
REAL_PAGE = str(ROOT / "pages" / "8_Real_model_explorer.py")
BAD_TEXT = [
    "",
    "   \n\t ",
    "😀🎉 🚗",
    "红色的汽车很小",
    "<script>alert('x')</script> <b>bold</b> **md** [l](x)",
    "the \x00\x07 red\u200b car",
    "In the beginning God created the heavens. " * 240,
]


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _pills(at: AppTest):
    return next(p for p in at.pills if str(p.key).startswith("bert_click_"))


@pytest.fixture()
def bert() -> AppTest:
    at = AppTest.from_file(BERT_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    _ok(at)
    return at


def _topic(at: AppTest, topic: str) -> AppTest:
    """Open one of the page's topic tabs (only the open tab's section runs)."""
    at.session_state["topic"] = topic
    at.run()
    _ok(at)
    return at


def test_bert_page_default(bert):
    assert any("right at top-1" in m.value for m in bert.markdown)  # the predictions open first
    assert bert.number_input(key="bert_seed").value == 0
    for topic, part in (
        ("Pieces and embeddings", "WordPiece"),
        ("Masking", "Masking"),
        ("Attention", "[MASK], [CLS] and [SEP]"),
        ("Next sentence", "Next-sentence"),
        ("Fine-tuning", "Fine-tuning every parameter"),
    ):
        heads = " ".join(s.value for s in _topic(bert, topic).subheader)
        assert part in heads, (topic, part)
    assert len(bert.tabs) == 6 + 3  # the page's topics, and the fine-tuning heads


def test_fine_tuning_against_frozen_head(bert):
    """The fine-tuned checkpoints' recorded figures, then one test item's predictions and attention."""
    from models.training.finetune import load_finetuned, shipped_finetuned

    at = _topic(bert, "Fine-tuning")
    assert any("Fine-tuning every parameter" in s.value for s in at.subheader)
    assert {m.label for m in at.metric} == {"All parameters (§4)", "Frozen, head only (§5.3)"}
    at.number_input(key="bert_ft_example").set_value(3).run()
    at.selectbox(key="bert_ft_layer").set_value(2).run()
    at.selectbox(key="bert_ft_head").set_value(1).run()
    _ok(at)
    for name in shipped_finetuned():
        at.selectbox(key="bert_ft_task").set_value(load_finetuned(name).task).run()
        _ok(at)
        assert at.metric[0].value  # the fine-tuned model's answer on the item


def test_fine_tuning_before_and_after_maps_explain_a_cell_from_their_own_encoder(bert):
    """Click-to-explain on both maps of the fine-tuning tab: the same cell derived from the pre-trained and
    from the fine-tuned encoder, each reproducing the weight its map draws."""
    from tests.charts import clicked

    at = _topic(bert, "Fine-tuning")
    at.selectbox(key="bert_ft_layer").set_value(1).run()
    before = clicked(at, "bert_ft_pair", (2, 3)).replace("\\", "")
    after = clicked(at, "bert_ft_pair", (2, 3), panel=1).replace("\\", "")
    assert before.startswith("**pre-trained (bert-small) · Why") and after.startswith("**fine-tuned · Why")
    assert "(row 2)" in after and "(column 3)" in after and "layer 2, head 1" in after
    weight = [m.split("Why ", 1)[1].split("?", 1)[0] for m in (before, after)]
    assert weight[0] != weight[1]  # fine-tuning moved this head's weight (layer 2 changed most)


def test_resample_and_click_to_mask(bert):
    bert.button(key="bert_resample").click().run()
    _ok(bert)
    assert bert.number_input(key="bert_seed").value == 1
    bert.toggle(key="bert_draw").set_value(False).run()
    _ok(bert)
    assert any("No piece was chosen" in i.value for i in bert.info)
    pills = _pills(bert)
    first, second = pills.options[0], pills.options[2]
    pills.set_value([int(first.split()[0]), int(second.split()[0])]).run()
    _ok(bert)
    assert any("2 of" in m.value and "(2 clicked)" in m.value for m in bert.markdown)
    assert not any("No piece was chosen" in i.value for i in bert.info)
    # the attention focus now offers the [MASK] positions
    focus = _topic(bert, "Attention").segmented_control(key="bert_focus")
    assert any("[MASK]" in o for o in focus.options)
    focus.set_value(int(first.split()[0])).run()
    _ok(bert)


def test_embedding_picker_and_nsp_draw(bert):
    _topic(bert, "Pieces and embeddings").selectbox(key="bert_embed_pos").set_value(2).run()
    _ok(bert)
    bert.selectbox(key="bert_model").set_value("bert-small").run()  # the default minilm-mlm has no trained NSP head
    _ok(bert)
    _topic(bert, "Next sentence").button(key="bert_nsp_draw").click().run()
    _ok(bert)
    assert bert.table, "held-out pairs table"


def test_single_segment_and_example(bert):
    bert.selectbox(key="bert_model").set_value("bert-small").run()
    bert.text_input(key="bert_b").set_value("").run()
    _ok(bert)
    _topic(bert, "Next sentence")
    assert any("Type a sentence B" in c.value for c in bert.caption)
    if bert.selectbox(key="bert_example").options:
        bert.selectbox(key="bert_example").set_value(1).run()
        _ok(bert)


@pytest.mark.parametrize("text", BAD_TEXT)
def test_bert_bad_input_never_raises(bert, text):
    bert.text_input(key="bert_a").set_value(text).run()
    assert not bert.exception, bert.exception
    if not text.strip():
        assert any("empty" in w.value for w in bert.warning)
    if len(text) > 5000:
        assert any("cut" in w.value for w in bert.warning)
    if "😀" in text or "红" in text:
        assert any("[UNK]" in i.value for i in bert.info)


# --------------------------------------------------------------------------------------
# Real model explorer
# --------------------------------------------------------------------------------------


@pytest.fixture()
def real() -> AppTest:
    at = AppTest.from_file(REAL_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    _ok(at)
    return at


def test_real_session_keeps_no_trace_of_its_own(monkeypatch) -> None:
    """At 512 tokens a trace is 75 MB (283 MB for the LLM): a session, kept after its tab closes,
    must hold the input only (ui.bert.RealInput), so that real_trace's bounded cache is all the
    memory traces take. A head change or a download after the cache let go runs the input again."""
    import gc
    import weakref

    from streamlit.runtime.media_file_manager import MediaFileManager

    import models.inference.hf_adapter as hf
    from ui import bert

    made, downloads = [], {}
    run_hf = hf.run_hf
    monkeypatch.setattr(hf, "run_hf", lambda *a, **k: made.append(weakref.ref(trace := run_hf(*a, **k))) or trace)
    add_deferred = MediaFileManager.add_deferred
    monkeypatch.setattr(
        MediaFileManager,
        "add_deferred",
        lambda self, data, mime, coordinates, file_name=None, **k: (
            downloads.setdefault(file_name, data) and add_deferred(self, data, mime, coordinates, file_name, **k)
        ),
    )
    bert.real_trace.clear()
    at = AppTest.from_file(REAL_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    _ok(at)
    assert made and made[-1]() is not None  # in the cache
    bert.real_trace.clear()
    gc.unfreeze()  # (page_frame froze what was alive; a frozen cycle would hide a leak)
    gc.collect()
    assert all(ref() is None for ref in made)  # the session, its fragment and its buttons held none
    n = len(made)
    at.selectbox(key="real_head").set_value(4).run()
    _ok(at)
    assert len(made) == n + 1  # the evicted trace was run again
    at.selectbox(key="real_head").set_value(5).run()
    assert len(made) == n + 1  # and is cached again
    npz = next(data for name, data in downloads.items() if name.endswith("trace.npz"))
    bert.real_trace.clear()
    assert len(npz()) > 0 and len(made) == n + 2  # the download runs it again too


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return make_tiny_bert(tmp_path_factory.mktemp("tiny-bert-page"))


def test_real_default_minilm(real):
    assert any("72 heads" in s.value and "6 layers × 12 heads" in s.value for s in real.markdown)
    real.selectbox(key="real_layer").set_value(5).run()
    real.selectbox(key="real_head").set_value(11).run()
    _ok(real)
    real.selectbox(key="real_lines_query").set_value(3).run()
    real.selectbox(key="real_lines_which").set_value("average").run()
    real.segmented_control(key="real_scale").set_value("absolute").run()
    _ok(real)


def test_real_512_tokens_truncated(real):
    real.text_area(key="real_text").set_value("The trophy would not fit in the suitcase. " * 200).run()
    _ok(real)
    assert any("cut off" in w.value for w in real.warning)
    assert any("over 512 tokens" in s.value for s in real.markdown)
    real.number_input(key="real_lines_start").set_value(480).run()
    _ok(real)


def test_real_local_folder_and_not_a_model(real, tiny_dir, tmp_path, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_MODEL_ROOTS", str(tmp_path_factory.getbasetemp()))  # the confined mode's root
    real.radio(key="real_source").set_value("folder").run()
    _ok(real)
    real.text_input(key="real_dir").set_value(str(tiny_dir)).run()
    _ok(real)
    assert any("2 layers × 4 heads" in s.value for s in real.markdown)
    refused = "no model folder at this path"  # models.inference.model_access.REFUSED: says nothing about the path
    for bad, message in (
        (str(tmp_path), "no config.json"),
        ("/no/such/dir", refused),
        (str(ROOT / "app.py"), refused),
        ("<script>alert(1)</script>", refused),
    ):
        real.text_input(key="real_dir").set_value(bad).run()
        assert not real.exception, real.exception
        # The message is shown as typed: its markdown source escapes every markdown character.
        assert any(message in e.value.replace("\\", "") for e in real.error), (bad, [e.value for e in real.error])
    real.text_input(key="real_dir").set_value(str(tiny_dir)).run()  # a smaller model after a larger one
    real.selectbox(key="real_layer").set_value(1).run()
    _ok(real)


@pytest.mark.parametrize("text", BAD_TEXT)
def test_real_bad_input_never_raises(real, text):
    real.text_area(key="real_text").set_value(text).run()
    assert not real.exception, real.exception
    assert not real.error
    if not text.strip():
        assert any("empty" in w.value for w in real.warning)


def test_masking_rule_is_offered_and_said():
    """The reference rule (max(1, round(0.15·n)) per sequence) is the default; the independent one is offered."""
    at = AppTest.from_file(BERT_PAGE, default_timeout=APPTEST_TIMEOUT)
    _topic(at, "Masking")
    assert at.radio(key="bert_rule").value == "reference"
    assert any("max(1, round(0.15·n))" in m.value for m in at.markdown)
    at.radio(key="bert_rule").set_value("independent")
    _topic(at, "Masking")
    assert any("independently with probability 15%" in m.value for m in at.markdown)


def test_model_folder_error_never_renders_markdown(real, tmp_path):
    """A typed path that fails to load is quoted as typed: no link, no external image, no HTML."""
    hostile = str(tmp_path / "[x](http://example.invalid) ![i](http://example.invalid/i.png) <b>b</b>")
    real.radio(key="real_source").set_value("folder").run()
    real.text_input(key="real_dir").set_value(hostile).run()
    assert not real.exception
    (error,) = real.error
    assert "no model folder at this path" in error.value.replace("\\", "")  # one message, the path not quoted
    assert "[x](http" not in error.value and "<b>" not in error.value


CLASSIC = "the man went to the [MASK] to buy a gallon of milk"


def test_typed_mask_predicts_on_the_page_as_fill_mask_does():
    """The classic sentence typed with [MASK]: the page predicts there (no random draw, whatever the
    seed) with the very pieces and probabilities of `python -m models.fill_mask` (its function), and
    says so; with sentence B still there it says why its numbers differ from the command's."""
    from models.checkpoints import DEFAULT_MASKED_LM, load_bert
    from models.inference.bert import fill_mask
    from tests.charts import charts

    at = AppTest.from_file(BERT_PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(bert_a=CLASSIC, bert_seed="3")
    at.run()
    _ok(at)
    assert any("reading sentence B too" in m.value for m in at.markdown)  # the default B is still there
    at.text_input(key="bert_b").set_value("").run()
    _ok(at)
    assert at.selectbox(key="bert_model").value == DEFAULT_MASKED_LM
    assert not any("No piece was chosen" in i.value for i in at.info)
    assert any("python -m models.fill_mask" in m.value and "1 [MASK] typed" in m.value for m in at.markdown)
    bars = [c.figure for c in charts(at) if c.key == "bert_predictions"]
    assert len(bars) == 1 and len(bars[0]["data"]) == 1  # one panel: the typed [MASK], nothing drawn at random
    drawn = bars[0]["data"][0]
    expected = fill_mask(load_bert(DEFAULT_MASKED_LM), CLASSIC, top_k=5).masks
    assert len(expected) == 1 and expected[0]["position"] == 6
    assert drawn["customdata"][::-1] == [p["token"] for p in expected[0]["predictions"]]
    np.testing.assert_allclose(
        np.asarray(drawn["x"][::-1]) / 100, [p["prob"] for p in expected[0]["predictions"]], rtol=1e-6
    )
    assert expected[0]["predictions"][0]["token"] == "supermarket"
    assert bars[0]["layout"]["yaxis"]["ticktext"][-1] == "supermarket"  # written whole, not "sup…"
    for seed in ("4", "5"):  # another draw changes nothing
        at.number_input(key="bert_seed").set_value(int(seed)).run()
        _ok(at)
        again = [c.figure for c in charts(at) if c.key == "bert_predictions"][0]["data"]
        assert len(again) == 1 and again[0]["x"] == drawn["x"]


def _z(trace: dict) -> np.ndarray:
    """A heatmap trace's z as plotly.py sent it (a list, or a typed array in base64)."""
    from tests.charts import typed_array

    z = typed_array(trace["z"])
    return z if isinstance(z, np.ndarray) else np.asarray(z, dtype=float)


def test_the_minilm_recorded_without_its_weights_shows_its_recorded_attention_change(bert, monkeypatch):
    """Where this machine lacks the fine-tuned MiniLM-L6's weights, picking it draws the layer × head change
    recorded in the saved evaluation (6 × 12) and says which command trains the weights; nothing else loads."""
    from models.training import finetune
    from tests.charts import charts

    monkeypatch.setattr(finetune, "unshipped_folders", lambda: {})
    recorded = {r["task"]: r for r in finetune.recorded_unshipped()}
    at = _topic(bert, "Fine-tuning")
    at.selectbox(key="bert_ft_model").set_value("minilm").run()
    _ok(at)
    for task in ("nli", "qa"):
        at.selectbox(key="bert_ft_task").set_value(task).run()
        _ok(at)
        [change] = [c for c in charts(at) if c.key == "bert_ft_change"]
        z = _z(change.figure["data"][0])
        assert z.shape == (6, 12)
        np.testing.assert_allclose(z, np.asarray(recorded[task]["attention_change"]), atol=1e-12)
        assert any(recorded[task]["command"] in i.value for i in at.info)
        assert not at.metric  # no test item's answers without the weights


def test_a_fine_tuned_model_on_this_machine_is_offered_and_loaded_from_its_folder(bert, monkeypatch):
    """A MiniLM-L6 fine-tuned here (its folder under the user cache) is offered beside bert-small and its test
    items are answered by the model loaded from that folder (a shipped checkpoint's folder stands in for it)."""
    from models.checkpoints import checkpoint_path
    from models.training import finetune

    [nli] = [n for n in finetune.shipped_finetuned() if finetune.load_finetuned(n).task == "nli"]
    folder = checkpoint_path(nli)
    monkeypatch.setattr(finetune, "unshipped_folders", lambda: {"minilm-nli": folder})
    at = _topic(bert, "Fine-tuning")
    assert at.selectbox(key="bert_ft_model").options == ["bert-small", "MiniLM-L6"]
    at.selectbox(key="bert_ft_model").set_value("minilm").run()
    _ok(at)
    assert at.selectbox(key="bert_ft_task").value == "nli"
    assert not at.info
    assert {m.label for m in at.metric} == {"All parameters (§4)", "Frozen, head only (§5.3)"}
    assert at.metric[0].value
