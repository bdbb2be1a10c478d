"""The Transformer block page's cached runs (:mod:`models.lessons.block`, :mod:`models.lessons.training_ideas`)
and its tabs: what each sub-layer adds, post-LN against pre-LN at initialisation, LayerNorm against BatchNorm,
label smoothing, and the warm-up schedule with Adam. The architecture view and one box's tensors are
ui.views.block."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from ui.bert import load_small_bert
from ui.export import PLOT, export_menu
from ui.i18n import spinning, tr
from ui.plot import chart, kept_figure
from ui.state import topic_name
from ui.tokens import md_escape
from ui.transformer import load_model as load_transformer_model
from ui.views.base import PAGE_WIDTH
from viz_core.block import (
    changes_figure,
    gradient_figure,
    norm_shift_figure,
    parts,
    schedule_figure,
    smoothing_figure,
    training_curves_figure,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from models.lessons.block import BlockTrace, GradientNorms
    from models.lessons.training_ideas import NormComparison

ARCHITECTURES = ("encoder-decoder", "decoder-only", "encoder-only")
MODELS = {"encoder-decoder": "tf-en-fr", "decoder-only": "tf-lm", "encoder-only": "bert-small"}
EXAMPLES = {
    "encoder-decoder": "The red car is in the small house.",
    "decoder-only": "In the beginning God created",
    "encoder-only": "In the beginning God created the heavens and the earth.",
}
BATCH = ("In the beginning God created the heavens and the earth", "Jesus wept", "The lord is my shepherd")
SMOOTH_WORDS = ("<pad>", "the", "cat", "sat", "down")  # the course's example: 4 words and the padding entry
SMOOTH_TARGET, EPSILON = 2, 0.1
ADAM_THETA = (1.0, -0.5, 0.2)
ADAM_GRADS = ((0.5, -0.02, 3.0), (0.4, 0.01, -1.0), (0.1, -0.03, 2.0))
ADAM_LR = 0.01
D_PAPER, WARMUP_PAPER = 512, 4000  # the base model of §5.3
TABS = ("block.tab.changes", "block.tab.norms", "block.tab.batch", "block.tab.smoothing", "block.tab.schedule")


def load(architecture: str):
    """The architecture's shipped model (shared, read-only), or a one-line message."""
    name = MODELS[architecture]
    return load_small_bert(name) if architecture == "encoder-only" else load_transformer_model(name)


@st.cache_data(max_entries=32, show_spinner=False)
@spinning("spin.compute")
def run_block(architecture: str, text: str) -> BlockTrace:
    """The sentence through the architecture's model, every block's tensors recorded; InputError for unusable text."""
    from models.lessons.block import block_trace

    loaded = load(architecture)
    if isinstance(loaded, str):
        raise RuntimeError(loaded)
    return block_trace(loaded, text)


@st.cache_data(max_entries=1, show_spinner=False)
@spinning("block.grad.computing")
def gradient_norms() -> GradientNorms:
    from models.lessons.block import init_gradient_norms

    return init_gradient_norms(seeds=3)


@st.cache_data(max_entries=1, show_spinner=False)
def batch_comparison() -> tuple[NormComparison, list[str]]:
    """BatchNorm against LayerNorm on :data:`BATCH` through tf-lm's embedding layer, and sentence 1's tokens."""
    from corpora.text import tokenize
    from models.lessons.training_ideas import embedded_batch, norm_comparison

    loaded = load("decoder-only")
    if isinstance(loaded, str):
        raise RuntimeError(loaded)
    unk = loaded.tgt_stoi["<unk>"]
    rows = [[loaded.config.bos_id] + [loaded.tgt_stoi.get(w, unk) for w in tokenize(s)] for s in BATCH]
    x, real = embedded_batch(loaded.language_model.embed, rows, loaded.config.pad_id)
    return norm_comparison(x, real), ["<s>"] + tokenize(BATCH[0])


#: Held-out exact match by which pre-LN must lead both post-LN runs for the page to say it learned first.
PRE_LN_AHEAD = 0.2


def norm_runs() -> list[dict] | None:
    """The shipped post-LN / pre-LN trainings (presets ``NORM_RUNS``): per run its settings, loss curve
    (the checkpoint's ``loss_curve``) and held-out exact match (``python -m models.evaluate --write``); None
    when one is missing."""
    from models.checkpoints import CheckpointError, evaluation_row, read_config
    from models.training.presets import NORM_RUNS

    runs = []
    for name in NORM_RUNS:
        try:
            config = read_config(name)
        except CheckpointError:
            return None
        training, row = config.get("training", {}), evaluation_row(name)
        if not row or not training.get("loss_curve"):
            return None
        runs.append(
            {
                "name": name,
                "norm_first": bool(config["model"]["config"]["norm_first"]),
                "layers": int(config["model"]["config"]["num_encoder_layers"]),
                "settings": training.get("settings", {}),
                "curve": training["loss_curve"],
                "exact_match": row["exact_match"],
            }
        )
    return runs


def norm_runs_view(width: float = PAGE_WIDTH) -> tuple[go.Figure, list[dict]] | None:
    """The norms tab's training curves: the loss of post-LN without and with warm-up and of pre-LN, every
    :data:`~models.training.loop.CURVE_EVERY` steps (Xiong et al. 2020), and the runs drawn; None when a
    shipped run is missing."""
    from models.training.loop import CURVE_EVERY

    runs = norm_runs()
    if runs is None:
        return None
    post, post_w, _ = runs
    names = [
        tr("block.curves.run.post"),
        tr("block.curves.run.post_warmup", w=post_w["settings"].get("warmup", 0)),
        tr("block.curves.run.pre"),
    ]
    figure = training_curves_figure(
        {name: run["curve"] for name, run in zip(names, runs)},
        CURVE_EVERY,
        title=tr("block.curves.title", n=post["layers"]),
        x_title=tr("block.curves.x"),
        y_title=tr("block.curves.y", every=CURVE_EVERY),
        width=width,
    )
    return figure, runs


def norm_runs_section() -> go.Figure | None:
    """Three trainings of one Transformer: post-LN without and with warm-up, pre-LN without (Xiong et al. 2020);
    returns the figure drawn (None where the runs are missing)."""
    view = norm_runs_view()
    if view is None:
        st.info(tr("block.curves.missing"))
        return None
    figure, runs = view
    post, post_w, pre = runs
    chart(figure, key="block_norm_runs", config=PLOT)
    st.markdown(
        tr(
            "block.curves.explain",
            n=post["layers"],
            lr=post["settings"].get("lr", 0.0),
            steps=post["settings"].get("steps", 0),
            w=post_w["settings"].get("warmup", 0),
            post=post["exact_match"],
            post_w=post_w["exact_match"],
            pre=pre["exact_match"],
        )
    )
    apart = pre["exact_match"] - max(post["exact_match"], post_w["exact_match"]) >= PRE_LN_AHEAD
    st.markdown(tr("block.curves.pre_first" if apart else "block.curves.close"))
    return figure


def changes_view(trace: BlockTrace, layer: int, width: float = PAGE_WIDTH) -> list[go.Figure]:
    """The changes tab: ‖Sublayer(x)‖/‖x‖ per block, one figure per stack (side by side in ``width``), the
    chosen ``layer`` marked."""
    names = {k: tr(f"block.part.{k}") for k in ("self", "masked_self", "cross", "ffn")}
    figures = []
    for stack in trace.stacks:
        s = "enc" if stack.name == "encoder" else "dec"
        figures.append(
            changes_figure(
                stack.changes(),
                parts(trace.architecture, s),
                names,
                min(layer, len(stack.layers) - 1),
                title=tr("block.changes.title", stack=tr(f"block.stack.{s}")),
                x_title=tr("block.changes.x"),
                y_title=tr("block.changes.y"),
                layer_label=tr("block.layer_option"),
                width=width / len(trace.stacks) - 16,  # less the gap between the columns
            )
        )
    return figures


def _export_tab(title_id: str, figures: list[go.Figure], source: str) -> None:
    """The open tab's own export menu (each figure's CSV, a handout): the figures the tab has just drawn."""
    export_menu(
        f"block-{topic_name(title_id)}",
        title=tr(title_id),
        source=source,
        figures={f"{tr(title_id)} ({i + 1})": fig for i, fig in enumerate(figures)},
        key="block_tab_export",
        section=topic_name(title_id),
    )


def _sentence(trace: BlockTrace) -> str:
    """What a tab that reads the page's sentence names as its source: the model and the sentence it read."""
    return f"{trace.model}: {' '.join(trace.stacks[0].tokens)}"


def changes_section(trace: BlockTrace, layer: int) -> None:
    """‖Sublayer(x)‖/‖x‖ per block for each stack, side by side."""
    cols = st.columns(len(trace.stacks))
    figures = kept_figure(
        "block_changes", (trace.architecture, _sentence(trace), layer), lambda: changes_view(trace, layer)
    )
    for col, stack, fig in zip(cols, trace.stacks, figures):
        chart(fig, key=f"block_changes_{'enc' if stack.name == 'encoder' else 'dec'}", config=PLOT, where=col)
    st.markdown(tr("block.changes.explain"))
    _export_tab("block.tab.changes", figures, _sentence(trace))


def gradient_view(width: float = PAGE_WIDTH) -> tuple[go.Figure, GradientNorms]:
    """The norms tab's first figure: the gradient norm of each block's FFN W₂ at initialisation, post-LN
    against pre-LN (Xiong et al. 2020), and the norms it draws."""
    g = gradient_norms()
    series = {
        tr("block.grad.dec_post"): g.decoder_post,
        tr("block.grad.dec_pre"): g.decoder_pre,
        tr("block.grad.enc_post"): g.encoder_post,
        tr("block.grad.enc_pre"): g.encoder_pre,
    }
    figure = gradient_figure(
        series, title=tr("block.grad.title"), x_title=tr("block.grad.x"), y_title=tr("block.grad.y"), width=width
    )
    return figure, g


def norms_section() -> None:
    """Gradient norms at initialisation, post-LN against pre-LN (Xiong et al. 2020)."""
    figure, g = gradient_view()
    chart(figure, key="block_gradients", config=PLOT)
    st.markdown(
        tr(
            "block.grad.explain",
            n=g.n_layers,
            d=g.d_model,
            ff=g.d_ff,
            h=g.n_heads,
            v=g.vocab,
            seeds=g.seeds,
            post=g.growth()[0],
            pre=g.growth()[1],
        )
    )
    runs = norm_runs_section()
    _export_tab("block.tab.norms", [figure] if runs is None else [figure, runs], tr("block.tab.norms"))


def batch_view(width: float = PAGE_WIDTH) -> tuple[go.Figure, NormComparison]:
    """The batch tab: how far each token of sentence 1 moves, BatchNorm against LayerNorm, when the rest of
    the padded batch is removed; and the comparison it draws."""
    c, tokens = batch_comparison()
    shifts = {tr("block.batch.bn"): c.bn_shift, tr("block.batch.ln"): c.ln_shift}
    figure = norm_shift_figure(
        tokens,
        shifts,
        title=tr("block.batch.title"),
        x_title=tr("block.batch.x"),
        y_title=tr("block.batch.y"),
        width=width,
    )
    return figure, c


def batch_section() -> None:
    """A padded batch normalised both ways."""
    figure, c = batch_view()
    chart(figure, key="block_batch", config=PLOT)
    b, length, d = c.x.shape
    st.markdown(
        tr(
            "block.batch.explain",
            b=b,
            l=length,
            d=d,
            real=int(c.real.sum()),
            pad=int((~c.real).sum()),
            cells=b * length,
            mean_all=float(c.bn_mean[0]),
            mean_real=float(c.bn_mean_real[0]),
            ln=float(c.ln_shift.max()),
            bn=float(c.bn_shift.max()),
        )
    )
    _export_tab("block.tab.batch", [figure], tr("block.tab.batch"))


@dataclass
class SmoothingView:
    """The smoothing tab: its figure, the model's ε and vocabulary size V, the true word and q on it."""

    figure: go.Figure
    model: str
    eps: float
    v: int
    word: str
    top: float


def smoothing_view(trace: BlockTrace, width: float = PAGE_WIDTH) -> SmoothingView | str:
    """The smoothed targets: the course's 5-word example, and q over the translation model's real vocabulary
    for the first target word of ``trace`` (Vaswani et al. 2017, §5.4); a one-line message when the model
    is missing."""
    from models.lessons.training_ideas import ALL, OTHERS, WORDS, smoothed_target

    loaded = load("encoder-decoder")
    if isinstance(loaded, str):
        return loaded
    eps = float(loaded.training.get("settings", {}).get("label_smoothing", EPSILON))
    v = loaded.config.vocab_size
    target_word = (
        trace.stacks[-1].tokens[1]
        if trace.architecture == "encoder-decoder" and len(trace.stacks[-1].tokens) > 1
        else loaded.tgt_itos[4]
    )
    target = loaded.tgt_stoi.get(target_word, 4)
    q = smoothed_target(v, target, eps, ALL)
    targets = {
        tr("block.smooth.words"): smoothed_target(5, SMOOTH_TARGET, EPSILON, WORDS, pad=0),
        tr("block.smooth.all"): smoothed_target(5, SMOOTH_TARGET, EPSILON, ALL),
        tr("block.smooth.others"): smoothed_target(5, SMOOTH_TARGET, EPSILON, OTHERS),
    }
    fig = smoothing_figure(
        SMOOTH_WORDS,
        targets,
        q,
        target,
        title=tr("block.smooth.title", eps=EPSILON),
        left_title=tr("block.smooth.left"),
        right_title=tr("block.smooth.right", model=loaded.name, v=v),
        y_title=tr("block.smooth.y"),
        vocab_x=tr("block.smooth.vocab_x"),
        target_name=tr("block.smooth.target"),
        other_name=tr("block.smooth.other"),
        width=width,
    )
    return SmoothingView(fig, loaded.name, eps, v, target_word, float(q[target]))


def smoothing_section(trace: BlockTrace) -> None:
    """The smoothed targets: the course's 5-word example and the translation model's real vocabulary."""
    view = smoothing_view(trace)
    if isinstance(view, str):
        st.info(view)
        return
    chart(view.figure, key="block_smoothing", config=PLOT)
    st.markdown(
        tr(
            "block.smooth.explain",
            model=view.model,
            eps=view.eps,
            word=md_escape(view.word),
            top=view.top,
            low=float(view.eps / view.v),
            others=view.v - 1,
        )
    )
    _export_tab("block.tab.smoothing", [view.figure], _sentence(trace))


def schedule_view(width: float = PAGE_WIDTH) -> go.Figure:
    """The warm-up tab's figure: lrate = d^−0.5 · min(step^−0.5, step · warmup^−1.5) of §5.3 (d = 512, warm-up
    4,000), with and without the warm-up, on log axes."""
    from models.lessons.training_ideas import noam_rate

    steps = np.unique(np.geomspace(1, 40_000, 400).astype(int))
    rates = {
        tr("block.lr.with", w=WARMUP_PAPER): noam_rate(steps, D_PAPER, WARMUP_PAPER),
        tr("block.lr.without"): noam_rate(steps, D_PAPER, None),
    }
    return schedule_figure(
        steps,
        rates,
        WARMUP_PAPER,
        title=tr("block.lr.title", d=D_PAPER),
        x_title=tr("block.lr.x"),
        y_title=tr("block.lr.y"),
        warmup_label=tr("block.lr.end"),
        width=width,
    )


def tab_line(topic: str, trace: BlockTrace) -> str:
    """A tab's numbers in one line, for its slide: what the tab's paragraph says, short."""
    if topic == "block.tab.norms":
        runs = norm_runs()
        if runs is None:
            g = gradient_norms()
            post, pre = g.growth()
            return tr("slide.block.grads", n=g.n_layers, post=post, pre=pre)
        post, post_w, pre = runs
        return tr(
            "slide.block.runs",
            steps=post["settings"].get("steps", 0),
            post=post["exact_match"],
            post_w=post_w["exact_match"],
            pre=pre["exact_match"],
        )
    if topic == "block.tab.batch":
        c, _ = batch_comparison()
        return tr("slide.block.batch", ln=float(c.ln_shift.max()), bn=float(c.bn_shift.max()))
    if topic == "block.tab.smoothing":
        view = smoothing_view(trace)
        if isinstance(view, str):
            return view
        return tr("slide.block.smoothing", model=view.model, word=view.word, top=view.top, v=view.v, eps=view.eps)
    if topic == "block.tab.schedule":
        return tr("slide.block.schedule", **schedule_numbers())
    return tr("slide.block.line", model=MODELS[trace.architecture], box=tr("block.tab.changes"))


def schedule_numbers() -> dict[str, float]:
    """The schedule's figures the tab and its slide state: the warm-up ``w``, the ``peak`` rate (at step w),
    step 1's rate without warm-up (``first``) and how many ``times`` the peak that is (§5.3)."""
    from models.lessons.training_ideas import noam_rate

    peak = float(noam_rate(WARMUP_PAPER, D_PAPER, WARMUP_PAPER))
    first = float(noam_rate(1, D_PAPER, None))
    return {"w": WARMUP_PAPER, "peak": peak, "first": first, "times": first / peak}


def schedule_section() -> None:
    """The warm-up schedule of §5.3 with and without warm-up, and Adam's update written out."""
    from models.lessons.training_ideas import adam_steps, torch_adam

    figure = schedule_view()
    chart(figure, key="block_schedule", config=PLOT)
    st.markdown(tr("block.lr.explain", **schedule_numbers()))
    st.markdown(f"**{tr('block.adam.head')}**")
    st.markdown(tr("block.adam.explain", lr=ADAM_LR))
    run = adam_steps(ADAM_THETA, ADAM_GRADS, lr=ADAM_LR)
    checked = torch_adam(ADAM_THETA, ADAM_GRADS, lr=ADAM_LR)
    rows = []
    for s in range(len(ADAM_GRADS)):
        for p in range(len(ADAM_THETA)):
            rows.append(
                {
                    tr("block.adam.step"): s + 1,
                    tr("block.adam.param"): f"θ{p + 1}",
                    "g_t": run.grads[s, p],
                    "m_t": run.m[s, p],
                    "v_t": run.v[s, p],
                    "m̂_t": run.m_hat[s, p],
                    "v̂_t": run.v_hat[s, p],
                    "Δθ": run.update[s, p],
                    "θ_t": run.theta[s, p],
                    tr("block.adam.torch"): checked[s, p],
                }
            )
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={
            k: st.column_config.NumberColumn(format="%.6g")
            for k in ("g_t", "m_t", "v_t", "m̂_t", "v̂_t", "Δθ", "θ_t", tr("block.adam.torch"))
        },
    )
    _export_tab("block.tab.schedule", [figure], tr("block.tab.schedule"))
