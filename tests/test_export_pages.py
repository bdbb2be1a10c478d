"""AppTest: every decoding and attention page offers its downloads (CSV per figure, trace JSON and
NPZ, handout HTML) next to its main figure; the files are made on click (deferred), each figure's
CSV holds that figure's numbers, and the files are named after page, view and step in any language."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.plot import COMPONENT
from viz_core.export import page_slug

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

# page file → (export name, the CSV captions expected at the first paint)
PAGES = {
    "2_Seq2seq_attention.py": ("seq2seq", 3),
    "4_Transformer_translation.py": ("transformer", 3),
    "5_Inside_one_head.py": ("one-head", 1),
    "6_Generation.py": ("generation", 3),
    "7_BERT_masking.py": ("bert-masking", 0),
    "8_Real_model_explorer.py": ("real-model", 2),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_page_shows_the_download_buttons(page: str) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    name, n_csv = PAGES[page]
    buttons = {b.key: b for b in at.get("download_button")}
    prefix = f"export_{name}_"
    for suffix in ("json", "npz", "html"):
        assert prefix + suffix in buttons, sorted(buttons)
    csv_keys = [k for k in buttons if k.startswith(prefix + "csv")]
    assert len(csv_keys) >= n_csv
    assert all(buttons[k].proto.label.endswith("(CSV)") for k in csv_keys)
    assert buttons[prefix + "html"].proto.label.startswith("Handout")
    # built on click, not on every run
    assert all(b.proto.HasField("deferred_file_id") for k, b in buttons.items() if k.startswith(prefix))
    assert not buttons[prefix + "json"].proto.disabled


def test_seq2seq_export_follows_the_step() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.button(key="s2s_next").click().run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Step 2 top-k (CSV)" in labels, labels


# --------------------------------------------------------------------------------------
# What the buttons give: every figure's CSV holds its numbers (issue 24.6); language-free names
# --------------------------------------------------------------------------------------

FIGURE_PAGES = [p for p, (_, n_csv) in PAGES.items() if n_csv]


def _numbers(fig) -> dict[int, np.ndarray]:
    """The numbers a figure draws, by trace, read straight from its traces: a heatmap's z (less a
    one-colour mask overlay), a bar's lengths; invisible click layers and decorations have none."""
    out = {}
    for n, tr in enumerate(fig.data):
        if tr.type == "heatmap" and len({c[1] for c in tr.colorscale or ()}) != 1:
            out[n] = np.asarray(tr.z, dtype=float).ravel()
        elif tr.type == "bar" and tr.visible is not False:
            out[n] = np.asarray(tr.x if tr.orientation == "h" else tr.y, dtype=float)
    return out


def _values(text: str) -> dict[int, np.ndarray]:
    rows = list(csv.DictReader(io.StringIO(text)))
    by_trace: dict[int, list[float]] = {}
    for r in rows:
        by_trace.setdefault(int(r["trace"]), []).append(float(r["value"]) if r["value"] else np.nan)
    return {n: np.array(v) for n, v in by_trace.items()}


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_every_exported_figure_csv_holds_its_numbers(page: str, deferred, exported) -> None:
    """The CSV that each "… (CSV)" button of the page gives (its deferred file, as a click makes it)
    holds the numbers of its figure: every cell of a heatmap, row by row, every bar, equal to the
    figure's own; never just a header. Named after page, view and step, the same in 中文."""
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    name = PAGES[page][0]
    figures = exported[-1]
    buttons = [b for b in at.get("download_button") if b.key.startswith(f"export_{name}_csv")]
    assert len(buttons) == len(figures) >= PAGES[page][1]
    slug = page_slug(page)
    names = []
    for button, (caption, fig) in zip(buttons, figures.items()):
        file_name, make = deferred[button.proto.deferred_file_id]
        got, want = _values(make()), _numbers(fig)
        assert want, caption
        assert set(got) == set(want), (caption, sorted(got), sorted(want))
        for n in want:
            np.testing.assert_allclose(got[n], want[n], rtol=1e-6, err_msg=f"{caption}, trace {n}")
        assert file_name.startswith(f"{slug}-") and file_name.endswith(".csv") and file_name.isascii(), file_name
        names.append(file_name)
    assert len(set(names)) == len(names), names
    # the handout's and the trace's names too, and all of them the same in 中文
    english = {b.key: deferred[b.proto.deferred_file_id][0] for b in at.get("download_button")}
    assert english[f"export_{name}_json"] == f"{slug}-trace.json"
    assert english[f"export_{name}_npz"] == f"{slug}-trace.npz"
    assert english[f"export_{name}_html"].startswith(f"{slug}-handout")
    zh = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    zh.query_params["lang"] = "zh"
    zh.run()
    assert not zh.exception, zh.exception
    assert {b.key: deferred[b.proto.deferred_file_id][0] for b in zh.get("download_button")} == english


def test_seq2seq_files_are_named_after_the_view_and_step(deferred) -> None:
    """Each figure's CSV is named as its PNG and SVG (ui.plot.chart's key and the step)."""
    at = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    at.button(key="s2s_next").click().run()
    at.button(key="s2s_next").click().run()
    assert not at.exception, at.exception
    names = {b.key: deferred[b.proto.deferred_file_id][0] for b in at.get("download_button")}
    section = {k: names.pop(k) for k in list(names) if k.startswith("exposure_attention_export")}
    assert section["exposure_attention_export_html"] == "seq2seq-attention-exposure-handout.html"  # its own name
    # the section is not stepped by the page's step control: neither its CSV nor its images carry that step
    assert section["exposure_attention_export_csv0"] == "seq2seq-attention-exposure-attention.csv"
    assert names == {
        "export_seq2seq_csv0": "seq2seq-attention-heatmap-step3.csv",
        "export_seq2seq_csv1": "seq2seq-attention-bars-step3.csv",
        "export_seq2seq_csv2": "seq2seq-attention-topk-step3.csv",
        "export_seq2seq_json": "seq2seq-attention-trace.json",
        "export_seq2seq_npz": "seq2seq-attention-trace.npz",
        "export_seq2seq_html": "seq2seq-attention-handout-step3.html",
    }
    images = {
        c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.json)["filename"]
        for c in at.get("bidi_component")
        if c.proto.component_name == COMPONENT
    }
    assert images["heatmap"] == "seq2seq-attention-heatmap-step3"
    assert images["bars"] == "seq2seq-attention-bars-step3" and images["topk"] == "seq2seq-attention-topk-step3"
    assert images["exposure_attention"] == "seq2seq-attention-exposure-attention"


# The sections of issue 27 below a page's main view export their own figures (issue 27 item 7):
# (page, its link's query, the menu's key, the keys of the charts whose figures it exports, in order); the
# Transformer block page's tabs export their figures too
SECTIONS = [
    ("2_Seq2seq_attention.py", {}, "exposure_attention_export", ["exposure_attention"]),
    ("4_Transformer_translation.py", {}, "tf_exposure_attention_export", ["tf_exposure_attention"]),
    ("4_Transformer_translation.py", {}, "tf_ls_export", ["tf_reliability_grammar", "tf_reliability_hsk"]),
    ("7_BERT_masking.py", {"topic": "finetune"}, "bert_ft_export", ["bert_ft_change", "bert_ft_pair"]),
    ("14_Transformer_block.py", {}, "block_tab_export", ["block_changes_enc", "block_changes_dec"]),
    ("14_Transformer_block.py", {"topic": "norms"}, "block_tab_export", ["block_gradients", "block_norm_runs"]),
    ("14_Transformer_block.py", {"topic": "batch"}, "block_tab_export", ["block_batch"]),
    ("14_Transformer_block.py", {"topic": "smoothing"}, "block_tab_export", ["block_smoothing"]),
    ("14_Transformer_block.py", {"topic": "schedule"}, "block_tab_export", ["block_schedule"]),
]


@pytest.mark.parametrize(
    "page, query, key, chart_keys", SECTIONS, ids=[f"{s[2]}-{s[1].get('topic', '')}" for s in SECTIONS]
)
def test_a_section_exports_the_numbers_of_its_own_figures(page, query, key, chart_keys, deferred) -> None:
    """Each CSV of a section's menu holds the numbers of the figure that section drew (as sent to the
    browser); its handout is offered too, and the files are named after the page, without the main view's step."""
    import plotly.graph_objects as go

    from tests.charts import charts, typed_array

    def figure(spec: dict) -> go.Figure:  # the arrays as the browser receives them
        for trace in spec["data"]:
            trace.update({k: typed_array(v) for k, v in trace.items() if k in ("x", "y", "z", "customdata")})
        return go.Figure(spec)

    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(query)
    at.run()
    assert not at.exception, at.exception
    drawn = {c.key: figure(c.figure) for c in charts(at)}
    buttons = {b.key: b for b in at.get("download_button") if b.key.startswith(key)}
    assert f"{key}_html" in buttons, sorted(buttons)
    csvs = [buttons[k] for k in sorted(k for k in buttons if k.startswith(f"{key}_csv"))]
    assert len(csvs) == len(chart_keys)
    for button, chart_key in zip(csvs, chart_keys):
        file_name, make = deferred[button.proto.deferred_file_id]
        lines = {n: np.asarray(t.y, dtype=float) for n, t in enumerate(drawn[chart_key].data) if t.type == "scatter"}
        got, want = _values(make()), _numbers(drawn[chart_key]) or lines  # heatmaps; or reliability curves
        assert want and set(got) == set(want), (chart_key, sorted(got), sorted(want))
        for n in want:
            np.testing.assert_allclose(got[n], want[n], rtol=1e-6, err_msg=f"{chart_key}, trace {n}")
        assert file_name.startswith(f"{page_slug(page)}-") and file_name.endswith(".csv"), file_name
        assert "-step" not in file_name, file_name  # a section is not stepped by the page's step control
