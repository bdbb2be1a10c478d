"""The Transformer-XL page's view, declared once: one head's attention (or the mean over heads) of a
segment of the passage over [memory | segment]. The page (pages/10_Transformer_XL.py), its slide
(:func:`slide`, one step per segment) and the handout draw this same figure; a slide only draws it larger."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ui.grid import head_name, pick
from ui.i18n import figure_texts, tr
from ui.tokens import input_error
from ui.transformer_xl import EXAMPLES, FIGURE_PX, load_model, model_choices, run_read
from ui.views.base import (
    PLAN_WIDTH,
    SLIDE_HEIGHT,
    SlideParams,
    SlideProblem,
    SlideView,
    input_error_type,
    line,
    link_of,
    pick_model,
    show_figure,
)
from viz_core.transformer_xl import xl_attention_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.inference.transformer_xl import XLReadTrace


def segment_view(
    trace: XLReadTrace, s: int, layer: int, head: int, *, width: float | None = None, height: int | None = None
) -> go.Figure:
    """Segment ``s``'s attention of one head (or the average over heads, ui.grid.AVERAGE) over
    [memory | segment]: the cached states of the tokens before it, then its own tokens under the causal
    mask (ticks planned for ``width`` × ``height`` px; width None: the page's column, FIGURE_PX)."""
    seg = trace.segments[s]
    return xl_attention_figure(
        pick(seg.attention, layer, head),
        seg.memory_tokens,
        seg.tokens,
        seg.mask,
        memory_label=tr("txl.memory", n=len(seg.memory_tokens)),
        segment_label=tr("txl.current", n=len(seg.tokens)),
        title=tr("txl.fig.attention", s=s + 1, n=len(trace.segments), head=head_name(layer, head)),
        x_title=tr("txl.x_key"),
        y_title=tr("txl.y_query"),
        texts=figure_texts(),
        width=width or FIGURE_PX,
        height=height,
    )


@dataclass(frozen=True)
class XLState:
    """The Transformer-XL view as values: the checkpoint, the passage, segment length L, memory length M,
    the layer and head (0-based; ui.grid.AVERAGE for the mean). The step is the segment (``txl_step``)."""

    model: str
    text: str
    seg_len: int = 8
    mem_len: int = 8
    layer: int = 0
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "model": "txl_model",
        "text": "txl_text",
        "seg_len": "txl_seg",
        "mem_len": "txl_mem",
        "layer": "txl_layer",
        "head": "txl_head",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> XLState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        # the page's Model: the shipped xl-lm first, then the studio's XL runs
        name, _, loaded = pick_model(model_choices, p, cls.KEYS["model"], None, load_model, "txl.model")
        text = p.text(cls.KEYS["text"], EXAMPLES[0], 10_000, "txl.url.text")
        seg_len = int(p.number(cls.KEYS["seg_len"], 2, 32, 8, "txl.seg"))
        mem_len = int(p.number(cls.KEYS["mem_len"], 0, 64, 8, "txl.mem"))
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], loaded.config.n_layers, loaded.config.n_heads)
        return cls(name, text, seg_len, mem_len, layer, head)

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)


def read_passage(state: XLState) -> XLReadTrace:
    """The state's passage read segment by segment (cached), as the page and its slide both show it;
    InputError for an unusable passage."""
    return run_read(state.text, state.seg_len, state.mem_len, state.model)


def slide(p: SlideParams) -> SlideView:
    """The page's view as a slide (Dai et al. 2019): the page's model reading the passage, one step per
    segment, read from the link as the page reads it."""
    state = XLState.read(p)
    try:
        trace = read_passage(state)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    if trace.dropped:
        p.notes.append(tr("txl.dropped", n=len(trace.tokens), dropped=trace.dropped))
    if any(trace.unknown):
        p.notes.append(tr("txl.unknown", n=sum(trace.unknown)))
    n = len(trace.segments)

    def draw(step: int) -> None:
        seg = trace.segments[step]
        line(tr("slide.txl.line", s=step + 1, n=n, m=len(seg.memory_tokens), l=len(seg.tokens)), " ".join(seg.tokens))
        show_figure(segment_view(trace, step, state.layer, state.head, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(n, p.step("txl", n), draw)
