"""The Positional-encoding page's views, declared once: the sinusoid table (positions × dimensions)
and, in its "Similarity and rotation" tab, the position-only attention score of one head of the
shipped translation Transformer. The page (pages/3_Positional_encoding.py), its slide (:func:`slide`,
the Present page's renderer) and the handout draw these same figures; a slide only draws them larger."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import plotly.graph_objects as go

from models.lessons.positional import ModelPositionScores, SinusoidTrace
from ui.i18n import figure_texts, tr
from ui.positional import D_CHOICES, SCORE_MODEL, model_scores, score_model, sinusoids
from ui.state import topic_name
from ui.views.base import SLIDE_HEIGHT, SlideParams, SlideProblem, SlideView, link_of, show_figure
from viz_core.positional import pe_heatmap_figure, position_score_figure

SINUSOIDS, ROTATION = "positional.tab.sinusoids", "positional.tab.rotation"  # the page's tabs a slide draws


def sinusoid_view(pe: np.ndarray, *, height: int | None = None) -> go.Figure:
    """The sinusoids tab's table: every position (down) × dimension (across) of the encoding ``pe``, on
    the signed scale, titled with its size (``height``: the figure's, in px; the builder's by default)."""
    words = figure_texts()
    length, d_model = pe.shape
    return pe_heatmap_figure(
        pe,
        title=tr("positional.fig.heatmap", length=length, d_model=d_model),
        y_title=words["pe.position"],
        texts=words,
        **({} if height is None else {"height": height}),
    )


def position_score_view(result: ModelPositionScores) -> go.Figure:
    """The rotation tab's trained head: the position-only score (W_Q PEᵢ)·(W_K PEⱼ)/√d_k of the head and
    layer of ``result``, query i down, key j across, titled as the page's head control counts them."""
    return position_score_figure(
        result.scores,
        title=tr("positional.fig.position_score", layer=result.layer, head=result.head + 1),
        texts=figure_texts(),
    )


@dataclass(frozen=True)
class PositionalState:
    """The positional-encoding page's view as values: the open tab (a string id: the sinusoid table, or the
    trained head's position-only score), the table's d_model and length, and the score's layer and head
    (0-based) of :data:`ui.positional.SCORE_MODEL`."""

    topic: str = SINUSOIDS
    d_model: int = 64
    length: int = 100
    layer: int = 0
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "topic": "topic",
        "d_model": "pe_d",
        "length": "pe_len",
        "layer": "rot_tf_layer",
        "head": "rot_tf_head",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> PositionalState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        topic = p.topic(SINUSOIDS, (SINUSOIDS, ROTATION))
        if topic == ROTATION:
            loaded = score_model()
            if isinstance(loaded, str):
                raise SlideProblem(loaded)
            layers = loaded.model.encoder.layers
            layer = p.option(cls.KEYS["layer"], range(len(layers)), 0, "slide.what.layer")
            head = int(p.number(cls.KEYS["head"], 1, layers[layer].self_attn.n_heads, 1, "grid.head_what"))
            return cls(topic, layer=layer, head=head - 1)
        d_model = p.option(cls.KEYS["d_model"], D_CHOICES, 64, "slide.what.d_model")
        length = int(p.number(cls.KEYS["length"], 10, 400, 100, "slide.what.length"))
        return cls(topic, d_model, length)

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        if self.topic == ROTATION:  # the trained head's layer and head (the head 1-based, as the page's input)
            return link_of(self, topic=topic_name(ROTATION), d_model=None, length=None, head=self.head + 1)
        return link_of(self, topic=None, layer=None, head=None)  # the table's (its tab, the first, has no topic)


def encoding(state: PositionalState) -> SinusoidTrace:
    """The state's sinusoid table (its similarities and wavelengths), as the page and its slide both show it."""
    return sinusoids(state.length, state.d_model)


def position_scores(state: PositionalState) -> ModelPositionScores:
    """The position-only score of the state's layer and head of :data:`ui.positional.SCORE_MODEL` (cached),
    as the page and its slide both show it."""
    return model_scores(SCORE_MODEL, state.layer, state.head)


def slide(p: SlideParams) -> SlideView:
    """The page's view as a slide (one step), read from the link as the page reads it: the sinusoid
    table, or (topic "Similarity and rotation") tf-en-fr's position-only attention score."""
    state = PositionalState.read(p)
    if state.topic == ROTATION:
        result = position_scores(state)

        def draw_scores(step: int) -> None:
            show_figure(position_score_view(result))

        return p.view(1, 0, draw_scores)
    pe = encoding(state).pe

    def draw(step: int) -> None:
        show_figure(sinusoid_view(pe, height=SLIDE_HEIGHT))

    return p.view(1, 0, draw)
