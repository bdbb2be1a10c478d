"""Figures of the Attention-at-scale page: FlashAttention's tiles over one head's attention matrix, a row
rebuilt from the saved log-sum-exp, cost against length on log–log axes, the KV cache against context
length, and the masks of full, windowed and window + sink attention. Arrays and labels in, plotly
figures out; every text passed in (or from ``texts``, viz_core.texts)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from viz_core.labels import token_labels
from viz_core.style import (
    ATTENTION_COLORSCALE,
    HIGHLIGHT,
    SERIES_COLORS,
    TICK_FONT_SIZE,
    TEXT_COLOR,
    base_layout,
    cell_outline,
    colorbar,
    legend_below,
    merged_layout,
    short_label,
    subplot_axes,
    subplot_grid,
    text_width,
    tick_axis,
    title_dict,
)
from viz_core.texts import Texts, word

DONE = "#0054a3"  # tiles already folded into m, ℓ and O
MASKED = "#b8bec9"  # −∞ cells (causal mask, outside a window)


_STEPS = (1, 2, 3, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
FLAT_CHARS = 7  # a horizontal tick label's longest text (characters)


def flat_axis(labels: Sequence[str], axis_px: float, max_ticks: int = 40) -> dict:
    """x-axis ticks that stay horizontal (one line of height under the plot, never turned upright): every
    ``step``-th label (a round step) where the widest label, cut to :data:`FLAT_CHARS`, fits its slot."""
    n = len(labels)
    text = [short_label(str(t), FLAT_CHARS) for t in labels]
    if n == 0:
        return {"tickmode": "array", "tickvals": [], "ticktext": []}
    widest = max(text_width(t, TICK_FONT_SIZE) for t in text) + 10
    need = max(math.ceil(widest / (max(axis_px, 1.0) / n) - 1e-9), math.ceil(n / max(1, max_ticks)), 1)
    step = next((s for s in _STEPS if s >= need), need)
    vals = list(range(0, n, step))
    return {
        "tickmode": "array",
        "tickvals": vals,
        "ticktext": [text[i] for i in vals],
        "tickangle": 0,
        "tickfont": {"size": TICK_FONT_SIZE, "color": TEXT_COLOR},
        "automargin": True,
    }


def _heat(
    z: np.ndarray, allowed: np.ndarray, xaxis: str, yaxis: str, hover: str, show_scale: bool, scale_title: str
) -> list[go.Heatmap]:
    """A 0–1 heatmap of ``z`` (rows top down) and a grey layer over the cells ``allowed`` forbids."""
    n_q, n_k = z.shape
    x, y = list(range(n_k)), list(range(n_q))
    traces = [
        go.Heatmap(
            z=np.where(allowed, z, np.nan),
            x=x,
            y=y,
            zmin=0.0,
            zmax=1.0,
            colorscale=ATTENTION_COLORSCALE,
            showscale=show_scale,
            xaxis=xaxis,
            yaxis=yaxis,
            colorbar=colorbar(scale_title),
            hovertemplate=hover + "<extra></extra>",
            xgap=0,
            ygap=0,
        )
    ]
    if not allowed.all():
        traces.append(
            go.Heatmap(
                z=np.where(allowed, np.nan, 1.0),
                x=x,
                y=y,
                zmin=0,
                zmax=1,
                showscale=False,
                colorscale=[[0, MASKED], [1, MASKED]],
                xaxis=xaxis,
                yaxis=yaxis,
                hoverinfo="skip",
            )
        )
    return traces


def tile_figure(
    weights: np.ndarray,
    tile: np.ndarray,
    tokens: Sequence[str],
    block: int,
    query_block: int,
    key_block: int,
    n_key_blocks: int,
    *,
    title: str,
    matrix_title: str,
    tile_title: str,
    x_title: str,
    y_title: str,
    hover: str,
    texts: Texts | None = None,
    width: float = 1000,
    height: int = 470,
) -> go.Figure:
    """Left: the head's whole causal attention matrix P (n × n, what standard attention holds), cut
    into ``block`` × ``block`` tiles; the query block's tiles already folded in outlined blue, the
    current one orange, the rest dashed. Right: the current tile's exp(S − m_new) (``tile``, 0–1:
    m_new is the running row maximum), grey where the causal mask forbids. One 0–1 colour scale;
    ``hover`` a plotly hover template (%{x}, %{y}, %{z})."""
    n = len(tokens)
    labels = token_labels(tokens)
    q0, k0 = query_block * block, key_block * block
    q1, k1 = min(n, q0 + block), min(n, k0 + block)
    layout = subplot_grid(1, 2, horizontal_spacing=0.12, titles=[matrix_title, tile_title], title=title, height=height)
    title_layout, top = title_dict(title, width)
    layout.update(title=title_layout, margin={"l": 10, "r": 10, "t": top + 28, "b": 10}, width=None)
    causal = np.tril(np.ones((n, n), dtype=bool))
    traces = _heat(np.asarray(weights, dtype=float), causal, "x", "y", hover, False, "")
    tile_allowed = causal[q0:q1, k0:k1]
    traces += _heat(np.asarray(tile, dtype=float), tile_allowed, "x2", "y2", hover, True, word(texts, "weight"))
    shapes = []
    for j in range(n_key_blocks):
        keys = (j * block, min(n, (j + 1) * block) - 1)
        if j == key_block:
            shapes.append(cell_outline(keys, (q0, q1 - 1)))
        elif j < key_block:
            shapes.append(cell_outline(keys, (q0, q1 - 1), color=DONE, width=2))
        else:
            shapes.append(cell_outline(keys, (q0, q1 - 1), color="#7f7f7f", width=1, dash="dot"))
    for shape in shapes:  # on the left panel (the whole matrix)
        shape.update(xref="x", yref="y")
    half = width * 0.44
    plot_px = height - top - 100  # each panel's height: the title, the panel titles and one line of x ticks off
    y_axis = tick_axis(labels, plot_px, vertical_axis=True, max_ticks=40)
    # one layout, validated once (update_layout resolves every path: a step spent half its time there)
    layout = merged_layout(
        layout,
        {
            "shapes": shapes,
            "xaxis": {
                **flat_axis(labels, half - 90),
                "range": [-0.5, n - 0.5],
                "title": {"text": x_title, "standoff": 4},
                "showgrid": False,
            },
            "yaxis": {**y_axis, "range": [n - 0.5, -0.5], "title": {"text": y_title}, "showgrid": False},
            "xaxis2": {
                **flat_axis(labels[k0:k1], half - 90, max_ticks=32),
                "range": [-0.5, k1 - k0 - 0.5],
                "showgrid": False,
            },
            "yaxis2": {
                **tick_axis(labels[q0:q1], plot_px, vertical_axis=True, max_ticks=32),
                "range": [q1 - q0 - 0.5, -0.5],
                "showgrid": False,
            },
        },
    )
    fig = go.Figure(data=traces, layout=layout)
    return fig


def rebuild_figure(
    exact_row: np.ndarray,
    rebuilt_row: np.ndarray,
    tokens: Sequence[str],
    *,
    title: str,
    exact_name: str,
    rebuilt_name: str,
    x_title: str,
    width: float = 1000,
    height: int = 330,
) -> go.Figure:
    """One row of the attention matrix as standard attention stores it (bars) and as rebuilt from q_i,
    K and the saved log-sum-exp (markers): exp(q_i Kᵀ/√d − L_i)."""
    labels = token_labels(tokens)
    n = len(tokens)
    fig = go.Figure(
        [
            go.Bar(
                x=list(range(n)), y=np.asarray(exact_row, dtype=float), name=exact_name, marker_color=SERIES_COLORS[0]
            ),
            go.Scatter(
                x=list(range(n)),
                y=np.asarray(rebuilt_row, dtype=float),
                name=rebuilt_name,
                mode="markers",
                marker={"color": HIGHLIGHT, "size": 7, "symbol": "x"},
            ),
        ]
    )
    base_layout(fig, height=height, x_title=x_title)
    title_layout, top = title_dict(title, width)
    fig.update_layout(title=title_layout, margin={"t": top, "b": 10})
    fig.update_xaxes(tick_axis(labels, width - 120, max_ticks=40), range=[-0.6, n - 0.4])
    fig.update_yaxes(range=[0, 1.02])
    return legend_below(fig)


def cost_figure(
    lengths: Sequence[int],
    seconds: Mapping[str, Sequence[float]],
    peak_bytes: Mapping[str, Sequence[float]],
    matrix_bytes: Sequence[float],
    *,
    title: str,
    time_title: str,
    memory_title: str,
    x_title: str,
    time_y: str,
    memory_y: str,
    matrix_name: str,
    width: float = 1000,
    height: int = 440,
) -> go.Figure:
    """Time (left) and peak memory (right) of each method against the number of tokens, both log–log; the
    legend names carry the fitted exponents; the n × n float32 matrix drawn dashed on the right."""
    layout = subplot_grid(1, 2, horizontal_spacing=0.12, titles=[time_title, memory_title], title=title, height=height)
    title_layout, top = title_dict(title, width)
    layout.update(title=title_layout, margin={"l": 10, "r": 10, "t": top + 28, "b": 10})
    fig = go.Figure(layout=layout)
    for i, (name, row) in enumerate(seconds.items()):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        fig.add_trace(
            go.Scatter(
                x=list(lengths),
                y=[s * 1e3 for s in row],
                name=name,
                legendgroup=name,
                mode="lines+markers",
                line={"color": color},
            )
        )
        fig.add_trace(
            go.Scatter(
                x=list(lengths),
                y=[b / 2**20 for b in peak_bytes[name]],
                name=name,
                legendgroup=name,
                showlegend=False,
                mode="lines+markers",
                line={"color": color},
                xaxis="x2",
                yaxis="y2",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=list(lengths),
            y=[b / 2**20 for b in matrix_bytes],
            name=matrix_name,
            mode="lines",
            line={"color": "#7f7f7f", "dash": "dash"},
            xaxis="x2",
            yaxis="y2",
        )
    )
    fig.update_xaxes(type="log", title_text=x_title, tickvals=list(lengths), ticktext=[f"{n:,}" for n in lengths])
    fig.update_layout(
        yaxis={"type": "log", "title": {"text": time_y}}, yaxis2={"type": "log", "title": {"text": memory_y}}
    )
    return legend_below(fig)


def cache_figure(
    lengths: Sequence[int],
    mib: Mapping[str, Sequence[float]],
    chosen: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    chosen_name: str,
    width: float = 1000,
    height: int = 400,
) -> go.Figure:
    """The KV cache's size against context length for each attention layout (MHA, GQA, MQA; log–log),
    the chosen context length marked."""
    fig = go.Figure()
    for i, (name, row) in enumerate(mib.items()):
        fig.add_trace(
            go.Scatter(
                x=list(lengths),
                y=list(row),
                name=name,
                mode="lines",
                line={"color": SERIES_COLORS[i % len(SERIES_COLORS)], "width": 3},
            )
        )
    fig.add_vline(x=chosen, line={"color": HIGHLIGHT, "width": 2, "dash": "dash"})
    fig.add_trace(
        go.Scatter(x=[chosen], y=[None], mode="lines", name=chosen_name, line={"color": HIGHLIGHT, "dash": "dash"})
    )
    base_layout(fig, height=height, x_title=x_title, y_title=y_title)
    title_layout, top = title_dict(title, width)
    fig.update_layout(title=title_layout, margin={"t": top, "b": 10})
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return legend_below(fig)


def masks_figure(
    masks: Sequence[np.ndarray],
    titles: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    width: float = 1000,
    height: int = 380,
) -> go.Figure:
    """Attention masks side by side (blue = may attend, grey = −∞), key position across, query down."""
    k = len(masks)
    layout = subplot_grid(1, k, horizontal_spacing=0.06, titles=list(titles), title=title, height=height)
    title_layout, top = title_dict(title, width)
    layout.update(title=title_layout, margin={"l": 10, "r": 10, "t": top + 28, "b": 10})
    fig = go.Figure(layout=layout)
    for i, mask in enumerate(masks):
        xa, ya = subplot_axes(i)
        n = mask.shape[0]
        fig.add_trace(
            go.Heatmap(
                z=np.where(mask, 1.0, 0.0),
                zmin=0,
                zmax=1,
                showscale=False,
                xaxis=xa,
                yaxis=ya,
                colorscale=[[0, MASKED], [0.5, MASKED], [0.5, DONE], [1, DONE]],
                hovertemplate="%{y} → %{x}<extra></extra>",
            )
        )
        fig.update_layout(
            {
                f"yaxis{ya[1:]}": {"range": [n - 0.5, -0.5], "scaleanchor": xa, "showgrid": False},
                f"xaxis{xa[1:]}": {"range": [-0.5, n - 0.5], "showgrid": False},
            }
        )
    fig.update_xaxes(title_text=x_title)
    fig.update_layout(yaxis={"title": {"text": y_title}})
    return fig


def window_ppl_figure(
    windows: Sequence[int],
    alone: Sequence[float],
    with_sinks: Sequence[float],
    full: float,
    *,
    title: str,
    alone_name: str,
    sinks_name: str,
    full_name: str,
    x_title: str,
    y_title: str,
    width: float = 1000,
    height: int = 360,
) -> go.Figure:
    """Measured perplexity of one long text per window size: the window alone and the window with sink tokens
    side by side (bars, the value written on each), full causal attention as a dashed line."""
    x = [str(w) for w in windows]
    fig = go.Figure(
        [
            go.Bar(
                x=x,
                y=list(alone),
                name=alone_name,
                marker_color=MASKED,
                text=[f"{v:.2f}" for v in alone],
                textposition="outside",
                cliponaxis=False,
            ),
            go.Bar(
                x=x,
                y=list(with_sinks),
                name=sinks_name,
                marker_color=DONE,
                text=[f"{v:.2f}" for v in with_sinks],
                textposition="outside",
                cliponaxis=False,
            ),
        ]
    )
    fig.add_hline(y=full, line={"color": HIGHLIGHT, "width": 2, "dash": "dash"})
    fig.add_trace(
        go.Scatter(x=[x[0]], y=[None], mode="lines", name=full_name, line={"color": HIGHLIGHT, "dash": "dash"})
    )
    base_layout(fig, height=height, x_title=x_title, y_title=y_title)
    title_layout, top = title_dict(title, width)
    fig.update_layout(title=title_layout, margin={"t": top, "b": 10}, barmode="group")
    fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0, max([*alone, *with_sinks, full]) * 1.15])
    return legend_below(fig)


def length_figure(
    lengths: Sequence[int],
    panels: Sequence[tuple[str, str, Mapping[str, Sequence[float]]]],
    *,
    title: str,
    x_title: str,
    width: float = 1000,
    height: int = 400,
) -> go.Figure:
    """Panels side by side, each (panel title, y title, {series name: values}) against length, log–log; a
    series name repeated across panels keeps its colour and one legend entry."""
    k = len(panels)
    layout = subplot_grid(1, k, horizontal_spacing=0.08, titles=[p[0] for p in panels], title=title, height=height)
    title_layout, top = title_dict(title, width)
    layout.update(title=title_layout, margin={"l": 10, "r": 10, "t": top + 28, "b": 10})
    fig = go.Figure(layout=layout)
    colors: dict[str, str] = {}
    for i, (_, y_title, series) in enumerate(panels):
        xa, ya = subplot_axes(i)
        for name, row in series.items():
            first = name not in colors
            color = colors.setdefault(name, SERIES_COLORS[len(colors) % len(SERIES_COLORS)])
            fig.add_trace(
                go.Scatter(
                    x=list(lengths),
                    y=list(row),
                    name=name,
                    legendgroup=name,
                    showlegend=first,
                    mode="lines+markers",
                    line={"color": color},
                    xaxis=xa,
                    yaxis=ya,
                )
            )
        fig.update_layout({f"yaxis{ya[1:]}": {"type": "log", "title": {"text": y_title}}})
    fig.update_xaxes(type="log", title_text=x_title, tickvals=list(lengths), ticktext=[f"{n:,}" for n in lengths])
    return legend_below(fig)
