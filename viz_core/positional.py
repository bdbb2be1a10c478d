"""Figures for "Positional encoding": arrays in, plotly figures and tables out (no Streamlit, no torch)."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.style import (
    BASE_FONT_SIZE,
    SERIES_COLORS,
    SIGNED_COLORSCALE,
    base_layout,
    colorbar,
    heatmap_layout,
    legend_below,
)

SCHEME_COLORS = dict(zip(("Learned (absolute)", "Sinusoidal (absolute)",
                          "Transformer-XL (relative)", "RoPE", "ALiBi"), SERIES_COLORS))


def _labels(n: int, start: int = 0) -> list[str]:
    return [str(i) for i in range(start, start + n)]


def _signed_heatmap(z: np.ndarray, bound: float | None = None, name: str = "",
                    showscale: bool = True, **kw) -> go.Heatmap:
    z = np.asarray(z, dtype=np.float32)
    if bound is None:
        finite = np.abs(z[np.isfinite(z)])
        bound = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    return go.Heatmap(z=z, zmin=-bound, zmax=bound, zmid=0.0, colorscale=SIGNED_COLORSCALE,
                      colorbar=colorbar(), showscale=showscale, name=name, **kw)


# ------------------------------------------------------------------------------ sinusoids

def pe_curves_figure(pe: np.ndarray, dims: Sequence[int], title: str | None = None) -> go.Figure:
    """PE(pos, dim) against pos for the chosen dimensions."""
    fig = go.Figure()
    pos = np.arange(pe.shape[0])
    for n, d in enumerate(dims):
        kind = "sin" if d % 2 == 0 else "cos"
        fig.add_trace(go.Scatter(x=pos, y=pe[:, d], mode="lines", name=f"dim {d} ({kind})",
                                 line={"color": SERIES_COLORS[n % len(SERIES_COLORS)], "width": 3}))
    base_layout(fig, title=title, height=460, x_title="position", y_title="PE(pos, dim)")
    fig.update_yaxes(range=[-1.1, 1.1])
    return legend_below(fig)


def pe_heatmap_figure(pe: np.ndarray, title: str | None = None, y_title: str = "position",
                      height: int = 460, bound: float | None = None) -> go.Figure:
    """The position × dimension table on the signed scale (blue negative, white 0, red positive);
    the scale spans ±1 (sinusoids) unless ``bound`` is given."""
    if bound is None:
        bound = max(1.0, float(np.nanmax(np.abs(pe)))) if np.isfinite(pe).any() else 1.0
    fig = go.Figure(_signed_heatmap(pe, bound, hovertemplate=(
        f"{y_title} %{{y}}, dim %{{x}}: %{{z:.3f}}<extra></extra>")))
    return heatmap_layout(fig, _labels(pe.shape[1]), _labels(pe.shape[0]), title,
                          x_title="dimension", y_title=y_title, height=height, max_ticks=16)


def wavelength_figure(wavelengths: np.ndarray, d_model: int) -> go.Figure:
    """λ_i = 2π·10000^(2i/d) against the pair index i: a straight line on a log axis."""
    i = np.arange(len(wavelengths))
    fig = go.Figure(go.Scatter(x=i, y=wavelengths, mode="lines+markers", name="λᵢ",
                               line={"color": SERIES_COLORS[0], "width": 3},
                               hovertemplate="i = %{x}: λ = %{y:.1f}<extra></extra>"))
    for y, text in [(2 * math.pi, "2π"), (10000 * 2 * math.pi, "10000·2π")]:
        fig.add_hline(y=y, line={"color": "#888", "dash": "dot"}, annotation_text=text,
                      annotation_position="top left",
                      annotation_font={"size": BASE_FONT_SIZE})
    base_layout(fig, title=f"Wavelengths for d_model = {d_model} (log scale)", height=380,
                x_title="pair index i (dimensions 2i, 2i+1)", y_title="wavelength λᵢ")
    fig.update_yaxes(type="log", range=[0, math.log10(10000 * 2 * math.pi) + 0.4])
    return fig


def similarity_figure(sim: np.ndarray, title: str | None = None) -> go.Figure:
    """PE(p)·PE(q) for all position pairs."""
    fig = go.Figure(_signed_heatmap(sim, hovertemplate="p = %{y}, q = %{x}: %{z:.2f}<extra></extra>"))
    n = sim.shape[0]
    return heatmap_layout(fig, _labels(n), _labels(n), title, x_title="position q",
                          y_title="position p", height=480, max_ticks=12)


def offset_figure(offsets: np.ndarray, formula: np.ndarray, measured: np.ndarray,
                  title: str | None = None) -> go.Figure:
    """PE(pos)·PE(pos+k) against k: the formula Σᵢ cos(ωᵢk) and the mean over all pos."""
    fig = go.Figure([
        go.Scatter(x=offsets, y=formula, mode="lines", name="Σᵢ cos(ωᵢ k)",
                   line={"color": SERIES_COLORS[0], "width": 4}),
        go.Scatter(x=offsets, y=measured, mode="markers", name="measured, mean over pos",
                   marker={"color": SERIES_COLORS[1], "size": 6}),
    ])
    base_layout(fig, title=title, height=480, x_title="offset k", y_title="PE(pos)·PE(pos+k)")
    return legend_below(fig)


# ------------------------------------------------------------------------------ rotation

def rotation_matrix_figure(m: np.ndarray, k: int, max_dims: int = 16) -> go.Figure:
    """The top-left corner of the block-diagonal M_k (2×2 rotations along the diagonal)."""
    n = min(max_dims, m.shape[0])
    fig = go.Figure(_signed_heatmap(m[:n, :n], 1.0,
                                    hovertemplate="row %{y}, col %{x}: %{z:.3f}<extra></extra>"))
    shown = "" if n == m.shape[0] else f", first {n} dims"
    return heatmap_layout(fig, _labels(n), _labels(n), f"M_{k}{shown}", height=460, max_ticks=8)


def rotation_vectors_figure(pe_shifted: np.ndarray, rotated: np.ndarray, pos: int, k: int,
                            max_dims: int = 16) -> go.Figure:
    """PE(pos+k) as bars and M_k·PE(pos) as dots on top of them, dimension by dimension."""
    n = min(max_dims, len(pe_shifted))
    dims = np.arange(n)
    fig = go.Figure([
        go.Bar(x=dims, y=pe_shifted[:n], name=f"PE({pos + k})",
               marker_color=SERIES_COLORS[0], opacity=0.55),
        go.Scatter(x=dims, y=rotated[:n], mode="markers", name=f"M_{k} · PE({pos})",
                   marker={"color": SERIES_COLORS[1], "size": 13, "symbol": "diamond"}),
    ])
    base_layout(fig, title=f"PE({pos + k}) and M_{k}·PE({pos}), first {n} dims", height=440,
                x_title="dimension", y_title="value")
    fig.update_yaxes(range=[-1.1, 1.1])
    return legend_below(fig)


def rotation_error_figure(ks: np.ndarray, errors: np.ndarray) -> go.Figure:
    """max over pos and dims of |M_k PE(pos) − PE(pos+k)| for every shift k (log scale)."""
    fig = go.Figure(go.Scatter(x=ks, y=np.maximum(errors, 1e-18), mode="markers",
                               marker={"color": SERIES_COLORS[2], "size": 6}, name="max error",
                               hovertemplate="k = %{x}: %{y:.1e}<extra></extra>"))
    base_layout(fig, title="Every shift k: largest error over all pos", height=380,
                x_title="shift k", y_title="max error (float64)")
    fig.update_yaxes(type="log", range=[-17, 0], exponentformat="power")
    return fig


# ------------------------------------------------------------------ embeddings + positions

def embedding_mix_figure(tokens: Sequence[str], embedded: np.ndarray, pe: np.ndarray,
                         summed: np.ndarray, max_dims: int = 64) -> go.Figure:
    """s·E, PE and their sum for one sentence, on one shared signed scale."""
    n = min(max_dims, embedded.shape[1])
    mats = [embedded[:, :n], pe[:, :n], summed[:, :n]]
    bound = float(max(np.abs(m).max() for m in mats)) or 1.0
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=("word embedding s·E", "+ positional encoding PE",
                                        "= input to the first layer"))
    labels = [f"{t} ({p})" for p, t in enumerate(tokens)]
    for c, m in enumerate(mats, start=1):
        fig.add_trace(_signed_heatmap(m, bound, showscale=c == 3,
                                      hovertemplate="%{y}, dim %{x}: %{z:.2f}<extra></extra>"),
                      row=1, col=c)
        heatmap_layout(fig, _labels(n), labels if c == 1 else None, row=1, col=c, max_ticks=8)
        if c == 1:
            fig.update_yaxes(tickmode="array", tickvals=list(range(len(labels))), ticktext=labels,
                             row=1, col=1)
        fig.update_xaxes(title_text="dimension", row=1, col=c)
    base_layout(fig, height=460)
    fig.update_annotations(font={"size": BASE_FONT_SIZE + 2})
    return fig


def embedding_scale_figure(scales: np.ndarray, same_word: np.ndarray, same_pos: np.ndarray,
                           word_share: np.ndarray, current: float, sqrt_d: float) -> go.Figure:
    """How the sum s·e + PE behaves as the embedding scale s grows."""
    fig = go.Figure([
        go.Scatter(x=scales, y=same_word, name="same word, two positions: cosine",
                   line={"color": SERIES_COLORS[0], "width": 3}),
        go.Scatter(x=scales, y=same_pos, name="two words, same position: cosine",
                   line={"color": SERIES_COLORS[1], "width": 3}),
        go.Scatter(x=scales, y=word_share, name="share of ‖x‖² from the word",
                   line={"color": SERIES_COLORS[2], "width": 3, "dash": "dash"}),
    ])
    # Shapes on a log axis take data values, annotations take log10 of them.
    fig.add_vline(x=sqrt_d, line={"color": "#888", "dash": "dot", "width": 2})
    fig.add_vline(x=current, line={"color": SERIES_COLORS[3], "width": 3})
    fig.add_annotation(x=math.log10(current), y=1.04, yref="y", text=f"s = {current:.3g}",
                       showarrow=False, xanchor="left", font={"size": BASE_FONT_SIZE,
                                                               "color": SERIES_COLORS[3]})
    if abs(current - sqrt_d) > 1e-9:
        fig.add_annotation(x=math.log10(sqrt_d), y=-0.02, yref="y", text="√d_model",
                           showarrow=False, xanchor="left", font={"size": BASE_FONT_SIZE})
    base_layout(fig, title="What survives in x = s·e + PE, against the scale s", height=480,
                x_title="embedding scale s (log)", y_title="value")
    fig.update_xaxes(type="log", range=[math.log10(scales[0]), math.log10(scales[-1])], dtick=1)
    fig.update_yaxes(range=[-0.08, 1.1])
    return legend_below(fig)


# --------------------------------------------------------------------- schemes side by side

def schemes_figure(maps: Mapping[str, np.ndarray], train_len: int,
                   titles: Mapping[str, str] | None = None) -> go.Figure:
    """One map per scheme (query i down, key j across), training length marked by dashed lines;
    blank cells have no value. ``titles`` (name → subplot title, ``<br>`` for line breaks) say
    what each map is; by default the name, broken before its parenthesis."""
    names = list(maps)
    shown = [(titles or {}).get(n, n.replace(" (", "<br>(")) for n in names]
    lines = max(t.count("<br>") + 1 for t in shown)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=shown,
                        horizontal_spacing=0.035, shared_yaxes=True)
    for c, name in enumerate(names, start=1):
        m = maps[name]
        n = m.shape[0]
        fig.add_trace(_signed_heatmap(m, 1.0, showscale=c == len(names), hovertemplate=(
            f"{shown[c - 1].replace('<br>', ' ')}<br>query %{{y}}, key %{{x}}: %{{z:.2f}}"
            f"<extra></extra>")), row=1, col=c)
        heatmap_layout(fig, _labels(n), _labels(n) if c == 1 else None, row=1, col=c,
                       max_ticks=4)
        fig.add_shape(type="rect", x0=-0.5, y0=-0.5, x1=train_len - 0.5, y1=train_len - 0.5,
                      line={"color": "black", "dash": "dash", "width": 2}, row=1, col=c)
        fig.update_xaxes(title_text="key j", row=1, col=c)
    fig.update_yaxes(title_text="query i", row=1, col=1)
    base_layout(fig, height=380 + 25 * lines)
    fig.update_layout(margin={"t": 25 + 25 * lines})  # room for the subplot titles
    fig.update_annotations(font={"size": BASE_FONT_SIZE})
    return fig


def scheme_profile_figure(maps: Mapping[str, np.ndarray], train_len: int) -> go.Figure:
    """Column 0 of each map: query at position i, key at position 0, i.e. the key i places back
    (defined for a causal scheme such as ALiBi, whose keys after the query are masked)."""
    fig = go.Figure()
    n = max(m.shape[0] for m in maps.values())
    fig.add_vrect(x0=train_len - 0.5, x1=n - 0.5, fillcolor="#f2c14e", opacity=0.18,
                  line_width=0, annotation_text="beyond the training length",
                  annotation_position="top left", annotation_font={"size": BASE_FONT_SIZE})
    for name, m in maps.items():
        fig.add_trace(go.Scatter(x=np.arange(m.shape[0]), y=m[:, 0], mode="lines", name=name,
                                 line={"color": SCHEME_COLORS.get(name, SERIES_COLORS[6]),
                                       "width": 3}))
    base_layout(fig, title="Key at position 0, query i places later", height=480,
                x_title="distance i − j", y_title="value (scaled to [−1, 1])")
    fig.update_yaxes(range=[-1.1, 1.15])
    return legend_below(fig)


def position_score_figure(scores: np.ndarray, title: str | None = None) -> go.Figure:
    """A matrix of attention scores (query i down, key j across) on the diverging scale centred
    on 0 and bounded by its own largest |score|: a score is not an attention weight, so it does
    not use the 0–1 weight scale."""
    n = scores.shape[0]
    fig = go.Figure(_signed_heatmap(scores, hovertemplate=(
        "query i = %{y}, key j = %{x}: score %{z:.3f}<extra></extra>")))
    fig.update_traces(colorbar=colorbar("score"))
    return heatmap_layout(fig, _labels(n), _labels(n), title, x_title="key position j",
                          y_title="query position i", height=460, max_ticks=12)


def diagonal_profile_figure(scores: np.ndarray, offsets: Sequence[int],
                            title: str | None = None) -> go.Figure:
    """The score along the diagonals i − j = k, one line per k, against the query position i:
    each line would be flat if the score depended on i − j only."""
    fig = go.Figure()
    for n, k in enumerate(offsets):
        diag = np.diagonal(scores, -k)  # numpy's offset counts j − i
        fig.add_trace(go.Scatter(x=np.arange(len(diag)) + max(k, 0), y=diag, mode="lines+markers",
                                 name=f"i − j = {k}", marker={"size": 5},
                                 line={"color": SERIES_COLORS[n % len(SERIES_COLORS)], "width": 3}))
    fig.add_hline(y=0, line={"color": "#888", "width": 1})
    base_layout(fig, title=title, height=460, x_title="query position i", y_title="score")
    return legend_below(fig)


def learned_figure(matrix: np.ndarray, title: str) -> go.Figure:
    """A learned position-embedding matrix (position × dimension), at most 256 × 128 cells, on a
    colour scale fitted to its own values (learned entries are far smaller than ±1)."""
    shown = matrix[:256, :128]
    return pe_heatmap_figure(shown, title=title, bound=float(np.abs(shown).max()) or 1.0)


# ------------------------------------------------------------------------------- padding

def padding_ids_figure(position_ids: np.ndarray, title: str | None = None) -> go.Figure:
    """Position ids of a padded batch; PAD (id 0) cells grey and labelled PAD."""
    ids = np.asarray(position_ids)
    text = np.where(ids == 0, "PAD", ids.astype(str))
    fig = go.Figure(go.Heatmap(
        z=(ids > 0).astype(np.float32), zmin=0, zmax=1, showscale=False,
        colorscale=[[0, "#bdbdbd"], [0.5, "#bdbdbd"], [0.5, "#dbe9f6"], [1, "#dbe9f6"]],
        text=text, texttemplate="%{text}", textfont={"size": BASE_FONT_SIZE + 2, "color": "black"},
        customdata=ids, xgap=3, ygap=3,
        hovertemplate="sentence %{y}, slot %{x}: position id %{customdata}<extra></extra>"))
    return heatmap_layout(fig, _labels(ids.shape[1]),
                          [f"sentence {b + 1}" for b in range(ids.shape[0])], title,
                          x_title="slot", height=140 + 60 * ids.shape[0])


def padding_encoded_figure(encoded: np.ndarray, max_dims: int = 32) -> go.Figure:
    """The encodings looked up by each sentence's ids: PAD rows are exactly zero (white)."""
    b, length, d = encoded.shape
    n = min(max_dims, d)
    fig = make_subplots(rows=1, cols=b, shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[f"sentence {i + 1}" for i in range(b)])
    for i in range(b):
        fig.add_trace(_signed_heatmap(encoded[i, :, :n], 1.0, showscale=i == b - 1,
                                      hovertemplate="slot %{y}, dim %{x}: %{z:.2f}<extra></extra>"),
                      row=1, col=i + 1)
        heatmap_layout(fig, _labels(n), _labels(length) if i == 0 else None, row=1, col=i + 1,
                       max_ticks=8)
        fig.update_xaxes(title_text="dimension", row=1, col=i + 1)
    fig.update_yaxes(title_text="slot", row=1, col=1)
    base_layout(fig, height=360)
    fig.update_annotations(font={"size": BASE_FONT_SIZE + 2})
    return fig


def scheme_table() -> pd.DataFrame:
    """Where each positional scheme puts position, its parameters, and what happens past the
    training length, one row per scheme."""
    return pd.DataFrame([
        {"Scheme": "Learned absolute (BERT, GPT-2)", "Where position enters": "added to the input",
         "Parameters": "one vector per position", "Beyond the training length":
             "no row exists: the model cannot run"},
        {"Scheme": "Sinusoidal absolute", "Where position enters": "added to the input",
         "Parameters": "none", "Beyond the training length":
             "defined, but the model never saw these vectors"},
        {"Scheme": "Transformer-XL relative", "Where position enters":
             "every score: qᵢᵀW_R R(i−j) + vᵀW_R R(i−j)", "Parameters": "W_R, u, v",
         "Beyond the training length": "depends only on i − j; long distances unseen"},
        {"Scheme": "RoPE", "Where position enters": "rotates q and k by angle pos·θᵢ",
         "Parameters": "none", "Beyond the training length":
             "slow pairs reach angles never seen; quality drops without tricks"},
        {"Scheme": "ALiBi", "Where position enters":
             "score bias −m·(i − j) per head for keys j ≤ i (causal: the future is masked)",
         "Parameters": "none (fixed slopes m)", "Beyond the training length":
             "the same linear penalty: extrapolates best"},
    ]).set_index("Scheme")
