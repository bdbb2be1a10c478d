"""Figures of the "Is attention an explanation?" page: every method's scores over the same input
tokens as rows of one heatmap on one 0–1 colour scale, and the erasure curves. Arrays and token lists
in, plotly figures out; every text passed in."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from viz_core.labels import safe_label, token_labels
from viz_core.style import SERIES_COLORS, attention_scale, cell_outline, heatmap_axes, layout_dict, merged_layout


def scaled_rows(scores: np.ndarray) -> np.ndarray:
    """Each row as |score| / the row's largest |score| (0–1; NaN stays NaN): one colour scale for
    weights, flows, norms, gradients and log-probability drops, the sign left to the hover text."""
    scores = np.asarray(scores, dtype=np.float64)
    out = np.full(scores.shape, np.nan)
    for i, row in enumerate(np.abs(scores)):
        top = np.nanmax(row) if not np.isnan(row).all() else np.nan
        if top and not np.isnan(top):
            out[i] = row / top
        elif not np.isnan(row).all():
            out[i] = row * 0.0
    return out


def methods_figure(
    scores: np.ndarray,
    tokens: Sequence[str],
    method_names: Sequence[str],
    *,
    title: str,
    scale_title: str,
    value_name: str,
    undefined: str,
    outlined: Sequence[int] = (),
    width: float = 1000,
    height: int = 470,
    axis_names: Sequence[str] | None = None,
) -> go.Figure:
    """Rows = methods, columns = input tokens; colour = |score| / the row's maximum; the hover gives the
    raw signed score (``value_name``) or ``undefined`` for a method the model does not have.
    ``outlined`` columns (the student's guess) are boxed in orange. ``axis_names``: the rows' short names
    on the axis (a tick label is cut at 12 characters), the full ``method_names`` in the hover."""
    z = scaled_rows(scores)
    x_labels = token_labels(tokens)
    hover = [
        [
            f"{safe_label(method_names[m])} · {x_labels[j]}<br>"
            + (f"{value_name} = {scores[m, j]:.4g}" if not np.isnan(scores[m, j]) else undefined)
            for j in range(z.shape[1])
        ]
        for m in range(z.shape[0])
    ]
    names = list(axis_names or method_names)
    x_axis, y_axis = heatmap_axes(x_labels, names, height=height, width=width)
    y_axis.update(tickvals=list(range(len(names))), ticktext=[safe_label(n) for n in names])  # every method named
    boxes = [cell_outline((j, j), (0, z.shape[0] - 1), width=3) for j in outlined]
    extra = {"xaxis": x_axis, "yaxis": y_axis, "width": width, **({"shapes": boxes} if boxes else {})}
    return go.Figure(  # one layout, validated once (add_shape and update_layout each validated it again)
        go.Heatmap(
            z=z,
            x=list(range(z.shape[1])),
            y=list(range(z.shape[0])),
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=1,
            **attention_scale(title=scale_title),
        ),
        layout=merged_layout(layout_dict(title, height=height, width=width), extra),
    )


def erasure_figure(
    curves: np.ndarray,
    method_names: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    width: float = 1000,
    height: int = 380,
) -> go.Figure:
    """p(output) after removing each method's top 0 … K tokens, one line per method (NaN rows skipped)."""
    traces = [
        go.Scatter(
            x=list(range(len(curve))),
            y=list(curve),
            mode="lines+markers",
            name=name,
            line={"color": SERIES_COLORS[i % len(SERIES_COLORS)]},
        )
        for i, (curve, name) in enumerate(zip(curves, method_names))
        if not np.isnan(curve).all()
    ]
    layout = layout_dict(title, height=height, x_title=x_title, y_title=y_title, legend=True, width=width)
    extra = {"width": width, "yaxis": {"range": [0, 1]}, "xaxis": {"dtick": 1}}
    return go.Figure(traces, layout=merged_layout(layout, extra))  # one layout, validated once


def swap_figure(
    weights: np.ndarray,
    tokens: Sequence[str],
    row_names: Sequence[str],
    *,
    title: str,
    scale_title: str,
    value_name: str,
    width: float = 1000,
    height: int = 300,
) -> go.Figure:
    """One decoding step's attention rows (the model's, a permutation, an adversary's) over the source
    tokens on the 0–1 attention scale; ``row_names`` say the output under each row."""
    w = np.asarray(weights, dtype=np.float64)
    x_labels = token_labels(tokens)
    hover = [
        [f"{safe_label(row_names[r])} · {x_labels[j]}<br>{value_name} = {w[r, j]:.3f}" for j in range(w.shape[1])]
        for r in range(w.shape[0])
    ]
    x_axis, y_axis = heatmap_axes(x_labels, list(row_names), height=height, width=width)
    fig = go.Figure(
        go.Heatmap(
            z=w,
            x=list(range(w.shape[1])),
            y=list(range(w.shape[0])),
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=1,
            **attention_scale(title=scale_title),
        ),
        layout=layout_dict(title, height=height, width=width),
    )
    fig.update_layout(xaxis=x_axis, yaxis=y_axis, width=width)
    return fig
