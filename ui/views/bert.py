"""The BERT masking page's view, declared once: what the masked LM predicts at every chosen position
(the first :data:`PAGE_ROWS`, one small bar chart each, the original piece's bar green). The page
(pages/7_BERT_masking.py), its slide (:func:`slide`, the Present page's renderer) and the handout draw
this same figure; a slide only draws it larger."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import plotly.graph_objects as go

from corpora.masking import NOT_CHOSEN, REFERENCE
from ui.bert import (
    BERT_PAIR,
    FinetuneSources,
    CLICKED,
    RULE_LABELS,
    analyse,
    clickable,
    clicks_of,
    clicks_text,
    finetune_change_figure,
    finetune_options,
    finetune_record,
    finetune_sources,
    load_small_bert,
    masked_lm_choices,
    outcome_labels,
)
from ui.i18n import figure_texts, tr
from ui.state import topic_name, topic_of
from ui.views.base import PLAN_WIDTH, SlideParams, SlideProblem, SlideView, line, link_of, show_figure
from viz_core.bert import TYPED, PredictionRow, prediction_rows, predictions_figure

PAGE_ROWS = 16  # the chosen positions whose predictions the view draws (the page says when there are more)


def predicted_rows(result: Any, clicked: Collection[int]) -> list[PredictionRow]:
    """The model's top pieces at every chosen position of a masked analysis (ui.bert.analyse), the
    pieces in ``clicked`` named "clicked" where they became [MASK]."""
    masked = result.masked
    return prediction_rows(
        np.flatnonzero(result.outcome != NOT_CHOSEN),
        result.tokens,
        result.input_tokens,
        outcome_labels(result.outcome, clicked),
        result.top_tokens,
        masked.top_probs,
        masked.target_probs,
        masked.target_rank,
    )


def predictions_view(rows: Sequence[PredictionRow], *, width: float | None = None) -> go.Figure:
    """The page's predictions figure: the first :data:`PAGE_ROWS` of ``rows``, planned for ``width``
    px (None: the page's, viz_core.bert.PREDICTIONS_WIDTH_PX)."""
    return predictions_figure(rows[:PAGE_ROWS], texts=figure_texts(), width=width)


@dataclass(frozen=True)
class MaskingState:
    """The BERT page's view as values: the masked LM (a checkpoint name), sentences A and B, the seed of the
    random masks and whether they are drawn, the masking rule (a key of :data:`ui.bert.RULE_LABELS`) and the
    pieces clicked to mask (positions, sorted)."""

    model: str
    text_a: str = BERT_PAIR[0]
    text_b: str = BERT_PAIR[1]
    seed: int = 0
    draw_random: bool = True
    rule: str = REFERENCE
    clicked: tuple[int, ...] = ()
    KEYS: ClassVar[dict[str, str]] = {
        "model": "bert_model",
        "text_a": "bert_a",
        "text_b": "bert_b",
        "seed": "bert_seed",
        "draw_random": "bert_draw",
        "rule": "bert_rule",
        "clicked": CLICKED,
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> MaskingState:
        """The state a link holds, read as the page reads it (a refused value: the page's default, noted;
        clicks that are not the input's pieces: none)."""
        choices = masked_lm_choices()  # the page's Model selectbox: its first (minilm-mlm) by default
        name = p.option(cls.KEYS["model"], list(choices), next(iter(choices)), "masking.url.model", choices.get)
        loaded = load_small_bert(name)
        if isinstance(loaded, str):
            raise SlideProblem(loaded)
        state = cls(
            model=name,
            text_a=p.text(cls.KEYS["text_a"], BERT_PAIR[0]),
            text_b=p.text(cls.KEYS["text_b"], BERT_PAIR[1]),
            seed=int(p.number(cls.KEYS["seed"], 0, 10**9, 0, "masking.url.seed")),
            draw_random=p.flag(cls.KEYS["draw_random"], True, "masking.url.draw"),
            rule=p.option(cls.KEYS["rule"], RULE_LABELS, REFERENCE, "masking.url.rule", RULE_LABELS.get),
        )
        if not state.text_a.strip():
            raise SlideProblem(tr("masking.empty"))
        if (raw := p.raw(cls.KEYS["clicked"])) is None:
            return state
        clicked, refused = clicks_of(raw, clickable(name, state.text_a, state.text_b))
        if refused is not None:
            p.refuse("masking.url.clicked", refused, tr("masking.url.none_clicked"))
        return replace(state, clicked=clicked)

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self, clicked=clicks_text(self.clicked))


#: The fine-tuning tab's title id: its slide is :func:`finetune_slide`.
FINETUNE_TAB = "masking.tab.finetune"


@dataclass(frozen=True)
class FinetuneState:
    """The BERT page's fine-tuning tab as values: the encoder fine-tuned (``small`` bert-small, ``minilm``
    MiniLM-L6) and the task (cls | nli | qa) whose attention change is drawn."""

    model: str = "small"
    task: str = "nli"
    topic: ClassVar[str] = topic_name(FINETUNE_TAB)  # the tab's name in the link
    KEYS: ClassVar[dict[str, str]] = {
        "topic": "topic",
        "model": "bert_ft_model",
        "task": "bert_ft_task",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams, sources: FinetuneSources | None = None) -> FinetuneState:
        """The state a link holds, read as the tab reads it (its first model and task by default); SlideProblem
        when nothing fine-tuned is on this server or in the saved evaluation (``sources``:
        ui.bert.finetune_sources, read here when not given)."""
        p.topic(FINETUNE_TAB, [FINETUNE_TAB])  # the fine-tuning tab's view (another tab's name: noted)
        options = finetune_options(sources)
        if not options:
            raise SlideProblem(tr("masking.ftx.none"))
        model = p.option(cls.KEYS["model"], list(options), next(iter(options)), "masking.ftx.col.model", _model_label)
        tasks = options[model]
        return cls(model, p.option(cls.KEYS["task"], tasks, tasks[0], "masking.ftx.pick", _task_label))

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)


def _model_label(model: str) -> str:
    return tr(f"masking.ftx.model.{model}")


def _task_label(task: str) -> str:
    return tr(f"masking.ftx.task.{task}")


def finetune_slide(p: SlideParams) -> SlideView:
    """The fine-tuning tab as a slide: both test figures of the model and task (all parameters fine-tuned,
    §4; the frozen-feature head, §5.3) above the tab's figure of how fine-tuning changed each layer × head."""
    sources = finetune_sources()  # read once for the state and its record
    s = FinetuneState.read(p, sources)
    record = finetune_record(s.model, s.task, sources)
    if record is None:
        raise SlideProblem(tr("masking.ftx.none"))
    training = record[1]
    scores = training.get("test") or training
    figure = finetune_change_figure(training)

    def draw(step: int) -> None:
        line(  # the figures first: where the line is cut, it is in the task's name
            tr("slide.bert.finetune", all=scores["finetuned"], frozen=scores["frozen"], n=training.get("n_test", "")),
            _model_label(s.model),
            _task_label(s.task),
        )
        if figure is not None:
            show_figure(figure)

    return p.view(1, 0, draw)


def analysis_of(state: MaskingState) -> Any:
    """The state's masked analysis (ui.bert.analyse, cached), as the page and its slide both show it."""
    return analyse(state.model, state.text_a, state.text_b, state.seed, state.draw_random, state.clicked, state.rule)


def slide(p: SlideParams) -> SlideView:
    """The page's predictions as a slide (the page's Model, minilm-mlm by default; a [MASK] typed in the
    text is predicted as ``python -m models.fill_mask`` does), read from the link as the page reads it;
    above the figure, how many the model got right at top-1. Added from the fine-tuning tab: that tab's
    view (:func:`finetune_slide`)."""
    if topic_of(p.raw("topic") or "", [FINETUNE_TAB]) is not None:  # added from the fine-tuning tab
        return finetune_slide(p)
    s = MaskingState.read(p)
    analysis = analysis_of(s)
    rows = predicted_rows(analysis, s.clicked)
    if not rows:
        raise SlideProblem(tr("slide.bert.none"))
    label = masked_lm_choices()[s.model]

    def draw(step: int) -> None:
        known = [r for r in rows if r.outcome != TYPED]  # a [MASK] typed in the text has no original to get right
        hits = sum(r.original_rank == 0 for r in known)
        line(
            label,
            "A: " + s.text_a,
            "B: " + s.text_b if s.text_b else "",
            tr("slide.bert.seed", seed=s.seed),
            tr("slide.bert.title", hits=hits, n=len(known)) if known else tr("slide.bert.typed"),
        )
        show_figure(predictions_view(rows, width=PLAN_WIDTH))

    return p.view(1, 0, draw)
