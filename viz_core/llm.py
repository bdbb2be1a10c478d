"""Figures of the real-LLM page: the new token's attention per layer, grouped-query sharing, RoPE on
the model's head dimension, and head-type scores per layer × head. Arrays and labels in, plotly
figures out; every visible word comes in as an argument or through ``texts`` (viz_core.texts), so
the page translates it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from viz_core.labels import token_labels
from viz_core.style import (
    HIGHLIGHT,
    SERIES_COLORS,
    attention_scale,
    base_layout,
    cell_outline,
    heatmap_layout,
    legend_below,
)
from viz_core.texts import Texts, word


def step_attention_figure(
    rows: np.ndarray,
    tokens: Sequence[str],
    row_labels: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    height: int = 560,
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """(rows, T) attention of one new token: one row per layer (or head), one column per earlier
    token; the app's one 0–1 scale (colour-bar word from ``texts``); integer x axis so that repeated
    tokens stay apart, its labels thinned for ``width`` px (default: the style's)."""
    w = np.asarray(rows, dtype=float)
    x_labels = token_labels([str(t) for t in tokens])
    hover = [
        [f"{row_labels[r]} → {x_labels[k]}<br>{w[r, k]:.4f}" for k in range(w.shape[1])] for r in range(w.shape[0])
    ]
    fig = go.Figure(
        go.Heatmap(
            z=w,
            x=list(range(w.shape[1])),
            y=list(range(w.shape[0])),
            **attention_scale(texts=texts),
            text=hover,
            hoverinfo="text",
            xgap=1 if w.shape[1] <= 80 else 0,
            ygap=1,
        )
    )
    heatmap_layout(
        fig,
        x_labels,
        list(row_labels),
        title=title,
        x_title=x_title,
        y_title=y_title,
        height=height,
        max_ticks=40,
        width=width,
        extra={"yaxis": {"range": [w.shape[0] - 0.5, -0.5], "autorange": False}},
    )
    return fig


def score_grid_figure(
    scores: np.ndarray,
    *,
    title: str,
    x_title: str,
    y_title: str,
    best: Sequence[tuple[int, int, float]] = (),
    height: int = 560,
    texts: Texts | None = None,
    scale_title: str | None = None,
    width: float | None = None,
) -> go.Figure:
    """Layers × heads scores in [0, 1] (mean attention weights) on the 0–1 scale; ``best``
    (layer, head, score) cells are outlined and labelled with their score; the colour bar's title is
    ``scale_title`` (default: the word "score" from ``texts``); the title wrapped for ``width`` px
    (default: the style's)."""
    s = np.asarray(scores, dtype=float)
    n_layers, n_heads = s.shape
    layers = [str(i + 1) for i in range(n_layers)]
    heads = [str(h + 1) for h in range(n_heads)]
    hover = [
        [f"L{layer + 1} H{head + 1}: {s[layer, head]:.3f}" for head in range(n_heads)] for layer in range(n_layers)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=s,
            x=list(range(n_heads)),
            y=list(range(n_layers)),
            **attention_scale(title=scale_title or word(texts, "score")),
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=1,
        )
    )
    for layer, head, value in best:
        fig.add_shape(cell_outline((head, head), (layer, layer), width=3))
        fig.add_annotation(
            x=head,
            y=layer,
            text=f"{value:.2f}",
            showarrow=False,
            font={"color": "white" if value > 0.5 else "black", "size": 12},
        )
    heatmap_layout(
        fig, heads, layers, title=title, x_title=x_title, y_title=y_title, height=height, max_ticks=40, width=width
    )
    fig.update_yaxes(range=[n_layers - 0.5, -0.5], autorange=False)
    return fig


def gqa_figure(groups: np.ndarray, *, title: str, x_title: str, y_title: str) -> go.Figure:
    """Query heads (rows) × key/value heads (columns): a filled cell where the query head reads
    that K/V head; one colour per group."""
    n_heads, n_kv = len(groups), int(groups.max()) + 1
    fig = go.Figure()
    for g in range(n_kv):
        members = np.flatnonzero(groups == g)
        fig.add_trace(
            go.Scatter(
                x=[g] * len(members),
                y=members.tolist(),
                mode="markers+text",
                marker={"symbol": "square", "size": 34, "color": SERIES_COLORS[g % len(SERIES_COLORS)]},
                text=[f"Q{h + 1}→KV{g + 1}" for h in members],
                textposition="middle right",
                textfont={"size": 14},
                showlegend=False,
                hoverinfo="text",
            )
        )
    base_layout(fig, title=title, height=120 + 44 * n_heads, x_title=x_title, y_title=y_title)
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(n_kv)),
        ticktext=[f"KV{g + 1}" for g in range(n_kv)],
        range=[-0.5, n_kv - 0.2],
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(n_heads)),
        ticktext=[f"Q{h + 1}" for h in range(n_heads)],
        autorange="reversed",
    )
    return fig


def wavelength_figure(
    theta: np.ndarray, context: int, *, title: str, x_title: str, y_title: str, context_label: str
) -> go.Figure:
    """Wavelength 2π/θ_i (positions per full turn) of every dimension pair, log scale, with the
    model's context length marked: pairs above the line never turn once inside it."""
    i = np.arange(len(theta))
    wavelength = 2 * np.pi / np.asarray(theta, dtype=float)
    fig = go.Figure(
        go.Scatter(
            x=i,
            y=wavelength,
            mode="lines+markers",
            line={"color": SERIES_COLORS[0], "width": 3},
            hovertemplate="i = %{x}: 2π/θ = %{y:.1f}<extra></extra>",
            showlegend=False,
        )
    )
    fig.add_hline(
        y=context, line={"color": "#888", "dash": "dot"}, annotation_text=context_label, annotation_position="top left"
    )
    base_layout(fig, title=title, height=420, x_title=x_title, y_title=y_title)
    fig.update_yaxes(type="log")
    return fig


def rope_pair_figure(
    q_pairs: np.ndarray, k_pair: np.ndarray, positions: Sequence[int], *, title: str, q_label: str, k_label: str
) -> go.Figure:
    """One dimension pair of q rotated to each position (points on a circle, labelled with the
    position) and the pair of k at its own position: their dot product is the pair's share of
    the score, and it depends on the positions only through their difference."""
    q = np.asarray(q_pairs, dtype=float)
    radius = float(max(np.linalg.norm(q, axis=1).max(), np.linalg.norm(k_pair), 1e-9)) * 1.25
    circle = np.linspace(0, 2 * np.pi, 181)
    r_q = float(np.linalg.norm(q[0]))
    fig = go.Figure(
        [
            go.Scatter(
                x=r_q * np.cos(circle),
                y=r_q * np.sin(circle),
                mode="lines",
                line={"color": "#c5cbd3"},
                hoverinfo="skip",
                showlegend=False,
            ),
            go.Scatter(
                x=q[:, 0],
                y=q[:, 1],
                mode="markers+text",
                text=[str(p) for p in positions],
                textposition="top center",
                marker={"size": 12, "color": SERIES_COLORS[0]},
                name=q_label,
            ),
            go.Scatter(
                x=[0, float(k_pair[0])],
                y=[0, float(k_pair[1])],
                mode="lines+markers",
                line={"color": HIGHLIGHT, "width": 4},
                marker={"size": [0, 12]},
                name=k_label,
            ),
        ]
    )
    base_layout(fig, title=title, height=460)
    fig.update_xaxes(range=[-radius, radius], zeroline=True)
    fig.update_yaxes(range=[-radius, radius], zeroline=True, scaleanchor="x", scaleratio=1)
    return legend_below(fig)
