"""The Inside-one-head page's view, declared once: one query's walk through one head (q·kᵢ, ÷√d_k,
the mask and the softmax) as three rows of bars. The page (pages/5_Inside_one_head.py), its slide
(:func:`slide`, the Present page's renderer) and the handout draw this same figure; a slide only
draws it larger."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import plotly.graph_objects as go

from models.inference.traces import HeadWalkthrough
from ui.i18n import figure_texts, tr
from ui.tokens import input_error
from ui.transformer import SITE_LABELS, head_text, load_model, run_head_view, transformer_choices
from ui.views.base import SlideParams, SlideProblem, SlideView, input_error_type, line, link_of, pick_model, show_figure
from viz_core.labels import safe_label
from viz_core.transformer import chain_figure


def chain_view(view: HeadWalkthrough, query: int, layer: int, head: int, scaled: bool) -> go.Figure:
    """The page's main figure: for query ``query`` of head ``head`` of ``layer`` (0-based), the bars of
    q·kᵢ, of the score ÷√d_k (or unscaled, ``scaled`` False) with masked keys at −∞, and of the softmax
    weights, titled with the query token, the layer and the head."""
    weights = view.weights if scaled else view.unscaled_weights
    return chain_figure(
        view.key_tokens,
        view.scores,
        view.scaled,
        view.allowed,
        weights,
        view.scale,
        scaled,
        title=tr("head.fig.chain", token=safe_label(view.query_tokens[query], 30), layer=layer + 1, head=head + 1),
        texts=figure_texts(),
    )


@dataclass(frozen=True)
class HeadState:
    """The one-head page's view as values, never labels: the checkpoint, the sentence, which attention
    (``site``: encoder, decoder, cross; lm for a decoder-only model), layer, head and query (0-based), and
    whether the scores are scaled by 1/√d_k."""

    model: str
    text: str
    site: str
    layer: int = 0
    head: int = 0
    query: int = 0
    scaled: bool = True
    KEYS: ClassVar[dict[str, str]] = {
        "model": "head_model",
        "text": "head_text",
        "layer": "head_layer",
        "head": "head_head",
        "query": "head_query",
        "scaled": "head_scale",
        "site": "head_kind",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> HeadState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        name, _, loaded = pick_model(models, p, cls.KEYS["model"], "tf-en-fr", load_model)
        text = p.text(cls.KEYS["text"], head_text(name, loaded.task))
        cfg = loaded.config
        if loaded.architecture == "decoder-only":
            site, n_layers = "lm", cfg.num_decoder_layers
        else:
            site = p.option(cls.KEYS["site"], SITE_LABELS, "encoder", "head.url.kind", SITE_LABELS.get)
            n_layers = cfg.num_encoder_layers if site == "encoder" else cfg.num_decoder_layers
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], n_layers, cfg.n_heads, average=False)
        scaled = p.flag(cls.KEYS["scaled"], True, "head.url.scale")
        try:
            queries = run_head_view(name, text, site, layer, head, 0).query_tokens
        except input_error_type() as exc:
            raise SlideProblem(input_error(exc)) from None
        query = p.option(cls.KEYS["query"], range(len(queries)), 0, "head.url.query", lambda i: f"{i}: {queries[i]}")
        return cls(name, text, site, layer, head, query, scaled)

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, site=None if self.site == "lm" else self.site)  # (a decoder-only model's one site)


def models() -> list[tuple[str, str]]:
    """(name, label) of every checkpoint the page offers: the translation Transformers, then the LMs."""
    return transformer_choices("encoder-decoder") + transformer_choices("decoder-only")


def walk(state: HeadState) -> HeadWalkthrough:
    """The state's query through its head (cached), as the page and its slide both show it; InputError for
    unusable input."""
    return run_head_view(state.model, state.text, state.site, state.layer, state.head, state.query)


def slide(p: SlideParams) -> SlideView:
    """The page's view as a slide (one step): the chain of one query in one head, read from the link as
    the page reads it."""
    state = HeadState.read(p)
    label = dict(models())[state.model]
    try:
        view = walk(state)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None

    def draw(step: int) -> None:
        line(label, state.text)
        show_figure(chain_view(view, state.query, state.layer, state.head, state.scaled))

    return p.view(1, 0, draw)
