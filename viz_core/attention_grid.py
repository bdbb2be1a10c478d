"""Attention views that scale: a layers × heads grid of thumbnails, and one head in full.

DESIGN.md: never send every weight to the browser as JSON text. A 12-layer × 12-head model
at 512 tokens has 37.7 M weights; as JSON that is hundreds of MB. Instead:

* :func:`grid_payload` downsamples every head's L × S matrix on the server to at most
  ``max_thumb`` × ``max_thumb`` pixels (block-max or mean binning, :func:`bin_attention`),
  colour-maps it through a fixed 256-entry palette (a perceptually uniform "Blues"-like
  ramp computed here in numpy) and packs all heads into one palette PNG mosaic (PNG written
  with ``zlib``; no Pillow needed). What the browser receives is that PNG (base64) plus a
  few hundred bytes of metadata: around 1 MB at 12 × 12 × 512 × 512.
* :func:`head_figure` shows ONE head as a plotly heatmap with integer axes and the tokens as
  tick text (repeated tokens stay separate columns); above ``max_cells`` per axis it is
  binned on the server first, so its JSON stays small.

Input arrays are numpy (layers, heads, L, S) with L queries (``tgt_tokens``) and S keys
(``src_tokens``); for self-attention both token lists are the same. No torch, no streamlit.
"""

from __future__ import annotations

import base64
import json
import math
import struct
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import plotly.graph_objects as go

from viz_core.style import (
    ATTENTION_LEVELS,
    ATTENTION_RGB,
    BASE_FONT_SIZE,
    COLORBAR_BELOW_PX,
    LABEL_ALL_TOKENS,
    attention_scale,
    axis_extent,
    colorbar_below,
    layout_dict,
    plot_width,
    short_label,
    text_width,
    tick_axis,
)
from viz_core.texts import Texts, word

__all__ = [
    "BLUES_RGB",
    "GAP_INDEX",
    "bin_attention",
    "to_palette_indices",
    "encode_png_indexed",
    "thumbnail_png",
    "GridPayload",
    "grid_payload",
    "HeadFigure",
    "head_figure",
]

BinHow = Literal["max", "mean"]
Scale = Literal["head", "global", "absolute"]

# --------------------------------------------------------------------------------------
# Colour map: the app's one attention ramp (viz_core.style), as a PNG palette.
# --------------------------------------------------------------------------------------

#: Palette index used for the gaps between thumbnails (light grey).
GAP_INDEX = 255
_GAP_RGB = (200, 200, 200)
_GRID_BOTTOM_PX = 10  # the mosaic figure's bottom margin
_N_LEVELS = ATTENTION_LEVELS  # indices 0 … 254 carry the colour ramp


#: (255, 3) uint8: value 0 → BLUES_RGB[0] (near white), value = vmax → BLUES_RGB[-1].
BLUES_RGB: np.ndarray = ATTENTION_RGB
_PALETTE = np.vstack([BLUES_RGB, np.array([_GAP_RGB], dtype=np.uint8)])  # (256, 3)


# --------------------------------------------------------------------------------------
# Binning and PNG encoding
# --------------------------------------------------------------------------------------


def _bin_edges(n: int, factor: int) -> np.ndarray:
    return np.arange(0, n, factor)


def bin_attention(weights: np.ndarray, row_factor: int, col_factor: int, how: BinHow = "max") -> np.ndarray:
    """Downsample the last two axes (…, L, S) by blocks of ``row_factor`` × ``col_factor``
    (the last block may be shorter) to (…, ⌈L/r⌉, ⌈S/c⌉).

    * ``"max"``: each cell is the largest weight in its block (sharp patterns stay visible).
    * ``"mean"``: each cell is the mean over the block's queries of the total weight they
      give to the block's keys, B[i, j] = (1/|Qᵢ|) Σ_{q∈Qᵢ} Σ_{s∈Kⱼ} α[q, s]; so every binned
      row still sums to the mean row sum of its queries (1 for softmax rows).
    """
    if how not in ("max", "mean"):
        raise ValueError(f"how must be 'max' or 'mean', not {how!r}")
    w = weights
    if col_factor > 1:
        op = np.maximum if how == "max" else np.add
        w = op.reduceat(w, _bin_edges(w.shape[-1], col_factor), axis=-1)
    if row_factor > 1:
        if how == "max":
            w = np.maximum.reduceat(w, _bin_edges(w.shape[-2], row_factor), axis=-2)
        else:
            edges = _bin_edges(w.shape[-2], row_factor)
            counts = np.diff(np.append(edges, w.shape[-2])).astype(w.dtype)
            w = np.add.reduceat(w, edges, axis=-2) / counts[:, None]
    return w


def to_palette_indices(values: np.ndarray, vmax: np.ndarray | float) -> np.ndarray:
    """uint8 palette indices 0 … 254 for values in [0, vmax] (clipped; vmax broadcasts)."""
    vmax = np.maximum(np.asarray(vmax, dtype=np.float32), np.float32(1e-12))
    scaled = values.astype(np.float32, copy=False) * (np.float32(_N_LEVELS - 1) / vmax)
    return np.clip(scaled + np.float32(0.5), 0, _N_LEVELS - 1).astype(np.uint8)


def _png_chunk(chunk_type: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + chunk_type + data + struct.pack(">I", zlib.crc32(chunk_type + data) & 0xFFFFFFFF)
    )


def encode_png_indexed(indices: np.ndarray, palette: np.ndarray = _PALETTE, level: int = 6) -> bytes:
    """A palette PNG (colour type 3, 8 bit) of a (H, W) uint8 index image; stdlib zlib only."""
    if indices.dtype != np.uint8 or indices.ndim != 2:
        raise ValueError("indices must be a 2-d uint8 array")
    h, w = indices.shape
    raw = np.empty((h, w + 1), dtype=np.uint8)
    raw[:, 0] = 0  # filter type None on every scanline
    raw[:, 1:] = indices
    header = struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"PLTE", np.ascontiguousarray(palette, dtype=np.uint8).tobytes()),
            _png_chunk(b"IDAT", zlib.compress(raw.tobytes(), level)),
            _png_chunk(b"IEND", b""),
        ]
    )


def _factors(length: int, max_pixels: int) -> int:
    return max(1, math.ceil(length / max_pixels))


def thumbnail_png(matrix: np.ndarray, max_size: int = 96, how: BinHow = "max", vmax: float | None = 1.0) -> bytes:
    """One (L, S) attention matrix as a small palette PNG (≤ ``max_size`` pixels a side);
    weight ``vmax`` (default 1) is the darkest colour, ``None``: the matrix's own maximum."""
    m = np.asarray(matrix)
    binned = bin_attention(m, _factors(m.shape[0], max_size), _factors(m.shape[1], max_size), how)
    top = float(binned.max()) if vmax is None else vmax
    return encode_png_indexed(to_palette_indices(binned, top))


# --------------------------------------------------------------------------------------
# The grid view
# --------------------------------------------------------------------------------------


@dataclass
class GridPayload:
    """What the browser receives for the layers × heads grid: one palette PNG mosaic plus
    the metadata to label it. Thumbnail (l, h) occupies pixels
    ``[gap + l·(cell_h + gap), … + cell_h) × [gap + h·(cell_w + gap), … + cell_w)``;
    each pixel there covers ``row_factor × col_factor`` weights (before ``upscale``).
    ``vmax[l, h]`` is the weight shown darkest in thumbnail (l, h)."""

    png_bytes: bytes
    n_layers: int
    n_heads: int
    query_len: int
    key_len: int
    row_factor: int
    col_factor: int
    upscale: int
    cell_h: int
    cell_w: int
    gap: int
    how: str
    scale: str
    vmax: np.ndarray
    src_tokens: list[str]
    tgt_tokens: list[str]
    layer_labels: list[str]
    head_labels: list[str]
    build_seconds: float = 0.0
    _indices: np.ndarray | None = field(default=None, repr=False)

    @property
    def width(self) -> int:
        return self.gap + self.n_heads * (self.cell_w + self.gap)

    @property
    def height(self) -> int:
        return self.gap + self.n_layers * (self.cell_h + self.gap)

    @property
    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png_bytes).decode("ascii")

    def metadata(self) -> dict[str, Any]:
        """Everything but the image, JSON-ready (token lists included)."""
        return {
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "query_len": self.query_len,
            "key_len": self.key_len,
            "row_factor": self.row_factor,
            "col_factor": self.col_factor,
            "upscale": self.upscale,
            "cell_h": self.cell_h,
            "cell_w": self.cell_w,
            "gap": self.gap,
            "how": self.how,
            "scale": self.scale,
            "vmax": np.round(self.vmax, 6).tolist(),
            "src_tokens": self.src_tokens,
            "tgt_tokens": self.tgt_tokens,
            "layer_labels": self.layer_labels,
            "head_labels": self.head_labels,
        }

    def to_json(self) -> str:
        """The payload as one JSON document: {"png": data URI, "meta": metadata()}."""
        return json.dumps({"png": self.data_uri, "meta": self.metadata()}, separators=(",", ":"))

    @property
    def nbytes(self) -> int:
        """Bytes on the wire for :meth:`to_json` (base64 PNG + metadata)."""
        return len(self.to_json().encode("utf-8"))

    def cell_origin(self, layer: int, head: int) -> tuple[int, int]:
        """(y, x) pixel of the top-left corner of thumbnail (layer, head)."""
        return (self.gap + layer * (self.cell_h + self.gap), self.gap + head * (self.cell_w + self.gap))

    def head_at(self, x: float, y: float) -> tuple[int, int] | None:
        """(layer, head) under image pixel (x, y), or None on a gap or outside."""
        col, cx = divmod(int(x) - self.gap, self.cell_w + self.gap)
        row, cy = divmod(int(y) - self.gap, self.cell_h + self.gap)
        if 0 <= row < self.n_layers and 0 <= col < self.n_heads and cx < self.cell_w and cy < self.cell_h:
            return row, col
        return None

    def head_indices(self, layer: int, head: int) -> np.ndarray:
        """The palette indices of one thumbnail (cell_h, cell_w)."""
        if self._indices is None:
            raise ValueError("this payload was built without keeping its index image")
        y, x = self.cell_origin(layer, head)
        return self._indices[y : y + self.cell_h, x : x + self.cell_w]

    def head_png(self, layer: int, head: int) -> bytes:
        """One thumbnail as its own PNG (for a UI that lays out heads itself)."""
        return encode_png_indexed(np.ascontiguousarray(self.head_indices(layer, head)))

    def scale_note(self, texts: Texts | None = None) -> str:
        """What the darkest colour means, in words (every relative scale says so), from ``texts``."""
        if self.scale == "absolute":
            return word(texts, "grid.absolute")
        if self.scale == "global":
            return word(texts, "grid.global", top=float(self.vmax.max()))
        return word(texts, "grid.head")

    def figure(self, height: int | None = None, title: str | None = None, texts: Texts | None = None) -> go.Figure:
        """A plotly figure of the mosaic (a ``go.Image`` from the PNG data URI — no weights
        as JSON), layer/head tick labels, and an invisible square over each thumbnail
        whose hover names the head and its vmax and whose ``customdata`` is [layer, head]
        (selection events reach Streamlit from scatter points, not from images). The title
        (``title``, then :meth:`scale_note`) says what the shades mean; words from ``texts``."""
        ys = np.array([self.cell_origin(layer, 0)[0] + self.cell_h / 2 for layer in range(self.n_layers)])
        xs = np.array([self.cell_origin(0, h)[1] + self.cell_w / 2 for h in range(self.n_heads)])
        gx, gy = np.meshgrid(xs, ys)  # (layers, heads)
        layer_ix, head_ix = np.meshgrid(np.arange(self.n_layers), np.arange(self.n_heads), indexing="ij")
        note = self.scale_note(texts)
        full_title = f"{title}<br>{note}" if title else note
        layout = layout_dict(full_title)
        layout["title"]["font"]["size"] = BASE_FONT_SIZE + 2
        # Head labels across the top, layer labels down the side, each thinned to fit.
        width_px = min(plot_width(left_px=70, right_px=20), 4.0 * self.width)
        x_axis = tick_axis(self.head_labels, width_px * self.n_heads * (self.cell_w + self.gap) / self.width)
        top = layout["margin"]["t"] + axis_extent(x_axis)
        fig_height = height or min(900, int(top + 20 + width_px * self.height / max(1, self.width)))
        px_per_cell = (fig_height - top - _GRID_BOTTOM_PX) * min(self.cell_w, self.cell_h) / max(1, self.height)
        image = go.Image(source=self.data_uri, hoverinfo="skip", name="attention grid")
        markers = go.Scatter(  # one square as large as its drawn thumbnail: a click anywhere on it selects it
            x=gx.ravel(),
            y=gy.ravel(),
            mode="markers",
            marker=dict(size=max(8.0, px_per_cell), symbol="square", opacity=0),
            customdata=np.stack([layer_ix.ravel(), head_ix.ravel()], 1),
            text=[
                word(
                    texts,
                    "grid.head_hover",
                    layer=self.layer_labels[l],
                    head=self.head_labels[h],
                    top=float(self.vmax[l, h]),
                )
                for l in range(self.n_layers)
                for h in range(self.n_heads)
            ],
            hovertemplate="%{text}<extra></extra>",
            showlegend=False,
            name="heads",
        )
        y_axis = tick_axis(
            self.layer_labels,
            (fig_height - top - 20) * self.n_layers * (self.cell_h + self.gap) / self.height,
            vertical_axis=True,
        )
        x_axis.update(
            tickvals=xs[x_axis["tickvals"]], side="top", showgrid=False, zeroline=False, range=[0, self.width]
        )
        y_axis.update(
            tickvals=ys[y_axis["tickvals"]], showgrid=False, zeroline=False, range=[self.height, 0], scaleanchor="x"
        )
        layout["xaxis"].update(x_axis)
        layout["yaxis"].update(y_axis)
        layout.update(
            height=fig_height,
            dragmode=False,
            margin=dict(
                l=int(20 + max(text_width(t, y_axis["tickfont"]["size"]) for t in y_axis["ticktext"])),
                r=10,
                t=int(top),
                b=_GRID_BOTTOM_PX,
            ),
        )
        return go.Figure(data=[image, markers], layout=layout)  # one construction: no relayout


def grid_payload(
    weights: np.ndarray,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str] | None = None,
    *,
    max_thumb: int = 96,
    min_thumb: int = 48,
    how: BinHow = "max",
    scale: Scale = "absolute",
    gap: int = 2,
    layer_labels: Sequence[str] | None = None,
    head_labels: Sequence[str] | None = None,
    level: int = 6,
) -> GridPayload:
    """Build the grid view of ``weights`` (layers, heads, L, S) as one PNG mosaic.

    Each head is binned to ≤ ``max_thumb`` pixels a side (:func:`bin_attention`), and small
    ones are enlarged by pixel repetition to about ``min_thumb``. ``scale``: "absolute" (the
    default, the app's one 0–1 scale) maps weight 1 to the darkest colour; "head" each
    thumbnail's own maximum (diffuse heads stay visible), "global" one maximum for all — the
    figure's title then says the shades are relative (:meth:`GridPayload.scale_note`).
    ``src_tokens`` label the S keys, ``tgt_tokens`` (default: ``src_tokens``) the L queries.
    """
    start = time.perf_counter()
    w = np.asarray(weights)
    if w.ndim != 4:
        raise ValueError(f"weights must be (layers, heads, L, S), got shape {w.shape}")
    n_layers, n_heads, q_len, k_len = w.shape
    src = [str(t) for t in src_tokens]
    tgt = src if tgt_tokens is None else [str(t) for t in tgt_tokens]
    if len(src) != k_len or len(tgt) != q_len:
        raise ValueError(f"{len(tgt)} query and {len(src)} key tokens for attention of shape {w.shape}")
    rf, cf = _factors(q_len, max_thumb), _factors(k_len, max_thumb)
    binned = bin_attention(w, rf, cf, how)  # (layers, heads, h, w)
    if scale == "head":
        vmax = binned.max(axis=(2, 3))
    elif scale == "global":
        vmax = np.full((n_layers, n_heads), binned.max())
    elif scale == "absolute":
        vmax = np.ones((n_layers, n_heads))
    else:
        raise ValueError(f"scale must be 'head', 'global' or 'absolute', not {scale!r}")
    vmax = vmax.astype(np.float32)
    idx = to_palette_indices(binned, vmax[:, :, None, None])
    th, tw = idx.shape[2:]
    up = max(1, min_thumb // max(th, tw))
    if up > 1:
        idx = idx.repeat(up, axis=2).repeat(up, axis=3)
    ch, cw = th * up, tw * up
    tiles = np.full((n_layers, ch + gap, n_heads, cw + gap), GAP_INDEX, dtype=np.uint8)
    tiles[:, :ch, :, :cw] = idx.transpose(0, 2, 1, 3)
    mosaic = np.full((gap + n_layers * (ch + gap), gap + n_heads * (cw + gap)), GAP_INDEX, dtype=np.uint8)
    mosaic[gap:, gap:] = tiles.reshape(n_layers * (ch + gap), n_heads * (cw + gap))
    png = encode_png_indexed(mosaic, level=level)
    return GridPayload(
        png_bytes=png,
        n_layers=n_layers,
        n_heads=n_heads,
        query_len=q_len,
        key_len=k_len,
        row_factor=rf,
        col_factor=cf,
        upscale=up,
        cell_h=ch,
        cell_w=cw,
        gap=gap,
        how=how,
        scale=scale,
        vmax=vmax,
        src_tokens=src,
        tgt_tokens=tgt,
        layer_labels=list(layer_labels) if layer_labels else [f"L{i + 1}" for i in range(n_layers)],
        head_labels=list(head_labels) if head_labels else [f"H{i + 1}" for i in range(n_heads)],
        build_seconds=time.perf_counter() - start,
        _indices=mosaic,
    )


# --------------------------------------------------------------------------------------
# One head
# --------------------------------------------------------------------------------------


@dataclass
class HeadFigure:
    """One head's plotly figure, its JSON size, and how it was binned (factor 1 = full)."""

    figure: go.Figure
    nbytes: int
    row_factor: int
    col_factor: int

    @property
    def binned(self) -> bool:
        return self.row_factor > 1 or self.col_factor > 1


#: One head drawn across a page's column (the Real model explorer's, 1280 × 720 with the sidebar open:
#: measured 762 px): 16 tokens get cells of about 32 px, every one labelled.
HEAD_VIEW_PX = 760


def head_view_height(n_queries: int) -> int:
    """px of a query × key map drawn :data:`HEAD_VIEW_PX` wide (e.g. viz_core.transformer's
    attention_matrix_figure): a row of at least one line of label text (22 px) for every query, below
    a title and upright key labels, up to a 900 px figure."""
    return int(min(900, max(360, 250 + 22 * n_queries)))


def head_figure(
    matrix: np.ndarray,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str] | None = None,
    *,
    max_cells: int = 128,
    max_ticks: int = 64,
    title: str | None = None,
    zmax: float | None = 1.0,
    how: BinHow = "mean",
    hover_tokens_up_to: int = 4096,
    relative_to: str | None = None,
    width: float | None = None,
    texts: Texts | None = None,
) -> HeadFigure:
    """ONE head's (L, S) weights as a heatmap on integer axes 0 … S−1 (keys, ``src_tokens``)
    and 0 … L−1 (queries, ``tgt_tokens``), tokens as tick text: repeated tokens keep their own
    columns. Above ``max_cells`` per axis the matrix is binned on the server
    (:func:`bin_attention`, default "mean": each binned row still sums to 1) and the cells are
    drawn at their token positions. z is sent as binary float32, not as JSON text.

    Colours run from weight 0 to ``zmax`` = 1, the app's one scale. ``zmax=None`` shades
    relative to the shown maximum instead, and the colour bar says so ("relative to
    ``relative_to``", default "this head's maximum"; words from ``texts``). Tick labels are
    thinned to fit a figure ``width`` px wide (default
    :data:`viz_core.style.FIGURE_WIDTH_PX`) and the figure's height; given a ``width``, the square
    of cells is as wide as that figure allows (up to a 900 px figure), e.g. :data:`HEAD_VIEW_PX`.
    """
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim != 2:
        raise ValueError(f"matrix must be (L, S), got shape {m.shape}")
    q_len, k_len = m.shape
    src = [str(t) for t in src_tokens]
    tgt = src if tgt_tokens is None else [str(t) for t in tgt_tokens]
    if len(src) != k_len or len(tgt) != q_len:
        raise ValueError(f"{len(tgt)} query and {len(src)} key tokens for a matrix of shape {m.shape}")
    rf, cf = _factors(q_len, max_cells), _factors(k_len, max_cells)
    z = bin_attention(m, rf, cf, how) if (rf > 1 or cf > 1) else m
    if zmax is None:
        shade = attention_scale(
            float(z.max()), word(texts, "grid.this_head") if relative_to is None else relative_to, texts=texts
        )
    else:
        shade = attention_scale(texts=texts)
        shade["zmax"] = zmax
    trace: dict[str, Any] = dict(z=z, **shade)
    if rf == 1 and cf == 1:
        trace.update(x=np.arange(k_len), y=np.arange(q_len))
        if q_len * k_len <= hover_tokens_up_to:
            trace["customdata"] = np.array([[[q, k] for k in src] for q in tgt], dtype=object)
            trace["hovertemplate"] = word(texts, "grid.hover_tokens")
        else:
            trace["hovertemplate"] = word(texts, "grid.hover")
    else:
        # meta: how the cells cover the weights (viz_core.explain.binning_of maps a click to its block)
        trace.update(
            x0=(cf - 1) / 2,
            dx=cf,
            y0=(rf - 1) / 2,
            dy=rf,
            meta={"binned": {"row_factor": rf, "col_factor": cf, "how": how, "shape": [q_len, k_len]}},
        )
        label = word(texts, "grid.max_weight" if how == "max" else "grid.mean_weight")
        trace["hovertemplate"] = word(texts, "grid.hover_binned", rf=rf, cf=cf, label=label)
    layout = layout_dict(title, width=width)
    # Equal x and y scales (square cells): the plot is as wide as the smaller of the two
    # lengths allows, so the ticks are planned for that; cells are at least 16 px tall up to
    # a 900 px figure.
    widest = max(text_width(short_label(t)) for t in tgt) / BASE_FONT_SIZE  # em

    def plan(bar_below: bool) -> tuple[dict, dict, float, int]:
        """x axis, y axis, top margin and height with the colour bar beside the plot or below it."""
        bottom = 30 + (COLORBAR_BELOW_PX if bar_below else 0)

        def x_px_at(size: float) -> float:  # the y labels (at most the x labels' size) narrow the plot
            return plot_width(width, 50 + widest * size, 10 if bar_below else 110)

        x_axis = tick_axis(src, x_px_at, max_ticks=max_ticks)
        size = x_axis["tickfont"]["size"]
        x_px = x_px_at(size)
        top = layout["margin"]["t"] + axis_extent(x_axis) + 30
        rows_px = 16 * min(q_len, max_cells)
        if width is not None:  # planned for its own column: square cells as large as the column allows
            rows_px = max(rows_px, x_px * q_len / k_len)
        height = min(900, max(360, int(top + bottom + rows_px)))
        y_px = height - top - bottom
        if y_px * k_len / q_len < x_px:  # the y length limits the square: fewer x ticks fit
            x_axis = tick_axis(src, y_px * k_len / q_len, max_ticks=max_ticks, font_size=size)
        side_y = min(y_px, x_px * q_len / k_len)  # the plot's height once the cells are square
        y_axis = tick_axis(tgt, side_y, vertical_axis=True, max_ticks=max_ticks, font_size=size)
        height = max(360, int(height - (y_px - side_y)))  # no empty band below the square
        return x_axis, y_axis, top, height

    x_axis, y_axis, top, height = plan(False)
    crowded = len(x_axis["tickvals"]) < k_len or len(y_axis["tickvals"]) < q_len
    if crowded and width is not None and max(q_len, k_len) <= LABEL_ALL_TOKENS:
        # every token labelled (issue 24 item 7), if the colour bar below frees the width for it
        below = plan(True)
        if len(below[0]["tickvals"]) == k_len and len(below[1]["tickvals"]) == q_len:
            x_axis, y_axis, top, height = below
            trace["colorbar"] = colorbar_below(trace["colorbar"])
    layout["xaxis"].update(
        x_axis, range=[-0.5, k_len - 0.5], side="top", title_text=word(texts, "key_attended"), constrain="domain"
    )
    layout["yaxis"].update(
        y_axis,
        range=[q_len - 0.5, -0.5],
        title_text=word(texts, "query_attending"),
        scaleanchor="x",
        constrain="domain",
    )
    layout.update(height=height)
    layout["margin"].update(t=int(top), b=20)
    fig = go.Figure(go.Heatmap(**trace), layout=layout)
    return HeadFigure(figure=fig, nbytes=len(fig.to_json().encode("utf-8")), row_factor=rf, col_factor=cf)
