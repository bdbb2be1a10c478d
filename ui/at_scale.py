"""The Attention-at-scale page's cached runs: one head's Q, K, V (the lab's tf-lm, or SmolLM2 when it is
converted), FlashAttention's tiled pass over it (:mod:`models.lessons.at_scale`) with click-to-explain on the
matrix (ui.explain), the measured tables the benches saved in bench/baselines (cost against length, windows and
sinks on SmolLM2, softmax against linear attention trained here) and generation timed with and without the KV
cache."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import streamlit as st

from ui.i18n import spinning

if TYPE_CHECKING:
    from models.inference.traces import CellExplanation
    from models.lessons.at_scale import HeadQKV, TiledResult

LAB_MODEL, LLM_MODEL = "tf-lm", "smollm2"
LLM_TOKENS = 128  # SmolLM2's input cap on the page (the figure is n × n: 128² cells at most)
BLOCKS = (4, 8, 16, 32)
TEXT_LIMIT = 2_000
EXAMPLE = (
    "in the beginning god created the heavens and the earth . and the earth was without form , and void ; "
    "and darkness was upon the face of the deep . and god said , let there be light : and there was light ."
)
BASELINES = Path(__file__).resolve().parent.parent / "bench" / "baselines"
COST_FILE = BASELINES / "attention_cost.json"
WINDOW_FILE = BASELINES / "window_sinks.json"
LINEAR_FILE = BASELINES / "linear_attention.json"
PAGE_WIDTH = 1000
FIGURE_HEIGHT = 330  # px of the tile figure: all of it, tick labels too, on the first screen at 1280 × 720


def llm_ready() -> bool:
    """Whether SmolLM2's package is installed and its converted copy is there (nothing is loaded)."""
    from models.inference.llm import LLMError, gguf_path, is_converted

    try:
        gguf_path()
    except LLMError:
        return False
    return is_converted()


def model_choices() -> list[str]:
    """tf-lm (shipped) first, then SmolLM2 where it is converted."""
    return [LAB_MODEL] + ([LLM_MODEL] if llm_ready() else [])


def model_label(name: str) -> str:
    return "SmolLM2-135M" if name == LLM_MODEL else name


def shape_of(name: str) -> tuple[int, int, int]:
    """(layers, query heads, max tokens) of model ``name``, without running it."""
    if name == LLM_MODEL:
        return 30, 9, LLM_TOKENS
    from ui.transformer import load_model

    loaded = load_model(name)
    if isinstance(loaded, str):
        raise RuntimeError(loaded)
    c = loaded.config
    return c.num_decoder_layers, c.n_heads, c.max_len


def page_ids(name: str, text: str) -> tuple[list[int], list[str], int]:
    """(the ids the head reads, their tokens, tokens cut) of ``text`` for model ``name``: SmolLM2's own tokens
    (its first LLM_TOKENS), or <s> and tf-lm's words (its max_len)."""
    if name == LLM_MODEL:
        from ui.llm import shared_llm

        llm = shared_llm()
        ids = llm.tokenizer(text, add_special_tokens=False)["input_ids"]
        return ids[:LLM_TOKENS], llm.token_text(ids[:LLM_TOKENS]), max(0, len(ids) - LLM_TOKENS)
    from corpora.text import tokenize
    from models.text.vocab import SOS, UNK

    loaded = _lab_model(name)
    words = tokenize(text)
    room = loaded.config.max_len - 1
    cut = max(0, len(words) - room)
    words = words[:room]
    return [loaded.tgt_stoi[SOS]] + [loaded.tgt_stoi.get(w, loaded.tgt_stoi[UNK]) for w in words], [SOS] + words, cut


def _lab_model(name: str) -> Any:
    """A shipped Transformer of the lab (the pages' shared, cached copy); its one-line message as an error."""
    from ui.transformer import load_model

    loaded = load_model(name)
    if isinstance(loaded, str):
        raise RuntimeError(loaded)
    return loaded


@st.cache_data(max_entries=16, show_spinner=False)
@spinning("spin.model")
def head_qkv(name: str, text: str, layer: int, head: int) -> tuple[HeadQKV, int]:
    """(one head's Q, K, V and the model's own weights and output, tokens cut) for ``text``."""
    from models.lessons.at_scale import lab_head_qkv, llm_head_qkv

    ids, tokens, cut = page_ids(name, text)
    if name == LLM_MODEL:
        from ui.llm import shared_llm

        return llm_head_qkv(shared_llm(), ids, [layer], [head])[0], cut
    return lab_head_qkv(_lab_model(name).model, ids, layer, head, tokens, name), cut


def explained_tiles(fig: Any, run: FlashRun, name: str, text: str) -> None:
    """The tile figure with click-to-explain on its left panel (ui.explain): a clicked cell of P derived from
    the model itself (score, scaling, mask, softmax over its row), checked against the drawn weight."""
    from ui.cells import head_cell, real_cells
    from ui.explain import explained_chart

    ids = tuple(int(i) for i in page_ids(name, text)[0])
    layer, head = run.head.layer, run.head.head

    def explain(q: int, k: int) -> CellExplanation:
        if name == LLM_MODEL:
            from ui.bert import DECODER_KEY

            return real_cells(DECODER_KEY, ids, (0,) * len(ids), layer, (head,), q, k)[0]
        return head_cell(name, "lm", layer, head, q, k, None, ids)

    explained_chart(
        fig,
        "scale_tiles",
        run.weights,
        explain,
        query_tokens=run.head.tokens,
        key_tokens=run.head.tokens,
        context=(name, text, layer, head),
    )


@dataclass(frozen=True)
class FlashRun:
    """The head, its exact attention (P, O), the tiled pass with the steps of one query block, and the
    tokens the input lost to the cap."""

    head: HeadQKV
    weights: np.ndarray
    exact: np.ndarray
    tiled: TiledResult
    block: int
    query_block: int
    cut: int

    @property
    def n(self) -> int:
        return len(self.head.tokens)

    @property
    def n_blocks(self) -> int:
        return -(-self.n // self.block)

    @property
    def diff(self) -> float:
        return float(np.abs(self.tiled.output - self.exact).max())

    @property
    def model_diff(self) -> float:
        return float(np.abs(self.head.model_output - self.exact).max())


@st.cache_data(max_entries=32, show_spinner=False)
def flash_run(name: str, text: str, layer: int, head: int, block: int, query_block: int) -> FlashRun:
    """FlashAttention's tiled pass over one head (:func:`models.lessons.at_scale.tiled_attention`), the
    steps of ``query_block`` kept, beside exact softmax(QKᵀ/√d + M)V: computed once per input."""
    from models.lessons.at_scale import exact_attention, tiled_attention

    qkv, cut = head_qkv(name, text, layer, head)
    exact, weights = exact_attention(qkv.q, qkv.k, qkv.v)
    n_blocks = -(-len(qkv.tokens) // block)
    query_block = min(query_block, n_blocks - 1)
    tiled = tiled_attention(qkv.q, qkv.k, qkv.v, block, record=query_block)
    return FlashRun(qkv, weights, exact, tiled, block, query_block, cut)


def _baseline(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def cost_table() -> dict | None:
    """The measured cost table (bench.attention_cost --save), or None when it was never saved."""
    return _baseline(COST_FILE)


def window_table() -> dict | None:
    """The measured window / sink perplexities (bench.window_sinks --save), or None."""
    return _baseline(WINDOW_FILE)


def linear_table() -> dict | None:
    """The trained softmax / linear comparison (bench.linear_attention --save), or None."""
    return _baseline(LINEAR_FILE)


@st.cache_data(max_entries=4, show_spinner=False)
@spinning("spin.model")
def generation_times(prompt_tokens: int, new_tokens: int) -> tuple[float, float]:
    """(ms per token with the KV cache, without) of SmolLM2 generating ``new_tokens`` greedily after
    ``prompt_tokens`` tokens, measured here (:func:`models.lessons.at_scale.time_generation`)."""
    from models.lessons.at_scale import time_generation
    from ui.llm import shared_llm

    return time_generation(shared_llm().model, prompt_tokens, new_tokens)


# --------------------------------------------------------------------------------------
# The page's tabs
# --------------------------------------------------------------------------------------


def rows_section(run: FlashRun, step: int) -> None:
    """m before and after, the correction exp(m_old − m_new) and ℓ after the tile, for each query row."""
    import pandas as pd

    from ui.i18n import tr
    from ui.table import table

    s = run.tiled.steps[step]
    q0 = run.query_block * run.block
    frame = pd.DataFrame(
        {
            tr("scale.col.token"): [f"{q0 + i + 1} {run.head.tokens[q0 + i]}" for i in range(len(s.m_new))],
            tr("scale.col.m_old"): [f"{x:.3f}" for x in s.m_old],
            tr("scale.col.m_new"): [f"{x:.3f}" for x in s.m_new],
            tr("scale.col.factor"): [f"{x:.4f}" for x in s.correction],
            tr("scale.col.l"): [f"{x:.4f}" for x in s.l_new],
        }
    )
    st.caption(tr("scale.rows.table"))
    table(frame, key="scale_rows")


def rebuild_section(run: FlashRun) -> None:
    """Row i of P rebuilt from q_i, K and the saved log-sum-exp L_i, against the stored row."""
    from models.lessons.at_scale import rebuild_row
    from ui.export import PLOT
    from ui.i18n import tr
    from ui.plot import chart
    from ui.state import linked
    from viz_core.at_scale import rebuild_figure

    st.markdown(tr("scale.rebuild.explain"))
    rows = list(range(run.n))
    row = linked(
        st.selectbox,
        tr("scale.rebuild.row"),
        rows,
        index=run.n - 1,
        key="scale_row",
        format_func=lambda i: f"{i + 1} {run.head.tokens[i]}",
    )
    rebuilt = rebuild_row(run.head.q[row], run.head.k, float(run.tiled.lse[row]), row)
    diff = float(np.abs(rebuilt - run.weights[row]).max())
    chart(
        rebuild_figure(
            run.weights[row],
            rebuilt,
            run.head.tokens,
            title=tr("scale.rebuild.fig", row=row + 1, token=run.head.tokens[row], diff=diff),
            exact_name=tr("scale.rebuild.stored"),
            rebuilt_name=tr("scale.rebuild.rebuilt"),
            x_title=tr("scale.fig.x"),
            width=PAGE_WIDTH,
        ),
        key="scale_rebuild",
        config=PLOT,
    )


CACHE_LENGTHS = (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def cache_section() -> None:
    """The KV cache per token and at a chosen context length for MHA, GQA and MQA, drawn against length;
    generation time with and without the cache measured on the spot (SmolLM2)."""
    import pandas as pd

    from models.lessons.at_scale import cache_shapes
    from ui.export import PLOT
    from ui.i18n import tr
    from ui.plot import chart
    from ui.state import linked
    from ui.table import table
    from viz_core.at_scale import cache_figure

    st.markdown(tr("scale.cache.explain"))
    left, right = st.columns(2)
    context = int(linked(left.select_slider, tr("scale.cache.context"), CACHE_LENGTHS, value=8192, key="scale_context"))
    size = int(
        linked(
            right.selectbox,
            tr("scale.cache.bytes"),
            (2, 4),
            key="scale_bytes",
            format_func=lambda b: {2: "bfloat16 (2)", 4: "float32 (4)"}[b],
        )
    )
    shapes = cache_shapes()
    names = [f"{s.name} ({s.sharing()} {s.q_heads}:{s.kv_heads})" for s in shapes]
    mib = {name: [s.bytes_per_token(size) * n / 2**20 for n in CACHE_LENGTHS] for name, s in zip(names, shapes)}
    chart(
        cache_figure(
            CACHE_LENGTHS,
            mib,
            context,
            title=tr("scale.cache.fig"),
            x_title=tr("scale.cache.x"),
            y_title=tr("scale.cache.y"),
            chosen_name=tr("scale.cache.chosen"),
            width=PAGE_WIDTH,
        ),
        key="scale_cache",
        config=PLOT,
    )
    table(
        pd.DataFrame(
            {
                tr("scale.cache.col.layout"): [s.name for s in shapes],
                tr("scale.cache.col.kind"): [s.sharing() for s in shapes],
                tr("scale.cache.col.heads"): [f"{s.q_heads} : {s.kv_heads}" for s in shapes],
                tr("scale.cache.col.per_token"): [f"{s.bytes_per_token(size) / 1024:.1f}" for s in shapes],
                tr("scale.cache.col.total"): [f"{s.bytes_per_token(size) * context / 2**20:.1f}" for s in shapes],
            }
        ),
        key="scale_cache_table",
    )
    if llm_ready():
        prompt, new = 128, 16
        if st.button(
            tr("scale.cache.measure"), key="scale_measure", help=tr("scale.cache.measure_help", prompt=prompt, new=new)
        ):
            with_cache, without = generation_times(prompt, new)
            st.info(
                tr(
                    "scale.cache.measured",
                    model="SmolLM2-135M",
                    with_cache=with_cache,
                    without=without,
                    new=new,
                    prompt=prompt,
                )
            )


def window_section(n: int) -> None:
    """The masks of full attention, a sliding window and a window with sink tokens over ``n`` tokens, and
    what each keeps in its cache."""
    from models.lessons.at_scale import allowed_mask, window_cache_tokens
    from ui.export import PLOT
    from ui.i18n import tr
    from ui.plot import chart
    from ui.state import linked
    from viz_core.at_scale import masks_figure

    st.markdown(tr("scale.window.explain"))
    left, right = st.columns(2)
    n = max(8, min(n, 48))
    w = int(linked(left.slider, tr("scale.window.w"), 2, n, min(8, n), key="scale_window"))
    sinks = int(linked(right.slider, tr("scale.window.sinks"), 0, 8, 4, key="scale_sinks"))
    masks = [allowed_mask(n, n), allowed_mask(n, n, w), allowed_mask(n, n, w, sinks)]
    titles = [
        tr("scale.window.full", n=window_cache_tokens(n, None)),
        tr("scale.window.window", w=w, c=window_cache_tokens(n, w)),
        tr("scale.window.sink", w=w, s=sinks, c=window_cache_tokens(n, w, sinks)),
    ]
    chart(
        masks_figure(
            masks,
            titles,
            title=tr("scale.window.fig", n=n),
            x_title=tr("scale.fig.x"),
            y_title=tr("scale.fig.y"),
            width=PAGE_WIDTH,
        ),
        key="scale_masks",
        config=PLOT,
    )
    window_measured()


def window_measured() -> None:
    """The perplexity of a long text under full attention, windows, and windows with sinks, as
    bench/window_sinks measured it on SmolLM2, with what the KV cache holds in each case."""
    import pandas as pd

    from models.lessons.at_scale import SMOLLM2
    from ui.export import PLOT
    from ui.i18n import tr
    from ui.plot import chart
    from ui.table import table
    from viz_core.at_scale import window_ppl_figure

    data = window_table()
    if data is None:
        st.info(tr("scale.window.missing"))
        return
    windows, sinks, ppl = data["windows"], data["sinks"], data["perplexity"]
    full = ppl[windows.index(None)]
    sizes = sorted({w for w in windows if w is not None})
    alone = [ppl[i] for w in sizes for i in range(len(windows)) if windows[i] == w and sinks[i] == 0]
    sunk = [ppl[i] for w in sizes for i in range(len(windows)) if windows[i] == w and sinks[i] > 0]
    k = max(sinks)
    chart(
        window_ppl_figure(
            sizes,
            alone,
            sunk,
            full,
            title=tr("scale.window.ppl_fig", model=data["model"], n=data["n_tokens"], start=data["scored_from"]),
            alone_name=tr("scale.window.alone"),
            sinks_name=tr("scale.window.with_sinks", k=k),
            full_name=tr("scale.window.full_line"),
            x_title=tr("scale.window.x"),
            y_title=tr("scale.window.y"),
            width=PAGE_WIDTH,
        ),
        key="scale_window_ppl",
        config=PLOT,
    )
    per_token = SMOLLM2.bytes_per_token(4)
    table(
        pd.DataFrame(
            {
                tr("scale.window.col.setting"): [
                    tr("scale.window.full_row")
                    if w is None
                    else tr("scale.window.sink_row", w=w, s=s)
                    if s
                    else tr("scale.window.window_row", w=w)
                    for w, s in zip(windows, sinks)
                ],
                tr("scale.window.col.cache"): [
                    tr("scale.window.cache_value", c=c, mib=c * per_token / 2**20) for c in data["cache_tokens"]
                ],
                tr("scale.window.col.ppl"): [f"{v:.3f}" for v in ppl],
                tr("scale.window.col.ratio"): [f"×{v / full:.2f}" for v in ppl],
                tr("scale.window.col.all"): [f"{v:.3f}" for v in data["perplexity_all"]],
            }
        ),
        key="scale_window_table",
    )
    st.caption(tr("scale.window.source", n=data["n_tokens"], start=data["scored_from"]))


def linear_section(run: FlashRun) -> None:
    """This head's Q, K, V through linear attention in its parallel and its recurrent form."""
    from models.lessons.at_scale import linear_parallel, linear_recurrent
    from ui.i18n import tr

    st.markdown(tr("scale.linear.explain"))
    q, k, v = run.head.q, run.head.k, run.head.v
    parallel = linear_parallel(q, k, v)
    recurrent, state = linear_recurrent(q, k, v)
    st.info(
        tr(
            "scale.linear.result",
            n=run.n,
            diff=float(np.abs(parallel - recurrent).max()),
            state=state.size + q.shape[1],
            matrix=run.n * run.n,
        )
    )
    linear_trained()


def linear_trained() -> None:
    """Two small decoder LMs trained here, softmax and linear attention (bench/linear_attention): held-out
    perplexity, and time and state against length."""
    import pandas as pd

    from ui.export import PLOT
    from ui.i18n import tr
    from ui.plot import chart
    from ui.table import table
    from viz_core.at_scale import length_figure

    st.markdown(tr("scale.linear.trained"))
    data = linear_table()
    if data is None:
        st.info(tr("scale.linear.missing"))
        return
    kinds = data["kinds"]
    name = {k: tr(f"scale.linear.{k}") for k in kinds}
    table(
        pd.DataFrame(
            {
                tr("scale.linear.col.kind"): [name[k] for k in kinds],
                tr("scale.linear.col.ppl"): [f"{v:.1f}" for v in data["heldout_ppl"]],
                tr("scale.linear.col.loss"): [f"{v:.3f}" for v in data["final_loss"]],
                tr("scale.linear.col.seconds"): [f"{v:.0f}" for v in data["seconds"]],
            }
        ),
        key="scale_linear_table",
    )
    cfg, settings = data["config"], data["settings"]
    st.caption(
        tr(
            "scale.linear.setup",
            params=data["parameters"],
            layers=cfg["n_layers"],
            d=cfg["d_model"],
            heads=cfg["n_heads"],
            steps=settings["steps"],
            batch=settings["batch_size"],
            context=cfg["context"],
            vocab=settings["vocab_cap"],
            diff=data["recurrent_vs_parallel"],
        )
    )
    cost = data["cost"]
    panels = [
        (
            tr("scale.linear.fwd"),
            tr("scale.cost.time_y"),
            {name[k]: [s * 1e3 for s in cost["forward_seconds"][k]] for k in kinds},
        ),
        (
            tr("scale.linear.step"),
            tr("scale.cost.time_y"),
            {name[k]: [s * 1e3 for s in cost["step_seconds"][k]] for k in kinds},
        ),
        (
            tr("scale.linear.state"),
            tr("scale.linear.kib"),
            {name[k]: [b / 1024 for b in cost["state_bytes"][k]] for k in kinds},
        ),
    ]
    chart(
        length_figure(
            cost["lengths"], panels, title=tr("scale.linear.fig"), x_title=tr("scale.cost.x"), width=PAGE_WIDTH
        ),
        key="scale_linear_cost",
        config=PLOT,
    )
    st.caption(tr("scale.linear.cost_source", repeats=cost["repeats"], threads=cost["threads"]))


def cost_section() -> None:
    """The measured cost table on one log–log figure (time, peak memory), the fitted exponents in the legend."""
    from models.lessons.at_scale import fit_exponent
    from ui.export import PLOT
    from ui.i18n import tr
    from ui.plot import chart
    from viz_core.at_scale import cost_figure

    st.markdown(tr("scale.cost.explain"))
    data = cost_table()
    if data is None:
        st.info(tr("scale.cost.missing"))
        return
    lengths = data["lengths"]
    names = {
        m: tr(
            "scale.cost.method", method=tr(f"scale.cost.{m}"), b=fit_exponent(lengths, data["seconds"][i], 1024, 8192)
        )
        for i, m in enumerate(data["methods"])
    }
    seconds = {names[m]: data["seconds"][i] for i, m in enumerate(data["methods"])}
    peaks = {names[m]: data["peak_bytes"][i] for i, m in enumerate(data["methods"])}
    chart(
        cost_figure(
            lengths,
            seconds,
            peaks,
            [4 * n * n for n in lengths],
            title=tr("scale.cost.fig"),
            time_title=tr("scale.cost.time"),
            memory_title=tr("scale.cost.memory"),
            x_title=tr("scale.cost.x"),
            time_y=tr("scale.cost.time_y"),
            memory_y=tr("scale.cost.memory_y"),
            matrix_name=tr("scale.cost.matrix"),
            width=PAGE_WIDTH,
        ),
        key="scale_cost",
        config=PLOT,
    )
    st.caption(tr("scale.cost.source", device=data.get("device", "cpu"), repeats=data.get("repeats", 1)))
