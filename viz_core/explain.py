"""Clickable attention heatmaps: plotly heatmap cells send no selection events to Streamlit, so
:func:`add_cell_layer` lays an invisible scatter point on every cell centre that carries the
cell's hover text and sends the click; :func:`cell_of_point` maps a selected point back to its
(row, column), and :func:`outline_cell` frames the clicked cell.

A binned heatmap (viz_core.attention_grid.head_figure above ``max_cells``) gets the same layer,
one point at the centre of each block of queries × keys (:func:`binning_of` reads the binning the
figure declares); :func:`block_value` recomputes a block's drawn value from the weights.

A figure of several side-by-side heatmaps (subplots) has one panel per pair of axes: each
function takes the ``panel`` (0: the first heatmap's axes), and each panel gets its own layer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from viz_core.style import BACKGROUND, TEXT_COLOR, cell_outline, set_layout

#: Above this many cells a heatmap is not made clickable (the layer would be too heavy to send).
MAX_CELLS = 128 * 128
# The click layer is drawn with WebGL (scattergl): as SVG, its invisible points were most of a step's
# redraw (a 46 × 46 matrix: Plotly.react 92 ms with them, 24 ms as WebGL; 16,384 took 3–4 s). A
# browser without WebGL draws them as SVG (ui.plot).
LAYER_NAME = "cells (click to explain)"


def _axes(trace: Any) -> tuple[str, str]:
    """The (x, y) axes a trace is drawn on ("x", "y" when it names none)."""
    return trace.xaxis or "x", trace.yaxis or "y"


def _panels(fig: go.Figure) -> list[list[Any]]:
    """The heatmap traces with one 2-d z on cell axes (x and y arrays, or a declared binning), one
    list per pair of axes (a subplot), in the order the panels first appear; each bottom first."""
    panels: dict[tuple[str, str], list[Any]] = {}
    for tr in fig.data:
        if (
            tr.type == "heatmap"
            and tr.z is not None
            and ((tr.x is not None and tr.y is not None) or _binning(tr) is not None)
            and np.asarray(tr.z, dtype=object).ndim == 2
        ):
            panels.setdefault(_axes(tr), []).append(tr)
    return list(panels.values())


def _cell_heatmaps(fig: go.Figure, panel: int = 0) -> list[Any]:
    """The cell heatmaps of one panel of ``fig`` (its ``panel``-th pair of axes), bottom first."""
    panels = _panels(fig)
    return panels[panel] if 0 <= panel < len(panels) else []


def panel_count(fig: go.Figure) -> int:
    """How many panels (pairs of axes with a cell heatmap) ``fig`` has."""
    return len(_panels(fig))


def panel_axes(fig: go.Figure, panel: int = 0) -> tuple[str, str]:
    """The (x, y) axes of ``panel`` ("x2", "y2" …), as a shape's xref and yref name them."""
    heatmaps = _cell_heatmaps(fig, panel)
    return _axes(heatmaps[0]) if heatmaps else ("x", "y")


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


def add_cell_layer(fig: go.Figure, panel: int = 0) -> int | None:
    """Add the click layer over the first cell heatmap of ``panel`` of ``fig`` and return its trace
    index (None when the panel has no such heatmap or more than :data:`MAX_CELLS` cells).

    The points sit at the heatmap's own x/y values (a binned heatmap's: each block's centre) in
    row-major order (point i is cell divmod(i, columns)); they take over the heatmap's hover (its ``text``, or its
    ``hovertemplate`` with ``%{z}`` read from the point's ``customdata``, or from its ``marker.color`` where the
    tokens are the customdata), and a heatmap drawn
    over it (e.g. masked cells) lends its hover where its z is set. Invisible markers are left
    out of the figure's CSV export."""
    heatmaps = _cell_heatmaps(fig, panel)
    if not heatmaps:
        return None
    base = heatmaps[0]
    z = np.asarray(base.z, dtype=float)
    rows, cols = z.shape
    n = rows * cols
    if n > MAX_CELLS:
        return None
    bins = _binning(base)
    xs, ys = (np.asarray(base.x, dtype=float), np.asarray(base.y, dtype=float)) if bins is None else bins.centres()
    gx, gy = np.meshgrid(xs, ys)
    layer: dict[str, Any] = dict(
        x=_compact(gx.ravel()),
        y=_compact(gy.ravel()),
        mode="markers",
        name=LAYER_NAME,
        # Plotly's scatter hover counts every point within max(3 px, marker radius) of the mouse as
        # equally close and takes the last: the smallest radius keeps clicks exact down to 6 px cells.
        marker={"opacity": 0, "size": 6},  # one colour: the browser colours no points one by one
        selected={"marker": {"opacity": 0}},
        unselected={"marker": {"opacity": 0}},
        showlegend=False,
        xaxis=base.xaxis,
        yaxis=base.yaxis,
    )
    if base.hovertemplate:
        weights = np.nan_to_num(z.ravel()).astype(np.float32)
        if base.customdata is None:  # z rides in customdata
            layer["hovertemplate"] = re.sub(r"%\{z([:}])", r"%{customdata\1", base.hovertemplate)
            layer["customdata"] = weights
        else:  # (the tokens are the customdata: z rides in the points' colour)
            layer["hovertemplate"] = re.sub(r"%\{z([:}])", r"%{marker.color\1", base.hovertemplate)
            layer["customdata"] = _flat(base.customdata, n)
            layer["marker"]["color"] = weights
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
    fig.add_trace(go.Scattergl(**layer))
    set_layout(fig, {"clickmode": "event+select", "hoverdistance": -1})
    return len(fig.data) - 1


def cell_of_point(points: list[Mapping[str, Any]], layer: int, columns: int) -> tuple[int, int] | None:
    """(row, column) of the first selected point of the click layer ``layer``, or None."""
    for point in points:
        index = point.get("point_index", point.get("point_number"))
        if point.get("curve_number") == layer and index is not None:
            return divmod(int(index), columns)
    return None


def outline_cell(fig: go.Figure, row: int, col: int, panel: int = 0) -> None:
    """Frame cell (row, col) of ``panel`` (drawn at x = col, y = row, the integer cell axes): a black
    and a white outline, visible on dark and on light cells."""
    outline_block(fig, range(row, row + 1), range(col, col + 1), panel)


def outline_block(fig: go.Figure, rows: range, cols: range, panel: int = 0) -> None:
    """Frame the cells of queries ``rows`` and keys ``cols`` of ``panel`` (token axes: cell i spans i ± 0.5)."""
    xref, yref = panel_axes(fig, panel)
    for color, width, inset in ((TEXT_COLOR, 4, 0.0), (BACKGROUND, 2, 0.12)):
        edges = (cols.start, cols.stop - 1), (rows.start, rows.stop - 1)
        fig.add_shape(cell_outline(*edges, color=color, width=width, inset=inset), xref=xref, yref=yref, layer="above")


# --------------------------------------------------------------------------------------
# Binned heatmaps: a drawn cell is a block of queries × keys
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Binning:
    """How a binned heatmap covers an (L, S) = ``shape`` weight matrix: drawn cell (i, j) is the
    block of queries i·r … min((i+1)·r, L) − 1 and keys j·c … min((j+1)·c, S) − 1, and its value
    is viz_core.attention_grid.bin_attention's ``how`` ("mean" or "max") over that block."""

    row_factor: int
    col_factor: int
    how: str
    shape: tuple[int, int]

    def block(self, row: int, col: int) -> tuple[range, range]:
        """(queries, keys) of drawn cell (row, col)."""
        r, c = self.row_factor, self.col_factor
        return range(row * r, min((row + 1) * r, self.shape[0])), range(col * c, min((col + 1) * c, self.shape[1]))

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        """The blocks' centres in token positions, (keys: x, queries: y); a short last block's
        is its own centre, inside the axis, not the heatmap's x0 + j·dx."""

        def axis(n: int, factor: int) -> np.ndarray:
            start = np.arange(0, n, factor)
            return (start + np.minimum(start + factor, n) - 1) / 2

        return axis(self.shape[1], self.col_factor), axis(self.shape[0], self.row_factor)


def _binning(trace: Any) -> Binning | None:
    """The binning a heatmap trace declares in ``meta["binned"]``, or None."""
    meta = trace.meta
    binned = meta.get("binned") if isinstance(meta, Mapping) else None
    if not binned:
        return None
    return Binning(
        int(binned["row_factor"]),
        int(binned["col_factor"]),
        str(binned["how"]),
        (int(binned["shape"][0]), int(binned["shape"][1])),
    )


def binning_of(fig: go.Figure, panel: int = 0) -> Binning | None:
    """The binning the first cell heatmap of ``panel`` of ``fig`` declares in its ``meta`` (set by
    viz_core.attention_grid.head_figure); None: one cell per weight."""
    heatmaps = _cell_heatmaps(fig, panel)
    return _binning(heatmaps[0]) if heatmaps else None


def drawn_values(fig: go.Figure, panel: int = 0) -> np.ndarray | None:
    """The z the first cell heatmap of ``panel`` of ``fig`` draws (one value per drawn cell), or None."""
    heatmaps = _cell_heatmaps(fig, panel)
    return np.asarray(heatmaps[0].z, dtype=float) if heatmaps else None


def block_value(weights: np.ndarray, rows: range, cols: range, how: str) -> float:
    """A block's binned value from the weights, by the formula: "mean" (1/|Q|) Σ_{q∈Q} Σ_{s∈K} α[q, s]
    (the mean over the block's queries of the weight each gives to its keys), "max" max α[q, s]."""
    block = np.asarray(weights, dtype=np.float64)[rows.start : rows.stop, cols.start : cols.stop]
    if how == "mean":
        return float(block.sum() / len(rows))
    if how == "max":
        return float(block.max())
    raise ValueError(f"how must be 'mean' or 'max', not {how!r}")


def block_cells(weights: np.ndarray, rows: range, cols: range) -> list[tuple[int, int, float]]:
    """Every (query, key, weight) of the block, largest weight first (ties: row-major order)."""
    block = np.asarray(weights)[rows.start : rows.stop, cols.start : cols.stop]
    order = np.argsort(-block.ravel(), kind="stable")
    return [(rows.start + int(i) // len(cols), cols.start + int(i) % len(cols), float(block.ravel()[i])) for i in order]
