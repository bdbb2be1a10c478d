"""The Transformer block page (AppTest on the shipped tf-en-fr, tf-lm and bert-small): the diagram and one box's
figure from the link's values, their numbers against the traces computed here, the architecture switch, every tab in
English and 中文, and the slide drawing the page's figures."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from models.checkpoints import load_results, load_transformer, read_config
from models.lessons.block import block_trace
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.block import EXAMPLES, run_block
from ui.i18n import tr
from ui.strings import STRINGS
from viz_core.export import _decode

PAGE = str(ROOT / "pages" / "14_Transformer_block.py")
TABS = ("changes", "norms", "batch", "smoothing", "schedule")


def _run(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    assert not at.warning, [w.value for w in at.warning]
    return at


def _figure(at: AppTest, key: str) -> dict:
    return next(c.figure for c in charts(at) if c.key == key)


def test_the_first_screen_is_the_diagram_and_the_chosen_box() -> None:
    at = _run()
    assert at.session_state["block_family"] == "encoder-decoder" and at.session_state["block_box"] == "enc.self"
    diagram = _figure(at, "block_diagram")
    clickable = next(d for d in diagram["data"] if d.get("customdata"))
    assert "dec.cross" in clickable["customdata"] and "out" in clickable["customdata"]
    chosen = [s for s in diagram["layout"]["shapes"] if s["line"].get("width") == 5]
    assert len(chosen) == 1  # one box outlined
    assert _figure(at, "block_detail")["data"][0]["type"] == "heatmap"


@pytest.mark.parametrize(
    "family, box, layer, cell",
    [
        ("encoder-decoder", "enc.self", 0, (2, 4)),
        ("encoder-decoder", "dec.masked_self", 1, (3, 1)),
        ("encoder-decoder", "dec.cross", 1, (2, 5)),
        ("decoder-only", "dec.masked_self", 1, (4, 2)),
        ("encoder-only", "enc.self", 1, (3, 6)),
    ],
)
def test_an_attention_box_explains_a_clicked_cell_from_the_model(family, box, layer, cell) -> None:
    """Click-to-explain on the attention box's heatmap (the mean over the layer's heads, issue 27 item 7): the
    derivation, head by head from the model on the stack's own ids, gives back the weight drawn."""
    from tests.charts import clicked

    at = _run({"block_family": family, "block_box": box, "block_layer": str(layer)})
    title = clicked(at, "block_detail", cell).replace("\\", "")
    trace = run_block(family, EXAMPLES[family])
    stack = trace.stack("decoder" if box.startswith("dec") else "encoder")
    sub = stack.layers[layer][0 if box.endswith("self") else 1]
    drawn = float(sub.attention.mean(0)[cell])
    assert f"Why {drawn:.4f}?" in title and f"(row {cell[0]})" in title and "average over heads" in title
    heads = at.table[0].value
    assert len(heads) == trace.n_heads + 1
    each = [float(v.replace("\\", "")) for v in heads.iloc[: trace.n_heads, -1]]
    assert np.allclose(each, sub.attention[:, cell[0], cell[1]], atol=1e-4)


def test_the_ffn_box_from_a_link_shows_the_models_own_hidden_units() -> None:
    at = _run({"block_family": "decoder-only", "block_box": "dec.ffn", "block_layer": "1", "block_token": "2"})
    trace = block_trace(load_transformer("tf-lm"), EXAMPLES["decoder-only"])
    sub = trace.stacks[0].layers[1][1]
    bars = [d for d in _figure(at, "block_detail")["data"] if d["type"] == "bar"]
    shown = np.zeros(trace.d_ff)
    for bar in bars:
        shown[np.asarray(_decode(bar["x"]), dtype=int)] = _decode(bar["y"])
    assert np.allclose(shown, sub.hidden[2], atol=1e-5)
    caption = " ".join(c.value for c in at.caption)
    assert f"{sub.zeros(2)} of {trace.d_ff} hidden units are exactly 0" in caption


def test_a_norm_box_reports_mean_zero_variance_one() -> None:
    at = _run({"block_family": "encoder-only", "block_box": "enc.self.norm", "block_token": "3"})
    caption = " ".join(c.value for c in at.caption)
    assert "variance 1.0000" in caption or "variance 0.9999" in caption, caption
    lines = _figure(at, "block_detail")["data"]
    assert len(lines) == 3


def test_another_model_resets_the_box() -> None:
    at = _run({"block_box": "dec.cross"})
    assert at.session_state["block_box"] == "dec.cross"
    at.selectbox(key="block_family").set_value("encoder-only").run()
    assert not at.exception, at.exception
    assert at.session_state["block_box"] == "enc.self"


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("tab", TABS)
def test_every_tab_draws(tab: str, lang: str) -> None:
    at = _run({"topic": tab, "lang": lang})
    keys = {c.key for c in charts(at)}
    assert {"block_diagram", "block_detail"} <= keys
    assert len(keys) >= 3 or tab == "changes" and len(keys) >= 4, keys
    if lang == "zh":
        assert STRINGS[f"block.tab.{tab}"][1] in [t.label for t in at.tabs]


def test_the_slide_draws_the_pages_figures() -> None:
    from ui.slides import capture

    figures, lines = capture("14_Transformer_block", {"block_family": "decoder-only", "block_box": "out"})
    assert len(figures) == 2 and lines
    assert any(d.get("orientation") == "h" for d in figures[1].to_plotly_json()["data"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_tabs_slide_draws_that_tabs_figures(lang: str) -> None:
    """A view added from a tab presents the tab: the norms tab's two figures (gradients at initialisation and
    the three trainings' curves, their numbers in the line), each other tab's own figure, never the diagram."""
    from models.training.presets import NORM_RUNS
    from ui.block import gradient_norms
    from ui.i18n import reading
    from ui.slides import capture

    def flat(text: str) -> str:  # a title as the builder wrapped it: <br> in place of a space (or none, 中文)
        return text.replace("<br>", "").replace(" ", "")

    def titles(figures: list) -> list[str]:
        return [flat(f.layout.title.text) for f in figures]

    with reading(lang):
        figures, lines = capture("14_Transformer_block", {"topic": "norms"})
        assert titles(figures) == [
            flat(tr("block.grad.title")),
            flat(tr("block.curves.title", n=read_config(NORM_RUNS[0])["model"]["config"]["num_encoder_layers"])),
        ]
        g = gradient_norms()
        assert np.allclose(_decode(figures[0].to_plotly_json()["data"][0]["y"]), g.decoder_post)
        rows = {m["name"]: m for m in load_results()["families"]["transformer"]["models"]}
        assert all(f"{rows[n]['exact_match']:.1%}" in lines[0] for n in NORM_RUNS), lines
        for tab, title in (("batch", "block.batch.title"), ("schedule", "block.lr.title")):
            figures, lines = capture("14_Transformer_block", {"topic": tab})
            assert titles(figures) == [flat(tr(title, d=512))], tab
        figures, lines = capture("14_Transformer_block", {"topic": "smoothing"})
        assert len(figures) == 1 and "ε = 0.1" in lines[0]
        figures, lines = capture("14_Transformer_block", {"topic": "changes", "block_family": "encoder-only"})
        assert len(figures) == 1 and "‖Sublayer(x)‖" in titles(figures)[0]


@pytest.mark.slow
def test_the_norms_tab_draws_the_post_ln_and_pre_ln_trainings_as_shipped() -> None:
    """Xiong et al.'s comparison trained: each run's curve is its checkpoint's loss_curve, each held-out exact
    match the one `python -m models.evaluate` recorded, and the verdict follows those figures."""
    from models.training.loop import CURVE_EVERY
    from models.training.presets import NORM_RUNS
    from ui.block import PRE_LN_AHEAD

    at = _run({"topic": "norms"})
    figure = _figure(at, "block_norm_runs")
    assert len(figure["data"]) == len(NORM_RUNS)
    rows = {m["name"]: m for m in load_results()["families"]["transformer"]["models"]}
    text = " ".join(m.value for m in at.markdown)
    for trace, name in zip(figure["data"], NORM_RUNS):
        curve = read_config(name)["training"]["loss_curve"]
        assert np.allclose(_decode(trace["y"]), curve)
        assert list(_decode(trace["x"])) == [CURVE_EVERY * (k + 1) for k in range(len(curve))]
        assert f"{rows[name]['exact_match']:.1%}" in text
    post, post_w, pre = (rows[n]["exact_match"] for n in NORM_RUNS)
    assert ("learned the task in the steps where post-LN had not" in text) == (pre - max(post, post_w) >= PRE_LN_AHEAD)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only", "encoder-only"])
def test_every_box_label_fits_its_box_at_a_readable_size(architecture: str, lang: str) -> None:
    """In the page's half of the column, each box label fits its box (width, and height for two lines) at one
    shared size: 10 px or more, not the 9 px the encoder–decoder's labels had beside the "× N" margins."""
    from ui.i18n import reading
    from ui.views.block import DIAGRAM_WIDTH, HEIGHT, architecture_view
    from viz_core.block import BOX_H, BOX_W, SIDE
    from viz_core.style import LINE_EM, text_width, title_dict

    with reading(lang):
        trace = run_block(architecture, EXAMPLES[architecture])
        fig = architecture_view(trace, "out").to_dict()
    layout = fig["layout"]
    x0, x1 = layout["xaxis"]["range"]
    y0, y1 = layout["yaxis"]["range"]
    px = (DIAGRAM_WIDTH - 20) / (x1 - x0)
    py = (HEIGHT - title_dict(layout["title"]["text"], DIAGRAM_WIDTH)[1] - 10) / (y1 - y0)
    boxes = [s for s in layout["shapes"] if s.get("fillcolor") not in (None, "rgba(0,0,0,0)")]
    labels = [
        a
        for a in layout["annotations"]
        if any(a["x"] == (b["x0"] + b["x1"]) / 2 and abs(a["y"] - (b["y0"] + b["y1"]) / 2) < 1e-9 for b in boxes)
    ]
    assert len(labels) == len(boxes) and x0 >= -BOX_W / 2 - SIDE - 1e-9
    sizes = {a["font"]["size"] for a in labels}
    assert len(sizes) == 1 and min(sizes) >= (13 if architecture != "encoder-decoder" or lang == "zh" else 10)
    for a in labels:
        lines = a["text"].replace("<b>", "").replace("</b>", "").split("<br>")
        assert len(lines) <= 2
        assert max(text_width(t, a["font"]["size"]) for t in lines) <= BOX_W * px - 8
        assert len(lines) * a["font"]["size"] * LINE_EM <= BOX_H * py
