"""The Real LLM page's views as slides: the tab a view was added from (generation, translation,
grouped-query attention, RoPE or head types), drawn by the view functions the page's tabs call (ui.llm:
step_figure, translation_figure, gqa_view, rope_view, heads_figure) with the page's settings; a slide only
draws them larger."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ui.i18n import tr
from ui.llm import (
    BYTES,
    DEFAULT_PROMPT,
    HEAD_TYPES,
    HEADS_TEXT,
    SUMMARIES,
    KVCache,
    RopeView,
    bytes_label,
    direction_label,
    few_shot_translation,
    generation,
    gqa_view,
    head_scores,
    heads_figure,
    heavy_once,
    lab_figure,
    lab_translations,
    licence_notice,
    load_failure,
    model_names,
    package_problem,
    rope_bases,
    rope_view,
    shared_llm,
    step_figure,
    summary_label,
    translation_figure,
    translation_heads_figure,
    visible,
)
from ui.views.base import PLAN_WIDTH, SlideParams, SlideProblem, SlideView, line, link_of, show_figure, show_figures

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.inference.llm import HeadScores, LLMTrace

# (models.inference.llm is imported where it is used, as ui.llm does: read at the call, as tests stand in for it)

MODEL_KEY = "llm_model"  # the link's key of the page's model, the same in every tab's link


def _model(p: SlideParams) -> str:
    """The page's model (a name of :func:`ui.llm.model_names`) as a link holds it; SlideProblem when it is not
    installed or not converted (the conversion takes minutes: it is started on the page, never by a slide)."""
    from models.inference.llm import MODEL_NAME, is_converted, spec_of

    model = p.option(
        MODEL_KEY, model_names(), MODEL_NAME, "llm_explorer.model", lambda name: tr(f"llm_explorer.model.{name}")
    )
    if problem := package_problem(model):
        raise SlideProblem(problem)
    if not is_converted(model=model):
        raise SlideProblem(tr("llm_explorer.not_converted", command=spec_of(model).prepare_command))
    return model


@dataclass(frozen=True)
class LLMGenerationState:
    """The generation tab's view as values: the model, the prompt, the chat template on or off, sampling
    (temperature, top-k with 0 for none, top-p), how many tokens, the seed, the KV cache on or off, what the
    rows are (``layers``, or ``heads`` of one layer) and that layer (0-based). The step is the generated
    token (``llm_step``)."""

    model: str
    prompt: str = DEFAULT_PROMPT
    chat: bool = True
    temperature: float = 0.7
    top_k: int = 50
    top_p: float = 0.9
    max_new: int = 24
    seed: int = 0
    use_cache: bool = True
    rows: str = "layers"
    layer: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "model": MODEL_KEY,
        "prompt": "llm_prompt",
        "chat": "llm_chat",
        "temperature": "llm_temperature",
        "top_k": "llm_top_k",
        "top_p": "llm_top_p",
        "max_new": "llm_max_new",
        "seed": "llm_seed",
        "use_cache": "llm_cache",
        "rows": "llm_rows",
        "layer": "llm_layer",
    }  # each field's URL key, in the link's order (the tab is the page's first: no topic)

    @classmethod
    def read(cls, p: SlideParams, model: str, n_layers: int) -> LLMGenerationState:
        """The state a link holds for ``model`` (of ``n_layers`` layers), read as the page reads it."""
        return cls(
            model=model,
            prompt=p.text(cls.KEYS["prompt"], DEFAULT_PROMPT, 2000, "llm_explorer.prompt"),
            chat=p.flag(cls.KEYS["chat"], True, "llm_explorer.chat"),
            temperature=p.number(cls.KEYS["temperature"], 0, 2, 0.7, "llm_explorer.temperature"),
            top_k=int(p.number(cls.KEYS["top_k"], 0, 200, 50, "llm_explorer.top_k")),
            top_p=p.number(cls.KEYS["top_p"], 0.05, 1, 0.9, "llm_explorer.top_p"),
            max_new=int(p.number(cls.KEYS["max_new"], 1, 64, 24, "llm_explorer.max_new")),
            seed=int(p.number(cls.KEYS["seed"], 0, 10_000, 0, "llm_explorer.seed")),
            use_cache=p.flag(cls.KEYS["use_cache"], True, "llm_explorer.kv_cache"),
            rows=p.option(
                cls.KEYS["rows"],
                ("layers", "heads"),
                "layers",
                "llm_explorer.heads_shown",
                lambda r: tr(f"llm_explorer.rows.{r}"),
            ),
            layer=int(p.number(cls.KEYS["layer"], 1, n_layers, n_layers // 2, "llm_explorer.layer")) - 1,
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, layer=self.layer + 1)  # (1-based, as the page's number input)


@dataclass(frozen=True)
class GQAState:
    """The grouped-query attention tab's view as values: the model, bytes per cached value and the context
    length the KV cache is sized for."""

    model: str
    size: int = BYTES[0]
    context: int = 2048
    topic: ClassVar[str] = "gqa"  # the tab's name in the link (ui.state.topic_name)
    KEYS: ClassVar[dict[str, str]] = {
        "model": MODEL_KEY,
        "topic": "topic",
        "size": "llm_bytes",
        "context": "llm_context",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams, llm: Any) -> GQAState:
        high = max(256, llm.max_positions)
        return cls(
            llm.name,
            p.option(cls.KEYS["size"], BYTES, BYTES[0], "llm_explorer.gqa.bytes", bytes_label),
            int(p.number(cls.KEYS["context"], 256, high, min(2048, high), "llm_explorer.gqa.context")),
        )

    def link(self) -> dict[str, str]:
        return link_of(self)


@dataclass(frozen=True)
class RopeState:
    """The RoPE tab's view as values: the model, the dimension pair (0-based) and how many positions."""

    model: str
    pair: int = 0
    positions: int = 16
    topic: ClassVar[str] = "rope"  # the tab's name in the link (ui.state.topic_name)
    KEYS: ClassVar[dict[str, str]] = {
        "model": MODEL_KEY,
        "topic": "topic",
        "pair": "llm_pair",
        "positions": "llm_positions",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams, llm: Any) -> RopeState:
        return cls(
            llm.name,
            int(p.number(cls.KEYS["pair"], 0, llm.head_dim // 2 - 1, 0, "llm_explorer.rope.pair")),
            int(p.number(cls.KEYS["positions"], 4, 48, 16, "llm_explorer.rope.positions")),
        )

    def link(self) -> dict[str, str]:
        return link_of(self)


@dataclass(frozen=True)
class HeadTypesState:
    """The head types tab's view as values: the model, the head type scored (one of
    :data:`ui.llm.HEAD_TYPES`), the text it is measured on, the induction test's period and seed."""

    model: str
    head_type: str = HEAD_TYPES[0]
    text: str = HEADS_TEXT
    period: int = 50
    seed: int = 0
    topic: ClassVar[str] = "heads"  # the tab's name in the link (ui.state.topic_name)
    KEYS: ClassVar[dict[str, str]] = {
        "model": MODEL_KEY,
        "topic": "topic",
        "head_type": "llm_kind",
        "text": "llm_heads_text",
        "period": "llm_period",
        "seed": "llm_heads_seed",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams, llm: Any) -> HeadTypesState:
        return cls(
            llm.name,
            p.option(
                cls.KEYS["head_type"],
                HEAD_TYPES,
                HEAD_TYPES[0],
                "llm_explorer.heads.kind",
                lambda k: tr(f"llm_explorer.kind.{k}"),
            ),
            p.text(cls.KEYS["text"], HEADS_TEXT, 4000, "llm_explorer.heads.text"),
            int(p.number(cls.KEYS["period"], 10, 200, 50, "llm_explorer.heads.period")),
            int(p.number(cls.KEYS["seed"], 0, 10_000, 0, "llm_explorer.heads.seed")),
        )

    def link(self) -> dict[str, str]:
        return link_of(self)


@dataclass(frozen=True)
class TranslationState:
    """The translation tab's view as values: the model, the direction ("zh-en" or "en-fr"), the source
    sentence, what the figure's rows average (one of :data:`ui.llm.SUMMARIES`) and the layer and head
    they are of (0-based). The step is the generated token (``llm_tr``)."""

    model: str
    direction: str = "zh-en"
    source: str = ""
    summary: str = SUMMARIES[0]
    layer: int = 0
    head: int = 0
    renormalise: bool = True
    topic: ClassVar[str] = "translate"  # the tab's name in the link (ui.state.topic_name)
    KEYS: ClassVar[dict[str, str]] = {
        "model": MODEL_KEY,
        "topic": "topic",
        "direction": "llm_tr_dir",
        "source": "llm_tr_text",
        "summary": "llm_tr_sum",
        "layer": "llm_tr_layer",
        "head": "llm_tr_head",
        "renormalise": "llm_tr_norm",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams, llm: Any) -> TranslationState:
        from models.inference.llm_translate import DEFAULT_SOURCES, DIRECTIONS, MAX_SOURCE_CHARS

        direction = p.option(cls.KEYS["direction"], tuple(DIRECTIONS), "zh-en", "llm_explorer.tr.dir", direction_label)
        return cls(
            llm.name,
            direction,
            p.text(cls.KEYS["source"], DEFAULT_SOURCES[direction], MAX_SOURCE_CHARS, "llm_explorer.tr.source"),
            p.option(
                cls.KEYS["summary"],
                SUMMARIES,
                SUMMARIES[0],
                "llm_explorer.tr.summary",
                lambda s: summary_label(s, 0, 0),
            ),
            int(p.number(cls.KEYS["layer"], 1, llm.n_layers, 1, "llm_explorer.layer")) - 1,
            int(p.number(cls.KEYS["head"], 1, llm.n_heads, 1, "llm_explorer.tr.head")) - 1,
            p.flag(cls.KEYS["renormalise"], True, "llm_explorer.tr.renormalise"),
        )

    def link(self) -> dict[str, str]:
        return link_of(self, layer=self.layer + 1, head=self.head + 1)  # (1-based, as the page's sliders)


def translate(state: TranslationState):
    """The few-shot translation of ``state`` (one heavy request at a time): the page's and its slide's one
    cached run (models.inference.llm_translate.LLMTranslation)."""
    return heavy_once(
        few_shot_translation, state.model, state.direction, state.source, what=tr("llm_explorer.tab.translate")
    )


def generate(state: LLMGenerationState) -> LLMTrace:
    """The generation of ``state`` (one heavy request at a time): the page's and its slide's one cached run."""
    return heavy_once(
        generation,
        state.model,
        state.prompt,
        state.chat,
        state.max_new,
        float(state.temperature),
        state.top_k,
        float(state.top_p),
        state.seed,
        state.use_cache,
        what=tr("llm_explorer.tab.generation"),
    )


def kv_cache(state: GQAState, llm: Any) -> tuple[go.Figure, KVCache]:
    """The grouped-query attention view of ``state`` on ``llm``: the page's and its slide's."""
    return gqa_view(llm, state.size, state.context)


def rope(state: RopeState, llm: Any) -> RopeView:
    """The RoPE view of ``state`` on ``llm``: the page's and its slide's."""
    return rope_view(llm, state.pair, state.positions)


def score_heads(state: HeadTypesState) -> HeadScores:
    """Every head's scores on the text and induction test of ``state`` (one heavy request at a time): the
    page's and its slide's one cached run."""
    return heavy_once(head_scores, state.model, state.text, state.period, state.seed, what=tr("llm_explorer.tab.heads"))


def slide(p: SlideParams) -> SlideView:
    """Real LLM (SmolLM2-135M-Instruct, or Gemma 3 270M), the tab it was added from: generation (the
    query row that produced each generated token, per layer or per head of one layer, one step per
    generated token), grouped-query attention, RoPE or head types (one step each)."""
    from models.inference.llm import LLMError

    topic = p.topic("llm_explorer.tab.generation", TOPICS)
    model = _model(p)
    if notice := licence_notice(model):
        p.notes.append(notice)
    try:
        llm = shared_llm(model)
    except (LLMError, OSError, ValueError) as exc:
        raise SlideProblem(load_failure(exc)) from None
    if topic != "llm_explorer.tab.generation":
        return VIEWS[topic](p, llm)
    s = LLMGenerationState.read(p, model, llm.n_layers)
    if not s.prompt.strip():
        raise SlideProblem(tr("llm_explorer.empty_prompt"))
    try:  # the page's run, so that the page's cached run is the slide's
        trace = generate(s)
    except (LLMError, OSError, ValueError) as exc:
        raise SlideProblem(load_failure(exc)) from None
    if not trace.steps:
        raise SlideProblem(tr("slide.llm.nothing"))
    if trace.dropped:
        p.notes.append(
            tr(
                "llm_explorer.cut",
                n=len(trace.prompt_ids) + trace.dropped,
                limit=len(trace.prompt_ids),
                dropped=trace.dropped,
            )
        )

    def draw(step: int) -> None:
        shown = trace.steps[step]
        answer = "".join(trace.generated_tokens[: step + 1]).replace("\n", " ↵ ")
        line(f"{s.prompt} → {answer}", tr("slide.gen.samples", token=visible([shown.token])[0], p=shown.prob))
        show_figure(step_figure(trace, step, s.rows, s.layer + 1, width=PLAN_WIDTH))

    return p.view(len(trace.steps), p.step("llm", len(trace.steps)), draw)


def _gqa_slide(p: SlideParams, llm: Any) -> SlideView:
    """The grouped-query attention tab: which K/V head each query head reads, and the KV cache at the
    page's bytes per value and context length (one step)."""
    s = GQAState.read(p, llm)

    def draw(step: int) -> None:
        figure, cache = kv_cache(s, llm)
        line(cache.summary())
        if window := cache.window_line(llm):
            line(window)
        show_figure(figure)

    return p.view(1, 0, draw)


def _rope_slide(p: SlideParams, llm: Any) -> SlideView:
    """The RoPE tab: the page's dimension pair over its positions, every pair's wavelength, and q·k at
    every pair of positions, side by side (one step)."""
    s = RopeState.read(p, llm)

    def draw(step: int) -> None:
        view = rope(s, llm)
        line(tr("llm_explorer.rope.theta", i=s.pair, theta=view.theta, wave=2 * np.pi / view.theta), rope_bases(llm))
        show_figures(view.figures)

    return p.view(1, 0, draw)


def _heads_slide(p: SlideParams, llm: Any) -> SlideView:
    """The head types tab: every head's score of the page's head type, measured on the page's text and
    induction test (one step)."""
    from models.inference.llm import LLMError

    s = HeadTypesState.read(p, llm)
    if len(s.text.split()) < 2:
        raise SlideProblem(tr("llm_explorer.empty_prompt"))
    try:  # the page's run, so that the page's cached run is the slide's
        scores = score_heads(s)
    except (LLMError, OSError, ValueError) as exc:
        raise SlideProblem(load_failure(exc)) from None

    def draw(step: int) -> None:
        best = ", ".join(
            f"L{layer + 1} H{head + 1} ({score:.2f})" for layer, head, score in scores.best(s.head_type, 5)
        )
        line(tr("llm_explorer.heads.best_line", heads=best))
        show_figure(heads_figure(scores, s.head_type))

    return p.view(1, 0, draw)


def _translation_slide(p: SlideParams, llm: Any) -> SlideView:
    """The translation tab: the real LLM's few-shot translation, each generated token's attention over the
    source (the page's summary) beside the share of every layer × head on the source, one step per generated
    token; the lab's Transformer on the same sentence as the last step."""
    from models.inference.llm import LLMError

    s = TranslationState.read(p, llm)
    if not s.source.strip():
        raise SlideProblem(tr("llm_explorer.tr.empty"))
    try:  # the page's run, so that the page's cached run is the slide's
        result = translate(s)
    except (LLMError, OSError, ValueError) as exc:
        raise SlideProblem(load_failure(exc)) from None
    if not result.output_tokens:
        raise SlideProblem(tr("slide.llm.nothing"))
    n = len(result.output_tokens)
    labs = [lab for lab in lab_translations(s.direction, s.source) if lab.weights is not None]

    def draw(step: int) -> None:
        if step == n and labs:
            lab = labs[0]
            line(f"{lab.name}: {s.source} → {lab.text}")
            show_figure(lab_figure(lab, width=PLAN_WIDTH))
            return
        line(
            f"{s.source} → {result.text}", tr("llm_explorer.tr.share_line", share=float(result.on_source[step].mean()))
        )
        show_figures(
            [
                translation_figure(result, s.summary, s.layer, s.head, step, s.renormalise, width=PLAN_WIDTH / 2),
                translation_heads_figure(result, step),
            ]
        )

    steps = n + (1 if labs else 0)
    return p.view(steps, p.step("llm_tr", steps), draw)


TOPICS = (
    "llm_explorer.tab.generation",
    "llm_explorer.tab.translate",
    "llm_explorer.tab.gqa",
    "llm_explorer.tab.rope",
    "llm_explorer.tab.heads",
)  # the page's tabs, in order
VIEWS: dict[str, Callable[[SlideParams, Any], SlideView]] = {
    "llm_explorer.tab.translate": _translation_slide,
    "llm_explorer.tab.gqa": _gqa_slide,
    "llm_explorer.tab.rope": _rope_slide,
    "llm_explorer.tab.heads": _heads_slide,
}
