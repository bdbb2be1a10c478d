"""The real LLMs on the page: which one runs (SmolLM2, or Gemma 3 once it is converted), its state
(package missing, not converted, ready), the one-time conversion in a background thread with
progress, the shared loaded models, and cached runs (keyed by the model's name).

The conversion takes minutes, so it never runs inside a script run (the next click anywhere
would abort it): a thread kept in a ``st.cache_resource`` registry does it, and a fragment
polls its progress every second (DESIGN.md, "Training from the app"). No ``st.*`` call runs in
the thread.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from ui.i18n import figure_texts, tr
from ui.state import linked
from ui.tokens import input_error, md_escape
from ui.work_queue import heavy_slot

if TYPE_CHECKING:  # the model's module imports torch: not at the page's first paint
    import plotly.graph_objects as go

    from models.inference.llm import LLM, HeadScores, LLMTrace

DEFAULT_PROMPT = "What is attention in a neural network?"
HEADS_TEXT = (
    "The students opened their books. The teacher wrote a short sentence on the board, and the students "
    "copied the sentence into their notebooks before the bell rang. Then the teacher asked a question."
)
STAGES = ("start", "tokenizer", "weights", "saving", "done")


@dataclass
class Conversion:
    """The server's one conversion job: stage, when it started, and its error (plain threading)."""

    model: str = "smollm2"
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None
    stage: str = "start"
    started: float = 0.0
    error: str = ""

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self) -> None:
        """Start the conversion unless it is already running."""
        with self.lock:
            if self.running:
                return
            self.stage, self.error, self.started = "start", "", time.monotonic()
            self.thread = threading.Thread(target=self._run, name="llm-conversion", daemon=True)
            self.thread.start()

    def _progress(self, stage: str, done: float) -> None:
        self.stage = stage

    def _run(self) -> None:
        from models.inference.llm import ensure_converted

        try:
            ensure_converted(self._progress, model=self.model)
        except Exception as exc:  # shown on the page as one line; the cache stays unbuilt
            self.error = " ".join(str(exc).split())[:300] or exc.__class__.__name__


@st.cache_resource(show_spinner=False)
def conversion(model: str = "smollm2") -> Conversion:
    return Conversion(model)


@st.cache_resource(show_spinner=False)
def shared_llm(model: str = "smollm2"):
    """The server's one loaded copy of each real LLM (page 9, its slide, and page 8's decoder view share it)."""
    from models.inference.llm import load_llm

    return load_llm(model=model)


def _progress_panel(model: str) -> None:
    """Polled every second while the conversion runs; reruns the page when it is over."""
    job = conversion(model)
    if job.running:
        stage = tr(f"llm_explorer.stage.{job.stage}") if job.stage in STAGES else job.stage
        st.progress(
            STAGES.index(job.stage) / (len(STAGES) - 1) if job.stage in STAGES else 0.0,
            text=tr("llm_explorer.converting", stage=stage, elapsed=time.monotonic() - job.started),
        )
    elif job.thread is not None:
        st.rerun(scope="app")


def package_problem(model: str = "smollm2") -> str:
    """Why the model's package cannot be used (not installed, no GGUF file), in the reader's language
    and escaped; "" when it can. The page and its slide (ui.views.llm.slide) both ask here."""
    from models.inference.llm import LLMError, check_installed

    try:
        check_installed(model)
    except LLMError as exc:
        return tr("llm_explorer.no_package", error=input_error(exc))
    return ""


def load_failure(exc: Exception) -> str:
    """A failed load or run of the model (an LLMError such as "not converted", or the library's
    OSError/ValueError), in the reader's language and escaped."""
    return tr("llm_explorer.load_failed", error=input_error(exc))


def licence_notice(model: str) -> str:
    """The model's licence notice in the reader's language ("" for a model that needs none): shown
    wherever the model is used."""
    from models.inference.llm import spec_of

    return tr(f"llm.licence.{model}") if spec_of(model).notice else ""


def model_names() -> tuple[str, ...]:
    """Every real LLM the lab knows, the default first."""
    from models.inference.llm import SPECS

    return tuple(SPECS)


def choose_model() -> str:
    """The model the page runs: SmolLM2, or a choice between it and each optional model (Gemma 3)
    that is converted; for each one that is not, one line saying how to install and convert it."""
    from models.inference.llm import MODEL_NAME, is_converted, spec_of

    ready = [name for name in model_names() if name == MODEL_NAME or is_converted(model=name)]
    for name in model_names():
        if name not in ready:
            spec = spec_of(name)
            st.caption(tr(f"llm_explorer.optional.{name}", install=spec.install_command, command=spec.prepare_command))
    if len(ready) == 1:
        return MODEL_NAME
    return str(
        linked(
            st.segmented_control,
            tr("llm_explorer.model"),
            ready,
            default=MODEL_NAME,
            required=True,
            key="llm_model",
            format_func=lambda name: tr(f"llm_explorer.model.{name}"),
        )
    )


def ready_model(model: str = "smollm2"):
    """The loaded model (and its licence notice, when it has one), or (package missing / not
    converted / failed) a clear message, the conversion button and its progress, and the end of this run."""
    from models.inference.llm import LLMError, is_converted, spec_of

    if problem := package_problem(model):
        st.error(problem)
        st.stop()
    job = conversion(model)
    if not is_converted(model=model):
        if job.error:
            st.error(tr("llm_explorer.convert_failed", error=md_escape(job.error)))
        st.warning(tr("llm_explorer.not_converted", command=spec_of(model).prepare_command))
        st.button(
            tr("llm_explorer.convert"),
            key="llm_convert",
            on_click=job.start,
            disabled=job.running,
            help=tr("llm_explorer.convert_help"),
            type="primary",
        )
        if job.running:
            st.fragment(_progress_panel, run_every=1.0)(model)
        st.stop()
    if notice := licence_notice(model):
        st.caption(notice)
    try:
        with st.spinner(tr("llm_explorer.loading", model=tr(f"llm_explorer.model.{model}"))):
            return shared_llm(model)
    except (LLMError, OSError, ValueError) as exc:
        st.error(load_failure(exc))
        st.stop()


def heavy_once(run, *args, what: str):
    """``run(*args)`` (a cached function) in the server's heavy queue the first time this session
    asks for these arguments; afterwards straight from the cache, so that stepping through a
    result never waits behind another student's model run."""
    done = st.session_state.get("_llm_done")
    if not isinstance(done, set):  # unset, or anything else a stale session or code left there
        done = st.session_state["_llm_done"] = set()
    if (run.__name__, args) in done:
        return run(*args)
    with heavy_slot(what):
        result = run(*args)
    done.add((run.__name__, args))
    return result


@st.cache_data(max_entries=4, show_spinner=False)
def generation(
    model: str,
    prompt: str,
    chat: bool,
    max_new: int,
    temperature: float,
    top_k: int,
    top_p: float,
    seed: int,
    use_cache: bool,
):
    """The :class:`~models.inference.llm.LLMTrace` of one model, prompt and setting (top_k 0 = no limit)."""
    from models.inference.llm import generate_text

    return generate_text(
        shared_llm(model),
        prompt,
        chat,
        max_new=max_new,
        temperature=temperature,
        top_k=top_k or None,
        top_p=top_p,
        seed=seed,
        use_cache=use_cache,
    )


@st.cache_data(max_entries=4, show_spinner=False)
def head_scores(model: str, text: str, period: int, seed: int):
    """Sink, previous-token and induction scores of every head (:func:`models.inference.llm.measure_heads`)."""
    from models.inference.llm import measure_heads

    return measure_heads(shared_llm(model), text, period, seed)


def chinese_notice(model: str, prompt_tokens: Sequence[str]) -> None:
    """For a model that does not read Chinese (SmolLM2), when the prompt has Chinese: how it cut the
    characters into byte pieces, and what it answers (measured by ``python -m bench.llm_chinese``)."""
    from models.inference.llm import chinese_reading, spec_of

    if spec_of(model).reads_chinese:
        return
    chars, pieces, fragments = chinese_reading(prompt_tokens)
    if chars:
        st.info(tr("llm_explorer.no_chinese", chars=chars, pieces=pieces, fragments=fragments))


def visible(tokens: list[str]) -> list[str]:
    """Tokens with their spaces and line breaks made visible (␣, ↵), for labels and chips."""
    return [tok.replace(" ", "␣").replace("\n", "↵") or "∅" for tok in tokens]


STEP_FIGURE_PX = 530  # the Real LLM page's figure column at 1280×720 with the sidebar open (measured 536 px)
CANDIDATES_PX = 200  # the column beside it, of the step's candidates (measured 208 px)


def step_rows(trace: LLMTrace, step: int, rows: str, layer: int) -> tuple[np.ndarray, list[str], str]:
    """What :func:`step_figure` draws: (rows, tokens so far) weights, the rows' labels and the y title's
    string id; one row per layer (the mean over its heads) when ``rows`` is "layers", else one per head
    of ``layer`` (1-based)."""
    shown = trace.steps[step]
    n_layers, n_heads = shown.attention.shape[:2]
    if rows == "layers":
        return shown.attention.mean(axis=1), [f"L{i + 1}" for i in range(n_layers)], "llm_explorer.axis.layer"
    return shown.attention[layer - 1], [f"H{h + 1}" for h in range(n_heads)], "llm_explorer.axis.head"


def step_ids(trace: LLMTrace, step: int) -> list[int]:
    """The ids the query of ``step`` read: every token before the step's new one (the query is the last)."""
    return (trace.prompt_ids + trace.generated_ids)[: trace.steps[step].position]


def explainable(llm: LLM) -> bool:
    """Whether click-to-explain derives this model's attention (a Llama: models.inference.explain)."""
    from models.inference.explain import LLAMA_TYPE

    return str(llm.model.config.model_type) == LLAMA_TYPE


def step_figure(trace: LLMTrace, step: int, rows: str, layer: int, width: float = STEP_FIGURE_PX) -> go.Figure:
    """The query row that produced new token ``step`` over every token before it: one row per layer
    (the mean over its heads) when ``rows`` is "layers", else one per head of ``layer`` (1-based);
    its title and tick labels planned for ``width`` px (default: the page's column)."""
    from viz_core.llm import step_attention_figure

    shown = trace.steps[step]
    matrix, labels, y_title = step_rows(trace, step, rows, layer)
    return step_attention_figure(
        matrix,
        visible(trace.tokens[: shown.position]),
        labels,
        title=tr("llm_explorer.fig.step", token=visible([shown.token])[0], n=step + 1),
        x_title=tr("llm_explorer.axis.key"),
        y_title=tr(y_title),
        height=420 if rows == "layers" else 340,
        texts=figure_texts(),
        width=width,
    )


# ---------------------------------------------------------------------------------------------
# The views of the page's other tabs: plain settings in, figures out. The page's tab and its slide
# (ui.views.llm.slide) both draw them, so a slide shows what the page showed.
# ---------------------------------------------------------------------------------------------

BYTES = (4, 2)  # bytes per value the GQA tab offers: float32, bfloat16
HEAD_TYPES = ("induction", "previous", "sink")  # the head types of the Head types tab, its default first


def bytes_label(size: int) -> str:
    """The GQA tab's label of a value size (the data type's name is the same in every language)."""
    return {4: "float32 (4)", 2: "bfloat16 (2)"}[size]


@dataclass(frozen=True)
class KVCache:
    """Bytes of the KV cache per token with grouped-query attention (``gqa``) and with one K/V head per
    query head (``mha``) at ``size`` bytes per value, the context length ``context`` it is shown for, and
    ``positions``: Σ over layers of the positions cached at that length (a sliding-window layer keeps
    only its window: :func:`models.inference.llm.cached_positions`) of ``n_layers``."""

    gqa: int
    mha: int
    size: int
    context: int
    positions: int
    n_layers: int

    @property
    def per_token(self) -> tuple[str, str]:
        """(with GQA, with full multi-head attention) per token, in KiB."""
        return f"{self.gqa / 1024:.1f} KiB", f"{self.mha / 1024:.1f} KiB"

    @property
    def total(self) -> float:
        """Bytes cached at the context length: per layer and position × the positions the layers keep."""
        return self.gqa / self.n_layers * self.positions

    @property
    def full(self) -> float:
        """Bytes cached at the context length if every layer kept every position."""
        return float(self.gqa * self.context)

    @property
    def at_context(self) -> tuple[str, str]:
        """(with GQA, with full multi-head attention) at the context length, in MiB."""
        share = self.mha / self.gqa
        return f"{self.total / 2**20:.1f} MiB", f"{self.total * share / 2**20:.1f} MiB"

    def window_line(self, llm: LLM) -> str:
        """For a model with sliding-window layers: what they keep, and the cache against every layer
        keeping every token ("" for a model without)."""
        if not llm.sliding_window:
            return ""
        return tr(
            "llm_explorer.gqa.window",
            local=len(llm.local_layers),
            window=llm.sliding_window,
            kept=llm.window_cache,
            n_global=len(llm.global_layers),
            n=self.context,
            total=self.at_context[0],
            full=f"{self.full / 2**20:.1f} MiB",
        )

    def summary(self) -> str:
        """One line: per token and at the context length, against full multi-head attention."""
        return tr(
            "llm_explorer.gqa.summary",
            per_token=self.per_token[0],
            n=self.context,
            total=self.at_context[0],
            mha=self.at_context[1],
            share=self.gqa / self.mha,
        )


def gqa_view(llm: LLM, size: int, context: int) -> tuple[go.Figure, KVCache]:
    """The GQA tab's view of ``llm``: which key/value head each query head reads, and the KV cache's
    bytes at ``size`` bytes per value and ``context`` tokens."""
    from models.inference.llm import cached_positions, gqa_groups, kv_cache_bytes
    from viz_core.llm import gqa_figure

    figure = gqa_figure(
        gqa_groups(llm.n_heads, llm.n_kv_heads),
        title=tr("llm_explorer.gqa.fig"),
        x_title=tr("llm_explorer.gqa.x"),
        y_title=tr("llm_explorer.gqa.y"),
    )
    cache = KVCache(
        kv_cache_bytes(llm.n_layers, llm.n_kv_heads, llm.head_dim, size),
        kv_cache_bytes(llm.n_layers, llm.n_heads, llm.head_dim, size),
        size,
        context,
        cached_positions(llm, context),
        llm.n_layers,
    )
    return figure, cache


@dataclass(frozen=True)
class RopeView:
    """The RoPE tab's figures (the pair, the wavelengths, the scores), the pair's θ (radians per
    position) and the largest difference of the scores along a diagonal."""

    pair: go.Figure
    wavelengths: go.Figure
    scores: go.Figure
    theta: float
    err: float

    @property
    def figures(self) -> list[go.Figure]:
        return [self.pair, self.wavelengths, self.scores]


def rope_view(llm: LLM, pair: int, n_positions: int) -> RopeView:
    """The RoPE tab's view on ``llm``'s head dimension and θ base: dimension pair ``pair`` (0-based)
    of a random query at positions 0 … ``n_positions`` − 1, every pair's wavelength, and q·k."""
    from models.inference.llm import rope_demo
    from viz_core.llm import rope_pair_figure, wavelength_figure
    from viz_core.positional import position_score_figure

    demo = rope_demo(llm.head_dim, llm.rope_theta, n_positions)
    return RopeView(
        rope_pair_figure(
            demo.pair("q", pair),
            demo.pair("k", pair)[0],
            list(range(n_positions)),
            title=tr("llm_explorer.rope.fig.pair", i=pair, last=n_positions - 1),
            q_label=tr("llm_explorer.rope.q"),
            k_label=tr("llm_explorer.rope.k"),
        ),
        wavelength_figure(
            demo.theta,
            llm.max_positions,
            title=tr("llm_explorer.rope.fig.wave"),
            x_title=tr("llm_explorer.rope.x"),
            y_title=tr("llm_explorer.rope.y"),
            context_label=tr("llm_explorer.rope.context", n=llm.max_positions),
        ),
        position_score_figure(demo.scores, title=tr("llm_explorer.rope.fig.scores"), texts=figure_texts()),
        float(demo.theta[pair]),
        max(float(np.ptp(np.diagonal(demo.scores, k))) for k in range(-n_positions + 1, n_positions)),
    )


def rope_bases(llm: LLM) -> str:
    """Which layers use which RoPE base, for a model with two (Gemma 3: local 10,000, global 1,000,000;
    the RoPE views show the global one); "" for a model with one base."""
    if llm.rope_local_theta is None:
        return ""
    return tr(
        "llm_explorer.rope.two_bases",
        local=llm.rope_local_theta,
        local_layers=", ".join(str(i + 1) for i in llm.local_layers),
        window=llm.sliding_window,
        theta=llm.rope_theta,
        global_layers=", ".join(str(i + 1) for i in llm.global_layers),
    )


def heads_figure(scores: HeadScores, head_type: str, height: int = 560) -> go.Figure:
    """The Head types tab's grid: every head's score of ``head_type`` (one of :data:`HEAD_TYPES`) in a
    :class:`~models.inference.llm.HeadScores`, its five best heads outlined."""
    from viz_core.llm import score_grid_figure

    return score_grid_figure(
        getattr(scores, head_type),
        title=tr("llm_explorer.heads.fig", head_type=tr(f"llm_explorer.kind.{head_type}")),
        x_title=tr("llm_explorer.axis.head"),
        y_title=tr("llm_explorer.axis.layer"),
        best=scores.best(head_type, 5),
        height=height,
        texts=figure_texts(),
    )


# ---------------------------------------------------------------------------------------------
# Translation: the real LLM few-shot, beside the lab's own translators (the Translation tab and its slide)
# ---------------------------------------------------------------------------------------------

SUMMARIES = ("all", "layer", "head")  # the translation figure's rows: every head's mean, a layer's, one head
TRANSLATION_QUALITY = Path(__file__).resolve().parent.parent / "bench" / "baselines" / "llm_translate.json"


@st.cache_data(max_entries=8, show_spinner=False)
def few_shot_translation(model: str, direction: str, source: str):
    """The :class:`~models.inference.llm_translate.LLMTranslation` of ``source`` by ``model``."""
    from models.inference.llm_translate import translate_few_shot

    return translate_few_shot(shared_llm(model), direction, source)


def direction_label(direction: str) -> str:
    """The Translation tab's name of a direction, e.g. "中文 → English"."""
    return tr(f"llm_explorer.tr.dir.{direction}")


def summary_label(summary: str, layer: int, head: int) -> str:
    """What the translation figure's rows are: the mean of every head, of layer ``layer``'s heads, or
    head ``head`` of ``layer`` (both 0-based)."""
    return tr(f"llm_explorer.tr.sum.{summary}", layer=layer + 1, head=head + 1)


def translation_figure(
    result, summary: str, layer: int, head: int, step: int, renormalise: bool = True, width: float = STEP_FIGURE_PX
) -> go.Figure:
    """Each generated token's attention over the source sentence's tokens (rows: generated tokens; the
    ``step``-th outlined), the mean of every layer and head, of one layer's heads, or one head; with
    ``renormalise`` each head's row over the source sums to 1 (LLMTranslation.summary)."""
    from viz_core.transformer import attention_matrix_figure

    weights = result.summary(
        layer if summary in ("layer", "head") else None, head if summary == "head" else None, renormalise
    )
    return attention_matrix_figure(
        weights,
        visible(result.source_tokens),
        visible(result.output_tokens),
        step=step,
        title=tr(
            "llm_explorer.tr.fig_norm" if renormalise else "llm_explorer.tr.fig",
            summary=summary_label(summary, layer, head),
        ),
        x_title=tr("llm_explorer.tr.axis.source"),
        y_title=tr("llm_explorer.tr.axis.generated"),
        height=int(min(520, max(300, 150 + 30 * len(result.output_tokens)))),
        texts=figure_texts(),
        width=width,
    )


TRANSLATION_SIDE_PX = 300  # the Translation tab's side column at 1280×720 with the sidebar open


def translation_heads_figure(result, step: int, height: int = 420, width: float = TRANSLATION_SIDE_PX) -> go.Figure:
    """For generated token ``step``: the share of every layer × head's attention row that falls on the
    source sentence (the rest goes to the examples, the labels and the start token)."""
    from viz_core.llm import score_grid_figure

    share = result.on_source[step]
    best = [
        (int(i // share.shape[1]), int(i % share.shape[1]), float(share.flat[i]))
        for i in np.argsort(-share, axis=None)[:3]
    ]
    return score_grid_figure(
        share,
        title=tr("llm_explorer.tr.heads_fig", token=visible([result.output_tokens[step]])[0], n=step + 1),
        x_title=tr("llm_explorer.axis.head"),
        y_title=tr("llm_explorer.axis.layer"),
        best=best,
        height=height,
        texts=figure_texts(),
        scale_title=tr("llm_explorer.tr.share"),
        width=width,
    )


def translation_quality(direction: str) -> dict | None:
    """What ``python -m bench.llm_translate`` measured for ``direction`` (BLEU, chrF per model on the first
    n test pairs), or None when it has not been run here."""
    import json

    try:
        data = json.loads(TRANSLATION_QUALITY.read_text(encoding="utf-8"))
        return {"n": int(data["n"]), **data["directions"][direction]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class LabTranslation:
    """One of the lab's own translators on the tab's sentence: its checkpoint, its output as text, and
    its cross-attention averaged over every layer and head (target × source tokens; None for an RNN,
    whose one attention is its own figure on the Seq2seq page), or why it could not translate."""

    name: str
    text: str = ""
    weights: np.ndarray | None = None
    source_tokens: tuple[str, ...] = ()
    output_tokens: tuple[str, ...] = ()
    error: str = ""


def lab_translations(direction: str, text: str) -> list[LabTranslation]:
    """The lab's Transformer and RNN translators of ``direction`` on ``text``, greedy, each read as its
    own page reads typed text (ui.transformer.run_translation, ui.seq2seq.run_translation)."""
    from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError
    from models.inference.llm_translate import LAB_TRANSLATORS
    from models.inference.traces import display_text
    from ui import seq2seq, transformer

    out = []
    for name in LAB_TRANSLATORS[direction]:
        try:
            if name.startswith("tf-"):
                if isinstance(problem := transformer.load_model(name), str):
                    raise InputError(problem)
                trace = transformer.run_translation(name, text, 1, DEFAULT_LENGTH_PENALTY)
                out.append(
                    LabTranslation(
                        name,
                        display_text(list(trace.tgt_tokens)),
                        trace.cross_attention.mean(axis=(0, 1)),
                        tuple(trace.src_tokens),
                        tuple(trace.tgt_tokens),
                    )
                )
            else:
                if isinstance(problem := seq2seq.load_model(name), str):
                    raise InputError(problem)
                best = seq2seq.run_translation(name, text, 1, "soft", DEFAULT_LENGTH_PENALTY).hypotheses[0]
                out.append(LabTranslation(name, display_text(list(best.tokens))))
        except InputError as exc:
            out.append(LabTranslation(name, error=input_error(exc)))
    return out


def lab_figure(lab: LabTranslation, width: float = STEP_FIGURE_PX) -> go.Figure:
    """A lab Transformer's cross-attention on the tab's sentence, the mean of every layer and head."""
    from viz_core.transformer import attention_matrix_figure

    assert lab.weights is not None
    return attention_matrix_figure(
        lab.weights,
        visible(list(lab.source_tokens)),
        visible(list(lab.output_tokens)),
        title=tr("llm_explorer.tr.lab_fig", model=lab.name),
        x_title=tr("llm_explorer.tr.axis.source"),
        y_title=tr("llm_explorer.tr.axis.generated"),
        height=int(min(520, max(300, 150 + 30 * len(lab.output_tokens)))),
        texts=figure_texts(),
        width=width,
    )
