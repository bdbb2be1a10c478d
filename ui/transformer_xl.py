"""The Transformer-XL page's cached model and runs, and its sections (dependency picture, score
terms, evaluation, generation with memory), each drawn from :mod:`models.inference.transformer_xl`
traces by :mod:`viz_core.transformer_xl`."""

from __future__ import annotations

import numpy as np
import streamlit as st

from models.checkpoints import LoadedTXL, load_txl, shipped
from ui.checkpoints import cached_loader, label_of, labelled, load_or_message
from ui.export import PLOT
from ui.grid import head_name, pick
from ui.i18n import current, figure_texts, spinning, tr
from ui.plot import chart
from ui.state import at_most, checked, number_in, url_check
from ui.tokens import input_error, md_escape, token_strip
from viz_core.labels import safe_label
from viz_core.positional import pe_heatmap_figure
from viz_core.transformer import attention_row_bars
from viz_core.transformer_xl import (
    dependency_figure,
    memory_growth_figure,
    context_perplexity_figure,
    score_terms_figure,
    shift_figure,
)

MODEL = "xl-lm"
SPEED_CONTEXT, SPEED_TOKENS = 512, 20  # the length; the paper's 1,800× is at 3,800 tokens
EXAMPLES = [
    "In the beginning , God created the heavens and the earth . The earth was without form and empty . Darkness "
    "was on the surface of the deep and God's Spirit moved over the surface of the waters . God said , "
    '" Let there be light , " and there was light . God saw the light , and saw that it was good . God divided '
    "the light from the darkness .",
    "The Lord is my shepherd ; I shall lack nothing . He makes me lie down in green pastures . He leads me beside "
    "still waters . He restores my soul . He guides me in the paths of righteousness for his name's sake .",
]


@cached_loader
@spinning("spin.model")
def _load(name: str) -> LoadedTXL:
    return load_txl(name)


def model_choices() -> list[tuple[str, str]]:
    """(checkpoint, label): the shipped Transformer-XL first, then the Training studio's saved XL runs
    that this session sees ("Your run: …", "Class run: …"), listed afresh on each call."""
    from ui.studio import user_choices  # the studio's training code loads only when runs are listed

    return _model_choices(current()) + user_choices("transformer-xl")


@st.cache_data(ttl=60)
def _model_choices(lang: str) -> list[tuple[str, str]]:
    """The shipped part of :func:`model_choices`, cached per language (``lang``: a cache key)."""
    return labelled(shipped("transformer-xl"))


def load_model(name: str = MODEL) -> LoadedTXL | str:
    """The shared read-only model ``name`` (default xl-lm), or a one-line message naming the bad file
    and the command."""
    return load_or_message(_load, name, " " + tr("txl.train_hint"))


@st.cache_data(max_entries=32, show_spinner=False)
@spinning("txl.reading")
def run_read(text: str, seg_len: int, mem_len: int, name: str = MODEL):
    """XLReadTrace of model ``name``; raises InputError for unusable input."""
    from models.inference.transformer_xl import read_passage

    return read_passage(_load(name), text, seg_len, mem_len)


@st.cache_data(max_entries=64, show_spinner=False)
def run_terms(
    text: str, seg_len: int, mem_len: int, segment: int, layer: int, head: int, query: int, name: str = MODEL
):
    from models.inference.transformer_xl import explain_score

    return explain_score(_load(name), text, seg_len, mem_len, segment, layer, head, query)


@st.cache_data(max_entries=32, show_spinner=False)
@spinning("spin.generate")
def run_generation(
    prompt: str, max_new: int, mem_len: int, seg_len: int, temperature: float, top_k: int, seed: int, name: str = MODEL
):
    from models.inference.transformer_xl import generate_with_memory

    return generate_with_memory(_load(name), prompt, max_new, mem_len, seg_len, temperature, top_k or None, seed)


#: The page's figures span its column: 1280 × 720 with the sidebar open (measured 762 px); their tick
#: labels are planned for it, so that every token of a segment and its memory is labelled where it fits
#: (the segment's view: ui.views.transformer_xl.segment_view).
FIGURE_PX = 760


def dependency_section(n_tokens: int, seg_len: int, mem_len: int, n_layers: int, tokens: list[str]) -> None:
    """Figure 2 of the paper from the masks: vanilla segments beside XL, for a chosen token."""
    from models.inference.transformer_xl import dependency

    url_check("txl_dep_token", number_in(1, n_tokens), tr("txl.dep.token"), url=False)
    url_check("txl_dep_layers", number_in(1, 6), tr("txl.dep.layers"), url=False)
    left, right = st.columns(2)
    token = left.slider(tr("txl.dep.token"), 1, n_tokens, n_tokens, key="txl_dep_token") - 1
    layers = right.slider(
        tr("txl.dep.layers"), 1, 6, n_layers, key="txl_dep_layers", help=tr("txl.dep.layers_help", n=n_layers)
    )
    vanilla = dependency(n_tokens, seg_len, 0, layers, token)
    xl = dependency(n_tokens, seg_len, mem_len, layers, token)
    chart(
        dependency_figure(
            {tr("txl.dep.vanilla", L=seg_len): vanilla, tr("txl.dep.xl", L=seg_len, M=mem_len): xl},
            seg_len,
            token,
            tokens,
            figure_texts(),
            width=FIGURE_PX,
        ),
        key="txl_dep",
        config=PLOT,
    )
    st.caption(
        tr(
            "txl.dep.caption",
            token=md_escape(tokens[token]),
            v=int(vanilla[0].sum()),
            x=int(xl[0].sum()),
            first=int(np.argmax(xl[0])) + 1,
        )
    )


def terms_section(
    text: str, seg_len: int, mem_len: int, segment: int, n_tokens: int, layer: int, head: int, name: str = MODEL
) -> None:
    """(a)–(d) over the keys for one query of model ``name``, their sum against the model's score,
    R_{i−j}, and the shift."""
    from models.inference.transformer_xl import shift_demo

    if head < 0:
        st.info(tr("txl.terms.pick_head"))
        return
    url_check("txl_query", number_in(1, n_tokens), tr("txl.terms.query"), url=False)
    query = st.slider(tr("txl.terms.query"), 1, n_tokens, n_tokens, key="txl_query") - 1
    check = run_terms(text, seg_len, mem_len, segment, layer, head, query, name)
    rows = {
        tr("txl.terms.a"): check.a,
        tr("txl.terms.b"): check.b,
        tr("txl.terms.c"): check.c,
        tr("txl.terms.d"): check.d,
        tr("txl.terms.sum"): check.total,
        tr("txl.terms.model"): check.model_score,
    }
    title = tr("txl.terms.title", s=segment + 1, head=head_name(layer, head), token=safe_label(check.keys[-1], 30))
    chart(score_terms_figure(rows, check.keys, title, figure_texts(), width=FIGURE_PX), key="txl_terms", config=PLOT)
    st.caption(tr("txl.terms.check", diff=check.max_difference))
    st.latex(
        r"A^{\mathrm{rel}}_{i,j} = \underbrace{E_{x_i}^\top W_q^\top W_{k,E} E_{x_j}}_{(a)}"
        r" + \underbrace{E_{x_i}^\top W_q^\top W_{k,R} R_{i-j}}_{(b)}"
        r" + \underbrace{u^\top W_{k,E} E_{x_j}}_{(c)} + \underbrace{v^\top W_{k,R} R_{i-j}}_{(d)}"
    )
    left, right = st.columns([2, 3])
    with left:
        chart(
            pe_heatmap_figure(
                check.r, tr("txl.terms.r_title"), y_title="i − j", height=380, texts=figure_texts()
            ).update_yaxes(tickvals=list(range(len(check.distances))), ticktext=[str(int(d)) for d in check.distances]),
            key="txl_r",
            config=PLOT,
        )
    with right:
        st.markdown(tr("txl.shift.explain"))
    before, after, mask = shift_demo(4, 3)
    chart(
        shift_figure(before, after, mask, (tr("txl.shift.before"), tr("txl.shift.after")), figure_texts()),
        key="txl_shift",
        config=PLOT,
    )


def evaluation_section(loaded: LoadedTXL) -> None:
    """Held-out perplexity against memory length and against the vanilla LM's window, as
    `python -m models.evaluate --write` measured it (else the checkpoint's own record, without
    the vanilla LM)."""
    from models.checkpoints import load_results

    rows = ((load_results() or {}).get("families") or {}).get("transformer-xl", {}).get("models", [])
    row = next((r for r in rows if r.get("name") == loaded.name), None)
    evaluation = row or loaded.training.get("memory_evaluation")
    if not evaluation:
        st.info(tr("txl.eval.none"))
        return
    by_memory = evaluation["perplexity_by_memory"]
    seg, mem = evaluation["seg_len"], str(loaded.config.mem_len)
    vanilla = (row or {}).get("vanilla")
    if vanilla:  # its label in the reader's language
        vanilla = {**vanilla, "label": label_of(vanilla.get("name", ""), vanilla["label"])}
    windows = vanilla["perplexity_by_window"] if vanilla else None
    chart(
        context_perplexity_figure(
            by_memory,
            seg,
            windows,
            xl_name=tr("txl.eval.xl", L=seg),
            vanilla_name=tr("txl.eval.vanilla", name=vanilla["label"]) if vanilla else "",
            title=tr("txl.eval.title"),
            x_title=tr("txl.eval.x"),
            y_title=tr("txl.eval.y"),
        ),
        key="txl_eval",
        config=PLOT,
    )
    gain = 1 - by_memory[mem] / by_memory["0"]
    st.markdown(
        tr(
            "txl.eval.caption",
            L=seg,
            M=mem,
            with_mem=by_memory[mem],
            without=by_memory["0"],
            gain=gain,
            tokens=evaluation.get("n_tokens", evaluation.get("tokens")),
            steps=loaded.training.get("steps", "?"),
            seconds=loaded.training.get("seconds", "?"),
        )
    )
    if windows:
        best_c = max(windows, key=int)
        st.markdown(
            tr(
                "txl.eval.vs_vanilla",
                name=vanilla["label"],
                C=best_c,
                vanilla=windows[best_c],
                context=seg + int(mem),
                with_mem=by_memory[mem],
                xl_epochs=row.get("epochs", "?"),
                vanilla_epochs=vanilla.get("epochs", "?"),
            )
        )
    else:
        st.caption(tr("txl.eval.no_vanilla"))
    if st.button(tr("txl.speed.run"), key="txl_speed_run", help=tr("txl.speed.help", context=SPEED_CONTEXT)):
        from models.inference.transformer_xl import generation_speed

        with st.spinner(tr("txl.speed.running")):
            st.session_state["txl_speed"] = generation_speed(loaded.model, SPEED_CONTEXT, SPEED_TOKENS)
    if "txl_speed" in st.session_state:
        cached, recomputed = st.session_state["txl_speed"]
        st.markdown(
            tr(
                "txl.speed.result",
                context=SPEED_CONTEXT,
                cached=cached,
                recomputed=recomputed,
                ratio=recomputed / cached,
                n=SPEED_TOKENS,
            )
        )
    st.caption(tr("txl.eval.bench"))


def generation_section(seg_len: int, mem_len: int, layer: int, head: int, name: str = MODEL) -> None:
    """A prompt continued token by token by model ``name`` with the memory carried over; the chosen
    head's attention (or the average over heads) of each new token over [memory | segment]."""
    from models.inference.common import InputError

    url_check("txl_prompt", at_most(2_000), tr("txl.gen.prompt"))
    url_check("txl_temperature", number_in(0.0, 2.0), tr("txl.gen.temperature"))
    url_check("txl_top_k", number_in(0, 100), "top-k")
    prompt_col, temp_col, k_col = st.columns([4, 2, 2], vertical_alignment="bottom")
    prompt = prompt_col.text_input(
        tr("txl.gen.prompt"), "In the beginning God created", key="txl_prompt", max_chars=2_000, bind="query-params"
    )
    temperature = temp_col.slider(
        tr("txl.gen.temperature"), 0.0, 2.0, 0.8, 0.1, key="txl_temperature", bind="query-params"
    )
    top_k = k_col.slider("top-k", 0, 100, 20, key="txl_top_k", bind="query-params", help=tr("txl.gen.top_k_help"))
    try:
        trace = run_generation(prompt, 30, mem_len, seg_len, float(temperature), int(top_k), 0, name)
    except InputError as exc:
        st.warning(input_error(exc))
        return
    n = len(trace.steps)
    step = checked(st.slider, tr("txl.gen.step"), 1, n, n, key="txl_gen_step") - 1
    s = trace.steps[step]
    token_strip(
        [*trace.tokens[: s.position], s.token],
        highlight=s.position,
        caption=tr("txl.gen.caption", step=step + 1, n=n, memory=s.memory_len, M=mem_len),
    )
    left, right = st.columns([2, 3])
    with left:
        chart(
            memory_growth_figure(
                [x.memory_len for x in trace.steps], step, tr("txl.gen.growth"), tr("txl.gen.x"), tr("txl.gen.y")
            ),
            key="txl_growth",
            config=PLOT,
        )
    with right:
        keys = trace.tokens[s.position - s.attention.shape[-1] : s.position]
        chart(
            attention_row_bars(
                pick(s.attention[:, :, None, :], layer, head)[0],
                keys,
                title=tr("txl.gen.row", token=safe_label(s.token, 30), head=head_name(layer, head)),
                texts=figure_texts(),
            ),
            key="txl_gen_row",
            config=PLOT,
        )
    tops = ", ".join(f"{md_escape(tok)} {p:.0%}" for tok, p in zip(s.top_tokens, s.top_probs))
    st.caption(tr("txl.gen.candidates", tops=tops))
