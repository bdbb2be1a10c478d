"""Slide renderers (:data:`RENDERERS`, page stem → renderer), and presenting: the full-screen frame,
the position in the deck, the clicker's keys and the deck's handout. A family whose views are declared
in ui.views (ui.views.seq2seq …) has its renderer there; the others still have theirs here, each
turning a slide's URL values (ui.deck.Slide.params) into that page's main figure, full width and
lettered for a projector, with the same cached runs and viz_core builders the page uses.

A renderer reads the values as the page reads its link (the URL string of a choice is its label;
a value the page would refuse falls back to the page's default, with a one-line note) and returns
a :class:`SlideView`: how many steps the slide has, the step it starts at, and ``draw(t)``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import streamlit as st

from ui.grid import AVERAGE
from ui.heap import upkeep
from ui.i18n import current, figure_texts
from ui.i18n import t as tr  # t is the step in the slides' draw(t)
from ui.tokens import input_error, md_escape
from ui.views import seq2seq as seq2seq_view
from ui.views import transformer as transformer_view
from ui.views.base import (CAPTURE, HIDE_KEY, PLAN_WIDTH, SLIDE_HEIGHT, SlideParams, SlideProblem, SlideView,
                           input_error_type, line, pick_model, show_figure, show_figures)
from viz_core.labels import safe_label

# ---------------------------------------------------------------------------------------------
# One renderer per page
# ---------------------------------------------------------------------------------------------

def head_slide(p: SlideParams) -> SlideView:
    """Inside one head: q·kᵢ, ÷√d_k, the mask and the softmax for one query, as bars."""
    from ui.transformer import KIND_LABELS, head_text, load_model, run_head_view, transformer_choices
    from viz_core.transformer import chain_figure

    name, label, loaded = pick_model(lambda: transformer_choices("encoder-decoder")
                                     + transformer_choices("decoder-only"),
                                 p, "head_model", "tf-en-fr", load_model)
    text = p.text("head_text", head_text(name, loaded.task))
    cfg = loaded.config
    if loaded.kind == "decoder-only":
        kind, n_layers = "lm", cfg.num_decoder_layers
    else:
        kind = p.option("head_kind", KIND_LABELS, "encoder", "p5.url.kind", KIND_LABELS.get)
        n_layers = cfg.num_encoder_layers if kind == "encoder" else cfg.num_decoder_layers
    layer, head = p.layer_head("head", n_layers, cfg.n_heads, average=False)
    scaled = p.flag("head_scale", True, "p5.url.scale")
    try:
        first = run_head_view(name, text, kind, layer, head, 0)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    queries = first.query_tokens
    query = p.option("head_query", range(len(queries)), 0, "p5.url.query", lambda i: f"{i}: {queries[i]}")
    view = run_head_view(name, text, kind, layer, head, query) if query else first

    def draw(t: int) -> None:
        line(label, text)
        weights = view.weights if scaled else view.unscaled_weights
        show_figure(chain_figure(view.key_tokens, view.scores, view.scaled, view.allowed, weights, view.scale,
                                 scaled, title=tr("slide.head.title", query=safe_label(queries[query], 30),
                                                  layer=layer + 1, head=head + 1), texts=figure_texts()))

    return p.view(1, 0, draw)


def bert_slide(p: SlideParams) -> SlideView:
    """BERT masking: the masked LM's predictions at every chosen position (the page's Model, minilm-mlm
    by default; a [MASK] typed in the text is predicted as ``python -m models.fill_mask`` does)."""
    from corpora.masking import NOT_CHOSEN, REFERENCE
    from ui.bert import (
        BERT_PAIR, CLICKED, RULE_LABELS, analyse, clickable, clicks_of, load_small_bert, masked_lm_choices,
        outcome_labels,
    )
    from viz_core.bert import TYPED, prediction_rows, predictions_figure

    choices = masked_lm_choices()  # the page's Model selectbox: its first (minilm-mlm) by default
    name = p.option("bert_model", list(choices), next(iter(choices)), "p7.url.model", choices.get)
    loaded = load_small_bert(name)
    if isinstance(loaded, str):
        raise SlideProblem(loaded)
    text_a = p.text("bert_a", BERT_PAIR[0])
    text_b = p.text("bert_b", BERT_PAIR[1])
    seed = int(p.number("bert_seed", 0, 10**9, 0, "p7.url.seed"))
    draw_random = p.flag("bert_draw", True, "p7.url.draw")
    rule = p.option("bert_rule", RULE_LABELS, REFERENCE, "p7.url.rule", RULE_LABELS.get)
    if not text_a.strip():
        raise SlideProblem(tr("p7.empty"))
    clicked: tuple[int, ...] = ()  # the pieces clicked to mask on the page (bert_clicked=3,7), checked as it does
    if (raw := p.raw(CLICKED)) is not None:
        clicked, refused = clicks_of(raw, clickable(name, text_a, text_b))
        if refused is not None:
            p.refuse("p7.url.clicked", refused, tr("p7.url.none_clicked"))
    result = analyse(name, text_a, text_b, seed, draw_random, clicked, rule)
    masked = result.masked
    rows = prediction_rows(np.flatnonzero(result.outcome != NOT_CHOSEN), result.tokens, result.input_tokens,
                           outcome_labels(result.outcome, clicked), result.top_tokens, masked.top_probs,
                           masked.target_probs, masked.target_rank)
    if not rows:
        raise SlideProblem(tr("slide.bert.none"))

    def draw(t: int) -> None:
        line(choices[name], "A: " + text_a, "B: " + text_b if text_b else "", tr("slide.bert.seed", seed=seed))
        known = [r for r in rows if r.outcome != TYPED]  # a [MASK] typed in the text has no original to get right
        hits = sum(r.original_rank == 0 for r in known)
        show_figure(predictions_figure(rows[:8], title=tr("slide.bert.title", hits=hits, n=len(known)) if known
                                       else tr("slide.bert.typed"), texts=figure_texts()))

    return p.view(1, 0, draw)


def real_model_slide(p: SlideParams) -> SlideView:
    """Real model explorer: one head of MiniLM-L6 (the installed model) or of the decoder
    SmolLM2-135M (the Real LLM page's model) on the slide's text."""
    from models.inference.hf_adapter import MAX_TOKENS
    from ui.bert import REAL_MAX_CHOICES, REAL_SHADES, REAL_SOURCES, REAL_TEXT, RealInput, load_decoder
    from ui.bert import load_real_model
    from ui.llm import visible
    from viz_core.bert import explorer_head_figures

    decoder = p.option("real_source", REAL_SOURCES, "installed", "p8.model", REAL_SOURCES.get) == "decoder"
    model = load_decoder() if decoder else load_real_model("")  # (a folder's path is not in the link)
    if isinstance(model, str):
        raise SlideProblem(model if decoder else md_escape(model))  # (load_decoder's message is escaped)
    text = p.text("real_text", REAL_TEXT, 20_000)
    text_b = "" if decoder else p.text("real_text_b", "")
    max_tokens = p.option("real_max", REAL_MAX_CHOICES, MAX_TOKENS, "p8.url.max")
    scale = p.option("real_scale", REAL_SHADES, "absolute", "p8.url.shade", REAL_SHADES.get)
    if not text.strip():
        raise SlideProblem(tr("p8.empty"))
    try:  # one heavy request at a time server-wide, as on the page
        trace, trace_again = RealInput(model.key, text, text_b, int(max_tokens)).traced(tr("slide.real.run"))
    except ValueError as exc:
        raise SlideProblem(input_error(exc)) from None
    n_layers, n_heads = trace.attention.shape[:2]
    layer, head = p.layer_head("real", n_layers, n_heads, average=False)
    del trace  # the slide's drawing keeps the input, not the attention (ui.bert.RealInput)

    def draw(t: int) -> None:
        trace = trace_again()
        line(model.label, tr("slide.real.tokens", n=len(trace.tokens)),
              text[:120] + ("…" if len(text) > 120 else ""))
        tokens = visible(trace.tokens) if decoder else trace.tokens
        one, _ = explorer_head_figures(trace.attention[layer], head, tokens, scale=scale, width=PLAN_WIDTH,
                                       height=SLIDE_HEIGHT, texts=figure_texts())
        one.figure.update_layout(title_text=tr("slide.real.title", layer=layer + 1, head=head + 1))
        show_figure(one.figure)

    return p.view(1, 0, draw)


def positional_slide(p: SlideParams) -> SlideView:
    """Positional encoding: the sinusoid table, or (topic "Similarity and rotation") tf-en-fr's
    position-only attention score."""
    from ui.positional import SCORE_MODEL, model_scores, score_model, sinusoids
    from viz_core.positional import pe_heatmap_figure, position_score_figure

    topic = p.topic("p3.tab.sinusoids", ("p3.tab.sinusoids", "p3.tab.rotation"))
    if topic == "p3.tab.rotation":
        loaded = score_model()
        if isinstance(loaded, str):
            raise SlideProblem(loaded)
        layers = loaded.model.encoder.layers
        layer = p.option("rot_tf_layer", range(len(layers)), 0, "slide.what.layer")
        head = int(p.number("rot_tf_head", 1, layers[layer].self_attn.n_heads, 1, "grid.head_what"))
        scores = model_scores(SCORE_MODEL, layer, head - 1).scores

        def draw(t: int) -> None:
            show_figure(position_score_figure(scores, title=tr("slide.pe.scores", model=SCORE_MODEL, layer=layer,
                                                               head=head), texts=figure_texts()))

        return p.view(1, 0, draw)
    d_model = int(p.number("pe_d", 8, 512, 64, "slide.what.d_model"))
    length = int(p.number("pe_len", 10, 400, 100, "slide.what.length"))
    pe = sinusoids(length, d_model).pe

    def draw(t: int) -> None:
        show_figure(pe_heatmap_figure(pe, title=tr("slide.pe.title", length=length, d=d_model),
                                      texts=figure_texts()))

    return p.view(1, 0, draw)


def foundations_slide(p: SlideParams) -> SlideView:
    """Attention from scratch: Nadaraya–Watson kernel regression, the fitted curves."""
    from models.lessons import kernel_regression as kr
    from ui.foundations import parametric, toy_data
    from viz_core.foundations import kernel_fit_figure

    p.topic("p1.tab.kr", ("p1.tab.kr",))
    n_train = int(p.number("kr_n", 10, 100, 50, "slide.what.n_train"))
    noise = p.number("kr_noise", 0.0, 1.5, 0.5, "slide.what.noise")
    bandwidth = p.number("kr_h", 0.05, 2.0, 1.0, "slide.what.bandwidth")
    steps = int(p.number("kr_steps", 0, 500, 200, "slide.what.steps"))
    lr = p.number("kr_lr", 0.05, 2.0, 0.5, "slide.what.lr")
    seed = int(p.number("kr_seed", 0, 1_000_000, 0, "p6.url.seed"))
    data = toy_data(n_train, noise, seed)
    trained = parametric(n_train, noise, seed, steps, lr)
    fits = {"average": kr.average_pooling(data), "gaussian": kr.gaussian_pooling(data, bandwidth),
            "parametric": trained}
    names = {"average": tr("p1.kr.average"), "gaussian": tr("p1.kr.gaussian_h", h=bandwidth),  # the page's names
             "parametric": tr("p1.kr.parametric_w", w=trained.w)}

    def draw(t: int) -> None:
        show_figure(kernel_fit_figure(data.x_train, data.y_train, data.x_test, data.y_true,
                                      {k: (names[k], r.y_hat) for k, r in fits.items()}, highlight="gaussian",
                                      title=tr("slide.kr.title"), texts=figure_texts()))

    return p.view(1, 0, draw)


def llm_slide(p: SlideParams) -> SlideView:
    """Real LLM (SmolLM2-135M-Instruct), the tab it was added from: generation (the query row that
    produced each generated token, per layer or per head of one layer, one step per generated
    token), grouped-query attention, RoPE or head types (one step each), drawn by the page's own
    view functions (ui.llm) with the page's settings."""
    from models.inference.llm import PREPARE_COMMAND, LLMError, is_converted
    from ui.llm import DEFAULT_PROMPT, generation, heavy_once, load_failure, package_problem, shared_llm, step_figure
    from ui.llm import visible

    topic = p.topic("p10.tab.generation", _LLM_TOPICS)
    if problem := package_problem():
        raise SlideProblem(problem)
    if not is_converted():  # the conversion takes minutes: it is started on the page, never by a slide
        raise SlideProblem(tr("p10.not_converted", command=PREPARE_COMMAND))
    if topic != "p10.tab.generation":
        try:
            llm = shared_llm()
        except (LLMError, OSError, ValueError) as exc:
            raise SlideProblem(load_failure(exc)) from None
        return _LLM_VIEWS[topic](p, llm)
    prompt = p.text("llm_prompt", DEFAULT_PROMPT, 2000, "p10.prompt")
    chat = p.flag("llm_chat", True, "p10.chat")
    temperature = p.number("llm_temperature", 0, 2, 0.7, "p10.temperature")
    top_k = int(p.number("llm_top_k", 0, 200, 50, "p10.top_k"))
    top_p = p.number("llm_top_p", 0.05, 1, 0.9, "p10.top_p")
    max_new = int(p.number("llm_max_new", 1, 64, 24, "p10.max_new"))
    seed = int(p.number("llm_seed", 0, 10_000, 0, "p10.seed"))
    use_cache = p.flag("llm_cache", True, "p10.kv_cache")
    rows = p.option("llm_rows", ("layers", "heads"), "layers", "p10.heads_shown", lambda r: tr(f"p10.rows.{r}"))
    if not prompt.strip():
        raise SlideProblem(tr("p10.empty_prompt"))
    try:  # the page's arguments, so that the page's cached run is the slide's
        trace = heavy_once(generation, prompt, chat, max_new, float(temperature), top_k, float(top_p), seed,
                           use_cache, what=tr("p10.tab.generation"))
    except (LLMError, OSError, ValueError) as exc:
        raise SlideProblem(load_failure(exc)) from None
    if not trace.steps:
        raise SlideProblem(tr("slide.llm.nothing"))
    n_layers = trace.steps[0].attention.shape[0]
    layer = int(p.number("llm_layer", 1, n_layers, n_layers // 2, "p10.layer"))
    if trace.dropped:
        p.notes.append(tr("p10.cut", n=len(trace.prompt_ids) + trace.dropped, limit=len(trace.prompt_ids),
                          dropped=trace.dropped))

    def draw(t: int) -> None:
        shown = trace.steps[t]
        answer = "".join(trace.generated_tokens[: t + 1]).replace("\n", " ↵ ")
        line(f"{prompt} → {answer}", tr("slide.gen.samples", token=visible([shown.token])[0], p=shown.prob))
        show_figure(step_figure(trace, t, rows, layer, width=PLAN_WIDTH))

    return p.view(len(trace.steps), p.step("llm", len(trace.steps)), draw)


def _llm_gqa_slide(p: SlideParams, llm: Any) -> SlideView:
    """The Real LLM's grouped-query attention tab: which K/V head each query head reads, and the KV
    cache at the page's bytes per value and context length (one step)."""
    from ui.llm import BYTES, bytes_label, gqa_view

    size = p.option("llm_bytes", BYTES, BYTES[0], "p10.gqa.bytes", bytes_label)
    high = max(256, llm.max_positions)
    context = int(p.number("llm_context", 256, high, min(2048, high), "p10.gqa.context"))

    def draw(t: int) -> None:
        figure, cache = gqa_view(llm, size, context)
        line(cache.summary())
        show_figure(figure)

    return p.view(1, 0, draw)


def _llm_rope_slide(p: SlideParams, llm: Any) -> SlideView:
    """The Real LLM's RoPE tab: the page's dimension pair over its positions, every pair's wavelength,
    and q·k at every pair of positions, side by side (one step)."""
    from ui.llm import rope_view

    pair = int(p.number("llm_pair", 0, llm.head_dim // 2 - 1, 0, "p10.rope.pair"))
    n = int(p.number("llm_positions", 4, 48, 16, "p10.rope.positions"))

    def draw(t: int) -> None:
        view = rope_view(llm, pair, n)
        line(tr("p10.rope.theta", i=pair, theta=view.theta, wave=2 * np.pi / view.theta))
        show_figures(view.figures)

    return p.view(1, 0, draw)


def _llm_heads_slide(p: SlideParams, llm: Any) -> SlideView:
    """The Real LLM's head types tab: every head's score of the page's head type, measured on the
    page's text and induction test (one step)."""
    from models.inference.llm import LLMError
    from ui.llm import HEAD_KINDS, HEADS_TEXT, head_scores, heads_figure, heavy_once, load_failure

    kind = p.option("llm_kind", HEAD_KINDS, HEAD_KINDS[0], "p10.heads.kind", lambda k: tr(f"p10.kind.{k}"))
    text = p.text("llm_heads_text", HEADS_TEXT, 4000, "p10.heads.text")
    period = int(p.number("llm_period", 10, 200, 50, "p10.heads.period"))
    seed = int(p.number("llm_heads_seed", 0, 10_000, 0, "p10.heads.seed"))
    if len(text.split()) < 2:
        raise SlideProblem(tr("p10.empty_prompt"))
    try:  # the page's arguments, so that the page's cached run is the slide's
        scores = heavy_once(head_scores, text, period, seed, what=tr("p10.tab.heads"))
    except (LLMError, OSError, ValueError) as exc:
        raise SlideProblem(load_failure(exc)) from None

    def draw(t: int) -> None:
        best = ", ".join(f"L{layer + 1} H{head + 1} ({score:.2f})" for layer, head, score in scores.best(kind, 5))
        line(tr("p10.heads.best_line", heads=best))
        show_figure(heads_figure(scores, kind))

    return p.view(1, 0, draw)


_LLM_TOPICS = ("p10.tab.generation", "p10.tab.gqa", "p10.tab.rope", "p10.tab.heads")
_LLM_VIEWS: dict[str, Callable[[SlideParams, Any], SlideView]] = {
    "p10.tab.gqa": _llm_gqa_slide, "p10.tab.rope": _llm_rope_slide, "p10.tab.heads": _llm_heads_slide}


def transformer_xl_slide(p: SlideParams) -> SlideView:
    """Transformer-XL (Dai et al. 2019): one head's attention over [memory | segment], one step per
    segment of the passage."""
    from ui.transformer_xl import EXAMPLES, load_model, run_read, segment_figure

    loaded = load_model()
    if isinstance(loaded, str):
        raise SlideProblem(loaded)
    text = p.text("txl_text", EXAMPLES[0], 10_000, "txl.url.text")
    seg_len = int(p.number("txl_seg", 2, 32, 8, "txl.seg"))
    mem_len = int(p.number("txl_mem", 0, 64, 8, "txl.mem"))
    layer, head = p.layer_head("txl", loaded.config.n_layers, loaded.config.n_heads)
    try:
        trace = run_read(text, seg_len, mem_len)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    if trace.dropped:
        p.notes.append(tr("txl.dropped", n=len(trace.tokens), dropped=trace.dropped))
    if any(trace.unknown):
        p.notes.append(tr("txl.unknown", n=sum(trace.unknown)))
    n = len(trace.segments)

    def draw(t: int) -> None:
        seg = trace.segments[t]
        line(tr("slide.txl.line", s=t + 1, n=n, m=len(seg.memory_tokens), l=len(seg.tokens)), " ".join(seg.tokens))
        show_figure(segment_figure(trace, t, layer, head, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(n, p.step("txl", n), draw)


def xlnet_slide(p: SlideParams) -> SlideView:
    """XLNet (Yang et al. 2019): one head's query stream under the page's factorisation order, one
    step per predicted position (its row outlined, its top guesses above the figure)."""
    from models.inference.xlnet import MAX_K
    from ui.xlnet import EXAMPLES, MODES, load_model, order_of, run_predict, sentence, stream_view

    loaded = load_model()
    if isinstance(loaded, str):
        raise SlideProblem(loaded)
    text = p.text("xlnet_text", EXAMPLES[0], 10_000, "xlnet.url.text")
    mode = p.option("xlnet_mode", MODES, "random", "xlnet.mode", lambda m: tr(f"xlnet.mode.{m}"))
    seed = int(p.number("xlnet_seed", 0, 1_000_000, 0, "xlnet.seed"))
    typed = p.text("xlnet_typed", "", 200, "xlnet.typed") if mode == "typed" else ""
    k_split = int(p.number("xlnet_k", 1, MAX_K, loaded.config.k_split, "xlnet.url.k"))
    layer, head = p.layer_head("xlnet", loaded.config.n_layers, loaded.config.n_heads)
    try:
        tokens, unknown = sentence(text)
        trace = run_predict(text, tuple(order_of(mode, len(tokens), seed, typed)), k_split)
    except input_error_type() as exc:
        raise SlideProblem(input_error(exc)) from None
    if any(unknown):
        p.notes.append(tr("xlnet.unknown", words=", ".join(md_escape(w) for w, u in zip(tokens, unknown) if u)))
    targets = trace.predictions

    def draw(t: int) -> None:
        pos = targets.positions[t]
        tops = ", ".join(f"{w} {q:.0%}" for w, q in zip(targets.top_tokens[t], targets.top_probs[t]))
        line(tr("slide.xlnet.line", step=trace.ranks[pos] + 1, n=len(tokens), pos=pos + 1, word=tokens[pos],
                 tops=tops))
        show_figure(stream_view(trace, "query", layer, head, height=SLIDE_HEIGHT, width=PLAN_WIDTH, outlined=[pos]))

    return p.view(len(targets.positions), p.step("xlnet", len(targets.positions)), draw)


def studio_slide(p: SlideParams) -> SlideView:
    """Training studio: a saved run's attention emerging, one step per snapshot: the probe's map
    (Bahdanau et al. 2015's α, or a Transformer's cross-attention); a model without attention
    shows its loss and BLEU curves at the snapshot instead."""
    from models.training.runs import list_runs, read_snapshots
    from ui.studio import probe_figure, registry, run_curves, session_owner, snapshot_caption

    saved = {run.id: run for run in list_runs(registry().root, session_owner())}  # newest first, the page's default
    if not saved:
        raise SlideProblem(tr("slide.studio.none"))
    run = saved[p.option("studio_run", saved, next(iter(saved)), "slide.what.run")]
    shots = read_snapshots(run.folder)
    if not shots:
        raise SlideProblem(tr("slide.studio.no_snapshots"))
    maps = [s.weights for s in shots if s.weights is not None]
    layer, head = None, AVERAGE  # an RNN's one map has no layer or head; a Transformer's: the page's picker
    if maps and maps[0].ndim == 4:
        layer, head = p.layer_head("studio", *maps[0].shape[:2])

    def draw(t: int) -> None:
        shot = shots[t]
        line(run.name, snapshot_caption(shot))
        if shot.weights is None:
            show_figure(run_curves(run, shot))
        else:
            show_figure(probe_figure(shot, layer, head, width=PLAN_WIDTH, height=SLIDE_HEIGHT))

    return p.view(len(shots), p.step("studio_snap", len(shots)), draw)


# Page file stem → its renderer: every page of the lab can be a slide.
RENDERERS: dict[str, Callable[[SlideParams], SlideView]] = {
    "1_Attention_from_scratch": foundations_slide,
    "2_Seq2seq_attention": seq2seq_view.slide,
    "3_Positional_encoding": positional_slide,
    "4_Transformer_translation": transformer_view.translation_slide,
    "5_Inside_one_head": head_slide,
    "6_Generation": transformer_view.generation_slide,
    "7_BERT_masking": bert_slide,
    "8_Real_model_explorer": real_model_slide,
    "9_LLM_explorer": llm_slide,
    "10_Transformer_XL": transformer_xl_slide,
    "11_Training_studio": studio_slide,
    "13_XLNet": xlnet_slide,
}


def prepare(page: str, params: Mapping[str, str | list[str]]) -> SlideView:
    """The slide of ``page`` for ``params``; raises SlideProblem when it cannot be drawn."""
    if page not in RENDERERS:
        raise SlideProblem(tr("slide.no_renderer", page=page))
    return RENDERERS[page](SlideParams(params))


def capture(page: str, params: Mapping[str, str | list[str]], step: int | None = None) -> tuple[list[Any], list[str]]:
    """(figures, lines of text) that the slide of ``page`` draws at ``step`` (default: its own step),
    collected instead of drawn; a slide that cannot be drawn gives no figure and says why."""
    try:
        view = prepare(page, params)
    except SlideProblem as exc:
        return [], [str(exc)]
    kept: list[Any] = []
    token = CAPTURE.set(kept)
    try:
        view.draw(view.start if step is None else min(max(step, 0), view.n_steps - 1))
    finally:
        CAPTURE.reset(token)
    return [k for k in kept if not isinstance(k, str)], [*view.notes, *(k for k in kept if isinstance(k, str))]


def deck_handout(slides: Iterable[Any], title: str, page_label: Callable[[str], str]) -> str:
    """The whole deck as one standalone, offline HTML page (viz_core.export.handout_html): each
    slide's figures at the slide's own step, captioned with its number, title and text line, and
    its speaker notes; every text escaped there."""
    from viz_core.export import handout_html, safe_filename

    figures: list[tuple[str, Any]] = []
    names: list[str] = []
    notes: list[str] = []
    for number, slide in enumerate(slides, start=1):
        heading = f"{number}. {slide.title or page_label(slide.page)}"
        drawn, lines = capture(slide.page, slide.params)
        caption = " — ".join([heading, *lines])
        for k, fig in enumerate(drawn):
            figures.append((caption if k == 0 else f"{heading} ({k + 1})", fig))
            names.append(safe_filename(f"slide-{number}-{slide.page}" + (f"-{k + 1}" if k else "")))
        if not drawn:
            notes.append(caption)
        if slide.notes:
            notes.append(f"{heading}: {slide.notes}")
    return handout_html(title, "", figures, note="\n".join(notes), texts=figure_texts(), lang=current(),
                        image_names=names)


# ---------------------------------------------------------------------------------------------
# Presenting: the full-screen frame, the position in the deck and the clicker's keys
# ---------------------------------------------------------------------------------------------

START, END = "start", "end"  # a slide entered forwards starts at its own step, backwards at its last
_AT = "present_at"  # session key: (slide number, step index or START/END)

_SLIDE_CSS = """
<style>
/* Presenting: no sidebar, header or toolbar; the slide spans the screen; large text. */
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"] { display: none !important; }
.block-container { padding: 0.5rem 1rem 0 1rem !important; max-width: 100% !important; }
[data-testid="stMarkdownContainer"] p { font-size: 1.3rem; }
.st-key-slide_pgup, .st-key-slide_pgdn, .st-key-slide_skip, .st-key-slide_notes_key,
.st-key-slide_hide_key { display: none !important; }
.st-key-slide_notes { font-size: 1.2rem; border-left: 4px solid #555; padding-left: 0.6rem; }
/* The slide is one screen: the figure takes the height that the title, the controls and the
   line of text above it leave. */
[data-testid="stMainBlockContainer"] { height: 100vh; }
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] { height: 100%; }
.st-key-slide_figure { flex: 1 1 0 !important; min-height: 300px; }
.st-key-slide_figure > div { flex: 1 1 0; min-width: 0; height: 100%; }
div:has(> .st-key-slide_figure[data-testid="stHorizontalBlock"]) { flex: 1 1 0 !important; min-height: 300px; }
.st-key-slide_figure[data-testid="stHorizontalBlock"] { height: 100%; }
.st-key-slide_title h3, .st-key-slide_line p { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
</style>
"""


def slide_frame(title: str) -> None:
    """The frame of a presented slide: page config (local icon: no font server), no sidebar, no
    header, no toolbar, full width (constant CSS, never user text)."""
    upkeep()  # as page_frame does: without it, each step paid a full collection of torch's objects
    st.set_page_config(page_title=f"{title} · {tr('app.title')}", page_icon="📽️", layout="wide",
                       initial_sidebar_state="collapsed")
    st.markdown(_SLIDE_CSS, unsafe_allow_html=True)


def _move(n_slides: int, slide: int, t: int, n_steps: int, delta: int) -> None:
    """Button callback: the next (delta = 1) or previous step, past the slide's ends to the next
    or previous slide."""
    if 0 <= t + delta < n_steps:
        at = (slide, t + delta)
    elif 1 <= slide + delta <= n_slides:
        at = (slide + delta, START if delta > 0 else END)
    else:
        return
    st.session_state[_AT] = at
    st.query_params["slide"] = str(at[0])


def slide_step(slide: int, view: SlideView) -> int:
    """This run's 0-based step of ``slide``: where the keys left it, else the link's ``?step=``
    (1-based), else the slide's own step; kept in the URL."""
    at = st.session_state.get(_AT)
    step: int | str = START
    if at is not None and at[0] == slide:
        step = at[1]
    elif (raw := st.query_params.get("step")) is not None:
        step = int(raw) - 1 if raw.isdigit() and 1 <= int(raw) <= view.n_steps else START
    t = view.start if step == START else view.n_steps - 1 if step == END else min(int(step), view.n_steps - 1)
    st.session_state[_AT] = (slide, t)
    if view.n_steps > 1:
        st.query_params["step"] = str(t + 1)
    elif "step" in st.query_params:
        del st.query_params["step"]
    return t


def start(deck_id: str) -> None:
    """Button callback: present the deck ``deck_id`` from its first slide."""
    st.session_state.pop(_AT, None)
    st.query_params["deck"] = deck_id
    st.query_params["slide"] = "1"


def stop_presenting() -> None:
    """Button callback: stop presenting (back to the deck's overview)."""
    st.session_state.pop(_AT, None)
    for key in ("slide", "step"):
        if key in st.query_params:
            del st.query_params[key]


_NOTES = "present_show_notes"  # session key: the speaker's notes are shown while presenting
def _toggle(key: str) -> None:
    st.session_state[key] = st.session_state.get(key) is not True


def _skip(n_slides: int, slide: int) -> None:
    """Button callback: straight on to the next slide's first step, however many steps are left."""
    if slide < n_slides:
        st.session_state[_AT] = (slide + 1, START)
        st.query_params["slide"] = str(slide + 1)


def slide_notes(notes: str) -> None:
    """The slide's speaker notes, below the figure, only when the presenter asked for them (N)."""
    if notes and st.session_state.get(_NOTES) is True:
        st.container(key="slide_notes").text(notes)


# The clicker's keys that Streamlit's shortcuts cannot name: F5 (and Shift+F5, what most clickers' "present"
# button sends) on the deck's overview presses Present instead of reloading the page; "." (the "blank
# screen" button of many clickers) while presenting skips to the next slide. Constant script, no user text.
CLICKER_KEYS_JS = """
if (!window.__labClickerKeys) {
  window.__labClickerKeys = true;
  const doc = window.parent.document;
  doc.addEventListener("keydown", (ev) => {
    const target = ev.key === "F5" ? ".st-key-present_start button"
      : ev.key === "." && !ev.target.closest("input, textarea, [contenteditable]") ? ".st-key-slide_skip button" : null;
    const button = target && doc.querySelector(target);
    if (!button) return;
    ev.preventDefault();
    if (!button.disabled) button.click();
  }, true);
}
"""


def clicker_keys() -> None:
    """Install the clicker keys that Streamlit's shortcuts cannot name (F5, ".") once per browser tab."""
    st.html(f"<script>{CLICKER_KEYS_JS}</script>", unsafe_allow_javascript=True)


def slide_controls(title: str, n_slides: int, slide: int, t: int, n_steps: int) -> None:
    """The slide's title and its step control: ◀/▶ (the ← and → keys) and, hidden, PageUp/PageDown
    (what a presenter's clicker sends), each one step, past the slide's ends to the next or
    previous slide; "." or B (a clicker's third button) skips to the next slide; N shows the speaker
    notes, H hides the rows after the step; ✕ (Esc) ends the presentation."""
    first, last = slide == 1 and t == 0, slide == n_slides and t == n_steps - 1
    args = (n_slides, slide, t, n_steps)
    head, prev, nxt, where, end = st.columns([7, 0.8, 0.8, 1.8, 0.5], vertical_alignment="center")
    head.container(key="slide_title").markdown(f"### {md_escape(title)}")
    prev.button("◀", key="slide_prev", shortcut="Left", on_click=_move, args=(*args, -1), disabled=first,
                width="stretch", help=tr("slide.prev_help"))
    nxt.button("▶", key="slide_next", shortcut="Right", on_click=_move, args=(*args, 1), disabled=last,
               width="stretch", help=tr("slide.next_help"))
    where.markdown(f"**{slide} / {n_slides}**" + (" · " + tr("slide.step", t=t + 1, n=n_steps) if n_steps > 1 else ""))
    end.button("✕", key="slide_end", shortcut="Esc", on_click=stop_presenting, help=tr("slide.end_help"),
               type="tertiary")
    st.button("PageUp", key="slide_pgup", shortcut="PageUp", on_click=_move, args=(*args, -1), disabled=first)
    st.button("PageDown", key="slide_pgdn", shortcut="PageDown", on_click=_move, args=(*args, 1), disabled=last)
    st.button(tr("slide.skip"), key="slide_skip", shortcut="B", on_click=_skip, args=(n_slides, slide),
              disabled=slide == n_slides)  # and "." (clicker_keys)
    st.button(tr("slide.notes"), key="slide_notes_key", shortcut="N", on_click=_toggle, args=(_NOTES,))
    st.button(tr("slide.hide"), key="slide_hide_key", shortcut="H", on_click=_toggle, args=(HIDE_KEY,))
