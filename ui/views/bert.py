"""The BERT masking page's view, declared once: what the masked LM predicts at every chosen position
(the first :data:`PAGE_ROWS`, one small bar chart each, the original piece's bar green). The page
(pages/7_BERT_masking.py), its slide (:func:`slide`, the Present page's renderer) and the handout draw
this same figure; a slide only draws it larger."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from corpora.masking import NOT_CHOSEN, REFERENCE
from ui.bert import (
    BERT_PAIR,
    CLICKED,
    RULE_LABELS,
    analyse,
    clickable,
    clicks_of,
    load_small_bert,
    masked_lm_choices,
    outcome_labels,
)
from ui.i18n import figure_texts, tr
from ui.views.base import PLAN_WIDTH, SlideParams, SlideProblem, SlideView, line, show_figure
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


def slide(p: SlideParams) -> SlideView:
    """The page's predictions as a slide (the page's Model, minilm-mlm by default; a [MASK] typed in the
    text is predicted as ``python -m models.fill_mask`` does), read from the link as the page reads it;
    above the figure, how many the model got right at top-1."""
    choices = masked_lm_choices()  # the page's Model selectbox: its first (minilm-mlm) by default
    name = p.option("bert_model", list(choices), next(iter(choices)), "masking.url.model", choices.get)
    loaded = load_small_bert(name)
    if isinstance(loaded, str):
        raise SlideProblem(loaded)
    text_a = p.text("bert_a", BERT_PAIR[0])
    text_b = p.text("bert_b", BERT_PAIR[1])
    seed = int(p.number("bert_seed", 0, 10**9, 0, "masking.url.seed"))
    draw_random = p.flag("bert_draw", True, "masking.url.draw")
    rule = p.option("bert_rule", RULE_LABELS, REFERENCE, "masking.url.rule", RULE_LABELS.get)
    if not text_a.strip():
        raise SlideProblem(tr("masking.empty"))
    clicked: tuple[int, ...] = ()  # the pieces clicked to mask on the page (bert_clicked=3,7), checked as it does
    if (raw := p.raw(CLICKED)) is not None:
        clicked, refused = clicks_of(raw, clickable(name, text_a, text_b))
        if refused is not None:
            p.refuse("masking.url.clicked", refused, tr("masking.url.none_clicked"))
    rows = predicted_rows(analyse(name, text_a, text_b, seed, draw_random, clicked, rule), clicked)
    if not rows:
        raise SlideProblem(tr("slide.bert.none"))

    def draw(step: int) -> None:
        known = [r for r in rows if r.outcome != TYPED]  # a [MASK] typed in the text has no original to get right
        hits = sum(r.original_rank == 0 for r in known)
        line(
            choices[name],
            "A: " + text_a,
            "B: " + text_b if text_b else "",
            tr("slide.bert.seed", seed=seed),
            tr("slide.bert.title", hits=hits, n=len(known)) if known else tr("slide.bert.typed"),
        )
        show_figure(predictions_view(rows, width=PLAN_WIDTH))

    return p.view(1, 0, draw)
