"""Figures for "Attention from scratch": arrays and labels in, plotly figures or frames out.

No Streamlit and no torch here; colours and fonts come from ``viz_core.style``.
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
    SERIES_COLORS,
    SIGNED_COLORSCALE,
    base_layout,
    colorbar,
    heatmap_layout,
    legend_below,
)

KERNEL_COLORS = {"average": SERIES_COLORS[1], "gaussian": SERIES_COLORS[0],
                 "parametric": SERIES_COLORS[2]}
SCORE_COLORS = dict(zip(("dot", "scaled dot", "general", "additive", "cosine"), SERIES_COLORS))
LAYER_COLORS = dict(zip(("Self-attention", "GRU", "Conv1d"), SERIES_COLORS))
MASKED_COLOR = "#9e9e9e"


# ----------------------------------------------------------------------- generic heatmaps

def _fmt(values: np.ndarray, digits: int) -> np.ndarray:
    return np.vectorize(lambda v: f"{v:.{digits}f}".replace("-", "−"))(values)


def weights_heatmap(weights: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str],
                    title: str | None = None, x_title: str | None = None,
                    y_title: str | None = None, zmax: float | None = 1.0, annotate: bool = False,
                    digits: int = 2, height: int | None = None, max_ticks: int = 30) -> go.Figure:
    """Attention weights (rows: queries, columns: keys) on the app's one weight colour scale,
    0 to 1; ``zmax=None`` shades relative to the largest weight shown, and the colour bar says so."""
    w = np.asarray(weights, dtype=np.float32)
    if zmax is None:
        shade = attention_scale(float(np.nanmax(w)), "the largest weight shown")
    else:
        shade = attention_scale(zmax, None if zmax == 1.0 else "the chosen maximum")
    trace = go.Heatmap(z=w, **shade,
                       hovertemplate="query %{y}, key %{x}: %{z:.3f}<extra></extra>")
    if annotate:
        trace.update(text=_fmt(w, digits), texttemplate="%{text}",
                     textfont={"size": BASE_FONT_SIZE})
    fig = go.Figure(trace)
    return heatmap_layout(fig, x_labels, y_labels, title, x_title, y_title,
                          height=height or _auto_height(len(y_labels)), max_ticks=max_ticks)


def matrix_heatmap(values: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str],
                   title: str | None = None, masked: np.ndarray | None = None,
                   annotate: bool = True, digits: int = 2, height: int | None = None,
                   x_title: str | None = None, y_title: str | None = None) -> go.Figure:
    """Signed numbers (scores, outputs) on the blue–white–red scale, 0 white; ``masked`` cells grey
    and labelled −∞."""
    z = np.array(values, dtype=np.float64)
    hidden = np.zeros_like(z, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    z[hidden] = np.nan
    finite = z[np.isfinite(z)]
    bound = float(np.abs(finite).max()) if finite.size and np.abs(finite).max() > 0 else 1.0
    trace = go.Heatmap(z=z.astype(np.float32), zmin=-bound, zmax=bound, zmid=0.0,
                       colorscale=SIGNED_COLORSCALE, colorbar=colorbar(),
                       hovertemplate="row %{y}, column %{x}: %{z:.3f}<extra></extra>")
    if annotate:
        text = _fmt(np.nan_to_num(z), digits)
        text[hidden] = ""
        trace.update(text=text, texttemplate="%{text}", textfont={"size": BASE_FONT_SIZE})
    fig = go.Figure(trace)
    if hidden.any():
        rows, cols = np.nonzero(hidden)
        fig.add_trace(go.Heatmap(z=np.where(hidden, 1.0, np.nan).astype(np.float32),
                                 colorscale=[[0, MASKED_COLOR], [1, MASKED_COLOR]],
                                 showscale=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=cols, y=rows, mode="text", text=["−∞"] * len(rows),
                                 textfont={"size": BASE_FONT_SIZE, "color": "white"},
                                 hoverinfo="skip", showlegend=False))
    return heatmap_layout(fig, x_labels, y_labels, title, x_title, y_title,
                          height=height or _auto_height(len(y_labels)))


def _auto_height(n_rows: int) -> int:
    return int(min(600, max(280, 150 + 60 * n_rows)))


def qkv_step_figures(scores: np.ndarray, scaled: np.ndarray, allowed: np.ndarray, weights: np.ndarray,
                     v: np.ndarray, output: np.ndarray, d_k: int) -> list[go.Figure]:
    """Every step of softmax(QKᵀ/√d_k + mask)·V as a matrix, in reading order: QKᵀ, ÷ √d_k,
    + mask, softmax, V, output (queries q1 …, keys k1 …, value dimensions dim 1 …)."""
    q_labels = [f"q{i + 1}" for i in range(scores.shape[0])]
    k_labels = [f"k{j + 1}" for j in range(scores.shape[1])]
    v_labels = [f"dim {j + 1}" for j in range(v.shape[1])]
    return [
        matrix_heatmap(scores, k_labels, q_labels, title="1 · QKᵀ"),
        matrix_heatmap(scaled, k_labels, q_labels, title=f"2 · ÷ √d_k = ÷ {np.sqrt(d_k):.2f}"),
        matrix_heatmap(scaled, k_labels, q_labels, masked=~allowed, title="3 · + mask (−∞)"),
        weights_heatmap(weights, k_labels, q_labels, annotate=True, title="4 · softmax over each row"),
        matrix_heatmap(v, v_labels, k_labels, title="V"),
        matrix_heatmap(output, v_labels, q_labels, title="5 · weights · V = output"),
    ]


# --------------------------------------------------------------------- kernel regression

def kernel_fit_figure(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray,
                      y_true: np.ndarray, fits: Mapping[str, tuple[str, np.ndarray]],
                      highlight: str | None = None, title: str | None = None) -> go.Figure:
    """Training points, the true f and one curve per method; ``fits[key] = (label, ŷ)``, ``key`` in
    ``KERNEL_COLORS``. The highlighted method is drawn thick, the others thin."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x_train, y=y_train, mode="markers", name="training data (xᵢ, yᵢ)",
                             marker={"size": 9, "color": "rgba(90,90,90,0.55)"}))
    fig.add_trace(go.Scatter(x=x_test, y=y_true, mode="lines", name="true f(x)",
                             line={"color": "black", "dash": "dash", "width": 2}))
    for key, (label, y_hat) in fits.items():
        thick = highlight is None or key == highlight
        fig.add_trace(go.Scatter(x=x_test, y=y_hat, mode="lines", name=label,
                                 line={"color": KERNEL_COLORS.get(key, SERIES_COLORS[3]),
                                       "width": 5 if thick else 2},
                                 opacity=1.0 if thick else 0.55))
    base_layout(fig, title=title, height=500, x_title="x (query)", y_title="y")
    return legend_below(fig)


def loss_figure(loss: np.ndarray, w_history: np.ndarray, title: str | None = None) -> go.Figure:
    """Training loss and w against the SGD step, on two y axes."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    steps = np.arange(1, len(loss) + 1)
    fig.add_trace(go.Scatter(x=steps, y=loss, name="loss", line={"color": SERIES_COLORS[3],
                                                                 "width": 3}), secondary_y=False)
    fig.add_trace(go.Scatter(x=np.arange(len(w_history)), y=w_history, name="w",
                             line={"color": KERNEL_COLORS["parametric"], "width": 3}),
                  secondary_y=True)
    base_layout(fig, title=title, height=300, x_title="SGD step")
    fig.update_yaxes(title_text="loss", secondary_y=False)
    fig.update_yaxes(title_text="w", secondary_y=True, tickformat=".2f", showgrid=False)
    return legend_below(fig)


# ----------------------------------------------------------------------- score functions

def vectors_figure(query: np.ndarray, keys: np.ndarray, key_labels: Sequence[str],
                   title: str | None = None) -> go.Figure:
    """The query and the keys as arrows from the origin in the plane (equal axis scales)."""
    fig = go.Figure()
    pts = np.vstack([np.zeros(2), query, keys])
    lim = float(np.abs(pts).max()) * 1.25 + 0.1
    for vec, label, color in [(k, lab, SERIES_COLORS[0]) for k, lab in zip(keys, key_labels)] + [
            (query, "q", SERIES_COLORS[3])]:  # the query last, on top
        fig.add_annotation(x=vec[0], y=vec[1], ax=0, ay=0, xref="x", yref="y", axref="x",
                           ayref="y", showarrow=True, arrowhead=3,
                           arrowwidth=4 if label == "q" else 3, arrowcolor=color, text="")
        fig.add_trace(go.Scatter(x=[vec[0]], y=[vec[1]], mode="markers+text", text=[label],
                                 textposition="top center", showlegend=False,
                                 marker={"size": 10, "color": color},
                                 textfont={"size": BASE_FONT_SIZE + 2, "color": color},
                                 hovertemplate=f"{label} = (%{{x:.2f}}, %{{y:.2f}})<extra></extra>"))
    base_layout(fig, title=title, height=420)
    fig.update_xaxes(range=[-lim, lim], zeroline=True, zerolinecolor="#bbb")
    fig.update_yaxes(range=[-lim, lim], zeroline=True, zerolinecolor="#bbb",
                     scaleanchor="x", scaleratio=1)
    return fig


def score_bars_figure(names: Sequence[str], key_labels: Sequence[str], weights: np.ndarray,
                      title: str | None = None) -> go.Figure:
    """Softmax weights per key, one bar colour per score function."""
    fig = go.Figure()
    for name, row in zip(names, np.asarray(weights)):
        fig.add_trace(go.Bar(x=list(key_labels), y=row, name=name,
                             marker_color=SCORE_COLORS.get(name, SERIES_COLORS[5]),
                             hovertemplate=f"{name}, %{{x}}: %{{y:.3f}}<extra></extra>"))
    base_layout(fig, title=title, height=460, y_title="softmax weight α")
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, 1])
    return legend_below(fig)


def score_table(names: Sequence[str], key_labels: Sequence[str], scores: np.ndarray,
                weights: np.ndarray) -> pd.DataFrame:
    """One row per score function: the score e and the weight α for every key."""
    data = {}
    for j, key in enumerate(key_labels):
        data[f"e({key})"] = np.asarray(scores)[:, j]
        data[f"α({key})"] = np.asarray(weights)[:, j]
    return pd.DataFrame(data, index=list(names)).round(3)


def saturation_figure(dims: np.ndarray, max_dot: np.ndarray, max_scaled: np.ndarray,
                      grad_dot: np.ndarray, grad_scaled: np.ndarray, chosen: int | None = None,
                      n_keys: int | None = None) -> go.Figure:
    """Largest softmax weight and softmax-gradient size against d, unscaled against ÷√d."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(
        f"largest weight max αᵢ{'' if n_keys is None else f' (uniform: 1/{n_keys})'}",
        "softmax gradient size"))
    for col, (a, b) in enumerate([(max_dot, max_scaled), (grad_dot, grad_scaled)], start=1):
        fig.add_trace(go.Scatter(x=dims, y=a, name="dot qᵀk", mode="lines+markers",
                                 line={"color": SCORE_COLORS["dot"], "width": 3},
                                 showlegend=col == 1), row=1, col=col)
        fig.add_trace(go.Scatter(x=dims, y=b, name="scaled qᵀk / √d", mode="lines+markers",
                                 line={"color": SCORE_COLORS["scaled dot"], "width": 3},
                                 showlegend=col == 1), row=1, col=col)
        if chosen is not None:
            fig.add_vline(x=chosen, line={"color": "#888", "dash": "dot"}, row=1, col=col)
    ticks = [int(d) for d in dims][::2]
    fig.update_xaxes(type="log", title_text="dimension d", tickvals=ticks,
                     ticktext=[str(d) for d in ticks])
    fig.update_yaxes(rangemode="tozero")
    base_layout(fig, height=430)
    fig.update_annotations(font={"size": BASE_FONT_SIZE + 2})
    return legend_below(fig)


def example_weights_figure(dot: np.ndarray, scaled: np.ndarray, d: int) -> go.Figure:
    """One random draw at dimension d: the softmax weights with and without ÷√d."""
    keys = [f"k{i + 1}" for i in range(len(dot))]
    fig = go.Figure([
        go.Bar(x=keys, y=dot, name="dot", marker_color=SCORE_COLORS["dot"]),
        go.Bar(x=keys, y=scaled, name="scaled dot", marker_color=SCORE_COLORS["scaled dot"]),
    ])
    base_layout(fig, title=f"One random draw at d = {d}", height=400, y_title="weight α")
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, 1])
    return legend_below(fig)


# --------------------------------------------------------------------- soft, hard, local

def soft_hard_local_figure(tokens: Sequence[str], soft: np.ndarray, hard: np.ndarray, local_m: np.ndarray,
                           local_p: np.ndarray, window: np.ndarray) -> go.Figure:
    """Four rows of weights over the same source tokens; the local window outlined on both local rows."""
    w = np.vstack([soft, hard, local_m, local_p])
    fig = weights_heatmap(w, list(tokens), ["soft", "hard", "local-m", "local-p"], annotate=True,
                          height=400, x_title="source token", max_ticks=40)
    inside = np.nonzero(window)[0]
    if inside.size:
        fig.add_shape(type="rect", x0=inside[0] - 0.5, x1=inside[-1] + 0.5, y0=1.5, y1=3.5,
                      line={"color": SERIES_COLORS[3], "width": 4})
    return fig


# ------------------------------------------------------------------------- complexity

def complexity_table(rows: Sequence[Mapping[str, str]]) -> pd.DataFrame:
    """The per-layer complexity table, indexed by layer."""
    return pd.DataFrame(list(rows)).set_index("Layer")


def timing_figure(lengths: np.ndarray, seconds: Mapping[str, np.ndarray],
                  title: str | None = None) -> go.Figure:
    """Forward time against sequence length, log–log, one curve per layer."""
    fig = go.Figure()
    for name, secs in seconds.items():
        fig.add_trace(go.Scatter(x=lengths, y=np.asarray(secs) * 1000.0, name=name,
                                 mode="lines+markers",
                                 line={"color": LAYER_COLORS.get(name, SERIES_COLORS[4]),
                                       "width": 3}, marker={"size": 9},
                                 hovertemplate=f"{name}, n = %{{x}}: %{{y:.3f}} ms<extra></extra>"))
    base_layout(fig, title=title, height=480, x_title="sequence length n",
                y_title="forward time (ms)")
    fig.update_xaxes(type="log", tickvals=list(lengths), ticktext=[str(n) for n in lengths])
    fig.update_yaxes(type="log", dtick=1)  # label powers of ten only
    return legend_below(fig)
