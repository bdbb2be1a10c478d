"""Four training ideas of the Transformer, computed: label smoothing's targets (Vaswani et al. 2017 §5.4;
Szegedy et al. 2016 §7), the warm-up learning-rate schedule (§5.3), one step of Adam (Kingma & Ba 2015,
Algorithm 1) and BatchNorm against LayerNorm on a padded batch (Ioffe & Szegedy 2015; Ba et al. 2016).
numpy in and out; each checked against torch's own implementation in ``tests/test_block.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch
from torch import nn

from models.inference.common import eval_mode
from models.inference.traces import Trace

# Label smoothing ---------------------------------------------------------------------------------

ALL, WORDS, OTHERS = "all", "words", "others"
CONVENTIONS = (ALL, WORDS, OTHERS)


def smoothed_target(k: int, target: int, epsilon: float, convention: str = ALL, pad: int | None = None) -> np.ndarray:
    """The smoothed target distribution q over ``k`` entries for true entry ``target``:

    * ``ALL`` (Szegedy et al. 2016; torch's ``label_smoothing``; the lab's training loss):
      q = (1 − ε)·onehot + ε/K over all K entries → target 1 − ε + ε/K, others ε/K;
    * ``WORDS``: the same uniform share over the entries that can be a target, ``pad`` excluded (q_pad = 0):
      target 1 − ε + ε/(K−1), others ε/(K−1). With K = 5 (one of them padding), ε = 0.1: 0.925 and 0.025;
    * ``OTHERS``: 1 − ε on the target, ε/(K−1) on each other entry (target 0.9, others 0.025 for K = 5).
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], not {epsilon}")
    if not 0 <= target < k or target == pad:
        raise ValueError(f"target {target} is not a word among {k}")
    q = np.zeros(k)
    if convention == ALL:
        q += epsilon / k
        q[target] += 1.0 - epsilon
    elif convention == WORDS:
        if pad is None:
            raise ValueError("the WORDS convention needs the padding entry")
        q += epsilon / (k - 1)
        q[pad] = 0.0
        q[target] += 1.0 - epsilon
    elif convention == OTHERS:
        q += epsilon / (k - 1)
        q[target] = 1.0 - epsilon
    else:
        raise ValueError(f"convention must be one of {CONVENTIONS}, not {convention!r}")
    return q


# The learning-rate schedule ------------------------------------------------------------------------


def noam_rate(step: np.ndarray | int, d_model: int, warmup: int | None) -> np.ndarray:
    """lrate = d_model^−0.5 · min(step^−0.5, step · warmup^−1.5) (§5.3); ``warmup`` None: no warm-up,
    d_model^−0.5 · step^−0.5 from the first step. Steps count from 1."""
    s = np.asarray(step, dtype=float)
    if np.any(s < 1):
        raise ValueError("steps count from 1")
    decay = s**-0.5
    return d_model**-0.5 * (decay if warmup is None else np.minimum(decay, s * float(warmup) ** -1.5))


# Adam ----------------------------------------------------------------------------------------------


@dataclass
class AdamSteps(Trace):
    """Adam (Kingma & Ba 2015, Algorithm 1) on the parameters θ (P,) for the given gradients (T, P):
    per step t = 1 … T the moments m_t = β₁m + (1−β₁)g, v_t = β₂v + (1−β₂)g², their bias-corrected
    m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ), the update Δθ = −α·m̂/(√v̂ + ε) and θ after it; all (T, P)."""

    lr: float
    beta1: float
    beta2: float
    eps: float
    theta0: np.ndarray
    grads: np.ndarray
    m: np.ndarray
    v: np.ndarray
    m_hat: np.ndarray
    v_hat: np.ndarray
    update: np.ndarray
    theta: np.ndarray

    DERIVED: ClassVar[tuple[str, ...]] = ()


def adam_steps(
    theta0: Sequence[float],
    grads: Sequence[Sequence[float]],
    lr: float = 1e-3,
    beta1: float = 0.9,
    beta2: float = 0.98,
    eps: float = 1e-9,
) -> AdamSteps:
    """Adam's steps written out (defaults: the Transformer's β₁ = 0.9, β₂ = 0.98, ε = 10⁻⁹, §5.3)."""
    th = np.asarray(theta0, dtype=np.float64)
    g_all = np.asarray(grads, dtype=np.float64)
    m = np.zeros_like(th)
    v = np.zeros_like(th)
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("m", "v", "m_hat", "v_hat", "update", "theta")}
    for t, g in enumerate(g_all, start=1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)
        update = -lr * m_hat / (np.sqrt(v_hat) + eps)
        th = th + update
        for key, value in (("m", m), ("v", v), ("m_hat", m_hat), ("v_hat", v_hat), ("update", update), ("theta", th)):
            rows[key].append(value.copy())
    return AdamSteps(
        lr,
        beta1,
        beta2,
        eps,
        np.asarray(theta0, dtype=np.float64),
        g_all,
        *(np.array(rows[k]) for k in ("m", "v", "m_hat", "v_hat", "update", "theta")),
    )


def torch_adam(
    theta0: Sequence[float],
    grads: Sequence[Sequence[float]],
    lr: float = 1e-3,
    beta1: float = 0.9,
    beta2: float = 0.98,
    eps: float = 1e-9,
) -> np.ndarray:
    """θ after each step of ``torch.optim.Adam`` fed the same gradients (T, P): the check of :func:`adam_steps`."""
    p = nn.Parameter(torch.tensor(list(theta0), dtype=torch.float64))
    opt = torch.optim.Adam([p], lr=lr, betas=(beta1, beta2), eps=eps)
    out = []
    for g in grads:
        p.grad = torch.tensor(list(g), dtype=torch.float64)
        opt.step()
        out.append(p.detach().numpy().copy())
    return np.array(out)


# BatchNorm against LayerNorm on a padded batch -------------------------------------------------------


@dataclass
class NormComparison(Trace):
    """A padded batch x (B, L, d) normalised two ways, without γ and β: BatchNorm's per-feature statistics
    over all B·L positions (padding included), LayerNorm's per token over its d features. ``real`` (B, L)
    marks the tokens (False: padding); ``bn_mean``/``bn_var`` (d,) BatchNorm's statistics;
    ``bn_shift``/``ln_shift`` (L₀,): how far each token of sentence 0 moves, ‖norm(x_t in the batch) −
    norm(x_t of sentence 0 alone)‖, when the other sentences and the padding are taken away."""

    x: np.ndarray
    real: np.ndarray
    bn: np.ndarray
    ln: np.ndarray
    bn_mean: np.ndarray
    bn_var: np.ndarray
    bn_mean_real: np.ndarray
    bn_shift: np.ndarray
    ln_shift: np.ndarray
    eps: float


def _batch_norm(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(normalised x, mean, biased variance): training-mode BatchNorm1d over every position (B·L, d)."""
    flat = x.reshape(-1, x.shape[-1])
    mean, var = flat.mean(0), flat.var(0)
    return (x - mean) / np.sqrt(var + eps), mean, var


def _layer_norm(x: np.ndarray, eps: float) -> np.ndarray:
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)


def norm_comparison(x: np.ndarray, real: np.ndarray, eps: float = 1e-5) -> NormComparison:
    """BatchNorm (Ioffe & Szegedy 2015) against LayerNorm (Ba et al. 2016) on the padded batch ``x``
    (B, L, d) with ``real`` (B, L) True at tokens: BatchNorm's mean of feature j is over every position of
    every sentence, padding too; LayerNorm's statistics are each token's own."""
    x = np.asarray(x, dtype=np.float64)
    real = np.asarray(real, dtype=bool)
    bn, mean, var = _batch_norm(x, eps)
    ln = _layer_norm(x, eps)
    n0 = int(real[0].sum())
    alone = x[:1, :n0]
    bn_alone, _, _ = _batch_norm(alone, eps)
    ln_alone = _layer_norm(alone, eps)
    return NormComparison(
        x,
        real,
        bn,
        ln,
        mean,
        var,
        x[real].mean(0),
        np.linalg.norm(bn[0, :n0] - bn_alone[0], axis=-1),
        np.linalg.norm(ln[0, :n0] - ln_alone[0], axis=-1),
        eps,
    )


@torch.inference_mode()
def embedded_batch(embed: nn.Module, rows: Sequence[Sequence[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """(x (B, L, d), real (B, L)): token-id rows padded with ``pad_id`` to one length, through a model's
    embedding module (its padding positions are what that module gives for the padding id)."""
    length = max(len(r) for r in rows)
    ids = torch.full((len(rows), length), pad_id, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(list(r), dtype=torch.long)
    with eval_mode(embed):
        x = embed(ids).double().numpy()
    return x, (ids != pad_id).numpy()
