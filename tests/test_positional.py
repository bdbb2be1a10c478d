"""Positional encodings against their formulas: sinusoid, rotation, Transformer-XL, RoPE, ALiBi."""

import math

import numpy as np
import pytest
import torch

from models.lessons import positional as lesson
from models.nn import positional as pe


def _formula(length: int, d: int) -> np.ndarray:
    pos = np.arange(length)[:, None]
    out = np.zeros((length, d))
    for j in range(d):
        i = j // 2
        angle = pos[:, 0] / 10000 ** (2 * i / d)
        out[:, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return out


@pytest.mark.parametrize("d", [2, 7, 16, 64])
def test_sinusoidal_encoding_matches_the_paper(d):
    np.testing.assert_allclose(pe.sinusoidal_encoding(50, d).numpy(), _formula(50, d), atol=2e-5)
    np.testing.assert_array_equal(pe.sinusoid_at(torch.arange(50), d).numpy(), pe.sinusoidal_encoding(50, d).numpy())


def test_positional_encoding_module_adds_the_table():
    module = pe.PositionalEncoding(8, max_len=20)
    x = torch.zeros(2, 5, 8)
    torch.testing.assert_close(module(x), pe.sinusoidal_encoding(5, 8).expand(2, -1, -1))


def test_wavelengths_are_a_geometric_progression():
    d = 64
    lam = pe.wavelengths(d).numpy()
    assert len(lam) == d // 2
    assert lam[0] == pytest.approx(2 * math.pi)
    np.testing.assert_allclose(lam[1:] / lam[:-1], 10000 ** (2 / d))
    assert lam[-1] < 10000 * 2 * math.pi


@pytest.mark.parametrize("d", [2, 8, 64])
def test_rotation_matrix_is_block_diagonal_and_orthogonal(d):
    m = pe.rotation_matrix(3.0, d)
    blocks = torch.block_diag(*[m[i : i + 2, i : i + 2] for i in range(0, d, 2)])
    torch.testing.assert_close(m, blocks)
    torch.testing.assert_close(m @ m.T, torch.eye(d, dtype=m.dtype))
    torch.testing.assert_close(pe.rotation_matrix(0, d), torch.eye(d, dtype=m.dtype))
    torch.testing.assert_close(pe.rotation_matrix(2, d) @ pe.rotation_matrix(5, d), pe.rotation_matrix(7, d))
    omega = pe.inverse_frequencies(d, torch.float64)[0]
    block = torch.tensor(
        [[math.cos(3 * omega), math.sin(3 * omega)], [-math.sin(3 * omega), math.cos(3 * omega)]], dtype=torch.float64
    )
    torch.testing.assert_close(m[:2, :2], block)


@pytest.mark.parametrize("d", [4, 32, 128])
def test_shift_by_k_is_the_same_linear_map_for_every_position(d):
    length = 200
    table = pe.sinusoid_at(torch.arange(2 * length), d, torch.float64)
    for k in [0, 1, 2, 7, 50, 199]:
        shifted = table[:length] @ pe.rotation_matrix(k, d).T
        assert (shifted - table[k : k + length]).abs().max() < 1e-10


def test_rotation_needs_even_dimension():
    with pytest.raises(ValueError):
        pe.rotation_matrix(1, 7)
    with pytest.raises(ValueError):
        lesson.rotation_check(10, 7, 1)


def test_rotation_check_reports_tiny_errors_for_every_k():
    check = lesson.rotation_check(64, 32, k=9, pos=3)
    assert check.max_error < 1e-12
    assert check.max_error_by_k.shape == (64,)
    assert check.max_error_by_k.max() < 1e-12
    assert check.max_error_float32 < 1e-4
    np.testing.assert_allclose(check.rotated, check.pe_shifted, atol=1e-12)
    np.testing.assert_allclose(check.matrix, pe.rotation_matrix(9, 32).numpy())
    with pytest.raises(ValueError):
        lesson.rotation_check(10, 8, k=10)


def test_dot_product_depends_only_on_the_offset():
    trace = lesson.sinusoid_trace(80, 32)
    assert trace.offset_spread.max() < 1e-9
    np.testing.assert_allclose(trace.offset_measured, trace.offset_formula, atol=1e-9)
    assert trace.offset_formula[0] == pytest.approx(16)  # ‖PE‖² = d/2
    np.testing.assert_allclose(np.diag(trace.similarity), 16, rtol=1e-5)


def test_transformer_xl_terms():
    torch.manual_seed(0)
    L, d = 6, 8
    q, k = torch.randn(L, d, dtype=torch.float64), torch.randn(L, d, dtype=torch.float64)
    w_r = torch.randn(d, d, dtype=torch.float64)
    u, v = torch.randn(d, dtype=torch.float64), torch.randn(d, dtype=torch.float64)
    terms = pe.relative_scores(q, k, w_r, u, v)
    torch.testing.assert_close(terms["a"], q @ k.T)
    torch.testing.assert_close(terms["total"], terms["a"] + terms["b"] + terms["c"] + terms["d"])
    r = lambda off: pe.sinusoid_at(torch.tensor([float(off)]), d, torch.float64)[0]  # noqa: E731
    torch.testing.assert_close(terms["b"][4, 1], q[4] @ (w_r @ r(3)))
    torch.testing.assert_close(terms["c"][2, 5], u @ k[5])
    dd = terms["d"]  # depends on i − j only: constant along diagonals
    for off in range(-L + 1, L):
        diag = torch.diagonal(dd, off)
        torch.testing.assert_close(diag, diag[0].expand_as(diag))
    shifted = pe.relative_scores(q, k, w_r, u, v, torch.arange(L) + 100.0, torch.arange(L) + 100.0)
    torch.testing.assert_close(shifted["total"], terms["total"])


def test_rope_rotates_pairs_and_scores_depend_on_relative_position():
    torch.manual_seed(1)
    d = 16
    q, k = torch.randn(d, dtype=torch.float64), torch.randn(d, dtype=torch.float64)
    x = q.expand(40, -1)
    rq = pe.apply_rope(x)
    torch.testing.assert_close(rq[0], q)  # position 0 is not rotated
    torch.testing.assert_close(rq.norm(dim=-1), x.norm(dim=-1))
    rk = pe.apply_rope(k.expand(40, -1))
    scores = rq @ rk.T
    for off in range(-5, 6):
        diag = torch.diagonal(scores, off)
        torch.testing.assert_close(diag, diag[0].expand_as(diag))
    # pair (0, 1) rotated by angle p·θ_0 = p: complex multiplication by e^{ip}
    z = complex(q[0], q[1]) * complex(math.cos(3), math.sin(3))
    assert rq[3, 0].item() == pytest.approx(z.real) and rq[3, 1].item() == pytest.approx(z.imag)
    with pytest.raises(ValueError):
        pe.apply_rope(torch.zeros(3, 5))


def test_alibi_slopes_and_bias():
    torch.testing.assert_close(pe.alibi_slopes(8), torch.tensor([2.0**-i for i in range(1, 9)]))
    torch.testing.assert_close(pe.alibi_slopes(6), torch.tensor([2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]))
    bias = pe.alibi_bias(5, 4)
    assert bias.shape == (4, 5, 5)
    assert bias[0, 4, 1].item() == pytest.approx(-0.25 * 3)  # m_1 = 2^(−8/4) = 1/4
    assert torch.all(torch.diagonal(bias, dim1=1, dim2=2) == 0)
    assert torch.all(bias[:, 0, 1:] == 0)  # above the diagonal: masked anyway
    sym = pe.alibi_bias(5, 4, causal=False)
    torch.testing.assert_close(sym, sym.transpose(1, 2))
    with pytest.raises(ValueError):
        pe.alibi_slopes(0)


def test_alibi_is_causal_minus_m_times_i_minus_j():
    """Press et al.: the bias on key j ≤ i is −m·(i − j), never −m·|i − j|; the future is masked."""
    n, heads = 9, 8
    bias = pe.alibi_bias(n, heads).numpy()
    slopes = pe.alibi_slopes(heads).numpy()
    for h in range(heads):
        for i in range(n):
            for j in range(i + 1):
                assert bias[h, i, j] == pytest.approx(-slopes[h] * (i - j))
    maps = lesson.compare_schemes(train_len=4, eval_len=n, d_model=8, n_heads=heads, alibi_head=2)
    i, j = np.indices((n, n))
    expected = np.where(j <= i, -(i - j) / (n - 1), np.nan)  # scaled to [−1, 1]; j > i masked
    np.testing.assert_allclose(maps.maps["ALiBi"], expected)
    assert maps.alibi_slope == pytest.approx(slopes[2])


def test_learned_positions_loader(tmp_path):
    from safetensors.torch import save_file

    assert lesson.find_learned_positions(tmp_path / "missing") is None
    save_file({"encoder.layer.0.weight": torch.zeros(3, 3)}, str(tmp_path / "a.safetensors"))
    assert lesson.find_learned_positions(tmp_path) is None
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file")
    table = torch.arange(20, dtype=torch.float32).reshape(5, 4)
    save_file(
        {
            "bert.embeddings.position_embeddings.weight": table,
            "bert.embeddings.word_embeddings.weight": torch.ones(9, 4),
        },
        str(tmp_path / "sub_b.safetensors"),
    )
    found = lesson.find_learned_positions(tmp_path)
    assert found is not None
    assert found.tensor_name == "bert.embeddings.position_embeddings.weight"
    np.testing.assert_array_equal(found.matrix, table.numpy())


def test_compare_schemes():
    result = lesson.compare_schemes(train_len=8, eval_len=24, d_model=16, n_heads=4, alibi_head=1)
    assert set(result.maps) == set(lesson.SCHEMES)
    assert np.isnan(result.maps["Learned (absolute)"]).all()
    for name in ("Sinusoidal (absolute)", "Transformer-XL (relative)", "RoPE", "ALiBi"):
        m = result.maps[name]
        assert m.shape == (24, 24) and np.nanmax(np.abs(m)) == pytest.approx(1.0)
        for off in (-3, 0, 5):
            diag = np.diagonal(m, off)
            np.testing.assert_allclose(diag, diag[0], atol=1e-9)
    i, j = np.indices((24, 24))
    np.testing.assert_allclose(result.maps["ALiBi"], np.where(j <= i, -(i - j) / 23, np.nan))
    assert result.alibi_slope == pytest.approx(2**-4)
    assert 0 < result.rope_unseen_pairs <= 8
    learned = lesson.LearnedPositions("x", "pos_embedding", np.random.default_rng(0).normal(size=(12, 6)))
    with_table = lesson.compare_schemes(8, 24, 16, learned=learned).maps["Learned (absolute)"]
    assert np.isfinite(with_table[:12, :12]).all() and np.isnan(with_table[12:, :]).all()
    np.testing.assert_allclose(np.diag(with_table)[:12], 1.0)


# ------------------------------------------- the position-only score of the shipped tf-en-fr


@pytest.fixture(scope="module")
def tf_en_fr():
    from models.checkpoints import CheckpointError, load_transformer

    try:
        return load_transformer("tf-en-fr").model
    except CheckpointError as exc:
        pytest.skip(f"tf-en-fr is not available: {exc}")


def _score_by_formula(model, layer: int, head: int, length: int) -> np.ndarray:
    """(W_Q PE_i)·(W_K PE_j)/√d_k, biases left out, from the module's weights and the paper's
    sinusoid written out in numpy (not the model's PE buffer)."""
    attn = model.encoder.layers[layer].self_attn
    rows = slice(head * attn.d_k, (head + 1) * attn.d_k)
    w_q = attn.w_q.weight.detach().double().numpy()[rows]
    w_k = attn.w_k.weight.detach().double().numpy()[rows]
    table = _formula(length, attn.d_model)
    return (table @ w_q.T) @ (table @ w_k.T).T / math.sqrt(attn.d_k)


@pytest.mark.parametrize("layer", [0, 1])
def test_tf_en_fr_position_only_score_is_not_a_function_of_i_minus_j(tf_en_fr, layer):
    length = 48
    attn = tf_en_fr.encoder.layers[layer].self_attn
    assert (attn.d_model, attn.n_heads, attn.d_k) == (128, 4, 32)
    for head in range(attn.n_heads):
        result = lesson.model_position_scores(tf_en_fr, layer, head, length)
        expected = _score_by_formula(tf_en_fr, layer, head, length)
        np.testing.assert_allclose(result.scores, expected, atol=1e-4 * np.abs(expected).max())
        peak = np.abs(expected).max()
        assert result.peak == pytest.approx(peak, rel=1e-4)
        # two cells on one diagonal (the same i − j) differ by more than 20 % of max |score|
        (i1, j1), (i2, j2) = result.worst_low, result.worst_high
        assert i1 - j1 == i2 - j2 == result.worst_offset
        assert expected[i2, j2] - expected[i1, j1] > 0.2 * peak
        spread = max(np.ptp(np.diagonal(expected, o)) for o in range(-length + 1, length))
        assert result.variation == pytest.approx(spread / peak, rel=1e-3)
        assert result.variation > 0.5
    # the encodings' own dot product, by contrast, depends on i − j only
    table = _formula(length, 128)
    sim = table @ table.T
    assert max(np.ptp(np.diagonal(sim, o)) for o in range(-length + 1, length)) < 1e-9 * np.abs(sim).max()


def test_position_only_score_with_rotation_commuting_weights_depends_on_offset_only():
    """With W_Q = W_K = I the score is a sum of PE dot products: variation 0 on every diagonal."""
    from models.nn.transformer import Transformer, TransformerConfig

    model = Transformer(
        TransformerConfig(
            vocab_size=6, d_model=8, n_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=16, max_len=20
        )
    )
    attn = model.encoder.layers[0].self_attn
    with torch.no_grad():
        attn.w_q.weight.copy_(torch.eye(8))
        attn.w_k.weight.copy_(torch.eye(8))
    result = lesson.model_position_scores(model, 0, 1)
    assert result.scores.shape == (20, 20)
    assert result.variation < 1e-6
    with pytest.raises(ValueError):
        lesson.model_position_scores(model, 1, 0)
    with pytest.raises(ValueError):
        lesson.model_position_scores(model, 0, 2)


def test_embedding_mix():
    d = 64
    result = lesson.embedding_mix(d, scale=math.sqrt(d), init="tied")
    assert result.pe_norm == pytest.approx(math.sqrt(d / 2))
    np.testing.assert_allclose(result.summed, result.embedded + result.pe)
    assert 4 < result.word_norm < 12  # ≈ √d · 1
    assert np.all(np.diff(result.word_share) > 0)
    assert result.same_word_cos[-1] > result.same_word_cos[0]
    assert result.same_pos_cos[-1] < result.same_pos_cos[0]
    with pytest.raises(ValueError):
        lesson.embedding_mix(d, 1.0, init="other")


def test_padding_uses_a_zero_row():
    trace = lesson.padded_positions((3, 1, 4), d_model=8)
    np.testing.assert_array_equal(trace.position_ids, [[1, 2, 3, 0], [1, 0, 0, 0], [1, 2, 3, 4]])
    np.testing.assert_array_equal(trace.table[0], 0)
    assert np.all(trace.encoded[1, 1:] == 0)
    np.testing.assert_allclose(trace.encoded[2], pe.sinusoidal_encoding(4, 8).numpy())
    with pytest.raises(ValueError):
        lesson.padded_positions((2, 0), 8)
