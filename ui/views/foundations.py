"""The Attention-from-scratch page's view, declared once: Nadaraya–Watson kernel regression, the
training points, the true f and each method's fitted curve (the chosen one thick). The page
(pages/1_Attention_from_scratch.py), its slide (:func:`slide`, the Present page's renderer) and the
handout draw this same figure; a slide only draws it larger."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import plotly.graph_objects as go

from models.lessons import kernel_regression as kr
from ui.foundations import KR_METHODS, KR_RATES, parametric, toy_data
from ui.i18n import figure_texts, tr
from ui.views.base import SlideParams, SlideView, link_of, show_figure
from viz_core.foundations import kernel_fit_figure


@dataclass(frozen=True)
class KernelFits:
    """The lesson's toy data and each method's pooling (``results[m]``, m in ui.foundations.KR_METHODS),
    with the names the figures give the methods (the bandwidth h and the learned w in them)."""

    data: kr.ToyData
    results: dict[str, kr.PoolingResult]
    names: dict[str, str]


def fit_view(state: KernelState) -> tuple[go.Figure, KernelFits]:
    """The page's main figure, as the page and its slide both show it: the state's ``n_train`` noisy points
    (sampled with its ``seed``), the true f and the curves of average pooling, Gaussian pooling of its
    ``bandwidth`` and the width learned by its ``steps`` of SGD at rate ``lr``, its ``method``'s thick.
    Returns the figure and the fits (for the page's weights and test errors)."""
    n_train, noise, bandwidth, seed = state.n_train, state.noise, state.bandwidth, state.seed
    data = toy_data(n_train, noise, seed)
    trained = parametric(n_train, noise, seed, state.steps, state.lr)  # 500 steps: 30 ms (closed-form gradient)
    results = {
        "average": kr.average_pooling(data),
        "gaussian": kr.gaussian_pooling(data, bandwidth),
        "parametric": trained,
    }
    names = {
        "average": tr("scratch.kr.average"),
        "gaussian": tr("scratch.kr.gaussian_h", h=bandwidth),
        "parametric": tr("scratch.kr.parametric_w", w=trained.w),
    }
    fig = kernel_fit_figure(
        data.x_train,
        data.y_train,
        data.x_test,
        data.y_true,
        {key: (names[key], r.y_hat) for key, r in results.items()},
        highlight=state.method,
        title=tr("scratch.kr.fig_fit"),
        texts=figure_texts(),
    )
    return fig, KernelFits(data, results, names)


@dataclass(frozen=True)
class KernelState:
    """The kernel-regression view as values: the number of training points, their noise, the bandwidth h,
    the training steps and learning rate of the parametric fit, the method (one of :data:`KR_METHODS`) and
    the sample's seed."""

    n_train: int = 50
    noise: float = 0.5
    bandwidth: float = 1.0
    steps: int = 200
    lr: float = 0.5
    method: str = "gaussian"
    seed: int = 0
    KEYS: ClassVar[dict[str, str]] = {
        "n_train": "kr_n",
        "noise": "kr_noise",
        "bandwidth": "kr_h",
        "steps": "kr_steps",
        "lr": "kr_lr",
        "method": "kr_method",
        "seed": "kr_seed",
    }  # each field's URL key, in the link's order

    @classmethod
    def read(cls, p: SlideParams) -> KernelState:
        """The state a link holds, read as the page reads it (its seed: the page's first sample unless the
        link holds one; a refused value: the page's default, noted)."""
        p.topic("scratch.tab.kr", ("scratch.tab.kr",))
        return cls(
            n_train=int(p.number(cls.KEYS["n_train"], 10, 100, 50, "slide.what.n_train")),
            noise=p.number(cls.KEYS["noise"], 0.0, 1.5, 0.5, "slide.what.noise"),
            bandwidth=p.number(cls.KEYS["bandwidth"], 0.05, 2.0, 1.0, "slide.what.bandwidth"),
            steps=int(p.number(cls.KEYS["steps"], 0, 500, 200, "slide.what.steps")),
            lr=p.option(cls.KEYS["lr"], KR_RATES, 0.5, "slide.what.lr"),
            method=p.option(
                cls.KEYS["method"], KR_METHODS, "gaussian", "scratch.kr.method", lambda m: tr(f"scratch.kr.{m}")
            ),
            seed=int(p.number(cls.KEYS["seed"], 0, 1_000_000, 0, "generation.url.seed")),
        )

    def link(self) -> dict[str, str]:
        """The link's values for this state (what :meth:`read` reads back to the same state)."""
        return link_of(self)


def slide(p: SlideParams) -> SlideView:
    """The page's view as a slide (one step): the kernel regression fits, read from the link as the page
    reads it."""
    state = KernelState.read(p)

    def draw(step: int) -> None:
        show_figure(fit_view(state)[0])

    return p.view(1, 0, draw)
