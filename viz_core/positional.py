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
    cell_outline,
    colorbar,
    heatmap_layout,
    legend_below,
)
from viz_core.texts import Texts, word

SCHEME_COLORS = dict(
    zip(("Learned (absolute)", "Sinusoidal (absolute)", "Transformer-XL (relative)", "RoPE", "ALiBi"), SERIES_COLORS)
)
#: A scheme's name (models.lessons.positional) → its viz_core.texts id (RoPE and ALiBi are names in any language).
_SCHEME_WORDS = {
    "Learned (absolute)": "pe.scheme.learned",
    "Sinusoidal (absolute)": "pe.scheme.sinusoidal",
    "Transformer-XL (relative)": "pe.scheme.xl",
}
#: The scheme table (:func:`scheme_table`): its columns, then one row per scheme, as viz_core.texts ids.
_TABLE_COLUMNS = ("pe.tab.scheme", "pe.tab.where", "pe.tab.params", "pe.tab.beyond")
_TABLE_ROWS = (
    ("pe.tab.learned", "pe.tab.added", "pe.tab.per_position", "pe.tab.learned_beyond"),
    ("pe.tab.sinusoidal", "pe.tab.added", "pe.tab.none", "pe.tab.sinusoidal_beyond"),
    ("pe.tab.xl", "pe.tab.xl_where", "pe.tab.xl_params", "pe.tab.xl_beyond"),
    ("pe.tab.rope", "pe.tab.rope_where", "pe.tab.none", "pe.tab.rope_beyond"),
    ("pe.tab.alibi", "pe.tab.alibi_where", "pe.tab.alibi_params", "pe.tab.alibi_beyond"),
)


def scheme_name(name: str, texts: Texts | None = None) -> str:
    """A positional scheme's name in the language of ``texts``."""
    return word(texts, _SCHEME_WORDS[name]) if name in _SCHEME_WORDS else name


def _labels(n: int, start: int = 0) -> list[str]:
    return [str(i) for i in range(start, start + n)]


def signed_heatmap(
    z: np.ndarray, bound: float | None = None, name: str = "", showscale: bool = True, **kw
) -> go.Heatmap:
    z = np.asarray(z, dtype=np.float32)
    if bound is None:
        finite = np.abs(z[np.isfinite(z)])
        bound = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    return go.Heatmap(
        z=z,
        zmin=-bound,
        zmax=bound,
        zmid=0.0,
        colorscale=SIGNED_COLORSCALE,
        colorbar=colorbar(),
        showscale=showscale,
        name=name,
        **kw,
    )


# ------------------------------------------------------------------------------ sinusoids


def pe_curves_figure(
    pe: np.ndarray, dims: Sequence[int], title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """PE(pos, dim) against pos for the chosen dimensions."""
    fig = go.Figure()
    pos = np.arange(pe.shape[0])
    for n, d in enumerate(dims):
        wave = "sin" if d % 2 == 0 else "cos"
        fig.add_trace(
            go.Scatter(
                x=pos,
                y=pe[:, d],
                mode="lines",
                name=word(texts, "pe.dim_kind", d=d, wave=wave),
                line={"color": SERIES_COLORS[n % len(SERIES_COLORS)], "width": 3},
            )
        )
    base_layout(fig, title=title, height=460, x_title=word(texts, "pe.position"), y_title=word(texts, "pe.pe_y"))
    fig.update_yaxes(range=[-1.1, 1.1])
    return legend_below(fig)


def pe_heatmap_figure(
    pe: np.ndarray,
    title: str | None = None,
    y_title: str | None = None,
    height: int = 460,
    bound: float | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """The position × dimension table on the signed scale (blue negative, white 0, red positive);
    the scale spans ±1 (sinusoids) unless ``bound`` is given; axis and hover words from ``texts``
    (``y_title``: "position" in them, unless given)."""
    if y_title is None:
        y_title = word(texts, "pe.position")
    if bound is None:
        bound = max(1.0, float(np.nanmax(np.abs(pe)))) if np.isfinite(pe).any() else 1.0
    fig = go.Figure(signed_heatmap(pe, bound, hovertemplate=word(texts, "pos.cell_hover", y_title=y_title)))
    return heatmap_layout(
        fig,
        _labels(pe.shape[1]),
        _labels(pe.shape[0]),
        title,
        x_title=word(texts, "dimension"),
        y_title=y_title,
        height=height,
        max_ticks=16,
    )


def wavelength_figure(wavelengths: np.ndarray, d_model: int, texts: Texts | None = None) -> go.Figure:
    """λ_i = 2π·10000^(2i/d) against the pair index i: a straight line on a log axis."""
    i = np.arange(len(wavelengths))
    fig = go.Figure(
        go.Scatter(
            x=i,
            y=wavelengths,
            mode="lines+markers",
            name="λᵢ",
            line={"color": SERIES_COLORS[0], "width": 3},
            hovertemplate="i = %{x}: λ = %{y:.1f}<extra></extra>",
        )
    )
    for y, text in [(2 * math.pi, "2π"), (10000 * 2 * math.pi, "10000·2π")]:
        fig.add_hline(
            y=y,
            line={"color": "#888", "dash": "dot"},
            annotation_text=text,
            annotation_position="top left",
            annotation_font={"size": BASE_FONT_SIZE},
        )
    base_layout(
        fig,
        title=word(texts, "pe.wavelengths", d_model=d_model),
        height=380,
        x_title=word(texts, "pe.pair_index"),
        y_title=word(texts, "pe.wavelength"),
    )
    fig.update_yaxes(type="log", range=[0, math.log10(10000 * 2 * math.pi) + 0.4])
    return fig


def similarity_figure(sim: np.ndarray, title: str | None = None, texts: Texts | None = None) -> go.Figure:
    """PE(p)·PE(q) for all position pairs."""
    fig = go.Figure(signed_heatmap(sim, hovertemplate="p = %{y}, q = %{x}: %{z:.2f}<extra></extra>"))
    n = sim.shape[0]
    return heatmap_layout(
        fig,
        _labels(n),
        _labels(n),
        title,
        x_title=word(texts, "pe.position_q"),
        y_title=word(texts, "pe.position_p"),
        height=480,
        max_ticks=12,
    )


def offset_figure(
    offsets: np.ndarray, formula: np.ndarray, measured: np.ndarray, title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """PE(pos)·PE(pos+k) against k: the formula Σᵢ cos(ωᵢk) and the mean over all pos."""
    fig = go.Figure(
        [
            go.Scatter(
                x=offsets, y=formula, mode="lines", name="Σᵢ cos(ωᵢ k)", line={"color": SERIES_COLORS[0], "width": 4}
            ),
            go.Scatter(
                x=offsets,
                y=measured,
                mode="markers",
                name=word(texts, "pe.measured"),
                marker={"color": SERIES_COLORS[1], "size": 6},
            ),
        ]
    )
    base_layout(fig, title=title, height=480, x_title=word(texts, "pe.offset"), y_title="PE(pos)·PE(pos+k)")
    return legend_below(fig)


# ------------------------------------------------------------------------------ rotation


def rotation_matrix_figure(m: np.ndarray, k: int, max_dims: int = 16, texts: Texts | None = None) -> go.Figure:
    """The top-left corner of the block-diagonal M_k (2×2 rotations along the diagonal)."""
    n = min(max_dims, m.shape[0])
    fig = go.Figure(signed_heatmap(m[:n, :n], 1.0, hovertemplate=word(texts, "fd.cell_hover")))
    title = f"M_{k}" if n == m.shape[0] else word(texts, "pe.m_first", k=k, n=n)
    return heatmap_layout(fig, _labels(n), _labels(n), title, height=460, max_ticks=8)


def rotation_vectors_figure(
    pe_shifted: np.ndarray, rotated: np.ndarray, pos: int, k: int, max_dims: int = 16, texts: Texts | None = None
) -> go.Figure:
    """PE(pos+k) as bars and M_k·PE(pos) as dots on top of them, dimension by dimension."""
    n = min(max_dims, len(pe_shifted))
    dims = np.arange(n)
    fig = go.Figure(
        [
            go.Bar(x=dims, y=pe_shifted[:n], name=f"PE({pos + k})", marker_color=SERIES_COLORS[0], opacity=0.55),
            go.Scatter(
                x=dims,
                y=rotated[:n],
                mode="markers",
                name=f"M_{k} · PE({pos})",
                marker={"color": SERIES_COLORS[1], "size": 13, "symbol": "diamond"},
            ),
        ]
    )
    base_layout(
        fig,
        title=word(texts, "pe.rotated", a=pos + k, k=k, pos=pos, n=n),
        height=440,
        x_title=word(texts, "dimension"),
        y_title=word(texts, "value"),
    )
    fig.update_yaxes(range=[-1.1, 1.1])
    return legend_below(fig)


def rotation_error_figure(ks: np.ndarray, errors: np.ndarray, texts: Texts | None = None) -> go.Figure:
    """max over pos and dims of |M_k PE(pos) − PE(pos+k)| for every shift k (log scale)."""
    fig = go.Figure(
        go.Scatter(
            x=ks,
            y=np.maximum(errors, 1e-18),
            mode="markers",
            marker={"color": SERIES_COLORS[2], "size": 6},
            name=word(texts, "pe.max_error"),
            hovertemplate="k = %{x}: %{y:.1e}<extra></extra>",
        )
    )
    base_layout(
        fig,
        title=word(texts, "pe.error_title"),
        height=380,
        x_title=word(texts, "pe.shift"),
        y_title=word(texts, "pe.max_error_64"),
    )
    fig.update_yaxes(type="log", range=[-17, 0], exponentformat="power")
    return fig


# ------------------------------------------------------------------ embeddings + positions


def embedding_mix_figure(
    tokens: Sequence[str],
    embedded: np.ndarray,
    pe: np.ndarray,
    summed: np.ndarray,
    max_dims: int = 64,
    texts: Texts | None = None,
) -> go.Figure:
    """s·E, PE and their sum for one sentence, on one shared signed scale."""
    n = min(max_dims, embedded.shape[1])
    mats = [embedded[:, :n], pe[:, :n], summed[:, :n]]
    bound = float(max(np.abs(m).max() for m in mats)) or 1.0
    fig = make_subplots(
        rows=1,
        cols=3,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=[word(texts, key) for key in ("pe.mix.word", "pe.mix.pe", "pe.mix.sum")],
    )
    labels = [f"{t} ({p})" for p, t in enumerate(tokens)]
    for c, m in enumerate(mats, start=1):
        fig.add_trace(
            signed_heatmap(m, bound, showscale=c == 3, hovertemplate=word(texts, "pe.dim_hover", row="%{y}")),
            row=1,
            col=c,
        )
        heatmap_layout(fig, _labels(n), labels if c == 1 else None, row=1, col=c, max_ticks=8)
        if c == 1:
            fig.update_yaxes(tickmode="array", tickvals=list(range(len(labels))), ticktext=labels, row=1, col=1)
        fig.update_xaxes(title_text=word(texts, "dimension"), row=1, col=c)
    base_layout(fig, height=460)
    fig.update_annotations(font={"size": BASE_FONT_SIZE + 2})
    return fig


def embedding_scale_figure(
    scales: np.ndarray,
    same_word: np.ndarray,
    same_pos: np.ndarray,
    word_share: np.ndarray,
    current: float,
    sqrt_d: float,
    texts: Texts | None = None,
) -> go.Figure:
    """How the sum s·e + PE behaves as the embedding scale s grows."""
    fig = go.Figure(
        [
            go.Scatter(
                x=scales,
                y=same_word,
                name=word(texts, "pe.scale.same_word"),
                line={"color": SERIES_COLORS[0], "width": 3},
            ),
            go.Scatter(
                x=scales,
                y=same_pos,
                name=word(texts, "pe.scale.same_pos"),
                line={"color": SERIES_COLORS[1], "width": 3},
            ),
            go.Scatter(
                x=scales,
                y=word_share,
                name=word(texts, "pe.scale.share"),
                line={"color": SERIES_COLORS[2], "width": 3, "dash": "dash"},
            ),
        ]
    )
    # Shapes on a log axis take data values, annotations take log10 of them.
    fig.add_vline(x=sqrt_d, line={"color": "#888", "dash": "dot", "width": 2})
    fig.add_vline(x=current, line={"color": SERIES_COLORS[3], "width": 3})
    fig.add_annotation(
        x=math.log10(current),
        y=1.04,
        yref="y",
        text=f"s = {current:.3g}",
        showarrow=False,
        xanchor="left",
        font={"size": BASE_FONT_SIZE, "color": SERIES_COLORS[3]},
    )
    if abs(current - sqrt_d) > 1e-9:
        fig.add_annotation(
            x=math.log10(sqrt_d),
            y=-0.02,
            yref="y",
            text="√d_model",
            showarrow=False,
            xanchor="left",
            font={"size": BASE_FONT_SIZE},
        )
    base_layout(
        fig,
        title=word(texts, "pe.scale.title"),
        height=480,
        x_title=word(texts, "pe.scale.x"),
        y_title=word(texts, "value"),
    )
    fig.update_xaxes(type="log", range=[math.log10(scales[0]), math.log10(scales[-1])], dtick=1)
    fig.update_yaxes(range=[-0.08, 1.1])
    return legend_below(fig)


# --------------------------------------------------------------------- schemes side by side


def schemes_figure(
    maps: Mapping[str, np.ndarray], train_len: int, titles: Mapping[str, str] | None = None, texts: Texts | None = None
) -> go.Figure:
    """One map per scheme (query i down, key j across), training length marked by dashed lines;
    blank cells have no value. ``titles`` (name → subplot title, ``<br>`` for line breaks) say
    what each map is; by default the name, broken before its parenthesis."""
    names = list(maps)
    shown = [(titles or {}).get(n, scheme_name(n, texts).replace(" (", "<br>(")) for n in names]
    lines = max(t.count("<br>") + 1 for t in shown)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=shown, horizontal_spacing=0.035, shared_yaxes=True)
    for c, name in enumerate(names, start=1):
        m = maps[name]
        n = m.shape[0]
        fig.add_trace(
            signed_heatmap(
                m,
                1.0,
                showscale=c == len(names),
                hovertemplate=word(texts, "pe.scheme_hover", scheme=shown[c - 1].replace("<br>", " ")),
            ),
            row=1,
            col=c,
        )
        heatmap_layout(fig, _labels(n), _labels(n) if c == 1 else None, row=1, col=c, max_ticks=4)
        fig.add_shape(
            cell_outline((0, train_len - 1), (0, train_len - 1), color="black", width=2, dash="dash"), row=1, col=c
        )
        fig.update_xaxes(title_text=word(texts, "txl.key_j"), row=1, col=c)
    fig.update_yaxes(title_text=word(texts, "txl.query_i"), row=1, col=1)
    base_layout(fig, height=380 + 25 * lines)
    fig.update_layout(margin={"t": 25 + 25 * lines})  # room for the subplot titles
    fig.update_annotations(font={"size": BASE_FONT_SIZE})
    return fig


def scheme_profile_figure(maps: Mapping[str, np.ndarray], train_len: int, texts: Texts | None = None) -> go.Figure:
    """Column 0 of each map: query at position i, key at position 0, i.e. the key i places back
    (defined for a causal scheme such as ALiBi, whose keys after the query are masked)."""
    fig = go.Figure()
    n = max(m.shape[0] for m in maps.values())
    fig.add_vrect(
        x0=train_len - 0.5,
        x1=n - 0.5,
        fillcolor="#f2c14e",
        opacity=0.18,
        line_width=0,
        annotation_text=word(texts, "pe.beyond"),
        annotation_position="top left",
        annotation_font={"size": BASE_FONT_SIZE},
    )
    for name, m in maps.items():
        fig.add_trace(
            go.Scatter(
                x=np.arange(m.shape[0]),
                y=m[:, 0],
                mode="lines",
                name=scheme_name(name, texts),
                line={"color": SCHEME_COLORS.get(name, SERIES_COLORS[6]), "width": 3},
            )
        )
    base_layout(
        fig,
        title=word(texts, "pe.profile.title"),
        height=480,
        x_title=word(texts, "pe.profile.x"),
        y_title=word(texts, "pe.profile.y"),
    )
    fig.update_yaxes(range=[-1.1, 1.15])
    return legend_below(fig)


def position_score_figure(scores: np.ndarray, title: str | None = None, texts: Texts | None = None) -> go.Figure:
    """A matrix of attention scores (query i down, key j across) on the diverging scale centred
    on 0 and bounded by its own largest |score|: a score is not an attention weight, so it does
    not use the 0–1 weight scale; axis, colour-bar and hover words from ``texts``."""
    n = scores.shape[0]
    fig = go.Figure(signed_heatmap(scores, hovertemplate=word(texts, "pos.score_hover")))
    fig.update_traces(colorbar=colorbar(word(texts, "score")))
    return heatmap_layout(
        fig,
        _labels(n),
        _labels(n),
        title,
        x_title=word(texts, "pos.key_j"),
        y_title=word(texts, "pos.query_i"),
        height=460,
        max_ticks=12,
    )


def diagonal_profile_figure(
    scores: np.ndarray, offsets: Sequence[int], title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """The score along the diagonals i − j = k, one line per k, against the query position i:
    each line would be flat if the score depended on i − j only."""
    fig = go.Figure()
    for n, k in enumerate(offsets):
        diag = np.diagonal(scores, -k)  # numpy's offset counts j − i
        fig.add_trace(
            go.Scatter(
                x=np.arange(len(diag)) + max(k, 0),
                y=diag,
                mode="lines+markers",
                name=f"i − j = {k}",
                marker={"size": 5},
                line={"color": SERIES_COLORS[n % len(SERIES_COLORS)], "width": 3},
            )
        )
    fig.add_hline(y=0, line={"color": "#888", "width": 1})
    base_layout(fig, title=title, height=460, x_title=word(texts, "pos.query_i"), y_title=word(texts, "score"))
    return legend_below(fig)


def learned_figure(matrix: np.ndarray, title: str, texts: Texts | None = None) -> go.Figure:
    """A learned position-embedding matrix (position × dimension), at most 256 × 128 cells, on a
    colour scale fitted to its own values (learned entries are far smaller than ±1)."""
    shown = matrix[:256, :128]
    return pe_heatmap_figure(
        shown, title=title, y_title=word(texts, "pe.position"), bound=float(np.abs(shown).max()) or 1.0, texts=texts
    )


# ------------------------------------------------------------------------------- padding


def padding_ids_figure(position_ids: np.ndarray, title: str | None = None, texts: Texts | None = None) -> go.Figure:
    """Position ids of a padded batch; PAD (id 0) cells grey and labelled PAD."""
    ids = np.asarray(position_ids)
    text = np.where(ids == 0, "PAD", ids.astype(str))
    fig = go.Figure(
        go.Heatmap(
            z=(ids > 0).astype(np.float32),
            zmin=0,
            zmax=1,
            showscale=False,
            colorscale=[[0, "#bdbdbd"], [0.5, "#bdbdbd"], [0.5, "#dbe9f6"], [1, "#dbe9f6"]],
            text=text,
            texttemplate="%{text}",
            textfont={"size": BASE_FONT_SIZE + 2, "color": "black"},
            customdata=ids,
            xgap=3,
            ygap=3,
            hovertemplate=word(texts, "pe.pad.id_hover"),
        )
    )
    return heatmap_layout(
        fig,
        _labels(ids.shape[1]),
        [word(texts, "pe.pad.sentence", n=b + 1) for b in range(ids.shape[0])],
        title,
        x_title=word(texts, "pe.pad.slot"),
        height=140 + 60 * ids.shape[0],
    )


def padding_encoded_figure(encoded: np.ndarray, max_dims: int = 32, texts: Texts | None = None) -> go.Figure:
    """The encodings looked up by each sentence's ids: PAD rows are exactly zero (white)."""
    b, length, d = encoded.shape
    n = min(max_dims, d)
    fig = make_subplots(
        rows=1,
        cols=b,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=[word(texts, "pe.pad.sentence", n=i + 1) for i in range(b)],
    )
    for i in range(b):
        fig.add_trace(
            signed_heatmap(
                encoded[i, :, :n],
                1.0,
                showscale=i == b - 1,
                hovertemplate=word(texts, "pe.dim_hover", row=word(texts, "pe.pad.slot_y")),
            ),
            row=1,
            col=i + 1,
        )
        heatmap_layout(fig, _labels(n), _labels(length) if i == 0 else None, row=1, col=i + 1, max_ticks=8)
        fig.update_xaxes(title_text=word(texts, "dimension"), row=1, col=i + 1)
    fig.update_yaxes(title_text=word(texts, "pe.pad.slot"), row=1, col=1)
    base_layout(fig, height=360)
    fig.update_annotations(font={"size": BASE_FONT_SIZE + 2})
    return fig


def scheme_table(texts: Texts | None = None) -> pd.DataFrame:
    """Where each positional scheme puts position, its parameters, and what happens past the
    training length, one row per scheme; its words in the language of ``texts``."""
    columns = [word(texts, key) for key in _TABLE_COLUMNS]
    rows = [[word(texts, key) for key in row] for row in _TABLE_ROWS]
    return pd.DataFrame(rows, columns=columns).set_index(columns[0])
