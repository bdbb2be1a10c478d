"""viz_core.export: trace → JSON/NPZ, numbers → CSV, the offline handout; ui.export's chart config."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from models.checkpoints import load_seq2seq
from models.inference.translate import translate
from viz_core.export import (
    FIGURE_HEADER,
    chart_config,
    figure_csv,
    handout_html,
    matrix_csv,
    safe_filename,
    trace_arrays,
    trace_json,
    trace_npz,
)
from viz_core.seq2seq import attention_heatmap, topk_bars


@pytest.fixture(scope="module")
def trace():
    """A real beam-search trace of the shipped Bahdanau model."""
    return translate(load_seq2seq("s2s-bahdanau"), "the cat sees the dog .", beam=3)


def test_json_round_trip_of_a_real_trace(trace):
    d = trace.to_dict()
    back = json.loads(trace_json(d).decode("utf-8"))
    assert back == d
    assert back["src_tokens"][-1] == "</s>" and back["hypotheses"][0]["tokens"] == trace.best.tokens
    np.testing.assert_array_equal(np.array(back["attention"]), trace.attention)


def test_json_is_strict_non_finite_become_null():
    out = json.loads(trace_json({"scores": np.array([1.0, -np.inf, np.nan]), "n": np.int64(3)}))
    assert out == {"scores": [1.0, None, None], "n": 3}


def _item(npz, name: str, i: int) -> np.ndarray:
    """Item i of a list field: stacked into one array when rectangular, else stored one array each."""
    return npz[name][i] if name in npz.files else npz[f"{name}/{i}"]


def test_npz_loads_back_without_pickle_and_has_the_arrays(trace):
    npz = np.load(io.BytesIO(trace_npz(trace.to_dict())), allow_pickle=False)
    np.testing.assert_allclose(npz["attention"], trace.attention)
    np.testing.assert_allclose(_item(npz, "hypotheses/attention", 0), trace.best.attention)
    assert list(npz["src_tokens"]) == trace.src_tokens
    assert list(npz["tgt_tokens"]) == trace.tgt_tokens
    assert npz["beam_width"] == 3 and str(npz["model"]) == "s2s-bahdanau"
    # (nested) lists of records become one array per field: topk[h][t] = [{"token", "prob"}, ...]
    np.testing.assert_allclose(_item(npz, "hypotheses/topk/prob", 0), trace.best.topk_probs)
    assert list(_item(npz, "beam_steps/token", 0)) == [c.token for c in trace.beam_steps[0]]
    assert _item(npz, "beam_steps/kept", 0).dtype == bool


def test_npz_keeps_dtypes_and_leaves_out_none():
    arrays = trace_arrays(
        {"a": np.zeros((2, 3), dtype=np.float32), "none": None, "nested": {"b": [1, 2]}, "ragged": [[1], [2, 3]]}
    )
    assert arrays["a"].dtype == np.float32 and arrays["nested/b"].tolist() == [1, 2]
    assert "none" not in arrays
    assert arrays["ragged/0"].tolist() == [1] and arrays["ragged/1"].tolist() == [2, 3]


def test_matrix_csv_header_and_one_row_per_cell():
    m = np.array([[0.25, 0.75], [1.0, 0.0], [0.5, 0.5]])
    text = matrix_csv(
        m, ["le", "chat", "</s>"], ["the", "cat,"], row_name="target", col_name="source", value_name="attention"
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["target", "target_label", "source", "source_label", "attention"]
    assert len(rows) == 1 + m.size
    assert rows[2] == ["0", "le", "1", "cat,", "0.75"]
    assert float(rows[-1][-1]) == 0.5


def test_figure_csv_of_the_seq2seq_heatmap_and_bars(trace):
    heat = attention_heatmap(trace.attention, trace.src_tokens, trace.tgt_tokens)
    rows = list(csv.DictReader(io.StringIO(figure_csv(heat))))
    cells = [r for r in rows if r["kind"] == "heatmap"]
    T, S = trace.attention.shape
    assert len(cells) == T * S
    assert {r["x_label"] for r in cells} >= {t for t in trace.src_tokens if t != "the"}
    first = cells[0]
    assert float(first["value"]) == pytest.approx(trace.attention[int(float(first["y"])), int(float(first["x"]))])
    bars = topk_bars(trace.best.topk_tokens[0], trace.best.topk_probs[0], emitted=trace.tgt_tokens[0])
    rows = list(csv.reader(io.StringIO(figure_csv(bars))))
    assert rows[0] == FIGURE_HEADER
    assert len(rows) - 1 >= len(trace.best.topk_tokens[0])


def test_figure_csv_horizontal_bars_value_is_the_length():
    rows = list(csv.DictReader(io.StringIO(figure_csv(go.Figure(go.Bar(y=["a", "b"], x=[0.1, 0.9], orientation="h"))))))
    assert [(r["y"], float(r["value"])) for r in rows] == [("a", 0.1), ("b", 0.9)]


def _external_refs(page: str) -> list[str]:
    return re.findall(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//", page, re.I)


def test_handout_is_offline_and_escapes_user_text(trace):
    heat = attention_heatmap(trace.attention, trace.src_tokens, trace.tgt_tokens)
    bars = topk_bars(trace.best.topk_tokens[0], trace.best.topk_probs[0])
    evil = "<script>alert('x')</script> & co"
    page = handout_html(
        f"Seq2seq {evil}",
        evil,
        [("Attention " + evil, heat), ("Top-k", bars)],
        {"Translation": trace.text, evil: 0.5},
        note=evil,
    )
    assert _external_refs(page) == []
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in page
    # plotly.js inlined exactly once, both figures drawn
    assert page.count('<script type="text/javascript">/**\n* plotly.js') <= 1
    assert len(re.findall(r"Plotly\.newPlot\(", page)) >= 2
    assert page.count("plotly.js v") >= 1 and page.startswith("<!DOCTYPE html>")
    assert "Translation" in page and trace.text.split()[0] in page


def test_handout_without_figures_is_small():
    page = handout_html("T", "in", [], {"a": 1})
    assert len(page) < 10_000 and "<script" not in page


def test_chart_config_downloads_png_at_presentation_resolution():
    config = chart_config("Seq2seq: attention / step 1")
    opts = config["toImageButtonOptions"]
    assert opts["format"] == "png" and opts["width"] * opts["scale"] == 1920 and opts["height"] * opts["scale"] == 1080
    assert opts["filename"] == "Seq2seq-attention-step-1"
    assert config["displaylogo"] is False and "displayModeBar" not in config
    assert chart_config(modebar=False)["displayModeBar"] is False
    assert safe_filename("../../x") == "x" and safe_filename("<>") == "attention-lab"


def test_to_dict_keeping_arrays_matches_to_dict(trace):
    view = trace.to_dict(keep_arrays=True)
    assert set(view) == set(trace.to_dict())
    assert isinstance(view["attention"], np.ndarray) and view["attention"].dtype == np.float32
    a, b = trace_arrays(view), trace_arrays(trace.to_dict())
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_svg_button_script_survives_streamlits_sanitiser():
    from viz_core.export import SVG_BUTTON_JS

    # DOMPurify empties a <script> whose text contains markup-like "<…"; the script fetches nothing.
    assert "<" not in SVG_BUTTON_JS
    assert "http" not in SVG_BUTTON_JS and "downloadImage" in SVG_BUTTON_JS


# --------------------------------------------------------------------------------------
# The CSV of a clickable heatmap (issue 24.6), the toolbar's config, the download names
# --------------------------------------------------------------------------------------


def _csv_rows(fig) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(figure_csv(fig))))


def test_a_clickable_heatmaps_csv_holds_every_cell(trace):
    """The page draws its heatmaps with the click layer (ui.explain.explained_chart), which skips the
    heatmap's own hover: the CSV still holds one row per cell, each the weight the model computed,
    and none for the invisible layer."""
    from viz_core.explain import LAYER_NAME, add_cell_layer

    heat = attention_heatmap(
        trace.attention, trace.src_tokens, trace.tgt_tokens, step=2, gold=[(0, 0), (1, 1)], width=470
    )
    assert add_cell_layer(heat) is not None
    assert heat.data[0].hoverinfo == "skip"  # what emptied the CSV before
    rows = _csv_rows(heat)
    T, S = trace.attention.shape
    assert len(rows) == T * S and {r["kind"] for r in rows} == {"heatmap"}
    assert LAYER_NAME not in {r["name"] for r in rows}
    got = np.array([float(r["value"]) for r in rows]).reshape(T, S)  # row by row, as the matrix
    np.testing.assert_allclose(got, trace.attention, rtol=1e-6)
    assert [(int(float(r["y"])), int(float(r["x"]))) for r in rows[: S + 1]] == [(0, s) for s in range(S)] + [(1, 0)]
    assert rows[0]["x_label"] == trace.src_tokens[0] and rows[0]["y_label"] == trace.tgt_tokens[0]


def test_a_masked_heatmaps_csv_holds_the_weights_not_the_grey_mask():
    """A causal head: the grey one-colour overlay of the masked cells says where, not how much; the
    CSV holds the weights (0 where masked), once per cell, also with the click layer on top."""
    from viz_core.explain import add_cell_layer
    from viz_core.transformer import attention_matrix_figure

    w = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    blocked = np.triu(np.ones((4, 4), dtype=bool), 1)
    fig = attention_matrix_figure(w, list("abcd"), list("abcd"), blocked=blocked)
    assert len(fig.data) == 2
    add_cell_layer(fig)
    rows = _csv_rows(fig)
    assert len(rows) == 16 and {r["trace"] for r in rows} == {"0"}
    np.testing.assert_allclose(np.array([float(r["value"]) for r in rows]).reshape(4, 4), w)


def test_figure_csv_reads_plotlys_typed_arrays():
    """plotly.py sends numpy arrays as base64 typed arrays ({dtype, bdata, shape}): decoded, not lost."""
    z = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    spec = json.loads(go.Figure(go.Heatmap(z=z, x=np.arange(3), y=np.arange(2))).to_json())
    assert "bdata" in spec["data"][0]["z"]
    rows = _csv_rows(spec)
    assert [float(r["value"]) for r in rows] == pytest.approx(z.ravel().tolist())
    bars = json.loads(go.Figure(go.Bar(x=np.arange(3), y=np.array([0.5, 0.25, 0.25]))).to_json())
    assert [float(r["value"]) for r in _csv_rows(bars)] == [0.5, 0.25, 0.25]


def test_figure_csv_leaves_out_decorations_but_not_lines():
    fig = go.Figure(
        [
            go.Scatter(x=[0, 1, None, 1, 2], y=[0, 1, None, 1, 0], mode="lines", hoverinfo="skip"),
            go.Scatter(x=[0, 1], y=[3.0, 4.0], mode="lines", name="loss"),
            go.Scatter(x=[0], y=[0], mode="markers", marker={"opacity": 0}),
            go.Bar(x=["a"], y=[2.0], visible=False),
        ]
    )
    assert [(r["name"], float(r["value"])) for r in _csv_rows(fig)] == [("loss", 3.0), ("loss", 4.0)]


def test_chart_config_offers_nothing_that_leaves_the_machine():
    for config in (chart_config(), chart_config(modebar=False), chart_config(lang="zh", dictionary={"Zoom": "缩放"})):
        assert config["showSendToCloud"] is False and config["plotlyServerURL"] == ""
        assert "sendChartToCloud" in config["modeBarButtonsToRemove"]
        assert "http" not in json.dumps(config)


def test_chart_config_translates_the_toolbar_in_chinese_only():
    from viz_core.export import localized

    zh = chart_config("x", lang="zh", dictionary={"Zoom": "缩放"})
    assert zh["locale"] == "zh-CN" and zh["locales"] == {"zh-CN": {"dictionary": {"Zoom": "缩放"}}}
    assert "locale" not in chart_config("x", lang="en", dictionary={"Zoom": "Zoom"})
    assert "locales" not in localized(zh, "en", {"Zoom": "缩放"})  # back to English: plotly's own words
    assert localized(chart_config(), "zh", {"Zoom": "缩放"}) == zh | {
        "toImageButtonOptions": chart_config()["toImageButtonOptions"]
    }


def test_download_names_are_page_view_and_step():
    from viz_core.export import download_name, page_slug

    assert page_slug("/srv/lab/pages/2_Seq2seq_attention.py") == "seq2seq-attention"
    assert page_slug("pages/13_XLNet.py") == "xlnet" and page_slug("app.py") == "attention-lab"
    assert download_name("seq2seq-attention", "heatmap", 3) == "seq2seq-attention-heatmap-step3"
    assert download_name("transformer-translation", "tf_cross_bars") == "transformer-translation-tf-cross-bars"
    assert download_name("x", "../../注意力", 1) == "x-step1"  # a file name, never a path


def test_handout_names_its_images_and_translates_its_toolbar(trace):
    heat = attention_heatmap(trace.attention, trace.src_tokens, trace.tgt_tokens)
    page = handout_html(
        "T",
        "in",
        [("A", heat)],
        lang="zh",
        image_names=["seq2seq-attention-heatmap-step2"],
        toolbar={"Download plot as a PNG": "下载图表（PNG）"},
    )
    assert '"filename": "seq2seq-attention-heatmap-step2"' in page
    assert '"locale": "zh-CN"' in page and json.dumps("下载图表（PNG）") in page
    assert '"showSendToCloud": false' in page
