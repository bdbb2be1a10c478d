"""Shared figure style: one colour scale for attention weights, projector-sized fonts.

Every heatmap in the lab uses integer axes with labels as tick text (DESIGN.md): a categorical
axis would merge repeated tokens ("the … the") into one column.
"""
from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

# Attention weights (0 … 1) everywhere in the app: white = no attention, dark blue = all of it.
ATTENTION_COLORSCALE = "Blues"
# Signed quantities (scores, encodings, embeddings): blue negative, white zero, red positive.
SIGNED_COLORSCALE = "RdBu_r"
# Qualitative colours for lines and bars (the D3 palette), in a fixed order per method.
SERIES_COLORS: tuple[str, ...] = (
    "#1f77b4", "#e8710a", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
)

BASE_FONT_SIZE = 16
TITLE_FONT_SIZE = 20
FONT_FAMILY = "sans-serif"


def base_layout(fig: go.Figure, title: str | None = None, height: int | None = None,
                x_title: str | None = None, y_title: str | None = None,
                legend: bool | None = None) -> go.Figure:
    """Projector-friendly layout: base font 16, title 20, tight margins; returns ``fig``."""
    fig.update_layout(
        font={"size": BASE_FONT_SIZE, "family": FONT_FAMILY},
        title={"text": title, "font": {"size": TITLE_FONT_SIZE}, "x": 0.0, "xanchor": "left"}
        if title else None,
        margin={"l": 10, "r": 10, "t": 60 if title else 20, "b": 10},
        legend={"font": {"size": BASE_FONT_SIZE}},
        hoverlabel={"font": {"size": BASE_FONT_SIZE}},
    )
    # Streamlit's chart theme ignores layout.font for axes: set the axis fonts explicitly.
    axis_fonts = {"tickfont": {"size": BASE_FONT_SIZE},
                  "title": {"font": {"size": BASE_FONT_SIZE}}}
    fig.update_xaxes(**axis_fonts)
    fig.update_yaxes(**axis_fonts)
    if height is not None:
        fig.update_layout(height=height)
    if x_title is not None:
        fig.update_xaxes(title={"text": x_title, "font": {"size": BASE_FONT_SIZE}})
    if y_title is not None:
        fig.update_yaxes(title={"text": y_title, "font": {"size": BASE_FONT_SIZE}})
    if legend is not None:
        fig.update_layout(showlegend=legend)
    return fig


def legend_below(fig: go.Figure) -> go.Figure:
    """A horizontal legend at the bottom of the figure, below the x-axis title (the margin grows
    to make room), so it never covers the title or the data."""
    fig.update_layout(legend={"orientation": "h", "yref": "container", "y": 0.0,
                              "yanchor": "bottom", "x": 0.0, "xanchor": "left",
                              "font": {"size": BASE_FONT_SIZE}})
    return fig


_NICE_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


def tick_subset(labels: Sequence[str], max_ticks: int = 30) -> tuple[list[int], list[str]]:
    """Integer tick positions and their labels, thinned with a round step (1, 2, 5, 10, …) to
    at most about ``max_ticks``."""
    n = len(labels)
    need = max(1, -(-n // max(1, max_ticks)))  # ceil(n / max_ticks)
    step = next((s for s in _NICE_STEPS if s >= need), need)
    vals = list(range(0, n, step))
    return vals, [str(labels[i]) for i in vals]


def heatmap_layout(fig: go.Figure, x_labels: Sequence[str] | None = None,
                   y_labels: Sequence[str] | None = None, title: str | None = None,
                   x_title: str | None = None, y_title: str | None = None,
                   height: int | None = None, max_ticks: int = 30,
                   row: int | None = None, col: int | None = None) -> go.Figure:
    """Integer axes with labels as tick text, row 0 at the top; projector-sized fonts.

    With ``row``/``col`` only that subplot's axes are changed (no title or height).
    """
    where = {"row": row, "col": col} if row is not None else {}
    if x_labels is not None:
        vals, text = tick_subset(x_labels, max_ticks)
        fig.update_xaxes(tickmode="array", tickvals=vals, ticktext=text, **where)
    if y_labels is not None:
        vals, text = tick_subset(y_labels, max_ticks)
        fig.update_yaxes(tickmode="array", tickvals=vals, ticktext=text, **where)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False, **where)
    fig.update_xaxes(showgrid=False, zeroline=False, side="bottom", **where)
    if x_title is not None:
        fig.update_xaxes(title={"text": x_title}, **where)
    if y_title is not None:
        fig.update_yaxes(title={"text": y_title}, **where)
    if not where:
        base_layout(fig, title=title, height=height)
    return fig


def colorbar(title: str | None = None) -> dict:
    """A colour bar with projector-sized tick labels."""
    bar: dict = {"tickfont": {"size": BASE_FONT_SIZE - 2}, "thickness": 16}
    if title:
        bar["title"] = {"text": title, "font": {"size": BASE_FONT_SIZE - 2}}
    return bar
