"""Figures for "Attention from scratch": arrays and labels in, plotly figures or frames out.

No Streamlit and no torch here; colours and fonts come from ``viz_core.style``; the words a figure
draws come from ``texts`` (viz_core.texts, English without it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.style import (
    attention_scale,
    BASE_FONT_SIZE,
    LEGEND_BELOW,
    LINE_EM,
    SERIES_COLORS,
    SIGNED_COLORSCALE,
    axis_style,
    base_layout,
    cell_outline,
    colorbar,
    heatmap_layout,
    labels_margin,
    layout_dict,
    legend_below,
)
from viz_core.texts import TEXTS, Texts, word

KERNEL_COLORS = {"average": SERIES_COLORS[1], "gaussian": SERIES_COLORS[0], "parametric": SERIES_COLORS[2]}
SCORE_COLORS = dict(zip(("dot", "scaled dot", "general", "additive", "cosine"), SERIES_COLORS))
LAYER_COLORS = dict(zip(("Self-attention", "GRU", "Conv1d"), SERIES_COLORS))
MASKED_COLOR = "#9e9e9e"
#: The words of the per-layer complexity table (models.lessons.complexity.COMPLEXITY_TABLE) and of
#: the layers timed, by their English: viz_core.texts ids.
_CX_WORDS = {
    "Layer": "fd.cx.layer",
    "Complexity per layer": "fd.cx.complexity",
    "Sequential operations": "fd.cx.sequential",
    "Maximum path length": "fd.cx.path",
    "Self-attention": "fd.cx.self_attention",
    "Recurrent (GRU)": "fd.cx.recurrent",
    "Convolutional (Conv1d, kernel k)": "fd.cx.convolutional",
    "Self-attention, restricted to r neighbours": "fd.cx.restricted",
    "O(log_k n) dilated, O(n/k) plain": "fd.cx.conv_path",
}


def score_name(name: str, texts: Texts | None = None) -> str:
    """A score function's name (models.lessons.sandbox.SCORE_NAMES) in the language of ``texts``."""
    key = f"fd.score.{name.replace(' ', '_')}"
    return word(texts, key) if key in TEXTS else name


def complexity_word(text: str, texts: Texts | None = None) -> str:
    """A header, layer name or entry of the complexity table and timings in the language of ``texts``
    (formulas such as O(n²·d) and names such as GRU stay as they are)."""
    return word(texts, _CX_WORDS[text]) if text in _CX_WORDS else text


# ----------------------------------------------------------------------- generic heatmaps


def _fmt(values: np.ndarray, digits: int) -> np.ndarray:
    return np.vectorize(lambda v: f"{v:.{digits}f}".replace("-", "−"))(values)


def weights_heatmap(
    weights: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    zmax: float | None = 1.0,
    annotate: bool = False,
    digits: int = 2,
    height: int | None = None,
    max_ticks: int = 30,
    texts: Texts | None = None,
) -> go.Figure:
    """Attention weights (rows: queries, columns: keys) on the app's one weight colour scale,
    0 to 1; ``zmax=None`` shades relative to the largest weight shown, and the colour bar says so."""
    w = np.asarray(weights, dtype=np.float32)
    if zmax is None:
        shade = attention_scale(float(np.nanmax(w)), word(texts, "fd.largest_shown"), texts=texts)
    else:
        shade = attention_scale(zmax, None if zmax == 1.0 else word(texts, "chosen_max"), texts=texts)
    trace = go.Heatmap(z=w, **shade, hovertemplate=word(texts, "fd.weight_hover"))
    if annotate:
        trace.update(text=_fmt(w, digits), texttemplate="%{text}", textfont={"size": BASE_FONT_SIZE})
    fig = go.Figure(trace)
    return heatmap_layout(
        fig,
        x_labels,
        y_labels,
        title,
        x_title,
        y_title,
        height=height or _auto_height(len(y_labels)),
        max_ticks=max_ticks,
    )


def matrix_heatmap(
    values: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    title: str | None = None,
    masked: np.ndarray | None = None,
    annotate: bool = True,
    digits: int = 2,
    height: int | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Signed numbers (scores, outputs) on the blue–white–red scale, 0 white; ``masked`` cells grey
    and labelled −∞."""
    z = np.array(values, dtype=np.float64)
    hidden = np.zeros_like(z, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    z[hidden] = np.nan
    finite = z[np.isfinite(z)]
    bound = float(np.abs(finite).max()) if finite.size and np.abs(finite).max() > 0 else 1.0
    trace = go.Heatmap(
        z=z.astype(np.float32),
        zmin=-bound,
        zmax=bound,
        zmid=0.0,
        colorscale=SIGNED_COLORSCALE,
        colorbar=colorbar(),
        hovertemplate=word(texts, "fd.cell_hover"),
    )
    if annotate:
        text = _fmt(np.nan_to_num(z), digits)
        text[hidden] = ""
        trace.update(text=text, texttemplate="%{text}", textfont={"size": BASE_FONT_SIZE})
    fig = go.Figure(trace)
    if hidden.any():
        rows, cols = np.nonzero(hidden)
        fig.add_trace(
            go.Heatmap(
                z=np.where(hidden, 1.0, np.nan).astype(np.float32),
                colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
                showscale=False,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=cols,
                y=rows,
                mode="text",
                text=["−∞"] * len(rows),
                textfont={"size": BASE_FONT_SIZE, "color": "white"},
                hoverinfo="skip",
                showlegend=False,
            )
        )
    return heatmap_layout(
        fig, x_labels, y_labels, title, x_title, y_title, height=height or _auto_height(len(y_labels))
    )


def _auto_height(n_rows: int) -> int:
    return int(min(600, max(280, 150 + 60 * n_rows)))


def qkv_step_figures(
    scores: np.ndarray,
    scaled: np.ndarray,
    allowed: np.ndarray,
    weights: np.ndarray,
    v: np.ndarray,
    output: np.ndarray,
    d_k: int,
    texts: Texts | None = None,
) -> list[go.Figure]:
    """Every step of softmax(QKᵀ/√d_k + mask)·V as a matrix, in reading order: QKᵀ, ÷ √d_k,
    + mask, softmax, V, output (queries q1 …, keys k1 …, value dimensions dim 1 …)."""
    q_labels = [f"q{i + 1}" for i in range(scores.shape[0])]
    k_labels = [f"k{j + 1}" for j in range(scores.shape[1])]
    v_labels = [word(texts, "fd.dim", j=j + 1) for j in range(v.shape[1])]
    return [
        matrix_heatmap(scores, k_labels, q_labels, title="1 · QKᵀ", texts=texts),
        matrix_heatmap(scaled, k_labels, q_labels, title=f"2 · ÷ √d_k = ÷ {np.sqrt(d_k):.2f}", texts=texts),
        matrix_heatmap(scaled, k_labels, q_labels, masked=~allowed, title=word(texts, "fd.step_mask"), texts=texts),
        weights_heatmap(weights, k_labels, q_labels, annotate=True, title=word(texts, "fd.step_softmax"), texts=texts),
        matrix_heatmap(v, v_labels, k_labels, title="V", texts=texts),
        matrix_heatmap(output, v_labels, q_labels, title=word(texts, "fd.step_output"), texts=texts),
    ]


# --------------------------------------------------------------------- kernel regression


def kernel_fit_figure(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_true: np.ndarray,
    fits: Mapping[str, tuple[str, np.ndarray]],
    highlight: str | None = None,
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Training points, the true f and one curve per method; ``fits[key] = (label, ŷ)``, ``key`` in
    ``KERNEL_COLORS``. The highlighted method is drawn thick, the others thin."""
    traces = [
        go.Scatter(
            x=x_train,
            y=y_train,
            mode="markers",
            name=word(texts, "fd.train_data"),
            marker={"size": 9, "color": "rgba(90,90,90,0.55)"},
        ),
        go.Scatter(
            x=x_test,
            y=y_true,
            mode="lines",
            name=word(texts, "fd.true_f"),
            line={"color": "black", "dash": "dash", "width": 2},
        ),
    ]
    for key, (label, y_hat) in fits.items():
        thick = highlight is None or key == highlight
        traces.append(
            go.Scatter(
                x=x_test,
                y=y_hat,
                mode="lines",
                name=label,
                line={"color": KERNEL_COLORS.get(key, SERIES_COLORS[3]), "width": 5 if thick else 2},
                opacity=1.0 if thick else 0.55,
            )
        )
    layout = layout_dict(title, 500, x_title=word(texts, "fd.x_query"), y_title="y")
    layout["legend"] = dict(LEGEND_BELOW)
    return go.Figure(traces, layout=layout)


def loss_figure(
    loss: np.ndarray, w_history: np.ndarray, title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """Training loss and w against the SGD step, on two y axes (the loss left, w right), built as
    one layout. Their margins are planned for the tick labels (two decimals) and the axis titles
    instead of found by automargin, with which plotly drew the figure twice at every resample."""
    layout = layout_dict(title, 300, x_title=word(texts, "fd.sgd_step"), y_title=word(texts, "fd.loss"))
    layout["yaxis"].update(tickformat=".2f", automargin=False)
    layout["yaxis2"] = dict(
        axis_style("w"), overlaying="y", side="right", tickformat=".2f", showgrid=False, automargin=False
    )
    title_px = LINE_EM * BASE_FONT_SIZE

    def side(values: np.ndarray) -> float:
        return title_px + labels_margin([f"{v:.2f}" for v in (np.min(values, initial=0), np.max(values, initial=0))])

    layout["margin"].update(l=side(loss), r=side(w_history))
    layout["legend"] = dict(LEGEND_BELOW)
    return go.Figure(
        [
            go.Scatter(
                x=np.arange(1, len(loss) + 1),
                y=loss,
                name=word(texts, "fd.loss"),
                line={"color": SERIES_COLORS[3], "width": 3},
            ),
            go.Scatter(
                x=np.arange(len(w_history)),
                y=w_history,
                name="w",
                yaxis="y2",
                line={"color": KERNEL_COLORS["parametric"], "width": 3},
            ),
        ],
        layout=layout,
    )


# ----------------------------------------------------------------------- score functions


def vectors_figure(
    query: np.ndarray, keys: np.ndarray, key_labels: Sequence[str], title: str | None = None
) -> go.Figure:
    """The query and the keys as arrows from the origin in the plane (equal axis scales)."""
    fig = go.Figure()
    pts = np.vstack([np.zeros(2), query, keys])
    lim = float(np.abs(pts).max()) * 1.25 + 0.1
    for vec, label, color in [(k, lab, SERIES_COLORS[0]) for k, lab in zip(keys, key_labels)] + [
        (query, "q", SERIES_COLORS[3])
    ]:  # the query last, on top
        fig.add_annotation(
            x=vec[0],
            y=vec[1],
            ax=0,
            ay=0,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowwidth=4 if label == "q" else 3,
            arrowcolor=color,
            text="",
        )
        fig.add_trace(
            go.Scatter(
                x=[vec[0]],
                y=[vec[1]],
                mode="markers+text",
                text=[label],
                textposition="top center",
                showlegend=False,
                marker={"size": 10, "color": color},
                textfont={"size": BASE_FONT_SIZE + 2, "color": color},
                hovertemplate=f"{label} = (%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
            )
        )
    base_layout(fig, title=title, height=420)
    fig.update_xaxes(range=[-lim, lim], zeroline=True, zerolinecolor="#bbb")
    fig.update_yaxes(range=[-lim, lim], zeroline=True, zerolinecolor="#bbb", scaleanchor="x", scaleratio=1)
    return fig


def score_bars_figure(
    names: Sequence[str],
    key_labels: Sequence[str],
    weights: np.ndarray,
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Softmax weights per key, one bar colour per score function."""
    fig = go.Figure()
    for name, row in zip(names, np.asarray(weights)):
        shown = score_name(name, texts)
        fig.add_trace(
            go.Bar(
                x=list(key_labels),
                y=row,
                name=shown,
                marker_color=SCORE_COLORS.get(name, SERIES_COLORS[5]),
                hovertemplate=f"{shown}, %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    base_layout(fig, title=title, height=460, y_title=word(texts, "fd.softmax_weight"))
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, 1])
    return legend_below(fig)


def score_table(
    names: Sequence[str], key_labels: Sequence[str], scores: np.ndarray, weights: np.ndarray, texts: Texts | None = None
) -> pd.DataFrame:
    """One row per score function (named in the language of ``texts``): the score e and the weight α
    for every key."""
    data = {}
    for j, key in enumerate(key_labels):
        data[f"e({key})"] = np.asarray(scores)[:, j]
        data[f"α({key})"] = np.asarray(weights)[:, j]
    return pd.DataFrame(data, index=[score_name(n, texts) for n in names]).round(3)


def saturation_figure(
    dims: np.ndarray,
    max_dot: np.ndarray,
    max_scaled: np.ndarray,
    grad_dot: np.ndarray,
    grad_scaled: np.ndarray,
    chosen: int | None = None,
    n_keys: int | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Largest softmax weight and softmax-gradient size against d, unscaled against ÷√d."""
    largest = word(texts, "fd.sat.largest") if n_keys is None else word(texts, "fd.sat.largest_uniform", n=n_keys)
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(largest, word(texts, "fd.sat.gradient"))
    )
    for col, (a, b) in enumerate([(max_dot, max_scaled), (grad_dot, grad_scaled)], start=1):
        fig.add_trace(
            go.Scatter(
                x=dims,
                y=a,
                name=word(texts, "fd.sat.dot"),
                mode="lines+markers",
                line={"color": SCORE_COLORS["dot"], "width": 3},
                showlegend=col == 1,
            ),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Scatter(
                x=dims,
                y=b,
                name=word(texts, "fd.sat.scaled"),
                mode="lines+markers",
                line={"color": SCORE_COLORS["scaled dot"], "width": 3},
                showlegend=col == 1,
            ),
            row=1,
            col=col,
        )
        if chosen is not None:
            fig.add_vline(x=chosen, line={"color": "#888", "dash": "dot"}, row=1, col=col)
    ticks = [int(d) for d in dims][::2]
    fig.update_xaxes(type="log", title_text=word(texts, "fd.sat.d"), tickvals=ticks, ticktext=[str(d) for d in ticks])
    fig.update_yaxes(rangemode="tozero")
    base_layout(fig, height=430)
    fig.update_annotations(font={"size": BASE_FONT_SIZE + 2})
    return legend_below(fig)


def example_weights_figure(dot: np.ndarray, scaled: np.ndarray, d: int, texts: Texts | None = None) -> go.Figure:
    """One random draw at dimension d: the softmax weights with and without ÷√d."""
    keys = [f"k{i + 1}" for i in range(len(dot))]
    fig = go.Figure(
        [
            go.Bar(x=keys, y=dot, name=score_name("dot", texts), marker_color=SCORE_COLORS["dot"]),
            go.Bar(x=keys, y=scaled, name=score_name("scaled dot", texts), marker_color=SCORE_COLORS["scaled dot"]),
        ]
    )
    base_layout(fig, title=word(texts, "fd.one_draw", d=d), height=400, y_title=word(texts, "fd.weight_alpha"))
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, 1])
    return legend_below(fig)


# --------------------------------------------------------------------- soft, hard, local


def soft_hard_local_figure(
    tokens: Sequence[str],
    soft: np.ndarray,
    hard: np.ndarray,
    local_m: np.ndarray,
    local_p: np.ndarray,
    window: np.ndarray,
    texts: Texts | None = None,
) -> go.Figure:
    """Four rows of weights over the same source tokens; the local window outlined on both local rows."""
    w = np.vstack([soft, hard, local_m, local_p])
    rows = [word(texts, f"fd.shl.{alignment}") for alignment in ("soft", "hard", "local_m", "local_p")]
    fig = weights_heatmap(
        w, list(tokens), rows, annotate=True, height=400, x_title=word(texts, "fd.shl.x"), max_ticks=40, texts=texts
    )
    inside = np.nonzero(window)[0]
    if inside.size:
        fig.add_shape(cell_outline((inside[0], inside[-1]), (2, 3), color=SERIES_COLORS[3]))
    return fig


# ------------------------------------------------------------------------- complexity


def complexity_table(rows: Sequence[Mapping[str, str]], texts: Texts | None = None) -> pd.DataFrame:
    """The per-layer complexity table, indexed by layer; its words in the language of ``texts``."""
    table = [{complexity_word(k, texts): complexity_word(v, texts) for k, v in row.items()} for row in rows]
    return pd.DataFrame(table).set_index(complexity_word("Layer", texts))


def timing_figure(
    lengths: np.ndarray, seconds: Mapping[str, np.ndarray], title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """Forward time against sequence length, log–log, one curve per layer."""
    fig = go.Figure()
    for layer, secs in seconds.items():
        name = complexity_word(layer, texts)
        fig.add_trace(
            go.Scatter(
                x=lengths,
                y=np.asarray(secs) * 1000.0,
                name=name,
                mode="lines+markers",
                line={"color": LAYER_COLORS.get(layer, SERIES_COLORS[4]), "width": 3},
                marker={"size": 9},
                hovertemplate=f"{name}, n = %{{x}}: %{{y:.3f}} ms<extra></extra>",
            )
        )
    base_layout(fig, title=title, height=480, x_title=word(texts, "fd.cx.length"), y_title=word(texts, "fd.cx.time"))
    fig.update_xaxes(type="log", tickvals=list(lengths), ticktext=[str(n) for n in lengths])
    fig.update_yaxes(type="log", dtick=1)  # label powers of ten only
    return legend_below(fig)
