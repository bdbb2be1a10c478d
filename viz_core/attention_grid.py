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

__all__ = [
    "BLUES_RGB", "GAP_INDEX", "bin_attention", "to_palette_indices", "encode_png_indexed",
    "thumbnail_png", "GridPayload", "grid_payload", "HeadFigure", "head_figure",
]

BinHow = Literal["max", "mean"]
Scale = Literal["head", "global", "absolute"]

# --------------------------------------------------------------------------------------
# Colour map: ColorBrewer "Blues" anchors, re-spaced so CIE L* falls linearly with value.
# --------------------------------------------------------------------------------------

_BLUES_ANCHORS = np.array([
    [247, 251, 255], [222, 235, 247], [198, 219, 239], [158, 202, 225], [107, 174, 214],
    [66, 146, 198], [33, 113, 181], [8, 81, 156], [8, 48, 107],
], dtype=np.float64)

#: Palette index used for the gaps between thumbnails (light grey).
GAP_INDEX = 255
_GAP_RGB = (200, 200, 200)
_N_LEVELS = 255  # indices 0 … 254 carry the colour ramp


def _lightness(rgb: np.ndarray) -> np.ndarray:
    """CIE L* of sRGB colours (… , 3) in 0–255."""
    c = rgb / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = lin @ np.array([0.2126, 0.7152, 0.0722])
    return np.where(y > (6 / 29) ** 3, 116 * np.cbrt(y) - 16, y * (29 / 3) ** 3)


def _blues_ramp(n: int) -> np.ndarray:
    """``n`` uint8 RGB colours from near-white to dark blue with L* linear in the index."""
    fine = np.linspace(0, len(_BLUES_ANCHORS) - 1, 4096)
    rgb = np.stack([np.interp(fine, np.arange(len(_BLUES_ANCHORS)), _BLUES_ANCHORS[:, i]) for i in range(3)], 1)
    lightness = _lightness(rgb)  # strictly decreasing along the ramp
    targets = np.linspace(lightness[0], lightness[-1], n)
    pos = np.interp(-targets, -lightness, fine)
    out = np.stack([np.interp(pos, np.arange(len(_BLUES_ANCHORS)), _BLUES_ANCHORS[:, i]) for i in range(3)], 1)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


#: (255, 3) uint8: value 0 → BLUES_RGB[0] (near white), value = vmax → BLUES_RGB[-1].
BLUES_RGB: np.ndarray = _blues_ramp(_N_LEVELS)
_PALETTE = np.vstack([BLUES_RGB, np.array([_GAP_RGB], dtype=np.uint8)])  # (256, 3)
#: The same ramp as a plotly colorscale, so the one-head view matches the thumbnails.
BLUES_COLORSCALE: list[list[Any]] = [
    [i / 8, "rgb({},{},{})".format(*BLUES_RGB[round(i * (_N_LEVELS - 1) / 8)])] for i in range(9)
]


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


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png_indexed(indices: np.ndarray, palette: np.ndarray = _PALETTE, level: int = 6) -> bytes:
    """A palette PNG (colour type 3, 8 bit) of a (H, W) uint8 index image; stdlib zlib only."""
    if indices.dtype != np.uint8 or indices.ndim != 2:
        raise ValueError("indices must be a 2-d uint8 array")
    h, w = indices.shape
    raw = np.empty((h, w + 1), dtype=np.uint8)
    raw[:, 0] = 0  # filter type None on every scanline
    raw[:, 1:] = indices
    header = struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)
    return b"".join([
        b"\x89PNG\r\n\x1a\n",
        _png_chunk(b"IHDR", header),
        _png_chunk(b"PLTE", np.ascontiguousarray(palette, dtype=np.uint8).tobytes()),
        _png_chunk(b"IDAT", zlib.compress(raw.tobytes(), level)),
        _png_chunk(b"IEND", b""),
    ])


def _factors(length: int, max_pixels: int) -> int:
    return max(1, math.ceil(length / max_pixels))


def thumbnail_png(matrix: np.ndarray, max_size: int = 96, how: BinHow = "max", vmax: float | None = None) -> bytes:
    """One (L, S) attention matrix as a small palette PNG (≤ ``max_size`` pixels a side)."""
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
            "n_layers": self.n_layers, "n_heads": self.n_heads, "query_len": self.query_len,
            "key_len": self.key_len, "row_factor": self.row_factor, "col_factor": self.col_factor,
            "upscale": self.upscale, "cell_h": self.cell_h, "cell_w": self.cell_w, "gap": self.gap,
            "how": self.how, "scale": self.scale, "vmax": np.round(self.vmax, 6).tolist(),
            "src_tokens": self.src_tokens, "tgt_tokens": self.tgt_tokens,
            "layer_labels": self.layer_labels, "head_labels": self.head_labels,
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
        return self._indices[y: y + self.cell_h, x: x + self.cell_w]

    def head_png(self, layer: int, head: int) -> bytes:
        """One thumbnail as its own PNG (for a UI that lays out heads itself)."""
        return encode_png_indexed(np.ascontiguousarray(self.head_indices(layer, head)))

    def figure(self, height: int | None = None) -> go.Figure:
        """A plotly figure of the mosaic (a ``go.Image`` from the PNG data URI — no weights
        as JSON), layer/head tick labels, and an invisible marker at each thumbnail centre
        whose hover names the head and its vmax and whose ``customdata`` is [layer, head]
        (selection events reach Streamlit from scatter points, not from images)."""
        ys = np.array([self.cell_origin(layer, 0)[0] + self.cell_h / 2 for layer in range(self.n_layers)])
        xs = np.array([self.cell_origin(0, h)[1] + self.cell_w / 2 for h in range(self.n_heads)])
        gx, gy = np.meshgrid(xs, ys)  # (layers, heads)
        layer_ix, head_ix = np.meshgrid(np.arange(self.n_layers), np.arange(self.n_heads), indexing="ij")
        fig = go.Figure()
        fig.add_trace(go.Image(source=self.data_uri, hoverinfo="skip", name="attention grid"))
        fig.add_trace(go.Scatter(
            x=gx.ravel(), y=gy.ravel(), mode="markers",
            marker=dict(size=max(8, min(self.cell_w, self.cell_h) // 2), opacity=0),
            customdata=np.stack([layer_ix.ravel(), head_ix.ravel()], 1),
            text=[f"{self.layer_labels[l]} · {self.head_labels[h]} · darkest = {self.vmax[l, h]:.3g}"
                  for l in range(self.n_layers) for h in range(self.n_heads)],
            hovertemplate="%{text}<extra></extra>", showlegend=False, name="heads",
        ))
        fig.update_xaxes(tickmode="array", tickvals=xs, ticktext=self.head_labels, side="top",
                         showgrid=False, zeroline=False, range=[0, self.width])
        fig.update_yaxes(tickmode="array", tickvals=ys, ticktext=self.layer_labels, showgrid=False,
                         zeroline=False, range=[self.height, 0], scaleanchor="x")
        fig.update_layout(
            height=height or min(900, 80 + self.height), margin=dict(l=60, r=10, t=40, b=10),
            plot_bgcolor="white", dragmode=False,
        )
        return fig


def grid_payload(
    weights: np.ndarray, src_tokens: Sequence[str], tgt_tokens: Sequence[str] | None = None, *,
    max_thumb: int = 96, min_thumb: int = 48, how: BinHow = "max", scale: Scale = "head",
    gap: int = 2, layer_labels: Sequence[str] | None = None, head_labels: Sequence[str] | None = None,
    level: int = 6,
) -> GridPayload:
    """Build the grid view of ``weights`` (layers, heads, L, S) as one PNG mosaic.

    Each head is binned to ≤ ``max_thumb`` pixels a side (:func:`bin_attention`), and small
    ones are enlarged by pixel repetition to about ``min_thumb``. ``scale``: "head" maps each
    thumbnail's own maximum to the darkest colour (diffuse heads stay visible), "global" one
    maximum for all, "absolute" weight 1. ``src_tokens`` label the S keys, ``tgt_tokens``
    (default: ``src_tokens``) the L queries.
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
        png_bytes=png, n_layers=n_layers, n_heads=n_heads, query_len=q_len, key_len=k_len,
        row_factor=rf, col_factor=cf, upscale=up, cell_h=ch, cell_w=cw, gap=gap, how=how, scale=scale,
        vmax=vmax, src_tokens=src, tgt_tokens=tgt,
        layer_labels=list(layer_labels) if layer_labels else [f"L{i + 1}" for i in range(n_layers)],
        head_labels=list(head_labels) if head_labels else [f"H{i + 1}" for i in range(n_heads)],
        build_seconds=time.perf_counter() - start, _indices=mosaic,
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


def _ticks(tokens: Sequence[str], max_ticks: int) -> tuple[list[int], list[str]]:
    """Integer tick positions (every token, or every n-th when many) and their token text."""
    step = max(1, math.ceil(len(tokens) / max_ticks))
    vals = list(range(0, len(tokens), step))
    return vals, [str(tokens[i]) for i in vals]


def head_figure(
    matrix: np.ndarray, src_tokens: Sequence[str], tgt_tokens: Sequence[str] | None = None, *,
    max_cells: int = 128, max_ticks: int = 64, title: str | None = None, zmax: float | None = None,
    how: BinHow = "mean", hover_tokens_up_to: int = 4096,
) -> HeadFigure:
    """ONE head's (L, S) weights as a heatmap on integer axes 0 … S−1 (keys, ``src_tokens``)
    and 0 … L−1 (queries, ``tgt_tokens``), tokens as tick text: repeated tokens keep their own
    columns. Above ``max_cells`` per axis the matrix is binned on the server
    (:func:`bin_attention`, default "mean": each binned row still sums to 1) and the cells are
    drawn at their token positions. z is sent as binary float32, not as JSON text.
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
    top = float(z.max()) if zmax is None else zmax
    trace: dict[str, Any] = dict(z=z, colorscale=BLUES_COLORSCALE, zmin=0.0, zmax=top if top > 0 else 1.0,
                                 colorbar=dict(thickness=12))
    if rf == 1 and cf == 1:
        trace.update(x=np.arange(k_len), y=np.arange(q_len))
        if q_len * k_len <= hover_tokens_up_to:
            trace["customdata"] = np.array([[[q, k] for k in src] for q in tgt], dtype=object)
            trace["hovertemplate"] = ("query %{y} “%{customdata[0]}” → key %{x} “%{customdata[1]}”"
                                      "<br>weight %{z:.4f}<extra></extra>")
        else:
            trace["hovertemplate"] = "query %{y} → key %{x}<br>weight %{z:.4f}<extra></extra>"
    else:
        trace.update(x0=(cf - 1) / 2, dx=cf, y0=(rf - 1) / 2, dy=rf)
        label = "max weight" if how == "max" else "mean total weight"
        trace["hovertemplate"] = (f"queries ≈ %{{y:.1f}} ({rf} per cell) → keys ≈ %{{x:.1f}} ({cf} per cell)"
                                  f"<br>{label} %{{z:.4f}}<extra></extra>")
    fig = go.Figure(go.Heatmap(**trace))
    xv, xt = _ticks(src, max_ticks)
    yv, yt = _ticks(tgt, max_ticks)
    fig.update_xaxes(tickmode="array", tickvals=xv, ticktext=xt, range=[-0.5, k_len - 0.5], side="top",
                     tickangle=-60 if k_len > 8 else 0, title_text="key (attended to)")
    fig.update_yaxes(tickmode="array", tickvals=yv, ticktext=yt, range=[q_len - 0.5, -0.5],
                     title_text="query (attending)", scaleanchor="x", constrain="domain")
    fig.update_layout(title=title, margin=dict(l=80, r=20, t=90 if title else 70, b=20),
                      height=min(900, max(320, 140 + 14 * min(q_len, max_cells))))
    return HeadFigure(figure=fig, nbytes=len(fig.to_json().encode("utf-8")), row_factor=rf, col_factor=cf)
