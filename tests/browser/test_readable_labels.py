"""Readable at any length, in a real browser: the attention figures at 25, 100 and 512 tokens
and a width-4 beam tree, drawn by plotly.js (inlined from the installed plotly package, no CDN)
at the width the figures are planned for; no two tick labels (or beam-tree labels) overlap."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from tests.test_readable_figures import CLASSIC  # MiniLM's pieces of the classic sentence
from viz_core.style import FIGURE_WIDTH_PX

LENGTHS = (25, 100, 512)
WORDS = ["the", "attention", "of", "[CLS]", "##ing", "Bahdanau", "我们", "<b>", "encoder-decoder", "cat"]
WORDS_ZH = ["我", "喜欢", "喝", "绿茶", "。", "</s>", "图书馆", "他们"]  # stacked top to bottom when crowded

# Text boxes of one figure's labels: tick labels per axis, and scatter text (beam tree).
BOXES_JS = """(sel) => Array.from(document.querySelectorAll(sel))
  .filter(t => (t.textContent || '').trim() !== '' && getComputedStyle(t).display !== 'none')
  .map(t => { const r = t.getBoundingClientRect();
              return {text: t.textContent, x0: r.left, x1: r.right, y0: r.top, y1: r.bottom,
                      fill: getComputedStyle(t).fill, size: getComputedStyle(t).fontSize}; })"""


@pytest.fixture(scope="module")
def plot_page(browser_context, tmp_path_factory):
    """A blank page with plotly.js loaded from the installed plotly package."""
    from plotly.offline import get_plotlyjs

    html = tmp_path_factory.mktemp("plotly") / "plot.html"
    html.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><script>"
        + get_plotlyjs()
        + "</script></head><body style='margin:0;background:#fff'><div id='plot'></div></body></html>",
        encoding="utf-8",
    )
    page = browser_context.new_page()
    page.set_viewport_size({"width": 800, "height": 1000})  # room for the figures drawn across a column
    page.goto(html.as_uri())
    page.wait_for_function("typeof Plotly !== 'undefined'")
    yield page
    page.close()


def _draw(page, fig, width: float = FIGURE_WIDTH_PX) -> None:
    spec = json.loads(fig.to_json())
    spec["layout"]["width"] = width
    page.evaluate(
        """async (spec) => { const el = document.getElementById('plot'); Plotly.purge(el);
                     await Plotly.newPlot(el, spec.data, spec.layout, {staticPlot: true}); }""",
        spec,
    )
    page.wait_for_selector("#plot .main-svg")


def _overlaps(boxes: list[dict], slack: float = 0.5) -> list[tuple[str, str]]:
    bad = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                a["x0"] < b["x1"] - slack
                and b["x0"] < a["x1"] - slack
                and a["y0"] < b["y1"] - slack
                and b["y0"] < a["y1"] - slack
            ):
                bad.append((a["text"], b["text"]))
    return bad


def _softmax(shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 2
    x = np.exp(x - x.max(-1, keepdims=True))
    return x / x.sum(-1, keepdims=True)


def _figures(n: int, words: list[str] = WORDS) -> dict:
    from viz_core.attention_grid import grid_payload, head_figure
    from viz_core.bert import special_attention_figure, tag_figure
    from viz_core.foundations import weights_heatmap
    from viz_core.seq2seq import attention_heatmap, step_attention_bars
    from viz_core.transformer import attention_matrix_figure, attention_row_bars, grid_figure

    tokens = [words[i % len(words)] for i in range(n)]
    w = _softmax((n, n))
    att = _softmax((2, 3, n, n))
    return {
        "head_figure": head_figure(w, tokens, title="Layer 1, head 1: the attention of every query").figure,
        "seq2seq heatmap": attention_heatmap(w, tokens, tokens, title="Attention α of each target step"),
        "transformer matrix": attention_matrix_figure(w, tokens, tokens, title="Encoder self-attention"),
        "weights heatmap": weights_heatmap(w, tokens, tokens),
        "special attention": special_attention_figure(att, tokens, 0, "to", title="To [CLS] at 0"),
        "grid": grid_figure(grid_payload(att, tokens), title="Every head"),
        "step bars": step_attention_bars(w[0], tokens, title="α at step 1"),
        "row bars": attention_row_bars(w[0], tokens),
        "tag bars": tag_figure(tokens, w[0], "capital", True),
    }


@pytest.mark.parametrize(("n", "words"), [(n, WORDS) for n in LENGTHS] + [(n, WORDS_ZH) for n in (8, 25, 100)])
def test_tick_labels_never_overlap(plot_page, n: int, words: list[str]) -> None:
    from viz_core.style import LABEL_ALL_TOKENS, MIN_TICK_FONT_SIZE, TICK_FONT_SIZE

    # up to 40 tokens the labels may shrink to label every one (viz_core.style.fit_font)
    smallest = MIN_TICK_FONT_SIZE if n <= LABEL_ALL_TOKENS else TICK_FONT_SIZE
    for name, fig in _figures(n, words).items():
        if words is WORDS_ZH:  # 中文 is never turned on its side
            assert fig.layout.xaxis.tickangle in (None, 0), name
        _draw(plot_page, fig)
        for sel in ("#plot .xtick text", "#plot .ytick text"):
            boxes = plot_page.evaluate(BOXES_JS, sel)
            assert boxes, (name, sel)
            assert not _overlaps(boxes), (name, n, sel, _overlaps(boxes)[:3])
            for box in boxes:  # dark text, projector-sized
                assert box["fill"] in ("rgb(31, 36, 48)",), (name, box)
                assert float(box["size"].rstrip("px")) >= smallest, (name, box)
        # The title is not cut at the figure's right edge.
        for title in plot_page.evaluate(BOXES_JS, "#plot .gtitle"):
            assert title["x1"] <= FIGURE_WIDTH_PX + 1, (name, title)


def _beam_steps(n_steps: int, width: int = 4) -> list:
    rng = np.random.default_rng(1)
    steps = []
    for t in range(n_steps):
        steps.append(
            [
                SimpleNamespace(
                    parent=r // width,
                    token=WORDS[int(rng.integers(len(WORDS)))],
                    token_log_prob=-0.2 * r,
                    log_prob=-0.6 * t - 0.15 * r,
                    kept=r < width,
                    finished=t == n_steps - 1 and r < 2,
                )
                for r in range(width * width)
            ]
        )
    return steps


@pytest.mark.parametrize("n_steps", [3, 8, 16])
def test_beam_tree_labels_never_overlap(plot_page, n_steps: int) -> None:
    from viz_core.seq2seq import BEAM_TREE_PX, beam_tree_figure

    # drawn across the page's column, every step up to n_steps in view (16 steps: the earliest pan out)
    _draw(
        plot_page,
        beam_tree_figure(_beam_steps(n_steps), title=f"Beam of width 4: candidates up to step {n_steps}"),
        BEAM_TREE_PX,
    )
    plot = plot_page.evaluate(
        "() => { const el = document.getElementById('plot'), xa = el._fullLayout.xaxis;"
        " const left = el.querySelector('.main-svg').getBoundingClientRect().left;"
        " return [left + xa._offset, left + xa._offset + xa._length]; }"
    )
    boxes = [
        b for b in plot_page.evaluate(BOXES_JS, "#plot .textpoint text") if b["x1"] > plot[0] and b["x0"] < plot[1]
    ]  # labels of steps panned out of view are clipped
    assert len(boxes) >= 4
    assert not _overlaps(boxes), _overlaps(boxes)[:3]
    for sel in ("#plot .xtick text", "#plot .legendtext"):
        assert not _overlaps(plot_page.evaluate(BOXES_JS, sel))


def _column_figures(n: int) -> dict:
    """The heatmaps drawn across a page's column (issue 24 item 7), with ``n`` tokens."""
    from ui.studio import HEATMAP_PX
    from ui.transformer_xl import FIGURE_PX
    from viz_core.attention_grid import HEAD_VIEW_PX, head_figure, head_view_height
    from viz_core.seq2seq import attention_heatmap
    from viz_core.transformer import attention_matrix_figure, causal_mask
    from viz_core.transformer_xl import xl_attention_figure

    tokens = CLASSIC if n == 16 else [WORDS[i % len(WORDS)] for i in range(n)]
    w = _softmax((n, n))
    half = n // 2
    return {
        "real model head": (head_figure(w, tokens, title="Layer 1, head 1", width=HEAD_VIEW_PX).figure, HEAD_VIEW_PX),
        "generation causal map": (
            attention_matrix_figure(
                w,
                tokens,
                tokens,
                blocked=~causal_mask(n),
                title="Layer 2",
                width=HEAD_VIEW_PX,
                height=head_view_height(n),
            ),
            HEAD_VIEW_PX,
        ),
        "transformer-xl segment": (
            xl_attention_figure(
                w[half:],
                tokens[:half],
                tokens[half:],
                np.ones((n - half, n), dtype=bool),
                memory_label="memory",
                segment_label="segment",
                width=FIGURE_PX,
            ),
            FIGURE_PX,
        ),
        "studio probe": (
            attention_heatmap(w, tokens, tokens, title="The probe", width=HEATMAP_PX, height=max(360, 200 + 28 * n)),
            HEATMAP_PX,
        ),
    }


@pytest.mark.parametrize("n", [16, 40])
def test_column_heatmaps_label_every_token_that_fits_without_overlap(plot_page, n: int) -> None:
    """Drawn at the column's width, every token up to 40 is labelled on both axes (issue 24 item 7:
    the 16-token classic sentence at 16 px, "it" and "animal" included; 40 tokens at no less than
    MIN_TICK_FONT_SIZE), never two labels over each other, none cut at the figure's edge, none
    under the colour bar."""
    from viz_core.style import MIN_TICK_FONT_SIZE, TICK_FONT_SIZE

    for name, (fig, width) in _column_figures(n).items():
        _draw(plot_page, fig, width)
        height = plot_page.evaluate("() => document.getElementById('plot')._fullLayout.height")
        bar = plot_page.evaluate(BOXES_JS, "#plot .colorbar text")
        assert bar, name
        for sel in ("#plot .xtick text", "#plot .ytick text"):
            boxes = plot_page.evaluate(BOXES_JS, sel)
            assert not _overlaps(boxes), (name, n, sel, _overlaps(boxes)[:3])
            under = [pair for pair in _overlaps(boxes + bar) if pair not in _overlaps(bar)]
            assert not under, (name, n, sel, under[:3])
            for box in boxes:
                assert -0.5 <= box["x0"] and box["x1"] <= width + 0.5, (name, sel, box)  # not cut
                assert -0.5 <= box["y0"] and box["y1"] <= height + 0.5, (name, sel, box)
            sizes = {float(b["size"].rstrip("px")) for b in boxes}
            # (the segment's queries are its last n/2 tokens)
            rows = n - n // 2 if name == "transformer-xl segment" and "ytick" in sel else n
            assert len(boxes) == rows, (name, n, sel, len(boxes), sizes)
            if n == 16:
                assert sizes == {TICK_FONT_SIZE}, (name, sel, sizes)
                assert [b["text"] for b in boxes] == (CLASSIC[8:] if rows == 8 else CLASSIC), (name, sel)
            else:
                assert min(sizes) >= MIN_TICK_FONT_SIZE, (name, sel, sizes)
