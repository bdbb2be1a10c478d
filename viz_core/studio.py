"""Figures of the Training studio: the training-loss curve with the validation score on a second
axis and a marker at the snapshot shown, and the AER of the snapshots. Lists in, plotly figures
out; every visible word comes in as an argument (the page translates it)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from viz_core.style import SERIES_COLORS, axis_style, base_layout, legend_below

MARKER = "#d62728"


def smoothed(values: Sequence[float], window: int = 20) -> np.ndarray:
    """Trailing moving average over ``window`` steps (shorter at the start): mean(x_{t−w+1} … x_t)."""
    x = np.asarray(values, dtype=float)
    if not len(x):
        return x
    c = np.cumsum(np.insert(x, 0, 0.0))
    idx = np.arange(1, len(x) + 1)
    lo = np.maximum(0, idx - window)
    return (c[idx] - c[lo]) / (idx - lo)


def curves_figure(
    losses: Sequence[float],
    score_steps: Sequence[int],
    scores: Sequence[float],
    *,
    marker: int | None,
    title: str,
    x_title: str,
    loss_name: str,
    score_name: str,
    height: int = 420,
    score_range: tuple[float, float] | None = (0.0, 100.0),
) -> go.Figure:
    """Per-step training loss (faint) and its moving average on the left axis, the validation score
    at the snapshot steps on the right axis (``score_range``: 0–100 for BLEU or a percentage; None:
    from 0 to the largest, e.g. a perplexity), and a vertical marker at step ``marker``."""
    steps = list(range(1, len(losses) + 1))
    fig = go.Figure(
        [
            go.Scatter(
                x=steps,
                y=list(losses),
                mode="lines",
                line={"color": SERIES_COLORS[0], "width": 1},
                opacity=0.35,
                name=loss_name,
                showlegend=False,
                hoverinfo="skip",
            ),
            go.Scatter(
                x=steps, y=smoothed(losses), mode="lines", line={"color": SERIES_COLORS[0], "width": 3}, name=loss_name
            ),
            go.Scatter(
                x=list(score_steps),
                y=list(scores),
                mode="lines+markers",
                yaxis="y2",
                line={"color": SERIES_COLORS[1], "width": 3},
                marker={"size": 8},
                name=score_name,
            ),
        ]
    )
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=loss_name)
    scale = (
        {"range": list(score_range), "dtick": (score_range[1] - score_range[0]) / 5}
        if score_range
        else {"rangemode": "tozero"}
    )
    fig.update_layout(
        yaxis_rangemode="tozero",
        yaxis2={**axis_style(score_name), "overlaying": "y", "side": "right", **scale, "showgrid": False},
    )
    if marker is not None:
        fig.add_vline(x=max(marker, 0.5), line={"color": MARKER, "width": 2, "dash": "dash"})
    return legend_below(fig)


def aer_figure(
    steps: Sequence[int],
    aer: Sequence[float],
    *,
    marker: int | None,
    title: str,
    x_title: str,
    y_title: str,
    height: int = 300,
) -> go.Figure:
    """AER (0–1, lower is better) of each snapshot against the gold alignment, with the shown step marked."""
    fig = go.Figure(
        go.Scatter(
            x=list(steps),
            y=list(aer),
            mode="lines+markers",
            line={"color": SERIES_COLORS[2], "width": 3},
            marker={"size": 8},
            name=y_title,
        )
    )
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title)
    fig.update_yaxes(range=[0, 1])
    if marker is not None:
        fig.add_vline(x=marker, line={"color": MARKER, "width": 2, "dash": "dash"})
    return fig
