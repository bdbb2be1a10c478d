"""The seq2seq page's views, declared once: the attention heatmap at a step (with the rows after it
left blank when asked: the quiz, or a slide's "where will it look next?"), and the comparison pane of
two models. The page (pages/2_Seq2seq_attention.py), its slide (:func:`slide`, the Present page's
renderer) and the handout draw these same figures; a slide only draws them larger."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import plotly.graph_objects as go

from models.inference.traces import Seq2seqDecodeTrace, Hypothesis, display_text
from ui.i18n import tr
from ui.quiz import hide_rows
from ui.seq2seq import (
    MODES,
    exposure_of,
    exposure_slide_view,
    example_inputs,
    gold_alignment,
    heatmap_texts,
    load_model,
    model_choices,
    model_data,
    run_translation,
)
from ui.tokens import input_error
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
from viz_core.seq2seq import attention_heatmap, topk_bars


def page_gold(trace: Seq2seqDecodeTrace) -> list[tuple[int, int]] | None:
    """The gold alignment the page draws: the grammar's, when the model produced the corpus translation;
    none for a model of real sentence pairs (they have no gold alignment)."""
    return None if model_data(trace.model)[0] else gold_alignment(trace)


def attention_view(
    trace: Seq2seqDecodeTrace,
    hyp: Hypothesis,
    step: int,
    *,
    rows: int | None = None,
    width: int,
    height: int | None = None,
) -> tuple[go.Figure, np.ndarray]:
    """The page's main figure: α of every output step of ``hyp`` over the source words, the ``step``
    outlined, the gold alignment and local-p's p_t where they exist; the rows from ``rows`` on are left
    blank and unlabelled ("?"). Returns the figure and the weights it draws (NaN where blank)."""
    rows = len(hyp.tokens) if rows is None else rows
    weights, row_tokens = (
        hide_rows(hyp.attention, hyp.tokens, rows) if rows < len(hyp.tokens) else (hyp.attention, list(hyp.tokens))
    )
    gold = page_gold(trace)
    zh = model_data(trace.model)[1] == "zh"
    fig = attention_heatmap(
        weights,
        trace.src_tokens,
        row_tokens,
        step=step,
        gold=gold and [(s, r) for s, r in gold if r < rows],
        src_unknown=trace.src_unknown,
        positions=None if hyp.positions is None else hyp.positions[:rows],
        width=width,
        **({} if height is None else {"height": height}),
        title=tr("seq2seq.fig.heatmap.zh" if zh else "seq2seq.fig.heatmap"),
        texts=heatmap_texts(trace.model),
    )
    return fig, weights


def comparison_heatmap(trace: Seq2seqDecodeTrace, step: int, label: str, **size: int) -> go.Figure | None:
    """One model's pane of the comparison view (two models on one sentence) at decoding ``step``,
    clamped to that model's own output: its attention heatmap titled with the model, None for a model
    without attention (``size``: width, height)."""
    if trace.attention is None or not trace.tgt_tokens:
        return None
    return attention_heatmap(
        trace.attention,
        trace.src_tokens,
        trace.tgt_tokens,
        step=min(step, len(trace.tgt_tokens) - 1),
        src_unknown=trace.src_unknown,
        title=label,
        texts=heatmap_texts(trace.model),
        **size,
    )


@dataclass(frozen=True)
class Seq2seqState:
    """The seq2seq page's view as values, never labels, so the same in every language: the model and
    the one it is compared with (checkpoint names), the sentence, beam width, Luong's weighting (soft or
    hard: :data:`ui.seq2seq.MODES`) and length penalty α. The page makes one from its
    widgets, a slide from its link (:meth:`read`), and both draw from :func:`decode`; the step is the
    step control's own (``s2s_step``), the same on the page and its slide."""

    model: str
    text: str
    beam: int
    mode: str
    alpha: float
    compare: str | None = None
    KEYS: ClassVar[dict[str, str]] = {
        "model": "s2s_model",
        "text": "s2s_text",
        "beam": "s2s_beam",
        "mode": "s2s_mode",
        "alpha": "s2s_alpha",
        "compare": "s2s_compare",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> Seq2seqState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted)."""
        from models.inference.common import DEFAULT_LENGTH_PENALTY

        name, _, _ = pick_model(model_choices, p, cls.KEYS["model"], "s2s-bahdanau", load_model)
        labels = dict(model_choices())
        return cls(
            model=name,
            text=p.text(cls.KEYS["text"], example_inputs(name)[0]),  # the page's own first input for this model
            beam=int(p.number(cls.KEYS["beam"], 1, 8, 1, "seq2seq.url.beam")),
            mode=p.option(cls.KEYS["mode"], MODES, "soft", "seq2seq.url.mode", MODES.get),
            alpha=p.number(cls.KEYS["alpha"], 0, 2, DEFAULT_LENGTH_PENALTY, "seq2seq.url.alpha"),
            compare=p.option(
                cls.KEYS["compare"],
                [None, *(n for n in labels if n != name)],
                None,
                "seq2seq.url.compare",
                lambda n: "" if n is None else labels[n],
            ),
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)  # (no compare: none in the link)


def decode(state: Seq2seqState, name: str | None = None) -> Seq2seqDecodeTrace:
    """The state's sentence decoded by ``name`` (default: the state's model), as the page and its slide both
    show it: Luong's weighting for a Luong model, soft attention for any other (the page notes that). Raises
    InputError for unusable input, SlideProblem for a model that cannot be loaded."""
    name = name or state.model
    loaded = load_model(name)
    if isinstance(loaded, str):
        raise SlideProblem(loaded)
    mode = state.mode if loaded.model.cfg.attention == "luong" else "soft"
    return run_translation(name, state.text, state.beam, mode, state.alpha)


@dataclass(frozen=True)
class ExposureState:
    """The seq2seq page's exposure-bias section as values: one of the teacher-forcing pair's models and the index
    of the test sentence decoded from the gold prefix and from the model's own."""

    model: str
    index: int = 0
    topic: ClassVar[str] = "exposure"  # the section's name in the link
    KEYS: ClassVar[dict[str, str]] = {
        "topic": "topic",
        "model": "exp_model",
        "index": "exp_index",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> ExposureState:
        """The state a link holds; SlideProblem when neither model of the pair is shipped."""
        from models.checkpoints import shipped
        from models.training.seq2seq import FORCING_PAIR

        p.section(cls.topic, "seq2seq.exp.header")
        names = [n for n in FORCING_PAIR if n in shipped("seq2seq")]
        if not names:
            raise SlideProblem(tr("seq2seq.exp.none"))
        labels = dict(model_choices())
        model = p.option(cls.KEYS["model"], names, names[0], "seq2seq.exp.model", lambda n: labels.get(n, n))
        return cls(model, int(p.number(cls.KEYS["index"], 0, 999, 0, "seq2seq.exp.sentence")))

    def link(self) -> dict[str, str]:
        return link_of(self)


def slide(p: SlideParams) -> SlideView:
    """The page's view as a slide: the attention heatmap up to the step (a model without attention: its
    top-k), or both models' panes when the view compares two; read from the link as the page reads it. A slide
    added from the exposure-bias section draws that section (ui.seq2seq.exposure_slide_view)."""
    if p.raw("topic") == ExposureState.topic:
        exposure = ExposureState.read(p)
        label = dict(model_choices()).get(exposure.model, exposure.model)
        return exposure_slide_view(p, label, exposure_of(exposure.model, exposure.index))
    state = Seq2seqState.read(p)
    labels = dict(model_choices())
    try:
        trace = decode(state)
        other = None if state.compare is None else decode(state, state.compare)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    text, label, hyp = state.text, labels[state.model], trace.best
    if other is not None and state.compare is not None:
        compare = state.compare
        n_steps = max(len(trace.tgt_tokens), len(other.tgt_tokens))

        def draw_pair(step: int) -> None:
            line(
                text,
                f"{label}: {display_text(trace.tgt_tokens)}",
                f"{labels[compare]}: {display_text(other.tgt_tokens)}",
            )
            panes = [
                comparison_heatmap(side, step, labels[key], width=PLAN_WIDTH // 2, height=SLIDE_HEIGHT)
                for key, side in ((state.model, trace), (compare, other))
            ]
            show_figures([pane for pane in panes if pane is not None])

        return p.view(n_steps, p.step("s2s", n_steps), draw_pair)

    def draw(step: int) -> None:
        line(label, f"{text} → {display_text(hyp.tokens[: step + 1])}")
        if hyp.attention is None:
            show_figure(
                topk_bars(
                    hyp.topk_tokens[step],
                    hyp.topk_probs[step],
                    emitted=hyp.tokens[step],
                    title=tr("slide.s2s.none", k=len(hyp.topk_tokens[step]), step=step + 1),
                )
            )
        else:  # "where will it look next?": the rows after the step left blank (H)
            show_figure(
                attention_view(
                    trace, hyp, step, rows=step + 1 if hiding() else None, width=PLAN_WIDTH, height=SLIDE_HEIGHT
                )[0]
            )

    return p.view(len(hyp.tokens), p.step("s2s", len(hyp.tokens)), draw)
