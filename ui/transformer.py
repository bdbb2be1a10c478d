"""Transformer pieces shared by the pages: cached loading, decoding, generation, one-head
walkthroughs and grid payloads, the attention a translation page shows, explanations.

Models are shared read-only in ``st.cache_resource`` (inference never changes them: they are
loaded in eval mode and decoding runs under ``torch.inference_mode``); per-input results are
``st.cache_data`` entries of numpy/dataclass traces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from models.checkpoints import CheckpointError, LoadedTransformer, load_transformer, read_config, shipped_transformers
from models.inference.translate import TRANSLATION
from ui.checkpoints import cached_loader, label_of, labelled, load_or_message
from ui.export import PLOT, PLOT_NO_BAR, export_menu, unstepped
from ui.grid import head_name, pick
from ui.i18n import Labels, current, figure_texts, spinning, tr
from ui.plot import chart
from ui.state import checked
from ui.tokens import input_error, md_escape, model_text, show_notices
from viz_core.labels import safe_label
from viz_core.seq2seq import attention_heatmap
from viz_core.transformer import attention_matrix_figure, causal_mask, grid_figure, mask_figure, padding_mask

if TYPE_CHECKING:
    from models.training.seq2seq import ExposureTrace
    from ui.explain import Explainer

SITE_LABELS = Labels({site: f"kind.{site}" for site in ("encoder", "decoder", "cross")})
SHORT_LABELS = Labels({site: f"kind.short.{site}" for site in ("encoder", "decoder", "cross")})
# First inputs of the pages (and of their slides, ui/slides.py): the translation page's toy-task digits, the
# one-head page's text per model task, the generation page's example prompts and top-k choices (0 = no limit).
TOY_EXAMPLE = "3 1 4 1 5 9 2 6"
HEAD_TEXT = {
    "en-fr": "The red car is in the small house.",
    "lm": "In the beginning God created",
    "copy": "3 1 4 1 5 9",
    "reverse": "3 1 4 1 5 9",
}
GEN_EXAMPLES = ["In the beginning God created", "The king said to his servants,", "Blessed are", "And it happened that"]
GEN_TOP_K = [1, 2, 3, 5, 10, 20, 50, 100, 0]


def transformer_choices(architecture: str) -> list[tuple[str, str]]:
    """(checkpoint name, label) of every shipped transformer checkpoint of ``architecture``, then the
    Training studio's saved runs of that architecture (checkpoint folder, "Your run: …"), listed afresh."""
    from ui.studio import user_choices  # the studio's training code loads only when runs are listed

    return _transformer_choices(architecture, current()) + user_choices("transformer", architecture)


@st.cache_data(ttl=60)
def _transformer_choices(architecture: str, lang: str) -> list[tuple[str, str]]:
    """:func:`transformer_choices`, cached per language (``lang``: the labels' language, a cache key)."""
    return labelled(shipped_transformers(architecture))


@st.cache_data(ttl=60)
def translates(name: str) -> bool:
    """Whether checkpoint ``name`` translates words (task "en-fr", any language pair) rather than a toy
    task's digits; an unreadable one counts as a translation model (loading it then says what is wrong)."""
    try:
        return read_config(name).get("model", {}).get("task", TRANSLATION) == TRANSLATION
    except CheckpointError:
        return True


def first_input(name: str) -> str:
    """A model's first input: its examples' first (ui.seq2seq.example_inputs: the grammar's, or a fixed
    sentence of its real corpus, Chinese for HSK), or the toy tasks' digits."""
    from ui.seq2seq import example_inputs

    return example_inputs(name)[0] if translates(name) else TOY_EXAMPLE


def head_text(name: str, task: str) -> str:
    """The Inside-one-head example for a model: :data:`HEAD_TEXT` for the grammar, toy and LM models,
    the first example of its own corpus (Chinese for HSK) for one trained on real pairs."""
    from ui.seq2seq import model_data

    return first_input(name) if task == TRANSLATION and model_data(name)[0] else HEAD_TEXT.get(task, "")


def follow_translation_model(text_key: str, model_key: str) -> None:
    """On a change of model (a callback): a toy model gets its digits; a translation model keeps the
    typed text unless it is a default, digits or in another language (ui.seq2seq.follow_model)."""
    from ui.seq2seq import follow_model

    name = st.session_state[model_key]
    if not translates(name) or st.session_state.get(text_key) == TOY_EXAMPLE:
        st.session_state[text_key] = first_input(name)
    else:
        follow_model(text_key, model_key)


def _translation_rows(results: dict) -> list[dict]:
    """The test rows of the Transformer translation models in an evaluation: the grammar's (under
    "families") and those trained on real pairs (under "real", beside the RNNs)."""
    rows = [
        m for m in results.get("families", {}).get("transformer", {}).get("models", []) if m.get("task") == TRANSLATION
    ]
    return rows + [
        m
        for part in results.get("real", {}).values()
        for m in part.get("models", [])
        if m.get("family") == "transformer"
    ]


def _test_set(row: dict, results: dict) -> str:
    """The test set a row was measured on, in the reader's language."""
    corpus = row.get("corpus")
    if not corpus:
        return tr("transformer.scores.grammar")
    data = str(results.get("real", {}).get(corpus, {}).get("data", corpus))
    return model_text("transformer.scores.test_set", {"data": data}, "")  # the corpus's description, translated


def _figures(row: dict) -> dict[str, object]:
    """A row's BLEU, chrF and test-set size as this page computes them (through its own input pipeline:
    :func:`ui.seq2seq.page_scores`); a figure the evaluation has not written reads as "—"."""
    from ui.seq2seq import page_scores

    figures = {**row, **page_scores(row)}
    return {key: "—" if figures.get(key) is None else figures[key] for key in ("bleu", "chrf", "n_test")}


def scores_view(name: str) -> None:
    """The model's test BLEU and chrF beside the grammar Transformer's (one line), and in an expander
    every Transformer translation model's, then the RNNs and copy baseline of the model's real corpus
    (ui.seq2seq.real_scores); all from `python -m models.evaluate --write`."""
    from models.checkpoints import load_results
    from ui.seq2seq import model_data, real_scores

    results = load_results() or {}
    rows = _translation_rows(results)
    mine = next((m for m in rows if m.get("name") == name), None)
    grammar = next((m for m in rows if not m.get("corpus") and m.get("name") != name), None)
    if mine is None:
        st.caption(tr("transformer.scores.none"))
    else:
        st.markdown(
            tr(
                "transformer.scores.line",
                model=md_escape(label_of(name, mine.get("label", name))),
                **_figures(mine),
                test=md_escape(_test_set(mine, results)),
            )
        )
        if "page" in mine:
            st.caption(tr("transformer.scores.page", bleu=mine.get("bleu"), chrf=mine.get("chrf")))
    if grammar is not None:
        st.caption(
            tr(
                "transformer.scores.grammar_line",
                model=md_escape(label_of(grammar["name"], grammar.get("label", ""))),
                **_figures(grammar),
            )
        )
    if not rows:
        return
    with st.expander(tr("transformer.scores.expander"), icon=":material/leaderboard:"):
        st.dataframe(
            [
                {
                    tr("seq2seq.bleu.col.model"): label_of(m["name"], m.get("label", m["name"])),
                    tr("transformer.scores.col.test"): _test_set(m, results),
                    tr("transformer.scores.col.n"): m.get("n_test"),
                    tr("seq2seq.bleu.col.bleu"): _figures(m)["bleu"],
                    tr("seq2seq.real.col.chrf"): _figures(m)["chrf"],
                }
                for m in rows
            ],
            hide_index=True,
        )
        real_scores(results, model_data(name)[0])


@cached_loader
@spinning("spin.model")
def _load(name: str) -> LoadedTransformer:
    return load_transformer(name)


def load_model(name: str) -> LoadedTransformer | str:
    """The shared read-only model, or a one-line error message naming the bad file."""
    return load_or_message(_load, name)


@st.cache_data(max_entries=64, show_spinner=False)
@spinning("spin.translate")
def run_translation(name: str, text: str, beam: int, length_penalty: float):
    """TransformerDecodeTrace of ``text``; raises models.inference.common.InputError for unusable input."""
    from models.inference.translate import translate_transformer

    return translate_transformer(_load(name), text, beam, length_penalty=length_penalty)


@st.cache_data(max_entries=64, show_spinner=False)
@spinning("spin.generate")
def run_generation(name: str, prompt: str, max_new: int, temperature: float, top_k: int | None, seed: int):
    """GenerationTrace of the prompt; raises models.inference.common.InputError for unusable input."""
    from models.inference.generate import generate_text

    return generate_text(_load(name), prompt, max_new, temperature, top_k, seed)


@st.cache_data(max_entries=128, show_spinner=False)
@spinning("spin.compute")
def run_head_view(name: str, text: str, site: str, layer: int, head: int, query: int):
    """HeadWalkthrough (with its axes' token strings) of one head for one query."""
    from models.inference.translate import head_view

    return head_view(_load(name), text, site, layer, head, query)


@st.cache_data(max_entries=64, show_spinner=False)
def grid_for(weights: np.ndarray, key_tokens: tuple[str, ...], query_tokens: tuple[str, ...]):
    """The layers × heads PNG mosaic (viz_core.attention_grid) of (layers, heads, L, S) weights."""
    from viz_core.attention_grid import grid_payload

    return grid_payload(
        weights,
        [safe_label(t) for t in key_tokens],
        [safe_label(t) for t in query_tokens],
        scale="absolute",
        max_thumb=96,
        min_thumb=100,
    )


def attention_of(trace, site: str, t: int) -> tuple[np.ndarray, list[str], list[str], int | None, np.ndarray | None]:
    """What the translation page draws for attention ``site`` at decoding step ``t`` of a
    TransformerDecodeTrace: (weights (layers, heads, L, S), key tokens, query tokens, the query row of the
    step or None, the look-ahead mask's blocked cells or None)."""
    if site == "encoder":
        return trace.encoder_attention, trace.src_tokens, trace.src_tokens, None, None
    if site == "decoder":
        tokens = trace.decoder_tokens[: t + 1]
        return trace.decoder_self_attention[:, :, : t + 1, : t + 1], tokens, tokens, t, ~causal_mask(t + 1)
    return trace.cross_attention[:, :, : t + 1], trace.src_tokens, trace.decoder_tokens[: t + 1], t, None


@st.cache_data(max_entries=64, show_spinner=False)
@spinning("spin.ablation")
def run_ablation(name: str, text: str, beam: int, length_penalty: float, site: str, layer: int, head: int):
    """TransformerDecodeTrace of ``text`` with one head switched off (models.inference.what_if.ablated_translation)."""
    from models.inference.what_if import ablated_translation

    return ablated_translation(_load(name), text, site, layer, head, beam, length_penalty=length_penalty)


@st.cache_data(max_entries=64, show_spinner=False)
def run_ablated_scoring(name: str, text: str, output: tuple[str, ...], site: str, layer: int, head: int):
    """The original ``output`` teacher-forced with one head switched off (same queries and keys)."""
    from models.inference.what_if import ablated_scoring

    return ablated_scoring(_load(name), text, output, site, layer, head)


@st.cache_data(max_entries=64, show_spinner=False)
@spinning("spin.what_if")
def run_what_if(name: str, text: str, original: tuple[str, ...], step: int, token: str):
    """TransformerDecodeTrace: ``original``[:step], ``token`` forced at ``step``, then greedy
    (models.inference.what_if)."""
    from models.inference.what_if import what_if_transformer

    return what_if_transformer(_load(name), text, original, step, token)


def what_if_view(trace, text: str, t: int, layer: int, head: int) -> None:
    """What if? Force the token at step ``t``; the what-if output and the cross-attention of
    (``layer``, ``head``) beside the original's."""
    from models.inference.common import InputError
    from ui.seq2seq import forced_token_picker, show_what_if_notices

    with st.expander(tr("wi.expander"), icon=":material/alt_route:"):
        try:
            choice = forced_token_picker(
                "tf_what_if",
                trace.tgt_tokens,
                trace.topk_tokens[t],
                trace.topk_probs[t],
                t,
                (trace.model, text, tuple(trace.tgt_tokens)),
            )
            if choice is None:
                return
            step, token = choice
            what_if = run_what_if(trace.model, text, tuple(trace.tgt_tokens), step, token)
        except InputError as exc:
            st.warning(input_error(exc), icon="⚠️")
            return
        for col, (name, run) in zip(
            st.columns(2), [(tr("wi.original"), trace), (tr("wi.forced", step=step + 1, token=token), what_if)]
        ):
            with col:
                st.markdown(f"**{md_escape(name)}**")
                st.text(run.text or tr("wi.empty"))
                rows = [f"{tok} ✎" if i == run.forced_step else tok for i, tok in enumerate(run.tgt_tokens)]
                chart(
                    attention_matrix_figure(
                        pick(run.cross_attention, layer, head),
                        run.src_tokens,
                        rows,
                        step=min(t, len(rows) - 1),
                        key_unknown=run.src_unknown,
                        title=tr(
                            "wi.fig.cross_forced" if run is what_if else "wi.fig.cross", head=head_name(layer, head)
                        ),
                        x_title=tr("wi.x.source"),
                        y_title=tr("wi.y.output"),
                        texts=figure_texts(),
                    ),
                    key="tf_what_if_forced" if run is what_if else "tf_what_if_original",
                    config=PLOT,
                )
        show_what_if_notices(what_if.notices)


#: The TransformerDecodeTrace field of each attention site: (layers, heads, queries, keys) over the whole output.
_ATTENTION_FIELDS = {"encoder": "encoder_attention", "decoder": "decoder_self_attention", "cross": "cross_attention"}


def _n_layers(trace, site: str) -> int:
    return int(getattr(trace, _ATTENTION_FIELDS[site]).shape[0])


#: Below this absolute change (of any attention weight, of any p(y_t)) switching a head off "changed
#: nothing": float32 noise of the masked forward pass is about 1e-7.
ABLATION_TOLERANCE = 1e-6


@dataclass(frozen=True)
class AblationEffect:
    """What switching one head off changed, measured on the original output (teacher-forced).

    ``change``: (layers, heads) largest |Δ weight| of each head of the shown attention site;
    ``weights``: the largest |Δ weight| of any head of any site; ``probs``: the largest |Δ p(y_t)|;
    ``same_output``: the decoded output did not change."""

    change: np.ndarray
    weights: float
    probs: float
    same_output: bool
    tolerance: float = ABLATION_TOLERANCE

    @property
    def nothing(self) -> bool:
        """Nothing changed: same output, and every weight and p(y_t) within the tolerance."""
        return self.same_output and self.weights < self.tolerance and self.probs < self.tolerance

    @property
    def site_unchanged(self) -> bool:
        """No weight of the shown site moved by the tolerance or more."""
        return float(self.change.max(initial=0.0)) < self.tolerance

    @property
    def most_changed(self) -> tuple[int, int] | None:
        """(layer, head) of the shown site that changed most, or None when none changed."""
        if self.site_unchanged:
            return None
        top_layer, top_head = np.unravel_index(int(self.change.argmax()), self.change.shape)
        return int(top_layer), int(top_head)


def ablation_effect(trace, scored, ablated, site: str, tolerance: float = ABLATION_TOLERANCE) -> AblationEffect:
    """The :class:`AblationEffect` of a head switched off: ``trace`` (every head on), ``scored``
    (its output teacher-forced with the head off) and ``ablated`` (decoded with the head off)."""
    deltas = {
        name: np.abs(
            np.asarray(getattr(scored, field), dtype=np.float64) - np.asarray(getattr(trace, field), dtype=np.float64)
        )
        for name, field in _ATTENTION_FIELDS.items()
    }
    probs = np.abs(np.asarray(scored.token_probs, dtype=np.float64) - np.asarray(trace.token_probs, dtype=np.float64))
    return AblationEffect(
        change=deltas[site].max(axis=(2, 3)),
        weights=max(float(d.max(initial=0.0)) for d in deltas.values()),
        probs=float(probs.max(initial=0.0)),
        same_output=list(ablated.output_ids) == list(trace.output_ids),
        tolerance=tolerance,
    )


def ablation_note(effect: AblationEffect, site_label: str, off_name: str) -> str:
    """The one line under the ablation: nothing changed, nothing of this attention changed, or which
    head of the shown site changed most (and by how much)."""
    if effect.nothing:
        return tr("ab.nothing", head=off_name, tol=effect.tolerance)
    if effect.most_changed is None:
        return tr("ab.kind_unchanged", attention=site_label, head=off_name, tol=effect.tolerance, p=effect.probs)
    top_layer, top_head = effect.most_changed
    return tr("ab.change", attention=site_label, head=head_name(top_layer, top_head), change=float(effect.change.max()))


def ablation_view(trace, text: str, beam: int, length_penalty: float, site: str, layer: int, head: int, t: int) -> None:
    """What if one head is switched off? Pick a head (default: the one shown above); the output
    decoded without it and every head's attention to the same tokens, beside the original."""
    from models.inference.common import InputError

    with st.expander(tr("ab.expander"), icon=":material/block:"):
        st.caption(tr("ab.explain"))
        sites = list(SITE_LABELS)
        c_site, c_layer, c_head, c_on = st.columns([3, 1.2, 1.2, 2], vertical_alignment="bottom")
        off_site = checked(
            c_site.selectbox,
            tr("ab.attention"),
            sites,
            format_func=SHORT_LABELS.get,
            key="tf_ab_kind",
            index=sites.index(site),
        )
        n_layers = _n_layers(trace, off_site)
        off_layer = checked(
            c_layer.selectbox,
            tr("ab.layer"),
            range(n_layers),
            format_func=lambda i: str(i + 1),
            key="tf_ab_layer",
            index=min(layer, n_layers - 1),
        )
        off_head = checked(
            c_head.selectbox,
            tr("ab.head"),
            range(trace.n_heads),
            format_func=lambda i: str(i + 1),
            key="tf_ab_head",
            index=max(0, head),
        )
        if not checked(c_on.toggle, tr("ab.switch"), key="tf_ab_on"):
            return
        try:
            ablated = run_ablation(trace.model, text, beam, length_penalty, off_site, off_layer, off_head)
            scored = run_ablated_scoring(trace.model, text, tuple(trace.tgt_tokens), off_site, off_layer, off_head)
        except InputError as exc:
            st.warning(input_error(exc), icon="⚠️")
            return
        off_name = f"{SHORT_LABELS[off_site]}, {head_name(off_layer, off_head)}"
        left, right = st.columns(2)
        left.markdown(tr("ab.all_on", score=trace.score))
        left.text(trace.text or tr("wi.empty"))
        right.markdown(tr("ab.off", head=off_name, score=ablated.score))
        right.text(ablated.text or tr("wi.empty"))
        if ablated.output_ids == trace.output_ids:
            st.caption(tr("ab.same"))
        weights, keys, queries, _, _ = attention_of(trace, site, t)
        off_weights = attention_of(scored, site, t)[0]
        outline = (off_layer, off_head) if off_site == site else None
        st.markdown(tr("ab.grids", attention=SHORT_LABELS[site], step=t + 1, head=md_escape(off_name)))
        g_on, g_off = st.columns(2)
        chart(
            grid_figure(
                grid_for(np.ascontiguousarray(weights), tuple(keys), tuple(queries)),
                selected=outline,
                title=tr("ab.fig.on"),
                texts=figure_texts(),
            ),
            key="tf_ab_grid_on",
            config=PLOT_NO_BAR,
            where=g_on,
        )
        chart(
            grid_figure(
                grid_for(np.ascontiguousarray(off_weights), tuple(keys), tuple(queries)),
                selected=outline,
                title=tr("ab.fig.off", head=head_name(off_layer, off_head)),
                texts=figure_texts(),
            ),
            key="tf_ab_grid_off",
            config=PLOT_NO_BAR,
            where=g_off,
        )
        effect = ablation_effect(trace, scored, ablated, site)
        change = effect.change
        change_col, p_col = st.columns(2)
        note = ablation_note(effect, SHORT_LABELS[site], off_name)
        if effect.most_changed is None:  # float noise would fill the colour scale and name a head: say it plainly
            change_col.info(note, icon=":material/check_circle:")
        else:
            chart(
                attention_matrix_figure(
                    change,
                    [tr("ab.head_n", n=h + 1) for h in range(change.shape[1])],
                    [tr("ab.layer_n", n=i + 1) for i in range(change.shape[0])],
                    zmax=float(change.max()),
                    title=tr("ab.fig.change"),
                    x_title=tr("ab.x.head"),
                    y_title=tr("ab.y.layer"),
                    height=480,
                    texts=figure_texts(),
                ),
                key="tf_ab_change",
                config=PLOT,
                where=change_col,
            )
            change_col.caption(note)
        p_col.dataframe(
            {
                tr("ab.col.step"): list(range(1, len(trace.tgt_tokens) + 1)),
                tr("ab.col.token"): trace.tgt_tokens,
                tr("ab.col.p_on"): trace.token_probs,
                tr("ab.col.p_off", head=head_name(off_layer, off_head)): scored.token_probs,
            },
            hide_index=True,
        )
        p_col.caption(tr("ab.probs"))


def compare_with_rnn(other, other_label: str, trace, label: str, layer: int, head: int, t: int) -> None:
    """The seq2seq trace ``other``'s attention α beside the Transformer's cross-attention of
    (layer, head) on the same sentence, with the step ``t`` outlined."""
    from models.inference.traces import display_text
    from ui.seq2seq import heatmap_texts

    texts = heatmap_texts(other.model)  # axes named in the pair's languages (HSK: Chinese → English)
    st.subheader(tr("transformer.cmp.header"))
    st.caption(tr("transformer.cmp.caption", head=head_name(layer, head)))
    c1, c2 = st.columns(2)
    with c1:
        st.markdown(f"**{md_escape(other_label)}** — {md_escape(display_text(other.tgt_tokens))}")
        show_notices([n for n in other.notices if n.level == "warning"])
        if other.attention is None:
            st.info(tr("transformer.cmp.none"))
        else:
            chart(
                attention_heatmap(
                    other.attention,
                    other.src_tokens,
                    other.tgt_tokens,
                    step=min(t, len(other.tgt_tokens) - 1),
                    src_unknown=other.src_unknown,
                    title=tr("transformer.cmp.rnn"),
                    texts=texts,
                ),
                key="tf_cmp_rnn",
                config=PLOT,
            )
    with c2:
        st.markdown(f"**{md_escape(label)}** — {md_escape(trace.text)}")
        chart(
            attention_matrix_figure(
                pick(trace.cross_attention, layer, head),
                trace.src_tokens,
                trace.tgt_tokens,
                step=t,
                key_unknown=trace.src_unknown,
                title=tr("transformer.cmp.tf"),
                x_title=texts["s2s.x"],
                y_title=texts["s2s.y"],
                texts=texts,
            ),
            key="tf_cmp_tf",
            config=PLOT,
        )


def masks_section(src_tokens: list[str], decoder_tokens: list[str], n_pad: int = 3) -> None:
    """The padding mask of the source with ``n_pad`` pads and the decoder's look-ahead mask."""
    st.subheader(tr("transformer.masks.header"))
    st.markdown(tr("transformer.masks.explain"))
    m1, m2 = st.columns(2)
    with m1:
        src_padded = list(src_tokens) + ["<pad>"] * n_pad
        chart(
            mask_figure(
                padding_mask(len(src_tokens), n_pad),
                src_padded,
                src_padded,
                title=tr("transformer.masks.pad", n=n_pad),
                x_title=tr("transformer.masks.key"),
                y_title=tr("transformer.masks.query"),
                texts=figure_texts(),
            ),
            key="tf_pad_mask",
            config=PLOT,
        )
    with m2:
        chart(
            mask_figure(
                causal_mask(len(decoder_tokens)),
                decoder_tokens,
                decoder_tokens,
                title=tr("transformer.masks.causal"),
                x_title=tr("transformer.x.decoder"),
                y_title=tr("transformer.y.decoder"),
                texts=figure_texts(),
            ),
            key="tf_causal_mask",
            config=PLOT,
        )


def explain_translation() -> None:
    """How the three attentions of the encoder–decoder attend, and their masks."""
    st.subheader(tr("transformer.explain.header"))
    st.markdown(tr("transformer.explain.multihead"))
    st.markdown(tr("transformer.explain.kinds"))


# --------------------------------------------------------------------------------------
# Label smoothing: ε = 0 against ε = 0.1
# --------------------------------------------------------------------------------------


def label_smoothing_pairs() -> dict[str, list[dict]]:
    """test set → the saved evaluation's rows of the Transformers that differ only in label smoothing there
    (`python -m models.evaluate --write`), in order; empty when none was written."""
    from models.checkpoints import load_results

    part = (load_results() or {}).get("label_smoothing") or {}
    pairs: dict[str, list[dict]] = {}
    for m in part.get("models") or []:
        pairs.setdefault(str(m.get("test_set", "grammar")), []).append(m)
    return pairs


TEST_SETS = Labels({t: f"transformer.ls.test.{t}" for t in ("grammar", "hsk")})


def reliability_views(pairs: dict[str, list[dict]]) -> list[go.Figure]:
    """One reliability diagram per test set (ε = 0 and ε = 0.1 on it): the label-smoothing section's figures,
    on the page and its slide."""
    from viz_core.finetune import reliability_figure

    return [
        reliability_figure(
            [(f"ε = {m['label_smoothing']}", m["bins"]) for m in pair],
            tr("transformer.ls.fig", test=TEST_SETS.get(test_set, test_set)),
            tr("transformer.ls.fig.x"),
            tr("transformer.ls.fig.y"),
            tr("transformer.ls.fig.ideal"),
        )
        for test_set, pair in pairs.items()
    ]


@unstepped()  # a section below the stepped view: its files carry no step
def label_smoothing_view(section_button: Callable[[], None] = lambda: None) -> None:
    """Transformers that differ only in label smoothing, pair by pair (the grammar's small pair, tf-hsk and its
    ε = 0 twin): BLEU, perplexity and calibration (ECE and the reliability diagram) on each pair's test split,
    from `python -m models.evaluate --write`. ``section_button`` draws the section's own "add to the deck"."""
    st.subheader(tr("transformer.ls.header"))
    st.markdown(tr("transformer.ls.intro"))
    pairs = label_smoothing_pairs()
    if not pairs:
        st.info(tr("transformer.ls.none"))
        return
    section_button()
    rows = [
        {
            tr("transformer.ls.col.model"): m["name"],  # the preset's name: the label is in the test set and ε
            tr("transformer.ls.col.test"): TEST_SETS.get(test_set, test_set),
            "ε": m["label_smoothing"],
            tr("transformer.ls.col.ece"): m["ece"],
            tr("transformer.ls.col.conf"): m["mean_confidence"],
            tr("transformer.ls.col.acc"): m["token_accuracy"],
            tr("transformer.ls.col.bleu"): m["bleu"],
            tr("transformer.ls.col.ppl"): m["perplexity"],
        }
        for test_set, pair in pairs.items()
        for m in pair
    ]
    st.dataframe(rows, hide_index=True)
    figures = reliability_views(pairs)
    for column, test_set, figure in zip(st.columns(len(pairs)), pairs, figures):
        with column:
            chart(figure, key=f"tf_reliability_{test_set}", config=PLOT)
    st.caption(tr("transformer.ls.caption"))
    export_menu(
        "label-smoothing",
        title=tr("transformer.ls.header"),
        source=" · ".join(f"{m['name']} (ε = {m['label_smoothing']})" for pair in pairs.values() for m in pair),
        figures={TEST_SETS.get(t, t): figure for t, figure in zip(pairs, figures)},
        numbers={f"{m['name']} · {tr('transformer.ls.col.ece')}": m["ece"] for pair in pairs.values() for m in pair},
        key="tf_ls_export",
        section="label-smoothing",
    )
    for test_set, pair in pairs.items():
        if len(pair) != 2:
            continue
        zero, smooth = sorted(pair, key=lambda m: m["label_smoothing"])
        if smooth["ece"] < zero["ece"]:
            key = "transformer.ls.verdict.lower"
        elif zero["mean_confidence"] < zero["token_accuracy"]:
            key = "transformer.ls.verdict.under"
        else:
            key = "transformer.ls.verdict.higher"
        st.markdown(
            tr(
                key,
                test=TEST_SETS.get(test_set, test_set),
                n=zero["n_tokens"],
                a=zero["ece"],
                b=smooth["ece"],
                c0=zero["mean_confidence"],
                acc0=zero["token_accuracy"],
                c1=smooth["mean_confidence"],
                acc1=smooth["token_accuracy"],
            )
        )


# --------------------------------------------------------------------------------------
# Teacher forcing and exposure bias
# --------------------------------------------------------------------------------------


@st.cache_data(max_entries=4, show_spinner=False)
def _test_pairs(name: str) -> list[tuple[list[str], list[str]]]:
    """The test split of the corpus ``name`` was trained on (the grammar's, or its real corpus's tokens)."""
    from corpora.en_fr import make_splits
    from corpora.real_pairs import real_splits

    corpus = _load(name).training.get("corpus")
    pairs = real_splits(corpus)["test"] if corpus else [(p.src, p.tgt) for p in make_splits()["test"]]
    return [(list(src), list(tgt)) for src, tgt in pairs]


@st.cache_data(max_entries=32, show_spinner=False)
def exposure_of(name: str, index: int):
    """Test sentence ``index`` of ``name`` decoded from the gold prefix and from its own
    (models.training.transformer.exposure_trace)."""
    from models.training.transformer import exposure_trace

    loaded = _load(name)
    test = _test_pairs(name)
    src, tgt = test[index % len(test)]
    return exposure_trace(
        loaded.encoder_decoder, loaded.src_stoi, loaded.tgt_stoi, loaded.tgt_itos, src, tgt, loaded.max_src_tokens
    )


@st.cache_data(max_entries=8, show_spinner=False)
@spinning("transformer.exp.finding")
def _first_parting(name: str, limit: int = 60) -> int:
    """The first test sentence (of the first ``limit``) whose free run leaves the gold prefix, else 0."""
    return next((i for i in range(limit) if exposure_of(name, i).parted is not None), 0)


def test_size(name: str) -> int:
    """How many test sentences ``name``'s corpus has (the exposure view's choice)."""
    return len(_test_pairs(name))


def exposure_view(
    name: str,
    section_button: Callable[[int], None] = lambda index: None,
    cells: Callable[[str, ExposureTrace], tuple[Explainer, Explainer]] | None = None,
) -> None:
    """Teacher forcing and exposure bias on the Transformer: one test sentence of the model's corpus decoded
    from the gold prefix and from the model's own, step by step side by side (ui.seq2seq.show_exposure).
    ``section_button(index)`` draws the section's own "add to the deck" for that sentence; ``cells(model,
    trace)`` gives the runs' cell explainers (ui.cells.transformer_exposure_cells), which make the figure
    clickable."""
    from ui.seq2seq import show_exposure

    st.subheader(tr("transformer.exp.header"))
    st.markdown(tr("transformer.exp.intro"))
    n = test_size(name)
    first = _first_parting(name)
    index = checked(
        st.number_input,
        tr("seq2seq.exp.sentence"),
        min_value=0,
        max_value=n - 1,
        value=first,
        step=1,
        key="tf_exp_index",
        help=tr("transformer.exp.sentence_help", n=n, first=first),
    )
    section_button(int(index))
    trace = exposure_of(name, int(index))
    explain = None if cells is None else cells(name, trace)
    show_exposure(trace, "tf_exposure_attention", explain, (name, int(index)))
    st.caption(tr("transformer.exp.caption"))
