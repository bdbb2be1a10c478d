"""Shareable state: every page reads its input, model, layer, head, step and options from the URL
(widgets bound with ``bind="query-params"``), and bad or stale URL values fall back to defaults
with a one-line notice, never an exception.

AppTest sees what the server writes to the URL (a link's values that are kept or corrected, a
step moved by the Prev/Next buttons); a value the user picks in a widget is written to the URL by
the browser, which tests/browser/test_deep_links.py checks.
"""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.state import link_text

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

PAGES = {
    1: "1_Attention_from_scratch.py",
    2: "2_Seq2seq_attention.py",
    3: "3_Positional_encoding.py",
    4: "4_Transformer_translation.py",
    5: "5_Inside_one_head.py",
    6: "6_Generation.py",
    7: "7_BERT_masking.py",
    8: "8_Real_model_explorer.py",
}

# Each page's link: the URL values, then the widget values (by key) they must show.
LINKS = {
    1: (
        {"kr_n": "30", "kr_noise": "1.0", "kr_h": "0.5", "kr_method": "Average pooling"},
        {"kr_n": 30, "kr_noise": 1.0, "kr_h": 0.5, "kr_method": "average"},
    ),
    2: (
        {
            "s2s_model": "Luong dot",
            "s2s_text": "the red car is small .",
            "s2s_beam": "3",
            "s2s_mode": "Hard (decoding-time)",
            "s2s_step": "2",
        },
        {
            "s2s_model": "s2s-luong-dot",
            "s2s_text": "the red car is small .",
            "s2s_beam": 3,
            "s2s_mode": "hard",
            "s2s_step": 2,
        },
    ),
    3: (
        {"topic": "Similarity and rotation", "rot_tf_layer": "1", "rot_tf_head": "3", "rot_len": "64", "rot_k": "7"},
        {"rot_tf_layer": 1, "rot_tf_head": 3, "rot_len": 64, "rot_k": 7},
    ),
    4: (
        {
            "tf_model": "Transformer · English→French",
            "tf_text": "the red car is small .",
            "tf_layer": "layer 2",
            "tf_head": "head 3",
            "tf_step": "3",
            "tf_kind": "Encoder self-attention",
            "tf_beam": "2",
        },
        {
            "tf_model": "tf-en-fr",
            "tf_text": "the red car is small .",
            "tf_layer": 1,
            "tf_head": 2,
            "tf_step": 3,
            "tf_kind": "encoder",
            "tf_beam": 2,
        },
    ),
    5: (
        {
            "head_model": "Transformer · copy",
            "head_text": "3 1 4 1",
            "head_layer": "layer 2",
            "head_head": "head 4",
            "head_scale": "false",
            "head_kind": "Decoder self-attention (masked)",
        },
        {
            "head_model": "tf-copy",
            "head_text": "3 1 4 1",
            "head_layer": 1,
            "head_head": 3,
            "head_scale": False,
            "head_kind": "decoder",
        },
    ),
    6: (
        {
            "gen_text": "Blessed are",
            "gen_temperature": "0.5",
            "gen_max_new": "8",
            "gen_seed": "7",
            "gen_top_k": "5",
            "gen_step": "3",
            "gen_layer": "layer 2",
            "gen_head": "head 2",
        },
        {
            "gen_text": "Blessed are",
            "gen_temperature": 0.5,
            "gen_max_new": 8,
            "gen_seed": 7,
            "gen_top_k": 5,
            "gen_step": 3,
            "gen_layer": 1,
            "gen_head": 1,
        },
    ),
    7: (
        {
            "bert_a": "The dog ran home .",
            "bert_b": "It was late .",
            "bert_seed": "7",
            "bert_draw": "false",
            "bert_rule": "each token independently with p = 0.15",
        },
        {
            "bert_a": "The dog ran home .",
            "bert_b": "It was late .",
            "bert_seed": 7,
            "bert_draw": False,
            "bert_rule": "independent",
        },
    ),
    8: (
        {
            "real_text": "The cat sat on the mat .",
            "real_layer": "layer 3",
            "real_head": "head 5",
            "real_scale": "each head to its own maximum",
            "real_max": "64",
        },
        {"real_text": "The cat sat on the mat .", "real_layer": 2, "real_head": 4, "real_max": 64},
    ),
}

DEFAULTS = {"tf_model"}  # a link may name the default model; the URL then leaves it out
# (Streamlit ignores a whole query string over 524,288 characters, so 100,000 "é", six characters
# each once percent-encoded, would not reach the page at all: the link would simply open the defaults.)
EVIL_TEXT = "<script>alert(1)</script> **bold** [x](http://e) \u202e\u0000 é中 " + "x" * 100_000
# Each page's bad link: unknown names, layer 99, head -1, a step beyond the end, huge hostile text.
BAD = {
    1: {"topic": "<b>nope</b>", "kr_n": "nan", "kr_h": "99", "kr_method": "<i>x</i>"},
    2: {
        "s2s_model": "<i>gone</i>",
        "s2s_text": EVIL_TEXT,
        "s2s_beam": "99",
        "s2s_step": "999",
        "s2s_mode": "x",
        "s2s_compare": "nope",
    },
    3: {"topic": "Similarity and rotation", "rot_tf_layer": "99", "rot_tf_head": "-1"},
    4: {
        "tf_model": "nope",
        "tf_text": EVIL_TEXT,
        "tf_layer": "layer 99",
        "tf_head": "-1",
        "tf_step": "999",
        "tf_kind": "x",
        "tf_beam": "nan",
    },
    5: {
        "head_model": "nope",
        "head_text": EVIL_TEXT,
        "head_layer": "layer 99",
        "head_head": "head -1",
        "head_scale": "maybe",
        "head_query": "99: x",
    },
    6: {
        "gen_model": "nope",
        "gen_text": EVIL_TEXT,
        "gen_top_k": "7",
        "gen_step": "999",
        "gen_layer": "99",
        "gen_head": "-1",
        "gen_seed": "-5",
    },
    7: {"bert_a": EVIL_TEXT, "bert_seed": "abc", "bert_draw": "maybe", "bert_rule": "x", "bert_focus": "99"},
    8: {
        "real_text": EVIL_TEXT,
        "real_layer": "layer 99",
        "real_head": "head -1",
        "real_scale": "x",
        "real_max": "7",
        "real_lines_min": "inf",
    },
}


def _run(page: int, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / PAGES[page]), default_timeout=APPTEST_TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _widget(at: AppTest, key: str):
    for kind in ("selectbox", "slider", "select_slider", "text_area", "text_input", "radio", "toggle", "number_input"):
        for widget in getattr(at, kind):
            if widget.key == key:
                return widget
    raise KeyError(key)


def _notices(at: AppTest) -> list[str]:
    return [n.value for n in at.info if n.value.startswith("The link's")]


@pytest.mark.parametrize("page", sorted(LINKS))
def test_link_reopens_the_same_view(page):
    params, shown = LINKS[page]
    at = _run(page, params)
    assert not _notices(at), _notices(at)
    for key, value in shown.items():
        assert _widget(at, key).value == value, key
    for key in shown:  # the link's values stay in the URL, but for a default (left out)
        assert at.query_params.get(key) == (None if key in DEFAULTS else _link(at, key, params[key])), key


def _link(at: AppTest, key: str, given: str) -> str:
    """What the URL holds for ``key`` once the page ran: a choice's value (an older link's label is
    rewritten as it), any other widget's text as the link gave it."""
    widget = _widget(at, key)
    return link_text(widget.value) if type(widget).__name__ in ("Selectbox", "Radio", "SelectSlider") else given


# A link as this lab writes it now: values, never labels.
VALUE_LINKS = {
    2: {
        "s2s_model": "s2s-luong-dot",
        "s2s_text": "the red car is small .",
        "s2s_beam": "3",
        "s2s_mode": "hard",
        "s2s_step": "2",
        "s2s_compare": "s2s-bahdanau",
    },
    4: {"tf_model": "tf-copy", "tf_text": "3 1 4 1", "tf_layer": "1", "tf_head": "2", "tf_kind": "encoder"},
    5: {
        "head_model": "tf-copy",
        "head_text": "3 1 4 1",
        "head_layer": "1",
        "head_head": "3",
        "head_kind": "decoder",
        "head_scale": "false",
    },
    7: {"bert_a": "The dog ran home .", "bert_rule": "independent", "bert_seed": "7", "topic": "masking"},
    8: {
        "real_text": "The cat sat on the mat .",
        "real_layer": "2",
        "real_head": "4",
        "real_max": "64",
        "real_scale": "head",
    },
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", sorted(VALUE_LINKS))
def test_a_link_opens_the_same_view_in_either_language(page, lang):
    """A link holds values, so it reads the same in English and 中文: no notice, every value shown,
    and the URL written back unchanged (the choices as values, not as this language's labels)."""
    at = _run(page, {**VALUE_LINKS[page], "lang": lang})
    assert not at.info.values or not [n for n in at.info if "link" in n.value.lower() or "链接" in n.value], [
        n.value for n in at.info
    ]
    for key, raw in VALUE_LINKS[page].items():
        if key == "topic":
            continue
        shown = at.session_state[key]  # every widget's value, whatever its kind
        assert (shown if isinstance(shown, str) else link_text(shown)) == raw, (key, shown)
        if key not in DEFAULTS:
            assert at.query_params.get(key) in (raw, None), key


@pytest.mark.parametrize("page, prefix", [(2, "s2s"), (4, "tf"), (6, "gen")])
def test_stepping_writes_the_step_to_the_url(page, prefix):
    at = _run(page, {f"{prefix}_step": "2"})
    at.button(key=f"{prefix}_next").click().run()
    assert at.slider(key=f"{prefix}_step").value == 3
    assert at.query_params.get(f"{prefix}_step") == "3"
    at.button(key=f"{prefix}_prev").click().run()
    at.button(key=f"{prefix}_prev").click().run()
    assert at.query_params.get(f"{prefix}_step") is None  # step 1 is the default: not in the URL


@pytest.mark.parametrize("page", sorted(BAD))
def test_bad_link_values_fall_back_with_a_notice(page):
    at = _run(page, BAD[page])
    notices = _notices(at)
    assert notices, [n.value for n in at.info]
    for text in notices:
        assert "<script>" not in text and "<b>" not in text and "<i>" not in text
        assert len(text) < 300  # one line: a long value is shortened


def test_step_beyond_the_end_is_clamped_to_the_last_step():
    at = _run(4, {"tf_text": "the red car .", "tf_step": "999"})
    last = at.slider(key="tf_step").value  # the last step: Next is disabled there
    assert last > 1 and at.button(key="tf_next").disabled
    assert any(f"the last step, {last}" in n for n in _notices(at))


def test_a_long_text_is_cut_to_the_widget_limit():
    at = _run(2, {"s2s_text": "the red car . " * 2_000})
    assert len(at.text_input(key="s2s_text").value) == 10_000
    assert any("first 10,000 characters" in n for n in _notices(at))
