"""Figures of the BERT pages: arrays and token lists in, plotly figures out (no streamlit, no torch).

Every token shown passes through :func:`viz_core.labels.safe_label` (user text is text, never
markup); heatmaps use integer axes with tokens as tick text (repeated tokens stay apart).
Colours of the masking outcomes are fixed across the page: [MASK] orange, random purple,
kept green, not chosen grey.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz_core.attention_grid import HeadFigure, head_figure
from viz_core.labels import safe_label
from viz_core.style import (
    BASE_FONT_SIZE,
    COLORBAR_BELOW_PX,
    FIGURE_WIDTH_PX,
    LINE_EM,
    SERIES_COLORS,
    SIGNED_COLORSCALE,
    TEXT_COLOR,
    TICK_FONT_SIZE,
    TICK_LABEL_CHARS,
    TICK_PAD_PX,
    attention_scale,
    axis_extent,
    base_layout,
    colorbar,
    heatmap_layout,
    labels_margin,
    legend_below,
    plot_width,
    short_label,
    subplot_axes,
    subplot_grid,
    text_width,
    tick_axis,
    title_dict,
    wrap_text,
)
from viz_core.texts import Texts, word

__all__ = [
    "OUTCOME_COLORS",
    "OUTCOME_BG",
    "SPECIAL_COLOR",
    "pieces_table",
    "embedding_sum_figure",
    "masking_stats_figure",
    "TYPED",
    "PREDICTIONS_WIDTH_PX",
    "PredictionRow",
    "prediction_rows",
    "predictions_table",
    "predictions_figure",
    "special_attention_figure",
    "token_groups",
    "attention_share_figure",
    "nsp_figure",
    "nsp_table",
    "class_figure",
    "tag_figure",
    "span_figure",
    "explorer_head_figures",
    "lines_figure",
    "head_labels",
    "shown_name",
]

#: outcome name → colour (chip border / bars / lines).
OUTCOME_COLORS = {
    "[MASK]": SERIES_COLORS[1],
    "random": SERIES_COLORS[4],
    "kept": SERIES_COLORS[2],
    "clicked": SERIES_COLORS[1],
    "typed": SERIES_COLORS[1],
    "not chosen": "#9aa7b8",
}
#: outcome name → light background of its chip.
OUTCOME_BG = {
    "[MASK]": "#fff3e0",
    "random": "#f3e5f5",
    "kept": "#e8f5e9",
    "clicked": "#fff3e0",
    "typed": "#fff3e0",
    "not chosen": "#f4f6f9",
}
SPECIAL_COLOR = "#37474f"
#: Outcome colours as text on white (darker where the bar colour is below 4.5 : 1).
_DARK_OUTCOME = {
    "[MASK]": "#b35400",
    "clicked": "#b35400",
    "typed": "#b35400",
    "random": "#7a4fa3",
    "kept": "#1e7a1e",
    "not chosen": "#4d5666",
}
#: The outcome of a [MASK] typed in the text itself (models.inference.bert.typed_masks): no original piece.
TYPED = "typed"
#: Width the predictions figure is planned for: the page's main column at 1280 × 720 with the
#: sidebar open (two half-width columns, :data:`FIGURE_WIDTH_PX`, and the gap between them); a
#: slide draws it wider, which only spaces the panels out more.
PREDICTIONS_WIDTH_PX = 2 * FIGURE_WIDTH_PX + 40
#: Narrowest bar area of one small multiple, and the space between a panel's bars and the next
#: panel's token labels.
_BARS_MIN_PX, _PANEL_GAP_PX = 110, 12
_TARGET_DASH = dict(dash="dash", width=2)


#: A masking outcome or token group (their names key the colours) → its viz_core.texts id, for display.
_NAME_WORDS = {
    "chosen": "bert.chosen",
    "random": "bert.random",
    "kept": "bert.kept",
    "clicked": "bert.clicked",
    TYPED: "bert.typed",
    "other tokens": "bert.other_tokens",
}


def shown_name(name: str, texts: Texts | None = None) -> str:
    """An outcome ("random", "kept" …) or token group ("other tokens") in the language of ``texts``;
    special tokens such as [MASK] stay as they are."""
    return word(texts, _NAME_WORDS[name]) if name in _NAME_WORDS else name


def _labels(tokens: Sequence[str], limit: int = 16) -> list[str]:
    return [safe_label(t, limit) for t in tokens]


def head_labels(n_layers: int, n_heads: int) -> list[str]:
    """ "L1 H1", "L1 H2", … in layer-major order."""
    return [f"L{l + 1} H{h + 1}" for l in range(n_layers) for h in range(n_heads)]


# --------------------------------------------------------------------------------------
# Input representation
# --------------------------------------------------------------------------------------


def pieces_table(
    tokens: Sequence[str], ids: Sequence[int], segment_ids: Sequence[int], texts: Texts | None = None
) -> pd.DataFrame:
    """One row per WordPiece piece: position, piece, id, segment (A/B), whether it continues a word
    (column names from ``texts``)."""
    return pd.DataFrame(
        {
            word(texts, "bert.col.position"): list(range(len(tokens))),
            word(texts, "bert.col.piece"): list(tokens),
            "id": list(ids),
            word(texts, "bert.col.segment"): ["AB"[s] for s in segment_ids],
            word(texts, "bert.col.continues"): [t.startswith("##") for t in tokens],
        }
    )


def embedding_sum_figure(
    token_emb: np.ndarray,
    segment_emb: np.ndarray,
    position_emb: np.ndarray,
    embedding_sum: np.ndarray,
    normed: np.ndarray | None,
    token: str,
    segment: int,
    position: int,
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """One token's input embedding as rows over the d dimensions (words from ``texts``):
    E_token + E_segment + E_position = sum, on one signed colour scale; LayerNorm(sum) below it
    on its own scale (it is about 1/σ times larger)."""
    rows = [token_emb, segment_emb, position_emb, embedding_sum]
    names = [
        word(texts, "bert.emb.token", token=safe_label(token, 20)),
        word(texts, "bert.emb.segment", segment="AB"[segment] if segment in (0, 1) else segment),
        word(texts, "bert.emb.position", position=position),
        word(texts, "bert.emb.sum"),
    ]
    z = np.stack(rows)
    d = z.shape[1]
    top = float(np.abs(z).max()) or 1.0
    n_rows = 2 if normed is not None else 1
    fig = make_subplots(
        rows=n_rows, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.8, 0.2] if n_rows == 2 else [1.0]
    )
    fig.add_trace(
        go.Heatmap(
            z=z,
            x=np.arange(d),
            y=np.arange(4),
            colorscale=SIGNED_COLORSCALE,
            zmid=0,
            zmin=-top,
            zmax=top,
            colorbar=dict(
                colorbar(word(texts, "bert.emb.parts")), y=1.0, yanchor="top", len=0.75 if n_rows == 2 else 1.0
            ),
            customdata=np.array([[n] * d for n in names], dtype=object),
            hovertemplate=word(texts, "bert.emb.hover", row="%{customdata}"),
        ),
        row=1,
        col=1,
    )
    fig.update_yaxes(tickmode="array", tickvals=list(range(4)), ticktext=names, autorange="reversed", row=1, col=1)
    if normed is not None:
        top_n = float(np.abs(normed).max()) or 1.0
        fig.add_trace(
            go.Heatmap(
                z=normed[None, :],
                x=np.arange(d),
                y=[0],
                colorscale=SIGNED_COLORSCALE,
                zmid=0,
                zmin=-top_n,
                zmax=top_n,
                colorbar=dict(colorbar("LayerNorm"), y=0.0, yanchor="bottom", len=0.3),
                hovertemplate=word(texts, "bert.emb.hover", row=word(texts, "bert.emb.normed")),
            ),
            row=2,
            col=1,
        )
        fig.update_yaxes(tickmode="array", tickvals=[0], ticktext=[word(texts, "bert.emb.normed")], row=2, col=1)
    base_layout(fig, title=title, height=120 + 60 * (len(rows) + n_rows - 1))
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    fig.update_xaxes(title_text=word(texts, "bert.emb.x"), row=n_rows, col=1)
    fig.update_layout(margin=dict(l=10, r=10, t=60 if title else 20, b=10))
    return fig


# --------------------------------------------------------------------------------------
# Masking statistics
# --------------------------------------------------------------------------------------


def masking_stats_figure(
    chosen_rate: np.ndarray,
    mask_share: np.ndarray,
    random_share: np.ndarray,
    kept_share: np.ndarray,
    targets: tuple[float, float, float, float] = (0.15, 0.8, 0.1, 0.1),
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Running rates after each draw (log x): chosen ÷ eligible → 15%; [MASK]/random/kept ÷ chosen → 80/10/10."""
    n = len(chosen_rate)
    x = np.arange(1, n + 1)
    # Thin to ~400 points on a log grid: the curve stays exact at the points drawn.
    idx = np.unique(np.clip(np.round(np.geomspace(1, n, min(n, 400))).astype(int) - 1, 0, n - 1))
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.1,
        subplot_titles=(word(texts, "bert.stats.chosen"), word(texts, "bert.stats.outcome")),
    )
    series = [
        (chosen_rate, "chosen", SERIES_COLORS[0], targets[0], 1),
        (mask_share, "[MASK]", OUTCOME_COLORS["[MASK]"], targets[1], 2),
        (random_share, "random", OUTCOME_COLORS["random"], targets[2], 2),
        (kept_share, "kept", OUTCOME_COLORS["kept"], targets[3], 2),
    ]
    for values, outcome, color, target, col in series:
        name = shown_name(outcome, texts)
        fig.add_trace(
            go.Scatter(
                x=x[idx],
                y=values[idx] * 100,
                mode="lines",
                name=f"{name}: {values[-1]:.2%}",
                line=dict(color=color, width=3),
                hovertemplate=word(texts, "bert.stats.hover", name=name),
            ),
            row=1,
            col=col,
        )
        fig.add_hline(y=target * 100, line=dict(color=color, **_TARGET_DASH), opacity=0.6, row=1, col=col)
    fig.update_xaxes(type="log", title_text=word(texts, "bert.stats.x"))
    fig.update_yaxes(title_text=word(texts, "bert.stats.y"), row=1, col=1)
    base_layout(fig, title=title, height=420)
    legend_below(fig)
    fig.update_layout(margin=dict(l=10, r=10, t=90 if title else 50, b=110))
    for ann in fig.layout.annotations:
        ann.font = dict(size=BASE_FONT_SIZE)
    return fig


# --------------------------------------------------------------------------------------
# Masked-LM predictions
# --------------------------------------------------------------------------------------


@dataclass
class PredictionRow:
    """The model's top-k at one chosen position: what was there, what the model read, and the outcome
    (:data:`TYPED` for a [MASK] typed in the text: no original, ``original_prob`` NaN, rank −1)."""

    position: int
    original: str
    shown: str
    outcome: str
    top_tokens: list[str]
    top_probs: list[float]
    original_prob: float
    original_rank: int


def prediction_rows(
    positions: Sequence[int],
    tokens: Sequence[str],
    shown: Sequence[str],
    outcomes: Sequence[str],
    top_tokens: Sequence[Sequence[str]],
    top_probs: np.ndarray,
    target_probs: np.ndarray,
    target_rank: np.ndarray,
) -> list[PredictionRow]:
    """A :class:`PredictionRow` for each chosen position, from the per-position arrays of a
    masked run (original and shown tokens, outcome names, top-k, the original's probability and rank);
    a position whose original piece is itself [MASK] (typed in the text) has the outcome :data:`TYPED`."""
    return [
        PredictionRow(
            position=int(i),
            original=tokens[i],
            shown=shown[i],
            outcome=TYPED if tokens[i] == "[MASK]" else outcomes[i],
            top_tokens=list(top_tokens[i]),
            top_probs=np.asarray(top_probs[i]).tolist(),
            original_prob=float(target_probs[i]),
            original_rank=int(target_rank[i]),
        )
        for i in positions
    ]


def predictions_table(rows: Sequence[PredictionRow], texts: Texts | None = None) -> pd.DataFrame:
    """One row per chosen position: what was there, what the model read, P and rank of the
    original, and the top-k as "token (p%)" (words from ``texts``)."""
    col = {key: word(texts, f"bert.col.{key}") for key in ("position", "original", "read", "outcome", "p", "rank")}
    return pd.DataFrame(
        [
            {
                col["position"]: r.position,
                col["original"]: "" if r.outcome == TYPED else r.original,
                col["read"]: r.shown,
                col["outcome"]: shown_name(r.outcome, texts),
                col["p"]: None if r.outcome == TYPED else round(r.original_prob, 4),
                col["rank"]: None if r.outcome == TYPED else r.original_rank + 1,
                **{
                    word(texts, "bert.col.top", k=k + 1): f"{t} ({p:.0%})"
                    for k, (t, p) in enumerate(zip(r.top_tokens, r.top_probs))
                },
            }
            for r in rows
        ]
    )


def predictions_figure(
    rows: Sequence[PredictionRow],
    per_row: int = 4,
    title: str | None = None,
    texts: Texts | None = None,
    width: float | None = None,
) -> go.Figure:
    """Small multiples: one horizontal bar chart of the top-k per chosen position; the original
    token's bar is green, others blue; the subplot title says what the model read there (words
    from ``texts``).

    Planned for a figure ``width`` px wide (default :data:`PREDICTIONS_WIDTH_PX`): every predicted
    piece is written out up to :data:`~viz_core.style.TICK_LABEL_CHARS` characters (hover shows a
    longer one whole), in the left margin for the first column and in the gap before its panel for
    the others, each gap as wide as the widest label; a row holds as many panels (at most
    ``per_row``) as leave each one at least 110 px of bars. No automargin: the margins are planned
    here (plotly draws a figure with automargin twice whenever its panels change, as on a click on
    a piece: 70 → 40 ms in headless Chromium)."""
    full = float(width or PREDICTIONS_WIDTH_PX)
    n = max(1, len(rows))
    ticktexts = [_labels(r.top_tokens, TICK_LABEL_CHARS)[::-1] for r in rows]
    label_px = labels_margin([t for texts_ in ticktexts for t in texts_]) - 10  # the widest label and its padding
    # One x range for all small multiples (comparable bars), at least 0–10%; two x ticks fit one.
    x_max = min(100.0, max([10.0] + [100 * max(r.top_probs, default=0) * 1.3 for r in rows]))
    x_ticks = [0, max(t for t in (10, 20, 25, 50, 100) if t <= x_max)]
    left, right = 10 + label_px, 10 + text_width(f"{x_ticks[-1]}%", TICK_FONT_SIZE) / 2
    gap = label_px + _PANEL_GAP_PX  # between two panels: the next one's labels, and air before them
    area = max(full - left - right, _BARS_MIN_PX)
    cols = max(1, min(per_row, n, int((area + gap) // (_BARS_MIN_PX + gap))))
    nrows = math.ceil(n / cols)
    panel = (area + gap) / cols  # one panel's bars and the gap after it, in px

    def _title(r: PredictionRow) -> str:
        orig, shown = safe_label(r.original, 14), safe_label(r.shown, 14)
        outcome = "mask" if r.outcome == "[MASK]" else r.outcome
        return word(texts, f"bert.pred.{outcome}", position=r.position, original=orig, shown=shown)

    # Subplot titles wrapped to their panel, never cut.
    titles = [wrap_text(_title(r), panel - 16, BASE_FONT_SIZE - 1) for r in rows]
    title_lines = max([t.count("<br>") + 1 for t in titles] + [1])
    layout = subplot_grid(
        nrows,
        cols,
        horizontal_spacing=gap / area if cols > 1 else 0.0,
        vertical_spacing=min(0.5 / max(nrows, 1), 0.18),
        titles=titles or [word(texts, "bert.pred.none")],
        title=title,
        height=80 + (210 + 20 * title_lines) * nrows,
    )
    bars = []
    for i, (r, ticktext) in enumerate(zip(rows, ticktexts)):
        k = len(r.top_tokens)
        colors = [SERIES_COLORS[2] if t == r.original else SERIES_COLORS[0] for t in r.top_tokens]
        x_name, y_name = subplot_axes(i)
        bars.append(
            go.Bar(
                x=[p * 100 for p in r.top_probs][::-1],
                y=list(range(k)),
                orientation="h",
                marker_color=colors[::-1],
                text=[f"{p:.0%}" for p in r.top_probs][::-1],
                textposition="auto",
                textangle=0,
                cliponaxis=False,
                showlegend=False,
                xaxis=x_name,
                yaxis=y_name,
                hovertemplate="%{customdata}: %{x:.1f}%<extra></extra>",
                customdata=_labels(r.top_tokens, 24)[::-1],
            )
        )
        layout[f"yaxis{y_name[1:]}"].update(
            tickmode="array", tickvals=list(range(k)), ticktext=ticktext, automargin=False
        )
        layout[f"xaxis{x_name[1:]}"].update(
            range=[0, x_max],
            tickmode="array",
            tickvals=x_ticks,
            ticktext=[f"{v}%" for v in x_ticks],
            tickangle=0,
            automargin=False,
        )
    for ann, r in zip(layout["annotations"], rows):
        ann["font"] = dict(size=BASE_FONT_SIZE - 1, color=_DARK_OUTCOME.get(r.outcome, TEXT_COLOR))
    title_layout, title_px = title_dict(title, full)  # the figure's title wrapped to its own width
    if title:
        layout["title"] = title_layout
    layout["margin"] = dict(
        l=left,
        r=right,
        t=(title_px + 35 if title else 50) + 20 * (title_lines - 1),
        b=10 + LINE_EM * TICK_FONT_SIZE + TICK_PAD_PX,
    )
    return go.Figure(data=bars, layout=layout)


# --------------------------------------------------------------------------------------
# Attention to and from special tokens
# --------------------------------------------------------------------------------------


def special_attention_figure(
    attention: np.ndarray,
    tokens: Sequence[str],
    index: int,
    direction: str = "from",
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Rows: every layer and head ("L1 H1" …); columns: tokens. ``direction="from"``: the
    attention row of the query at ``index`` (what it looks at; each row sums to 1);
    ``"to"``: the column of key ``index`` (how much each query gives it)."""
    n_layers, n_heads, L, _ = attention.shape
    if direction == "from":
        z = attention[:, :, index, :].reshape(n_layers * n_heads, L)
        x_title = word(texts, "key_attended")
    elif direction == "to":
        z = attention[:, :, :, index].reshape(n_layers * n_heads, L)
        x_title = word(texts, "query_attending")
    else:
        raise ValueError(f"direction must be 'from' or 'to', not {direction!r}")
    rows = head_labels(n_layers, n_heads)
    labels = _labels(tokens)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.arange(L),
            y=np.arange(len(rows)),
            **attention_scale(texts=texts),
            customdata=np.array([[r] * L for r in rows], dtype=object),
            text=np.array([labels] * len(rows), dtype=object),
            hovertemplate=word(texts, "bert.special_hover"),
        )
    )
    heatmap_layout(
        fig, x_labels=labels, y_labels=rows, title=title, x_title=x_title, max_ticks=64, height=200 + 26 * len(rows)
    )
    for l in range(1, n_layers):  # a line between layers
        fig.add_hline(y=l * n_heads - 0.5, line=dict(color="white", width=3))
    fig.add_vline(x=index, line=dict(color=SERIES_COLORS[1], width=2, dash="dot"))
    fig.update_layout(margin=dict(l=10, r=10, t=60 if title else 20, b=10))
    return fig


def token_groups(tokens: Sequence[str], special: Sequence[str] = ("[CLS]", "[SEP]", "[MASK]")) -> dict[str, np.ndarray]:
    """Boolean masks over ``tokens``: one per special token that occurs, and "other tokens"."""
    groups = {name: np.array([t == name for t in tokens]) for name in special}
    groups = {k: v for k, v in groups.items() if v.any()}
    groups["other tokens"] = ~np.any(np.stack(list(groups.values())), axis=0)
    return groups


def attention_share_figure(
    attention: np.ndarray, groups: dict[str, np.ndarray], title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """Stacked bars per layer and head: the mean share of attention (over all queries) that
    lands on each group of key positions (e.g. [CLS], [SEP], [MASK], other tokens)."""
    n_layers, n_heads = attention.shape[:2]
    rows = head_labels(n_layers, n_heads)
    colors = {
        "[CLS]": SERIES_COLORS[3],
        "[SEP]": SPECIAL_COLOR,
        "[MASK]": OUTCOME_COLORS["[MASK]"],
        "other tokens": "#c6dbef",
    }
    fig = go.Figure()
    for group, mask in groups.items():
        share = attention[:, :, :, np.asarray(mask, dtype=bool)].sum(-1).mean(-1).reshape(-1)
        name = shown_name(group, texts)
        fig.add_trace(
            go.Bar(
                x=np.arange(len(rows)),
                y=share * 100,
                name=name,
                marker_color=colors.get(group, SERIES_COLORS[5]),
                hovertemplate=f"%{{customdata}}: {name} %{{y:.1f}}%<extra></extra>",
                customdata=rows,
            )
        )
    fig.update_layout(barmode="stack")
    base_layout(fig, title=title, height=420, y_title=word(texts, "bert.share_y"))
    fig.update_xaxes(tick_axis(rows, plot_width(left_px=80, right_px=20)))
    fig.update_yaxes(range=[0, 100])
    legend_below(fig)
    fig.update_layout(margin=dict(l=10, r=10, t=60 if title else 20, b=150))
    return fig


# --------------------------------------------------------------------------------------
# Next sentence and fine-tuning heads
# --------------------------------------------------------------------------------------


def nsp_figure(
    labels: Sequence[str], p_is_next: Sequence[float], truth: Sequence[bool | None], title: str | None = None
) -> go.Figure:
    """Horizontal bars of P(IsNext) per pair; green when B really follows A, red when it does not,
    grey when unknown (the user's own pair); the dashed line is the 50% decision threshold."""
    colors = [SERIES_COLORS[2] if t else "#9aa7b8" if t is None else SERIES_COLORS[3] for t in truth]
    y = list(range(len(labels)))
    fig = go.Figure(
        go.Bar(
            x=[p * 100 for p in p_is_next],
            y=y,
            orientation="h",
            marker_color=colors,
            text=[f"{p:.0%}" for p in p_is_next],
            textposition="auto",
            customdata=[safe_label(l, 60) for l in labels],
            hovertemplate="%{customdata}<br>P(IsNext) = %{x:.1f}%<extra></extra>",
        )
    )
    fig.add_vline(x=50, line=dict(color="#333", dash="dash"))
    base_layout(fig, title=title, height=120 + 44 * len(labels), x_title="P(IsNext) (%)")
    fig.update_yaxes(tickmode="array", tickvals=y, ticktext=[safe_label(l, 40) for l in labels], autorange="reversed")
    fig.update_xaxes(range=[0, 100])
    return fig


def nsp_table(pairs: Sequence[tuple[str, str, bool, float]], texts: Texts | None = None) -> pd.DataFrame:
    """Held-out sentence pairs (A, B, is_next, P(IsNext)) as a table: truth, P, whether the model is
    right (words from ``texts``)."""
    yes, no = word(texts, "bert.nsp.yes"), word(texts, "bert.nsp.no")
    return pd.DataFrame(
        [
            {
                word(texts, "bert.nsp.pair"): k + 1,
                "A": a,
                "B": b,
                word(texts, "bert.nsp.truth"): "IsNext" if nxt else "NotNext",
                "P(IsNext)": f"{p:.0%}",
                word(texts, "bert.nsp.right"): yes if (p >= 0.5) == nxt else no,
            }
            for k, (a, b, nxt, p) in enumerate(pairs)
        ]
    )


def class_figure(
    labels: Sequence[str], probs: Sequence[float], trained: bool, title: str | None = None, texts: Texts | None = None
) -> go.Figure:
    """P(class) from the pooled [CLS]; grey bars when the head is untrained."""
    color = SERIES_COLORS[0] if trained else "#b0b7c3"
    fig = go.Figure(
        go.Bar(
            x=[safe_label(l) for l in labels],
            y=[p * 100 for p in probs],
            marker_color=color,
            text=[f"{p:.0%}" for p in probs],
            textposition="auto",
        )
    )
    base_layout(fig, title=title, height=300, y_title=word(texts, "bert.probability"))
    fig.update_traces(width=0.5)
    fig.update_yaxes(range=[0, 100])
    return fig


def tag_figure(
    tokens: Sequence[str], probs: np.ndarray, label: str, trained: bool, title: str | None = None
) -> go.Figure:
    """P(``label``) per token as bars over the token axis (grey when the head is untrained)."""
    x = np.arange(len(tokens))
    color = SERIES_COLORS[2] if trained else "#b0b7c3"
    fig = go.Figure(
        go.Bar(
            x=x,
            y=probs * 100,
            marker_color=color,
            customdata=_labels(tokens, 24),
            hovertemplate="%{customdata}: %{y:.1f}%<extra></extra>",
        )
    )
    base_layout(fig, title=title, height=380, y_title=f"P({safe_label(label)}) %")
    fig.update_xaxes(tick_axis(_labels(tokens), plot_width(left_px=80, right_px=20), max_ticks=64))
    fig.update_yaxes(range=[0, 100])
    fig.add_hline(y=50, line=dict(color="#333", dash="dot"))
    return fig


def span_figure(
    tokens: Sequence[str],
    start: np.ndarray,
    end: np.ndarray,
    best: tuple[int, int] | None,
    title: str | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Start scores S·h_i and end scores E·h_j per token; the best span i ≤ j shaded."""
    x = np.arange(len(tokens))
    fig = go.Figure()
    fig.add_trace(go.Bar(x=x, y=start, name=word(texts, "bert.span.start"), marker_color=SERIES_COLORS[0]))
    fig.add_trace(go.Bar(x=x, y=end, name=word(texts, "bert.span.end"), marker_color=SERIES_COLORS[1]))
    if best is not None and best[0] >= 0:
        fig.add_vrect(x0=best[0] - 0.5, x1=best[1] + 0.5, fillcolor=SERIES_COLORS[2], opacity=0.15, line_width=0)
    base_layout(fig, title=title, height=400, y_title=word(texts, "score"))
    fig.update_xaxes(tick_axis(_labels(tokens), plot_width(left_px=80, right_px=20), max_ticks=64))
    legend_below(fig)
    fig.update_layout(margin=dict(l=10, r=10, t=60 if title else 20, b=150), barmode="group")
    return fig


def explorer_head_figures(
    layer_attention: np.ndarray,
    head: int,
    tokens: Sequence[str],
    scale: str = "absolute",
    texts: Texts | None = None,
    width: float | None = None,
    height: float | None = None,
) -> tuple[HeadFigure, HeadFigure]:
    """One head of a layer's (heads, L, L) attention and the layer's average over heads, as
    :func:`viz_core.attention_grid.head_figure` heatmaps sized and lettered for a projector.
    ``scale="absolute"``: the app's 0–1 colour scale; ``"head"``: each figure shaded to its own
    maximum, and its colour bar says so (words from ``texts``).

    With ``height``, a figure drawn ``width`` × ``height`` px with cells not square (a slide: 1200 ×
    540): its tick labels are planned for that whole area, with room for a title line, instead of
    for the page's square cells (15 tokens then keep every label)."""
    labels = _labels(tokens)
    zmax = None if scale == "head" else 1.0
    figures = (
        head_figure(layer_attention[head], labels, zmax=zmax, width=width, texts=texts),
        head_figure(
            layer_attention.mean(0),
            labels,
            zmax=zmax,
            relative_to=word(texts, "bert.average_max"),
            width=width,
            texts=texts,
        ),
    )
    if height is not None:
        for one in figures:
            _plan_head_ticks(one.figure, labels, width, height)
    return figures


def _plan_head_ticks(fig: go.Figure, labels: Sequence[str], width: float | None, height: float) -> None:
    """Re-plan a :func:`head_figure`'s ticks (keys on top, queries on the left) for a plot that fills a
    ``width`` × ``height`` figure (the margins :func:`head_figure` leaves: labels and 50 px on the left,
    a colour bar on the right or below the plot, a title line above the key labels, 20 px below)."""
    below = fig.data[0].colorbar.orientation == "h"  # head_figure moved it (viz_core.style.colorbar_below)
    x_axis = tick_axis(
        labels,
        plot_width(width, 50 + max(text_width(short_label(t)) for t in labels), 10 if below else 110),
        max_ticks=64,
    )
    top = title_dict("title")[1] + axis_extent(x_axis) + 30
    bottom = 20 + (COLORBAR_BELOW_PX if below else 0)
    y_axis = tick_axis(labels, max(height - top - bottom, 1.0), vertical_axis=True, max_ticks=64)
    fig.update_layout(xaxis=x_axis, yaxis=y_axis, height=int(height), margin_t=int(top))


# --------------------------------------------------------------------------------------
# Real model explorer: one head, the layer average, token-to-token lines
# --------------------------------------------------------------------------------------


def lines_figure(
    matrix: np.ndarray,
    tokens: Sequence[str],
    start: int = 0,
    stop: int | None = None,
    query: int | None = None,
    min_weight: float = 0.02,
    title: str | None = None,
    levels: int = 6,
    texts: Texts | None = None,
) -> go.Figure:
    """The two-column "lines" view of one head (or an average): queries on the left, keys on the
    right, a line from query i to key j drawn darker and thicker the larger α[i, j].

    Only the window ``start … stop`` of tokens is drawn (weights to keys outside it are not
    shown), lines below ``min_weight`` are skipped, and with ``query`` set only that token's lines.
    Lines are grouped into ``levels`` weight bins, one trace each (a few hundred points at most).
    """
    L = matrix.shape[0]
    stop = L if stop is None else min(stop, L)
    start = max(0, min(start, stop - 1))
    window = np.arange(start, stop)
    sub = matrix[np.ix_(window, window)]
    rows = [query - start] if query is not None and start <= query < stop else range(len(window))
    labels = _labels([tokens[i] for i in window], 18)
    edges = np.linspace(min_weight, 1.0, levels + 1)
    fig = go.Figure()
    for b in range(levels):
        lo, hi = edges[b], edges[b + 1]
        xs: list[float | None] = []
        ys: list[float | None] = []
        for i in rows:
            for j in np.flatnonzero((sub[i] >= lo) & ((sub[i] < hi) | (b == levels - 1))):
                xs += [0.0, 1.0, None]
                ys += [float(i), float(j), None]
        if xs:
            mid = (lo + hi) / 2
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    line=dict(color=f"rgba(8,81,156,{0.15 + 0.85 * mid:.2f})", width=1 + 7 * mid),
                )
            )
    y = np.arange(len(window))
    highlight = [
        SERIES_COLORS[1] if query is not None and int(window[k]) == query else "#111" for k in range(len(window))
    ]
    for side, anchor in ((0.0, "right"), (1.0, "left")):
        fig.add_trace(
            go.Scatter(
                x=[side] * len(window),
                y=y,
                mode="markers+text",
                text=labels,
                textposition="middle left" if anchor == "right" else "middle right",
                textfont=dict(size=BASE_FONT_SIZE - 2, color=highlight),
                marker=dict(size=6, color="#555"),
                showlegend=False,
                customdata=window,
                hovertemplate=word(texts, "bert.token_hover"),
            )
        )
    base_layout(fig, title=title, height=max(360, 120 + 22 * len(window)))
    fig.update_xaxes(visible=False, range=[-0.6, 1.6])
    fig.update_yaxes(visible=False, range=[len(window) - 0.5, -0.8])
    fig.add_annotation(
        x=0,
        y=-0.8,
        text=word(texts, "query"),
        showarrow=False,
        xanchor="right",
        yanchor="bottom",
        font=dict(size=BASE_FONT_SIZE),
    )
    fig.add_annotation(
        x=1,
        y=-0.8,
        text=word(texts, "key"),
        showarrow=False,
        xanchor="left",
        yanchor="bottom",
        font=dict(size=BASE_FONT_SIZE),
    )
    return fig
