"""Seq2seq pieces shared by pages: cached model loading and translation, the BLEU chart, the explanation."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from corpora.text import detokenize, is_cjk
from models.checkpoints import CheckpointError, LoadedSeq2Seq, load_seq2seq, read_config, shipped
from models.nn.rnn_seq2seq import AttentionMode, Seq2SeqConfig
from models.inference.common import InputError
from models.inference.traces import Seq2seqDecodeTrace, display_text
from models.inference.what_if import percent, typed_token, what_if_translation
from ui.checkpoints import cached_loader, label_of, labelled, load_or_message
from ui.export import PLOT, export_menu, unstepped
from ui.i18n import Labels, current, figure_texts, spinning, tr
from ui.plot import chart
from ui.state import checked
from ui.tokens import input_error, md_escape, model_text, show_notices
from ui.views.base import PAGE_WIDTH
from viz_core.seq2seq import attention_heatmap

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.training.seq2seq import ExposureTrace
    from ui.explain import Explainer

MODES = Labels({mode: f"seq2seq.mode.{mode}" for mode in ("soft", "hard")})


def model_choices() -> list[tuple[str, str]]:
    """(checkpoint name, display label) of every shipped seq2seq checkpoint, in teaching order, then
    the Training studio's saved runs (checkpoint folder, "Your run: …"), listed afresh on each call."""
    from ui.studio import user_choices  # the studio's training code loads only when runs are listed

    return _model_choices(current()) + user_choices("seq2seq")


@st.cache_data(ttl=60)
def _model_choices(lang: str) -> list[tuple[str, str]]:
    """:func:`model_choices`, cached per language (``lang``: the labels' language, a cache key)."""
    return labelled(shipped("seq2seq"))


#: The first input of a model trained on a real corpus (the grammar models: the grammar's first example).
REAL_DEFAULTS = {"bible": "In the beginning God created the heavens and the earth.", "hsk": "我想喝茶。"}


@st.cache_data(ttl=60)
def model_data(name: str) -> tuple[str | None, str]:
    """(the real corpus a checkpoint was trained on or None for the grammar, its source language),
    from its config.json's training record; an unreadable one reads as a grammar model."""
    try:
        training = read_config(name).get("training", {})
    except CheckpointError:
        return None, "en"
    return training.get("corpus"), str(training.get("src_lang", "en"))


@st.cache_data
def _real_examples(corpus: str, n: int = 12) -> list[str]:
    """The first ``n`` test sentences of a real corpus (never trained on), as typed text."""
    from corpora.real_pairs import real_splits

    return [detokenize(list(src)) for src, _ in real_splits(corpus)["test"][:n]]


def example_inputs(name: str) -> list[str]:
    """The examples offered for a model, its default input first: the grammar's, or for a real
    corpus a fixed sentence and then test sentences."""
    corpus = model_data(name)[0]
    if corpus is None:
        from corpora.en_fr import example_sentences

        return example_sentences()
    default = REAL_DEFAULTS.get(corpus, "")
    examples = _real_examples(corpus) if corpus in REAL_DEFAULTS else []
    return [default] + [e for e in examples if e != default]


def heatmap_texts(name: str) -> Mapping[str, str]:
    """The words of a model's attention heatmaps (:func:`ui.i18n.figure_texts`), with axes that name
    its languages: the grammar and Bible models read English and write French, the HSK ones read
    Chinese and write English."""
    texts = figure_texts()
    if model_data(name)[1] != "zh":
        return texts
    return {**texts, "s2s.x": tr("seq2seq.axis.source_zh"), "s2s.y": tr("seq2seq.axis.target_en")}


def follow_model(text_key: str, model_key: str) -> None:
    """On a change of model (a callback): put its default input in the text box when the text is
    empty, still a default, or written in another language than the model reads."""
    from corpora.en_fr import example_sentences

    name = st.session_state[model_key]
    text = str(st.session_state.get(text_key) or "")
    written = "zh" if any(is_cjk(ch) for ch in text) else "en"
    untouched = not text.strip() or text in {*REAL_DEFAULTS.values(), example_sentences()[0]}
    if untouched or written != model_data(name)[1]:
        st.session_state[text_key] = example_inputs(name)[0]


@cached_loader
@spinning("spin.model")
def _load(name: str) -> LoadedSeq2Seq:
    return load_seq2seq(name)


def load_model(name: str) -> LoadedSeq2Seq | str:
    """The shared read-only model, or a one-line error message naming the bad file."""
    return load_or_message(_load, name)


@st.cache_data(max_entries=128, show_spinner=False)
@spinning("spin.translate")
def run_translation(name: str, text: str, beam: int, mode: str, length_penalty: float) -> Seq2seqDecodeTrace:
    """Decode ``text`` with checkpoint ``name``; raises models.inference.common.InputError for unusable input."""
    from models.inference.translate import translate

    loaded = _load(name)  # read-only use of the shared model
    return translate(loaded, text, beam, AttentionMode(mode), length_penalty=length_penalty)


@st.cache_data(max_entries=64, show_spinner=False)
@spinning("spin.what_if")
def run_what_if(
    name: str, text: str, original: tuple[str, ...], step: int, token: str, mode: str, length_penalty: float
) -> Seq2seqDecodeTrace:
    """The what-if trace: ``original``[:step], ``token`` forced at ``step``, then greedy
    (models.inference.what_if); raises InputError for a token the model cannot emit."""
    return what_if_translation(
        _load(name), text, original, step, token, AttentionMode(mode), length_penalty=length_penalty
    )


def forced_token_picker(
    key: str, tokens: Sequence[str], candidates: Sequence[str], probs: Sequence[float], step: int, origin: object
) -> tuple[int, str] | None:
    """Pick one of step ``step``'s top-k ``candidates`` (the emitted token left out) or type a token;
    returns the chosen (step, token) while ``origin`` (what identifies the shown output) stays the
    same, else None. The choice is kept in session state under ``key`` so stepping keeps it. A
    typed token is read as the corpus tokenizer reads it (``typed_token``: it raises InputError
    for anything but one token)."""
    state = st.session_state.get(key)
    if state is not None and state["origin"] != origin:
        state = st.session_state[key] = None

    def chosen(widget: str) -> None:
        value = st.session_state.get(widget)
        typed = widget.startswith(f"{key}_typed")
        st.session_state[key] = {"origin": origin, "step": step, "token": value, "typed": typed} if value else None

    def forget() -> None:
        st.session_state[key] = None

    others = {c: float(p) for c, p in zip(candidates, probs) if c != tokens[step]}
    st.caption(tr("wi.emitted", step=step + 1, token=md_escape(tokens[step])))
    pick_key, type_key = f"{key}_pick_{step}", f"{key}_typed_{step}"
    checked(
        st.pills,
        tr("wi.pick", k=len(candidates), step=step + 1),
        list(others),
        format_func=lambda c: f"{md_escape(c)}  {percent(others[c])}",
        key=pick_key,
        on_change=chosen,
        args=(pick_key,),
    )
    state = st.session_state.get(key)
    type_col, reset_col = st.columns([2, 3], vertical_alignment="bottom")
    checked(
        type_col.text_input,
        tr("wi.type"),
        key=type_key,
        on_change=chosen,
        args=(type_key,),
        placeholder=tr("wi.type_placeholder"),
        max_chars=60,
    )
    if state is None:
        return None
    reset_col.button(tr("wi.reset"), key=f"{key}_reset", on_click=forget)
    return state["step"], typed_token(state["token"]) if state["typed"] else state["token"]


def show_what_if_notices(notices: Sequence) -> None:
    """A what-if's forced-step notice (first, models.inference.what_if) and its warnings."""
    show_notices(notices[:1] + [n for n in notices[1:] if n.level == "warning"])


def what_if_view(trace: Seq2seqDecodeTrace, text: str, shown: int, length_penalty: float, label: str) -> None:
    """What if? Force the token at the shown step ``shown`` and show the what-if translation and its attention
    beside the original (the shown hypothesis; the what-if continues greedily)."""
    hyp = trace.best
    origin = (trace.model, trace.mode, text, tuple(hyp.tokens))
    with st.expander(tr("wi.expander"), icon=":material/alt_route:"):
        try:
            choice = forced_token_picker(
                "s2s_what_if", hyp.tokens, hyp.topk_tokens[shown], hyp.topk_probs[shown], shown, origin
            )
            if choice is None:
                return
            step, token = choice
            what_if = run_what_if(trace.model, text, tuple(hyp.tokens), step, token, trace.mode, length_penalty)
        except InputError as exc:
            st.warning(input_error(exc), icon="⚠️")
            return
        columns = st.columns(2) if len(trace.src_tokens) <= 14 else [st.container(), st.container()]
        runs = [(tr("wi.original"), hyp), (tr("wi.forced", step=step + 1, token=token), what_if.best)]
        for col, (name, h) in zip(columns, runs):
            with col:
                st.markdown(f"**{md_escape(name)}** — {md_escape(label)}")
                st.text(display_text(h.tokens))
                if h.attention is None:
                    st.info(tr("wi.no_attention"))
                    continue
                rows = [f"{tok} ✎" if i == h.forced_step else tok for i, tok in enumerate(h.tokens)]
                chart(
                    attention_heatmap(
                        h.attention,
                        trace.src_tokens,
                        rows,
                        step=min(shown, len(h.tokens) - 1),
                        src_unknown=trace.src_unknown,
                        positions=h.positions,
                        title=tr("wi.fig.original") if h is hyp else tr("wi.fig.forced", step=step + 1),
                        texts=heatmap_texts(trace.model),
                    ),
                    key="s2s_what_if_original" if h is hyp else "s2s_what_if_heatmap",
                    config=PLOT,
                )
        show_what_if_notices(what_if.notices)


def gold_alignment(trace: Seq2seqDecodeTrace) -> list[tuple[int, int]] | None:
    """The corpus's gold links for this sentence when the model produced the corpus translation."""
    from corpora.en_fr import lookup

    pair = lookup(trace.src_tokens[:-1])
    if pair is None or list(pair.tgt) != trace.tgt_tokens[:-1]:
        return None
    return list(pair.alignment)


def bleu_chart() -> None:
    """Test BLEU against source length for the shipped models, from `python -m models.evaluate --write`."""
    from models.checkpoints import load_results
    from viz_core.seq2seq import bleu_by_length_figure

    st.subheader(tr("seq2seq.bleu.header"))
    results = load_results()
    if not results or not results.get("models"):
        st.info(tr("seq2seq.bleu.none"))
        return
    models = [{**m, "label": label_of(m.get("name", ""), m["label"])} for m in results["models"]]
    chart(
        bleu_by_length_figure({**results, "models": models}, title=tr("seq2seq.bleu.fig"), texts=figure_texts()),
        key="bleu_by_length",
        config=PLOT,
    )
    rows = [
        {
            tr("seq2seq.bleu.col.model"): m["label"],
            tr("seq2seq.bleu.col.bleu"): m["bleu"],
            tr("seq2seq.bleu.col.aer"): m["aer"],
            tr("seq2seq.bleu.col.exact"): m["exact_match"],
            tr("seq2seq.bleu.col.seconds"): m["train_seconds"],
        }
        for m in models
    ]
    st.dataframe(rows, hide_index=True)
    st.caption(tr("seq2seq.bleu.caption", command=results.get("command", "python -m models.evaluate")))
    real_scores(results)


def real_scores(results: dict, corpus: str | None = None) -> None:
    """Test BLEU and chrF of the models trained on real sentence pairs (of one ``corpus``, or all),
    with the copy baseline, from `python -m models.evaluate --write` (its "real" part)."""
    real = {c: part for c, part in (results.get("real") or {}).items() if corpus in (None, c)}
    if not real:
        return
    st.subheader(tr("seq2seq.real.header"))
    for part in real.values():
        data = str(part.get("data", ""))
        st.markdown(md_escape(model_text("seq2seq.real.title", {"data": data, "n": part.get("n_test", 0)}, data)))
        models = part.get("models", [])
        reread = any("page" in m for m in models)  # the page re-reads typed text (HSK: re-segmented)
        rows = [
            {
                tr("seq2seq.bleu.col.model"): label_of(m.get("name", ""), m.get("label", "")),
                tr("seq2seq.bleu.col.bleu"): page_scores(m).get("bleu"),
                tr("seq2seq.real.col.chrf"): page_scores(m).get("chrf"),
                **({tr("seq2seq.real.col.corpus_bleu"): m.get("bleu")} if reread else {}),
                tr("seq2seq.bleu.col.seconds"): m.get("train_seconds"),
            }
            for m in models
        ]
        copy = part.get("copy") or {}
        rows.append(
            {
                tr("seq2seq.bleu.col.model"): tr("seq2seq.real.copy"),
                tr("seq2seq.bleu.col.bleu"): copy.get("bleu"),
                tr("seq2seq.real.col.chrf"): copy.get("chrf"),
                **({tr("seq2seq.real.col.corpus_bleu"): copy.get("bleu")} if reread else {}),
                tr("seq2seq.bleu.col.seconds"): None,
            }
        )
        st.dataframe(rows, hide_index=True)
        if reread:
            st.caption(tr("seq2seq.real.page_caption"))
    st.caption(tr("seq2seq.real.caption", command=results.get("command", "python -m models.evaluate")))


def page_scores(row: dict) -> dict:
    """A real-pairs model's test figures as the page computes them: measured through the page's own input
    pipeline (row["page"], where that reading differs from the corpus's tokens, as for HSK), else the row's."""
    return row.get("page") or row


def explain() -> None:
    """The formulas, in the order each model applies them."""
    st.subheader(tr("seq2seq.explain.header"))
    st.markdown(tr("seq2seq.explain.intro"))
    st.latex(
        r"e_{t,i} = \mathrm{score}(s, h_i) \qquad \alpha_{t,i} = \frac{\exp e_{t,i}}{\sum_j \exp e_{t,j}}"
        r"\qquad c_t = \sum_i \alpha_{t,i}\, h_i"
    )
    st.markdown(tr("seq2seq.explain.bahdanau"))
    st.latex(r"e_{t,i} = v^\top \tanh(W s_{t-1} + U h_i) \qquad s_t = \mathrm{GRU}([y_{t-1}; c_t],\, s_{t-1})")
    st.markdown(tr("seq2seq.explain.luong"))
    st.latex(
        r"\mathrm{score}(s_t,h_i) \in \{\; s_t^\top h_i,\;\; s_t^\top W h_i,\;\; "
        r"v^\top \tanh(W[s_t; h_i]) \;\} \qquad \tilde h_t = \tanh(W_c [c_t; s_t])"
    )
    st.markdown(tr("seq2seq.explain.none_hard"))
    st.markdown(tr("seq2seq.explain.local"))
    st.latex(r"\text{local-m: } a_t(s) = \underset{|s - t| \le D}{\mathrm{softmax}}\, e_{t,s}")
    st.latex(
        r"\text{local-p: } p_t = S\,\sigma(v_p^\top \tanh(W_p h_t)), \qquad "
        r"a_t(s) = \underset{|s - p_t| \le D}{\mathrm{softmax}}\, e_{t,s}\; e^{-\frac{(s - p_t)^2}{2\sigma^2}}"
    )
    st.markdown(tr("seq2seq.explain.differ"))


def local_caption(cfg: Seq2SeqConfig) -> str:
    """What the diamonds on a local model's heatmap are."""
    return tr("seq2seq.local_m" if cfg.alignment == "local-m" else "seq2seq.local_p", w=cfg.window)


# --------------------------------------------------------------------------------------
# Teacher forcing and exposure bias
# --------------------------------------------------------------------------------------


@st.cache_data(max_entries=32, show_spinner=False)
def exposure_of(name: str, index: int):
    """The exposure trace of test sentence ``index`` (models.training.seq2seq.ExposureTrace, numpy inside)."""
    from corpora.en_fr import make_splits
    from models.training.seq2seq import exposure_trace

    loaded = _load(name)
    test = make_splits()["test"]
    pair = test[index % len(test)]
    return exposure_trace(loaded.model, loaded.src_vocab, loaded.tgt_vocab, pair.src, pair.tgt)


@st.cache_data(max_entries=4, show_spinner=False)
def _first_parting(name: str, limit: int = 100) -> int:
    """The first test sentence (of the first ``limit``) whose free run leaves the gold prefix, else 0."""
    for i in range(limit):
        if exposure_of(name, i).parted is not None:
            return i
    return 0


def exposure_view(
    section_button: Callable[[str, int], None] = lambda name, index: None,
    cells: Callable[[str, ExposureTrace], tuple[Explainer, Explainer]] | None = None,
) -> None:
    """One test sentence decoded from the gold prefix and from the model's own prefix, step by step side by
    side, with the attention of each and the step where they part; the two teacher-forcing ratios compared.
    ``cells(model, trace)``: the two runs' cell explainers (ui.cells.seq2seq_exposure_cells), which make the
    figure clickable."""
    from models.checkpoints import load_results
    from models.training.seq2seq import FORCING_PAIR

    st.subheader(tr("seq2seq.exp.header"))
    st.markdown(tr("seq2seq.exp.intro"))
    names = [n for n in FORCING_PAIR if n in shipped("seq2seq")]
    if not names:
        st.info(tr("seq2seq.exp.none"))
        return
    part = (load_results() or {}).get("teacher_forcing") or {}
    if part.get("models"):
        rows = [
            {
                tr("seq2seq.bleu.col.model"): label_of(m["name"], m["label"]),
                tr("seq2seq.exp.col.ratio"): m["teacher_forcing"],
                tr("seq2seq.bleu.col.bleu"): m["bleu"],
                tr("seq2seq.bleu.col.exact"): m["exact_match"],
                tr("seq2seq.exp.col.forced"): m["forced_token_accuracy"],
                tr("seq2seq.exp.col.left"): m["left_gold_prefix"],
                tr("seq2seq.exp.col.step"): m["mean_parting_step"],
            }
            for m in part["models"]
        ]
        st.dataframe(rows, hide_index=True)
        st.caption(tr("seq2seq.exp.table_caption", n=part["models"][0]["n_test"]))
    name = st.selectbox(tr("seq2seq.exp.model"), names, format_func=lambda n: label_of(n, n), key="exp_model")
    index = int(
        st.number_input(
            tr("seq2seq.exp.sentence"), min_value=0, max_value=999, value=_first_parting(name), step=1, key="exp_index"
        )
    )
    section_button(name, index)
    trace = exposure_of(name, index)
    show_exposure(trace, "exposure_attention", None if cells is None else cells(name, trace), (name, index))


@unstepped()  # a section below the stepped view: its files carry no step
def show_exposure(
    trace: ExposureTrace, key: str, explain: tuple[Explainer, Explainer] | None = None, context: Hashable = None
) -> None:
    """One sentence's two decodings (gold prefix, own prefix): the source and reference, where they part, the
    words of each step side by side, and the attention of each (figure ``key``): the seq2seq and Transformer
    pages' exposure-bias views. ``explain``: each run's cell explainer (forced, free; ui.cells), which makes
    the figure's cells clickable; ``context`` names the trace (model, sentence)."""
    st.markdown(tr("seq2seq.exp.source", src=md_escape(" ".join(trace.source)), gold=md_escape(" ".join(trace.gold))))
    # what the decoding did, not an alert about the page: an info box either way
    if trace.parted is None:
        st.info(tr("seq2seq.exp.same"), icon=":material/check:")
    else:
        st.info(
            tr(
                "seq2seq.exp.parted",
                step=trace.parted,
                gold=md_escape(trace.gold[trace.parted] if trace.parted < len(trace.gold) else "</s>"),
                own=md_escape(trace.free_tokens[trace.parted] if trace.parted < len(trace.free_tokens) else "—"),
            ),
            icon=":material/call_split:",
        )
    n = max(len(trace.forced_tokens), len(trace.free_tokens))
    rows = [
        {
            tr("seq2seq.exp.col.t"): k,
            tr("seq2seq.exp.col.gold"): (trace.gold + ["</s>"])[k] if k <= len(trace.gold) else "",
            tr("seq2seq.exp.col.forced_word"): trace.forced_tokens[k] if k < len(trace.forced_tokens) else "",
            tr("seq2seq.exp.col.free_word"): trace.free_tokens[k] if k < len(trace.free_tokens) else "",
        }
        for k in range(n)
    ]
    st.dataframe(rows, hide_index=True)
    figure = exposure_view_figure(trace, PAGE_WIDTH)
    if figure is None:
        return
    if explain is None:
        chart(figure, key=key, config=PLOT)
    else:
        from ui.explain import Panel, explained_panels

        assert trace.forced_attention is not None and trace.free_attention is not None  # a figure was drawn
        explained_panels(
            figure,
            key,
            [
                Panel(trace.forced_attention, explain[0], trace.forced_tokens, trace.keys, tr("seq2seq.exp.forced")),
                Panel(trace.free_attention, explain[1], trace.free_tokens, trace.keys, tr("seq2seq.exp.free")),
            ],
            context=context,
        )
    export_menu(
        f"{key}-export",
        title=tr("seq2seq.exp.header"),
        source=f"{' '.join(trace.source)} → {' '.join(trace.gold)}",
        figures={tr("seq2seq.exp.fig"): figure},
        numbers={tr("seq2seq.exp.parted_at"): trace.parted if trace.parted is not None else "—"},
        key=f"{key}_export",
        section="exposure",
    )


def exposure_view_figure(trace: ExposureTrace, width: float) -> go.Figure | None:
    """The attention of both decodings side by side, the parting step marked (None for a model without
    attention): the exposure-bias views' figure, on the seq2seq and Transformer pages (``width``: the page's
    column) and their slides (the slide's)."""
    from viz_core.finetune import exposure_figure

    if trace.forced_attention is None or trace.free_attention is None:
        return None
    return exposure_figure(
        trace.keys,
        trace.forced_tokens,
        trace.free_tokens,
        trace.forced_attention,
        trace.free_attention,
        trace.parted,
        [tr("seq2seq.exp.forced"), tr("seq2seq.exp.free")],
        tr("seq2seq.exp.fig"),
        tr("seq2seq.exp.fig.parted"),
        texts=figure_texts(),
        width=width,
    )


def exposure_slide_view(p: Any, label: str, trace: ExposureTrace) -> Any:
    """An exposure-bias section as a slide (``p``: ui.views.base.SlideParams; returns its SlideView): the model,
    the sentence and its reference, where the decodings part, above :func:`exposure_view_figure`."""
    from ui.views.base import PLAN_WIDTH, SlideProblem, line, show_figure

    figure = exposure_view_figure(trace, PLAN_WIDTH)
    if figure is None:
        raise SlideProblem(tr("slide.exposure.no_attention"))
    if trace.parted is None:
        parted = tr("seq2seq.exp.same")
    else:
        parted = tr(
            "slide.exposure.parted",
            step=trace.parted,
            gold=trace.gold[trace.parted] if trace.parted < len(trace.gold) else "</s>",
            own=trace.free_tokens[trace.parted] if trace.parted < len(trace.free_tokens) else "—",
        )

    def draw(step: int) -> None:
        line(f"{' '.join(trace.source)} → {' '.join(trace.gold)}", parted, label)
        show_figure(figure)

    return p.view(1, 0, draw)
