"""The one training loop every family uses, its settings and its learning-rate schedule.

``fit`` runs Adam (AdamW when the recipe gives parameter groups with weight decay) for exactly
``settings.steps`` steps with linear warm-up and linear decay (:func:`lr_factor`) and gradient
clipping. After every step it reports a :class:`Progress` to each callback (a terminal bar, a
log file, a web page), and it can be stopped between steps through a ``threading.Event``.

A run is defined by its number of steps, so its result does not depend on how busy the machine
is. A stopped run can go on: ``fit(start_step=k, optimizer=…)`` with the optimizer state it kept
continues the same schedule from step k; with batches a function of the step
(:func:`batch_at_step`) and the same random state, it ends with the weights of an uninterrupted run.
``settings.max_minutes`` only guards against runaway runs (wall-clock time): a run it cuts short says
so on stderr and records it (``cut_short``) in the statistics it returns.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch
from torch import Tensor
from tqdm import tqdm

#: loss_of_batch(step) → (mean loss of the batch, number of target tokens it held)
LossOfBatch = Callable[[int], tuple[Tensor, int]]
T = TypeVar("T")


@dataclass(frozen=True)
class TrainSettings:
    """Optimisation settings of one run, the same type for every family.

    ``warmup`` is a number of steps. ``betas``/``eps`` are Adam's; ``weight_decay`` applies to
    the parameter groups a recipe marks for it (AdamW, decoupled). ``teacher_forcing`` is the
    RNN decoder's probability of reading the gold previous token; ``label_smoothing`` the ε of
    the target distribution. ``max_minutes`` is a wall-clock guard, not a budget.
    """

    steps: int = 1000
    batch_size: int = 64
    lr: float = 1e-3
    warmup: int = 100
    clip: float = 1.0
    seed: int = 0
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    label_smoothing: float = 0.0
    teacher_forcing: float = 1.0
    max_minutes: float = 30.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Progress:
    """What the loop reports after each step: the step (1-based) of ``steps``, the batch's loss,
    target tokens per second so far and wall seconds since the start."""

    step: int
    steps: int
    loss: float
    tokens_per_second: float
    elapsed: float


Callback = Callable[[Progress], None]


@dataclass
class Trained:
    """What a family's recipe hands back: the trained model (on the CPU), how to write its
    checkpoint given the training record, the settings it ran with, its statistics and a
    one-line summary of its quality."""

    model: torch.nn.Module
    save: Callable[[Path, dict[str, Any]], Path]
    settings: TrainSettings
    stats: dict[str, Any]
    summary: str


def lr_factor(step: int, progress: float, warmup: int) -> float:
    """Linear warm-up over ``warmup`` steps, then linear decay to 0 as ``progress`` → 1:
    lr_t = lr · min(1, (t + 1) / warmup) · (1 − progress), progress = t / steps."""
    warm = min(1.0, (step + 1) / max(1, warmup))
    return warm * max(0.0, 1.0 - progress)


def make_optimizer(
    model: torch.nn.Module, settings: TrainSettings, param_groups: Sequence[dict[str, Any]] | None = None
) -> torch.optim.Optimizer:
    """Adam (Kingma & Ba 2015) over the model's parameters, or AdamW (Loshchilov & Hutter 2019) when
    ``param_groups`` give some group weight decay."""
    params: Iterable[Any] = param_groups if param_groups is not None else model.parameters()
    if param_groups is not None and any(g.get("weight_decay", 0.0) for g in param_groups):
        return torch.optim.AdamW(params, lr=settings.lr, betas=settings.betas, eps=settings.eps)
    return torch.optim.Adam(params, lr=settings.lr, betas=settings.betas, eps=settings.eps)


#: ``loss_curve`` in :func:`fit`'s statistics: the mean loss of each run of this many steps.
CURVE_EVERY = 10


def fit(
    model: torch.nn.Module,
    loss_of_batch: LossOfBatch,
    settings: TrainSettings,
    callbacks: Sequence[Callback] = (),
    stop: threading.Event | None = None,
    param_groups: Sequence[dict[str, Any]] | None = None,
    start_step: int = 0,
    optimizer: torch.optim.Optimizer | None = None,
) -> dict[str, Any]:
    """Train ``model`` from step ``start_step`` to ``settings.steps``; return the run's statistics.

    Each step: set lr = settings.lr · :func:`lr_factor`, take ``loss_of_batch(step)``, back-prop,
    clip the gradient norm to ``settings.clip``, step the optimizer, report :class:`Progress`.
    Stops early only when ``stop`` is set (checked between steps) or the wall-clock guard
    ``settings.max_minutes`` is reached; both are recorded in ``cut_short``. ``optimizer``: one of
    :func:`make_optimizer` that the caller keeps (to save its state, or holding a resumed run's
    state); default a fresh one. Statistics other than ``steps`` count this call's steps only;
    ``loss_curve`` is the mean loss of every :data:`CURVE_EVERY` steps.
    """
    optimizer = optimizer if optimizer is not None else make_optimizer(model, settings, param_groups)
    guard = settings.max_minutes * 60
    start = time.perf_counter()
    step, tokens = start_step, 0
    losses: list[float] = []
    cut_short = None
    model.train()
    while step < settings.steps:
        if stop is not None and stop.is_set():
            cut_short = f"stopped by request at step {step} of {settings.steps}"
            break
        if time.perf_counter() - start > guard:
            cut_short = f"time guard of {settings.max_minutes:g} min reached at step {step} of {settings.steps}"
            print(f"WARNING: {cut_short}; the model is undertrained", file=sys.stderr)
            break
        for group in optimizer.param_groups:
            group["lr"] = settings.lr * lr_factor(step, step / settings.steps, settings.warmup)
        loss, n_tokens = loss_of_batch(step)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
        optimizer.step()
        step += 1
        tokens += n_tokens
        losses.append(loss.item())
        elapsed = time.perf_counter() - start
        report = Progress(step, settings.steps, losses[-1], tokens / max(elapsed, 1e-9), elapsed)
        for callback in callbacks:
            callback(report)
    model.eval()
    seconds = time.perf_counter() - start
    tail = losses[-50:]
    curve = [round(float(np.mean(losses[i : i + CURVE_EVERY])), 4) for i in range(0, len(losses), CURVE_EVERY)]
    return {
        "steps": step,
        "planned_steps": settings.steps,
        "seconds": round(seconds, 1),
        "final_loss": round(float(np.mean(tail)), 4) if tail else None,
        "tokens_per_second": round(tokens / max(seconds, 1e-9)),
        "device": str(next(model.parameters()).device),
        "torch_threads": torch.get_num_threads(),
        "cut_short": cut_short,
        "loss_curve": curve,
    }


def batch_at_step(stream: Iterator[T]) -> Callable[[int], T]:
    """The batch of each step from an endless ``stream``: ``batch_at(t)`` is the stream's item t
    (0-based), skipping items when a resumed run starts at a later step, so that a run's batches
    are a function of the step. Steps must not go back."""
    taken = 0

    def batch_at(step: int) -> T:
        nonlocal taken
        if step < taken:
            raise ValueError(f"batch of step {step} asked after step {taken - 1}")
        for _ in range(step - taken):
            next(stream)
        taken = step + 1
        return next(stream)

    return batch_at


def jsonl_log(path: Path) -> tuple[Callback, Callable[[], None]]:
    """A callback that appends every :class:`Progress` to ``path`` as one JSON line, and the
    function that closes the file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = path.open("a", encoding="utf-8")

    def write(p: Progress) -> None:
        fh.write(json.dumps(asdict(p)) + "\n")
        fh.flush()

    return write, fh.close


def progress_bar(total: int, desc: str = "") -> tuple[Callback, Callable[[], None]]:
    """A tqdm bar on stderr as a callback (opened at the first step, once the data is ready),
    and the function that closes it."""
    bars: list[Any] = []

    def update(p: Progress) -> None:
        if not bars:
            bars.append(
                tqdm(total=total, desc=desc or None, unit="step", file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
            )
        bars[0].update(1)
        bars[0].set_postfix(loss=f"{p.loss:.3f}", tok_s=f"{p.tokens_per_second:,.0f}")

    def close() -> None:
        for bar in bars:
            bar.close()

    return update, close
