"""The worked examples of "Attention from scratch": the Q/K/V parser and steps, the score
functions for one query, softmax saturation, soft/hard/local attention, and layer timing."""

import math

import numpy as np
import pytest

from models.lessons import complexity, sandbox


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ------------------------------------------------------------------------------ parsing


def test_parse_matrix_reads_spaces_commas_and_unicode_minus():
    m = sandbox.parse_matrix("1, 2  3\n\n−4;5 6e-1\n", "Q")
    np.testing.assert_array_equal(m, [[1, 2, 3], [-4, 5, 0.6]])
    assert sandbox.parse_matrix(sandbox.format_matrix(m), "Q").tolist() == m.tolist()


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "Q is empty"),
        ("   \n  ", "Q is empty"),
        ("1 2\n3 x", "Q, row 2, column 2: 'x' is not a number"),
        ("1 2 3 4 5", "at most 4 columns"),
        ("\n".join(["1"] * 7), "Q has 7 rows; at most 6"),
        ("1 2\n3", "row 2 has 1 number but row 1 has 2"),
        ("1 nan", "not a finite number"),
        ("inf 1", "not a finite number"),
        ("1 1e6", "1e+06 is out of range"),
        ("-101", "out of range"),
        ("<b>bold</b>", "is not a number"),
    ],
)
def test_parse_matrix_rejects_bad_input_with_clear_messages(text, message):
    with pytest.raises(ValueError, match=None) as err:
        sandbox.parse_matrix(text, "Q")
    assert message in str(err.value)


def test_long_tokens_are_cut_in_messages():
    with pytest.raises(ValueError) as err:
        sandbox.parse_matrix("a" * 500, "K")
    assert len(str(err.value)) < 100


# ------------------------------------------------------------------------------ Q/K/V steps


def test_qkv_steps_follow_the_formula():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    steps = sandbox.qkv_steps(q, k, v)
    np.testing.assert_allclose(steps.scores, q @ k.T)
    np.testing.assert_allclose(steps.scaled, q @ k.T / 2.0)
    np.testing.assert_allclose(steps.weights, _softmax(q @ k.T / 2.0))
    np.testing.assert_allclose(steps.output, _softmax(q @ k.T / 2.0) @ v)
    assert steps.d_k == 4 and steps.allowed.all()


def test_masks_give_zero_weight():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    causal = sandbox.qkv_steps(q, k, v, "causal")
    np.testing.assert_array_equal(causal.weights[np.triu_indices(4, 1)], 0)
    assert np.isneginf(causal.masked[0, 1])
    np.testing.assert_allclose(causal.weights.sum(axis=1), 1)
    np.testing.assert_allclose(causal.output[0], v[0])
    padded = sandbox.qkv_steps(q, k, v, "padding", n_padding=2)
    np.testing.assert_array_equal(padded.weights[:, 2:], 0)
    np.testing.assert_allclose(padded.weights[:, :2], _softmax(q @ k[:2].T / math.sqrt(3)))


@pytest.mark.parametrize(
    "q, k, v, kwargs, message",
    [
        (np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 1)), {}, "Q has 3 columns but K has 4"),
        (np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 1)), {}, "K has 2 rows but V has 3"),
        (np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 1)), {"mask": "padding", "n_padding": 2}, "at least one key"),
        (np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 1)), {"mask": "other"}, "unknown mask"),
    ],
)
def test_qkv_steps_shape_errors(q, k, v, kwargs, message):
    with pytest.raises(ValueError) as err:
        sandbox.qkv_steps(q, k, v, **kwargs)
    assert message in str(err.value)


# ------------------------------------------------------------------------------ score functions


def test_compare_scores_matches_each_formula():
    params = sandbox.default_score_params()
    q = np.array([1.0, 0.5])
    keys = np.array([[1.0, 0.2], [0.2, 1.0], [-1.0, 0.3], [2.0, 1.0]])
    comp = sandbox.compare_scores(q, keys, params)
    assert comp.names == sandbox.SCORE_NAMES
    expected = np.stack(
        [
            keys @ q,
            keys @ q / math.sqrt(2),
            keys @ params.w.T @ q,
            np.tanh(params.w_q @ q + keys @ params.w_k.T) @ params.v,
            keys @ q / (np.linalg.norm(q) * np.linalg.norm(keys, axis=1)),
        ]
    )
    np.testing.assert_allclose(comp.scores, expected, atol=1e-12)
    np.testing.assert_allclose(comp.weights, _softmax(expected), atol=1e-12)
    with pytest.raises(ValueError):
        sandbox.compare_scores(q, np.ones((2, 3)), params)


def test_softmax_saturates_without_scaling():
    result = sandbox.softmax_saturation(dims=(1, 16, 256), n_keys=8, n_draws=200)
    assert result.max_weight_dot[0] < result.max_weight_dot[1] < result.max_weight_dot[2]
    assert result.max_weight_dot[2] > 0.8
    assert np.all(result.max_weight_scaled < 0.5)
    assert result.grad_norm_dot[2] < 0.5 * result.grad_norm_scaled[2]
    np.testing.assert_allclose(result.example_dot.sum(axis=1), 1)
    # ‖diag(α) − ααᵀ‖ is 0 for a one-hot α and largest for a uniform one
    one_hot = sandbox._jacobian_norm(__import__("torch").tensor([[1.0, 0.0, 0.0]]))
    assert one_hot.item() == pytest.approx(0.0)


def test_soft_hard_local():
    ex = sandbox.soft_hard_local(focus=4, center=4.0, half_width=2)
    n = len(ex.tokens)
    assert ex.soft.sum() == pytest.approx(1.0)
    assert ex.hard.sum() == 1.0 and ex.hard[np.argmax(ex.soft)] == 1.0
    assert np.argmax(ex.soft) == 4
    outside = np.abs(np.arange(n) - 4.0) > 2
    np.testing.assert_array_equal(ex.window, ~outside)
    np.testing.assert_array_equal(ex.local_p[outside], 0)
    np.testing.assert_array_equal(ex.local_m[outside], 0)
    inside = ~outside
    gauss = np.exp(-((np.arange(n) - 4.0) ** 2) / (2 * 1.0**2))
    np.testing.assert_allclose(ex.local_p[inside], _softmax(ex.scores[inside]) * gauss[inside])
    np.testing.assert_allclose(ex.local_m[inside], _softmax(ex.scores[inside]))
    assert ex.local_m.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError):
        sandbox.soft_hard_local(focus=n, center=0, half_width=1)


# ------------------------------------------------------------------------------ complexity


def test_layers_keep_the_shape_and_timing_runs_on_tiny_inputs():
    import torch

    x = torch.randn(2, 10, 8)
    for layer in complexity.build_layers(8).values():
        assert layer(x).shape == (2, 10, 8)
    result = complexity.time_layers((8, 16, 32), d_model=8, repeats=1)
    assert set(result.seconds) == set(complexity.LAYERS)
    for secs in result.seconds.values():
        assert secs.shape == (3,) and np.all(secs > 0)
    slopes = complexity.growth_exponents(result)
    assert all(np.isfinite(p) for p in slopes.values())
    assert len(complexity.COMPLEXITY_TABLE) == 4
    with pytest.raises(ValueError):
        complexity.time_layers((0,), d_model=8)
