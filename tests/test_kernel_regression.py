"""Nadaraya–Watson kernel regression against its formulas."""

import numpy as np
import pytest

from models.lessons import kernel_regression as kr


@pytest.fixture(scope="module")
def data() -> kr.ToyData:
    return kr.make_data(n_train=40, noise=0.5, seed=3, n_test=30)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_toy_data_is_sorted_seeded_and_noisy(data):
    assert data.x_train.shape == data.y_train.shape == (40,)
    assert np.all(np.diff(data.x_train) >= 0)
    assert np.all((data.x_train >= 0) & (data.x_train <= kr.X_MAX))
    np.testing.assert_allclose(data.y_true, 2 * np.sin(data.x_test) + data.x_test**0.8)
    again = kr.make_data(40, 0.5, 3, 30)
    np.testing.assert_array_equal(again.y_train, data.y_train)
    assert not np.allclose(kr.make_data(40, 0.5, 4, 30).x_train, data.x_train)
    clean = kr.make_data(40, 0.0, 3, 30)
    np.testing.assert_allclose(clean.y_train, kr.true_function(clean.x_train))


@pytest.mark.parametrize("kwargs", [{"n_train": 1}, {"noise": -0.1}])
def test_toy_data_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        kr.make_data(**kwargs)


def test_average_pooling_ignores_the_query(data):
    result = kr.average_pooling(data)
    np.testing.assert_allclose(result.weights, 1 / 40)
    np.testing.assert_allclose(result.y_hat, data.y_train.mean())
    assert result.mse == pytest.approx(np.mean((data.y_train.mean() - data.y_true) ** 2))


@pytest.mark.parametrize("h", [0.2, 1.0, 3.0])
def test_gaussian_pooling_matches_the_formula(data, h):
    result = kr.gaussian_pooling(data, h)
    expected = _softmax(-((data.x_test[:, None] - data.x_train[None, :]) ** 2) / (2 * h * h))
    np.testing.assert_allclose(result.weights, expected, atol=1e-12)
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0)
    np.testing.assert_allclose(result.y_hat, expected @ data.y_train, atol=1e-12)


def test_gaussian_pooling_limits(data):
    wide = kr.gaussian_pooling(data, 1e3)
    np.testing.assert_allclose(wide.y_hat, data.y_train.mean(), atol=1e-4)
    narrow = kr.gaussian_pooling(data, 1e-3)
    dist = np.abs(data.x_test[:, None] - data.x_train[None, :])
    nearest = dist.argmin(axis=1)
    gaps = np.sort(dist, axis=1)
    clear = gaps[:, 1] - gaps[:, 0] > 0.01  # skip near-ties between two training points
    assert clear.sum() > 10
    np.testing.assert_allclose(narrow.y_hat[clear], data.y_train[nearest][clear], atol=1e-6)
    with pytest.raises(ValueError):
        kr.gaussian_pooling(data, 0.0)


def test_parametric_with_fixed_w_equals_gaussian(data):
    result = kr.train_parametric(data, steps=0, w_init=2.0)
    assert result.w == 2.0
    np.testing.assert_allclose(result.weights, kr.gaussian_pooling(data, 0.5).weights, atol=1e-12)


def _loo_loss(data: kr.ToyData, w: float) -> float:
    x, y = data.x_train, data.y_train
    logits = -(((x[:, None] - x[None, :]) * w) ** 2) / 2
    np.fill_diagonal(logits, -np.inf)
    return 0.5 * np.mean((_softmax(logits) @ y - y) ** 2)


def test_parametric_training_lowers_the_leave_one_out_loss(data):
    result = kr.train_parametric(data, steps=150, lr=0.5, seed=0)
    assert len(result.loss_history) == 150 and len(result.w_history) == 151
    assert result.loss_history[0] == pytest.approx(_loo_loss(data, result.w_history[0]))
    assert result.loss_history[-1] < result.loss_history[0]
    assert _loo_loss(data, result.w) <= result.loss_history[0]
    assert result.w == result.w_history[-1]
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0)
    assert result.mse < kr.average_pooling(data).mse


def test_parametric_gradient_matches_finite_differences(data):
    one = kr.train_parametric(data, steps=1, lr=1.0, w_init=1.5)
    step = one.w_history[1] - one.w_history[0]  # = −lr · dL/dw
    eps = 1e-6
    grad = (_loo_loss(data, 1.5 + eps) - _loo_loss(data, 1.5 - eps)) / (2 * eps)
    assert -step == pytest.approx(grad, rel=1e-5)


@pytest.mark.parametrize("w", [0.3, 1.5, 4.0])
def test_closed_form_gradient_equals_autograd(data, w):
    """loo_loss_and_grad against PyTorch's autograd through masked_softmax (the page's formula)."""
    import torch

    from models.nn.attention import masked_softmax

    x = torch.as_tensor(data.x_train, dtype=torch.float64)
    y = torch.as_tensor(data.y_train, dtype=torch.float64)
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    others = ~torch.eye(len(x), dtype=torch.bool)
    alpha = masked_softmax(-(((x[:, None] - x[None, :]) * wt) ** 2) / 2, others)
    loss = 0.5 * torch.mean((alpha @ y - y) ** 2)
    loss.backward()
    ours = kr.loo_loss_and_grad(data.x_train, data.y_train, w)
    assert ours[0] == pytest.approx(loss.item(), rel=1e-12)
    assert ours[1] == pytest.approx(wt.grad.item(), rel=1e-9)
