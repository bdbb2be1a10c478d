"""The Transformer block page's view, declared once: the architecture diagram of the chosen model with one box
highlighted, beside that box's real tensors for the sentence (Vaswani et al. 2017, Fig. 1 and §3). The page
(pages/14_Transformer_block.py), its slide (:func:`slide`) and the export draw these same figures."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ui.block import (
    EXAMPLES,
    ARCHITECTURES,
    MODELS,
    PAGE_WIDTH,
    TABS,
    batch_view,
    changes_view,
    gradient_view,
    norm_runs_view,
    run_block,
    schedule_view,
    smoothing_view,
    tab_line,
)
from ui.i18n import figure_texts, tr
from ui.state import topic_name
from ui.tokens import input_error
from ui.views.base import (
    PLAN_WIDTH,
    SLIDE_HEIGHT,
    SlideParams,
    SlideProblem,
    TICK_FONT,
    SlideView,
    input_error_type,
    line,
    link_of,
    show_figures,
)
from viz_core.block import (
    DECODER_ONLY,
    ENCODER_DECODER,
    ENCODER_ONLY,
    architecture_figure,
    boxes,
    hidden_units_figure,
    layernorm_figure,
    parts,
    stream_figure,
    top_figure,
)
from viz_core.labels import safe_label
from viz_core.transformer import attention_matrix_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.lessons.block import BlockTrace, StackTrace, SublayerTrace
    from ui.explain import Explainer

DIAGRAM_WIDTH, DETAIL_WIDTH, HEIGHT = 367, 367, 470  # px: side by side in the 760 px column (0.5 : 0.5, less the gap)


def _part_label(architecture: str, part: str) -> str:
    if architecture == "encoder-only" and part in ("embed", "out"):
        return tr(f"block.part.{part}_bert")
    return tr(f"block.part.{part}")


def box_label(architecture: str, box: str) -> str:
    """A box's name in the reader's language: "Decoder: Cross-attention", "Encoder: Add & Norm (Feed-forward)"."""
    if box == "out":
        return _part_label(architecture, "out")
    bits = box.split(".")
    part = _part_label(architecture, bits[1])
    if bits[-1] == "norm":
        part = f"{tr('block.part.norm')} ({part})"
    return tr("block.box_option", stack=tr(f"block.stack.{bits[0]}"), part=part)


def stack_of(trace: BlockTrace, box: str) -> StackTrace:
    """The stack a box belongs to (the output layer: the last stack)."""
    if box == "out":
        return trace.stacks[-1]
    return trace.stack("encoder" if box.startswith("enc.") else "decoder")


def n_layers(trace: BlockTrace, box: str) -> int:
    return len(stack_of(trace, box).layers)


def architecture_view(
    trace: BlockTrace, box: str, *, width: float = DIAGRAM_WIDTH, height: int = HEIGHT, font_size: int = 13
) -> go.Figure:
    """The model's diagram (its own stacks and block sizes), ``box`` highlighted; box labels at up to
    ``font_size`` px, smaller where they would not fit their boxes."""
    architecture = trace.architecture
    labels = {k: _part_label(architecture, k) for k in ("embed", "self", "masked_self", "cross", "norm", "ffn", "out")}
    counts = {("enc" if s.name == "encoder" else "dec"): len(s.layers) for s in trace.stacks}
    inputs = {
        "enc": tr("block.input.enc_bert" if architecture == "encoder-only" else "block.input.enc"),
        "dec": tr("block.input.dec"),
    }
    hover = {b: tr("block.hover", part=box_label(architecture, b)) for b in boxes(architecture)}
    n = " + ".join(str(v) for v in counts.values())
    return architecture_figure(
        architecture,
        counts,
        box,
        box_labels=labels,
        stack_titles={"enc": tr("block.stack.enc"), "dec": tr("block.stack.dec")},
        repeat=tr("block.repeat"),
        input_labels=inputs,
        hover=hover,
        title=tr("block.fig.title", label=trace.model, n=n, d=trace.d_model, ff=trace.d_ff, h=trace.n_heads),
        width=width,
        height=height,
        font_size=font_size,
    )


def _sublayer(trace: BlockTrace, box: str, layer: int) -> SublayerTrace:
    bits = box.split(".")
    stack = stack_of(trace, box)
    kinds = parts(trace.architecture, bits[0])
    return stack.layers[min(layer, len(stack.layers) - 1)][kinds.index(bits[1])]


def box_view(
    trace: BlockTrace, box: str, layer: int, token: int, *, width: float = DETAIL_WIDTH, height: int = HEIGHT
) -> tuple[go.Figure, str]:
    """(figure, caption) of one box's real tensors: the stream's size (embedding), the attention weights
    (attention), one vector before and after LayerNorm (Add & Norm), the hidden units (FFN) or the top-k
    softmax (output), at block ``layer`` and position ``token`` (clamped to the stack)."""
    stack = stack_of(trace, box)
    token = min(max(token, 0), len(stack.tokens) - 1)
    layer = min(max(layer, 0), len(stack.layers) - 1)
    word = safe_label(stack.tokens[token], 20)
    s = "enc" if stack.name == "encoder" else "dec"
    layer_name = tr("block.layer_option", n=layer + 1)
    if box == "out":
        k = trace.top_probs.shape[1]
        fig = top_figure(
            trace.top_tokens[token],
            trace.top_probs[token],
            title=tr("block.out.title", token=word, k=k, v=trace.vocab_size),
            x_title=tr("block.out.x"),
            width=width,
            height=height,
        )
        what = tr("block.out.mlm" if trace.architecture == "encoder-only" else "block.out.next")
        return fig, tr("block.out.caption", v=trace.vocab_size, what=what)
    part = box.split(".")[1]
    if part == "embed":
        points = [tr("block.stream.embedding")] + [
            tr("block.stream.point", n=i + 1, part=_part_label(trace.architecture, k))
            for i in range(len(stack.layers))
            for k in parts(trace.architecture, s)
        ]
        norms = stack.stream_norms()
        fig = stream_figure(
            norms,
            points,
            stack.tokens,
            token,
            title=tr("block.stream.title", stack=tr(f"block.stack.{s}")),
            x_title=tr("block.stream.x"),
            y_title=tr("block.stream.y"),
            mean_name=tr("block.stream.mean"),
            width=width,
            height=height,
        )
        what = tr("block.embed.bert" if trace.architecture == "encoder-only" else "block.embed.tf")
        return fig, tr(
            "block.embed.caption", what=what, first=float(norms[0].mean()), last=float(norms[-1].mean())
        ) + " " + tr("block.stream.caption", d=trace.d_model)
    sub = _sublayer(trace, box, layer)
    if box.endswith(".norm"):
        v = sub.norm_in[token].astype(np.float64)
        z = (v - v.mean()) / np.sqrt(v.var() + sub.eps)
        after = sub.norm_out[token]
        fig = layernorm_figure(
            v,
            z,
            after,
            [tr("block.norm.before"), tr("block.norm.standard"), tr("block.norm.after")],
            title=tr("block.norm.title", layer=layer_name, part=_part_label(trace.architecture, part), token=word),
            x_title=tr("block.norm.x"),
            y_title=tr("block.norm.y"),
            width=width,
            height=height,
        )
        return fig, tr(
            "block.norm.caption",
            m0=v.mean(),
            v0=v.var(),
            m1=z.mean(),
            v1=z.var(),
            eps=sub.eps,
            m2=float(after.mean()),
            v2=float(after.var()),
            g0=float(sub.gamma.min()),
            g1=float(sub.gamma.max()),
            b0=float(sub.beta.min()),
            b1=float(sub.beta.max()),
        )
    ratio, mean = float(sub.change[token]), float(sub.change.mean())
    if part == "ffn":
        assert sub.hidden is not None
        gelu = trace.activation == "gelu"
        hidden = sub.hidden[token]
        fig = hidden_units_figure(
            hidden,
            title=tr("block.ffn.title", layer=layer_name, ff=trace.d_ff, token=word),
            x_title=tr("block.ffn.x"),
            y_title=tr("block.ffn.y"),
            zero_name=tr("block.ffn.zero_gelu" if gelu else "block.ffn.zero"),
            active_name=tr("block.ffn.active"),
            width=width,
            height=height,
        )
        zeros = sub.zeros(token)
        return fig, tr(
            "block.ffn.caption_gelu" if gelu else "block.ffn.caption",
            token=word,
            zeros=zeros,
            ff=trace.d_ff,
            share=zeros / trace.d_ff,
            active=trace.d_ff - zeros,
            d=trace.d_model,
            ratio=ratio,
        )
    assert sub.attention is not None
    keys = trace.stack("encoder").tokens if part == "cross" else stack.tokens
    weights = sub.attention.mean(axis=0)
    fig = attention_matrix_figure(
        weights,
        keys,
        stack.tokens,
        step=token,
        title=tr("block.attn.title", part=_part_label(trace.architecture, part), layer=layer_name, h=trace.n_heads),
        texts=figure_texts(),
        width=width,
        height=height,
    )
    return fig, tr("block.attn.caption", ratio=ratio, mean=mean, token=word)


def attention_cells(
    trace: BlockTrace, box: str, layer: int
) -> tuple[np.ndarray, Explainer, list[str], list[str]] | None:
    """For an attention box, what click-to-explain needs of :func:`box_view`'s heatmap: the drawn weights (the
    mean over the layer's heads), their explainer (each head's α[q, k] derived again from the model on the
    stack's ids: ui.cells), the query and the key tokens; None for any other box."""
    from ui.cells import bert_cell, head_cell
    from ui.explain import each_head

    part = box.split(".")
    if box == "out" or len(part) != 2 or part[1] not in ("self", "masked_self", "cross"):
        return None
    stack = stack_of(trace, box)
    layer = min(max(layer, 0), len(stack.layers) - 1)
    attention = _sublayer(trace, box, layer).attention
    if attention is None:
        return None
    keys_stack = trace.stack("encoder") if part[1] == "cross" else stack
    if trace.architecture == ENCODER_ONLY:
        ids, seg = tuple(stack.ids), tuple(stack.segments)
        explain = each_head(lambda h, q, k: bert_cell(trace.model, ids, seg, layer, h, q, k), trace.n_heads)
    else:
        site = {"self": "encoder", "masked_self": "decoder", "cross": "cross"}[part[1]]
        if trace.architecture == DECODER_ONLY:
            site = "lm"
        src = tuple(trace.stack("encoder").ids) if trace.architecture == ENCODER_DECODER else None
        tgt = tuple(trace.stack("decoder").ids)  # the decoder's input (an encoder–decoder's: <s> + its output)
        explain = each_head(lambda h, q, k: head_cell(trace.model, site, layer, h, q, k, src, tgt), trace.n_heads)
    return attention.mean(axis=0), explain, list(stack.tokens), list(keys_stack.tokens)


def architecture_label(architecture: str) -> str:
    return tr(f"block.family.{architecture}")


def tab_views(topic: str, trace: BlockTrace, layer: int, width: float) -> list[go.Figure]:
    """The figures of the page's tab ``topic`` (a string id of :data:`ui.block.TABS`), as the tab draws them,
    planned for ``width`` px together."""
    if topic == "block.tab.changes":
        return changes_view(trace, layer, width)
    if topic == "block.tab.norms":
        runs = norm_runs_view(width / 2)
        return [gradient_view(width / 2)[0], *([] if runs is None else [runs[0]])]
    if topic == "block.tab.batch":
        return [batch_view(width)[0]]
    if topic == "block.tab.smoothing":
        view = smoothing_view(trace, width)
        if isinstance(view, str):
            raise SlideProblem(view)
        return [view.figure]
    return [schedule_view(width)]


@dataclass(frozen=True)
class BlockState:
    """The block page's view as values, never labels: the architecture (one of :data:`ui.block.ARCHITECTURES`),
    the typed sentence ("" for the architecture's example), the chosen box (a :func:`viz_core.block.boxes` id),
    its block and token (0-based), and the open tab (a string id of :data:`ui.block.TABS`; None: the diagram)."""

    architecture: str
    text: str = ""
    box: str | None = None  # None: the page's default box, the first after the embedding
    layer: int = 0
    token: int = 0
    topic: str | None = None
    KEYS: ClassVar[dict[str, str]] = {
        "architecture": "block_family",
        "text": "block_text",
        "box": "block_box",
        "layer": "block_layer",
        "token": "block_token",
        "topic": "topic",
    }  # each field's URL key, in the link's order

    @property
    def chosen_box(self) -> str:
        return self.box if self.box is not None else boxes(self.architecture)[1]

    def trace(self) -> BlockTrace:
        """:func:`trace_of` this state, for a slide: SlideProblem when it cannot."""
        try:
            return trace_of(self)
        except input_error_type() as exc:
            raise SlideProblem(input_error(exc)) from None
        except RuntimeError as exc:
            raise SlideProblem(str(exc)) from None

    @classmethod
    def read(cls, p: SlideParams) -> BlockState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        architecture = p.option(
            cls.KEYS["architecture"], ARCHITECTURES, ARCHITECTURES[0], "block.family", architecture_label
        )
        state = cls(architecture, p.text(cls.KEYS["text"], "", 2_000, "block.url.text"))
        trace = state.trace()
        options = boxes(architecture)
        box = p.option(cls.KEYS["box"], options, options[1], "block.url.box", lambda b: box_label(architecture, b))
        return replace(
            state,
            box=box,
            layer=int(p.number(cls.KEYS["layer"], 0, n_layers(trace, box) - 1, 0, "block.layer")),
            token=int(p.number(cls.KEYS["token"], 0, len(stack_of(trace, box).tokens) - 1, 0, "block.token")),
            topic=p.topic(TABS[0], TABS) if p.raw(cls.KEYS["topic"]) is not None else None,
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        topic = None if self.topic is None else topic_name(self.topic)  # (the diagram: no topic in the link)
        return link_of(self, box=self.chosen_box, topic=topic)


def trace_of(state: BlockState) -> BlockTrace:
    """The state's sentence (blank: the architecture's example) through its model (cached), as the page and its
    slide both show it; InputError for unusable text, RuntimeError when the shipped model cannot be read."""
    return run_block(state.architecture, state.text.strip() or EXAMPLES[state.architecture])


def slide(p: SlideParams) -> SlideView:
    """The page's diagram and its chosen box's tensors, side by side, read from the link as the page reads it;
    with a tab named (``?topic=``), that tab's figures instead."""
    state = BlockState.read(p)
    trace, box, topic = state.trace(), state.chosen_box, state.topic

    def draw_tab(_: int) -> None:
        assert topic is not None
        line(tab_line(topic, trace))
        show_figures(tab_views(topic, trace, state.layer, PLAN_WIDTH))

    def draw(_: int) -> None:
        line(tr("slide.block.line", model=MODELS[state.architecture], box=box_label(state.architecture, box)))
        fig, _caption = box_view(trace, box, state.layer, state.token, width=PLAN_WIDTH / 2, height=SLIDE_HEIGHT)
        diagram = architecture_view(trace, box, width=PLAN_WIDTH / 2, height=SLIDE_HEIGHT, font_size=TICK_FONT)
        show_figures([diagram, fig])

    return p.view(1, 0, draw if topic is None else draw_tab)


__all__ = ["BlockState", "trace_of", "architecture_view", "box_view", "box_label", "slide", "PAGE_WIDTH"]
