"""The XLNet page (AppTest on the shipped xlnet-small): every order mode, bad input with its message,
the URL round trip and bad links, 中文, and the figures against the traces computed here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from corpora.text import tokenize
from models.checkpoints import load_xlnet
from models.inference.xlnet import identity_order, independent_vs_sequential, parse_order, predict, random_order
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_i18n import CJK, _figure_words, english_literals, english_words
from ui.strings import STRINGS
from ui.xlnet import EXAMPLES, MODEL, TOP_K
from viz_core.export import _decode

PAGE = str(ROOT / "pages" / "13_XLNet.py")
EN = {key: en for key, (en, _) in STRINGS.items()}


@pytest.fixture(scope="module")
def loaded():
    return load_xlnet(MODEL)


def _run(query: dict[str, str] | None = None, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(query or {})
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    _ok(at)
    return at


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _specs(at: AppTest) -> dict[str, dict]:
    """Every plotly chart of the run by its key."""
    return {c.key: c.figure for c in charts(at)}


def _array(value) -> np.ndarray:
    """A figure's numbers as sent to the browser (a list, or plotly's base64 typed array)."""
    return np.asarray(_decode(value), dtype=float)


def _circles(spec: dict) -> dict[int, int]:
    """position → the step number written in its circle on the order figure."""
    return {
        int(x): int(s)
        for tr in spec["data"]
        if tr.get("mode") == "markers+text"
        for x, s in zip(_array(tr["x"]), tr["text"])
    }


def _warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


@pytest.mark.slow
def test_default_view_draws_the_trace(loaded) -> None:
    """The default view (random order, seed 0, K of the model) draws exactly the model's trace: the
    order, the predicted positions, one head's query and content attention, the two masks."""
    at = _run()
    n = len(tokenize(EXAMPLES[0]))
    trace = predict(loaded, EXAMPLES[0], random_order(n, 0), loaded.config.k_split, TOP_K)
    specs = _specs(at)
    assert {"xlnet_order", "xlnet_query", "xlnet_content", "xlnet_mask_content", "xlnet_mask_query"} <= set(specs)
    assert _circles(specs["xlnet_order"]) == {p: t + 1 for t, p in enumerate(trace.order)}
    predicted = [tr for tr in specs["xlnet_order"]["data"] if tr.get("name") == EN["xlnet.fig.predicted"]][0]
    assert sorted(_array(predicted["x"]).astype(int).tolist()) == sorted(trace.predictions.positions)
    assert len(predicted["x"]) == math.ceil(n / 6)
    for stream in ("query", "content"):
        drawn = _array(specs[f"xlnet_{stream}"]["data"][0]["z"])
        np.testing.assert_allclose(drawn, getattr(trace, f"{stream}_attention")[0, 0], atol=1e-6)
        mask = _array(specs[f"xlnet_mask_{stream}"]["data"][0]["z"])  # 1 = blocked
        assert np.array_equal(mask == 0, getattr(trace, f"{stream}_mask"))
        grey = _array(specs[f"xlnet_{stream}"]["data"][1]["z"])  # the mask over the heatmap
        assert np.array_equal(np.isnan(grey), getattr(trace, f"{stream}_mask"))
    assert any(f"= {trace.log_likelihood:.4f}." in c.value for c in at.caption)
    assert specs["xlnet_order"]["layout"]["title"]["text"].endswith(f"{trace.log_likelihood:.2f}")
    assert not _warnings(at)  # every word of the default sentence is known


@pytest.mark.slow
def test_order_modes_layer_head_and_k(loaded) -> None:
    at = _run()
    n = len(tokenize(EXAMPLES[0]))
    at.button(key="xlnet_resample").click().run()  # the next seed
    _ok(at)
    assert at.number_input(key="xlnet_seed").value == 1 and at.query_params["xlnet_seed"] == "1"  # shareable
    assert _circles(_specs(at)["xlnet_order"]) == {p: t + 1 for t, p in enumerate(random_order(n, 1))}
    at.selectbox(key="xlnet_mode").set_value("identity").run()
    _ok(at)
    assert _circles(_specs(at)["xlnet_order"]) == {p: p + 1 for p in range(n)}
    at.slider(key="xlnet_k").set_value(2)
    at.selectbox(key="xlnet_layer").set_value(1)
    at.selectbox(key="xlnet_head").set_value(-1).run()  # the average over heads
    _ok(at)
    trace = predict(loaded, EXAMPLES[0], identity_order(n), 2, TOP_K)
    assert trace.predictions.positions == list(range(n - n // 2, n))  # the last ⌈n/2⌉ of z
    drawn = _array(_specs(at)["xlnet_query"]["data"][0]["z"])
    np.testing.assert_allclose(drawn, trace.query_attention[1].mean(axis=0), atol=1e-6)
    at.selectbox(key="xlnet_mode").set_value("typed").run()
    _ok(at)
    assert _warnings(at) == [_escaped(EN["xlnet.err.order_empty"], {"n": n})]
    typed = " ".join(str(p) for p in range(n, 0, -1))
    at.text_input(key="xlnet_typed").set_value(typed).run()
    _ok(at)
    assert _circles(_specs(at)["xlnet_order"]) == {p: t + 1 for t, p in enumerate(parse_order(typed, n))}


@pytest.mark.parametrize(
    "typed, key, fields",
    [
        ("1 1 2", "xlnet.err.order_repeat", {"pos": 1}),
        ("0 1 2", "xlnet.err.order_range", {"pos": 0, "n": 10}),
        ("1 2 99", "xlnet.err.order_range", {"pos": 99, "n": 10}),
        ("one two", "xlnet.err.order_nan", {"n": 10}),
        ("1 2 3", "xlnet.err.order_missing", {"missing": "4, 5, 6, 7, 8, 9, 10", "n": 10}),
    ],
)
def test_a_typed_order_that_is_not_a_permutation_is_named(typed: str, key: str, fields: dict) -> None:
    at = _run({"xlnet_mode": "typed", "xlnet_typed": typed})
    assert _warnings(at) == [_escaped(EN[key], fields)]
    assert not charts(at)


def _escaped(template: str, fields: dict) -> str:
    from ui.tokens import md_escape

    return md_escape(template.format(**fields))


@pytest.mark.parametrize(
    "text, key, fields",
    [
        ("", "xlnet.err.empty", {}),
        ("light", "xlnet.err.one", {}),
        ("word " * 2000, "xlnet.err.long", {"max": 32, "n": 2000}),
    ],
)
def test_bad_sentences_get_a_message(text: str, key: str, fields: dict) -> None:
    assert len(text) <= 10_000
    at = _run(state={"xlnet_text": text})
    assert _warnings(at) == [_escaped(EN[key], fields)]


def test_unknown_words_are_flagged_and_user_text_is_not_markup() -> None:
    at = _run({"xlnet_text": "**New** York is a <b>city</b>"})
    assert any("york" in w and "<unk>" in w for w in _warnings(at))
    order = _specs(at)["xlnet_order"]
    assert "york ⚠" in order["layout"]["xaxis"]["ticktext"]  # flagged on the figure
    hovers = [h for tr in order["data"] for h in tr.get("hovertext") or []]
    assert any("&lt;" in h for h in hovers) and not any("<" in h for h in hovers)  # escaped for plotly
    assert not any("<b>" in c.value for c in at.caption)


@pytest.mark.slow
def test_url_round_trip_and_bad_links() -> None:
    link = {
        "xlnet_text": "the lord is my shepherd",
        "xlnet_mode": "typed",
        "xlnet_typed": "5 4 3 2 1",
        "xlnet_k": "3",
        "xlnet_layer": "layer 2",
        "xlnet_head": "head 3",
        "topic": EN["xlnet.tab.bert"],
        "xlnet_hidden": ["3 is", "5 shepherd"],
    }
    at = _run(link)
    assert not at.info  # every value accepted
    assert at.text_input(key="xlnet_typed").value == "5 4 3 2 1" and at.slider(key="xlnet_k").value == 3
    assert (at.selectbox(key="xlnet_layer").value, at.selectbox(key="xlnet_head").value) == (1, 2)
    assert _circles(_specs(at)["xlnet_order"]) == {4: 1, 3: 2, 2: 3, 1: 4, 0: 5}
    assert at.button_group(key="xlnet_hidden").value == [2, 4]  # the hidden words
    # an older link's tab title is written back as its name
    assert {k: at.query_params[k] for k in ("xlnet_mode", "xlnet_typed", "xlnet_k", "topic")} == {
        "xlnet_mode": "typed",
        "xlnet_typed": "5 4 3 2 1",
        "xlnet_k": "3",
        "topic": "bert",
    }
    at = _run(
        {
            "xlnet_mode": "sideways",
            "xlnet_k": "99",
            "xlnet_seed": "abc",
            "xlnet_head": "head 9",
            "topic": "nope",
            "xlnet_hidden": "77 zz",
        }
    )
    notices = " ".join(i.value for i in at.info)
    assert all(f"“{v}”" in notices for v in ("sideways", "99", "abc", "head 9", "nope")), notices
    assert at.slider(key="xlnet_k").value == 6 and "xlnet_order" in _specs(at)
    at = _run({"topic": EN["xlnet.tab.bert"], "xlnet_hidden": ["2 the", "77 zz"]})
    assert any("“77 zz”" in i.value and EN["xlnet.url.hidden_rest"] in i.value for i in at.info)
    assert at.button_group(key="xlnet_hidden").value == [1] and "xlnet_compare" in _specs(at)  # the valid one


def test_predictions_tab_draws_the_top_k(loaded) -> None:
    at = _run({"topic": EN["xlnet.tab.predictions"], "xlnet_mode": "identity"})
    n = len(tokenize(EXAMPLES[0]))
    trace = predict(loaded, EXAMPLES[0], identity_order(n), loaded.config.k_split, TOP_K)
    bars = [tr for tr in _specs(at)["xlnet_predictions"]["data"]]
    drawn = sorted(round(float(p), 6) for tr in bars for p in _array(tr["x"]))
    assert drawn == sorted(round(float(p), 6) for p in trace.predictions.top_probs.ravel())
    true = [tr for tr in bars if tr["name"] == EN["xlnet.pred.true"]]
    found = sum(trace.tokens[p] in top for p, top in zip(trace.predictions.positions, trace.predictions.top_tokens))
    assert sum(len(_array(tr["x"])) for tr in true) == found  # the true word marked wherever it is in the top-k


@pytest.mark.slow
def test_against_bert_tab_and_the_held_out_case(loaded) -> None:
    at = _run({"topic": EN["xlnet.tab.bert"], "xlnet_text": "New York is a city"})
    case = independent_vs_sequential(loaded, "New York is a city", [0, 1], TOP_K)
    bars = _specs(at)["xlnet_compare"]["data"]
    drawn = sorted(round(float(p), 6) for tr in bars for p in _array(tr["x"]))
    expected = np.concatenate([case.independent.top_probs.ravel(), case.sequential.top_probs.ravel()])
    assert drawn == sorted(round(float(p), 6) for p in expected)
    assert any(f"independent {case.independent.log_likelihood:.2f}" in c.value for c in at.caption)
    at.button_group(key="xlnet_hidden").set_value([]).run()
    _ok(at)
    assert _escaped(EN["xlnet.err.hidden_none"], {}) in [i.value for i in at.info]
    at.button(key="xlnet_show_case").click().run()  # found among the first held-out verses, then shown
    _ok(at)
    shown = at.text_input(key="xlnet_text").value
    hidden = at.button_group(key="xlnet_hidden").value
    assert len(hidden) == 2 and hidden[1] == hidden[0] + 1
    shown_case = independent_vs_sequential(loaded, shown, hidden, TOP_K)
    assert (
        shown_case.sequential.top_tokens[1][0]
        == shown_case.tokens[hidden[1]]
        != shown_case.independent.top_tokens[1][0]
    )  # the order changed the later prediction, for the better


@pytest.mark.slow
def test_page_in_chinese_and_no_english_literals() -> None:
    for name in ("pages/13_XLNet.py", "ui/xlnet.py"):
        assert not english_literals(ROOT / name), name
    for topic in ("xlnet.tab.masks", "xlnet.tab.predictions", "xlnet.tab.bert"):
        at = _run({"lang": "zh", "topic": STRINGS[topic][1]})
        assert at.title[0].value == "XLNet"
        assert not [i.value for i in at.info if "不可用" in i.value], topic
        texts = [
            e.value
            for kind in ("markdown", "caption", "warning", "info")
            for e in getattr(at, kind)
            if isinstance(e.value, str) and not e.value.startswith("<style>")
        ]
        texts += [
            w.label
            for kind in ("slider", "selectbox", "text_input", "button", "number_input")
            for w in getattr(at, kind)
        ]
        assert [x for x in texts if english_words(x) and not CJK.search(x)] == [], topic
        specs = _specs(at).values()
        words = [w for spec in specs for w in _figure_words(spec)]
        words += [tr["hovertext"][0] for tr in _specs(at)["xlnet_order"]["data"] if tr.get("hovertext")]
        assert [w for w in words if english_words(w) and not CJK.search(w)] == [], topic
    at = _run({"lang": "zh", "xlnet_mode": "手动输入", "xlnet_typed": "1 1"})  # the model's message, in 中文
    assert _warnings(at) == [_escaped(STRINGS["xlnet.err.order_repeat"][1], {"pos": 1})]
    at = _run({"lang": "zh"}, state={"xlnet_text": ""})
    assert _warnings(at) == [STRINGS["xlnet.err.empty"][1]]


def test_slide_steps_through_the_predicted_positions() -> None:
    """The page as a slide (ui.slides): one step per predicted position; a refused value is noted."""
    from ui.slides import prepare

    n = len(tokenize(EXAMPLES[0]))
    view = prepare("13_XLNet", {"xlnet_mode": "identity", "xlnet_k": "2", "xlnet_layer": "layer 2"})
    assert (view.n_steps, view.start, view.notes) == (math.ceil(n / 2), 0, [])
    view = prepare("13_XLNet", {"xlnet_k": "99", "xlnet_text": "New York is a city"})
    assert view.n_steps == 1 and len(view.notes) == 2 and "“99”" in view.notes[0] and "york" in view.notes[1]
