"""Readable at any length: thinned tick labels that fit, projector contrast, one 0–1 attention
scale, titles that are not cut (viz_core.style and the figures built on it)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from viz_core.style import (
    ATTENTION_COLORSCALE,
    BACKGROUND,
    BASE_FONT_SIZE,
    FIGURE_WIDTH_PX,
    LABEL_ALL_TOKENS,
    LINE_EM,
    MIN_TICK_FONT_SIZE,
    TEXT_COLOR,
    TICK_FONT_SIZE,
    TITLE_FONT_SIZE,
    colorbar,
    fit_ticks,
    layout_dict,
    text_width,
    unwrap_text,
    wrap_text,
)

LENGTHS = (3, 25, 100, 512)


def _relative_luminance(colour: str) -> float:
    c = colour.lstrip("#")
    rgb = [int(c[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio (L1 + 0.05) / (L2 + 0.05) of two #rrggbb colours."""
    a, b = sorted((_relative_luminance(fg), _relative_luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def _tokens(n: int) -> list[str]:
    words = ["the", "attention", "of", "[CLS]", "##ing", "Bahdanau", "我们", "<b>", "encoder-decoder"]
    return [words[i % len(words)] for i in range(n)]


def _check_fit(
    vals: list[int], text: list[str], angle: int, n: int, axis_px: float, size: float, vertical_axis: bool
) -> None:
    slot = axis_px / n
    line = LINE_EM * size
    assert vals[0] == 0 and vals[-1] == n - 1, "first and last token labelled"
    assert len(set(vals)) == len(vals) and vals == sorted(vals), "no position twice"
    assert len(vals) == len(text)
    if vertical_axis or angle != 0:
        need = line  # stacked lines, or upright labels side by side
    else:
        need = max(text_width(t, size) for t in text)
    assert angle in (0, -90)
    for a, b in zip(vals, vals[1:]):
        assert (b - a) * slot >= need - 1e-6, (a, b, slot, need)
    assert len(vals) <= axis_px / need + 1, "at most what fits"


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("axis_px", [180, 480, 900])
@pytest.mark.parametrize("vertical_axis", [False, True])
def test_ticks_fit_the_axis(n: int, axis_px: float, vertical_axis: bool) -> None:
    labels = _tokens(n)
    vals, text, angle = fit_ticks(labels, axis_px, TICK_FONT_SIZE, vertical_axis=vertical_axis)
    _check_fit(vals, text, angle, n, axis_px, TICK_FONT_SIZE, vertical_axis)


def test_few_short_labels_stay_horizontal_and_all_shown() -> None:
    vals, text, angle = fit_ticks(["a", "cat", "sat"], 480)
    assert (vals, text, angle) == ([0, 1, 2], ["a", "cat", "sat"], 0)
    assert fit_ticks([f"tok{i}" for i in range(100)], 480)[2] == -90


def test_chinese_labels_are_written_top_to_bottom_not_turned() -> None:
    """Turned −90°, 中文 reads sideways; stacked, each label needs one character of width."""
    from viz_core.style import stacked, tick_extent

    words = ["我", "喜欢", "喝", "绿茶", "。", "<eos>"]
    vals, text, angle = fit_ticks(words, 6 * 30)  # 30 px a cell: "喜欢" does not fit side by side
    assert angle == 0 and vals == list(range(6))
    assert text[1] == "喜<br>欢" and text[5] == stacked("<eos>") == "&lt;<br>e<br>o<br>s<br>&gt;"
    assert tick_extent(text, angle) >= 5 * 1.25 * TICK_FONT_SIZE  # the margin holds the tallest
    vals, text, angle = fit_ticks(words * 20, 6 * 30)  # 120 labels in 180 px: thinned, still upright
    assert angle == 0 and all((b - a) * 1.5 >= TICK_FONT_SIZE for a, b in zip(vals, vals[1:]))
    assert fit_ticks(["the", "cat", "喝"] * 10, 90)[2] == -90  # mostly English: turned as before


def test_a_stacked_label_keeps_its_number_on_one_line() -> None:
    """ "头 10" stacked reads 头 over 10, not 头 over 1 over 0 (a 12-head grid's 中文 x axis)."""
    from viz_core.style import stacked

    assert stacked("头 10") == "头<br>10" and stacked("第3层") == "第<br>3<br>层"
    vals, text, angle = fit_ticks([f"头 {h}" for h in range(12)], 12 * 24)
    assert angle == 0 and text[-1] == "头<br>11" and max(t.count("<br>") for t in text) == 1
    assert fit_ticks(["图书馆员工作室"] * 10, 90)[2] == -90  # too long to stack


def test_a_short_heatmap_wraps_its_y_title() -> None:
    """Page 4's first step has one query row: upright beside it, "query: decoder step" ran up into
    the figure's title; wrapped to the rows' height, it stays beside them."""
    from viz_core.transformer import attention_matrix_figure

    one_row = attention_matrix_figure(
        np.full((1, 5), 0.2),
        list("abcde"),
        ["<s>"],
        y_title="query: decoder step",
        title="Cross-attention: layer 1, head 1",
    )
    assert "<br>" in one_row.layout.yaxis.title.text
    tall = attention_matrix_figure(
        np.full((12, 5), 0.2), list("abcde"), list("abcdefghijkl"), y_title="query: decoder step"
    )
    assert tall.layout.yaxis.title.text == "query: decoder step"


def test_tick_text_is_cut_without_breaking_entities() -> None:
    _, text, _ = fit_ticks(["&lt;script&gt;" * 3, "x"], 900)
    assert text[0].endswith("…") and "&lt;" in text[0] and not text[0].rstrip("…").endswith("&")


def test_max_ticks_caps_and_keeps_the_ends() -> None:
    vals, _, _ = fit_ticks([str(i) for i in range(512)], 5000, vertical_axis=True, max_ticks=30)
    assert len(vals) <= 31 and vals[0] == 0 and vals[-1] == 511


CLASSIC = "[CLS] the animal didn ' t cross the street because it was too tired . [SEP]".split()


@pytest.mark.parametrize("vertical_axis", [False, True])
def test_up_to_40_tokens_every_one_is_labelled_in_a_smaller_font(vertical_axis: bool) -> None:
    """Issue 24 item 7: 40 tokens on a column's 620 px get every label, shrunk from 16 px but not
    below MIN_TICK_FONT_SIZE; 41 are thinned at 16 px as before; 16 tokens keep 16 px; where
    even the floor cannot label all, 16 px and thinned (readable first)."""
    from viz_core.style import fit_font, tick_axis

    assert LABEL_ALL_TOKENS == 40
    px_per_token = 620 / 40  # the column heatmaps at 1280 × 720 (tests/browser/test_readable_labels.py)
    axis = tick_axis(_tokens(40), 620, vertical_axis=vertical_axis, max_ticks=30)
    size = axis["tickfont"]["size"]
    assert axis["tickvals"] == list(range(40))  # max_ticks does not thin 40 tokens either
    assert MIN_TICK_FONT_SIZE <= size < TICK_FONT_SIZE
    _check_fit(axis["tickvals"], axis["ticktext"], axis.get("tickangle", 0), 40, 620, size, vertical_axis)
    assert len(fit_ticks(_tokens(40), 620, size + 1, vertical_axis=vertical_axis)[0]) < 40  # the largest that fits

    many = tick_axis(_tokens(41), 41 * px_per_token, vertical_axis=vertical_axis, max_ticks=30)
    assert many["tickfont"]["size"] == TICK_FONT_SIZE and len(many["tickvals"]) < 41

    classic = tick_axis(CLASSIC, 560, vertical_axis=vertical_axis)
    assert classic["tickfont"]["size"] == TICK_FONT_SIZE and classic["tickvals"] == list(range(16))

    crowded = tick_axis(_tokens(40), 400, vertical_axis=vertical_axis)  # 10 px a token: not even at 12 px
    assert crowded["tickfont"]["size"] == TICK_FONT_SIZE and len(crowded["tickvals"]) < 40

    # an axis narrowed by labels of the same size (a heatmap's y labels) is planned at each size
    assert fit_font(_tokens(40), lambda s: 40 * LINE_EM * 13 if s <= 13 else 100.0, vertical_axis=vertical_axis) == 13


def test_column_heatmaps_move_the_colour_bar_below_to_label_40_tokens() -> None:
    """The head view at the column's width: 40 tokens all labelled, the colour bar below the plot
    (the width it took beside it); 41 tokens and 16 tokens keep it beside the plot."""
    from viz_core.attention_grid import HEAD_VIEW_PX, head_figure, head_view_height
    from viz_core.transformer import attention_matrix_figure

    for n, below in ((16, False), (40, True), (41, False)):
        w = np.full((n, n), 1 / n)
        head = head_figure(w, _tokens(n), width=HEAD_VIEW_PX).figure
        matrix = attention_matrix_figure(w, _tokens(n), _tokens(n), width=HEAD_VIEW_PX, height=head_view_height(n))
        for fig in (head, matrix):
            assert (fig.data[0].colorbar.orientation == "h") is below, n
            for axis in (fig.layout.xaxis, fig.layout.yaxis):
                labelled = len(axis.tickvals) == n
                assert labelled is (n <= 40), (n, len(axis.tickvals))
                assert axis.tickfont.size >= (MIN_TICK_FONT_SIZE if n <= 40 else TICK_FONT_SIZE)


def test_text_colours_have_projector_contrast() -> None:
    assert contrast_ratio(TEXT_COLOR, BACKGROUND) >= 4.5
    # The grey Streamlit's chart theme gives axis text when a figure sets no colour.
    assert contrast_ratio("#808495", "#ffffff") < 4.5
    layout = layout_dict("A title", 400, "x", "y")
    for axis in (layout["xaxis"], layout["yaxis"]):
        assert contrast_ratio(axis["tickfont"]["color"], layout["plot_bgcolor"]) >= 4.5
        assert contrast_ratio(axis["title"]["font"]["color"], layout["paper_bgcolor"]) >= 4.5
        assert axis["tickfont"]["size"] >= 16
    assert contrast_ratio(layout["title"]["font"]["color"], layout["paper_bgcolor"]) >= 4.5
    assert layout["title"]["font"]["size"] >= TITLE_FONT_SIZE
    bar = colorbar("weight")
    assert contrast_ratio(bar["tickfont"]["color"], BACKGROUND) >= 4.5 and bar["tickfont"]["size"] >= 16


def test_subplot_title_colours_have_contrast() -> None:
    from viz_core.bert import _DARK_OUTCOME

    for colour in _DARK_OUTCOME.values():
        assert contrast_ratio(colour, BACKGROUND) >= 4.5, colour


def test_long_titles_wrap_to_the_figure_width() -> None:
    title = "Layer 3: the average of its 12 heads over every token of the sentence, relative to nothing"
    wrapped = wrap_text(title, 300, TITLE_FONT_SIZE)
    assert "<br>" in wrapped
    assert all(text_width(line, TITLE_FONT_SIZE) <= 300 for line in wrapped.split("<br>"))
    assert wrapped.replace("<br>", " ") == title
    layout = layout_dict(title)
    lines = layout["title"]["text"].split("<br>")
    assert all(text_width(line, TITLE_FONT_SIZE) <= FIGURE_WIDTH_PX for line in lines)
    assert layout["margin"]["t"] >= len(lines) * TITLE_FONT_SIZE


def test_chinese_titles_wrap_between_characters_not_cut() -> None:
    """Chinese has no spaces: a long 中文 title breaks between characters (never before closing
    punctuation) and loses nothing, where breaking at spaces only would cut it with "…"."""
    title = "留出集困惑度与查询最多能看到的上下文长度：第 1 步的前 5 个候选词元，注意力权重"
    wrapped = wrap_text(title, 300, TITLE_FONT_SIZE)
    lines = wrapped.split("<br>")
    assert len(lines) >= 2 and "…" not in wrapped
    assert all(text_width(line, TITLE_FONT_SIZE) <= 300 for line in lines)
    assert wrapped.replace("<br>", "") == title  # nothing lost (no break fell on a space here)
    assert not any(line.startswith(("，", "：")) for line in lines)


def test_a_closing_bracket_never_starts_a_line() -> None:
    """A Chinese word in brackets, P(类别), breaks before "P(" or inside the word, never before ")"."""
    title = "你的输入：由 [CLS] 得到的 P(类别)"
    for width in range(120, 400, 4):
        lines = wrap_text(title, width, TITLE_FONT_SIZE).split("<br>")
        assert not any(line.startswith((")", "]")) for line in lines), (width, lines)
        assert unwrap_text("<br>".join(lines)) == title


@pytest.mark.parametrize(
    ("title", "relation"),
    [
        ("注意力权重 α(x, xᵢ)：高斯核（h = 1）", "（h = 1）"),
        ("Attention weights α(x, xᵢ): Gaussian kernel (h = 0.05)", "(h = 0.05)"),
    ],
)
def test_a_short_relation_and_an_opening_bracket_stay_with_their_words(title: str, relation: str) -> None:
    """The kernel-regression weights title broke as "…高斯核（h =" / "1）": a short relation ("h = 1") is
    never split where it fits on a line, and no line ends with an opening bracket; nothing is lost."""
    for width in range(120, 420, 4):
        lines = wrap_text(title, width, TITLE_FONT_SIZE).split("<br>")
        assert unwrap_text("<br>".join(lines)) == title, (width, lines)
        assert not any(line.endswith(("（", "(")) for line in lines), (width, lines)
        if text_width(relation, TITLE_FONT_SIZE) <= width:
            assert relation in lines[-1], (width, lines)


@pytest.mark.parametrize(
    "title",
    [
        "自注意力，第 1 块：注意力权重，4 个头的平均",
        "“created”关注什么，第 1 层，头 1",
        "这个头的 q 和每个 kᵢ（红 > 0，蓝 < 0）",
        "tf-en-fr：2 + 2 个块，d_ff = 256，4 个头",
    ],
)
def test_numbers_stay_with_their_chinese_words_and_relations_stay_whole(title: str) -> None:
    """Figure titles of the block, generation and one-head pages in 中文 broke as "…权重，4" / "个头的平均",
    "…第 1 层，头" / "1" and "…（红 > 0，蓝" / "< 0）": a number and the Chinese character beside it, and a
    relation ("蓝 < 0", "d_ff = 256"), are never split at any width where they fit; nothing is lost, no line
    is wider than the width."""
    chinese = "[\u4e00-\u9fff]"
    for width in range(120, 420, 2):
        wrapped = wrap_text(title, width, TITLE_FONT_SIZE)
        lines = wrapped.split("<br>")
        assert unwrap_text(wrapped) == title, (width, lines)
        assert all(text_width(line, TITLE_FONT_SIZE) <= width for line in lines), (width, lines)
        for before, after in zip(lines, lines[1:]):
            assert not (re.search(r"\d$", before) and re.match(chinese, after)), (width, lines)
            assert not (re.search(f"{chinese}$", before) and re.match(r"\d", after)), (width, lines)
            if width >= 180:
                assert not before.endswith(("=", "<", ">")), (width, lines)
                assert not after.startswith(("=", "<", ">")), (width, lines)


@pytest.mark.parametrize(
    "title",
    [
        "第 1 步的候选词元",
        "留出集困惑度与查询最多能看到的上下文长度：第 1 步的前 5 个候选词元，注意力权重",
        "注意力权重 α(x, xᵢ)：高斯核（h = 1）",
    ],
)
def test_no_chinese_character_is_left_alone_on_the_last_line(title: str) -> None:
    """ "第 1 步的候选词元" wrapped as "…候选词" / "元": a lone character on the last line reads as a stray
    mark from the back of the room. It takes the character before it along, at every width, where the
    line before keeps two or more pieces; no line grows past the width and nothing is lost."""
    moved = 0
    for width in range(100, 420, 2):
        wrapped = wrap_text(title, width, TITLE_FONT_SIZE)
        lines = wrapped.split("<br>")
        assert unwrap_text(wrapped) == title, (width, lines)
        assert all(text_width(line, TITLE_FONT_SIZE) <= width for line in lines), (width, lines)
        if len(lines) >= 2 and len(lines[-2]) >= 3:
            assert len(lines[-1].strip("，。）")) != 1, (width, lines)
        moved += len(lines) >= 2 and lines[-1] == "词元"
    if title == "第 1 步的候选词元":  # "元" alone at 150–170 px before
        assert wrap_text(title, 150, TITLE_FONT_SIZE) == "第 1 步的候选<br>词元"
        assert moved >= 5


@pytest.mark.parametrize(
    "title",
    [
        "Layer 3: the average of its 12 heads over every token of the sentence, relative to nothing",
        "同一个 6 + 6 块 Transformer 的三种训练：初始化时每个块前馈网络 W₂ 的梯度范数，留出集完全匹配率",
    ],
)
def test_a_wrapped_title_unwraps_to_itself(title: str) -> None:
    """A slide re-wraps a page's title for its own width: unwrapping gives back the title, with no space
    put between two Chinese characters."""
    for width in (200, 300, 500):
        assert unwrap_text(wrap_text(title, width, TITLE_FONT_SIZE)) == title


# --------------------------------------------------------------------------------------
# One 0–1 attention colour scale
# --------------------------------------------------------------------------------------


def _softmax(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    x = np.exp(x - x.max(-1, keepdims=True))
    return x / x.sum(-1, keepdims=True)


def _attention_figures(n: int) -> list:
    from viz_core.attention_grid import head_figure
    from viz_core.bert import explorer_head_figures, special_attention_figure
    from viz_core.foundations import weights_heatmap
    from viz_core.seq2seq import attention_heatmap
    from viz_core.transformer import attention_matrix_figure

    tokens = _tokens(n)
    w = _softmax((n, n))
    att = _softmax((2, 2, n, n))
    return [
        head_figure(w, tokens).figure,
        *(f.figure for f in explorer_head_figures(att[0], 1, tokens)),
        special_attention_figure(att, tokens, 0, "from"),
        weights_heatmap(w, tokens, tokens),
        attention_heatmap(w, tokens, tokens),
        attention_matrix_figure(w, tokens, tokens),
    ]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.slow
def test_attention_figures_use_one_0_to_1_scale_and_fitting_ticks(n: int) -> None:
    for fig in _attention_figures(n):
        heat = fig.data[0]
        assert (heat.zmin, heat.zmax) == (0.0, 1.0), fig.layout.title.text
        assert [list(c) for c in heat.colorscale] == [list(c) for c in ATTENTION_COLORSCALE]
        for axis in (fig.layout.xaxis, fig.layout.yaxis):
            vals = list(axis.tickvals)
            assert vals[0] == 0 and len(set(vals)) == len(vals)
            # up to 40 tokens the labels may shrink to label every one (viz_core.style.fit_font)
            smallest = MIN_TICK_FONT_SIZE if n <= LABEL_ALL_TOKENS else BASE_FONT_SIZE
            assert axis.tickfont.color == TEXT_COLOR and axis.tickfont.size >= smallest


def test_relative_shading_says_so() -> None:
    from viz_core.attention_grid import grid_payload, head_figure
    from viz_core.bert import explorer_head_figures

    w = _softmax((30, 30)) * 0.5
    rel = head_figure(w, _tokens(30), zmax=None).figure.data[0]
    assert rel.zmax == pytest.approx(float(w.max()))
    said = rel.colorbar.title.text.replace("<br>", " ")
    assert "relative to" in said and "maximum" in said
    for one in explorer_head_figures(_softmax((2, 30, 30)), 0, _tokens(30), scale="head"):
        assert "relative to" in one.figure.data[0].colorbar.title.text.replace("<br>", " ")
    att = _softmax((2, 3, 20, 20))
    default = grid_payload(att, _tokens(20))
    assert default.scale == "absolute" and np.all(default.vmax == 1)
    assert "0 → 1" in default.figure().layout.title.text
    per_head = grid_payload(att, _tokens(20), scale="head")
    assert "relative to each head" in per_head.figure().layout.title.text


def test_an_upright_colour_bar_title_is_wrapped_shorter_than_the_bar() -> None:
    """The scratch page's relative scale ("weight relative to the largest weight shown: darkest =
    0.088", about 430 px upright) was cut at both ends of its bar; it is now in lines of at most
    COLORBAR_TITLE_PX, its words unchanged."""
    from viz_core.foundations import weights_heatmap
    from viz_core.style import COLORBAR_TITLE_PX

    title = weights_heatmap(_softmax((40, 40)) * 0.2, _tokens(40), _tokens(40), zmax=None).data[0].colorbar.title
    lines = title.text.split("<br>")
    assert title.side == "right" and len(lines) > 1
    assert all(text_width(line, title.font.size) <= COLORBAR_TITLE_PX for line in lines)
    assert " ".join(lines).startswith("weight relative to the largest weight shown: darkest = ")


def test_thumbnail_default_is_weight_one_darkest() -> None:
    from viz_core.attention_grid import thumbnail_png

    faint = np.full((10, 10), 0.1, dtype=np.float32)
    assert thumbnail_png(faint) != thumbnail_png(faint, vmax=None)


# --------------------------------------------------------------------------------------
# Bars, beam tree, titles
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", LENGTHS)
def test_bar_charts_thin_their_token_axis(n: int) -> None:
    from viz_core.bert import span_figure, tag_figure
    from viz_core.seq2seq import step_attention_bars
    from viz_core.transformer import attention_row_bars

    tokens = _tokens(n)
    w = _softmax((n,))
    for fig in (
        step_attention_bars(w, tokens),
        attention_row_bars(w, tokens),
        tag_figure(tokens, w, "X", True),
        span_figure(tokens, w, w, (0, 1)),
    ):
        vals = list(fig.layout.xaxis.tickvals)
        assert vals[0] == 0 and vals[-1] == n - 1 and len(set(vals)) == len(vals)
        assert len(vals) <= FIGURE_WIDTH_PX / (LINE_EM * TICK_FONT_SIZE) + 1


def _beam_steps(n_steps: int, width: int = 4) -> list[list[SimpleNamespace]]:
    steps = []
    for t in range(n_steps):
        cands = [
            SimpleNamespace(
                parent=r // width,
                token=f"mot{t}{r}",
                token_log_prob=-0.1 * r,
                log_prob=-0.5 * t - 0.1 * r,
                kept=r < width,
                finished=t == n_steps - 1 and r == 0,
            )
            for r in range(width * width)
        ]
        steps.append(cands)
    return steps


def test_beam_tree_rows_leave_room_for_labels() -> None:
    from viz_core.seq2seq import beam_tree_figure

    fig = beam_tree_figure(_beam_steps(6), title="Beam of width 4: candidates up to step 6")
    plot_h = fig.layout.height - fig.layout.margin.t - 150
    y_range = fig.layout.yaxis.range
    px_per_unit = plot_h / abs(y_range[0] - y_range[1])
    assert px_per_unit >= LINE_EM * 14, "one kept row is at least one line of label text high"


def test_prediction_titles_wrap_and_value_text_is_not_clipped() -> None:
    from viz_core.bert import PREDICTIONS_WIDTH_PX, PredictionRow, predictions_figure

    rows = [PredictionRow(i, "##onstration", "[MASK]", "clicked", ["a", "b"], [1.0, 0.0], 1.0, 0) for i in range(4)]
    fig = predictions_figure(rows)  # four panels a row: each title within its quarter of the planned width
    for ann in fig.layout.annotations:
        for line in ann.text.split("<br>"):
            assert text_width(line, BASE_FONT_SIZE - 1) <= PREDICTIONS_WIDTH_PX / 4
    assert all(bar.textposition == "auto" for bar in fig.data)


@pytest.mark.parametrize("rows, cols, shared", [(3, 4, False), (3, 1, True), (1, 2, False), (1, 1, False)])
def test_subplot_grid_places_panels_as_make_subplots_does(rows: int, cols: int, shared: bool) -> None:
    """subplot_grid (one layout dict) puts every panel's axes and title where plotly's make_subplots
    does, with the lab's axis look on every panel and, when shared, one x range per column."""
    from plotly.subplots import make_subplots

    from viz_core.style import subplot_axes, subplot_grid

    titles = [f"panel {i}" for i in range(rows * cols)]
    ref = make_subplots(
        rows=rows, cols=cols, horizontal_spacing=0.13, vertical_spacing=0.12, subplot_titles=titles, shared_xaxes=shared
    ).layout.to_plotly_json()
    ours = subplot_grid(rows, cols, horizontal_spacing=0.13, vertical_spacing=0.12, titles=titles, shared_xaxes=shared)
    for i in range(rows * cols):
        x, y = subplot_axes(i)
        x_name, y_name = f"xaxis{x[1:]}", f"yaxis{y[1:]}"
        for name, other in ((x_name, y), (y_name, x)):
            assert ours[name]["domain"] == pytest.approx(ref[name]["domain"])
            assert ours[name]["anchor"] == ref[name]["anchor"] == other
            assert ours[name]["tickfont"]["color"] == TEXT_COLOR
        assert ours[x_name].get("matches") == ref[x_name].get("matches")
        assert ours[x_name].get("showticklabels", True) == ref[x_name].get("showticklabels", True)
    for mine, theirs in zip(ours["annotations"], ref["annotations"], strict=True):
        assert mine["text"] == theirs["text"]
        assert (mine["x"], mine["y"]) == pytest.approx((theirs["x"], theirs["y"]))
        assert (mine["xanchor"], mine["yanchor"]) == (theirs["xanchor"], theirs["yanchor"])


def test_next_token_values_read_at_the_axis_font_inside_long_bars_and_beside_short_ones() -> None:
    """The sampled distribution's values are drawn at the tick font, never shrunk to the bar's
    thickness: inside a bar longer than half the axis, beside a shorter one."""
    from viz_core.transformer import next_token_figure

    fig = next_token_figure(
        ["and", "that", "but"], np.array([0.4, 0.3, 0.1]), np.array([0.9, 0.08, 0.02]), chosen="and"
    ).to_plotly_json()
    sampled = [t for t in fig["data"] if t.get("offsetgroup") == "sampled"]
    assert sampled and all(t["textfont"]["size"] == TICK_FONT_SIZE and t["constraintext"] == "none" for t in sampled)
    assert all(list(t["textposition"]) == ["inside", "outside", "outside"] for t in sampled)
    assert fig["layout"]["xaxis"]["range"][1] > 0.9


# --------------------------------------------------------------------------------------
# One outline of heatmap cells
# --------------------------------------------------------------------------------------


def test_cell_outlines_frame_whole_cells_on_every_figure() -> None:
    """Every page outlines cells with one helper: the step's row (seq2seq, Transformer, XLNet), a method's
    column (explanation), a head (LLM): each frame runs along the cells' edges, i ± 0.5, in the one orange."""
    import plotly.graph_objects as go

    from viz_core.explanations import methods_figure
    from viz_core.seq2seq import attention_heatmap
    from viz_core.style import HIGHLIGHT, cell_outline
    from viz_core.transformer import row_outline

    assert cell_outline((2, 4), (1, 1), width=3) == {
        "type": "rect",
        "x0": 1.5,
        "x1": 4.5,
        "y0": 0.5,
        "y1": 1.5,
        "line": {"color": HIGHLIGHT, "width": 3},
    }
    assert cell_outline((0, 0), (0, 0), dash="dot")["line"]["dash"] == "dot"
    assert row_outline(3, 5) == cell_outline((0, 4), (3, 3))
    # the clicked cell of click-to-explain: a dark frame on the cell's edges, a white one 0.12 inside it
    from viz_core.explain import outline_cell
    from viz_core.style import BACKGROUND, TEXT_COLOR

    clicked = go.Figure(go.Heatmap(z=np.ones((3, 4))))
    outline_cell(clicked, 1, 2)
    frames = [(s.x0, s.x1, s.y0, s.y1, s.line.color, s.line.width, s.layer) for s in clicked.layout.shapes]
    assert frames == [(1.5, 2.5, 0.5, 1.5, TEXT_COLOR, 4, "above"), (1.62, 2.38, 0.62, 1.38, BACKGROUND, 2, "above")]
    w = np.full((4, 6), 1 / 6)
    fig = attention_heatmap(w, [f"s{i}" for i in range(6)], [f"t{i}" for i in range(4)], step=2)
    (shape,) = fig.layout.shapes
    assert (shape.x0, shape.x1, shape.y0, shape.y1, shape.line.color) == (-0.5, 5.5, 1.5, 2.5, HIGHLIGHT)
    fig = methods_figure(
        np.full((3, 5), 0.2),
        [f"k{i}" for i in range(5)],
        ["a", "b", "c"],
        title="t",
        scale_title="s",
        value_name="v",
        undefined="u",
        outlined=[1],
    )
    (shape,) = fig.layout.shapes
    assert (shape.x0, shape.x1, shape.y0, shape.y1) == (0.5, 1.5, -0.5, 2.5)
    assert isinstance(fig, go.Figure)
