"""The XLNet page's cached model and runs, and its views (the order, the masks, the predictions,
XLNet against BERT; the two streams: ui.views.xlnet), each drawn from :mod:`models.inference.xlnet` traces by
:mod:`viz_core.xlnet` and :mod:`viz_core.transformer`."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import streamlit as st

from models.checkpoints import LoadedXLNet, load_xlnet, shipped
from ui.checkpoints import cached_loader, labelled, load_or_message
from ui.export import PLOT
from ui.i18n import current, figure_texts, spinning, tr
from ui.plot import chart
from ui.state import linked, many, url_check
from ui.tokens import input_error, md_escape
from viz_core.labels import safe_label
from viz_core.xlnet import TopK, order_figure, stream_mask_figure, topk_panels_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.inference.xlnet import XLNetComparison, XLNetTrace

MODEL = "xlnet-small"
MODES = ("identity", "random", "typed")
TOP_K = 5
PAGE_WIDTH = 1000  # px a full-width figure is planned for (1280 px, sidebar collapsed; a bit less when open)
STREAM_HEIGHT = 470  # px of each stream's heatmap: its top on the first screen, under the order
EXAMPLES = [  # the first is the default: every word of it is in the model's vocabulary
    "in the beginning god created the heavens and the earth",
    "New York is a city",
    "the lord is my shepherd",
    "he said to them , go into all the world",
    "and god said , let there be light",
]
CASE_SEARCH, CASE_CHUNK, CASE_SECONDS = 400, 25, 20.0  # held-out verses searched for a case, at most ~20 s


@cached_loader
@spinning("spin.model")
def _load(name: str) -> LoadedXLNet:
    return load_xlnet(name)


def model_choices() -> list[tuple[str, str]]:
    """(checkpoint, label): the shipped XLNet first, then the Training studio's saved XLNet runs that
    this session sees ("Your run: …", "Class run: …"), listed afresh on each call."""
    from ui.studio import user_choices  # the studio's training code loads only when runs are listed

    return _model_choices(current()) + user_choices("xlnet")


@st.cache_data(ttl=60)
def _model_choices(lang: str) -> list[tuple[str, str]]:
    """The shipped part of :func:`model_choices`, cached per language (``lang``: a cache key)."""
    return labelled(shipped("xlnet"))


def load_model(name: str = MODEL) -> LoadedXLNet | str:
    """The shared read-only model ``name`` (default xlnet-small), or a one-line message naming the bad
    file and the command."""
    return load_or_message(_load, name, " " + tr("xlnet.train_hint"))


def sentence(text: str, name: str = MODEL) -> tuple[list[str], list[bool]]:
    """(tokens, unknown flags) of the typed sentence for model ``name``; InputError when it cannot be read."""
    from models.inference.xlnet import prepare_sentence

    tokens, _, unknown = prepare_sentence(_load(name), text)
    return tokens, unknown


def order_of(mode: str, n: int, seed: int, typed: str) -> list[int]:
    """The factorisation order (0-based) the controls choose; InputError for a typed order that is
    not a permutation of 1 … n."""
    from models.inference.xlnet import identity_order, parse_order, random_order

    if mode == "random":
        return random_order(n, seed)
    if mode == "typed":
        return parse_order(typed, n)
    return identity_order(n)


@st.cache_data(max_entries=32, show_spinner=False)
@spinning("xlnet.reading")
def run_predict(text: str, order: tuple[int, ...], k_split: int, name: str = MODEL) -> XLNetTrace:
    from models.inference.xlnet import predict

    return predict(_load(name), text, list(order), k_split, TOP_K)


@st.cache_data(max_entries=32, show_spinner=False)
def run_compare(text: str, hidden: tuple[int, ...], name: str = MODEL) -> XLNetComparison:
    from models.inference.xlnet import independent_vs_sequential

    return independent_vs_sequential(_load(name), text, list(hidden), TOP_K)


@st.cache_data(max_entries=2, show_spinner=False)
@spinning("xlnet.case.searching")
def find_case(model: str) -> tuple[list[XLNetComparison], int]:
    """(a case, how many verses were searched): the first among the held-out verses (the chapters no
    model here trained on) where XLNet's sequential prediction of two adjacent hidden words gets the
    later one right and BERT-style independent prediction does not
    (:func:`models.inference.xlnet.dependency_cases`); a model that finds none stops after about
    CASE_SECONDS."""
    from corpora.lm_data import load_verses, split_verses
    from models.inference.xlnet import dependency_cases

    held = [v.tokens for v in split_verses(load_verses())["heldout"][:CASE_SEARCH]]
    start, searched = time.monotonic(), 0
    while searched < len(held) and time.monotonic() - start < CASE_SECONDS:
        found = dependency_cases(_load(model), held[searched : searched + CASE_CHUNK], limit=1, top_k=TOP_K)
        searched = min(len(held), searched + CASE_CHUNK)
        if found:
            return found, searched
    return [], searched


def order_view(trace: XLNetTrace, width: float = PAGE_WIDTH) -> go.Figure:
    """The order as numbered steps and arrows over the tokens, the predicted positions orange."""
    return order_figure(
        trace.tokens,
        trace.order,
        trace.predictions.positions,
        unknown=trace.unknown,
        title=tr("xlnet.fig.order", ll=trace.log_likelihood),
        context_name=tr("xlnet.fig.context"),
        predicted_name=tr("xlnet.fig.predicted"),
        step_hover=tr("xlnet.fig.step_hover"),
        width=width,
    )


def streams_caption(trace: XLNetTrace) -> str:
    """The order in numbers, what each stream knows, the predicted positions and the log-likelihood."""
    return tr(
        "xlnet.caption",
        order=" → ".join(str(p + 1) for p in trace.order),
        k=trace.k_split,
        n=len(trace.tokens),
        m=len(trace.predictions.positions),
        ll=trace.log_likelihood,
        targets=", ".join(f"{p + 1} {md_escape(trace.tokens[p])}" for p in trace.predictions.positions),
    )


def masks_section(trace: XLNetTrace) -> None:
    """The two masks the order induces (the trace's own), side by side, and what each allows."""
    left, right = st.columns(2)
    for col, stream in ((left, "content"), (right, "query")):
        allowed = trace.content_mask if stream == "content" else trace.query_mask
        chart(
            stream_mask_figure(
                allowed, trace.tokens, title=tr(f"xlnet.mask.{stream}"), texts=figure_texts(), width=PAGE_WIDTH / 2
            ),
            key=f"xlnet_mask_{stream}",
            config=PLOT,
            where=col,
        )
        col.markdown(tr(f"xlnet.mask.{stream}_explain"))


def predictions_section(trace: XLNetTrace) -> None:
    """The top-k at every predicted position, in the order they are predicted, the true word marked."""
    ranks = trace.ranks
    panels = [
        TopK(
            tr("xlnet.pred.panel", step=ranks[p] + 1, pos=p + 1, word=safe_label(trace.tokens[p], 20)),
            words,
            trace.predictions.top_probs[i],
            trace.tokens[p],
        )
        for i, (p, words) in enumerate(zip(trace.predictions.positions, trace.predictions.top_tokens))
    ]
    chart(
        topk_panels_figure(
            panels,
            3,
            title=tr("xlnet.pred.title", ll=trace.log_likelihood),
            true_name=tr("xlnet.pred.true"),
            other_name=tr("xlnet.pred.other"),
            width=PAGE_WIDTH,
        ),
        key="xlnet_predictions",
        config=PLOT,
    )
    st.markdown(tr("xlnet.pred.explain"))


def comparison_figure(case: XLNetComparison) -> go.Figure:
    """For each hidden word: BERT-style independent top-k (left) beside XLNet's sequential (right)."""
    panels: list[TopK] = []
    for i, p in enumerate(case.hidden):
        for key, preds in (("xlnet.bert.independent", case.independent), ("xlnet.bert.sequential", case.sequential)):
            panels.append(
                TopK(
                    tr(key, pos=p + 1, word=safe_label(case.tokens[p], 20)),
                    preds.top_tokens[i],
                    preds.top_probs[i],
                    case.tokens[p],
                )
            )
    return topk_panels_figure(
        panels, 2, true_name=tr("xlnet.pred.true"), other_name=tr("xlnet.pred.other"), width=PAGE_WIDTH
    )


def _show_case(text: str, hidden: list[int]) -> None:
    st.session_state["xlnet_text"] = text
    st.session_state["xlnet_hidden"] = hidden


def bert_section(text: str, tokens: list[str], name: str = MODEL) -> None:
    """The same sentence with chosen words hidden: BERT-style independent predictions beside model
    ``name``'s sequential ones, the paper's point in words, and a held-out case where the order changes
    a prediction."""
    from models.inference.common import InputError

    n = len(tokens)
    options = list(range(n))
    url_check(
        "xlnet_hidden",
        many(options, lambda i: _hidden_label(tokens, i)),
        tr("xlnet.bert.hidden"),
        tr("xlnet.url.hidden_rest"),
    )
    hidden = linked(
        st.pills,
        tr("xlnet.bert.hidden"),
        options,
        selection_mode="multi",
        default=[0, 1],
        key="xlnet_hidden",
        format_func=lambda i: _hidden_label(tokens, i),
        help=tr("xlnet.bert.help"),
    )
    st.markdown(tr("xlnet.bert.point"))
    try:
        case = run_compare(text, tuple(sorted(hidden)), name)
    except InputError as exc:
        st.info(input_error(exc))
    else:
        chart(comparison_figure(case), key="xlnet_compare", config=PLOT)
        changed = [md_escape(case.tokens[p]) for p, c in zip(case.hidden, case.changed) if c]
        st.caption(
            tr(
                "xlnet.bert.ll",
                ind=case.independent.log_likelihood,
                seq=case.sequential.log_likelihood,
                changed=", ".join(changed) if changed else tr("xlnet.bert.none_changed"),
            )
        )
    found, searched = find_case(name)
    if not found:
        st.info(tr("xlnet.case.none", n=searched))
        return
    case = found[0]
    a, b = case.hidden
    st.markdown(
        tr(
            "xlnet.case.found",
            text=md_escape(" ".join(case.tokens)),
            first=md_escape(case.tokens[a]),
            second=md_escape(case.tokens[b]),
            ind=md_escape(case.independent.top_tokens[1][0]),
            seq=md_escape(case.sequential.top_tokens[1][0]),
        )
    )
    if st.button(
        tr("xlnet.case.show"),
        key="xlnet_show_case",
        icon=":material/visibility:",
        on_click=_show_case,
        args=(" ".join(case.tokens), list(case.hidden)),
    ):
        st.rerun()  # the sentence above the tabs changed


def _hidden_label(tokens: list[str], i: int) -> str:
    return md_escape(f"{i + 1} {tokens[i]}") if 0 <= i < len(tokens) else str(i + 1)
