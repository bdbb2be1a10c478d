"""The at-scale lessons against their formulas (models.lessons.at_scale): FlashAttention's tiled pass and
the online softmax against softmax(QKᵀ/√d + M)V, a row rebuilt from the saved log-sum-exp, windows with
sinks, linear attention's parallel, recurrent and chunked forms, the KV cache's size, a real head's
captured Q, K, V against the model's own weights, and the figures' numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from models.lessons.at_scale import (
    GEMMA3,
    SMOLLM2,
    allowed_mask,
    cache_shapes,
    exact_attention,
    feature_map,
    fit_exponent,
    linear_chunked,
    linear_parallel,
    linear_recurrent,
    measure_cost,
    rebuild_row,
    tiled_attention,
    window_cache_tokens,
    windowed_attention,
)


def _qkv(n: int = 37, d: int = 8, seed: int = 0, scale: float = 2.0):
    rng = np.random.default_rng(seed)
    return tuple((rng.standard_normal((n, d)) * scale).astype(np.float32) for _ in range(3))


def _torch_reference(q, k, v, allowed):
    """softmax(QKᵀ/√d + M)V in float64 torch, written independently of the module."""
    qt, kt, vt = (torch.from_numpy(a).double() for a in (q, k, v))
    s = (qt @ kt.T) / math.sqrt(q.shape[1])
    s = s.masked_fill(~torch.from_numpy(allowed), float("-inf"))
    p = torch.softmax(s, dim=-1)
    return (p @ vt).numpy(), p.numpy()


def test_exact_attention_is_the_formula() -> None:
    q, k, v = _qkv()
    out, p = exact_attention(q, k, v)
    ref, ref_p = _torch_reference(q, k, v, np.tril(np.ones((37, 37), dtype=bool)))
    np.testing.assert_allclose(out, ref, atol=1e-5)
    np.testing.assert_allclose(p, ref_p, atol=1e-6)


@pytest.mark.parametrize("block_q, block_k", [(8, 8), (5, 5), (16, 4), (4, 16), (64, 64), (1, 1)])
@pytest.mark.parametrize("version", [1, 2])
def test_tiled_equals_exact(block_q: int, block_k: int, version: int) -> None:
    q, k, v = _qkv()
    ref, _ = _torch_reference(q, k, v, np.tril(np.ones((37, 37), dtype=bool)))
    result = tiled_attention(q, k, v, block_q, block_k, version=version)
    np.testing.assert_allclose(result.output, ref, atol=2e-5)
    # m is each row's maximum score, ℓ = Σ exp(s − m): the online softmax ends where the two-pass one does
    s = (q.astype(np.float64) @ k.T.astype(np.float64)) / math.sqrt(8)
    s[~np.tril(np.ones((37, 37), dtype=bool))] = -np.inf
    np.testing.assert_allclose(result.m, s.max(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(result.lse, np.log(np.exp(s - s.max(1, keepdims=True)).sum(1)) + s.max(1), atol=1e-4)


def test_tiled_without_mask() -> None:
    q, k, v = _qkv(n=20)
    ref, _ = _torch_reference(q, k, v, np.ones((20, 20), dtype=bool))
    np.testing.assert_allclose(tiled_attention(q, k, v, 6, causal=False).output, ref, atol=2e-5)


def test_recorded_steps_rescale_when_the_maximum_grows() -> None:
    """Each step: m_new = max(m_old, rowmax S), the correction is exp(m_old − m_new), ℓ_new = correction·ℓ_old +
    Σ exp(S − m_new), the tile's p lies in [0, 1], and the last step's output is the block's final output."""
    q, k, v = _qkv(n=32)
    result = tiled_attention(q, k, v, 8, record=2)
    assert [(s.key_start, s.key_stop) for s in result.steps] == [(0, 8), (8, 16), (16, 24)]
    for s in result.steps:
        np.testing.assert_allclose(s.m_new, np.maximum(s.m_old, s.scores.max(axis=1)), rtol=1e-6)
        finite = np.isfinite(s.m_old)
        np.testing.assert_allclose(s.correction[finite], np.exp(s.m_old - s.m_new)[finite], rtol=1e-5)
        p = np.exp(s.scores - s.m_new[:, None])
        np.testing.assert_allclose(s.p, p, rtol=1e-5, atol=1e-7)
        assert s.p.min() >= 0 and s.p.max() <= 1 + 1e-6
        np.testing.assert_allclose(s.l_new, s.correction * s.l_old + p.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(result.steps[-1].output, result.output[16:24], atol=1e-6)
    assert (result.steps[0].m_old == -np.inf).all()


def test_a_row_comes_back_from_q_k_and_the_log_sum_exp() -> None:
    q, k, v = _qkv()
    _, p = exact_attention(q, k, v)
    lse = tiled_attention(q, k, v, 8).lse
    for i in (0, 5, 36):
        np.testing.assert_allclose(rebuild_row(q[i], k, float(lse[i]), i), p[i], atol=1e-6)


@pytest.mark.parametrize("window, sinks, block", [(4, 0, 8), (5, 2, 8), (3, 4, 3), (40, 0, 16), (1, 1, 5)])
def test_window_and_sinks_against_the_masked_formula(window: int, sinks: int, block: int) -> None:
    q, k, v = _qkv()
    allowed = allowed_mask(37, 37, window, sinks)
    ref, _ = _torch_reference(q, k, v, allowed)
    np.testing.assert_allclose(windowed_attention(q, k, v, window, sinks, block), ref, atol=2e-5)
    np.testing.assert_allclose(exact_attention(q, k, v, window=window, sinks=sinks)[0], ref, atol=2e-5)
    # query t sees t − w < s ≤ t and s < sinks (≤ t)
    t, s = 20, np.arange(37)
    assert np.array_equal(np.flatnonzero(allowed[t]), np.flatnonzero((s <= t) & ((s > t - window) | (s < sinks))))


def test_linear_attention_forms_agree_and_follow_eq_4() -> None:
    q, k, v = _qkv(n=29, scale=1.0)
    fq, fk = feature_map(q).astype(np.float64), feature_map(k).astype(np.float64)
    assert (fq > 0).all()
    ref = np.stack([(fq[i] @ fk[: i + 1].T) @ v[: i + 1] / (fq[i] @ fk[: i + 1].T).sum() for i in range(29)])
    parallel = linear_parallel(q, k, v)
    recurrent, state = linear_recurrent(q, k, v)
    np.testing.assert_allclose(parallel, ref, atol=1e-5)
    np.testing.assert_allclose(recurrent, ref, atol=1e-5)
    for chunk in (1, 4, 7, 64):
        np.testing.assert_allclose(linear_chunked(q, k, v, chunk), ref, atol=1e-5)
    np.testing.assert_allclose(state, fk.T @ v, atol=1e-4)  # S_n = Σ φ(k_t) v_tᵀ
    assert state.shape == (8, 8)
    x = np.array([-2.0, 0.0, 3.0], dtype=np.float32)
    np.testing.assert_allclose(feature_map(x), [math.exp(-2.0), 1.0, 4.0], rtol=1e-6)


def test_kv_cache_sizes() -> None:
    assert SMOLLM2.bytes_per_token(2) == 2 * 30 * 3 * 64 * 2 == 23_040
    assert GEMMA3.bytes_per_token(2) == 2 * 18 * 1 * 256 * 2
    kinds = [(s.sharing(), s.kv_heads) for s in cache_shapes()]
    assert kinds == [("MHA", 9), ("GQA", 3), ("MQA", 1), ("MQA", 1)]
    mha, gqa, mqa = (s.bytes_per_token(4) for s in cache_shapes()[:3])
    assert mha == 3 * gqa == 9 * mqa
    assert window_cache_tokens(1000, None) == 1000
    assert window_cache_tokens(1000, 64, 4) == 68 and window_cache_tokens(10, 64, 4) == 10


def test_fit_exponent_and_the_cost_table() -> None:
    n = [1024, 2048, 4096, 8192]
    assert fit_exponent(n, [x**2 * 3.0 for x in n], 1024, 8192) == pytest.approx(2.0)
    assert fit_exponent(n, [x * 0.5 for x in n], 1024, 8192) == pytest.approx(1.0)
    assert math.isnan(fit_exponent(n, [1.0] * 4, 5000, 6000))
    table = measure_cost(lengths=(64, 512), repeats=1)
    assert table.seconds.shape == table.peak_bytes.shape == (4, 2)
    assert (table.seconds > 0).all()
    exact, tiled = table.methods.index("exact"), table.methods.index("tiled")
    assert table.peak_bytes[exact, 1] >= table.matrix_bytes[1]  # the n × n matrix is really held
    assert table.to_dict()["matrix_bytes"] == [4 * 64 * 64, 4 * 512 * 512]
    assert table.peak_bytes[tiled, 1] < table.peak_bytes[exact, 1]


def test_lab_head_against_the_models_own_attention() -> None:
    """tf-lm's captured Q, K, V give the model's own weights and head output through the formula."""
    from corpora.text import tokenize
    from models.checkpoints import load_transformer
    from models.lessons.at_scale import lab_head_qkv
    from models.text.vocab import SOS

    loaded = load_transformer("tf-lm")
    words = tokenize("and god said , let there be light")
    ids = [loaded.tgt_stoi[SOS]] + [loaded.tgt_stoi.get(w, 1) for w in words]
    head = lab_head_qkv(loaded.model, ids, 1, 2, [SOS] + words, "tf-lm")
    out, p = exact_attention(head.q, head.k, head.v)
    np.testing.assert_allclose(p, head.model_weights, atol=1e-5)
    np.testing.assert_allclose(tiled_attention(head.q, head.k, head.v, 4).output, head.model_output, atol=1e-5)
    with pytest.raises(ValueError):
        lab_head_qkv(loaded.model, ids, 0, 99, [SOS] + words)


def test_tile_figure_draws_the_step() -> None:
    from viz_core.at_scale import tile_figure

    q, k, v = _qkv(n=20)
    _, p = exact_attention(q, k, v)
    result = tiled_attention(q, k, v, 8, record=1)
    step = result.steps[1]
    fig = tile_figure(
        p,
        step.p,
        [f"w{i}" for i in range(20)],
        8,
        1,
        1,
        2,
        title="t",
        matrix_title="m",
        tile_title="tile",
        x_title="x",
        y_title="y",
        hover="%{z}",
    )
    heat = [tr for tr in fig.data if tr.type == "heatmap"]
    assert all((tr.zmin, tr.zmax) == (0.0, 1.0) for tr in heat)  # the one 0–1 scale
    np.testing.assert_allclose(np.nan_to_num(np.asarray(heat[0].z, dtype=float)), np.tril(p), atol=1e-6)
    drawn = np.asarray(heat[2].z, dtype=float)
    np.testing.assert_allclose(
        np.nan_to_num(drawn), np.where(allowed_mask(8, 8, q_start=8, k_start=8), step.p, 0), atol=1e-6
    )
    current = [s for s in fig.layout.shapes if s.line.width == 4]
    assert len(current) == 1 and (current[0].x0, current[0].y0) == (7.5, 7.5)


# ---------------------------------------------------------------------------- windows and sinks on a model


def _tiny_llama(layers: int = 1):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=40,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        rope_theta=100.0,
        attn_implementation="eager",
    )
    return LlamaForCausalLM(config).eval()


def _own_nll(model, ids, position_ids=None) -> np.ndarray:
    """−log p of each next token from the model's own forward pass (its own causal mask; with ``position_ids``,
    a plain causal mask built here: transformers reads a jump in positions as the start of a packed sequence),
    float64."""
    mask = None
    if position_ids is not None:
        mask = torch.full((len(ids), len(ids)), torch.finfo(torch.float32).min).triu(1)[None, None]
    with torch.inference_mode():
        logits = (
            model(input_ids=torch.tensor([ids]), position_ids=position_ids, attention_mask=mask, use_cache=False)
            .logits[0]
            .double()
        )
    return (-torch.log_softmax(logits[:-1], -1).gather(1, torch.tensor(ids[1:])[:, None])[:, 0]).numpy()


def test_additive_mask_against_a_hand_built_one() -> None:
    from models.lessons.at_scale import additive_mask

    # 6 tokens, window 2, 1 sink: query t sees t and t − 1, and token 0
    ok = np.array(
        [
            [1, 0, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [1, 1, 1, 0, 0, 0],
            [1, 0, 1, 1, 0, 0],
            [1, 0, 0, 1, 1, 0],
            [1, 0, 0, 0, 1, 1],
        ],
        dtype=bool,
    )
    mask = additive_mask(6, 2, 1)
    assert tuple(mask.shape) == (1, 1, 6, 6) and mask.dtype == torch.float32
    lowest = torch.finfo(torch.float32).min
    assert torch.equal(mask[0, 0], torch.where(torch.from_numpy(ok), 0.0, lowest))
    window_only = np.tril(np.triu(np.ones((6, 6), dtype=bool), -1))  # t − 2 < s ≤ t
    assert torch.equal(additive_mask(6, 2)[0, 0] == 0, torch.from_numpy(window_only))
    assert torch.equal(additive_mask(6)[0, 0] == 0, torch.from_numpy(np.tril(np.ones((6, 6), dtype=bool))))


@pytest.mark.slow  # the first tiny Llama imports transformers' model code (seconds)
def test_full_mask_reproduces_the_models_own_output() -> None:
    from models.lessons.at_scale import token_nll

    model = _tiny_llama(layers=3)
    ids = [int(i) for i in torch.randint(0, 40, (50,), generator=torch.Generator().manual_seed(1))]
    own = _own_nll(model, ids)
    np.testing.assert_array_equal(token_nll(model, ids), own)  # bit for bit: the same mask values
    np.testing.assert_array_equal(token_nll(model, ids, window=50), own)  # a window as long as the text
    assert np.abs(token_nll(model, ids, window=8) - own)[8:].max() > 1e-3  # a short one changes the output


@pytest.mark.slow
@pytest.mark.parametrize("window, sinks", [(5, 0), (5, 2), (9, 3)])
def test_window_mask_is_a_rolling_cache(window: int, sinks: int) -> None:
    """With one layer, query t under the mask sees exactly what a cache of the first ``sinks`` tokens and the
    last ``window`` holds: the model run on those tokens alone, at their own positions, gives the same
    next-token loss."""
    from models.lessons.at_scale import token_nll

    model = _tiny_llama(layers=1)
    ids = [int(i) for i in torch.randint(0, 40, (30,), generator=torch.Generator().manual_seed(2))]
    masked = token_nll(model, ids, window, sinks)
    for t in (window + sinks, 17, 28):
        kept = sorted(set(range(min(sinks, t + 1))) | set(range(max(0, t - window + 1), t + 1)))
        sub = [ids[i] for i in kept] + [ids[t + 1]]
        pos = torch.tensor([kept + [t + 1]])
        assert masked[t] == pytest.approx(_own_nll(model, sub, pos)[-1], abs=1e-5)


@pytest.mark.slow  # the first tiny Llama imports transformers' model code (seconds)
def test_window_perplexities_are_exp_mean_nll() -> None:
    from models.lessons.at_scale import token_nll, window_perplexities

    model = _tiny_llama(layers=2)
    ids = [int(i) for i in torch.randint(0, 40, (40,), generator=torch.Generator().manual_seed(3))]
    result = window_perplexities(model, ids, [(None, 0), (8, 0), (8, 2)])
    assert result.scored_from == 8 and result.cache_tokens == [40, 8, 10]
    own = _own_nll(model, ids)
    assert result.perplexity[0] == pytest.approx(math.exp(own[8:].mean()))
    assert result.perplexity_all[0] == pytest.approx(math.exp(own.mean()))
    assert result.perplexity[2] == pytest.approx(math.exp(token_nll(model, ids, 8, 2)[8:].mean()))
    assert result.ratio(1) == pytest.approx(result.perplexity[1] / result.perplexity[0])


def test_the_window_baseline_is_consistent() -> None:
    """bench/baselines/window_sinks.json (the page draws it): its cache sizes follow from its settings, and at the
    largest window the sinks bring the perplexity within 10% of full attention where the window alone is not."""
    import json

    from tests.conftest import ROOT

    data = json.loads((ROOT / "bench" / "baselines" / "window_sinks.json").read_text(encoding="utf-8"))
    assert data["windows"][0] is None and data["sinks"][0] == 0
    assert data["cache_tokens"] == [
        window_cache_tokens(data["n_tokens"], w, s) for w, s in zip(data["windows"], data["sinks"])
    ]
    full, big = data["perplexity"][0], max(w for w in data["windows"] if w is not None)
    alone = [p for w, s, p in zip(data["windows"], data["sinks"], data["perplexity"]) if w == big and s == 0][0]
    sunk = [p for w, s, p in zip(data["windows"], data["sinks"], data["perplexity"]) if w == big and s > 0][0]
    assert sunk <= 1.10 * full < alone


@pytest.mark.slow
def test_the_window_baseline_against_smollm2() -> None:
    """The baseline's full and largest window + sinks perplexities recomputed on SmolLM2 (the full one from the
    model's own unmasked pass); skipped where SmolLM2 is not converted."""
    import json

    from bench.window_sinks import long_text_ids
    from models.inference.llm import LLMError, is_converted, load_llm
    from models.lessons.at_scale import token_nll
    from tests.conftest import ROOT

    try:
        if not is_converted():
            pytest.skip("SmolLM2 is not converted (python -m models.prepare_llm)")
        llm = load_llm()
    except LLMError as exc:
        pytest.skip(str(exc))
    data = json.loads((ROOT / "bench" / "baselines" / "window_sinks.json").read_text(encoding="utf-8"))
    ids = long_text_ids(llm.tokenizer, data["n_tokens"])
    start = data["scored_from"]
    own = _own_nll(llm.model, ids)
    assert math.exp(own[start:].mean()) == pytest.approx(data["perplexity"][0], rel=1e-5)
    i = len(data["windows"]) - 1
    nll = token_nll(llm.model, ids, data["windows"][i], data["sinks"][i])
    assert math.exp(nll[start:].mean()) == pytest.approx(data["perplexity"][i], rel=1e-5)


# ---------------------------------------------------------------------------- linear attention, trained


def _trained_pair(steps: int = 30):
    """Both small LMs trained for a few steps on a synthetic stream (a repeating pattern with noise)."""
    from models.lessons.linear_lm import Corpus, TinyLMConfig, train_one

    rng = np.random.default_rng(0)
    stream = (np.tile(np.arange(20), 300) + (rng.random(6000) < 0.1) * rng.integers(0, 30, 6000)) % 30
    corpus = Corpus([f"w{i}" for i in range(30)], stream.astype(np.int64), stream[:700].astype(np.int64))
    config = TinyLMConfig(30, d_model=32, n_heads=4, n_layers=2, d_ff=64, context=32)
    return corpus, {kind: train_one(kind, corpus, steps, batch_size=8, config=config) for kind in ("softmax", "linear")}


@pytest.fixture(scope="module")
def trained():
    return _trained_pair()


def test_linear_lm_attention_is_the_formula() -> None:
    """The linear layer's parallel form against eq. 4 written out per position, and softmax against the masked
    formula, on one head's projections."""
    from models.lessons.linear_lm import EPS, Attention, TinyLMConfig

    torch.manual_seed(0)
    for kind in ("softmax", "linear"):
        attn = Attention(TinyLMConfig(10, kind, d_model=8, n_heads=2))
        x = torch.randn(1, 7, 8)
        q, k, v = attn._heads(x)
        rows = []
        for i in range(7):
            if kind == "linear":
                fq, fk = torch.nn.functional.elu(q[0, :, i]) + 1, torch.nn.functional.elu(k[0, :, : i + 1]) + 1
                w = (fk @ fq[..., None])[..., 0]  # (heads, i + 1): φ(q_i)ᵀφ(k_j)
                rows.append((w[..., None] * v[0, :, : i + 1]).sum(1) / (w.sum(1, keepdim=True) + EPS))
            else:
                w = torch.softmax((k[0, :, : i + 1] @ q[0, :, i][..., None])[..., 0] / 2.0, dim=-1)
                rows.append((w[..., None] * v[0, :, : i + 1]).sum(1))
        o = torch.stack(rows, 1)  # (heads, n, dh)
        expected = attn.out(o.transpose(0, 1).reshape(1, 7, 8))
        torch.testing.assert_close(attn(x), expected, atol=1e-5, rtol=1e-5)


@pytest.mark.slow
def test_trained_linear_model_recurrent_equals_parallel(trained) -> None:
    """After training, the linear LM run one token at a time (S_t, z_t per head) gives the logits of its
    parallel form (the masked n × n φ(Q)φ(K)ᵀ) and of its chunked form; the softmax LM with its KV cache too."""
    from models.lessons.linear_lm import prefill, state_bytes

    corpus, pair = trained
    ids = torch.from_numpy(corpus.heldout[:100])[None]
    for kind, (model, stats, losses) in pair.items():
        assert stats["steps"] == 30 and losses[-1] < losses[0]  # it trained
        with torch.inference_mode():
            parallel = model(ids)
            torch.testing.assert_close(model.recurrent_logits(ids), parallel, atol=1e-4, rtol=1e-4)
            if kind == "linear":
                torch.testing.assert_close(model(ids, chunked=True), parallel, atol=1e-4, rtol=1e-4)
            state = prefill(model, ids[:, :99])
            torch.testing.assert_close(model.step(ids[:, 99], 99, state)[0], parallel[:, 99], atol=1e-4, rtol=1e-4)
        c = model.config
        per_layer = 2 * 99 * c.d_model if kind == "softmax" else c.n_heads * (c.d_head**2 + c.d_head)
        assert state_bytes(state) == c.n_layers * per_layer * 4


@pytest.mark.slow
def test_both_models_read_the_same_batches_and_heldout_perplexity(trained) -> None:
    from models.lessons.linear_lm import batch, heldout_perplexity

    corpus, pair = trained
    a, b = batch(corpus.train, 5, 8, 32, 0), batch(corpus.train, 5, 8, 32, 0)
    assert torch.equal(a, b) and not torch.equal(a, batch(corpus.train, 6, 8, 32, 0))
    model = pair["linear"][0]
    windows = corpus.heldout[: 3 * 33].reshape(3, 33)
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.from_numpy(windows[:, :-1])).double(), -1)
    nll = -np.mean([float(logp[w, t, windows[w, t + 1]]) for w in range(3) for t in range(32)])
    assert heldout_perplexity(model, corpus.heldout, 32, windows=3) == pytest.approx(math.exp(nll), rel=1e-5)


def test_the_linear_baseline_is_consistent() -> None:
    """bench/baselines/linear_attention.json (the page draws it): each state size follows from the model's sizes
    (the KV cache 2 × layers × n × d floats; S and z: layers × heads × (d_h² + d_h), whatever n)."""
    import json

    from tests.conftest import ROOT

    data = json.loads((ROOT / "bench" / "baselines" / "linear_attention.json").read_text(encoding="utf-8"))
    c, cost = data["config"], data["cost"]
    dh = c["d_model"] // c["n_heads"]
    assert cost["state_bytes"]["softmax"] == [2 * c["n_layers"] * n * c["d_model"] * 4 for n in cost["lengths"]]
    assert cost["state_bytes"]["linear"] == [c["n_layers"] * c["n_heads"] * (dh * dh + dh) * 4] * len(cost["lengths"])
    assert data["recurrent_vs_parallel"] < 1e-3
    assert all(p > 1 for p in data["heldout_ppl"]) and len(data["losses"]) == 2
