"""Click-to-explain on every attention heatmap: :func:`explained_chart` draws a heatmap whose
cells can be clicked (viz_core.explain's invisible cell layer) and, under it, the derivation of
the clicked weight — score, scaling, mask, softmax over its row — as a small table and a
sentence. The numbers come from ``models.inference.explain``: the model that drew the heatmap,
re-run on the same input; the table's last line checks them against the drawn weight.

A binned heatmap (long inputs: one drawn cell per block of queries × keys) is clickable too: a
click names the block, checks its drawn value against the model's weights, lists its strongest
cells and explains one real (query, key) cell of it — the largest by default, or the one picked.

A figure of several heatmaps side by side (subplots) gets a click layer per panel
(:func:`explained_panels`). The derivations themselves, one cached function per model family, and the
per-figure calls of the pages are in ui.cells, which loads the models through the page modules; this
module imports none of them, so that those modules' sections can draw clickable charts too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from models.inference.traces import CellExplanation, HeadWalkthrough
from ui.export import PLOT
from ui.i18n import figure_texts, tr
from ui.plot import chart
from ui.tokens import md_escape
from viz_core.explain import (
    Binning,
    add_cell_layer,
    binning_of,
    block_cells,
    block_value,
    cell_of_point,
    drawn_values,
    outline_block,
    outline_cell,
)

Explainer = Callable[[int, int], "CellExplanation | list[CellExplanation]"]
#: Drawn weight and derivation must agree to this (float32 rounding of the same computation).
TOLERANCE = 1e-5
#: A binned block's picker lists at most this many of its cells (largest first); its table the top few.
PICK_CAP, STRONGEST = 64, 5


def each_head(explain: Callable[[int, int, int], CellExplanation], n_heads: int) -> Explainer:
    """The explainer of an average over heads: one derivation per head (``explain(head, q, k)``)."""
    return lambda q, k: [explain(h, q, k) for h in range(n_heads)]


# --------------------------------------------------------------------------------------
# The chart and the derivation
# --------------------------------------------------------------------------------------


def _num(x: float) -> str:
    return "−∞" if np.isneginf(x) else f"{x:.4f}"


def _steps(e: CellExplanation, drawn: float, binned: bool) -> pd.DataFrame:
    """The clicked cell's derivation, one line per step (the formulas' numbers, as computed);
    ``binned``: the heatmap draws the cell's block, so the compared value is the model's weight."""
    k = e.key_index
    d = len(next(iter(e.terms.values())))
    rows = [(tr("explain.step.score"), tr("explain.how.dims", formula=e.score_formula, d=d), _num(e.score))]
    scaled = e.score / e.scale
    rows.append(
        (
            tr("explain.step.scale"),
            tr("explain.how.scale", scale=f"{e.scale:.3f}") if e.scale != 1 else tr("explain.how.noscale"),
            _num(scaled),
        )
    )
    if e.allowed[k]:
        mask = tr("explain.how.allowed")
    elif e.position is not None:
        mask = tr("explain.how.window", p=f"{e.position:.2f}")
    else:
        mask = tr("explain.how.blocked")
    rows.append((tr("explain.step.mask"), mask, _num(e.masked[k])))
    finite = e.masked[np.isfinite(e.masked)]
    top = float(finite.max())
    den = float(np.exp(finite - top).sum())
    num = float(np.exp(e.masked[k] - top)) if e.allowed[k] else 0.0
    rows.append(
        (
            tr("explain.step.softmax"),
            tr(
                "explain.how.softmax",
                x=_num(e.masked[k]),
                m=f"{top:.4f}",
                num=f"{num:.4f}",
                den=f"{den:.4f}",
                n=len(finite),
            ),
            _num(e.softmax[k]),
        )
    )
    if e.factor is not None:
        rows.append(
            (
                tr("explain.step.gaussian"),
                tr("explain.how.gaussian", factor=f"{e.factor[k]:.4f}", p=f"{e.position:.2f}"),
                _num(e.softmax[k] * e.factor[k]),
            )
        )
    if e.after_softmax == "hard one-hot":
        rows.append((tr("explain.step.hard"), tr("explain.how.hard"), _num(e.weights[k])))
    rows.append(
        (tr("explain.step.model"), tr("explain.how.model"), _num(drawn))
        if binned
        else (tr("explain.step.drawn"), tr("explain.how.drawn"), _num(drawn))
    )
    rows.append((tr("explain.step.check"), tr("explain.how.check", err=f"{e.error:.1e}"), _num(e.model_weights[k])))
    # st.table renders its cells as markdown: "+ 0" would become a bullet, so every cell is escaped.
    return pd.DataFrame(
        [[md_escape(c) for c in r] for r in rows],
        columns=[tr("explain.col.step"), tr("explain.col.how"), tr("explain.col.value")],
    )


def _row_table(e: CellExplanation, key_labels: Sequence[str]) -> pd.DataFrame:
    """Every drawn key of the row: score, scaled, mask, softmax (and the final weight); ▶ marks the
    clicked key. (A decoder's row may run past the drawn keys: those are masked, weight 0.)"""
    n = min(len(key_labels), len(e.scores))
    keys = [("▶ " if i == e.key_index else "") + f"{i} · {lab}" for i, lab in enumerate(key_labels[:n])]
    frame = {
        tr("explain.col.key"): keys,
        tr("explain.col.score"): e.scores[:n],
        tr("explain.col.scaled"): e.scores[:n] / e.scale,
        tr("explain.col.mask"): ["+0" if a else "−∞" for a in e.allowed[:n]],
        tr("explain.col.softmax"): e.softmax[:n],
    }
    if e.after_softmax:
        frame[tr("explain.col.weight")] = e.weights[:n]
    return pd.DataFrame(frame)


def _one(e: CellExplanation, drawn: float, query: str, key: str, key_labels: Sequence[str], binned: bool) -> None:
    """The derivation of a single head's (or RNN's) weight."""
    st.table(_steps(e, drawn, binned), hide_index=True, border="horizontal")
    shown = tr("explain.shown.model" if binned else "explain.shown.drawn", drawn=f"{drawn:.4f}")
    st.caption(
        md_escape(
            tr(
                "explain.sentence",
                key_token=key,
                query=query,
                score=f"{e.score:.4f}",
                n=int(e.allowed.sum()),
                weight=f"{e.weight:.4f}",
                shown=shown,
            )
        )
    )
    if abs(e.weight - drawn) > TOLERANCE:
        st.warning(tr("explain.mismatch", err=f"{abs(e.weight - drawn):.1e}"))
    with st.expander(tr("explain.row")):
        st.dataframe(_row_table(e, key_labels), hide_index=True, width="stretch")
    with st.expander(tr("explain.vectors")):
        st.dataframe(pd.DataFrame(list(e.terms.values()), index=list(e.terms)), width="stretch")
        st.caption(tr("explain.vectors.sum", score=f"{e.score:.4f}"))


def _average(heads: list[CellExplanation], drawn: float) -> None:
    """The derivation of an average over heads: each head's weight of the cell, then the mean."""
    st.caption(tr("explain.average"))
    mean = float(np.mean([e.weight for e in heads]))
    frame = pd.DataFrame(
        {
            tr("explain.col.head"): [f"{e.head + 1}" for e in heads] + [tr("explain.mean")],
            tr("explain.col.score"): [_num(e.score) for e in heads] + [""],
            tr("explain.col.scaled"): [_num(e.score / e.scale) for e in heads] + [""],
            tr("explain.col.weight"): [_num(e.weight) for e in heads] + [_num(mean)],
        }
    )
    st.table(frame.map(md_escape), hide_index=True, border="horizontal")
    if abs(mean - drawn) > TOLERANCE:
        st.warning(tr("explain.mismatch", err=f"{abs(mean - drawn):.1e}"))


@dataclass(frozen=True)
class Panel:
    """One clickable heatmap of a figure: the drawn matrix ``weights``, its explainer
    (``explain(row, col)``: the cell's :class:`CellExplanation`, or one per head for an average over
    heads), the tokens its query and key index, and its ``name`` (the subplot's title) where a
    figure has several."""

    weights: np.ndarray
    explain: Explainer
    query_tokens: Sequence[str]
    key_tokens: Sequence[str]
    name: str = ""


def explained_chart(
    fig,
    key: str,
    weights: np.ndarray,
    explain: Explainer,
    *,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    context: Hashable,
    where: Any = None,
) -> None:
    """``ui.plot.chart(fig)`` with clickable cells and, below it, the derivation of the clicked
    cell of the drawn matrix ``weights``: :func:`explained_panels` with one :class:`Panel`."""
    explained_panels(fig, key, [Panel(weights, explain, query_tokens, key_tokens)], context=context, where=where)


def explained_panels(fig, key: str, panels: Sequence[Panel], *, context: Hashable, where: Any = None) -> None:
    """``ui.plot.chart(fig)`` whose heatmaps (``panels``, in the order of the figure's subplots,
    viz_core.explain.panel_count) have clickable cells and, below it, the derivation of the clicked
    cell. ``where``: a container (a column) for the chart alone; the derivation goes below, at full width.

    ``context`` identifies what the chart shows (model, input, layer, head …): a click is forgotten
    when it changes. The clicked cell lives in ``st.session_state[f"{key}_cell"]`` as (row, col) of
    the drawn cells of panel ``st.session_state[f"{key}_panel"]`` (0 when unset); on a binned figure
    (viz_core.explain.binning_of) that is a block, and the cell of it to explain is picked in
    ``st.session_state[f"{key}_pick"]`` as (query, key)."""
    cell_key, panel_key, ctx_key, pick_key = f"{key}_cell", f"{key}_panel", f"{key}_context", f"{key}_pick"
    if st.session_state.get(ctx_key) != context:
        st.session_state[ctx_key] = context
        for stale in (cell_key, panel_key, pick_key):
            st.session_state.pop(stale, None)
    layers = [add_cell_layer(fig, i) for i in range(len(panels))]
    if any(layer is None for layer in layers):
        chart(fig, key=key, config=PLOT, where=where)
        st.caption(tr("explain.too_many"))
        return
    bins = [binning_of(fig, i) for i in range(len(panels))]
    # what a click selects in each panel: a weight, or a block's value
    grids = [np.asarray(p.weights) if b is None else drawn_values(fig, i) for i, (p, b) in enumerate(zip(panels, bins))]

    def remember() -> None:
        event = st.session_state.get(key) or {}
        points = (event.get("selection") or {}).get("points") or []
        for i, layer in enumerate(layers):
            cell = cell_of_point(points, layer, grids[i].shape[1])
            if cell is not None:
                st.session_state[cell_key], st.session_state[panel_key] = cell, i
                return
        st.session_state[cell_key] = None

    cell = st.session_state.get(cell_key)
    at = st.session_state.get(panel_key) or 0
    at = at if isinstance(at, int) and 0 <= at < len(panels) else 0
    grid, panel = grids[at], panels[at]
    valid = (
        cell is not None
        and 0 <= cell[0] < grid.shape[0]
        and 0 <= cell[1] < grid.shape[1]
        and bool(np.isfinite(grid[cell[0], cell[1]]))
    )  # a hidden (NaN) cell explains nothing
    if valid and bins[at] is None:
        outline_cell(fig, *cell, panel=at)
    elif valid:
        outline_block(fig, *bins[at].block(*cell), panel=at)
    chart(fig, key=key, config=PLOT, on_select=remember, where=where)
    if not valid:
        st.caption(tr("explain.hint"))
        return
    w = np.asarray(panel.weights)
    if bins[at] is None:
        query, key_index = int(cell[0]), int(cell[1])
    else:
        query, key_index = _block(
            w,
            float(grid[cell[0], cell[1]]),
            bins[at],
            bins[at].block(*cell),
            pick_key,
            panel.query_tokens,
            panel.key_tokens,
        )
    _explain_cell(
        panel.explain,
        query,
        key_index,
        float(w[query, key_index]),
        panel.query_tokens,
        panel.key_tokens,
        binned=bins[at] is not None,
        panel=panel.name if len(panels) > 1 else "",
    )


def _at(i: int, tokens: Sequence[str]) -> str:
    """A position and its token, as the picker and the block's table name it."""
    return f"{i} · {tokens[i]}"


def _block(
    w: np.ndarray,
    drawn: float,
    bins: Binning,
    block: tuple[range, range],
    pick_key: str,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
) -> tuple[int, int]:
    """The clicked block of a binned heatmap: the queries and keys it covers, its drawn value
    recomputed from the model's weights ``w`` by bin_attention's formula, its strongest cells, and
    a picker of the (query, key) to explain (default: the block's largest weight), returned."""
    rows, cols = block
    value = block_value(w, rows, cols, bins.how)
    st.markdown(
        "**"
        + tr(
            "explain.block.title",
            q0=rows.start,
            q1=rows.stop - 1,
            k0=cols.start,
            k1=cols.stop - 1,
            drawn=f"{drawn:.4f}",
        )
        + "**"
    )
    formula = "explain.block.mean" if bins.how == "mean" else "explain.block.max"
    st.caption(
        tr(
            formula,
            n_q=len(rows),
            n=len(rows) * len(cols),
            total=f"{value * len(rows):.4f}",
            value=f"{value:.4f}",
            drawn=f"{drawn:.4f}",
            err=f"{abs(value - drawn):.1e}",
        )
    )
    if abs(value - drawn) > TOLERANCE:
        st.warning(tr("explain.mismatch", err=f"{abs(value - drawn):.1e}"))
    cells = block_cells(w, rows, cols)[:PICK_CAP]
    top = cells[:STRONGEST]
    st.dataframe(
        pd.DataFrame(
            {
                tr("explain.col.query"): [_at(q, query_tokens) for q, _, _ in top],
                tr("explain.col.key"): [_at(k, key_tokens) for _, k, _ in top],
                tr("explain.col.weight"): [v for _, _, v in top],
            }
        ),
        hide_index=True,
        width="stretch",
        column_config={tr("explain.col.weight"): st.column_config.NumberColumn(format="%.4f")},
    )
    weight = {(q, k): v for q, k, v in cells}
    if st.session_state.get(pick_key) not in weight:  # a pick from another block: back to the largest
        st.session_state.pop(pick_key, None)
    more = (
        tr("explain.block.capped", shown=len(cells), n=len(rows) * len(cols))
        if len(cells) < len(rows) * len(cols)
        else ""
    )
    return st.selectbox(
        tr("explain.block.pick") + more,
        list(weight),
        key=pick_key,
        format_func=lambda c: f"{_at(c[0], query_tokens)} → {_at(c[1], key_tokens)} · {weight[c]:.4f}",
    )


def _explain_cell(
    explain: Explainer,
    query_index: int,
    key_index: int,
    drawn: float,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    *,
    binned: bool,
    panel: str = "",
) -> None:
    """The derivation of weight ``drawn`` = α[query_index, key_index] by ``explain``: a title (after the
    ``panel``'s name, on a figure of several), then one head's steps (:func:`_one`) or each head's weight
    and their mean (:func:`_average`)."""
    try:
        result = explain(query_index, key_index)
    except ValueError as exc:  # no model, a model without this kind of attention, a stale cell
        st.warning(tr("explain.failed", reason=str(exc)))
        return
    first = result[0] if isinstance(result, list) else result
    query, key_token = query_tokens[first.query_index], key_tokens[first.key_index]
    where = (
        ""
        if first.layer < 0
        else tr("explain.where.layer", layer=first.layer + 1)
        if isinstance(result, list)
        else tr("explain.where.head", layer=first.layer + 1, head=first.head + 1)
    )
    st.markdown(
        "**"
        + md_escape(
            (f"{panel} · " if panel else "")
            + tr(
                "explain.title",
                weight=f"{drawn:.4f}",
                query=query,
                row=first.query_index,
                key_token=key_token,
                col=first.key_index,
            )
            + where
        )
        + "**"
    )
    if isinstance(result, list):
        _average(result, drawn)
    else:
        _one(result, drawn, query, key_token, key_tokens, binned)


# --------------------------------------------------------------------------------------
# One call per page figure
# --------------------------------------------------------------------------------------


def whole_head(walk: Callable[[int], HeadWalkthrough], n_queries: int, key: str, context: Hashable, title: str) -> None:
    """Every query's row of one head, from its walkthroughs ``walk(query)`` (the model's own rows),
    as a clickable heatmap: a click explains that cell from the same walkthrough."""
    from models.inference.explain import from_walkthrough
    from viz_core.transformer import attention_matrix_figure

    walks = [walk(q) for q in range(n_queries)]
    matrix = np.stack([w.model_weights for w in walks])
    blocked = ~np.stack([w.allowed for w in walks])
    keys, queries = walks[0].key_tokens, walks[0].query_tokens
    fig = attention_matrix_figure(matrix, keys, queries, blocked=blocked, title=title, texts=figure_texts())
    explained_chart(
        fig,
        key,
        matrix,
        lambda q, k: from_walkthrough(walks[q], k),
        query_tokens=queries,
        key_tokens=keys,
        context=context,
    )
