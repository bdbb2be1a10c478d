"""Figures of the Transformer block page (Vaswani et al. 2017, Fig. 1 and §3–5): the architecture diagram
of an encoder–decoder, a decoder-only or an encoder-only model with one box highlighted (each box a
clickable point), and the figures of one box's real tensors (the residual stream's size, one vector before
and after LayerNorm, the FFN's hidden units, the output softmax), the change each sub-layer makes per layer,
the gradient norms at initialisation (Xiong et al. 2020), label smoothing's targets, the learning-rate
schedule and BatchNorm against LayerNorm. numpy in, plotly out; every visible word is an argument."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.labels import safe_label
from viz_core.style import (
    HIGHLIGHT,
    BACKGROUND,
    FITTED_TEXT,
    LINE_EM,
    SERIES_COLORS,
    TEXT_COLOR,
    base_layout,
    layout_dict,
    legend_below,
    set_layout,
    text_width,
    title_dict,
    wrap_text,
)

ENCODER_DECODER, DECODER_ONLY, ENCODER_ONLY = "encoder-decoder", "decoder-only", "encoder-only"
# Box fills as in the paper's figure: embeddings pink, attention orange, Add & Norm yellow, FFN blue.
FILLS = {
    "embed": "#f9d5e5",
    "self": "#fde2c4",
    "masked_self": "#fde2c4",
    "cross": "#fde2c4",
    "norm": "#fff3b0",
    "ffn": "#cfe8ff",
    "out": "#d9f2d9",
}
EDGE = "#4b5563"
FRAME = "#9aa7b8"
PITCH, BOX_H, BOX_W = 1.0, 0.78, 3.0  # a box's place, height and width in the diagram's units
SIDE = 0.45  # units beside the outer boxes: the stack's dotted frame and a little air


def parts(architecture: str, stack: str) -> list[str]:
    """The sub-layer kinds of one block of ``stack`` ("enc" or "dec") in ``architecture``, in order."""
    if stack == "enc":
        return ["self", "ffn"]
    return ["masked_self", "cross", "ffn"] if architecture == ENCODER_DECODER else ["masked_self", "ffn"]


def boxes(architecture: str) -> list[str]:
    """Every box id of the diagram, bottom to top, encoder first: ``enc.embed``, ``enc.self``,
    ``enc.self.norm``, ``enc.ffn``, ``enc.ffn.norm``, …, ``dec.cross`` …, ``out``."""
    stacks = {ENCODER_DECODER: ["enc", "dec"], DECODER_ONLY: ["dec"], ENCODER_ONLY: ["enc"]}[architecture]
    out: list[str] = []
    for s in stacks:
        out.append(f"{s}.embed")
        for p in parts(architecture, s):
            out += [f"{s}.{p}", f"{s}.{p}.norm"]
    return out + ["out"]


def _kind(box: str) -> str:
    bits = box.split(".")
    return "out" if box == "out" else "norm" if bits[-1] == "norm" else bits[1]


def _fitting_font(labels: Iterable[str], room_px: float, size: int, smallest: int = 9) -> int:
    """The largest font size from ``size`` down to ``smallest`` at which every label is at most ``room_px``
    wide (:func:`~viz_core.style.text_width`); ``smallest`` if none is."""
    texts = list(labels)
    while size > smallest and any(text_width(t, size) > room_px for t in texts):
        size -= 1
    return size


def _box_text(
    labels: Mapping[str, str], room_w: float, room_h: float, size: int, smallest: int = 9
) -> tuple[dict[str, str], int]:
    """Each box label and the one font size they share: the largest from ``size`` down to ``smallest`` at
    which every label fits ``room_w`` × ``room_h`` px, on one line or, where the box is tall enough, broken
    into two (:func:`~viz_core.style.wrap_text`); at ``smallest``, one line each."""
    for font in range(size, smallest - 1, -1):
        fitted: dict[str, str] = {}
        for key, label in labels.items():
            if text_width(label, font) <= room_w:
                fitted[key] = label
                continue
            two = wrap_text(label, room_w, font)
            if two.count("<br>") != 1 or "…" in two or 2 * font * LINE_EM > room_h:
                break
            fitted[key] = two
        else:
            return fitted, font
    return dict(labels), smallest


def architecture_figure(
    architecture: str,
    n_layers: Mapping[str, int],
    selected: str,
    *,
    box_labels: Mapping[str, str],
    stack_titles: Mapping[str, str],
    repeat: str,
    input_labels: Mapping[str, str],
    hover: Mapping[str, str],
    title: str | None = None,
    width: float = 520,
    height: int = 470,
    font_size: int = 13,
) -> go.Figure:
    """The model as the course draws it (Vaswani et al. 2017, Fig. 1), from the model's own structure:
    per stack (``n_layers``: "enc"/"dec" → N) the embedding + positions, one block drawn with "× N"
    (``repeat``, formatted with ``n``) holding its sub-layers, each followed by Add & Norm; the decoder's
    cross-attention fed by the encoder; the output layer on top. ``box_labels`` names each box kind (embed,
    self, masked_self, cross, norm, ffn, out), ``stack_titles`` each stack, ``input_labels`` each stack's
    input; ``hover`` the hover text of each box id. The ``selected`` box is outlined in orange. One
    invisible marker per box (customdata: its id) makes a box clickable. Box labels are drawn at up to
    ``font_size`` px, smaller where a narrow figure needs it (each must fit its box)."""
    stacks = [s for s in ("enc", "dec") if s in n_layers]
    # Text shrinks with a narrow figure so that every label stays inside its box (or its column):
    # px per diagram unit = the plot's width (less layout_dict's 10 + 10 px margins) / the x range.
    px = (width - 20) / ((len(stacks) - 1) * (BOX_W + 1.3) + BOX_W + 2 * SIDE)
    input_font = _fitting_font(input_labels.values(), (BOX_W + 1.3) * px - 12, font_size + 1)
    centres: dict[str, tuple[float, float]] = {}
    fig = go.Figure()
    shapes: list[dict] = []
    notes: list[dict] = []
    titles: list[dict] = []
    top_y = 0.0
    for col, s in enumerate(stacks):
        x = col * (BOX_W + 1.3)
        y = 0.0
        notes.append({"x": x, "y": -0.85, "text": input_labels[s], "showarrow": False, "font": {"size": input_font}})
        centres[f"{s}.embed"] = (x, y)
        y += PITCH * 1.25
        start = y - 0.5
        for p in parts(architecture, s):
            centres[f"{s}.{p}"] = (x, y)
            centres[f"{s}.{p}.norm"] = (x, y + PITCH)
            y += 2 * PITCH
        end = y - PITCH + 0.5
        shapes.append(
            {
                "type": "rect",
                "x0": x - BOX_W / 2 - 0.25,
                "x1": x + BOX_W / 2 + 0.25,
                "y0": start,
                "y1": end,
                "line": {"color": FRAME, "width": 2, "dash": "dot"},
                "fillcolor": "rgba(0,0,0,0)",
                "layer": "below",
            }
        )
        titles.append(  # the block's N beside the stack's name; drawn over the arrow that passes it
            {
                "x": x,
                "y": end + 0.3,
                "text": f"<b>{stack_titles[s]}</b> {repeat.format(n=n_layers[s])}",
                "showarrow": False,
                "font": {"size": 15},
                "yanchor": "bottom",
                "bgcolor": BACKGROUND,
            }
        )
        top_y = max(top_y, end)
    last = stacks[-1]
    out_x = (len(stacks) - 1) * (BOX_W + 1.3)
    centres["out"] = (out_x, top_y + 1.45)
    order = boxes(architecture)
    for s in stacks:  # the residual path upward through each stack
        ids = [b for b in order if b.startswith(s + ".")] + (["out"] if s == last else [])
        for a, b in zip(ids, ids[1:]):
            (xa, ya), (xb, yb) = centres[a], centres[b]
            notes.append(
                {
                    "x": xb,
                    "y": yb - BOX_H / 2,
                    "ax": xa,
                    "ay": ya + BOX_H / 2,
                    "xref": "x",
                    "yref": "y",
                    "axref": "x",
                    "ayref": "y",
                    "showarrow": True,
                    "arrowhead": 2,
                    "arrowwidth": 1.5,
                    "arrowcolor": EDGE,
                    "text": "",
                }
            )
    if "enc" in stacks and "dec" in stacks:  # the encoder's output feeds every decoder block's cross-attention
        (xe, ye), (xc, yc) = centres["enc.ffn.norm"], centres["dec.cross"]
        fig.add_trace(
            go.Scatter(
                x=[xe + BOX_W / 2, xe + BOX_W / 2 + 0.55, xc - BOX_W / 2 - 0.6],
                y=[ye, ye + 0.4, yc],
                mode="lines",
                line={"color": EDGE, "width": 2},
                hoverinfo="skip",
                showlegend=False,
            )
        )
        notes.append(
            {
                "x": xc - BOX_W / 2,
                "y": yc,
                "ax": xc - BOX_W / 2 - 0.6,
                "ay": yc,
                "xref": "x",
                "yref": "y",
                "axref": "x",
                "ayref": "y",
                "showarrow": True,
                "arrowhead": 2,
                "arrowwidth": 2,
                "arrowcolor": EDGE,
                "text": "",
            }
        )
    # px per unit upward: the plot's height (less the title's margin and the 10 px below) / the y range
    py = (height - title_dict(title, width)[1] - 10) / (top_y + 2.0 + 1.2)
    shown, box_font = _box_text(box_labels, BOX_W * px - 8, BOX_H * py - 4, font_size)
    for box, (x, y) in centres.items():
        chosen = box == selected
        shapes.append(
            {
                "type": "rect",
                "x0": x - BOX_W / 2,
                "x1": x + BOX_W / 2,
                "y0": y - BOX_H / 2,
                "y1": y + BOX_H / 2,
                "fillcolor": FILLS[_kind(box)],
                "line": {"color": HIGHLIGHT if chosen else EDGE, "width": 5 if chosen else 1.5},
            }
        )
        notes.append(
            {
                "x": x,
                "y": y,
                "text": f"<b>{shown[_kind(box)]}</b>" if chosen else shown[_kind(box)],
                "showarrow": False,
                "font": {"size": box_font, "color": TEXT_COLOR},
            }
        )
    ids = list(centres)
    fig.add_trace(
        go.Scatter(  # the click targets: one invisible point per box
            x=[centres[b][0] for b in ids],
            y=[centres[b][1] for b in ids],
            mode="markers",
            customdata=ids,
            marker={"size": 44, "symbol": "square", "color": "rgba(255,255,255,0.01)"},
            showlegend=False,
            hovertext=[hover.get(b, "") for b in ids],
            hoverinfo="text",
            name="",
        )
    )
    xs = [c[0] for c in centres.values()]
    layout = layout_dict(title, height, legend=False, width=width)
    layout["xaxis"] = {
        "visible": False,
        "range": [min(xs) - BOX_W / 2 - SIDE, max(xs) + BOX_W / 2 + SIDE],
        "fixedrange": True,
    }
    layout["yaxis"] = {"visible": False, "range": [-1.2, top_y + 2.0], "fixedrange": True}
    layout["width"] = width
    layout["shapes"] = shapes
    layout["annotations"] = notes + titles
    layout["clickmode"] = "event+select"
    layout["dragmode"] = False
    layout["meta"] = {FITTED_TEXT: True}  # the labels' sizes fit their boxes: a slide keeps them
    return set_layout(fig, layout)


def stream_figure(
    norms: np.ndarray,
    points: Sequence[str],
    tokens: Sequence[str],
    token: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    mean_name: str,
    width: float = 640,
    height: int = 400,
) -> go.Figure:
    """‖x_t‖ of the residual stream at each point (``norms`` (P, L)): one grey line per token, the chosen
    ``token`` orange, the mean over tokens dark."""
    fig = go.Figure()
    xs = list(range(len(points)))
    for t in range(norms.shape[1]):
        if t != token:
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=norms[:, t],
                    mode="lines",
                    line={"color": "#c3cad6", "width": 1},
                    name=safe_label(tokens[t], 20),
                    showlegend=False,
                    hoverinfo="skip",
                )
            )
    fig.add_trace(
        go.Scatter(
            x=xs, y=norms.mean(1), mode="lines+markers", name=mean_name, line={"color": SERIES_COLORS[0], "width": 3}
        )
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=norms[:, token],
            mode="lines+markers",
            name=safe_label(tokens[token], 20),
            line={"color": HIGHLIGHT, "width": 3},
        )
    )
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(
        fig,
        {"width": width, "xaxis": {"tickmode": "array", "tickvals": xs, "ticktext": list(points), "tickangle": -45}},
    )
    return legend_below(fig)


def changes_figure(
    changes: np.ndarray,
    kinds: Sequence[str],
    names: Mapping[str, str],
    layer: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    layer_label: str,
    width: float = 640,
    height: int = 380,
) -> go.Figure:
    """Mean ‖Sublayer(x)‖/‖x‖ of each sub-layer (``changes`` (N, S), ``kinds`` its S sub-layer kinds named by
    ``names``) in each block; the chosen ``layer`` drawn solid, the others lighter."""
    fig = go.Figure()
    xs = [layer_label.format(n=i + 1) for i in range(changes.shape[0])]
    colors = {
        "self": SERIES_COLORS[1],
        "masked_self": SERIES_COLORS[1],
        "cross": SERIES_COLORS[4],
        "ffn": SERIES_COLORS[0],
    }
    for j, sublayer_type in enumerate(kinds):
        fig.add_trace(
            go.Bar(
                x=xs,
                y=changes[:, j],
                name=names[sublayer_type],
                marker={
                    "color": colors[sublayer_type],
                    "opacity": [1.0 if i == layer else 0.45 for i in range(len(xs))],
                },
                texttemplate="%{y:.2f}",
                textposition="outside",
            )
        )
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(fig, {"width": width, "barmode": "group", "yaxis": {"rangemode": "tozero"}})
    return legend_below(fig)


def layernorm_figure(
    before: np.ndarray,
    standardised: np.ndarray,
    after: np.ndarray,
    names: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    width: float = 640,
    height: int = 400,
) -> go.Figure:
    """One token's vector before LayerNorm, standardised (mean 0, variance 1) and after γ, β: its d values
    against the feature index, one line each (named by ``names``)."""
    fig = go.Figure()
    xs = list(range(len(before)))
    for values, name, color in zip(
        (before, standardised, after), names, (SERIES_COLORS[7], SERIES_COLORS[0], HIGHLIGHT)
    ):
        fig.add_trace(go.Scatter(x=xs, y=values, mode="lines", name=name, line={"color": color, "width": 2}))
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(fig, {"width": width})
    return legend_below(fig)


def hidden_units_figure(
    hidden: np.ndarray,
    *,
    title: str,
    x_title: str,
    y_title: str,
    zero_name: str,
    active_name: str,
    width: float = 640,
    height: int = 380,
) -> go.Figure:
    """One token's FFN hidden units (d_ff,) in order: those ≤ 0 (ReLU's zeros) grey, the others blue."""
    xs = np.arange(len(hidden))
    off = hidden <= 0
    fig = go.Figure()
    for mask, name, color in ((~off, active_name, SERIES_COLORS[0]), (off, zero_name, "#9aa7b8")):
        fig.add_trace(go.Bar(x=xs[mask], y=hidden[mask], name=name, marker={"color": color, "line": {"width": 0}}))
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(fig, {"width": width, "bargap": 0, "barmode": "overlay"})
    return legend_below(fig)


def top_figure(
    tokens: Sequence[str], probs: Sequence[float], *, title: str, x_title: str, width: float = 640, height: int = 340
) -> go.Figure:
    """The output softmax's top-k at one position, as horizontal bars (most likely on top)."""
    labels = [safe_label(t, 20) for t in tokens][::-1]
    fig = go.Figure(
        go.Bar(
            x=list(probs)[::-1],
            y=list(range(len(labels))),
            orientation="h",
            marker={"color": SERIES_COLORS[2]},
            texttemplate="%{x:.3f}",
            textposition="outside",
        )
    )
    base_layout(fig, title=title, height=height, x_title=x_title)
    set_layout(
        fig,
        {
            "width": width,
            "xaxis": {"range": [0, 1.15]},
            "yaxis": {"tickmode": "array", "tickvals": list(range(len(labels))), "ticktext": labels},
        },
    )
    return fig


def _lines_figure(
    lines: Sequence[tuple[str, Iterable[float], Iterable[float], dict]],
    mode: str,
    *,
    title: str,
    x_title: str,
    y_title: str,
    width: float,
    height: int,
    xaxis: Mapping[str, object] | None = None,
) -> go.Figure:
    """One line per (name, x, y, line style), y from zero, the legend below: the block page's line figures."""
    fig = go.Figure()
    for name, x, y, line in lines:
        fig.add_trace(go.Scatter(x=list(x), y=list(y), mode=mode, name=name, line={"width": 3, **line}))
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(fig, {"width": width, "xaxis": dict(xaxis or {}), "yaxis": {"rangemode": "tozero"}})
    return legend_below(fig)


def gradient_figure(
    series: Mapping[str, np.ndarray], *, title: str, x_title: str, y_title: str, width: float = 640, height: int = 400
) -> go.Figure:
    """Per-layer gradient norms at initialisation: one line per named series (post-LN solid, pre-LN dashed
    when the name's series key ends in "pre")."""
    lines = [
        (
            name,
            range(1, len(values) + 1),
            values,
            {"color": SERIES_COLORS[(i // 2) * 2 + (i % 2)], "dash": "dash" if i % 2 else "solid"},
        )
        for i, (name, values) in enumerate(series.items())
    ]
    return _lines_figure(
        lines,
        "lines+markers",
        title=title,
        x_title=x_title,
        y_title=y_title,
        width=width,
        height=height,
        xaxis={"dtick": 1},
    )


def training_curves_figure(
    curves: Mapping[str, Sequence[float]],
    every: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    width: float = 640,
    height: int = 400,
) -> go.Figure:
    """Training loss against step, one line per named run; ``curves`` hold the mean loss of each run of
    ``every`` steps, drawn at the step that ends it (every·k)."""
    lines = [
        (name, [every * (k + 1) for k in range(len(values))], values, {"color": SERIES_COLORS[i % len(SERIES_COLORS)]})
        for i, (name, values) in enumerate(curves.items())
    ]
    return _lines_figure(lines, "lines", title=title, x_title=x_title, y_title=y_title, width=width, height=height)


def smoothing_figure(
    words: Sequence[str],
    targets: Mapping[str, np.ndarray],
    vocab_q: np.ndarray,
    target: int,
    *,
    title: str,
    left_title: str,
    right_title: str,
    y_title: str,
    vocab_x: str,
    target_name: str,
    other_name: str,
    width: float = 1000,
    height: int = 420,
) -> go.Figure:
    """Left: the course's 5-word example, one group of bars per convention (``targets``: name → q (5,)).
    Right: q over a model's real vocabulary (``vocab_q`` (V,), the true word ``target`` orange), log scale."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(left_title, right_title), horizontal_spacing=0.12)
    for i, (name, q) in enumerate(targets.items()):
        fig.add_trace(
            go.Bar(
                x=list(words),
                y=q,
                name=name,
                marker={"color": SERIES_COLORS[i]},
                texttemplate="%{y:.3f}",
                textposition="outside",
            ),
            row=1,
            col=1,
        )
    xs = np.arange(len(vocab_q))
    others = xs != target
    fig.add_trace(
        go.Bar(
            x=xs[others],
            y=vocab_q[others],
            name=other_name,
            marker={"color": "#9aa7b8", "line": {"width": 0}},
            showlegend=False,
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Bar(
            x=[target],
            y=[vocab_q[target]],
            name=target_name,
            marker={"color": HIGHLIGHT},
            width=max(1.0, len(vocab_q) / 60),
            showlegend=False,
        ),
        row=1,
        col=2,
    )
    base_layout(fig, title=title, height=height, legend=True)
    set_layout(
        fig,
        {
            "width": width,
            "barmode": "group",
            "bargap": 0.15,
            "yaxis": {"title": {"text": y_title}, "range": [0, 1.1]},
            "yaxis2": {"type": "log"},
            "xaxis2": {"title": {"text": vocab_x}},
        },
    )
    return legend_below(fig)


def schedule_figure(
    steps: np.ndarray,
    rates: Mapping[str, np.ndarray],
    warmup: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    warmup_label: str,
    width: float = 640,
    height: int = 400,
) -> go.Figure:
    """Learning rate against step, one line per named schedule, log y; the end of warm-up marked."""
    fig = go.Figure()
    for i, (name, r) in enumerate(rates.items()):
        fig.add_trace(
            go.Scatter(
                x=steps,
                y=r,
                mode="lines",
                name=name,
                line={"color": SERIES_COLORS[i], "width": 3, "dash": "dash" if i else "solid"},
            )
        )
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(
        fig,
        {
            "width": width,
            "yaxis": {"type": "log"},
            "shapes": [
                {
                    "type": "line",
                    "x0": warmup,
                    "x1": warmup,
                    "yref": "paper",
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": FRAME, "dash": "dot", "width": 2},
                }
            ],
            "annotations": [
                {
                    "x": warmup,
                    "yref": "paper",
                    "y": 1.0,
                    "text": warmup_label,
                    "showarrow": False,
                    "xanchor": "left",
                    "yanchor": "top",
                }
            ],
        },
    )
    return legend_below(fig)


def norm_shift_figure(
    tokens: Sequence[str],
    shifts: Mapping[str, np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    width: float = 640,
    height: int = 380,
) -> go.Figure:
    """Per token of one sentence: how far its normalised vector moves when the rest of the batch (other
    sentences, padding) is taken away, one group of bars per normalisation."""
    fig = go.Figure()
    xs = list(range(len(tokens)))
    for i, (name, s) in enumerate(shifts.items()):
        fig.add_trace(
            go.Bar(
                x=xs,
                y=s,
                name=name,
                marker={"color": SERIES_COLORS[i]},
                texttemplate="%{y:.2f}",
                textposition="outside",
            )
        )
    base_layout(fig, title=title, height=height, x_title=x_title, y_title=y_title, legend=True)
    set_layout(
        fig,
        {
            "width": width,
            "barmode": "group",
            "xaxis": {"tickmode": "array", "tickvals": xs, "ticktext": [safe_label(t, 12) for t in tokens]},
        },
    )
    return legend_below(fig)
