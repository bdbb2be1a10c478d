"""AppTest of the seq2seq page on the shipped checkpoints: type, step, switch models, compare, bad input."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT, ROOT

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

PAGE = str(ROOT / "pages" / "2_Seq2seq_attention.py")


@pytest.fixture()
def app() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def step_value(at: AppTest) -> int:
    return at.slider(key="s2s_step").value


def test_default_page_shows_translation_and_heatmap(app):
    assert not app.error
    assert app.button(key="s2s_next") is not None
    assert "Translation by" in " ".join(s.value for s in app.caption)


def test_type_and_step(app):
    app.text_input(key="s2s_text").set_value("the red car is not small .").run()
    assert not app.exception
    assert step_value(app) == 1
    app.button(key="s2s_next").click().run()
    app.button(key="s2s_next").click().run()
    assert step_value(app) == 3
    app.button(key="s2s_prev").click().run()
    assert step_value(app) == 2
    assert not app.exception and not app.error


def test_switch_models_and_compare(app):
    for name in ["s2s-none", "s2s-luong-dot", "s2s-luong-general", "s2s-luong-concat", "s2s-bahdanau"]:
        app.selectbox(key="s2s_model").set_value(name).run()
        assert not app.exception, name
        assert not app.error, name
    app.selectbox(key="s2s_compare").set_value("s2s-none").run()
    assert not app.exception and not app.error
    assert any("No attention" in m.value for m in app.markdown)


def test_beam_and_attention_modes(app):
    app.selectbox(key="s2s_model").set_value("s2s-luong-general").run()
    app.slider(key="s2s_beam").set_value(4).run()
    assert not app.exception and not app.error
    assert any("Beam search" in s.value for s in app.subheader)
    assert len(app.tabs) >= 1
    for mode in ["hard", "soft"]:
        app.selectbox(key="s2s_mode").set_value(mode).run()
        assert not app.exception, mode
    app.slider(key="s2s_alpha").set_value(1.5).run()
    assert not app.exception and any("α = 1.5" in m.value for m in app.markdown)


@pytest.mark.parametrize("name, words", [("s2s-luong-local-m", "p_t = t"), ("s2s-luong-local-p", "predicted")])
def test_trained_local_models_show_their_window(app, name, words):
    app.selectbox(key="s2s_model").set_value(name).run()
    assert not app.exception and not app.error
    assert any(words in c.value for c in app.caption)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "😀🎉 🚗",
        "红色的汽车",
        "<script>alert('x')</script> <b>bold</b>",
        "the \x00\x07 red\u200b car",
        "the red car " * 800,
    ],
)
def test_bad_input_never_raises(app, text):
    app.text_input(key="s2s_text").set_value(text).run()
    assert not app.exception, app.exception
    if not text.strip():
        assert any("nothing to translate" in w.value for w in app.warning)


def test_long_input_is_truncated_with_notice(app):
    app.text_input(key="s2s_text").set_value("the red car " * 100).run()
    assert not app.exception
    assert any("cut off" in w.value for w in app.warning)


@pytest.fixture()
def checkpoint_folder(tmp_path, monkeypatch):
    """A checkpoints folder with a good Bahdanau model and a corrupt Luong-dot one."""
    import shutil

    import streamlit as st

    from models import checkpoints as checkpoint

    shutil.copytree(ROOT / "checkpoints" / "s2s-bahdanau", tmp_path / "s2s-bahdanau")
    shutil.copytree(ROOT / "checkpoints" / "s2s-luong-dot", tmp_path / "s2s-luong-dot")
    (tmp_path / "s2s-luong-dot" / "model.safetensors").write_bytes(b"\x00 not a safetensors file")
    monkeypatch.setattr(checkpoint, "CHECKPOINT_DIR", tmp_path)
    st.cache_data.clear()
    st.cache_resource.clear()
    yield tmp_path
    st.cache_data.clear()
    st.cache_resource.clear()


def test_corrupt_checkpoint_is_named_and_the_page_keeps_working(checkpoint_folder):
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception and not at.error
    at.selectbox(key="s2s_compare").set_value("s2s-luong-dot").run()
    assert not at.exception
    assert any("model.safetensors" in e.value for e in at.error)
    at.selectbox(key="s2s_compare").set_value(None).run()
    at.selectbox(key="s2s_model").set_value("s2s-luong-dot").run()
    assert not at.exception
    assert any("model.safetensors" in e.value and "s2s-luong-dot" in e.value for e in at.error)
    at.selectbox(key="s2s_model").set_value("s2s-bahdanau").run()
    assert not at.exception and not at.error


def test_exposure_bias_view(app):
    """One test sentence decoded from the gold prefix and from its own, the parting step said, both models."""
    assert any("Teacher forcing and exposure bias" in s.value for s in app.subheader)
    assert not app.exception, app.exception
    for name in ("s2s-forcing-1.0", "s2s-forcing-0.5"):
        app.selectbox(key="exp_model").set_value(name).run()
        assert not app.exception, app.exception
        said = [i.value for i in app.info]
        assert any("They part at step" in v or "never leaves the gold prefix" in v for v in said)
    app.number_input(key="exp_index").set_value(5).run()
    assert not app.exception, app.exception


def test_exposure_figure_explains_a_cell_of_either_run(app):
    """Click-to-explain on both panels: each derivation replays its own run (the reference, or the model's
    own words) and reproduces the drawn weight; the source's end token is a labelled column."""
    from tests.charts import charts, clicked
    from viz_core.labels import safe_label

    app.selectbox(key="exp_model").set_value("s2s-forcing-1.0").run()
    figure = next(c.figure for c in charts(app) if c.key == "exposure_attention")
    assert figure["layout"]["xaxis"]["ticktext"][-1] == safe_label("</s>")
    title = clicked(app, "exposure_attention", (2, 1))
    assert title.startswith("**gold prefix") and "row 2" in title and "column 1" in title
    title = clicked(app, "exposure_attention", (3, 0), panel=1)
    assert title.startswith("**own prefix") and "row 3" in title
    index = app.number_input(key="exp_index")
    index.set_value(index.value + 1).run()  # another sentence: the click is forgotten
    assert not app.exception and not any("Why" in m.value and "Query" in m.value for m in app.markdown)
