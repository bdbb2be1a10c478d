"""The explanations page's view, declared once: every method's scores over the same input tokens,
one row each, on one 0–1 colour scale (pages/16_Attention_as_explanation.py, its slide and its export
draw this same figure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ui.explanations import EXAMPLES, MAX_CHARS, MODELS, method_name, run
from ui.views.base import PAGE_WIDTH
from ui.i18n import tr
from ui.tokens import input_error
from ui.views.base import (
    PLAN_WIDTH,
    SLIDE_HEIGHT,
    SlideParams,
    SlideProblem,
    SlideView,
    input_error_type,
    line,
    link_of,
    show_figure,
)
from viz_core.explanations import methods_figure, swap_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.lessons.explanations import AttentionSwap, Explanation

FIGURE_HEIGHT = 360  # with the page's two rows of controls, the whole figure on a 1280×720 first screen


def methods_view(
    trace: Explanation, *, width: float = PAGE_WIDTH, height: int = FIGURE_HEIGHT, outlined: Sequence[int] = ()
) -> go.Figure:
    """Rows: raw attention (one head, last layer, every layer), rollout, sink-aware rollout, flow,
    norm-based, gradient × input, integrated gradients, occlusion; columns: the input tokens."""
    layer, head = trace.attn_head
    names = [
        method_name(m) if m != "attn_head" else tr("xai.m.attn_head_lh", layer=layer + 1, head=head + 1)
        for m in trace.methods
    ]
    short = [
        tr(f"xai.ms.{m}") if m != "attn_head" else tr("xai.ms.attn_head_lh", layer=layer + 1, head=head + 1)
        for m in trace.methods
    ]
    return methods_figure(
        trace.scores,
        trace.tokens,
        names,
        axis_names=short,
        title=tr("xai.fig.title", target=trace.target, p=math.exp(trace.log_prob)),
        scale_title=tr("xai.fig.scale"),
        value_name=tr("xai.fig.value"),
        undefined=tr("xai.fig.undefined"),
        outlined=outlined,
        width=width,
        height=height,
    )


def swap_view(swap: AttentionSwap, *, width: float = PAGE_WIDTH) -> go.Figure:
    """Jain & Wallace's test at one decoding step: the model's attention, a random permutation of it and an
    adversary's, one row each, with the output under each and its distance from the original."""
    names = [tr("xai.swap.row.original", out=swap.outputs[0], p=swap.probs[0])]
    names += [
        tr(f"xai.swap.row.{replacement}", out=swap.outputs[i], p=swap.probs[i], jsd=swap.jsd[i], tvd=swap.tvd[i])
        for i, replacement in ((1, "permuted"), (2, "adversarial"))
    ]
    return swap_figure(
        swap.weights,
        swap.tokens,
        names,
        title=tr("xai.swap.title", step=swap.step + 1),
        scale_title=tr("xai.swap.scale"),
        value_name=tr("xai.swap.scale"),
        width=width,
    )


@dataclass(frozen=True)
class ExplanationState:
    """The explanation page's view as values: the model (one of :data:`ui.explanations.MODELS`), the text, the
    output step (-1: the page's default), and the attention head's layer (-1: the last) and head."""

    model: str = MODELS[0]
    text: str = ""  # "" : the model's example
    step: int = -1
    layer: int = -1
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "model": "xai_model",
        "text": "xai_text",
        "step": "xai_step",
        "layer": "xai_layer",
        "head": "xai_head",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> ExplanationState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        name = p.option(cls.KEYS["model"], MODELS, MODELS[0], "xai.model", lambda m: tr(f"xai.model.{m}"))
        return cls(
            name,
            p.text(cls.KEYS["text"], EXAMPLES[name], MAX_CHARS, "xai.text"),
            int(p.number(cls.KEYS["step"], -1, 200, -1, "xai.step")),
            int(p.number(cls.KEYS["layer"], -1, 100, -1, "xai.layer")),
            int(p.number(cls.KEYS["head"], 0, 100, 0, "xai.head")),
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, text=self.text or EXAMPLES[self.model])


def explain(state: ExplanationState) -> Explanation:
    """Every method on the state's model, text (none: the model's example), output step and head
    (:func:`ui.explanations.run`): what the page and its slide draw."""
    return run(state.model, state.text or EXAMPLES[state.model], state.step, state.layer, state.head)


def slide(p: SlideParams) -> SlideView:
    """The page's figure as a slide: the same model, text, output step and head, read from the link."""
    try:
        trace = explain(ExplanationState.read(p))
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None

    def draw(_: int) -> None:
        line(tr("xai.slide.line", target=trace.target))
        show_figure(methods_view(trace, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(1, 0, draw)
