"""Nadaraya–Watson kernel regression: attention pooling before attention had its name.

    f(x) = Σ_i α(x, x_i) y_i,   Σ_i α(x, x_i) = 1

* average pooling:   α(x, x_i) = 1/n
* Gaussian kernel:   α(x, x_i) = softmax_i(−(x − x_i)² / (2h²))        (bandwidth h)
* parametric:        α(x, x_i) = softmax_i(−((x − x_i) w)² / 2)         (w learned by SGD)

The query is the test input x, the keys are the training inputs x_i and the values are the
training targets y_i. Results are numpy arrays in dataclasses; no tensor leaves this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from models.nn.attention import masked_softmax

X_MAX = 5.0


def true_function(x: np.ndarray) -> np.ndarray:
    """The toy target f(x) = 2 sin(x) + x^0.8."""
    return 2.0 * np.sin(x) + x**0.8


@dataclass(frozen=True)
class ToyData:
    """Training pairs (x_i, y_i = f(x_i) + ε) sorted by x, and a test grid with the true f."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_true: np.ndarray
    noise: float
    seed: int


@dataclass(frozen=True)
class PoolingResult:
    """Predictions ŷ(x) = Σ_i α(x, x_i) y_i and the weights α (n_test × n_train)."""

    name: str
    y_hat: np.ndarray
    weights: np.ndarray
    mse: float  # mean squared error against the noise-free f on the test grid


@dataclass(frozen=True)
class ParametricResult(PoolingResult):
    """Parametric attention pooling: the learned width w and its training history."""

    w: float
    w_history: np.ndarray  # w before training and after each step
    loss_history: np.ndarray  # training loss at each step


def make_data(n_train: int = 50, noise: float = 0.5, seed: int = 0, n_test: int = 50) -> ToyData:
    """x_i ~ U(0, 5) sorted, y_i = f(x_i) + ε with ε ~ N(0, noise²); test grid of ``n_test`` points."""
    if n_train < 2:
        raise ValueError("kernel regression needs at least 2 training points")
    if noise < 0:
        raise ValueError("noise must be ≥ 0")
    rng = np.random.default_rng(seed)
    x_train = np.sort(rng.uniform(0.0, X_MAX, n_train))
    y_train = true_function(x_train) + rng.normal(0.0, noise, n_train)
    x_test = np.linspace(0.0, X_MAX, n_test, endpoint=False)
    return ToyData(x_train, y_train, x_test, true_function(x_test), float(noise), int(seed))


def _result(name: str, weights: np.ndarray, data: ToyData) -> PoolingResult:
    y_hat = weights @ data.y_train
    return PoolingResult(name, y_hat, weights, float(np.mean((y_hat - data.y_true) ** 2)))


def average_pooling(data: ToyData) -> PoolingResult:
    """f(x) = (1/n) Σ_i y_i: every query gets the same uniform weights 1/n."""
    n_test, n_train = len(data.x_test), len(data.x_train)
    return _result("Average pooling", np.full((n_test, n_train), 1.0 / n_train), data)


def _gaussian_weights(x_query: torch.Tensor, x_keys: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """α = softmax_i(−((x − x_i) w)² / 2) for (Q,) queries and (K,) keys: (Q, K)."""
    diff = x_query.unsqueeze(-1) - x_keys
    return masked_softmax(-((diff * w) ** 2) / 2.0, None)


def gaussian_pooling(data: ToyData, bandwidth: float = 1.0) -> PoolingResult:
    """f(x) = Σ_i softmax_i(−(x − x_i)² / (2h²)) y_i with bandwidth h (w = 1/h)."""
    if not bandwidth > 0:
        raise ValueError("the bandwidth h must be > 0")
    weights = _gaussian_weights(
        torch.as_tensor(data.x_test, dtype=torch.float64),
        torch.as_tensor(data.x_train, dtype=torch.float64),
        torch.tensor(1.0 / bandwidth, dtype=torch.float64),
    )
    return _result(f"Gaussian kernel (h = {bandwidth:g})", weights.numpy(), data)


def loo_loss_and_grad(x: np.ndarray, y: np.ndarray, w: float, d2: np.ndarray | None = None) -> tuple[float, float]:
    """The leave-one-out loss L(w) = (1/2n) Σ_j (f_{−j}(x_j) − y_j)² and its derivative dL/dw.

    With d_ji = x_j − x_i, s_ji = −(d_ji w)² / 2 and α_ji = softmax_{i≠j}(s_ji), f_{−j} = Σ_i α_ji y_i:
    ∂s_ji/∂w = −w d_ji², ∂f_{−j}/∂w = Σ_i α_ji (y_i − f_{−j}) ∂s_ji/∂w (the softmax's derivative),
    dL/dw = (1/n) Σ_j (f_{−j} − y_j) ∂f_{−j}/∂w. Checked against autograd and finite differences
    (tests/test_kernel_regression.py); in closed form a step costs microseconds, not autograd's
    millisecond (the page retrains on every resample). ``d2``: the d_ji², given by a loop over w."""
    if d2 is None:
        d2 = (x[:, None] - x[None, :]) ** 2
    logits = (-0.5 * w * w) * d2
    np.fill_diagonal(logits, -np.inf)  # query j may attend every key but itself
    logits -= logits.max(axis=1, keepdims=True)
    alpha = np.exp(logits, out=logits)
    alpha /= alpha.sum(axis=1, keepdims=True)
    pred = alpha @ y
    residual = pred - y
    # Σ_i α_ji (y_i − f_j)(−w d²_ji) = −w (Σ_i α_ji d²_ji y_i − f_j Σ_i α_ji d²_ji)
    ad2 = alpha * d2
    dpred = -w * (ad2 @ y - pred * ad2.sum(axis=1))
    n = len(y)
    return float(0.5 * (residual @ residual) / n), float((residual @ dpred) / n)


def train_parametric(
    data: ToyData, steps: int = 200, lr: float = 0.5, w_init: float | None = None, seed: int = 0
) -> ParametricResult:
    """Learn w in α = softmax_i(−((x − x_i) w)² / 2) by gradient descent on the mean squared
    error, w ← w − lr · dL/dw (:func:`loo_loss_and_grad`).

    Each training input is a query whose keys are all the *other* training inputs (leave one
    out): if a point could attend to itself, the loss would be smallest for w → ∞ (pure lookup).
    Loss L(w) = (1/2n) Σ_j (f_{−j}(x_j) − y_j)².
    """
    if steps < 0:
        raise ValueError("steps must be ≥ 0")
    gen = torch.Generator().manual_seed(seed)
    start = float(torch.rand(1, generator=gen, dtype=torch.float64)) if w_init is None else w_init
    x, y = np.asarray(data.x_train, dtype=np.float64), np.asarray(data.y_train, dtype=np.float64)
    w, w_hist, loss_hist = start, [start], []
    d2 = (x[:, None] - x[None, :]) ** 2
    for _ in range(steps):
        loss, grad = loo_loss_and_grad(x, y, w, d2)
        w -= lr * grad
        loss_hist.append(loss)
        w_hist.append(w)
    with torch.no_grad():
        weights = _gaussian_weights(
            torch.as_tensor(data.x_test, dtype=torch.float64), torch.as_tensor(x), torch.tensor(w, dtype=torch.float64)
        ).numpy()
    base = _result(f"Parametric (learned w = {w:.2f})", weights, data)
    return ParametricResult(
        base.name, base.y_hat, base.weights, base.mse, w=w, w_history=np.array(w_hist), loss_history=np.array(loss_hist)
    )
