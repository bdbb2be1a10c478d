"""Shared figure style: one colour scale for attention weights, projector-sized fonts, tick
labels that never overlap, and text colours with projector contrast.

Every heatmap in the lab uses integer axes with labels as tick text (DESIGN.md): a categorical
axis would merge repeated tokens ("the … the") into one column. Plotly draws every tick of an
array axis, overlapping or not, so :func:`fit_ticks` thins (and turns) them here, from the
font size and the axis length in pixels. Up to :data:`LABEL_ALL_TOKENS` tokens none is thinned
if a smaller font (:func:`fit_font`, not below :data:`MIN_TICK_FONT_SIZE`) or a colour bar below
the plot (:func:`heatmap_plan`) lets every one fit (issue 24 item 7).

Text colours are set on every text element of a figure, and by the lab's plotly template
(:data:`LAB_TEMPLATE`): Streamlit's chart theme, which first drew these figures, drew axis text in
a light grey (#808495 on white: 3.7 : 1, below the 4.5 : 1 a projector needs).
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import overload

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from viz_core.texts import Texts, word

# --------------------------------------------------------------------------------------
# Colours
# --------------------------------------------------------------------------------------

#: Text on every figure (ticks, titles, legends, colour bars): 15.9 : 1 against BACKGROUND.
TEXT_COLOR = "#1f2430"
#: The figure background (paper and plot area), set explicitly so the contrast is known.
BACKGROUND = "#ffffff"

# ColorBrewer "Blues" anchors, re-spaced so CIE L* falls linearly with the value.
_BLUES_ANCHORS = np.array(
    [
        [247, 251, 255],
        [222, 235, 247],
        [198, 219, 239],
        [158, 202, 225],
        [107, 174, 214],
        [66, 146, 198],
        [33, 113, 181],
        [8, 81, 156],
        [8, 48, 107],
    ],
    dtype=np.float64,
)


def _lightness(rgb: np.ndarray) -> np.ndarray:
    """CIE L* of sRGB colours (… , 3) in 0–255."""
    c = rgb / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = lin @ np.array([0.2126, 0.7152, 0.0722])
    return np.where(y > (6 / 29) ** 3, 116 * np.cbrt(y) - 16, y * (29 / 3) ** 3)


def blues_ramp(n: int) -> np.ndarray:
    """``n`` uint8 RGB colours from near-white to dark blue with L* linear in the index."""
    fine = np.linspace(0, len(_BLUES_ANCHORS) - 1, 4096)
    rgb = np.stack([np.interp(fine, np.arange(len(_BLUES_ANCHORS)), _BLUES_ANCHORS[:, i]) for i in range(3)], 1)
    lightness = _lightness(rgb)  # strictly decreasing along the ramp
    targets = np.linspace(lightness[0], lightness[-1], n)
    pos = np.interp(-targets, -lightness, fine)
    out = np.stack([np.interp(pos, np.arange(len(_BLUES_ANCHORS)), _BLUES_ANCHORS[:, i]) for i in range(3)], 1)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


#: Levels of the attention ramp (the grid's PNG palette uses the same 255 colours).
ATTENTION_LEVELS = 255
#: (255, 3) uint8: weight 0 → ATTENTION_RGB[0] (near white), weight 1 → ATTENTION_RGB[-1].
ATTENTION_RGB: np.ndarray = blues_ramp(ATTENTION_LEVELS)
#: Attention weights (0 … 1) everywhere in the app, thumbnails included: white = no attention,
#: dark blue = all of it. Always used with zmin=0, zmax=1 (see :func:`attention_scale`).
ATTENTION_COLORSCALE: list[list] = [
    [i / 8, "rgb({},{},{})".format(*ATTENTION_RGB[round(i * (ATTENTION_LEVELS - 1) / 8)])] for i in range(9)
]
# Signed quantities (scores, encodings, embeddings): blue negative, white zero, red positive.
SIGNED_COLORSCALE = "RdBu_r"
#: The current step, the selected head or cell, the chosen token: one orange on every page.
HIGHLIGHT = "#e8710a"
# Qualitative colours for lines and bars (the D3 palette), in a fixed order per method.
SERIES_COLORS: tuple[str, ...] = (
    "#1f77b4",
    HIGHLIGHT,
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
)


def cell_outline(
    cols: tuple[float, float],
    rows: tuple[float, float],
    *,
    color: str = HIGHLIGHT,
    width: float = 4,
    dash: str | None = None,
    inset: float = 0.0,
) -> dict:
    """The outline (a plotly rect shape) of a heatmap's cells ``cols[0] … cols[1]`` by ``rows[0] … rows[1]``,
    both ends included: cell i spans i ± 0.5 on its axis; ``inset``: drawn that much (in cells) inside."""
    line: dict = {"color": color, "width": width}
    if dash:
        line["dash"] = dash
    return {
        "type": "rect",
        "x0": cols[0] - 0.5 + inset,
        "x1": cols[1] + 0.5 - inset,
        "y0": rows[0] - 0.5 + inset,
        "y1": rows[1] + 0.5 - inset,
        "line": line,
    }


# --------------------------------------------------------------------------------------
# Fonts and the sizes the layout is planned for
# --------------------------------------------------------------------------------------

BASE_FONT_SIZE = 16
TITLE_FONT_SIZE = 20
#: Tick labels (axes and colour bars): the same size as the body text.
TICK_FONT_SIZE = BASE_FONT_SIZE
#: The served CJK face first (static/fonts/lab-cjk.woff, an @font-face limited to CJK code points by
#: ui/frame.py), so figures and their PNG/SVG exports draw 中文 on a machine without Chinese fonts;
#: every other character falls through to the browser's sans-serif.
FONT_FAMILY = '"Lab CJK", sans-serif'
#: Width the ticks and titles of a figure are planned for, unless a builder is given its own:
#: the narrowest place a figure is drawn — a half-width column at 1280 × 720 with the sidebar open
#: (measured about 370 px). A wider render only spaces the labels out more.
FIGURE_WIDTH_PX = 360
#: A tick label is cut to this many characters (hover shows the whole token).
TICK_LABEL_CHARS = 12
#: Height of one line of text, in em, with room between lines.
LINE_EM = 1.25
#: Issue 24 item 7: up to this many tokens, every one is labelled on both axes of a heatmap drawn
#: across a column (:func:`fit_font` shrinks the labels; ``max_ticks`` never thins them).
LABEL_ALL_TOKENS = 40
#: The smallest tick font :func:`fit_font` shrinks to (px): below it, labels are thinned instead.
MIN_TICK_FONT_SIZE = 12
_GAP_PX = 6  # space between two horizontal tick labels
TICK_PAD_PX = 8  # tick length and padding between an axis and its labels


#: Grid lines, zero lines and ticks: a light grey that stays behind the data.
GRID_COLOR = "#e6eaf1"
#: Streamlit's chart colours, which the lab's figures were first drawn with (lines and bars
#: that set no colour of their own take them in this order).
COLORWAY: tuple[str, ...] = (
    "#0068c9",
    "#83c9ff",
    "#ff2b2b",
    "#ffabab",
    "#29b09d",
    "#7defa1",
    "#ff8700",
    "#ffd16a",
    "#6d3fc0",
    "#d5dae5",
)
# Streamlit's sequential blues: the scale of a figure that sets none of its own (attention figures always set theirs).
_SEQUENTIAL = [
    "#e4f5ff",
    "#c7ebff",
    "#a6dcff",
    "#83c9ff",
    "#60b4ff",
    "#3d9df3",
    "#1c83e1",
    "#0068c9",
    "#0054a3",
    "#004280",
]

#: Every figure's defaults (plotly's default template, set below): white, dark text, light grid,
#: axes that make room for their labels; no padding of its own, so that the tick planning above
#: (fit_ticks) sees the plot area that is drawn. The page (ui.plot), the PNG/SVG buttons and the handout
#: draw a figure with this, so all of them look alike. Anything a figure sets itself wins.
LAB_TEMPLATE = go.layout.Template(
    layout={
        "font": {"family": FONT_FAMILY, "color": TEXT_COLOR, "size": BASE_FONT_SIZE},
        "title": {"x": 0, "xanchor": "left", "pad": {"l": 4.5}, "font": {"size": TITLE_FONT_SIZE, "weight": "bold"}},
        "colorway": list(COLORWAY),
        "paper_bgcolor": BACKGROUND,
        "plot_bgcolor": BACKGROUND,
        "xaxis": {
            "gridcolor": GRID_COLOR,
            "zerolinecolor": GRID_COLOR,
            "tickcolor": GRID_COLOR,
            "showgrid": False,
            "zeroline": False,
            "automargin": True,
        },
        "yaxis": {"gridcolor": GRID_COLOR, "zerolinecolor": GRID_COLOR, "tickcolor": GRID_COLOR, "automargin": True},
        "hoverlabel": {"bgcolor": BACKGROUND, "bordercolor": "rgba(47, 45, 43, 0.2)", "font": {"color": TEXT_COLOR}},
        "legend": {"bordercolor": "rgba(0, 0, 0, 0)", "borderwidth": 0, "valign": "top", "title": {"side": "top"}},
        "coloraxis": {"colorbar": {"thickness": 16, "xpad": 27, "outlinewidth": 0, "len": 0.75}},
        "colorscale": {"sequential": [[i / 9, c] for i, c in enumerate(_SEQUENTIAL)]},
    },
    data={
        "scatter": [{"marker": {"line": {"width": 0}}}],
        "heatmap": [{"colorscale": [[i / 9, c] for i, c in enumerate(_SEQUENTIAL)]}],
    },
)
pio.templates["attention_lab"] = LAB_TEMPLATE


def use_lab_template() -> None:
    """Make :data:`LAB_TEMPLATE` every new figure's template (plotly's default). Importing
    Streamlit sets its own default; code that imports both calls this after Streamlit."""
    pio.templates.default = "attention_lab"


use_lab_template()


# --------------------------------------------------------------------------------------
# Text extents
# --------------------------------------------------------------------------------------


def _char_em(ch: str) -> float:
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 1.0
    if ch in "mwMW@%":
        return 0.9
    if ch.isupper() or ch.isdigit() or ch in "#&?_~":
        return 0.72
    if ch in " .,:;'|!ijlrtf()[]":
        return 0.4
    return 0.6


def text_width(text: str, font_size: float = BASE_FONT_SIZE) -> float:
    """Estimated width in px of one line of plotly text (a sans-serif font; HTML entities such
    as ``&lt;`` count as the one character they show; generous rather than tight)."""
    return font_size * sum(_char_em(ch) for ch in html.unescape(str(text)))


def short_label(text: str, limit: int = TICK_LABEL_CHARS) -> str:
    """An escaped label cut to ``limit`` visible characters ("…" marks the cut); entities such
    as ``&lt;`` are never cut in half."""
    shown = html.unescape(str(text))
    if len(shown) > limit:
        shown = shown[: max(1, limit - 1)] + "…"
    return html.escape(shown, quote=False)


# A line may break at a space, or before any wide (CJK) character that is not closing punctuation,
# which stays with the character before it: "…注意力，" never starts a line with "，".
_WIDE = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"
_CLOSING = "，。、：；！？）」』》…"
_OPENING = "（「『《"  # stays with what follows it: no line ends with "（"
# A short relation, "h = 1", "d ≥ 64" or "蓝 < 0", is one piece: a line never ends at "h =" with "1" on the
# next. (Not "d_model = 128": kept whole, it took the block diagram's English title to three lines.)
_RELATION = r"[=≈≠<>≤≥]"  # not "+": "(token + segment + position)" is a list, not one relation
# A number and the Chinese character next to it ("第 1 层", "4 个头", "头 1") are one piece: a line never
# ends at "4" with "个头" on the next, nor leaves "1" alone.
_NUMBER = r"[+−-]?\d[\d.,:%]*"
_WORDS = (
    rf"[{_OPENING}]*[{_WIDE}][{_CLOSING})\]]*| +"  # ")" stays with "别" in "P(类别)"
    rf"|[{_OPENING}]*[^ {_WIDE}]+[{_CLOSING}]*"
)
_PIECES = re.compile(
    rf"[{_OPENING}]*(?:[^ {_WIDE}]{{1,6}}|[{_WIDE}]) {_RELATION} [^ {_WIDE}]{{1,8}}(?:(?<=\d) [{_WIDE}])?[{_CLOSING}]*"
    rf"|[{_OPENING}]*(?:[{_WIDE}] {_NUMBER}(?: [{_WIDE}])?|{_NUMBER} [{_WIDE}])[{_CLOSING})\]]*"
    rf"|{_WORDS}"
)
_WORD_PIECES = re.compile(_WORDS)  # a relation too wide for its line, broken at its spaces


def _too_wide(piece: str, width_px: float, font_size: float) -> bool:
    """A relation piece ("h = 1") wider than a line: it breaks at its spaces like any other text."""
    return " " in piece.strip() and text_width(piece, font_size) > width_px


@overload
def wrap_text(text: str, width_px: float, font_size: float = ...) -> str: ...
@overload
def wrap_text(text: None, width_px: float, font_size: float = ...) -> None: ...
@overload
def wrap_text(text: str | None, width_px: float, font_size: float = ...) -> str | None: ...
def wrap_text(text: str | None, width_px: float, font_size: float = TITLE_FONT_SIZE) -> str | None:
    """``text`` broken with ``<br>`` so that no line is wider than ``width_px``: at spaces, and
    between Chinese characters, which have no spaces (a single word wider than that is cut with
    "…"); existing ``<br>`` breaks are kept."""
    if not text:
        return text
    lines: list[str] = []
    for para in str(text).split("<br>"):
        para_lines: list[list[str]] = []
        line: list[str] = []
        pieces = [
            w
            for p in _PIECES.findall(para)
            for w in (_WORD_PIECES.findall(p) if _too_wide(p, width_px, font_size) else [p])
        ]
        for piece in pieces:
            if piece.startswith(" "):
                if line:
                    line.append(" ")
                continue
            if text_width(piece, font_size) > width_px:  # one over-long word: cut it
                keep = max(1, int(width_px / (0.72 * font_size)) - 1)
                piece = short_label(piece, keep) if "&" in piece else piece[:keep] + "…"
            joined = "".join(line)
            if joined.strip() and text_width(joined + piece, font_size) > width_px:
                para_lines.append(_rstripped(line))
                line = [piece]
            else:
                line.append(piece)
        para_lines.append(_rstripped(line))
        _no_orphan(para_lines, width_px, font_size)
        lines.extend("".join(pl) for pl in para_lines)
    return "<br>".join(lines)


def _rstripped(pieces: list[str]) -> list[str]:
    """A line's pieces without the spaces at its end."""
    while pieces and pieces[-1] == " ":
        pieces = pieces[:-1]
    return pieces


# One Chinese character as a piece of its own, with the brackets and punctuation that stay with it.
_ONE_CHAR = re.compile(rf"[{_OPENING}]*[{_WIDE}][{_CLOSING})\]]*")


def _no_orphan(lines: list[list[str]], width_px: float, font_size: float) -> None:
    """A paragraph whose last line is one Chinese character alone ("…的候选词" / "元") takes the
    character before it along, where that fits: a lone character reads as a stray mark from the back
    of the room. Changes ``lines`` (each a line's pieces) in place."""
    if len(lines) < 2 or len(lines[-1]) != 1 or len(lines[-2]) < 3:
        return
    last, before = lines[-1][0], lines[-2][-1]
    if not (_ONE_CHAR.fullmatch(last) and _ONE_CHAR.fullmatch(before)):
        return
    if text_width(before + last, font_size) <= width_px:
        lines[-2], lines[-1] = lines[-2][:-1], [before, last]


#: A figure's ``layout.meta`` key: its annotations' font sizes were fitted to its shapes (a diagram's box
#: labels), so a larger drawing of it (a slide) keeps them rather than setting one size.
FITTED_TEXT = "fitted_text"


_WIDE_CHAR = re.compile(rf"[{_WIDE}]")


def _wide(char: str) -> bool:
    """A Chinese character or full-width punctuation (:data:`_WIDE`, as :func:`wrap_text` reads it): text it
    breaks with no space."""
    return _WIDE_CHAR.fullmatch(char) is not None


_NO_SPACE_AFTER = "([{" + _CLOSING.replace("…", "")  # "…" ends English words too ("wait… then")
_NO_SPACE_BEFORE = ")]}" + _OPENING


def unwrap_text(text: str) -> str:
    """:func:`wrap_text` undone: each ``<br>`` back to the space it replaced, or to nothing between two
    Chinese characters or inside brackets, where it breaks without one (to be wrapped again for another width)."""
    parts = text.split("<br>")
    out = parts[0]
    for part in parts[1:]:
        a, b = out[-1:], part[:1]
        # no space after full-width punctuation or before a full-width bracket: Chinese writes none there
        joint = "" if (a and b and _wide(a) and _wide(b)) or a in _NO_SPACE_AFTER or b in _NO_SPACE_BEFORE else " "
        out += joint + part
    return out


def _line_px(font_size: float) -> float:
    return LINE_EM * font_size


# --------------------------------------------------------------------------------------
# Ticks that never overlap
# --------------------------------------------------------------------------------------

_NICE_STEPS = (1, 2, 3, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


def _nice(step: int) -> int:
    return next((s for s in _NICE_STEPS if s >= step), step)


def fit_ticks(
    labels: Sequence[str],
    axis_px: float,
    font_size: float = TICK_FONT_SIZE,
    *,
    vertical_axis: bool = False,
    max_ticks: int | None = None,
    limit: int = TICK_LABEL_CHARS,
) -> tuple[list[int], list[str], int]:
    """The ticks of an integer axis 0 … n−1 (cells n px wide: ``axis_px`` / n) that fit without
    overlapping: (tick positions, their text, tick angle).

    On a y axis (``vertical_axis``) labels are stacked and each needs one line of height. On an
    x axis labels stay horizontal (angle 0) when every one fits side by side; else Chinese labels
    are written top to bottom (:func:`stacked`, still angle 0: turned on their side they would
    read sideways) and each needs one character of width, and other labels are turned upright
    (angle −90) and each needs one line of width. Labels are thinned with a
    round step (1, 2, 3, 4, 5, 10, …); the first and the last position are always labelled (the
    last replaces the regular tick before it when they would be too close); no position twice.
    Text is cut to ``limit`` characters; ``max_ticks`` caps the count further, above
    :data:`LABEL_ALL_TOKENS` labels only.
    """
    n = len(labels)
    if n == 0:
        return [], [], 0
    text = [short_label(t, limit) for t in labels]
    slot = max(axis_px, 1.0) / n
    line = _line_px(font_size)
    angle = 0
    need = line
    if not vertical_axis:
        widest = max(text_width(t, font_size) for t in text) + _GAP_PX
        if widest <= slot:
            need = widest
        elif _stackable(labels):  # Chinese stays upright, one character under another
            text = [stacked(t) for t in labels]
            need = max(text_width(unit, font_size) for t in labels for unit in _stack_units(t)) + _GAP_PX
        else:
            angle = -90
    step = max(1, math.ceil(need / slot - 1e-9))
    if max_ticks and n > LABEL_ALL_TOKENS:
        step = max(step, math.ceil(n / max(1, max_ticks)))
    step = _nice(step)
    vals = list(range(0, n, step))
    last = n - 1
    if vals[-1] != last:
        if (last - vals[-1]) * slot >= need:
            vals.append(last)
        elif len(vals) > 1:
            vals[-1] = last  # still ≥ one step from the tick before it
    return vals, [text[i] for i in vals], angle


#: Longest label that :func:`fit_ticks` stacks (characters): a Chinese word is one to four.
STACK_CHARS = 6


def _stackable(labels: Sequence[str]) -> bool:
    """Whether an x axis's labels read upright as stacked characters: at least half are Chinese
    (written top to bottom as well as left to right) and none is longer than :data:`STACK_CHARS`."""
    shown = [html.unescape(str(t)) for t in labels]
    chinese = sum(any(_char_em(ch) == 1.0 for ch in t) for t in shown)
    return 2 * chinese >= len(shown) and max(map(len, shown)) <= STACK_CHARS


def _stack_units(label: str) -> list[str]:
    """The lines of a stacked label: one character each, a number whole ("头 10" → 头, 10)."""
    return re.findall(r"[0-9]+|\S", html.unescape(str(label)))


def stacked(label: str) -> str:
    """A tick label written top to bottom, one (escaped) character per line and a number on one line
    ("喜<br>欢", "头<br>10")."""
    return "<br>".join(html.escape(unit, quote=False) for unit in _stack_units(label)) or " "


def fit_font(
    labels: Sequence[str],
    axis_px: float | Callable[[float], float],
    font_size: float = TICK_FONT_SIZE,
    *,
    vertical_axis: bool = False,
    max_ticks: int | None = None,
) -> float:
    """The tick font of an axis (issue 24 item 7): ``font_size``, unless :func:`fit_ticks` would
    thin at most :data:`LABEL_ALL_TOKENS` labels at it; then the largest size, one px at a time
    down to :data:`MIN_TICK_FONT_SIZE`, at which every label fits; if none does, ``font_size``
    (thinned: readable first). ``axis_px`` may depend on the size (a plot narrowed by y labels)."""

    def labels_all(size: float) -> bool:
        px = axis_px(size) if callable(axis_px) else axis_px
        return len(fit_ticks(labels, px, size, vertical_axis=vertical_axis, max_ticks=max_ticks)[0]) == len(labels)

    if len(labels) > LABEL_ALL_TOKENS or labels_all(font_size):
        return font_size
    size = math.ceil(font_size) - 1
    while size >= MIN_TICK_FONT_SIZE:
        if labels_all(size):
            return size
        size -= 1
    return font_size


def tick_extent(text: Sequence[str], angle: int, font_size: float = TICK_FONT_SIZE) -> float:
    """px the tick labels take away from the plot, across the axis (margin they need)."""
    if not text:
        return 0.0
    if angle == 0:
        return max(t.count("<br>") + 1 for t in text) * _line_px(font_size) + TICK_PAD_PX
    return max(text_width(t, font_size) for t in text) + TICK_PAD_PX


def tick_axis(
    labels: Sequence[str],
    axis_px: float | Callable[[float], float],
    *,
    vertical_axis: bool = False,
    max_ticks: int | None = None,
    font_size: float = TICK_FONT_SIZE,
) -> dict:
    """Axis settings (tickmode array, values, text, angle, font) from :func:`fit_ticks`, at the
    size :func:`fit_font` picks (at most ``font_size``; ``axis_px`` may depend on it)."""
    size = fit_font(labels, axis_px, font_size, vertical_axis=vertical_axis, max_ticks=max_ticks)
    px = axis_px(size) if callable(axis_px) else axis_px
    vals, text, angle = fit_ticks(labels, px, size, vertical_axis=vertical_axis, max_ticks=max_ticks)
    axis = {
        "tickmode": "array",
        "tickvals": vals,
        "ticktext": text,
        "tickfont": {"size": size, "color": TEXT_COLOR},
        "automargin": True,
    }
    if not vertical_axis:
        axis["tickangle"] = angle
    return axis


def axis_extent(axis: Mapping) -> float:
    """:func:`tick_extent` of a :func:`tick_axis` (its text, angle and font size)."""
    return tick_extent(axis["ticktext"], axis.get("tickangle", 0), axis["tickfont"]["size"])


def labels_margin(labels: Sequence[str], font_size: float = TICK_FONT_SIZE) -> float:
    """px of margin that holds the widest of ``labels`` as y tick labels (10 px of figure edge).
    Set it as the figure's left margin with that axis's ``automargin`` off: plotly draws a figure
    a second time whenever automargin finds its labels wider or narrower than before, which a
    step's new tokens do each time (a top-k chart: 12 → 6 ms a step in headless Chromium)."""
    return 10 + max((text_width(str(label), font_size) for label in labels), default=0.0) + TICK_PAD_PX


def plot_width(width: float | None = None, left_px: float = 90, right_px: float = 90) -> float:
    """px of the plot area of a figure ``width`` wide (default :data:`FIGURE_WIDTH_PX`) after
    the y tick labels (``left_px``) and a colour bar (``right_px``)."""
    return max(80.0, (width or FIGURE_WIDTH_PX) - left_px - right_px)


# --------------------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------------------


def _font(size: float) -> dict:
    return {"size": size, "color": TEXT_COLOR}


def axis_style(title: str | None = None) -> dict:
    """One axis with projector-sized, dark fonts (Streamlit's chart theme ignores layout.font
    for axes and draws them grey)."""
    axis: dict = {
        "tickfont": _font(TICK_FONT_SIZE),
        "title": {"font": _font(BASE_FONT_SIZE)},
        "color": TEXT_COLOR,
        "automargin": True,
    }
    if title is not None:
        axis["title"]["text"] = title
    return axis


def title_dict(title: str | None, width: float | None = None) -> tuple[dict | None, int]:
    """A figure title wrapped to the figure's width, and the top margin it needs."""
    if not title:
        return None, 20
    text = wrap_text(title, (width or FIGURE_WIDTH_PX) - 30, TITLE_FONT_SIZE)
    lines = text.count("<br>") + 1
    return (
        {"text": text, "font": _font(TITLE_FONT_SIZE), "x": 0.0, "xanchor": "left"},
        int(30 + lines * _line_px(TITLE_FONT_SIZE)),
    )


def layout_dict(
    title: str | None = None,
    height: int | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    legend: bool | None = None,
    width: float | None = None,
) -> dict:
    """The projector-friendly layout of a single-axis figure as one dict: base font 16, title 20
    (wrapped to ``width``, default :data:`FIGURE_WIDTH_PX`), dark text on an explicit white
    background, tight margins. Building a figure with it in one go is ~10× faster than many
    update calls."""
    title_layout, top = title_dict(title, width)
    layout: dict[str, object] = {
        "font": {"size": BASE_FONT_SIZE, "family": FONT_FAMILY, "color": TEXT_COLOR},
        "title": title_layout,
        "margin": {"l": 10, "r": 10, "t": top, "b": 10},
        "paper_bgcolor": BACKGROUND,
        "plot_bgcolor": BACKGROUND,
        "legend": {"font": _font(BASE_FONT_SIZE)},
        "hoverlabel": {"font": {"size": BASE_FONT_SIZE}},
        "xaxis": axis_style(x_title),
        "yaxis": axis_style(y_title),
    }
    if height is not None:
        layout["height"] = height
    if legend is not None:
        layout["showlegend"] = legend
    return layout


def merged_layout(base: dict, extra: Mapping) -> dict:
    """``base`` with ``extra`` laid over it: nested dicts merged key by key, anything else replaced
    (what ``update_layout`` does with a dict)."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        out[key] = merged_layout(old, value) if isinstance(value, Mapping) and isinstance(old, dict) else value
    return out


def set_layout(fig: go.Figure, layout: Mapping) -> go.Figure:
    """``fig.update_layout(layout)`` in one validation: the figure's own layout (its template left
    to plotly, which puts the default back) merged with ``layout`` and set at once. Measured on a
    12×12 heatmap: update_layout 35–60 ms (it resolves every property path through its relayout
    machinery), this 7 ms, the same figure JSON. Returns ``fig``."""
    own = fig.layout.to_plotly_json()
    own.pop("template", None)
    fig.layout = merged_layout(own, layout)
    return fig


def base_layout(
    fig: go.Figure,
    title: str | None = None,
    height: int | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    legend: bool | None = None,
    width: float | None = None,
) -> go.Figure:
    """Apply ``layout_dict`` to ``fig`` (to every axis of a figure with subplots, and dark text
    to its subplot titles; the title wrapped to ``width``); returns ``fig``."""
    layout = layout_dict(title, height, x_title, y_title, legend, width)
    x_axis, y_axis = layout.pop("xaxis"), layout.pop("yaxis")
    own = fig.layout.to_plotly_json()
    for name in {"xaxis", "yaxis", *(k for k in own if re.fullmatch(r"[xy]axis\d+", k))}:
        layout[name] = x_axis if name[0] == "x" else y_axis
    if own.get("annotations"):  # subplot titles
        layout["annotations"] = [merged_layout(a, {"font": {"color": TEXT_COLOR}}) for a in own["annotations"]]
    # one validation for every axis: update_xaxes and update_yaxes took 60% of a 16-panel figure's time
    return set_layout(fig, layout)


def subplot_grid(
    rows: int,
    cols: int,
    *,
    horizontal_spacing: float = 0.2,
    vertical_spacing: float = 0.3,
    titles: Sequence[str] | None = None,
    shared_xaxes: bool = False,
    title: str | None = None,
    height: int | None = None,
) -> dict:
    """The layout of a ``rows`` × ``cols`` grid of subplots as one dict, with the lab's look
    (:func:`layout_dict`): the axes' domains as ``make_subplots`` places them (spacing as fractions
    of the figure), subplot ``titles`` as dark annotations above each panel, and with
    ``shared_xaxes`` one x range per column, labelled in the bottom row only. Panel ``i`` (row
    major) draws on :func:`subplot_axes` ``(i)``. Built in one validation instead of
    ``make_subplots`` and an update per panel: a 9-panel figure 52 → 9 ms."""
    layout = layout_dict(title, height)
    x_style, y_style = layout.pop("xaxis"), layout.pop("yaxis")
    width = (1 - horizontal_spacing * (cols - 1)) / cols
    tall = (1 - vertical_spacing * (rows - 1)) / rows
    annotations = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        x_name, y_name = subplot_axes(i)
        x0, y0 = c * (width + horizontal_spacing), (rows - 1 - r) * (tall + vertical_spacing)
        x1, y1 = min(1.0, x0 + width), min(1.0, y0 + tall)
        x_axis = dict(x_style, domain=[x0, x1], anchor=y_name)
        if shared_xaxes and r < rows - 1:
            x_axis.update(matches=subplot_axes((rows - 1) * cols + c)[0], showticklabels=False)
        layout[f"xaxis{x_name[1:]}"] = x_axis
        layout[f"yaxis{y_name[1:]}"] = dict(y_style, domain=[y0, y1], anchor=x_name)
        if titles is not None and i < len(titles):
            annotations.append(
                {
                    "text": titles[i],
                    "x": (x0 + x1) / 2,
                    "y": y1,
                    "xref": "paper",
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": BASE_FONT_SIZE, "color": TEXT_COLOR},
                }
            )
    layout["annotations"] = annotations
    return layout


def subplot_axes(i: int) -> tuple[str, str]:
    """The trace axes (``xaxis``, ``yaxis`` values) of panel ``i`` of :func:`subplot_grid`."""
    suffix = str(i + 1) if i else ""
    return f"x{suffix}", f"y{suffix}"


#: A horizontal legend at the bottom of the figure, below the x-axis title (the margin grows to
#: make room), so it never covers the title or the data.
LEGEND_BELOW = {
    "orientation": "h",
    "yref": "container",
    "y": 0.0,
    "yanchor": "bottom",
    "x": 0.0,
    "xanchor": "left",
    "font": _font(BASE_FONT_SIZE),
}


def legend_below(fig: go.Figure) -> go.Figure:
    """:data:`LEGEND_BELOW` on ``fig``; returns ``fig``."""
    return set_layout(fig, {"legend": LEGEND_BELOW})


_HEATMAP_BOTTOM_PX = 40.0  # a heatmap's margin below its rows, planned by heatmap_axes
#: px a colour bar below the plot (:func:`colorbar_below`) takes: bar, tick labels, a title line.
COLORBAR_BELOW_PX = 80.0


def heatmap_axes(
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    max_ticks: int = 30,
    height: int | None = None,
    width: float | None = None,
    top_px: float = 80,
    bottom_px: float = _HEATMAP_BOTTOM_PX,
    *,
    bar_below: bool = False,
    share: float = 1.0,
) -> tuple[dict, dict]:
    """x and y axis settings of a heatmap: integer axes with labels as tick text, row 0 at the
    top, ticks thinned to fit. The x axis is planned for ``width`` (default
    :data:`FIGURE_WIDTH_PX`) less the y labels and a colour bar; the y axis for ``height`` less
    ``top_px``, ``bottom_px`` and the x labels. ``bar_below``: the colour bar is below the plot
    (:func:`colorbar_below`), not beside it. The y font is at most the x font (the plot's width
    was planned for y labels of that size). ``share``: the part of the plot area this x axis spans (a
    subplot's domain)."""
    x_axis: dict = {"showgrid": False, "zeroline": False, "side": "bottom"}
    y_axis: dict = {"autorange": "reversed", "showgrid": False, "zeroline": False}
    widest = max((text_width(short_label(t)) for t in (y_labels if y_labels is not None else ())), default=0.0)
    widest /= BASE_FONT_SIZE  # em: the y labels' width at each size
    right = 10 if bar_below else 90  # below: only the figure's own 10 px margin on the right

    def x_px(size: float) -> float:  # the y labels' width first: it narrows the x axis
        return plot_width(width, 40 + widest * size, right) * share

    size = TICK_FONT_SIZE
    if x_labels is not None:
        x_axis.update(tick_axis(x_labels, x_px, max_ticks=max_ticks))
        size = x_axis["tickfont"]["size"]
    if y_labels is not None:
        bottom = bottom_px + (COLORBAR_BELOW_PX if bar_below else 0)
        rows_px = _plot_height(height, top_px, bottom, x_axis)
        y_axis.update(tick_axis(y_labels, rows_px, vertical_axis=True, max_ticks=max_ticks, font_size=size))
    return x_axis, y_axis


def _labels_all(axis: Mapping, labels: Sequence[str] | None) -> bool:
    return labels is None or len(axis["tickvals"]) == len(labels)


def heatmap_plan(
    x_labels: Sequence[str] | None,
    y_labels: Sequence[str] | None,
    max_ticks: int = 30,
    height: int | None = None,
    width: float | None = None,
    top_px: float = 80,
) -> tuple[dict, dict, bool]:
    """:func:`heatmap_axes` and whether the colour bar goes below the plot: there only when
    that frees the width to label every one of at most :data:`LABEL_ALL_TOKENS` tokens on both
    axes, which a bar beside the plot would thin (issue 24 item 7)."""
    beside = heatmap_axes(x_labels, y_labels, max_ticks, height, width, top_px)
    if _labels_all(beside[0], x_labels) and _labels_all(beside[1], y_labels):
        return (*beside, False)
    below = heatmap_axes(x_labels, y_labels, max_ticks, height, width, top_px, bar_below=True)
    if _labels_all(below[0], x_labels) and _labels_all(below[1], y_labels):
        return (*below, True)
    return (*beside, False)


def _plot_height(height: int | None, top_px: float, bottom_px: float, x_axis: Mapping) -> float:
    """px left for a heatmap's rows: the figure's height less its margins and the x labels."""
    x_extent = axis_extent(x_axis) if "ticktext" in x_axis else _line_px(TICK_FONT_SIZE)
    return max(60.0, (height or 450) - top_px - bottom_px - x_extent - 30)


def colorbar_below(bar: Mapping | None) -> dict:
    """``bar`` (:func:`colorbar` settings) turned flat and set at the bottom of the figure, below
    the plot and its x labels, with its title on one line above it (:data:`COLORBAR_BELOW_PX`)."""
    out = dict(bar or {})
    title = dict(out.get("title") or {})
    if title.get("text"):
        title["text"] = wrap_text(str(title["text"]).replace("<br>", " "), 2 * COLORBAR_TITLE_PX, BASE_FONT_SIZE)
    title["side"] = "top"
    out.update(
        orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.5, xanchor="center", len=0.6, title=title
    )
    return out


def heatmap_layout(
    fig: go.Figure,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    height: int | None = None,
    max_ticks: int = 30,
    row: int | None = None,
    col: int | None = None,
    width: float | None = None,
    extra: Mapping | None = None,
) -> go.Figure:
    """Integer axes with labels as tick text, row 0 at the top; projector-sized fonts; ticks
    thinned to fit (:func:`heatmap_axes`).

    With ``row``/``col`` only that subplot's axes are changed (no title or height); with a ``width`` (the
    figure's), its x labels are planned for the subplot's part of the plot area. ``extra``: more of the
    whole figure's layout (axis ranges, shapes), laid over it in the same single validation.
    """
    if row is not None:
        share = 1.0
        if width is not None:
            domain = fig.get_subplot(row, col).xaxis.domain
            share = float(domain[1] - domain[0])
        x_axis, y_axis = heatmap_axes(x_labels, y_labels, max_ticks, height=height or 400, width=width, share=share)
        where = {"row": row, "col": col}
        fig.update_xaxes(x_axis, title_text=x_title, **where)
        fig.update_yaxes(y_axis, title_text=y_title, **where)
        return fig
    layout = layout_dict(title, height, x_title, y_title, width=width)
    bars = [t for t in fig.data if "colorbar" in t and t["showscale"] is not False]
    below = False
    if bars:  # below the plot where that labels every token (heatmap_plan)
        x_axis, y_axis, below = heatmap_plan(x_labels, y_labels, max_ticks, height, width, layout["margin"]["t"])
    else:
        x_axis, y_axis = heatmap_axes(x_labels, y_labels, max_ticks, height, width, layout["margin"]["t"])
    for trace in bars if below else ():
        trace.colorbar = colorbar_below(trace.colorbar.to_plotly_json())
    layout["xaxis"].update(x_axis)
    layout["yaxis"].update(y_axis)
    if y_title:  # upright beside a short plot, a long title would run into the figure's title
        bottom = _HEATMAP_BOTTOM_PX + (COLORBAR_BELOW_PX if below else 0)
        rows_px = _plot_height(height, layout["margin"]["t"], bottom, x_axis)
        layout["yaxis"]["title"]["text"] = wrap_text(y_title, rows_px, BASE_FONT_SIZE)
    return set_layout(fig, layout if extra is None else merged_layout(layout, extra))


COLORBAR_TITLE_PX = 200  # the longest line of an upright colour-bar title: shorter than any heatmap's bar


def colorbar(title: str | None = None, side: str | None = None) -> dict:
    """A colour bar with projector-sized, dark tick labels; ``side="right"`` turns a long title
    upright beside the bar instead of above it (where it would be cut), in lines of at most
    :data:`COLORBAR_TITLE_PX` (one line longer than the bar would be cut at both ends)."""
    bar: dict = {"tickfont": _font(TICK_FONT_SIZE), "thickness": 16, "outlinewidth": 0}
    if title:
        text = wrap_text(title, COLORBAR_TITLE_PX, BASE_FONT_SIZE) if side else title
        bar["title"] = {"text": text, "font": _font(BASE_FONT_SIZE)}
        if side:
            bar["title"]["side"] = side
    return bar


def attention_scale(
    top: float | None = None, relative_to: str | None = None, title: str | None = None, texts: Texts | None = None
) -> dict:
    """Heatmap settings of attention weights: :data:`ATTENTION_COLORSCALE` from 0 to 1, or,
    with ``relative_to`` (e.g. "this head's maximum"), from 0 to ``top`` with a colour-bar title
    that says the scale is relative and what its darkest colour is (``title`` default: "weight",
    words from ``texts``, see viz_core.texts)."""
    title = word(texts, "weight") if title is None else title
    if relative_to is None or top is None:
        return {"colorscale": ATTENTION_COLORSCALE, "zmin": 0.0, "zmax": 1.0, "colorbar": colorbar(title)}
    top = float(top) if top > 0 else 1.0
    return {
        "colorscale": ATTENTION_COLORSCALE,
        "zmin": 0.0,
        "zmax": top,
        "colorbar": colorbar(
            word(texts, "relative_scale", title=title, relative_to=relative_to, top=top), side="right"
        ),
    }
