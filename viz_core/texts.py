"""The fixed words figures draw (axis titles, legend names, colour-bar titles, hover labels,
annotations, handout headings), by id, in English.

A builder that draws such words takes ``texts``: a mapping with these ids in another language
(the app passes ``ui.i18n.figure_texts()``, whose 中文 table ui/strings/figures.py is keyed by
these ids). Without it, or for an id it lacks, the English here is used, so viz_core needs no
language code and works alone (a notebook, the tests).
"""
from __future__ import annotations

from collections.abc import Mapping

Texts = Mapping[str, str]

TEXTS: dict[str, str] = {
    # colour bars (style.attention_scale)
    "weight": "weight",
    "relative_scale": "{title} relative to {relative_to}: darkest = {top:.2g}",
    "chosen_max": "the chosen maximum",
    # seq2seq (viz_core.seq2seq)
    "s2s.x": "source (English)",
    "s2s.y": "target step (French)",
    "s2s.gold": "gold alignment",
    "s2s.aligned": "aligned position p_t",
    "s2s.aligned_hover": "step {step}: p_t = {p:.2f}",
    "beam.kept": "kept",
    "beam.finished": "finished",
    "beam.pruned": "pruned",
    "beam.hover": "step {step}: {token}<br>log p = {log_p:.3f}<br>total = {total:.3f}<br>{group}<br>rank {rank}",
    "beam.x": "step",
    "beam.y": "rank among candidates",
    "bleu.hover": "{model}, {lo}–{hi} words: BLEU {bleu:.1f} ({n} sentences)",
    "bleu.x": "source sentence length (words)",
    "bleu.y": "test BLEU",
    # Transformer (viz_core.transformer)
    "key_attended": "key (attended to)",
    "query_attending": "query (attending)",
    "key": "key",
    "query": "query",
    "weight_hover": "{query} → {key}<br>weight = {weight:.4f}",
    "masked_hover": "{query} → {key}<br>masked: −∞ before softmax, weight 0",
    "masked": "masked",
    "may_attend": "{query} → {key}: +0, may attend",
    "blocked": "{query} → {key}: −∞, blocked",
    "mask": "mask",
    "chain.no_scaling": "no scaling",
    "chain.scaled": "② ÷ √d_k = ÷ {scale:.2f}, + mask",
    "chain.unscaled": "② no scaling, + mask",
    "chain.softmax": "③ softmax → weights",
    "chain.masked_hover": "{token}: −∞ (masked)",
    "chain.weight_hover": "{token}: weight = {weight:.4f}",
    "value": "value",
    "dim_hover": "%{y}: dim %{x} = %{z:.3f}<extra></extra>",
    "head_dims": "dimension of the head (d_k)",
    "dimension": "dimension",
    "gen.model": "model p (T = 1, no top-k)",
    "gen.sampled": "sampled from (after T and top-k)",
    "gen.chosen": "chosen token",
    "gen.sampled_hover": "{token}: sampled with p = {p:.4f}",
    # the handout (viz_core.export.handout_html)
    "handout.subtitle": "Attention Lab handout",
    "handout.input": "Input",
    "handout.numbers": "Key numbers",
    "handout.images": "Every figure: camera button = PNG (1920×1080), SVG button = vector image; both are drawn by "
                      "this page itself, offline.",
}


def word(texts: Texts | None, key: str, /, **fmt: object) -> str:
    """The text ``key`` from ``texts``, else the English of :data:`TEXTS`; ``str.format``-ed with ``fmt``."""
    s = texts.get(key, TEXTS[key]) if texts is not None else TEXTS[key]
    return s.format(**fmt) if fmt else s
