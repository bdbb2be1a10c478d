"""Figures of the XLNet page (Yang et al. 2019): a factorisation order drawn as numbered steps and
arrows over the tokens, one stream's attention with its mask and the predicted rows outlined, and
top-k bars in small multiples (the true word marked). numpy and token lists in, plotly figures out;
every visible word comes in as an argument (the page translates it); attention on the one 0–1 scale
(:func:`viz_core.transformer.attention_matrix_figure`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.labels import safe_label, token_labels
from viz_core.style import (
    HIGHLIGHT,
    BASE_FONT_SIZE,
    FIGURE_WIDTH_PX,
    SERIES_COLORS,
    TEXT_COLOR,
    base_layout,
    legend_below,
    plot_width,
    set_layout,
    tick_axis,
    short_label,
    text_width,
    title_dict,
    wrap_text,
)
from viz_core.texts import Texts
from viz_core.transformer import attention_matrix_figure, mask_figure, row_outline

ARC_COLOR = "#4b5563"  # the order's arrows: 7.6 : 1 on white
CONTEXT_COLOR = SERIES_COLORS[0]  # a position of the order that is only read (context)
TRUE_COLOR = SERIES_COLORS[2]  # the true word's bar


def _arc(x0: float, x1: float, lift: float, points: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """A half-ellipse from (x0, 0.32) up by ``lift`` and down to (x1, 0.32), just above the circles."""
    s = np.linspace(0, np.pi, points)
    return x0 + (x1 - x0) * (1 - np.cos(s)) / 2, 0.32 + lift * np.sin(s)


def order_figure(
    tokens: Sequence[str],
    order: Sequence[int],
    predicted: Sequence[int],
    *,
    unknown: Sequence[bool] | None = None,
    title: str | None = None,
    context_name: str,
    predicted_name: str,
    step_hover: str,
    width: float | None = None,
    height: int = 170,
) -> go.Figure:
    """The factorisation order z over the tokens (in sentence order): a numbered circle t on z_t
    and an arrow from each z_t to z_{t+1}; ``predicted`` positions (partial prediction: the last
    ⌈n/K⌉ of the order) orange, the others (context only) blue, named ``predicted_name`` and
    ``context_name`` (no legend: the page's caption says it). ``step_hover`` is formatted with
    ``step``, ``token``; the title and ticks planned for ``width`` px (default: the style's)."""
    n = len(tokens)
    labels = token_labels(tokens, unknown)
    rank = {pos: t for t, pos in enumerate(order)}
    targets = set(predicted)
    fig = go.Figure()
    span = max(1, n - 1)
    for t in range(n - 1):  # arcs first: the circles are drawn over their ends
        a, b = order[t], order[t + 1]
        xs, ys = _arc(a, b, 0.25 + 0.8 * math.sqrt(abs(b - a) / span))
        fig.add_trace(
            go.Scatter(
                x=xs, y=ys, mode="lines", line={"color": ARC_COLOR, "width": 2}, hoverinfo="skip", showlegend=False
            )
        )
        fig.add_annotation(
            x=xs[-1],
            y=ys[-1],
            ax=xs[-4],
            ay=ys[-4],
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=2,
            arrowsize=1.3,
            arrowwidth=2,
            arrowcolor=ARC_COLOR,
            text="",
        )
    for on, name, color in ((False, context_name, CONTEXT_COLOR), (True, predicted_name, HIGHLIGHT)):
        positions = [i for i in range(n) if (i in targets) == on]
        fig.add_trace(
            go.Scatter(
                x=positions,
                y=[0.0] * len(positions),
                mode="markers+text",
                name=name,
                text=[str(rank[i] + 1) for i in positions],
                marker={"size": 32, "color": color, "line": {"width": 2, "color": "white"}},
                textfont={"size": BASE_FONT_SIZE + 1, "color": "white"},
                cliponaxis=False,
                hovertext=[step_hover.format(step=rank[i] + 1, token=labels[i]) for i in positions],
                hoverinfo="text",
            )
        )
    base_layout(fig, height=height)
    title_layout, top = title_dict(title, width)
    fig.update_layout(title=title_layout, margin={"t": top, "b": 10}, showlegend=False)  # colours: the caption
    fig.update_xaxes(
        tick_axis(labels, plot_width(width, left_px=20, right_px=20), max_ticks=40),
        range=[-0.6, n - 0.4],
        showgrid=False,
        zeroline=False,
        fixedrange=True,
    )
    fig.update_yaxes(visible=False, range=[-0.35, 1.45], fixedrange=True)
    return fig


def stream_figure(
    weights: np.ndarray,
    tokens: Sequence[str],
    allowed: np.ndarray,
    predicted: Sequence[int],
    *,
    unknown: Sequence[bool] | None = None,
    title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    texts: Texts | None = None,
    width: float | None = None,
    height: int | None = None,
) -> go.Figure:
    """One stream's (n, n) attention of one head in sentence order, cells its mask blocks grey
    (from ``allowed``, the trace's mask), the rows of the ``predicted`` positions outlined in orange;
    the one 0–1 scale."""
    fig = attention_matrix_figure(
        weights,
        tokens,
        tokens,
        blocked=~np.asarray(allowed, dtype=bool),
        title=title,
        x_title=x_title,
        y_title=y_title,
        key_unknown=unknown,
        texts=texts,
        width=width,
        height=height,
    )
    outlines = [row_outline(row, len(tokens), width=3) for row in predicted]  # one validation, not one per row
    return set_layout(fig, {"shapes": [s.to_plotly_json() for s in fig.layout.shapes] + outlines})


def stream_mask_figure(
    allowed: np.ndarray,
    tokens: Sequence[str],
    *,
    title: str | None = None,
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """A stream's mask (:func:`viz_core.transformer.mask_figure`: light = may attend, grey = −∞) in
    sentence order, its key labels planned for ``width`` px (default: the style's)."""
    fig = mask_figure(allowed, tokens, tokens, title=title, texts=texts)
    labels = token_labels(tokens)
    left = 40 + max(text_width(short_label(lab)) for lab in labels)
    return fig.update_xaxes(tick_axis(labels, plot_width(width, left_px=left, right_px=20), max_ticks=60))


@dataclass
class TopK:
    """One panel of :func:`topk_panels_figure`: its title, the top-k tokens and probabilities (most
    likely first) and the true word."""

    title: str
    tokens: Sequence[str]
    probs: Sequence[float]
    true: str


def topk_panels_figure(
    panels: Sequence[TopK],
    columns: int,
    *,
    title: str | None = None,
    true_name: str,
    other_name: str,
    width: float | None = None,
) -> go.Figure:
    """Small multiples of horizontal top-k bars, one panel per predicted position (or per way of
    predicting it), ``columns`` panels a row, one 0–100% axis for all so bars compare; the true
    word's bar green (legend ``true_name``), the others blue (``other_name``)."""
    n = max(1, len(panels))
    cols = max(1, min(columns, n))
    rows = math.ceil(n / cols)
    full = width or FIGURE_WIDTH_PX
    titles = [wrap_text(p.title, full / cols - 30, BASE_FONT_SIZE) for p in panels]
    title_px = 22 * max([s.count("<br>") + 1 for s in titles] + [1])  # each panel's title, above it
    panel_px = 30 + 28 * max([len(p.tokens) for p in panels] + [1])
    top_px, gap_px, bottom_px = title_dict(title, full)[1] + title_px, title_px + 45, 80  # x ticks, legend below
    height = top_px + rows * panel_px + (rows - 1) * gap_px + bottom_px
    plot_px = height - top_px - bottom_px
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles or [""],
        horizontal_spacing=0.16,
        vertical_spacing=gap_px / plot_px if rows > 1 else 0.0,
    )
    shown: set[bool] = set()
    for i, p in enumerate(panels):
        r, c = i // cols + 1, i % cols + 1
        k = len(p.tokens)
        labels = [safe_label(tok, 14) for tok in p.tokens]
        probs = np.asarray(p.probs, dtype=float)
        for is_true, name, color in ((False, other_name, CONTEXT_COLOR), (True, true_name, TRUE_COLOR)):
            keep = [j for j in range(k) if (p.tokens[j] == p.true) == is_true]
            if not keep:
                continue
            fig.add_trace(
                go.Bar(
                    x=probs[keep],
                    y=keep,
                    orientation="h",
                    marker_color=color,
                    name=name,
                    legendgroup=name,
                    showlegend=is_true not in shown,
                    text=[f"{probs[j]:.0%}" for j in keep],
                    textposition="auto",
                    textangle=0,
                    cliponaxis=False,
                    hovertext=[f"{labels[j]}: p = {probs[j]:.4f}" for j in keep],
                    hoverinfo="text",
                ),
                row=r,
                col=c,
            )
            shown.add(is_true)
        fig.update_yaxes(tickmode="array", tickvals=list(range(k)), ticktext=labels, autorange="reversed", row=r, col=c)
        fig.update_xaxes(range=[0, 1.05], tickvals=[0, 0.5, 1], tickformat=".0%", row=r, col=c)
    base_layout(fig, height=height)
    fig.update_layout(
        title=title_dict(title, full)[0], barmode="overlay", bargap=0.25, margin={"t": top_px, "b": bottom_px - 30}
    )
    fig.update_annotations(font={"size": BASE_FONT_SIZE, "color": TEXT_COLOR})
    return legend_below(fig)
