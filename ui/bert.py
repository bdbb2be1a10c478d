"""BERT pieces shared by the BERT pages: cached models, cached per-input results, chips, the
explanations and captions of the BERT masking page.

Models live in ``st.cache_resource`` (shared, read-only); per-input results in
``st.cache_data(max_entries=...)`` with hashable arguments, returning numpy dataclasses.
"""

from __future__ import annotations

import html
import re
import weakref
import zlib
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import streamlit as st

from corpora.text import is_cjk
from corpora.masking import INDEPENDENT, KEPT, MASKED, OUTCOME_NAMES, RANDOM, REFERENCE, RULES
from ui.checkpoints import cached_loader
from ui.export import PLOT, export_menu
from ui.i18n import Labels, figure_texts, spinning, tr
from ui.plot import chart
from ui.state import boolean, link_option, linked, number_in, url_check, url_notice
from ui.tokens import md_escape, model_text
from ui.views.base import PAGE_WIDTH
from viz_core.bert import OUTCOME_BG, OUTCOME_COLORS, SPECIAL_COLOR, TYPED, PredictionRow, nsp_figure, nsp_table

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.inference.hf_adapter import HFModel
    from models.inference.model_access import ModelRegistry
    from models.inference.traces import HFTrace
    from ui.explain import Explainer

SMALL_BERT = "bert-small"
BERT_PAIR = ("The man went to the store.", "He bought a gallon of milk.")  # the BERT page's first input (§3.1)
#: The first input for a Chinese masked LM (bert-zh): the issue's sentence, its hidden 首 at an explicit [MASK].
ZH_PAIR = ("北京是中国的[MASK]都。", "我们明天坐火车去北京。")
#: Examples for a Chinese masked LM, written for the page (none is training or evaluation text).
ZH_EXAMPLES = (
    ZH_PAIR,
    ("今天天气很好，我们去[MASK]园散步吧。", "公园里有很多花。"),
    ("我每天早上喝一杯牛奶。", "然后我坐地铁去上班。"),
    ("我的妹妹喜欢画画。", "她画了一只小猫。"),
    ("这家饭馆的菜很好吃。", "我们下个星期再来吧。"),
)
REAL_TEXT = (
    "The animal didn't cross the street because it was too tired. "
    "The trophy would not fit in the brown suitcase because it was too big."
)  # the explorer's first text
REAL_MAX_CHOICES = [32, 64, 128, 256, 384, 512]  # the explorer's token limits
REAL_SHADES = Labels(
    {"head": "real_model.shade.head", "absolute": "real_model.shade.absolute"}
)  # the explorer's shadings
REAL_SOURCES = Labels(
    {"installed": "real_model.installed", "decoder": "real_model.decoder_choice", "folder": "real_model.folder_choice"}
)
DECODER_KEY = "llm:smollm2"  # the real LLM's RealModel key: never a folder's (those are resolved absolute paths)
RULE_LABELS = Labels(
    {rule: f"masking.rule.{rule}" for rule in RULES}
)  # corpora.masking.RULES, in the reader's language
MAX_CHARS = 10_000


# --------------------------------------------------------------------------------------
# The small BERT
# --------------------------------------------------------------------------------------


@cached_loader
@spinning("spin.bert")
def _load_small(name: str):
    from models.checkpoints import load_bert
    from models.device import configure_threads

    configure_threads()
    return load_bert(name)


def load_small_bert(name: str = SMALL_BERT):
    """The shared read-only LoadedBert, or a one-line error message."""
    from ui.checkpoints import load_or_message

    return load_or_message(_load_small, name, tr("masking.train_hint"))


def masked_lm_names() -> list[str]:
    """The shipped BERT checkpoints, the default masked LM (minilm-mlm) first."""
    from models.checkpoints import DEFAULT_MASKED_LM, shipped

    return sorted(shipped("bert"), key=lambda name: name != DEFAULT_MASKED_LM) or [DEFAULT_MASKED_LM]


def masked_lm_choices() -> dict[str, str]:
    """{checkpoint: label}: the shipped BERT checkpoints (:func:`masked_lm_names`, by name), then the
    Training studio's BERT runs that this session sees (checkpoint folder: "Your run: …")."""
    from ui.studio import user_choices  # the studio's training code loads only when runs are listed

    return {**{name: name for name in masked_lm_names()}, **dict(user_choices("bert"))}


def linked_model(names: Sequence[str], format_func: Callable[[str], str] = str) -> str:
    """This run's masked LM: the widget's value, or on a first run the link's (checked by
    ui.state.url_check, with a notice when refused), else the first of ``names``."""
    found, name = link_option("bert_model", names, format_func, tr("masking.url.model"), names[0])
    return st.session_state.get("bert_model", name if found else names[0])


def clean_text(text: str | None) -> str:
    """Text as typed, cut to MAX_CHARS, with lone surrogates dropped (they break the tokenizer)."""
    text = (text or "")[:MAX_CHARS]
    return "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)


@st.cache_data(max_entries=64, show_spinner=False)
def analyse(
    name: str, text_a: str, text_b: str, seed: int, draw: bool, clicked: tuple[int, ...], rule: str, top_k: int = 5
):
    """MaskedAnalysis (models.inference.bert.analyse_masked) of the typed pair, cached per input; the
    plain input's run is cached apart, as no masking changes it (a click runs the model once)."""
    from models.inference.bert import analyse_masked

    return analyse_masked(
        _load_small(name),
        clean_text(text_a),
        clean_text(text_b),
        seed,
        draw,
        clicked,
        top_k,
        rule=rule,
        plain=_plain_run(name, text_a, text_b, top_k),
    )


@st.cache_data(max_entries=16, show_spinner=False)
def _plain_run(name: str, text_a: str, text_b: str, top_k: int):
    """The model's run on the typed pair with nothing masked (models.inference.bert.analyse_plain)."""
    from models.inference.bert import analyse_plain

    return analyse_plain(_load_small(name), clean_text(text_a), clean_text(text_b), top_k)


@st.cache_data(max_entries=32, show_spinner=False)
def masking_stats(special: tuple[bool, ...], n_draws: int, seed: int, rule: str):
    from corpora.masking import masking_statistics

    return masking_statistics(special, n_draws=n_draws, seed=seed, rule=rule)


@st.cache_data(max_entries=8, show_spinner=False)
@spinning("spin.pairs")
def nsp_examples(name: str, seed: int, n: int = 8) -> list[tuple[str, str, bool, float]]:
    """``n`` held-out IsNext/NotNext pairs with the model's P(IsNext): (a, b, is_next, p)."""
    from corpora.bert_data import heldout_text_pairs
    from models.inference.bert import nsp_on_pairs

    return nsp_on_pairs(_load_small(name), heldout_text_pairs(n, seed))


@st.cache_data(ttl=60)
@st.cache_data(ttl=60, show_spinner=False)
def model_language(name: str) -> str:
    """The language a masked LM reads, from its training record ("zh" for a Chinese BERT, else "en")."""
    from models.checkpoints import CheckpointError, read_config

    try:
        return "zh" if read_config(name).get("training", {}).get("lang") == "zh" else "en"
    except (CheckpointError, OSError, ValueError):
        return "en"


def first_pair(lang: str) -> tuple[str, str]:
    """The page's first input for a masked LM of language ``lang``."""
    return ZH_PAIR if lang == "zh" else BERT_PAIR


def follow_language() -> None:
    """On a change of masked LM: when the new model reads another language than the text's (Chinese
    characters or not), the text becomes that language's first input, and the clicked masks go."""
    name = st.session_state.get("bert_model")
    if not isinstance(name, str):
        return
    lang = model_language(name)
    text = f"{st.session_state.get('bert_a', '')}{st.session_state.get('bert_b', '')}"
    if lang != ("zh" if any(is_cjk(ch) for ch in text) else "en"):
        st.session_state["bert_a"], st.session_state["bert_b"] = first_pair(lang)


def example_pairs(lang: str = "en") -> list[tuple[str, str]]:
    """A few sentence pairs for the example picker (never training text): for English, held-out consecutive
    sentences of the Bible; for Chinese, :data:`ZH_EXAMPLES`."""
    if lang == "zh":
        return list(ZH_EXAMPLES[1:])
    try:
        from corpora.bert_data import heldout_text_pairs

        return [(a, b) for a, b, is_next in heldout_text_pairs(40, seed=7) if is_next][:8]
    except Exception:  # the corpus package may be missing: the page still works on typed text
        return []


# --------------------------------------------------------------------------------------
# Real models
# --------------------------------------------------------------------------------------


def _load_real(key: str) -> HFModel:
    """Load one real model: '' = the installed MiniLM-L6, else a folder that resolve_folder allowed."""
    from models.device import configure_threads
    from models.inference.hf_adapter import load_hf_model

    configure_threads()
    return load_hf_model(key or None)


@st.cache_resource(show_spinner=False)
def _real_models() -> ModelRegistry[HFModel]:
    """The server's one registry of loaded real models: at most ``max_loaded`` held (least recently
    used evicted and released), one load at a time (models.inference.model_access.ModelRegistry)."""
    from models.inference.model_access import ModelRegistry, load_settings

    return ModelRegistry(_load_real, load_settings().max_loaded)


class RealModel(NamedTuple):
    """A loaded real model, its cache key and the name the page shows."""

    key: str  # '' = the installed MiniLM-L6, else the resolved folder: aliases of one folder share it
    label: str  # never an absolute server path
    model: HFModel


def load_real_model(typed: str) -> RealModel | str:
    """The shared model for a typed folder ('' = the installed MiniLM-L6) if the server's
    model_folders setting allows it, or a one-line message in the reader's language that is safe to
    show (escape it)."""
    from models.inference.model_access import ModelAccessError, folder_label, load_settings, resolve_folder

    try:
        key, label = "", tr("real_model.installed_label")  # hf_adapter.DEFAULT_MODEL_LABEL in the reader's language
        if typed.strip():
            settings = load_settings()
            folder = resolve_folder(typed, settings)
            key, label = str(folder), folder_label(folder, settings)
        registry = _real_models()
        if registry.holds(key):
            return RealModel(key, label, registry.get(key))
        with st.spinner(tr("masking.loading_real")):
            return RealModel(key, label, registry.get(key))
    except ModelAccessError as exc:  # every refusal carries its string id (models.errors.KeyedError)
        return model_text(exc.key, exc.params, str(exc))


def load_decoder() -> RealModel | str:
    """The real LLM as the explorer's decoder: page 9's one loaded model (ui.llm, no second copy),
    seen by models.inference.hf_adapter.llm_view; or page 9's message in the reader's language
    (package missing, not converted, load failed), escaped."""
    from models.inference.llm import MODEL_NAME, PREPARE_COMMAND, LLMError, is_converted, spec_of
    from ui.llm import load_failure, package_problem

    if problem := package_problem():
        return problem
    if not is_converted():
        return tr("llm_explorer.not_converted", command=PREPARE_COMMAND)
    try:
        with st.spinner(tr("llm_explorer.loading", model=tr(f"llm_explorer.model.{MODEL_NAME}"))):
            return RealModel(DECODER_KEY, spec_of().label, _real_model(DECODER_KEY))
    except (LLMError, OSError, ValueError) as exc:
        return load_failure(exc)


def decoder_unavailable(message: str) -> None:
    """Why the decoder cannot be explored (:func:`load_decoder`'s message, escaped) and the way to
    page 9, whose button converts the model."""
    from streamlit.errors import StreamlitPageNotFoundError

    st.warning(message)
    try:
        st.page_link("pages/9_LLM_explorer.py", label=tr("real_model.decoder_convert"), icon=":material/arrow_forward:")
    except StreamlitPageNotFoundError:  # this page was started on its own, not from app.py
        st.markdown(tr("real_model.decoder_convert_text"))


def _real_model(key: str) -> HFModel:
    """The loaded model behind a RealModel's ``key`` (:data:`DECODER_KEY`: the view of page 9's
    shared LLM, ui.llm's st.cache_resource)."""
    if key == DECODER_KEY:
        from models.inference.hf_adapter import llm_view
        from ui.llm import shared_llm

        return llm_view(shared_llm())
    return _real_models().get(key)


@st.cache_resource(max_entries=3, show_spinner=False)
@spinning("spin.run")
def real_trace(path: str, text: str, text_b: str, max_tokens: int):
    """Every layer's attention of ``text`` (raises ValueError for empty text); ``path`` is a RealModel's key.

    One shared, read-only copy per input (``st.cache_resource``, its arrays not writeable): at 512
    tokens the attention alone is 75 MB for MiniLM and 283 MB for SmolLM2, which ``st.cache_data``
    would copy out again on every run of every session."""
    import numpy as np

    from models.inference.hf_adapter import run_hf

    trace = run_hf(_real_model(path), clean_text(text), clean_text(text_b) or None, max_tokens=max_tokens)
    for value in vars(trace).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return trace


class RealInput(NamedTuple):
    """What :func:`real_trace` runs on: a RealModel's key, the texts and the token limit.

    A page keeps this, not the trace: its session (kept for a while after the tab closes, and
    held by its fragments, widgets' callbacks and download buttons) then holds no 75–283 MB of
    attention outside :func:`real_trace`'s bounded cache."""

    path: str
    text: str
    text_b: str
    max_tokens: int

    def trace(self, running: str) -> HFTrace:
        """The trace, cached or run again, one heavy request at a time (``running`` names it in the
        "waiting: n ahead" notice of :func:`ui.work_queue.heavy_slot`)."""
        from ui.work_queue import heavy_slot

        with heavy_slot(running):
            return real_trace(*self)

    def traced(self, running: str) -> tuple[HFTrace, Callable[[], HFTrace]]:
        """:meth:`trace`, and a function that gives the same trace later without keeping it alive:
        at once while the cache (or anyone) still holds it, else by running it again."""
        trace = self.trace(running)
        held = weakref.ref(trace)
        return trace, lambda: held() or self.trace(running)


def heads_as_rows(n_layers: int, n_heads: int) -> bool:
    """Whether the explorer's mosaic puts the heads in rows and the layers in columns: for a deep
    model (SmolLM2: 30 layers × 9 heads), so that its thumbnails stay large and all of them fit
    one screen; a layers-as-rows mosaic would be over twice as tall as wide."""
    return n_layers > 2 * n_heads


@st.cache_data(max_entries=6, show_spinner=False)
def real_grid(path: str, text: str, text_b: str, max_tokens: int, scale: str):
    """The layers × heads mosaic of :func:`real_trace`'s attention (heads as rows when
    :func:`heads_as_rows`), built once per input and shade (choosing another head reruns the page
    without rebuilding it)."""
    from viz_core.attention_grid import grid_payload

    trace = real_trace(path, text, text_b, max_tokens)
    n_layers, n_heads = trace.attention.shape[:2]
    if heads_as_rows(n_layers, n_heads):
        return grid_payload(
            trace.attention.transpose(1, 0, 2, 3),
            trace.tokens,
            max_thumb=96,
            min_thumb=64,
            scale=scale,
            layer_labels=[f"H{h + 1}" for h in range(n_heads)],
            head_labels=[f"L{i + 1}" for i in range(n_layers)],
        )
    return grid_payload(trace.attention, trace.tokens, max_thumb=96, min_thumb=64, scale=scale)


# --------------------------------------------------------------------------------------
# Chips and small helpers
# --------------------------------------------------------------------------------------

_CHIP = (
    "display:inline-block;margin:3px 3px;padding:3px 8px;border-radius:8px;font-size:1.2rem;"
    "font-family:ui-monospace,monospace;border:3px solid {border};background:{bg};color:{fg};"
    "text-align:center;line-height:1.25"
)


def masking_chips(
    original: Sequence[str], shown: Sequence[str], outcomes: Sequence[str], segment_ids: Sequence[int] | None = None
) -> None:
    """Tokens as chips, colour-coded by outcome; a changed token shows "original → shown"; the
    position under each chip. All text is HTML-escaped."""
    chips = []
    for i, (o, s, outcome) in enumerate(zip(original, shown, outcomes)):
        special = o in ("[CLS]", "[SEP]", "[PAD]")
        border = SPECIAL_COLOR if special else OUTCOME_COLORS.get(outcome, "#9aa7b8")
        bg = "#eceff1" if special else OUTCOME_BG.get(outcome, "#f4f6f9")
        text = html.escape(o) if o == s else f"{html.escape(o)}<br>→&nbsp;{html.escape(s)}"
        seg = f" · {'AB'[segment_ids[i]]}" if segment_ids is not None and segment_ids[i] in (0, 1) else ""
        chips.append(
            f'<span style="{_CHIP.format(border=border, bg=bg, fg="#111")}">{text}'
            f'<br><small style="color:#666;font-size:0.75rem">{i}{seg}</small></span>'
        )
    st.html(f'<div style="line-height:1.4">{"".join(chips)}</div>')


def legend_chips() -> None:
    """The colour key of the masking outcomes."""
    items = [
        ("[MASK]", tr("masking.legend.mask")),
        ("random", tr("masking.legend.random")),
        ("kept", tr("masking.legend.kept")),
        ("not chosen", tr("masking.legend.not")),
    ]
    chips = [
        f'<span style="{_CHIP.format(border=OUTCOME_COLORS[k], bg=OUTCOME_BG[k], fg="#111")}">'
        f"{html.escape(text)}</span>"
        for k, text in items
    ]
    chips.append(
        f'<span style="{_CHIP.format(border=SPECIAL_COLOR, bg="#eceff1", fg="#111")}">'
        f"{html.escape(tr('masking.legend.special'))}</span>"
    )
    st.html(f"<div>{''.join(chips)}</div>")


# --------------------------------------------------------------------------------------
# The BERT masking page: state, explanations and captions
# --------------------------------------------------------------------------------------


def model_summary(config, training: dict) -> None:
    """The model's vocabulary, input length, held-out scores and how it was made (a head trained here
    on an installed pretrained encoder, or a small BERT trained here from scratch)."""
    st.markdown(
        tr(
            "masking.summary.model",
            label=md_escape(str(training.get("label", SMALL_BERT))),
            vocab=config.vocab_size,
            max_len=config.max_len,
        )
    )
    if "base" in training:
        everyday = training.get("everyday", {})
        st.markdown(
            tr(
                "masking.summary.base",
                how=md_escape(training.get("how", "")),
                seconds=training.get("seconds_total", training.get("seconds", "?")),
                steps=training.get("steps", "?"),
                command=training.get("command", ""),
                top1=everyday.get("top1", float("nan")),
                top5=everyday.get("top5", float("nan")),
            )
        )
        return
    held = training.get("heldout", {})
    if held:
        st.markdown(
            tr(
                "masking.summary.held",
                top1=held["mlm_top1"],
                top5=held["mlm_top5"],
                nsp=held["nsp_accuracy"],
                rule=RULE_LABELS[held.get("masking_rule", INDEPENDENT)],
            )
        )
        st.caption(
            tr(
                "masking.summary.trained",
                seconds=training.get("seconds", "?"),
                steps=training.get("steps", "?"),
                command=training.get("command", "python -m models.train --preset bert-small"),
            )
        )
    st.caption(tr("masking.summary.differs", max_len=config.max_len, layers=config.n_layers, d=config.d_model))


def linked_masking_settings() -> tuple[int, bool, str]:
    """This run's masking seed, random-draw switch and rule: the widgets' values, or on a first run
    the link's (checked by ui.state.url_check, with a notice when refused)."""
    seed = url_check("bert_seed", number_in(0, 10**9), tr("masking.url.seed"))
    draw = url_check("bert_draw", boolean, tr("masking.url.draw"))
    found, rule = link_option("bert_rule", RULES, RULE_LABELS.get, tr("masking.url.rule"))
    return (
        int(st.session_state.get("bert_seed", int(float(seed or 0)))),
        bool(st.session_state.get("bert_draw", (draw or "true").lower() == "true")),
        st.session_state.get("bert_rule", rule if found else REFERENCE),
    )


def click_key(text_a: str, text_b: str, model: str = SMALL_BERT) -> str:
    """Session key of the clicked pieces of this input pair and model (new text or another
    tokenizer: no stale clicks)."""
    return f"bert_click_{zlib.crc32(repr((text_a, text_b, model)).encode('utf-8', 'replace'))}"


CLICKED = "bert_clicked"  # the link's key of the pieces clicked to mask: positions, ``bert_clicked=3,7``
_CLICKS_READ = "bert_clicked_read"  # session key: the link's clicks were read (once per session)


@st.cache_data(max_entries=32, show_spinner=False)
def clickable(name: str, text_a: str, text_b: str) -> tuple[int, ...]:
    """The positions a click may mask on this input pair (every piece but [CLS] and [SEP], as
    :func:`analyse` tokenizes it): the BERT page's pills. Tokenizing only, no model run."""
    loaded = _load_small(name)
    enc = loaded.tokenizer.encode_pair(clean_text(text_a), clean_text(text_b) or None, max_len=loaded.config.max_len)
    return tuple(i for i, special in enumerate(enc.special) if not special)


def clicks_of(raw: str, eligible: Collection[int]) -> tuple[tuple[int, ...], str | None]:
    """The clicked pieces that a link's ``bert_clicked`` text names (positions, comma-separated, any
    order, language-free) as the sorted tuple the page masks, and None; or ``((), raw)`` when any
    part is not the position of an ``eligible`` piece (a refused link masks no piece by click)."""
    chosen: set[int] = set()
    for part in raw.split(",") if raw.strip() else ():  # an empty value: no piece clicked
        part = part.strip()
        if not (part.isascii() and part.isdigit() and len(part) <= 6) or int(part) not in eligible:
            return (), raw
        chosen.add(int(part))
    return tuple(sorted(chosen)), None


def clicks_text(clicked: Sequence[int]) -> str:
    """The link's ``bert_clicked`` text for ``clicked`` positions: ``3,7`` (sorted)."""
    return ",".join(str(int(i)) for i in sorted(clicked))


def linked_clicks(key: str, eligible: Collection[int]) -> None:
    """Before the pills under ``key`` are first drawn: on the page's first run in this session, the
    link's clicked pieces (:data:`CLICKED`) become their value; a value that names no clickable piece
    of this input gets one notice (:func:`ui.state.url_notice`) and leaves the link, and no piece is
    clicked. Later runs leave the clicks to the pills (the link then follows them, :func:`keep_clicks`)."""
    if _CLICKS_READ in st.session_state:
        return
    st.session_state[_CLICKS_READ] = True
    if key in st.session_state or CLICKED not in st.query_params:
        return
    raw = st.query_params.get_all(CLICKED)[-1]
    chosen, refused = clicks_of(raw, eligible)
    if refused is not None:
        url_notice(tr("masking.url.clicked"), refused, tr("masking.url.none_clicked"))
        del st.query_params[CLICKED]
    elif chosen:
        st.session_state[key] = list(chosen)


def keep_clicks(clicked: Sequence[int]) -> None:
    """Keep the clicked pieces in the link (:data:`CLICKED`), so that a link or a slide of the page
    masks them too; left out when none is clicked."""
    st.session_state[_CLICKS_READ] = True  # from now on the pills, not the link, say what is clicked
    text = clicks_text(clicked)
    if not text:
        if CLICKED in st.query_params:
            del st.query_params[CLICKED]
    elif st.query_params.get_all(CLICKED) != [text]:
        st.query_params[CLICKED] = text


def input_notes(result, max_len: int) -> None:
    """Warn when a MaskedAnalysis's input was cut to ``max_len`` pieces or has [UNK] pieces."""
    if result.dropped:
        st.warning(tr("masking.cut", max_len=max_len, dropped=result.dropped))
    if result.n_unknown:
        st.info(tr("masking.unk", n=result.n_unknown))


def explain_pieces() -> None:
    """How WordPiece splits the text, and what [CLS], [SEP] and ## mean."""
    st.markdown(tr("masking.explain.pieces"))


def explain_embedding() -> None:
    """The input embedding as the sum of token, segment and position vectors."""
    st.markdown(tr("masking.explain.embedding"))
    st.latex(
        r"E_i \;=\; \mathrm{LayerNorm}\big(E_{\text{token}}[x_i] + E_{\text{segment}}[s_i] + "
        r"E_{\text{position}}[i]\big)"
    )


def embedding_check(plain) -> None:
    """Caption: how far the drawn sum token + segment + position is from the model's own sum."""
    st.caption(tr("masking.embedding_check", err=plain.embedding_sum_error))


def explain_masking(rule: str) -> None:
    """The 15% / 80-10-10 masking rule in use and why it is not all [MASK]."""
    chosen = tr("masking.explain.reference" if rule == REFERENCE else "masking.explain.independent")
    st.markdown(tr("masking.explain.masking", chosen=chosen))


def outcome_labels(outcome: np.ndarray, clicked: Collection[int]) -> list[str]:
    """The outcome name of every position; a clicked piece that became [MASK] is "clicked"."""
    return ["clicked" if i in clicked and o == MASKED else OUTCOME_NAMES[o] for i, o in enumerate(outcome.tolist())]


def masking_summary(outcome: np.ndarray, n_eligible: int, seed: int, n_clicked: int) -> None:
    """This draw's counts: chosen pieces and how many became [MASK], random or stayed."""
    counts = {name: int((outcome == k).sum()) for k, name in ((MASKED, "[MASK]"), (RANDOM, "random"), (KEPT, "kept"))}
    st.markdown(
        tr(
            "masking.draw_summary",
            seed=seed,
            chosen=sum(counts.values()),
            eligible=n_eligible,
            mask=counts["[MASK]"],
            random=counts["random"],
            kept=counts["kept"],
            clicked=tr("masking.draw_clicked", n=n_clicked) if n_clicked else "",
        )
    )


def predictions_caption(rows: Sequence[PredictionRow], vocab_size: int, text_b: str | None) -> None:
    """What the predictions figure shows: at the positions with an original piece, how many the model
    got right at top-1; at the [MASK]s typed in the text (no original), that these are the numbers
    of ``python -m models.fill_mask`` on sentence A, or why not when sentence B is read too."""
    known = [r for r in rows if r.outcome != TYPED]
    if known:
        st.markdown(
            tr("masking.predicted", vocab=vocab_size, hits=sum(r.original_rank == 0 for r in known), rows=len(known))
        )
    if typed := len(rows) - len(known):
        st.markdown(tr("masking.typed.pair" if (text_b or "").strip() else "masking.typed", n=typed, vocab=vocab_size))


def masking_stats_caption(stats, rule: str) -> None:
    """The rates after all draws of a MaskingStats against their targets (15% or the fixed count, 80/10/10)."""
    final = stats.final()
    se = np.sqrt(0.15 * 0.85 / max(stats.totals["eligible"], 1))
    target = tr("masking.stats.reference") if rule == REFERENCE else tr("masking.stats.independent", se=se)
    st.caption(
        tr(
            "masking.stats.caption",
            chosen=final["chosen"],
            target=target,
            mask=final["[MASK]"],
            random=final["random"],
            kept=final["kept"],
        )
    )


def explain_special_attention() -> None:
    """Caption of the attention to and from the special tokens."""
    st.caption(tr("masking.explain.special"))


def explain_nsp() -> None:
    """Next-sentence prediction from the [CLS] vector."""
    st.markdown(tr("masking.explain.nsp"))
    st.latex(r"P(\text{IsNext}) = \mathrm{softmax}\big(W_{\text{nsp}} \tanh(W_p\, h_{\texttt{[CLS]}} + b_p)\big)_0")


#: The small BERT's fine-tuning labels (its config.json class_labels and tag_labels) → their string ids.
_HEAD_LABELS = {
    "Old Testament": "masking.label.old",
    "New Testament": "masking.label.new",
    "lower-case": "masking.label.lower",
    "Capitalised": "masking.label.capitalised",
}


def head_label(label: str) -> str:
    """A fine-tuning head's output label in the reader's language: the small BERT's, and the
    placeholders "class N" / "tag N" of an untrained head (models.nn.bert.BertConfig); a label of
    another model as it is."""
    if label in _HEAD_LABELS:
        return tr(_HEAD_LABELS[label])
    untrained = re.fullmatch(r"(class|tag) (\d+)", label)
    return tr(f"masking.label.{untrained[1]}_n", n=untrained[2]) if untrained else label


def held_out_pairs(seed: int, training: dict, name: str = SMALL_BERT) -> None:
    """Model ``name``'s P(IsNext) on held-out pairs drawn with ``seed``: chart, table, and how many it
    got right against the held-out accuracy in ``training``."""
    try:
        pairs = nsp_examples(name, seed)
    except Exception as exc:  # the corpus package may be missing
        st.info(tr("masking.nsp.none", error=md_escape(exc)))
        return
    if not pairs:
        return
    labels = [f"{k + 1}. {'IsNext' if nxt else 'NotNext'}" for k, (_, _, nxt, _) in enumerate(pairs)]
    chart(
        nsp_figure(labels, [p for *_, p in pairs], [nxt for _, _, nxt, _ in pairs], title=tr("masking.fig.nsp")),
        key="bert_nsp",
        config=PLOT,
    )
    correct = sum((p >= 0.5) == nxt for _, _, nxt, p in pairs)
    st.table(nsp_table(pairs, texts=figure_texts()), hide_index=True)
    st.caption(
        tr(
            "masking.nsp.right",
            correct=correct,
            n=len(pairs),
            acc=training.get("heldout", {}).get("nsp_accuracy", float("nan")),
        )
    )


_HEAD_FORMULAS = {
    "classifier": r"P(c \mid \text{sentence}) = \mathrm{softmax}(W_c\, \mathrm{pooled}_{\texttt{[CLS]}})",
    "tagger": r"P(t \mid \text{piece}_i) = \mathrm{softmax}(W_t\, h_i)",
    "span": r"\text{start}_i = S \cdot h_i \qquad \text{end}_j = E \cdot h_j \qquad "
    r"\text{answer} = \arg\max_{i \le j} \; S\cdot h_i + E \cdot h_j",
}


def fine_tuning_note(head: str, config, scores: dict) -> bool:
    """The formula of fine-tuning head ``head`` ("classifier", "tagger" or "span") and, from the
    held-out ``scores``, how well it does, or that it is not trained; returns whether it is trained."""
    nan = float("nan")
    trained = head in set(config.trained_heads)
    st.latex(_HEAD_FORMULAS[head])
    if head == "span" and not trained:
        st.warning(tr("masking.ft.span_untrained"))
    elif not trained:
        st.warning(tr("masking.ft.untrained"))
    elif head == "classifier":
        st.success(
            tr(
                "masking.ft.classifier",
                task=md_escape(config.class_task),
                bal=scores.get("classifier_balanced_accuracy", nan),
                acc=scores.get("classifier_accuracy", nan),
            )
        )
    elif head == "tagger":
        st.success(
            tr(
                "masking.ft.tagger",
                task=md_escape(config.tag_task),
                recall=scores.get("tagger_recall", nan),
                precision=scores.get("tagger_precision", nan),
                f1=scores.get("tagger_f1", nan),
                acc=scores.get("tagger_accuracy", nan),
                base=scores.get("tagger_majority_baseline", nan),
            )
        )
    return trained


def explain_loss() -> None:
    """The pre-training loss: masked-LM cross-entropy plus next-sentence cross-entropy."""
    st.markdown(tr("masking.explain.loss"))
    st.latex(
        r"\mathcal{L} = -\frac{1}{|M|}\sum_{i\in M}\log P(x_i \mid \tilde{x}) \;-\; "
        r"\log P(\text{IsNext}_{\text{true}} \mid \tilde{x})"
    )


# --------------------------------------------------------------------------------------
# Fine-tuning every parameter (§4) beside the frozen-feature head (§5.3)
# --------------------------------------------------------------------------------------

FINETUNE_TASKS = ("nli", "cls", "qa")


@st.cache_resource(show_spinner=False, max_entries=2)  # a fine-tuned MiniLM with its base: about 270 MB
def finetuned_models(name: str):
    """(fine-tuned model checkpoint, pre-trained base, frozen-head model), shared and read-only; ``name`` a
    shipped checkpoint's name or a folder (a MiniLM-L6 fine-tuned on this machine)."""
    from models.training import finetune

    loaded = finetune.load_finetuned(name)
    base, _ = finetune.load_base(str(loaded.training.get("base", SMALL_BERT)))
    return loaded, base, finetune.frozen_model(base, loaded)


def _checkpoint_task(folder: Path) -> str | None:
    """The task a fine-tuned checkpoint's config names, or None when it cannot be read."""
    from models.checkpoints import CONFIG, read_json

    try:
        return str(read_json(folder / CONFIG)["training"]["task"]).removeprefix("finetune-")
    except Exception:  # a bad checkpoint is reported by python -m models.evaluate; the view skips it
        return None


def _finetuned_names() -> dict[tuple[str, str], str]:
    """(model: ``small`` or ``minilm``, task) → the checkpoint to load: a shipped bert-small's name, or the
    folder of a MiniLM-L6 fine-tuned on this machine (its weights are not shipped)."""
    from models.checkpoints import checkpoint_path
    from models.training import finetune

    out = {}
    for name in finetune.shipped_finetuned():
        task = _checkpoint_task(checkpoint_path(name))
        if task in FINETUNE_TASKS:
            out[("small", task)] = name
    for folder in finetune.unshipped_folders().values():
        task = _checkpoint_task(folder)
        if task in FINETUNE_TASKS:
            out[("minilm", task)] = str(folder)
    return out


def _recorded_minilm() -> dict[str, dict]:
    """task → the fine-tuned MiniLM-L6's row in the saved evaluation."""
    from models.checkpoints import MINILM_PACKAGE
    from models.training import finetune

    return {r["task"]: r for r in finetune.recorded_unshipped() if r.get("base") == MINILM_PACKAGE}


@st.cache_data(max_entries=16, show_spinner=False)
def _finetune_example(name: str, index: int) -> dict:
    """One test item of the checkpoint's task: its text, gold label or span, both models' predictions and
    the attention (layers, heads, L, L) of the pre-trained and the fine-tuned encoder (numpy)."""
    from models.training import finetune

    loaded, base, frozen = finetuned_models(name)
    test = finetune.example_items(loaded)  # the first test items, recorded in the checkpoint
    item, enc = test[index % len(test)]
    tuned_p = finetune.predict(loaded.model, loaded.task, [(item, enc)])
    frozen_p = finetune.predict(frozen, loaded.task, [(item, enc)])
    return {
        "item": item,
        "tokens": loaded.tokenizer.convert_ids(enc.ids),
        "ids": tuple(int(i) for i in enc.ids),
        "segments": tuple(int(i) for i in enc.segments),
        "n_test": len(test),
        "tuned": tuned_p["predictions"][0],
        "frozen": frozen_p["predictions"][0],
        "before": finetune.attention_rows(base, enc),
        "after": finetune.attention_rows(loaded.model, enc),
    }


def _answer(item, task: str, prediction) -> str:
    if task == "qa":
        i, j = prediction
        return " ".join(item.context[i : j + 1])
    return tr(f"masking.ftx.label.{task}.{int(prediction)}")


def _finetune_row(model: str, task: str, rec: dict) -> dict[str, str]:
    """One row of the fine-tuning table: ``model`` ``small`` or ``minilm``; ``rec`` a training record or a
    row of the saved evaluation (both hold ``steps`` and ``n_test``; the scores in ``test``, or in the row)."""
    scores = rec.get("test") or rec
    return {
        tr("masking.ftx.col.model"): tr(f"masking.ftx.model.{model}"),
        tr("masking.ftx.col.task"): tr(f"masking.ftx.short.{task}"),  # the long name: the task picker below
        tr("masking.ftx.col.metric"): tr(f"masking.ftx.metric.{task}"),
        tr("masking.ftx.col.all"): f"{scores['finetuned']:.1%}",
        tr("masking.ftx.col.frozen"): f"{scores['frozen']:.1%}",
        tr("masking.ftx.col.n"): str(rec.get("n_test", "")),
        tr("masking.ftx.col.steps"): str(rec.get("steps", "")),
    }


def minilm_finetuned_rows(recorded: dict[str, dict] | None = None) -> list[dict[str, str]]:
    """The fine-tuned MiniLM-L6's rows, in task order, from the figures recorded in the saved evaluation
    (``recorded``: :func:`_recorded_minilm`, read here when not given; ``python -m models.train --preset
    minilm-…``; its weights are not shipped)."""
    recorded = _recorded_minilm() if recorded is None else recorded
    return [_finetune_row("minilm", task, recorded[task]) for task in FINETUNE_TASKS if task in recorded]


FinetuneSources = tuple[dict[tuple[str, str], str], dict[str, dict]]


def finetune_sources() -> FinetuneSources:
    """What the fine-tuning tab can show, read once: (:func:`_finetuned_names`, :func:`_recorded_minilm`)."""
    return _finetuned_names(), _recorded_minilm()


def finetune_record(model: str, task: str, sources: FinetuneSources | None = None) -> tuple[str | None, dict] | None:
    """(the checkpoint to load, or None where its weights are not on this machine; its training record, or the
    saved evaluation's row) of ``model`` (``small`` or ``minilm``) fine-tuned on ``task``; None when neither
    exists. ``sources``: :func:`finetune_sources`, read here when not given."""
    names, recorded = finetune_sources() if sources is None else sources
    if (model, task) in names:
        return names[model, task], finetuned_models(names[model, task])[0].training
    if model == "minilm" and task in recorded:
        return None, recorded[task]
    return None


def finetune_options(sources: FinetuneSources | None = None) -> dict[str, list[str]]:
    """model (``small``, ``minilm``) → the tasks it was fine-tuned on, here or in the saved evaluation
    (``sources``: :func:`finetune_sources`, read here when not given)."""
    names, recorded = finetune_sources() if sources is None else sources
    out = {
        m: [t for t in FINETUNE_TASKS if (m, t) in names or (m == "minilm" and t in recorded)]
        for m in ("small", "minilm")
    }
    return {m: tasks for m, tasks in out.items() if tasks}


def finetune_change_figure(training: dict) -> go.Figure | None:
    """How fine-tuning changed each layer × head's attention (the record's mean total-variation distance on its
    test inputs), or None when the record holds no such grid: the fine-tuning tab's figure and its slide's."""
    from viz_core.finetune import change_grid_figure

    change = np.asarray(training.get("attention_change") or [], dtype=float)
    if change.ndim != 2 or not change.size:
        return None
    return change_grid_figure(
        change,
        tr("masking.ftx.fig.change", n=training.get("attention_inputs") or 0),
        tr("masking.ftx.layer"),
        tr("masking.ftx.head"),
        tr("masking.ftx.distance"),
    )


def finetuned_view(
    picked: Callable[[str, str], None] = lambda model, task: None,
    cells: Callable[[str, bool, Sequence[int], Sequence[int], int, int], Explainer] | None = None,
) -> None:
    """The fine-tuned checkpoints' figures (recorded; python -m models.evaluate recomputes them), and for one
    task how fine-tuning changed the attention, per layer × head and on one test input. The model and task
    picked here go to ``picked`` (the page publishes its view state with them: ui.views.bert.FinetuneState);
    ``cells(checkpoint, tuned, ids, segments, layer, head)`` explains a cell of the before/after maps
    (ui.cells.finetuned_cells), which makes them clickable."""
    from ui.explain import Panel, explained_panels
    from viz_core.finetune import before_after_figure

    st.subheader(tr("masking.ftx.header"))
    st.markdown(tr("masking.ftx.intro"))
    sources = finetune_sources()  # the checkpoints and the saved evaluation, read once for the whole tab
    names, recorded = sources
    minilm = minilm_finetuned_rows(recorded)
    if not names and not minilm:
        st.info(tr("masking.ftx.none"))
        return
    import pandas as pd

    from ui.table import table

    shipped = [
        _finetune_row("small", task, finetuned_models(names["small", task])[0].training)
        for task in FINETUNE_TASKS
        if ("small", task) in names
    ]
    table(pd.DataFrame(shipped + minilm), key="bert_finetune_table")
    st.caption(tr("masking.ftx.data"))
    if minilm:
        st.caption(tr("masking.ftx.minilm"))
    options = finetune_options(sources)
    c1, c2 = st.columns(2)
    model = linked(  # kept in the link: a slide of this tab shows the same model and task
        c1.selectbox,
        tr("masking.ftx.col.model"),
        list(options),
        format_func=lambda m: tr(f"masking.ftx.model.{m}"),
        key="bert_ft_model",
    )
    task = linked(
        c2.selectbox,
        tr("masking.ftx.pick"),
        options[model],
        format_func=lambda x: tr(f"masking.ftx.task.{x}"),
        key="bert_ft_task",
    )
    picked(model, task)
    name, training = finetune_record(model, task, sources) or (None, {})
    change = finetune_change_figure(training)
    if change is not None:
        chart(change, key="bert_ft_change", config=PLOT)
        st.caption(tr("masking.ftx.change_caption"))
    figures = {tr("masking.ftx.fig.change_short"): change} if change is not None else {}

    def export(source: str) -> None:
        export_menu(
            "finetune",
            title=tr("masking.ftx.header"),
            source=source,
            figures=figures,
            numbers=_finetune_row(model, task, training),
            key="bert_ft_export",
            section="finetune",
        )

    if name is None:
        st.info(tr("masking.ftx.no_weights", command=training.get("command") or ""))
        export(tr(f"masking.ftx.task.{task}"))
        return
    loaded = finetuned_models(name)[0]
    n_examples = len(loaded.training.get("examples", [])) or 1
    index = int(
        st.number_input(
            tr("masking.ftx.example", n=n_examples),
            min_value=0,
            max_value=n_examples - 1,
            value=0,
            step=1,
            key="bert_ft_example",
        )
    )
    ex = _finetune_example(name, index)
    item = ex["item"]
    if task == "nli":
        st.markdown(
            tr(
                "masking.ftx.show.nli",
                p=md_escape(" ".join(item.premise)),
                h=md_escape(" ".join(item.hypothesis)),
                gold=tr(f"masking.ftx.label.nli.{item.label}"),
            )
        )
    elif task == "cls":
        st.markdown(
            tr(
                "masking.ftx.show.cls",
                s=md_escape(" ".join(item.tokens)),
                gold=tr(f"masking.ftx.label.cls.{item.label}"),
            )
        )
    else:
        st.markdown(
            tr(
                "masking.ftx.show.qa",
                q=md_escape(" ".join(item.question)),
                c=md_escape(" ".join(item.context)),
                gold=md_escape(" ".join(item.answer)),
            )
        )
    c1, c2 = st.columns(2)
    c1.metric(tr("masking.ftx.col.all"), _answer(item, task, ex["tuned"]))
    c2.metric(tr("masking.ftx.col.frozen"), _answer(item, task, ex["frozen"]))
    n_layers, n_heads = ex["after"].shape[:2]
    l1, l2 = st.columns(2)
    layer = int(
        l1.selectbox(tr("masking.ftx.layer"), range(n_layers), format_func=lambda i: str(i + 1), key="bert_ft_layer")
    )
    head = int(
        l2.selectbox(tr("masking.ftx.head"), range(n_heads), format_func=lambda i: str(i + 1), key="bert_ft_head")
    )
    before, after = ex["before"][layer, head], ex["after"][layer, head]
    titles = [tr("masking.ftx.before", model=tr(f"masking.ftx.model.{model}")), tr("masking.ftx.after")]
    pair = before_after_figure(
        ex["tokens"],
        before,
        after,
        titles,
        tr(
            "masking.ftx.fig.pair", layer=layer + 1, head=head + 1, d=float(0.5 * np.abs(after - before).sum(-1).mean())
        ),
        texts=figure_texts(),
        width=PAGE_WIDTH,
    )

    if cells is None:
        chart(pair, key="bert_ft_pair", config=PLOT)
    else:
        explained_panels(  # a click on either map derives that weight from its own encoder
            pair,
            "bert_ft_pair",
            [
                Panel(
                    weights, cells(name, tuned, ex["ids"], ex["segments"], layer, head), ex["tokens"], ex["tokens"], t
                )
                for weights, tuned, t in ((before, False, titles[0]), (after, True, titles[1]))
            ],
            context=(name, index, layer, head),
        )
    figures[tr("masking.ftx.fig.pair_short", layer=layer + 1, head=head + 1)] = pair
    export(" ".join(ex["tokens"]))
