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
    arrays = trace_arrays({"a": np.zeros((2, 3), dtype=np.float32), "none": None, "nested": {"b": [1, 2]},
                           "ragged": [[1], [2, 3]]})
    assert arrays["a"].dtype == np.float32 and arrays["nested/b"].tolist() == [1, 2]
    assert "none" not in arrays
    assert arrays["ragged/0"].tolist() == [1] and arrays["ragged/1"].tolist() == [2, 3]


def test_matrix_csv_header_and_one_row_per_cell():
    m = np.array([[0.25, 0.75], [1.0, 0.0], [0.5, 0.5]])
    text = matrix_csv(m, ["le", "chat", "</s>"], ["the", "cat,"], row_name="target", col_name="source",
                      value_name="attention")
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
    rows = list(csv.DictReader(io.StringIO(figure_csv(go.Figure(go.Bar(y=["a", "b"], x=[0.1, 0.9],
                                                                       orientation="h"))))))
    assert [(r["y"], float(r["value"])) for r in rows] == [("a", 0.1), ("b", 0.9)]


def _external_refs(page: str) -> list[str]:
    return re.findall(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//", page, re.I)


def test_handout_is_offline_and_escapes_user_text(trace):
    heat = attention_heatmap(trace.attention, trace.src_tokens, trace.tgt_tokens)
    bars = topk_bars(trace.best.topk_tokens[0], trace.best.topk_probs[0])
    evil = "<script>alert('x')</script> & co"
    page = handout_html(f"Seq2seq {evil}", evil, [("Attention " + evil, heat), ("Top-k", bars)],
                        {"Translation": trace.text, evil: 0.5}, note=evil)
    assert _external_refs(page) == []
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in page
    # plotly.js inlined exactly once, both figures drawn
    assert page.count("<script type=\"text/javascript\">/**\n* plotly.js") <= 1
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
