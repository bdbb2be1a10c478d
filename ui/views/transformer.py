"""The Transformer pages' views, declared once: one head (or the mean over heads) of the translation
model's encoder self-, masked decoder self- or cross-attention at a step, and the decoder-only
model's causal self-attention up to a generated token. The pages (pages/4_Transformer_translation.py,
pages/6_Generation.py), their slides (:func:`translation_slide`, :func:`generation_slide`) and the
handout draw these same figures; a slide only draws them larger."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import plotly.graph_objects as go

from ui.grid import head_name, pick
from ui.i18n import figure_texts, tr
from ui.quiz import hide_rows
from ui.tokens import input_error
from ui.transformer import (
    GEN_EXAMPLES,
    GEN_TOP_K,
    SITE_LABELS,
    SHORT_LABELS,
    TEST_SETS,
    attention_of,
    exposure_of,
    first_input,
    label_smoothing_pairs,
    load_model,
    reliability_views,
    run_generation,
    run_translation,
    test_size,
    transformer_choices,
)
from ui.views.base import (
    PLAN_WIDTH,
    SLIDE_HEIGHT,
    SlideParams,
    SlideProblem,
    SlideView,
    hiding,
    input_error_type,
    line,
    link_of,
    pick_model,
    show_figure,
    show_figures,
)
from viz_core.transformer import attention_matrix_figure, causal_mask


def head_view(
    trace: Any,
    site: str,
    layer: int,
    head: int,
    step: int,
    *,
    rows: int | None = None,
    hide_labels: bool = False,
    **size: int,
) -> tuple[go.Figure, np.ndarray]:
    """The translation page's head view: head ``head`` of ``layer`` (ui.grid.AVERAGE: the mean over
    heads) of attention ``site`` ("encoder", "decoder", "cross") at decoding ``step``, the step's row
    outlined, masked cells grey; the decoder rows from ``rows`` on left blank (and their labels "?" with
    ``hide_labels``). Returns the figure and the matrix it draws (``size``: width, height)."""
    weights, keys, queries, step_row, blocked = attention_of(trace, site, step)
    matrix = pick(weights, layer, head)
    if rows is not None and site != "encoder":
        hidden, hidden_queries = hide_rows(matrix, queries, rows)
        matrix, queries = hidden, (hidden_queries if hide_labels else queries)
    fig = attention_matrix_figure(
        matrix,
        keys,
        queries,
        blocked=blocked,
        step=step_row,
        key_unknown=trace.src_unknown if site != "decoder" else None,
        title=tr("transformer.fig.head", what=SHORT_LABELS[site], head=head_name(layer, head)),
        x_title=tr("transformer.x.source" if site != "decoder" else "transformer.x.decoder"),
        y_title=tr("transformer.y.source" if site == "encoder" else "transformer.y.decoder"),
        texts=figure_texts(),
        **size,
    )
    return fig, matrix


def causal_view(result: Any, layer: int, head: int, step: int, **size: int) -> tuple[go.Figure, np.ndarray]:
    """The generation page's head view: the causal self-attention of head ``head`` of ``layer`` over
    every token seen when token ``step`` is generated (the future masked), the newest query outlined.
    Returns the figure and the matrix it draws (``size``: width, height)."""
    position = result.steps[step].position
    seen = result.tokens[:position]
    matrix = pick(np.ascontiguousarray(result.attention[:, :, :position, :position]), layer, head)
    fig = attention_matrix_figure(
        matrix,
        seen,
        seen,
        blocked=~causal_mask(position),
        step=position - 1,
        title=tr("generation.fig.matrix", head=head_name(layer, head)),
        x_title=tr("generation.x_key"),
        y_title=tr("generation.y_query"),
        texts=figure_texts(),
        **size,
    )
    return fig, matrix


@dataclass(frozen=True)
class TranslationState:
    """The translation page's head view as values, never labels: the checkpoint, the sentence, beam width,
    length penalty α, which attention (``site``: encoder, decoder, cross), the layer and the head (0-based;
    ui.grid.AVERAGE for the mean over heads). The step is the step control's own (``tf_step``)."""

    model: str
    text: str
    beam: int
    alpha: float
    site: str = "cross"
    layer: int = 0
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "model": "tf_model",
        "text": "tf_text",
        "beam": "tf_beam",
        "alpha": "tf_alpha",
        "site": "tf_kind",
        "layer": "tf_layer",
        "head": "tf_head",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> TranslationState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        from models.inference.common import DEFAULT_LENGTH_PENALTY

        name, _, loaded = pick_model(
            lambda: transformer_choices("encoder-decoder"), p, cls.KEYS["model"], "tf-en-fr", load_model
        )
        config = loaded.config
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], config.num_encoder_layers, config.n_heads)
        return cls(
            model=name,
            text=p.text(cls.KEYS["text"], first_input(name)),  # the page's own first input for this model
            beam=int(p.number(cls.KEYS["beam"], 1, 8, 1, "transformer.url.beam")),
            alpha=p.number(cls.KEYS["alpha"], 0, 2, DEFAULT_LENGTH_PENALTY, "transformer.url.alpha"),
            site=p.option(cls.KEYS["site"], SITE_LABELS, "cross", "transformer.url.kind", SITE_LABELS.get),
            layer=layer,
            head=head,
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)


def translate(state: TranslationState) -> Any:
    """The state's translation (cached), as the page and its slide both show it; InputError for an
    unusable sentence."""
    return run_translation(state.model, state.text, state.beam, state.alpha)


@dataclass(frozen=True)
class ExposureState:
    """The translation page's exposure-bias section as values: the translation model and the index of the
    test sentence of its corpus decoded from the gold prefix and from its own."""

    model: str
    index: int = 0
    topic: ClassVar[str] = "exposure"  # the section's name in the link
    KEYS: ClassVar[dict[str, str]] = {
        "topic": "topic",
        "model": "tf_model",
        "index": "tf_exp_index",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> ExposureState:
        """The state a link holds (the page's model and sentence); SlideProblem for a model that translates no
        corpus (the copy and reverse tasks)."""
        from models.inference.translate import TRANSLATION

        p.section(cls.topic, "transformer.exp.header")
        name, _, loaded = pick_model(
            lambda: transformer_choices("encoder-decoder"), p, cls.KEYS["model"], "tf-en-fr", load_model
        )
        if loaded.task != TRANSLATION:
            raise SlideProblem(tr("slide.exposure.no_corpus"))
        index = int(p.number(cls.KEYS["index"], 0, test_size(name) - 1, 0, "seq2seq.exp.sentence"))
        return cls(name, index)

    def link(self) -> dict[str, str]:
        return link_of(self)


@dataclass(frozen=True)
class SmoothingState:
    """The translation page's label-smoothing section: the saved evaluation's pairs, no choice of its own."""

    topic: ClassVar[str] = "smoothing"  # the section's name in the link
    KEYS: ClassVar[dict[str, str]] = {"topic": "topic"}

    @classmethod
    def read(cls, p: SlideParams) -> SmoothingState:
        p.section(cls.topic, "transformer.ls.header")
        return cls()

    def link(self) -> dict[str, str]:
        return link_of(self)


def exposure_slide(p: SlideParams) -> SlideView:
    """The exposure-bias section as a slide: the sentence, its reference and where the two decodings part,
    above the section's figure (ui.seq2seq.exposure_view_figure)."""
    from ui.seq2seq import exposure_slide_view

    state = ExposureState.read(p)
    return exposure_slide_view(
        p, dict(transformer_choices("encoder-decoder"))[state.model], exposure_of(state.model, state.index)
    )


def _epsilon(row: dict) -> float:
    return float(row["label_smoothing"])


def smoothing_slide(p: SlideParams) -> SlideView:
    """The label-smoothing section as a slide: each pair's ECE without and with ε = 0.1, above the section's
    reliability diagrams (:func:`ui.transformer.reliability_views`)."""
    SmoothingState.read(p)
    pairs = label_smoothing_pairs()
    if not pairs:
        raise SlideProblem(tr("transformer.ls.none"))
    summary = " · ".join(
        TEST_SETS.get(t, t) + " " + " → ".join(f"{m['ece']:.4f}" for m in sorted(pair, key=_epsilon))
        for t, pair in pairs.items()
    )
    figures = reliability_views(pairs)

    def draw(step: int) -> None:
        line(tr("slide.ls.line", pairs=summary))
        show_figures(figures)

    return p.view(1, 0, draw)


#: The translation page's sections with a slide of their own, by their name in the link (``?topic=``).
SECTION_SLIDES = {ExposureState.topic: exposure_slide, SmoothingState.topic: smoothing_slide}


def translation_slide(p: SlideParams) -> SlideView:
    """The translation page's head view as a slide, read from the link as the page reads it; H leaves
    the decoder rows after the step blank, labels too ("where will it look next?"). A slide added from a
    section below the view (exposure bias, label smoothing) draws that section (:data:`SECTION_SLIDES`)."""
    if (section := SECTION_SLIDES.get(p.raw("topic") or "")) is not None:
        return section(p)
    state = TranslationState.read(p)
    label = dict(transformer_choices("encoder-decoder"))[state.model]
    try:
        trace = translate(state)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    if not trace.tgt_tokens:
        raise SlideProblem(tr("transformer.no_tokens"))

    def draw(step: int) -> None:
        line(label, f"{state.text} → {' '.join(trace.tgt_tokens[: step + 1])}")
        show_figure(
            head_view(
                trace,
                state.site,
                state.layer,
                state.head,
                step,
                rows=step + 1 if hiding() else None,
                hide_labels=True,
                width=PLAN_WIDTH,
                height=SLIDE_HEIGHT,
            )[0]
        )

    return p.view(len(trace.tgt_tokens), p.step("tf", len(trace.tgt_tokens)), draw)


@dataclass(frozen=True)
class GenerationState:
    """The generation page's causal head view as values: the decoder-only checkpoint, the prompt, sampling
    temperature, top-k (0: no limit), how many tokens, the seed, the layer and the head (0-based;
    ui.grid.AVERAGE for the mean). The step is the step control's own (``gen_step``)."""

    model: str
    prompt: str
    temperature: float = 0.8
    top_k: int = 20
    max_new: int = 20
    seed: int = 0
    layer: int = 0
    head: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "model": "gen_model",
        "prompt": "gen_text",
        "temperature": "gen_temperature",
        "top_k": "gen_top_k",
        "max_new": "gen_max_new",
        "seed": "gen_seed",
        "layer": "gen_layer",
        "head": "gen_head",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> GenerationState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        name, _, loaded = pick_model(
            lambda: transformer_choices("decoder-only"), p, cls.KEYS["model"], None, load_model
        )
        config = loaded.config
        layer, head = p.layer_head(cls.KEYS["layer"], cls.KEYS["head"], config.num_decoder_layers, config.n_heads)
        return cls(
            model=name,
            prompt=p.text(cls.KEYS["prompt"], GEN_EXAMPLES[0]),
            temperature=p.number(cls.KEYS["temperature"], 0, 2, 0.8, "generation.url.temperature"),
            top_k=p.option(
                cls.KEYS["top_k"],
                GEN_TOP_K,
                20,
                "slide.what.top_k",
                lambda k: tr("generation.no_limit") if k == 0 else str(k),
            ),
            max_new=int(p.number(cls.KEYS["max_new"], 1, 40, 20, "generation.url.max_new")),
            seed=int(p.number(cls.KEYS["seed"], 0, 1_000_000, 0, "generation.url.seed")),
            layer=layer,
            head=head,
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)


def generate(state: GenerationState) -> Any:
    """The state's generation (cached), as the page and its slide both show it; InputError for an
    unusable prompt."""
    return run_generation(
        state.model, state.prompt, state.max_new, float(state.temperature), int(state.top_k) or None, state.seed
    )


def generation_slide(p: SlideParams) -> SlideView:
    """The generation page's causal head view as a slide, one step per generated token."""
    state = GenerationState.read(p)
    label = dict(transformer_choices("decoder-only"))[state.model]
    try:
        result = generate(state)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    if not result.steps:
        raise SlideProblem(tr("generation.nothing"))

    def draw(step: int) -> None:
        shown = result.steps[step]
        line(
            label,
            " ".join(result.tokens[: len(result.prompt_tokens) + step]),
            tr("slide.gen.samples", token=shown.token, p=shown.prob),
        )
        show_figure(causal_view(result, state.layer, state.head, step, width=PLAN_WIDTH, height=SLIDE_HEIGHT)[0])

    return p.view(len(result.steps), p.step("gen", len(result.steps)), draw)
