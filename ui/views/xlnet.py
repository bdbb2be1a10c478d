"""The XLNet page's view, declared once: one stream's attention (the query or the content stream) of
one head, or the mean over heads, under the factorisation order. The page (pages/13_XLNet.py), its
slide (:func:`slide`, the query stream, one step per predicted position) and the handout draw this
same figure; a slide only draws it larger."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ui.grid import head_name, pick
from ui.i18n import figure_texts, tr
from ui.tokens import input_error, md_escape
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
from ui.xlnet import (
    EXAMPLES,
    MODES,
    PAGE_WIDTH,
    STREAM_HEIGHT,
    load_model,
    model_choices,
    order_of,
    run_predict,
    sentence,
)
from viz_core.xlnet import stream_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.inference.xlnet import XLNetTrace


def stream_view(
    trace: XLNetTrace,
    stream: str,
    layer: int,
    head: int,
    *,
    width: float = PAGE_WIDTH / 2,
    height: int = STREAM_HEIGHT,
    outlined: Sequence[int] | None = None,
) -> go.Figure:
    """One stream's attention (``stream`` "query" or "content") of head ``head`` of ``layer`` (ui.grid.AVERAGE:
    the mean over heads) with the trace's mask, the ``outlined`` rows (default: every predicted position)
    orange; planned for ``width`` × ``height`` px (default: the page's half column)."""
    weights = trace.query_attention if stream == "query" else trace.content_attention
    allowed = trace.query_mask if stream == "query" else trace.content_mask
    rows = trace.predictions.positions if outlined is None else outlined
    return stream_figure(
        pick(weights, layer, head),
        trace.tokens,
        allowed,
        rows,
        unknown=trace.unknown,
        title=tr(f"xlnet.fig.{stream}", head=head_name(layer, head)),
        y_title=tr("xlnet.fig.y"),
        texts=figure_texts(),
        width=width,
        height=height,
    )


@dataclass(frozen=True)
class XLNetState:
    """The XLNet view as values: the checkpoint, the sentence, how the factorisation order is made (one of
    :data:`ui.xlnet.MODES`) with its seed or the typed order, the number K of predicted positions, the layer
    and head (0-based; ui.grid.AVERAGE for the mean). The step is the predicted position (``xlnet_step``)."""

    model: str
    text: str
    mode: str = "random"
    seed: int = 0
    typed: str = ""
    k_split: int = 1
    layer: int = 0
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "model": "xlnet_model",
        "text": "xlnet_text",
        "mode": "xlnet_mode",
        "seed": "xlnet_seed",
        "k_split": "xlnet_k",
        "layer": "xlnet_layer",
        "head": "xlnet_head",
        "typed": "xlnet_typed",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> XLNetState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        from models.inference.xlnet import MAX_K

        # the page's Model: the shipped xlnet-small first, then the studio's runs
        name, _, loaded = pick_model(model_choices, p, cls.KEYS["model"], None, load_model, "xlnet.model")
        mode = p.option(cls.KEYS["mode"], MODES, "random", "xlnet.mode", lambda m: tr(f"xlnet.mode.{m}"))
        config = loaded.config
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], config.n_layers, config.n_heads)
        return cls(
            model=name,
            text=p.text(cls.KEYS["text"], EXAMPLES[0], 10_000, "xlnet.url.text"),
            mode=mode,
            seed=int(p.number(cls.KEYS["seed"], 0, 1_000_000, 0, "xlnet.seed")),
            typed=p.text(cls.KEYS["typed"], "", 200, "xlnet.typed") if mode == "typed" else "",
            k_split=int(p.number(cls.KEYS["k_split"], 1, MAX_K, config.k_split, "xlnet.url.k")),
            layer=layer,
            head=head,
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, typed=self.typed if self.mode == "typed" else None)  # (the order, when typed)


def predict(state: XLNetState) -> tuple[list[str], list[bool], XLNetTrace]:
    """The state's sentence (tokens, unknown flags) and its cached prediction under the state's
    factorisation order, as the page and its slide both show them; InputError for an unusable sentence
    or typed order."""
    tokens, unknown = sentence(state.text, state.model)
    order = tuple(order_of(state.mode, len(tokens), state.seed, state.typed))
    return tokens, unknown, run_predict(state.text, order, state.k_split, state.model)


def slide(p: SlideParams) -> SlideView:
    """The page's query stream as a slide (Yang et al. 2019): the page's model under its factorisation
    order, one step per predicted position (its row outlined, its top guesses above the figure), read
    from the link as the page reads it."""
    state = XLNetState.read(p)
    try:
        tokens, unknown, trace = predict(state)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    if any(unknown):
        p.notes.append(tr("xlnet.unknown", words=", ".join(md_escape(w) for w, u in zip(tokens, unknown) if u)))
    targets = trace.predictions

    def draw(step: int) -> None:
        pos = targets.positions[step]
        tops = ", ".join(f"{w} {q:.0%}" for w, q in zip(targets.top_tokens[step], targets.top_probs[step]))
        line(tr("slide.xlnet.line", step=trace.ranks[pos] + 1, n=len(tokens), pos=pos + 1, word=tokens[pos], tops=tops))
        show_figure(
            stream_view(trace, "query", state.layer, state.head, width=PLAN_WIDTH, height=SLIDE_HEIGHT, outlined=[pos])
        )

    return p.view(len(targets.positions), p.step("xlnet", len(targets.positions)), draw)
