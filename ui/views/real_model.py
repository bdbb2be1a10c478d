"""The Real-model-explorer page's views, declared once: one head of a layer of a real pretrained model
(MiniLM-L6, a model folder, or the decoder SmolLM2-135M) on the text, and the layer's average over its
heads. The page (pages/8_Real_model_explorer.py), its slide (:func:`slide`, the Present page's renderer)
and the handout draw these same figures; a slide only draws them larger."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from models.inference.traces import HFTrace
from ui.i18n import figure_texts, tr
from ui.tokens import input_error, md_escape
from ui.views.base import PLAN_WIDTH, SLIDE_HEIGHT, SlideParams, SlideProblem, SlideView, line, link_of, show_figure
from viz_core.attention_grid import HeadFigure
from viz_core.bert import explorer_head_figures

if TYPE_CHECKING:
    from ui.bert import RealInput, RealModel


def shown_tokens(trace: HFTrace, decoder: bool) -> list[str]:
    """The trace's tokens as the figures label them: a decoder's pieces with their spaces shown (␣)."""
    from ui.llm import visible

    return visible(trace.tokens) if decoder else list(trace.tokens)


def head_views(
    trace: HFTrace, layer: int, head: int, tokens: Sequence[str], scale: str, *, width: int, height: int | None = None
) -> tuple[HeadFigure, HeadFigure]:
    """The page's head view: head ``head`` of ``layer`` (0-based) over the ``tokens`` (keys across, queries
    down; binned above 128 tokens), and the layer's average over heads, on the 0–1 scale or (``scale``
    "head") each to its own maximum; untitled (the page's headings and the slide's line say which).
    ``height`` given: ticks planned for a ``width`` × ``height`` figure of cells not square (a slide)."""
    return explorer_head_figures(
        trace.attention[layer], head, tokens, scale=scale, width=width, height=height, texts=figure_texts()
    )


@dataclass(frozen=True)
class RealState:
    """The Real model explorer's one-head view as values: the model (``installed``: MiniLM-L6; ``decoder``:
    the real LLM; a folder's path is never in a link), the text and sentence B (encoders only), the
    largest number of tokens read, the colour scale (``absolute`` or ``head``), the layer and head (0-based)."""

    source: str = "installed"
    text: str = ""
    text_b: str = ""
    max_tokens: int = 512  # models.inference.hf_adapter.MAX_TOKENS
    scale: str = "absolute"
    layer: int = 0
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "source": "real_source",
        "text": "real_text",
        "max_tokens": "real_max",
        "scale": "real_scale",
        "layer": "real_layer",
        "head": "real_head",
        "text_b": "real_text_b",
    }  # each field's URL key, in the link's order

    @property
    def decoder(self) -> bool:
        return self.source == "decoder"

    @classmethod
    def read(cls, p: SlideParams) -> tuple[RealState, RealModel]:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted),
        and the model it names, loaded."""
        from models.inference.hf_adapter import MAX_TOKENS
        from ui.bert import REAL_MAX_CHOICES, REAL_SHADES, REAL_SOURCES, REAL_TEXT, load_decoder, load_real_model

        source = p.option(cls.KEYS["source"], REAL_SOURCES, "installed", "real_model.model", REAL_SOURCES.get)
        decoder = source == "decoder"
        model = load_decoder() if decoder else load_real_model("")  # (a folder's path is not in the link)
        if isinstance(model, str):
            raise SlideProblem(model if decoder else md_escape(model))  # (load_decoder's message is escaped)
        shape = model.model.n_layers, model.model.n_heads
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], *shape, average=False)
        state = cls(
            source=source,
            text=p.text(cls.KEYS["text"], REAL_TEXT, 20_000),
            text_b="" if decoder else p.text(cls.KEYS["text_b"], ""),
            max_tokens=int(p.option(cls.KEYS["max_tokens"], REAL_MAX_CHOICES, MAX_TOKENS, "real_model.url.max")),
            scale=p.option(cls.KEYS["scale"], REAL_SHADES, "absolute", "real_model.url.shade", REAL_SHADES.get),
            layer=layer,
            head=head,
        )
        return state, model

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, text_b=None if self.decoder else self.text_b)  # (a decoder reads one text)


def real_input(state: RealState, model: RealModel) -> RealInput:
    """What the view of ``state`` runs on ``model``: the page's and its slide's one request (and cache)."""
    from ui.bert import RealInput

    return RealInput(model.key, state.text, state.text_b, state.max_tokens)


def slide(p: SlideParams) -> SlideView:
    """The page's one-head view as a slide (one step), read from the link as the page reads it: one head
    of MiniLM-L6 (the installed model) or of the decoder SmolLM2-135M (the Real LLM page's model) on the
    slide's text."""
    state, model = RealState.read(p)
    if not state.text.strip():
        raise SlideProblem(tr("real_model.empty"))
    try:  # one heavy request at a time server-wide, as on the page
        trace, trace_again = real_input(state, model).traced(tr("slide.real.run"))
    except ValueError as exc:
        raise SlideProblem(input_error(exc)) from None
    del trace  # the slide's drawing keeps the input, not the attention (ui.bert.RealInput)

    def draw(step: int) -> None:
        trace = trace_again()
        text = state.text
        line(
            model.label,
            tr("real_model.export.head", layer=state.layer + 1, head=state.head + 1),
            tr("slide.real.tokens", n=len(trace.tokens)),
            text[:120] + ("…" if len(text) > 120 else ""),
        )
        tokens = shown_tokens(trace, state.decoder)
        one, _ = head_views(trace, state.layer, state.head, tokens, state.scale, width=PLAN_WIDTH, height=SLIDE_HEIGHT)
        show_figure(one.figure)

    return p.view(1, 0, draw)
