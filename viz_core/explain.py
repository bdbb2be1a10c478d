"""Clickable attention heatmaps: plotly heatmap cells send no selection events to Streamlit, so
:func:`add_cell_layer` lays an invisible scatter point on every cell centre that carries the
cell's hover text and sends the click; :func:`cell_of_point` maps a selected point back to its
(row, column), and :func:`outline_cell` frames the clicked cell.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from viz_core.style import BACKGROUND, TEXT_COLOR

#: Above this many cells a heatmap is not made clickable (the layer would be too heavy to send).
MAX_CELLS = 128 * 128
LAYER_NAME = "cells (click to explain)"


def _cell_heatmaps(fig: go.Figure) -> list[Any]:
    """The heatmap traces drawn on integer cell axes (x and y arrays, not x0/dx bins), bottom first."""
    return [tr for tr in fig.data if tr.type == "heatmap" and tr.z is not None and tr.x is not None
            and tr.y is not None and np.asarray(tr.z, dtype=object).ndim == 2]


def _flat(values: Any, n: int) -> np.ndarray | None:
    """A per-cell array (rows, cols[, k]) flattened to one entry per cell, or None."""
    if values is None:
        return None
    arr = np.asarray(values, dtype=object)
    return arr.reshape(n, *arr.shape[2:]) if arr.ndim >= 2 and arr.shape[0] * arr.shape[1] == n else None


def _compact(values: np.ndarray) -> np.ndarray:
    """Cell positions as int16 when they are small integers (2 bytes a point on the wire), else float32."""
    if np.all(values == np.round(values)) and np.abs(values).max(initial=0) < 2**15:
        return values.astype(np.int16)
    return values.astype(np.float32)


def add_cell_layer(fig: go.Figure) -> int | None:
    """Add the click layer over the first cell heatmap of ``fig`` and return its trace index
    (None when the figure has no such heatmap or more than :data:`MAX_CELLS` cells).

    The points sit at the heatmap's own x/y values in row-major order (point i is cell
    divmod(i, columns)); they take over the heatmap's hover (its ``text``, or its
    ``hovertemplate`` with ``%{z}`` read from the point's ``marker.color``), and a heatmap drawn
    over it (e.g. masked cells) lends its hover where its z is set. Invisible markers are left
    out of the figure's CSV export."""
    heatmaps = _cell_heatmaps(fig)
    if not heatmaps:
        return None
    base = heatmaps[0]
    z = np.asarray(base.z, dtype=float)
    rows, cols = z.shape
    n = rows * cols
    if n > MAX_CELLS:
        return None
    gx, gy = np.meshgrid(np.asarray(base.x, dtype=float), np.asarray(base.y, dtype=float))
    layer: dict[str, Any] = dict(
        x=_compact(gx.ravel()), y=_compact(gy.ravel()), mode="markers", name=LAYER_NAME,
        marker={"color": np.nan_to_num(z.ravel()).astype(np.float32), "opacity": 0, "size": 8},
        selected={"marker": {"opacity": 0}}, unselected={"marker": {"opacity": 0}},
        showlegend=False, xaxis=base.xaxis, yaxis=base.yaxis,
    )
    if base.hovertemplate:
        layer["hovertemplate"] = re.sub(r"%\{z([:}])", r"%{marker.color\1", base.hovertemplate)
        layer["customdata"] = _flat(base.customdata, n)
        layer["text"] = _flat(base.text, n)
    else:
        text = _flat(base.text, n)
        for over in heatmaps[1:]:  # e.g. the grey masked cells: their own words where they are drawn
            over_z, over_text = np.asarray(over.z, dtype=float), _flat(over.text, n)
            if over_z.shape == z.shape and over_text is not None and text is not None:
                text = np.where(np.isfinite(over_z.ravel()), over_text, text)
        layer["text"], layer["hoverinfo"] = text, ("text" if text is not None else "x+y")
    for tr in heatmaps:
        tr.hoverinfo = "skip"
        tr.hovertemplate = None
    for tr in fig.data:  # overlays keep their look when a cell is selected
        if tr.type == "scatter" and tr.mode and "markers" in tr.mode:
            tr.unselected = {"marker": {"opacity": tr.marker.opacity if tr.marker.opacity is not None else 1}}
    fig.add_trace(go.Scatter(**layer))
    fig.update_layout(clickmode="event+select", hoverdistance=-1)
    return len(fig.data) - 1


def cell_of_point(points: list[Mapping[str, Any]], layer: int, columns: int) -> tuple[int, int] | None:
    """(row, column) of the first selected point of the click layer ``layer``, or None."""
    for point in points:
        index = point.get("point_index", point.get("point_number"))
        if point.get("curve_number") == layer and index is not None:
            return divmod(int(index), columns)
    return None


def outline_cell(fig: go.Figure, row: int, col: int) -> None:
    """Frame cell (row, col) (drawn at x = col, y = row, the integer cell axes): a black and a
    white outline, visible on dark and on light cells."""
    for color, width, inset in ((TEXT_COLOR, 4, 0.0), (BACKGROUND, 2, 0.12)):
        fig.add_shape(type="rect", x0=col - 0.5 + inset, x1=col + 0.5 - inset, y0=row - 0.5 + inset,
                      y1=row + 0.5 - inset, line={"color": color, "width": width}, layer="above")
