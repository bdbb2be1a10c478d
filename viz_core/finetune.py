"""Figures of issue 27's training comparisons: arrays and token lists in, plotly figures out (no streamlit, no torch).

* :func:`change_grid_figure` — how fine-tuning changed each layer × head's attention (a 0–1 distance);
* :func:`before_after_figure` — one head's attention on one input, pre-trained beside fine-tuned;
* :func:`reliability_figure` — reliability diagrams (accuracy against confidence per bin) of several models;
* :func:`exposure_figure` — attention of the teacher-forced and the free-running decoding of one sentence,
  side by side, the step where they part marked.

Every text is passed in (translated by the caller); tokens pass through :func:`viz_core.labels.safe_label`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.labels import safe_label
from viz_core.style import SERIES_COLORS, attention_scale, base_layout, colorbar, heatmap_layout

__all__ = ["change_grid_figure", "before_after_figure", "reliability_figure", "exposure_figure"]

#: px a heatmap row needs for its label at the tick font (rows closer than that get every other label).
ROW_PX = 24
#: px above a panel for its subplot title, below the figure's (possibly wrapped) title.
SUBPLOT_TITLE_PX = 28


def _side_by_side_height(rows: int) -> int:
    """Height of a figure of two heatmap panels of ``rows`` rows: every row labelled (:data:`ROW_PX`), plus the
    titles above and the rotated token labels below."""
    return max(420, 240 + ROW_PX * rows)


def _room_for_subplot_titles(fig: go.Figure) -> go.Figure:
    """Lower the panels by one subplot-title line, so that a figure title wrapped onto two lines does not run
    into the panels' own titles."""
    fig.update_layout(margin={"t": int(fig.layout.margin.t or 0) + SUBPLOT_TITLE_PX})
    return fig


def _labels(tokens: Sequence[str]) -> list[str]:
    return [safe_label(t) for t in tokens]


def change_grid_figure(change: np.ndarray, title: str, layer_word: str, head_word: str, bar_title: str) -> go.Figure:
    """(layers, heads) mean total-variation distance as a heatmap, each cell written in; layer and head 1 first."""
    change = np.asarray(change, dtype=float)
    n_layers, n_heads = change.shape
    fig = go.Figure(
        go.Heatmap(
            z=change,
            x=list(range(n_heads)),
            y=list(range(n_layers)),
            zmin=0.0,
            zmax=max(float(change.max()), 1e-6),
            colorscale="Blues",
            colorbar=colorbar(bar_title, side="right"),
            text=[[f"{v:.2f}" for v in row] for row in change],
            texttemplate="%{text}",
            customdata=[
                [f"{layer_word} {k + 1} · {head_word} {h + 1}" for h in range(n_heads)] for k in range(n_layers)
            ],
            hovertemplate="%{customdata}: %{z:.3f}<extra></extra>",
        )
    )
    heatmap_layout(  # layers and heads counted from 1, as everywhere in the lab (ui.grid)
        fig,
        [f"{head_word} {h + 1}" for h in range(n_heads)],
        [f"{layer_word} {k + 1}" for k in range(n_layers)],
        title=title,
        height=120 + 70 * n_layers,
    )
    return fig


def before_after_figure(
    tokens: Sequence[str],
    before: np.ndarray,
    after: np.ndarray,
    titles: Sequence[str],
    title: str,
    texts: Mapping[str, str] | None = None,
    width: float | None = None,
) -> go.Figure:
    """Two attention maps (queries × keys) of one head on one input, on the one 0–1 scale; ``width``: the
    figure's px on the page (each panel's ticks are planned for its part of it)."""
    labels = _labels(tokens)
    fig = make_subplots(rows=1, cols=2, subplot_titles=list(titles), horizontal_spacing=0.12)
    scale = attention_scale(texts=texts)
    height = _side_by_side_height(len(labels))
    for col, weights in ((1, before), (2, after)):
        fig.add_trace(
            go.Heatmap(
                z=np.asarray(weights),
                x=list(range(len(labels))),
                y=list(range(len(labels))),
                showscale=col == 2,
                customdata=[[[q, k] for k in labels] for q in labels],
                hovertemplate="%{customdata[0]} → %{customdata[1]}: %{z:.3f}<extra></extra>",
                **scale,
            ),
            row=1,
            col=col,
        )
        heatmap_layout(fig, labels, labels, row=1, col=col, height=height - SUBPLOT_TITLE_PX, width=width)
    return _room_for_subplot_titles(base_layout(fig, title=title, height=height))


def reliability_figure(
    models: Sequence[tuple[str, Sequence[Mapping[str, float]]]], title: str, x_title: str, y_title: str, ideal: str
) -> go.Figure:
    """Accuracy against mean confidence per confidence bin (the bins of
    :func:`models.training.metrics.reliability_bins`), one line per model; the diagonal is perfect calibration.
    Marker size grows with the bin's share of the predictions."""
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name=ideal, line=dict(color="#555", dash="dot")))
    for k, (label, bins) in enumerate(models):
        kept = [b for b in bins if b["count"] and not math.isnan(b["confidence"])]
        total = sum(b["count"] for b in kept) or 1
        fig.add_trace(
            go.Scatter(
                x=[b["confidence"] for b in kept],
                y=[b["accuracy"] for b in kept],
                mode="lines+markers",
                name=label,
                line=dict(color=SERIES_COLORS[k % len(SERIES_COLORS)]),
                marker=dict(size=[6 + 24 * math.sqrt(b["count"] / total) for b in kept]),
                customdata=[[b["count"]] for b in kept],
                hovertemplate="%{x:.3f} → %{y:.3f} (n = %{customdata[0]})<extra>" + safe_label(label) + "</extra>",
            )
        )
    base_layout(fig, title=title, height=460, x_title=x_title, y_title=y_title, legend=True)
    # The legend goes under the axis, so that the square keeps the width when two diagrams share a row.
    fig.update_layout(
        legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0, xanchor="left"),
        margin=dict(b=110),
    )
    fig.update_xaxes(range=[0, 1.02])
    fig.update_yaxes(range=[0, 1.02])
    return fig


def exposure_figure(
    source: Sequence[str],
    forced_tokens: Sequence[str],
    free_tokens: Sequence[str],
    forced_attention: np.ndarray,
    free_attention: np.ndarray,
    parted: int | None,
    titles: Sequence[str],
    title: str,
    parted_text: str,
    texts: Mapping[str, str] | None = None,
    width: float | None = None,
) -> go.Figure:
    """Attention (output steps × source words) of both decodings side by side; rows are labelled
    "step · chosen word"; a line under the row where the free run leaves the gold prefix. ``width``: the
    figure's px on the page (each panel's ticks are planned for its part of it)."""
    src = _labels(source)
    fig = make_subplots(rows=1, cols=2, subplot_titles=list(titles), horizontal_spacing=0.2)
    scale = attention_scale(texts=texts)
    height = _side_by_side_height(max(len(forced_tokens), len(free_tokens)))
    for col, (tokens, weights) in enumerate(((forced_tokens, forced_attention), (free_tokens, free_attention)), 1):
        rows = [f"{t} · {safe_label(w)}" for t, w in enumerate(tokens)]
        fig.add_trace(
            go.Heatmap(
                z=np.asarray(weights),
                x=list(range(len(src))),
                y=list(range(len(rows))),
                showscale=col == 2,
                customdata=[[[r, s] for s in src] for r in rows],
                hovertemplate="%{customdata[0]} → %{customdata[1]}: %{z:.3f}<extra></extra>",
                **scale,
            ),
            row=1,
            col=col,
        )
        heatmap_layout(fig, src, rows, row=1, col=col, height=height - SUBPLOT_TITLE_PX, width=width)
        if parted is not None and parted < len(rows):
            fig.add_hline(
                y=parted - 0.5,
                line=dict(color=SERIES_COLORS[1], width=3),
                row=1,
                col=col,
                # the note once, on the free run's side (an annotation_text of None would draw "new text")
                **({"annotation_text": parted_text} if col == 2 else {}),
            )
    return _room_for_subplot_titles(base_layout(fig, title=title, height=height))
