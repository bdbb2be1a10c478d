"""Score functions and weightings against their formulas, on small tensors."""

import math

import pytest
import torch

from models.nn.attention import (
    additive_score,
    attend,
    concat_score,
    cosine_score,
    dot_score,
    general_score,
    hard_weights,
    local_m_weights,
    local_p_weights,
    predictive_position,
    masked_softmax,
    scaled_dot_product_attention,
    scaled_dot_score,
)

torch.manual_seed(0)
B, S, D, A = 2, 5, 4, 3
q, k = torch.randn(B, D), torch.randn(B, S, D)


def loop(fn):
    """The score e_{b,i} = fn(q_b, k_{b,i}) computed one pair at a time."""
    return torch.tensor([[float(fn(q[b], k[b, i])) for i in range(S)] for b in range(B)])


def test_dot_and_scaled_dot():
    assert torch.allclose(dot_score(q, k), loop(lambda a, b: a @ b), atol=1e-6)
    assert torch.allclose(scaled_dot_score(q, k), loop(lambda a, b: a @ b / math.sqrt(D)), atol=1e-6)


def test_general():
    w = torch.randn(D, D)
    assert torch.allclose(general_score(q, k, w), loop(lambda a, b: a @ w @ b), atol=1e-5)


def test_additive():
    w_q, w_k, v = torch.randn(A, D), torch.randn(A, D), torch.randn(A)
    assert torch.allclose(
        additive_score(q, k, w_q, w_k, v), loop(lambda a, b: v @ torch.tanh(w_q @ a + w_k @ b)), atol=1e-5
    )


def test_concat():
    w, v = torch.randn(A, 2 * D), torch.randn(A)
    assert torch.allclose(concat_score(q, k, w, v), loop(lambda a, b: v @ torch.tanh(w @ torch.cat([a, b]))), atol=1e-5)


def test_cosine():
    expected = loop(lambda a, b: a @ b / (a.norm() * b.norm()))
    assert torch.allclose(cosine_score(q, k), expected, atol=1e-6)


def test_masked_softmax_rows_sum_to_one_and_ignore_padding():
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
    alpha = masked_softmax(dot_score(q, k), mask)
    assert torch.allclose(alpha.sum(-1), torch.ones(B))
    assert torch.all(alpha[1, 3:] == 0)
    # Padding values change nothing.
    k2 = k.clone()
    k2[1, 3:] = 100.0
    assert torch.allclose(masked_softmax(dot_score(q, k2), mask), alpha)


def test_attend_is_weighted_sum():
    alpha = masked_softmax(dot_score(q, k))
    c = attend(alpha, k)
    assert torch.allclose(c[0], sum(alpha[0, i] * k[0, i] for i in range(S)), atol=1e-6)


def test_hard_weights_pick_argmax():
    alpha = masked_softmax(dot_score(q, k))
    hard = hard_weights(alpha)
    assert torch.equal(hard.argmax(-1), alpha.argmax(-1)) and torch.all(hard.sum(-1) == 1)


def test_local_p_weights_window_and_gaussian():
    """Luong Eq. 10: softmax inside [p_t − D, p_t + D] times exp(−(s − p_t)² / (2 (D/2)²))."""
    scores = torch.zeros(1, 9)
    mask = torch.ones(1, 9, dtype=torch.bool)
    w = local_p_weights(scores, mask, torch.tensor([4.0]), half_width=2)
    assert torch.all(w[0, :2] == 0) and torch.all(w[0, 7:] == 0)
    # Equal scores: softmax is 1/5 in the window, times exp(-(i-4)^2 / (2 (D/2)^2)).
    expected = torch.tensor([0.2 * math.exp(-((i - 4) ** 2) / 2) for i in range(2, 7)])
    assert torch.allclose(w[0, 2:7], expected, atol=1e-6)


def test_local_p_follows_eq_10_at_a_real_valued_position():
    torch.manual_seed(1)
    scores, p_t, D = torch.randn(1, 12), 5.3, 3
    w = local_p_weights(scores, torch.ones(1, 12, dtype=torch.bool), torch.tensor([p_t]), half_width=D)
    inside = [s for s in range(12) if abs(s - p_t) <= D]  # 3 … 8
    align = torch.softmax(scores[0, inside], -1)
    for j, s in enumerate(inside):
        assert math.isclose(
            w[0, s].item(), align[j].item() * math.exp(-((s - p_t) ** 2) / (2 * (D / 2) ** 2)), rel_tol=1e-5
        )
    assert all(w[0, s] == 0 for s in range(12) if s not in inside)


def test_local_m_is_a_softmax_inside_the_window_and_rows_sum_to_one():
    """Luong local-m: p_t = t, a_t = softmax(e) over [p_t − D, p_t + D], nothing else (no Gaussian)."""
    torch.manual_seed(2)
    scores = torch.randn(3, 10)
    mask = torch.ones(3, 10, dtype=torch.bool)
    mask[2, 6:] = False
    centers = torch.tensor([0.0, 5.0, 9.0])  # the last row's p_t lies past its 6 real tokens
    w = local_m_weights(scores, mask, centers, half_width=2)
    assert torch.allclose(w.sum(-1), torch.ones(3))
    assert torch.allclose(w[1, 3:8], torch.softmax(scores[1, 3:8], -1)) and w[1, :3].sum() == 0 and w[1, 8:].sum() == 0
    assert torch.allclose(w[0, :3], torch.softmax(scores[0, :3], -1))
    assert w[2, 5] == 1.0  # the window past the end keeps the nearest real position


def test_predictive_position_is_eq_9():
    torch.manual_seed(3)
    h, w_p, v_p = torch.randn(2, 4), torch.randn(5, 4), torch.randn(5)
    src_len = torch.tensor([7, 12])
    p = predictive_position(h, w_p, v_p, src_len)
    for b in range(2):
        expected = src_len[b] * torch.sigmoid(v_p @ torch.tanh(w_p @ h[b]))
        assert torch.isclose(p[b], expected)
    assert torch.all((p > 0) & (p < src_len))


def test_local_window_beyond_sentence_keeps_a_position():
    mask = torch.tensor([[True, True, True, False, False, False]])
    w = local_p_weights(torch.zeros(1, 6), mask, torch.tensor([5.0]), half_width=1)
    assert w[0, 2] > 0 and torch.all(w[0, 3:] == 0)


@pytest.mark.parametrize("with_mask", [False, True])
def test_scaled_dot_product_attention_matches_torch(with_mask):
    qq, kk, vv = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    mask = torch.rand(2, 3, 5) > 0.3 if with_mask else None
    if mask is not None:
        mask[..., 0] = True
    out, weights = scaled_dot_product_attention(qq, kk, vv, mask)
    ref = torch.nn.functional.scaled_dot_product_attention(qq, kk, vv, attn_mask=mask)
    assert torch.allclose(out, ref, atol=1e-5)
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3))
