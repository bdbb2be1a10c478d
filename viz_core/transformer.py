"""Figures for the Transformer pages: one attention matrix (with its mask), the masks alone,
the layers × heads grid with the selected head outlined, the QKᵀ → softmax chain of one head,
and the next-token distribution of the language model.

Inputs are numpy arrays and token lists (the traces' fields); outputs are plotly figures or
pandas frames. Every token label goes through :func:`viz_core.labels.safe_label`. Attention
uses :data:`viz_core.style.ATTENTION_COLORSCALE` (white = 0, dark blue = 1) as on the seq2seq
page; masked cells are grey.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from viz_core.attention_grid import GridPayload
from viz_core.labels import safe_label, token_labels
from viz_core.style import (
    BASE_FONT_SIZE,
    HIGHLIGHT,
    LEGEND_BELOW,
    SERIES_COLORS,
    SIGNED_COLORSCALE,
    TICK_FONT_SIZE,
    attention_scale,
    base_layout,
    cell_outline,
    colorbar,
    heatmap_layout,
    labels_margin,
    plot_width,
    set_layout,
    subplot_grid,
    tick_axis,
)
from viz_core.texts import Texts, word

MASKED = "#8c8c8c"  # cells a mask blocks
ALLOWED = "#eef3f8"


def _unique_labels(tokens: Sequence[str], unknown: Sequence[bool] | None = None) -> list[str]:
    return token_labels([str(t) for t in tokens], unknown)


def attention_matrix_figure(
    weights: np.ndarray,
    key_tokens: Sequence[str],
    query_tokens: Sequence[str],
    *,
    blocked: np.ndarray | None = None,
    step: int | None = None,
    title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    key_unknown: Sequence[bool] | None = None,
    zmax: float = 1.0,
    height: int | None = None,
    max_ticks: int = 60,
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """Query × key heatmap of one head (or an average), rows = queries, integer axes (key labels
    thinned for ``width`` px, default: the style's).

    ``blocked`` (L, S) bool marks cells a mask sets to −∞ (drawn grey, weight exactly 0);
    ``step`` outlines that query row in orange. Colours run from 0 to ``zmax`` = 1 (the app's
    one scale); any other ``zmax`` is named on the colour bar as a relative scale. Axis titles
    default to "key (attended to)" and "query (attending)"; hover and colour-bar words come from
    ``texts`` (viz_core.texts).
    """
    w = np.asarray(weights, dtype=float)
    n_q, n_k = w.shape
    x_labels = _unique_labels(key_tokens, key_unknown)
    y_labels = _unique_labels(query_tokens)
    hover = [
        [word(texts, "weight_hover", query=y_labels[q], key=x_labels[k], weight=w[q, k]) for k in range(n_k)]
        for q in range(n_q)
    ]
    relative = None if zmax == 1.0 else word(texts, "chosen_max")
    traces = [
        go.Heatmap(
            z=w,
            x=list(range(n_k)),
            y=list(range(n_q)),
            **attention_scale(zmax, relative, texts=texts),
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=1,
        )
    ]
    if blocked is not None and np.asarray(blocked).any():
        b = np.asarray(blocked, dtype=bool)
        traces.append(
            go.Heatmap(
                z=np.where(b, 1.0, np.nan),
                x=list(range(n_k)),
                y=list(range(n_q)),
                zmin=0,
                zmax=1,
                colorscale=[[0, MASKED], [1, MASKED]],
                showscale=False,
                xgap=1,
                ygap=1,
                text=[
                    [word(texts, "masked_hover", query=y_labels[q], key=x_labels[k]) for k in range(n_k)]
                    for q in range(n_q)
                ],
                hoverinfo="text",
                name=word(texts, "masked"),
            )
        )
    fig = go.Figure(data=traces)
    shapes = []
    if step is not None and 0 <= step < n_q:
        shapes.append(row_outline(step, n_k, width=4))
    # one layout, validated once: the axes' ranges and the outline with the rest (add_shape,
    # update_xaxes and update_yaxes each took as long as the whole layout)
    heatmap_layout(
        fig,
        x_labels,
        y_labels,
        title=title,
        x_title=word(texts, "key_attended") if x_title is None else x_title,
        y_title=word(texts, "query_attending") if y_title is None else y_title,
        height=height or int(min(760, max(340, 150 + 34 * n_q))),
        max_ticks=max_ticks,
        width=width,
        extra={
            "xaxis": {"range": [-0.5, n_k - 0.5]},
            "yaxis": {"range": [n_q - 0.5, -0.5], "autorange": False},
            **({"shapes": shapes} if shapes else {}),
        },
    )
    return fig


def row_outline(row: int, n_columns: int, width: int = 4) -> dict:
    """The orange outline of heatmap row ``row`` (cells at integer x = 0 … n_columns − 1), a shape."""
    return cell_outline((0, n_columns - 1), (row, row), width=width)


def causal_mask(n: int) -> np.ndarray:
    """The look-ahead mask as an (n, n) bool matrix: True where query i may attend to key j ≤ i."""
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(n_tokens: int, n_pad: int) -> np.ndarray:
    """The padding mask of ``n_tokens`` real tokens followed by ``n_pad`` pads, as an (L, L) bool
    matrix (L = n_tokens + n_pad): True where a query may attend; no query attends to a pad."""
    allowed = np.ones((n_tokens + n_pad, n_tokens + n_pad), dtype=bool)
    allowed[:, n_tokens:] = False
    return allowed


def mask_figure(
    allowed: np.ndarray,
    key_tokens: Sequence[str],
    query_tokens: Sequence[str],
    *,
    title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    height: int | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """A mask as a matrix: light cells may be attended (+0 to the score), grey cells are
    blocked (+(−∞): softmax gives them exactly 0). Axis titles default to "key" and "query";
    hover words from ``texts`` (viz_core.texts)."""
    a = np.asarray(allowed, dtype=bool)
    n_q, n_k = a.shape
    x_labels, y_labels = _unique_labels(key_tokens), _unique_labels(query_tokens)
    fig = go.Figure(
        go.Heatmap(
            z=np.where(a, 0.0, 1.0),
            x=list(range(n_k)),
            y=list(range(n_q)),
            zmin=0,
            zmax=1,
            colorscale=[[0, ALLOWED], [0.5, ALLOWED], [0.5, MASKED], [1, MASKED]],
            showscale=False,
            xgap=2,
            ygap=2,
            text=[
                [
                    word(texts, "may_attend" if a[q, k] else "blocked", query=y_labels[q], key=x_labels[k])
                    for k in range(n_k)
                ]
                for q in range(n_q)
            ],
            hoverinfo="text",
        )
    )
    if n_q * n_k <= 400:  # "−∞" written in every blocked cell while it stays readable
        qs, ks = np.nonzero(~a)
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=qs,
                mode="text",
                text=["−∞"] * len(qs),
                hoverinfo="skip",
                textfont={"color": "white", "size": BASE_FONT_SIZE - 2},
                showlegend=False,
            )
        )
    heatmap_layout(
        fig,
        x_labels,
        y_labels,
        title=title,
        x_title=word(texts, "key") if x_title is None else x_title,
        y_title=word(texts, "query") if y_title is None else y_title,
        height=height or int(min(640, max(320, 190 + 30 * n_q))),
        max_ticks=60,
    )
    fig.update_xaxes(range=[-0.5, n_k - 0.5], automargin=True)
    fig.update_yaxes(range=[n_q - 0.5, -0.5], autorange=False, automargin=True)
    fig.update_layout(margin={"b": 90})
    return fig


def grid_figure(
    payload: GridPayload,
    selected: tuple[int, int] | None = None,
    title: str | None = None,
    height: int | None = None,
    target_width: int = 520,
    texts: Texts | None = None,
) -> go.Figure:
    """The layers × heads mosaic (one PNG, see viz_core.attention_grid) with projector fonts
    and the selected head outlined in orange; click a thumbnail to select it. Without
    ``height`` the figure is as tall as the mosaic needs to fill about ``target_width`` pixels;
    words from ``texts`` (viz_core.texts)."""
    top = 100 if title else 60
    if height is None:
        height = int(min(900, max(220, top + 20 + target_width * payload.height / max(1, payload.width))))
    fig = payload.figure(height=height, title=title, texts=texts)
    if selected is not None:
        layer, head = selected
        y, x = payload.cell_origin(layer, head)
        fig.add_shape(cell_outline((x - 1, x + payload.cell_w), (y - 1, y + payload.cell_h)))  # a pixel of air around
    fig.update_layout(clickmode="event+select")
    return fig


# --------------------------------------------------------------------------------------
# Inside one head
# --------------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return "−∞" if np.isneginf(x) else f"{x:.3f}"


def chain_table(
    key_tokens: Sequence[str],
    scores: np.ndarray,
    scaled: np.ndarray,
    allowed: np.ndarray,
    masked: np.ndarray,
    weights: np.ndarray,
    scale: float,
    use_scale: bool = True,
    texts: Texts | None = None,
) -> pd.DataFrame:
    """One row per key: q·kᵢ, ÷√d_k (or not), the mask's addend, + mask, softmax (column words
    from ``texts``, viz_core.texts)."""
    shown = scaled if use_scale else scores
    step_name = f"÷√d_k (÷{scale:.2f})" if use_scale else word(texts, "chain.no_scaling")
    mask = word(texts, "mask")
    return pd.DataFrame(
        {
            word(texts, "key"): [str(t) for t in key_tokens],
            "q·k": [f"{s:.3f}" for s in scores],
            step_name: [f"{s:.3f}" for s in shown],
            mask: ["+0" if a else "−∞" for a in allowed],
            f"+\u00a0{mask}": [_fmt(m) for m in masked],  # one header word: "+" never wraps alone
            "softmax": [f"{w:.4f}" for w in weights],
        }
    )


def chain_figure(
    key_tokens: Sequence[str],
    scores: np.ndarray,
    scaled: np.ndarray,
    allowed: np.ndarray,
    weights: np.ndarray,
    scale: float,
    use_scale: bool = True,
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Three bar rows over the keys: raw q·kᵢ, after ÷√d_k (or unscaled) with masked keys
    marked −∞, and the softmax weights (0 … 1); words from ``texts`` (viz_core.texts)."""
    labels = _unique_labels(key_tokens)
    x = list(range(len(labels)))
    a = np.asarray(allowed, dtype=bool)
    shown = np.asarray(scaled if use_scale else scores, dtype=float)
    second = word(texts, "chain.scaled", scale=scale) if use_scale else word(texts, "chain.unscaled")
    layout = subplot_grid(
        3,
        1,
        vertical_spacing=0.12,
        titles=("① q · kᵢ", second, word(texts, "chain.softmax")),
        shared_xaxes=True,
        title=title,
        height=620,
    )
    layout["showlegend"] = False
    layout["yaxis3"]["range"] = [0, 1.2]
    layout["xaxis3"].update(tick_axis(labels, plot_width(left_px=60, right_px=20)))
    return go.Figure(
        [
            go.Bar(
                x=x,
                y=scores,
                marker_color=SERIES_COLORS[7],
                hovertext=[f"{lab}: q·k = {s:.3f}" for lab, s in zip(labels, scores)],
                hoverinfo="text",
            ),
            go.Bar(
                x=x,
                y=np.where(a, shown, 0.0),
                marker_color=[SERIES_COLORS[0] if ok else MASKED for ok in a],
                text=["" if ok else "−∞" for ok in a],
                textposition="outside",
                xaxis="x2",
                yaxis="y2",
                hovertext=[
                    f"{lab}: {s:.3f}" if ok else word(texts, "chain.masked_hover", token=lab)
                    for lab, s, ok in zip(labels, shown, a)
                ],
                hoverinfo="text",
            ),
            go.Bar(
                x=x,
                y=weights,
                marker_color=HIGHLIGHT,
                xaxis="x3",
                yaxis="y3",
                text=[f"{w:.2f}" if w >= 0.01 else "" for w in weights],
                textposition="outside",
                hovertext=[word(texts, "chain.weight_hover", token=lab, weight=w) for lab, w in zip(labels, weights)],
                hoverinfo="text",
            ),
        ],
        layout=layout,
    )


def vectors_figure(
    q: np.ndarray,
    keys: np.ndarray,
    key_tokens: Sequence[str],
    query_token: str,
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """q (top row) and every key kᵢ (rows below) of one head as a signed heatmap over the d_k
    dimensions: q·kᵢ is large where their signs agree; words from ``texts`` (viz_core.texts)."""
    k = np.asarray(keys, dtype=float)
    z = np.vstack([np.asarray(q, dtype=float)[None, :], k])
    labels = [f"q: {safe_label(query_token)}"] + [f"k: {lab}" for lab in _unique_labels(key_tokens)]
    top = float(np.abs(z).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(z.shape[1])),
            y=list(range(z.shape[0])),
            zmid=0,
            zmin=-top,
            zmax=top,
            colorscale=SIGNED_COLORSCALE,
            colorbar=colorbar(word(texts, "value")),
            ygap=1,
            hovertemplate=word(texts, "dim_hover"),
        )
    )
    fig.add_shape(type="line", x0=-0.5, x1=z.shape[1] - 0.5, y0=0.5, y1=0.5, line={"color": "black", "width": 3})
    heatmap_layout(
        fig,
        None,
        labels,
        title=title,
        x_title=word(texts, "head_dims"),
        height=int(min(700, max(300, 130 + 26 * z.shape[0]))),
        max_ticks=60,
    )
    return fig


def head_output_figure(output: np.ndarray, title: str | None = None, texts: Texts | None = None) -> go.Figure:
    """One head's output vector Σ αᵢ vᵢ as bars over its dimensions (axis word from ``texts``)."""
    fig = go.Figure(go.Bar(x=list(range(len(output))), y=output, marker_color=SERIES_COLORS[1]))
    base_layout(fig, title=title, height=320, x_title=word(texts, "dimension"))
    return fig


def entropy(weights: np.ndarray) -> float:
    """Shannon entropy in bits of a weight vector (0 = all on one key)."""
    w = np.asarray(weights, dtype=float)
    w = w[w > 0]
    return float(-(w * np.log2(w)).sum())


# --------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------


def next_token_figure(
    tokens: Sequence[str],
    model_probs: np.ndarray,
    sampling_probs: np.ndarray,
    chosen: str | None = None,
    title: str | None = None,
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """The model's most probable next tokens (grey) and the distribution actually sampled after
    temperature and top-k (blue; the chosen token orange), most likely on top; legend and hover
    words from ``texts`` (viz_core.texts); the title wrapped to ``width`` px (default: a half column)."""
    labels = [safe_label(t) for t in tokens]
    y = list(range(len(labels)))
    traces = [
        go.Bar(
            x=model_probs,
            y=y,
            orientation="h",
            name=word(texts, "gen.model"),
            offsetgroup="model",
            marker_color="#c5cbd3",
            hovertext=[f"{lab}: p = {p:.4f}" for lab, p in zip(labels, model_probs)],
            hoverinfo="text",
        )
    ]
    sampled = np.asarray(sampling_probs, dtype=float)
    is_chosen = np.array([t == chosen for t in tokens], dtype=bool)
    top = float(max(np.max(model_probs, initial=0), np.max(sampled, initial=0)))
    x_max = min(1.25, top * 1.3 + 0.05)
    # Values at the axis font: inside a long bar, beside a short one (plotly's "auto" shrank them to the
    # bar's thickness, about 8 px in a slot shared with the model's bar)
    where = ["inside" if p > 0.5 * x_max else "outside" for p in sampled]
    # The chosen token is its own (orange) trace in the same bar slot, so the legend shows both colours.
    for name, keep, color in (
        (word(texts, "gen.sampled"), ~is_chosen, SERIES_COLORS[0]),
        (word(texts, "gen.chosen"), is_chosen, HIGHLIGHT),
    ):
        if not keep.any():
            continue
        traces.append(
            go.Bar(
                x=np.where(keep, sampled, np.nan),
                y=y,
                orientation="h",
                name=name,
                marker_color=color,
                offsetgroup="sampled",
                text=[f"{p:.1%}" if k else "" for p, k in zip(sampled, keep)],
                textposition=where,
                insidetextanchor="end",
                constraintext="none",
                textfont={"size": TICK_FONT_SIZE},
                cliponaxis=False,
                hovertext=[word(texts, "gen.sampled_hover", token=lab, p=p) for lab, p in zip(labels, sampled)],
                hoverinfo="text",
            )
        )
    fig = go.Figure(data=traces)
    base_layout(fig, title=title, height=170 + 42 * len(labels), width=width)
    # Ticks stop at 100%: the room to the right is for the value text (beside short bars).
    ticks = (0, 0.25, 0.5, 0.75, 1.0) if top > 0.3 else (0, 0.1, 0.2, 0.3)
    set_layout(  # one validation (each update_layout, update_xaxes … took as long as the whole layout)
        fig,
        {
            "barmode": "group",
            "bargap": 0.25,
            "legend": LEGEND_BELOW,
            # the left margin planned: each step's tokens differ (labels_margin)
            "yaxis": {
                "tickmode": "array",
                "tickvals": y,
                "ticktext": labels,
                "autorange": "reversed",
                "automargin": False,
            },
            "margin": {"l": labels_margin(labels)},
            "xaxis": {
                "range": [0, x_max],
                "tickformat": ".0%",
                "tickmode": "array",
                "tickvals": [v for v in ticks if v <= x_max],
            },
        },
    )
    return fig


def attention_row_bars(
    weights: np.ndarray,
    tokens: Sequence[str],
    unknown: Sequence[bool] | None = None,
    title: str | None = None,
    highlight_last: bool = True,
    texts: Texts | None = None,
) -> go.Figure:
    """One query's attention over the tokens so far, as bars (the query = the last token); hover
    and axis words from ``texts`` (viz_core.texts)."""
    labels = _unique_labels(tokens, unknown)
    w = np.asarray(weights, dtype=float)
    colors = [SERIES_COLORS[0]] * len(w)
    if highlight_last and colors:
        colors[-1] = HIGHLIGHT
    fig = go.Figure(
        go.Bar(
            x=list(range(len(w))),
            y=w,
            marker_color=colors,
            text=[f"{v:.2f}" if v >= 0.05 else "" for v in w],
            textposition="outside",
            hovertext=[word(texts, "chain.weight_hover", token=lab, weight=v) for lab, v in zip(labels, w)],
            hoverinfo="text",
        )
    )
    base_layout(fig, title=title, height=320)
    fig.update_xaxes(tick_axis(labels, plot_width(left_px=80, right_px=20)))
    fig.update_yaxes(range=[0, 1.15], title={"text": word(texts, "weight")})
    return fig
