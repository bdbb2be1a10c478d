"""Figures for seq2seq decoding traces: attention heatmap, per-step bars, beam tree, BLEU by length.

Inputs are numpy arrays and token lists (a Seq2seqDecodeTrace's fields); outputs are plotly figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from viz_core.labels import safe_label, token_labels
from viz_core.style import (
    HIGHLIGHT,
    SERIES_COLORS,
    TEXT_COLOR,
    attention_scale,
    cell_outline,
    colorbar_below,
    heatmap_plan,
    labels_margin,
    layout_dict,
    plot_width,
    short_label,
    text_width,
    tick_axis,
)
from viz_core.texts import Texts, word

LEGEND_TOP_RIGHT = {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"}
LEGEND_ROW_PX = 40  # the top margin a LEGEND_TOP_RIGHT legend adds below the title

GOLD = "#d62728"  # gold word alignment


def attention_heatmap(
    weights: np.ndarray,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    step: int | None = None,
    gold: Iterable[tuple[int, int]] | None = None,
    src_unknown: Sequence[bool] | None = None,
    title: str | None = None,
    height: int | None = None,
    positions: Sequence[float] | None = None,
    width: float | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Target × source heatmap of α; integer axes keep repeated tokens apart; ticks and title are
    planned for ``width`` px (default: the narrowest column a figure is drawn in); axis and legend
    words from ``texts`` (viz_core.texts).

    ``step`` outlines that row; ``gold`` links (src_i, tgt_j) are drawn as open squares;
    ``positions`` (one per row) are local attention's aligned positions p_t, drawn as diamonds.
    """
    weights = np.asarray(weights, dtype=float)
    x_labels = token_labels(src_tokens, src_unknown)
    y_labels = token_labels(tgt_tokens)
    hover = [
        [f"{y_labels[t]} ← {x_labels[s]}<br>α = {weights[t, s]:.4f}" for s in range(weights.shape[1])]
        for t in range(weights.shape[0])
    ]
    data: list = [
        go.Heatmap(
            z=weights,
            x=list(range(weights.shape[1])),
            y=list(range(weights.shape[0])),
            **attention_scale(title="α"),
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=1,
        )
    ]
    if gold:
        links = [(s, t) for s, t in gold if t < weights.shape[0] and s < weights.shape[1]]
        data.append(
            go.Scatter(
                x=[s for s, _ in links],
                y=[t for _, t in links],
                mode="markers",
                name=word(texts, "s2s.gold"),
                marker={"symbol": "square-open", "size": 22, "color": GOLD, "line": {"width": 3}},
                hoverinfo="skip",
            )
        )
    if positions is not None and len(positions):
        p_t = np.asarray(positions, dtype=float)[: weights.shape[0]]
        data.append(
            go.Scatter(
                x=p_t,
                y=list(range(len(p_t))),
                mode="markers",
                name=word(texts, "s2s.aligned"),
                marker={"symbol": "diamond", "size": 12, "color": HIGHLIGHT, "line": {"width": 2, "color": "#000"}},
                hovertext=[word(texts, "s2s.aligned_hover", step=t + 1, p=p) for t, p in enumerate(p_t)],
                hoverinfo="text",
            )
        )
    rows = weights.shape[0]
    layout = layout_dict(
        title, height or max(360, 120 + 40 * rows), word(texts, "s2s.x"), word(texts, "s2s.y"), width=width
    )
    if len(data) > 1:  # the legend's row, between the title and the plot (above it, it ran into the title)
        layout["margin"]["t"] += LEGEND_ROW_PX
        layout["legend"].update(LEGEND_TOP_RIGHT)
    x_axis, y_axis, below = heatmap_plan(
        x_labels, y_labels, max_ticks=60, height=layout["height"], width=width, top_px=layout["margin"]["t"]
    )
    if below:  # the width to label every token (viz_core.style.heatmap_plan)
        data[0].colorbar = colorbar_below(data[0].colorbar.to_plotly_json())
    layout["xaxis"].update(x_axis)
    layout["xaxis"]["title"]["standoff"] = 12  # set, the title keeps below upright labels (unset, it ran into them)
    layout["yaxis"].update(y_axis)
    if step is not None and 0 <= step < rows:
        layout["shapes"] = [cell_outline((0, weights.shape[1] - 1), (step, step))]
    return go.Figure(data=data, layout=layout)


def step_attention_bars(
    weights: np.ndarray,
    src_tokens: Sequence[str],
    src_unknown: Sequence[bool] | None = None,
    title: str | None = None,
) -> go.Figure:
    """α_t over the source tokens as bars (one bar per position, repeated tokens apart)."""
    labels = token_labels(src_tokens, src_unknown)
    weights = np.asarray(weights, dtype=float)
    layout = layout_dict(title, 300, y_title="α")
    layout["xaxis"].update(tick_axis(labels, plot_width(left_px=80, right_px=20)))
    layout["yaxis"].update(range=[0, 1.15])
    fig = go.Figure(
        go.Bar(
            x=list(range(len(labels))),
            y=weights,
            marker_color=SERIES_COLORS[0],
            text=[f"{w:.2f}" if w >= 0.05 else "" for w in weights],
            textposition="outside",
            hovertext=[f"{lab}: α = {w:.4f}" for lab, w in zip(labels, weights)],
            hoverinfo="text",
        ),
        layout=layout,
    )
    return fig


def topk_bars(
    tokens: Sequence[str], probs: np.ndarray, emitted: str | None = None, title: str | None = None
) -> go.Figure:
    """The top-k next-token probabilities, most likely on top; the emitted token highlighted."""
    labels = [safe_label(t) for t in tokens]
    probs = np.asarray(probs, dtype=float)
    colors = [HIGHLIGHT if t == emitted else SERIES_COLORS[0] for t in tokens]
    layout = layout_dict(title, 80 + 40 * len(labels))
    layout["yaxis"].update(
        tickmode="array", tickvals=list(range(len(labels))), ticktext=labels, autorange="reversed", automargin=False
    )
    layout["margin"]["l"] = labels_margin(labels)  # planned: each step's tokens differ (labels_margin)
    # Ticks stop at 100%; the room beyond is for the value text, which goes inside long bars.
    layout["xaxis"].update(range=[0, 1.3], tickformat=".0%", tickmode="array", tickvals=[0, 0.25, 0.5, 0.75, 1])
    fig = go.Figure(
        go.Bar(
            x=probs,
            y=list(range(len(labels))),
            orientation="h",
            marker_color=colors,
            text=[f"{p:.1%}" for p in probs],
            textposition="auto",
            cliponaxis=False,
            hovertext=[f"{lab}: p = {p:.4f}" for lab, p in zip(labels, probs)],
            hoverinfo="text",
        ),
        layout=layout,
    )
    return fig


_BEAM_FONT = 16  # label size in the beam tree: the body text's, readable from the back of the room
_BEAM_PRUNED_GAP = 0.4  # vertical room of a pruned candidate, in units of a labelled one
#: The width the beam tree is planned for: it is drawn across the page's whole column (1280 × 720,
#: sidebar open: measured 762 px).
BEAM_TREE_PX = 740
_BEAM_MIN_LABEL_CHARS = 4  # a column narrower than this many characters of label: the earliest steps pan out
_BEAM_SLOPE_PX = 16  # room between a label's end and the next column's dots, where the edges run
_BEAM_DOT_PX = 8  # from a dot's centre to its label


def _fit_label(text: str, room: float, font_size: float = _BEAM_FONT) -> str:
    """``text`` (an escaped label) cut with "…" to the longest start that is at most ``room`` px wide."""
    for limit in range(len(text), 1, -1):
        label = short_label(text, limit)
        if text_width(label, font_size) <= room:
            return label
    return short_label(text, 2)


def beam_parent_ranks(steps: Sequence[Sequence]) -> list[list[int | None]]:
    """For every candidate of every step, the rank (index in the previous step's list) of the
    candidate it extends, or None at step 1 (it extends the start token).

    A candidate's ``parent`` is the index of its hypothesis in the previous step's beam: the kept,
    unfinished candidates of that step in rank order (finished ones leave the beam)."""
    out: list[list[int | None]] = []
    beam: list[int | None] = [None]  # the beam before step 1: the start token alone
    for candidates in steps:
        out.append([beam[c.parent] if 0 <= c.parent < len(beam) else None for c in candidates])
        beam = [rank for rank, c in enumerate(candidates) if c.kept and not c.finished]
    return out


def beam_tree_figure(
    steps: Sequence[Sequence],
    upto: int | None = None,
    title: str | None = None,
    width: float | None = None,
    texts: Texts | None = None,
) -> go.Figure:
    """Beam search as a tree: column t holds every candidate considered at step t, for every step
    up to ``upto``, each joined to the hypothesis it extends (:func:`beam_parent_ranks`).

    ``steps`` are lists of candidates with fields parent, token, token_log_prob, log_prob, kept,
    finished (a trace's ``beam_steps``). Kept candidates are large dots labelled with their token
    and joined to their parent by a solid line, so every kept prefix is a path from the start
    token (one that stops before the last column was dropped there); finished ones are stars;
    pruned ones are small grey dots on grey dashed lines (their own legend entry). Each node's
    customdata is [step, rank, parent's rank (−1: the start token)]; hover gives the numbers.

    Labels never overlap: each sits right of its dot and the edges leave from its end; kept
    candidates get a full row of height and pruned (unlabelled) ones a narrow one (rows keep the
    rank order). Every step fits a figure ``width`` px wide (default :data:`BEAM_TREE_PX`), with
    labels cut to fit (the cumulative log-probability goes into the label where there is room);
    only when a column would hold less than four characters do the earliest steps pan out of view.
    """
    upto = len(steps) if upto is None else max(0, min(upto, len(steps)))
    shown_steps = steps[:upto]
    parents = beam_parent_ranks(shown_steps)
    axis_px = plot_width(width or BEAM_TREE_PX, 40, 30)
    tokens = [safe_label(c.token, 12) for cands in shown_steps for c in cands if c.kept]
    totals = [f"{c.log_prob:.2f}" for cands in shown_steps for c in cands if c.kept]
    char_px = text_width("a", _BEAM_FONT)
    # The columns: the start token's and one per step, each dot + label + room for the edges.
    column_px = axis_px / (upto + 1.0)
    room = column_px - _BEAM_SLOPE_PX - _BEAM_DOT_PX  # label px a column holds
    with_total = bool(tokens) and max(text_width(f"{t} {s}", _BEAM_FONT) for t, s in zip(tokens, totals)) <= room
    pan = room < _BEAM_MIN_LABEL_CHARS * char_px
    if pan:  # too many steps for readable labels: the latest ones in view, the earlier ones a pan away
        room = _BEAM_MIN_LABEL_CHARS * char_px
        column_px = room + _BEAM_SLOPE_PX + _BEAM_DOT_PX

    rows: list[list[float]] = []  # y of every candidate
    label_end: list[list[float]] = []  # x (in steps) where an edge leaves the candidate
    # per group: x, y, label, hover text, custom data (step, rank, parent) of each candidate
    groups: dict[str, tuple[list[int], list[float], list[str], list[str], list[list[int]]]] = {
        g: ([], [], [], [], []) for g in ("kept", "finished", "pruned")
    }
    # per kind: x and y of the edges, None between two edges
    edges: dict[str, tuple[list[float | None], list[float | None]]] = {"kept": ([], []), "pruned": ([], [])}
    bottom = 0.0
    for t, (candidates, ranks) in enumerate(zip(shown_steps, parents), start=1):
        y, ys, ends = -1.0, [], []
        for rank, (c, parent) in enumerate(zip(candidates, ranks)):
            group = "finished" if c.kept and c.finished else "kept" if c.kept else "pruned"
            y += 1.0 if c.kept or rank == 0 else _BEAM_PRUNED_GAP
            label = ""
            if c.kept:
                label = (
                    f"{safe_label(c.token, 12)} {c.log_prob:.2f}"
                    if with_total
                    else _fit_label(safe_label(c.token, 12), room)
                )
            ys.append(y)
            ends.append(t + (text_width(label, _BEAM_FONT) + _BEAM_DOT_PX + 4) / column_px if label else t)
            xs_, ys_, marks, hovers, custom = groups[group]
            xs_.append(t)
            ys_.append(y)
            marks.append(label)
            hovers.append(
                word(
                    texts,
                    "beam.hover",
                    step=t,
                    token=safe_label(c.token),
                    log_p=c.token_log_prob,
                    total=c.log_prob,
                    group=word(texts, f"beam.{group}"),
                    rank=rank + 1,
                )
            )
            custom.append([t, rank, -1 if parent is None else parent])
            if parent is None:  # from the start token
                x0, y0 = (text_width("&lt;s&gt;", _BEAM_FONT) + _BEAM_DOT_PX + 4) / column_px, 0.0
            else:
                x0, y0 = label_end[-1][parent], rows[-1][parent]
            ex, ey = edges["kept" if c.kept else "pruned"]
            ex += [x0, t, None]
            ey += [y0, y, None]
        rows.append(ys)
        label_end.append(ends)
        bottom = max(bottom, y)

    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=edges["pruned"][0],
            y=edges["pruned"][1],
            mode="lines",
            hoverinfo="skip",
            line={"color": "#b3bcc8", "width": 1.5, "dash": "dash"},
            name=word(texts, "beam.pruned"),
            legendgroup="pruned",
            showlegend=bool(edges["pruned"][0]),
            legendrank=3,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=edges["kept"][0],
            y=edges["kept"][1],
            mode="lines",
            hoverinfo="skip",
            line={"color": "#5b6b80", "width": 2.5},
            showlegend=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[0],
            y=[0],
            mode="markers+text",
            text=["&lt;s&gt;"],
            textposition="middle right",
            marker={"size": 14, "color": "#444"},
            hoverinfo="skip",
            showlegend=False,
            textfont={"size": _BEAM_FONT, "color": TEXT_COLOR},
        )
    )
    styles = {
        "pruned": {"size": 8, "color": "#9aa5b4"},
        "kept": {"size": 14, "color": SERIES_COLORS[0]},
        "finished": {"size": 20, "color": HIGHLIGHT, "symbol": "star"},
    }
    for rank_in_legend, (group, (xs, ys, marks, hovers, custom)) in enumerate(groups.items(), start=1):
        if xs:
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="markers+text" if group != "pruned" else "markers",
                    text=marks,
                    textposition="middle right",
                    hovertext=hovers,
                    hoverinfo="text",
                    customdata=custom,
                    marker=styles[group],
                    name=word(texts, f"beam.{group}"),
                    legendgroup=group,
                    showlegend=group != "pruned",
                    legendrank=rank_in_legend,
                    textfont={"size": _BEAM_FONT, "color": TEXT_COLOR},
                )
            )
    # One labelled row ≥ 1.6 lines of text.
    row_px = 2.0 * _BEAM_FONT
    layout = layout_dict(title, None, word(texts, "beam.x"), word(texts, "beam.y"), width=width or BEAM_TREE_PX)
    height = int(layout["margin"]["t"] + 150 + row_px * (bottom + 1.5))
    left = -0.3 if not pan else upto + 0.7 - axis_px / column_px  # pan: the latest step's label in view
    right = left + axis_px / column_px
    layout.update(height=max(360, height + 40))
    # The legend goes below the steps, where it cannot run into a long title.
    layout["legend"].update(
        orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0, xanchor="left", traceorder="normal"
    )
    layout["margin"]["b"] = 60
    layout["yaxis"].update(autorange=False, range=[bottom + 0.6, -0.8], showticklabels=False)
    layout["xaxis"].update(tickmode="array", tickvals=list(range(1, upto + 1)), range=[left, right])
    fig.update_layout(layout)
    return fig


def bleu_by_length_figure(results: dict, title: str | None = None, texts: Texts | None = None) -> go.Figure:
    """Test BLEU against source length for every evaluated model (Bahdanau et al. 2014, Fig. 2)."""
    fig = go.Figure()
    for i, model in enumerate(results.get("models", [])):
        buckets = [b for b in model["bleu_by_length"] if b["bleu"] is not None]
        fig.add_trace(
            go.Scatter(
                x=[f"{b['min_len']}–{b['max_len']}" for b in buckets],
                y=[b["bleu"] for b in buckets],
                mode="lines+markers",
                name=safe_label(model["label"]),
                line={
                    "color": SERIES_COLORS[i % len(SERIES_COLORS)],
                    "width": 3,
                    "dash": "dot" if model["kind"] == "none" else "solid",
                },
                marker={"size": 10},
                hovertext=[
                    word(
                        texts,
                        "bleu.hover",
                        model=safe_label(model["label"]),
                        lo=b["min_len"],
                        hi=b["max_len"],
                        bleu=b["bleu"],
                        n=b["n"],
                    )
                    for b in buckets
                ],
                hoverinfo="text",
            )
        )
    layout = layout_dict(title, 420, word(texts, "bleu.x"), word(texts, "bleu.y"))
    layout["yaxis"].update(range=[0, 102])
    fig.update_layout(layout)
    return fig
