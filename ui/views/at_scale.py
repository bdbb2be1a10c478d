"""The Attention-at-scale page's view, declared once: FlashAttention's tile at one step (key block j) for
one query block of one head, beside the whole attention matrix that standard attention would hold. The
page (pages/15_Attention_at_scale.py), its slide (:func:`slide`, one step per key block) and the export
draw this same figure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ui.at_scale import (
    BLOCKS,
    EXAMPLE,
    FIGURE_HEIGHT,
    LAB_MODEL,
    PAGE_WIDTH,
    TEXT_LIMIT,
    FlashRun,
    flash_run,
    model_choices,
    model_label,
    shape_of,
)
from ui.i18n import figure_texts, tr
from ui.views.base import PLAN_WIDTH, SLIDE_HEIGHT, SlideParams, SlideProblem, SlideView, line, link_of, show_figure
from viz_core.at_scale import tile_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go


def n_steps(run: FlashRun) -> int:
    """Key blocks the query block meets (causal: up to its diagonal block)."""
    return len(run.tiled.steps)


def tile_view(run: FlashRun, step: int, *, width: float = PAGE_WIDTH, height: int = FIGURE_HEIGHT) -> go.Figure:
    """The query block's tile at key block ``step`` (0-based) and the whole matrix, tiles outlined."""
    s = run.tiled.steps[step]
    q0 = run.query_block * run.block
    q1 = min(run.n, q0 + run.block)
    title = tr(
        "scale.fig.title",
        model=model_label(run.head.model or LAB_MODEL),
        layer=run.head.layer + 1,
        head=run.head.head + 1,
        j=step + 1,
        nj=n_steps(run),
        q0=q0 + 1,
        q1=q1,
    )
    return tile_figure(
        run.weights,
        s.p,
        run.head.tokens,
        run.block,
        run.query_block,
        step,
        n_steps(run),
        title=title,
        matrix_title=tr("scale.fig.matrix"),
        tile_title=tr("scale.fig.tile"),
        x_title=tr("scale.fig.x"),
        y_title=tr("scale.fig.y"),
        hover=tr("scale.fig.hover"),
        texts=figure_texts(),
        width=width,
        height=height,
    )


def step_caption(run: FlashRun, step: int) -> str:
    """How many rows' maximum grew at this tile and by how much their partial output was rescaled."""
    s = run.tiled.steps[step]
    grew = np.isfinite(s.m_old) & (s.m_new > s.m_old)
    smallest = float(s.correction[grew].min()) if grew.any() else 1.0
    return tr("scale.caption", grew=int(grew.sum()), rows=len(s.m_new), smallest=smallest)


def query_blocks(n: int, block: int) -> list[int]:
    return list(range(-(-n // block)))


@dataclass(frozen=True)
class TilesState:
    """The FlashAttention view as values: the model (one of :func:`ui.at_scale.model_choices`), the input, the
    layer and head (0-based), the tile size and the query block (0-based). The step is the key block
    (``scale_step``)."""

    model: str = LAB_MODEL
    text: str = EXAMPLE
    layer: int = 0
    head: int = 0
    block: int = 8
    query_block: int = 1
    KEYS: ClassVar[dict[str, str]] = {
        "model": "scale_model",
        "text": "scale_text",
        "layer": "scale_layer",
        "head": "scale_head",
        "block": "scale_block",
        "query_block": "scale_qblock",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> TilesState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        name = p.option(cls.KEYS["model"], model_choices(), LAB_MODEL, "scale.url.model")
        text = p.text(cls.KEYS["text"], EXAMPLE, TEXT_LIMIT, "scale.url.text")
        try:
            n_layers, n_heads, _ = shape_of(name)
        except RuntimeError as exc:
            raise SlideProblem(str(exc)) from None
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], n_layers, n_heads, average=False)
        block = p.option(cls.KEYS["block"], BLOCKS, 8, "scale.url.block")
        query_block = int(p.number(cls.KEYS["query_block"], 0, 10_000, 1, "scale.url.qblock"))
        return cls(name, text, layer, head, block, query_block)

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)


def tiles_run(state: TilesState) -> FlashRun:
    """The state's FlashAttention run (:func:`ui.at_scale.flash_run`): what the page and its slide step through."""
    return flash_run(state.model, state.text, state.layer, state.head, state.block, state.query_block)


def slide(p: SlideParams) -> SlideView:
    """The page's tiles as a slide: the page's model, input, layer, head, tile size and query block read
    from the link as the page reads them; one step per key block."""
    run = tiles_run(TilesState.read(p))
    if len(run.head.tokens) < 2:
        raise SlideProblem(tr("scale.empty"))
    q0 = run.query_block * run.block

    def draw(step: int) -> None:
        line(tr("slide.scale.line", q0=q0 + 1, q1=min(run.n, q0 + run.block), j=step + 1, nj=n_steps(run)))
        show_figure(tile_view(run, step, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(n_steps(run), p.step("scale", n_steps(run)), draw)
