"""Figures of the Transformer-XL page (Dai et al. 2019): attention over [memory | segment], the
dependency picture (the paper's Figure 2) from the masks, the four score terms, the relative shift,
and the memory's measured effect. numpy and token lists in, plotly figures out; every attention
weight on the one 0–1 scale (:func:`viz_core.transformer.attention_matrix_figure`); fixed words from
``texts`` (viz_core.texts, ids ``txl.*``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.labels import token_labels
from viz_core.positional import signed_heatmap
from viz_core.style import (
    HIGHLIGHT,
    BASE_FONT_SIZE,
    SERIES_COLORS,
    TEXT_COLOR,
    base_layout,
    cell_outline,
    heatmap_layout,
    legend_below,
    tick_axis,
    plot_width,
)
from viz_core.texts import Texts, word
from viz_core.transformer import ALLOWED, MASKED, attention_matrix_figure


def xl_attention_figure(
    weights: np.ndarray,
    memory_tokens: Sequence[str],
    segment_tokens: Sequence[str],
    mask: np.ndarray,
    *,
    memory_label: str,
    segment_label: str,
    title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    texts: Texts | None = None,
    width: float | None = None,
    height: int | None = None,
) -> go.Figure:
    """One head's (L, M + L) attention over [memory | segment]; masked cells grey, the memory's
    columns framed (no fill: the colours stay on the 0–1 scale) and set apart by a dashed divider,
    each part labelled above the plot; ticks planned for ``width`` × ``height`` px (None: defaults)."""
    m = len(memory_tokens)
    fig = attention_matrix_figure(
        weights,
        [*memory_tokens, *segment_tokens],
        segment_tokens,
        blocked=~mask,
        title=title,
        x_title=x_title,
        y_title=y_title,
        texts=texts,
        width=width,
        height=height,
    )
    n_q, n_k = np.shape(weights)
    if m:
        fig.add_shape(cell_outline((0, m - 1), (0, n_q - 1), width=3))
        fig.add_shape(
            type="line",
            x0=m - 0.5,
            x1=m - 0.5,
            y0=-0.5,
            y1=n_q - 0.5,
            line={"color": TEXT_COLOR, "width": 3, "dash": "dash"},
        )
        fig.add_annotation(
            x=(m - 1) / 2,
            y=1.0,
            yref="paper",
            yanchor="bottom",
            text=memory_label,
            showarrow=False,
            font={"size": BASE_FONT_SIZE, "color": HIGHLIGHT},
        )
    fig.add_annotation(
        x=m + (n_k - m - 1) / 2,
        y=1.0,
        yref="paper",
        yanchor="bottom",
        text=segment_label,
        showarrow=False,
        font={"size": BASE_FONT_SIZE, "color": TEXT_COLOR},
    )
    return fig


def dependency_figure(
    panels: Mapping[str, np.ndarray],
    seg_len: int,
    token: int,
    tokens: Sequence[str],
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """The paper's Figure 2 from the masks: one panel per model (vanilla, XL), rows = layers (0 = the
    input tokens, at the bottom), columns = positions; filled nodes can influence ``token``'s
    top-layer state. Dotted lines mark the segment boundaries. Ticks planned for ``width`` px (None:
    the style's narrowest column)."""
    names = list(panels)
    n_layers, n = next(iter(panels.values())).shape
    fig = make_subplots(rows=len(names), cols=1, subplot_titles=names, vertical_spacing=0.16)
    xs, ys = np.meshgrid(np.arange(n), np.arange(n_layers))
    for row, name in enumerate(names, start=1):
        reach = np.asarray(panels[name], dtype=bool)
        for on, color, label in (
            (False, "#d5dbe3", word(texts, "txl.no_influence")),
            (True, SERIES_COLORS[0], word(texts, "txl.can_influence")),
        ):
            sel = reach == on
            fig.add_trace(
                go.Scatter(
                    x=xs[sel],
                    y=ys[sel],
                    mode="markers",
                    name=label,
                    showlegend=row == 1,
                    legendgroup=label,
                    marker={"size": 11, "color": color, "line": {"width": 1, "color": "#6b7685"}},
                    hovertemplate=word(texts, "txl.node_hover") + "<extra></extra>",
                ),
                row=row,
                col=1,
            )
        fig.add_trace(
            go.Scatter(
                x=[token],
                y=[n_layers - 1],
                mode="markers",
                name=word(texts, "txl.chosen"),
                showlegend=row == 1,
                marker={"size": 17, "color": HIGHLIGHT, "symbol": "star"},
                hoverinfo="skip",
            ),
            row=row,
            col=1,
        )
        for b in range(seg_len, n, seg_len):
            fig.add_vline(x=b - 0.5, line={"color": MASKED, "dash": "dot", "width": 2}, row=row, col=1)
        fig.update_yaxes(
            title_text=word(texts, "txl.layer"),
            tickvals=list(range(n_layers)),
            range=[-0.6, n_layers - 0.4],
            row=row,
            col=1,
        )
        fig.update_xaxes(
            tick_axis(token_labels(tokens), plot_width(width, left_px=80, right_px=20), max_ticks=40),
            range=[-0.6, n - 0.4],
            row=row,
            col=1,
        )
    base_layout(fig, height=170 + 95 * n_layers * len(names))
    return legend_below(fig)


def score_terms_figure(
    rows: Mapping[str, np.ndarray],
    keys: Sequence[str],
    title: str | None = None,
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """The four score terms, their sum and the model's score as rows over the keys, on the signed
    scale (scores, not weights), each cell labelled with its value; hover words from ``texts``; ticks
    and title planned for ``width`` px (None: the style's narrowest column)."""
    z = np.stack([np.asarray(v, dtype=float) for v in rows.values()])
    text = [[f"{v:.2f}" for v in r] for r in z]
    fig = go.Figure(
        signed_heatmap(
            z,
            text=text,
            texttemplate="%{text}" if z.shape[1] <= 24 else None,
            hovertemplate=word(texts, "txl.term_hover"),
            xgap=1,
            ygap=1,
        )
    )
    heatmap_layout(
        fig, token_labels(keys), list(rows), title=title, height=150 + 44 * len(rows), max_ticks=40, width=width
    )
    fig.update_yaxes(tickvals=list(range(len(rows))), ticktext=list(rows))
    return fig


def shift_figure(
    before: np.ndarray, after: np.ndarray, mask: np.ndarray, titles: Sequence[str], texts: Texts | None = None
) -> go.Figure:
    """The relative shift on a small example: the distance each score cell stands for before the
    shift (column c ↔ K − 1 − c in every row) and after (cell [i, j] ↔ i − j); masked cells grey.
    Distances, not weights: plain cells with their numbers; axis words from ``texts``."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=list(titles), horizontal_spacing=0.1)
    for col, (z, allowed) in enumerate(((before, np.ones_like(mask)), (after, mask)), start=1):
        z = np.asarray(z, dtype=float)
        fig.add_trace(
            go.Heatmap(
                z=np.where(allowed, 0.0, 1.0),
                zmin=0,
                zmax=1,
                showscale=False,
                xgap=2,
                ygap=2,
                colorscale=[[0, ALLOWED], [1, MASKED]],
                hoverinfo="skip",
                text=[[f"{v:.0f}" if a else "" for v, a in zip(r, ar)] for r, ar in zip(z, allowed)],
                texttemplate="%{text}",
                textfont={"size": BASE_FONT_SIZE, "color": TEXT_COLOR},
            ),
            row=1,
            col=col,
        )
        fig.update_yaxes(autorange="reversed", title_text=word(texts, "txl.query_i"), dtick=1, row=1, col=col)
        fig.update_xaxes(title_text=word(texts, "txl.column_c" if col == 1 else "txl.key_j"), dtick=1, row=1, col=col)
    base_layout(fig, height=300)
    return fig


def context_perplexity_figure(
    by_memory: Mapping[str, float],
    seg_len: int,
    vanilla_by_window: Mapping[str, float] | None = None,
    *,
    xl_name: str = "Transformer-XL",
    vanilla_name: str = "vanilla LM",
    title: str | None = None,
    x_title: str = "longest context a query sees",
    y_title: str = "perplexity",
) -> go.Figure:
    """Held-out perplexity against the longest context a query sees (Dai et al. 2019, §4): L + M for
    Transformer-XL read in segments of ``seg_len`` with memory M (each point labelled M; M = 0 is
    every segment alone), and C for the vanilla decoder-only LM over windows of C tokens."""
    ms = sorted(by_memory, key=int)
    fig = go.Figure(
        go.Scatter(
            x=[seg_len + int(m) for m in ms],
            y=[by_memory[m] for m in ms],
            name=xl_name,
            mode="lines+markers+text",
            text=[f"M={m}" for m in ms],
            textposition="top center",
            marker={"size": 10, "color": SERIES_COLORS[0]},
            line={"width": 3},
            textfont={"size": BASE_FONT_SIZE - 2, "color": TEXT_COLOR},
        )
    )
    if vanilla_by_window:
        cs = sorted(vanilla_by_window, key=int)
        fig.add_trace(
            go.Scatter(
                x=[int(c) for c in cs],
                y=[vanilla_by_window[c] for c in cs],
                name=vanilla_name,
                mode="lines+markers",
                marker={"size": 10, "symbol": "square", "color": SERIES_COLORS[1]},
                line={"width": 3, "dash": "dash"},
            )
        )
    base_layout(fig, title=title, height=380, x_title=x_title, y_title=y_title)
    legend_below(fig)
    values = [*by_memory.values(), *(vanilla_by_window or {}).values()]
    contexts = sorted({seg_len + int(m) for m in ms} | {int(c) for c in (vanilla_by_window or {})})
    fig.update_xaxes(type="log", tickvals=contexts, ticktext=[str(c) for c in contexts])  # only measured lengths
    fig.update_yaxes(range=[0.9 * min(values), 1.08 * max(values)])
    return fig


def memory_growth_figure(
    memory_lens: Sequence[int], current: int, title: str | None = None, x_title: str = "step", y_title: str = "memory"
) -> go.Figure:
    """The memory's length at every generation step, the current one outlined."""
    steps = list(range(1, len(memory_lens) + 1))
    colors = [HIGHLIGHT if s == current + 1 else SERIES_COLORS[0] for s in steps]
    fig = go.Figure(go.Bar(x=steps, y=list(memory_lens), marker_color=colors))
    base_layout(fig, title=title, height=260, x_title=x_title, y_title=y_title)
    return fig
