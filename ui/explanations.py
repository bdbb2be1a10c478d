"""The "Is attention an explanation?" page's models and cached runs: the four subjects of
:mod:`models.lessons.explanations` (the grammar seq2seq and Transformer, the MiniLM masked LM and the
real LLM SmolLM2), every method on one input in ``st.cache_data(max_entries=...)`` so that a revisit is
instant, and the student's guess scored against occlusion."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from ui.i18n import spinning, tr

if TYPE_CHECKING:
    from models.lessons.explanations import AttentionSwap, Explanation

MODELS = ("s2s-bahdanau", "tf-en-fr", "minilm-mlm", "smollm2")
EXAMPLES = {
    "s2s-bahdanau": "the red car is not big .",
    "tf-en-fr": "she sees the small green house .",
    "minilm-mlm": "I brush my [MASK] every morning.",
    "smollm2": "The capital of France is Paris. The capital of Italy is",
}
MAX_CHARS = 2_000
SINK_WARNING = 0.5  # the page warns when plain rollout puts more than this on the first token
SWAP_MODEL = "s2s-bahdanau"  # Jain & Wallace's permutation and adversary: one attention per decoding step


@st.cache_resource(show_spinner=False)
def _lock() -> threading.Lock:
    """One explanation at a time: the methods hook the shared models' attention modules."""
    return threading.Lock()


def load(name: str) -> Any:
    """The shared read-only model ``name`` through its family's public loader (the LLM through its page's
    ready check); a model that cannot be loaded is one error line and the end of this run."""
    if name == "smollm2":
        from ui.llm import ready_model

        return ready_model()
    if name == "s2s-bahdanau":
        from ui.seq2seq import load_model as load_s2s

        loaded = load_s2s(name)
    elif name == "tf-en-fr":
        from ui.transformer import load_model as load_tf

        loaded = load_tf(name)
    else:
        from ui.bert import load_small_bert

        loaded = load_small_bert(name)
    if isinstance(loaded, str):
        st.error(loaded)
        st.stop()
    return loaded


def subject(name: str, text: str, step: int | None = None) -> Any:
    """The subject of ``text`` for model ``name`` (InputError for text it cannot read)."""
    from models.lessons import explanations as ex

    model = load(name)
    if name in ("s2s-bahdanau", "tf-en-fr"):
        return ex.translation_subject(model, text, step)
    if name == "minilm-mlm":
        return ex.mlm_subject(model, text)
    return ex.llm_subject(model, text, 64)


@st.cache_data(max_entries=16, show_spinner=False)
@spinning("xai.computing")
def run(name: str, text: str, step: int, layer: int, head: int) -> Explanation:
    """Every method on (model, text, output step), with attention head (layer, head)."""
    from models.lessons.explanations import explain

    with _lock():
        return explain(subject(name, text, None if step < 0 else step), layer, head)


@st.cache_data(max_entries=16, show_spinner=False)
@spinning("xai.swap.computing")
def run_swap(text: str, step: int) -> AttentionSwap:
    """Jain & Wallace's test on the RNN seq2seq: output token ``step`` (−1: the middle one) of ``text``'s
    translation with its attention permuted and adversarially replaced."""
    from models.lessons.explanations import attention_swap

    with _lock():
        return attention_swap(subject(SWAP_MODEL, text, None if step < 0 else step))


#: BLEU points between learned and frozen uniform attention above which the page says attention mattered.
MATTERED_BLEU = 5.0


def uniform_comparison() -> str:
    """Wiegreffe & Pinter (2019, §3.1) on the lab's RNN: the learned-attention model and its twin trained
    with α frozen uniform (presets ``UNIFORM_TWIN``), their test BLEU and exact match from the shipped
    evaluation (``python -m models.evaluate --write``), in one paragraph; how to make them if missing."""
    from models.checkpoints import evaluation_row, read_config
    from models.training.presets import UNIFORM_TWIN

    learned, uniform = (evaluation_row(name) for name in UNIFORM_TWIN)
    if not (learned and uniform):
        return tr("xai.uniform.missing")
    n_train = read_config(UNIFORM_TWIN[1]).get("training", {}).get("n_train", 0)
    text = tr(
        "xai.uniform",
        n_train=n_train,
        n_test=uniform["n_test"],
        u_bleu=uniform["bleu"],
        u_em=uniform["exact_match"],
        l_bleu=learned["bleu"],
        l_em=learned["exact_match"],
    )
    verdict = "mattered" if learned["bleu"] - uniform["bleu"] >= MATTERED_BLEU else "little"
    return f"{text} {tr(f'xai.uniform.{verdict}')}"


@st.cache_data(max_entries=16, show_spinner=False)
def tokens_of(name: str, text: str) -> tuple[list[str], list[bool], list[str], int]:
    """(input tokens, removable flags, the output tokens, the explained output's index) without running
    any method: what the student guesses on."""
    from models.lessons.explanations import output_tokens_of

    with _lock():
        s = subject(name, text)
    return list(s.tokens), [bool(r) for r in s.removable], output_tokens_of(s), getattr(s, "step", 0)


def guess_score(guess: list[int], trace: Explanation) -> tuple[int, int, list[int]]:
    """(hits, k, occlusion's top k): the student's k picks against the k tokens whose removal costs the
    output most (occlusion)."""
    from models.lessons.explanations import top_order

    k = len(guess)
    top = top_order(trace.row("occlusion"), trace.removable)[:k]
    return len(set(guess) & set(top)), k, top


def method_name(method: str) -> str:
    return tr(f"xai.m.{method}")


def table_rows(trace: Explanation) -> pd.DataFrame:
    """One row per method: its ρ with occlusion and its AOPC (— where not defined)."""
    return pd.DataFrame(
        [
            {
                tr("xai.col.method"): method_name(m),
                tr("xai.col.rho"): "—" if np.isnan(r) else f"{float(r):.3f}",
                tr("xai.col.aopc"): "—" if np.isnan(a) else f"{float(a):.3f}",
            }
            for m, r, a in zip(trace.methods, trace.spearman, trace.aopc)
        ]
    )
