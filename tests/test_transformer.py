"""The Transformer layer against the formulas and against torch.nn.MultiheadAttention."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from corpora.toy_tasks import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    ToyTask,
    batches,
    lm_sequences,
    make_batch,
    random_sequences,
)
from models.inference.transformer import beam_search, generate, greedy_decode
from models.nn.transformer import (
    Decoder,
    DecoderOnlyLM,
    Encoder,
    MultiHeadAttention,
    Transformer,
    TransformerConfig,
    label_smoothed_cross_entropy,
    padding_mask,
    subsequent_mask,
)

TOL = 1e-5


# ------------------------------------------------------------------ weight exchange with torch.nn.MultiheadAttention


@torch.no_grad()
def copy_weights_to_torch_mha(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    """Copy W_q, W_k, W_v (into ``in_proj_weight`` stacked [q; k; v]) and W_o into ``theirs``."""
    if theirs.embed_dim != ours.d_model or theirs.num_heads != ours.n_heads:
        raise ValueError("embed_dim / num_heads differ")
    if not theirs._qkv_same_embed_dim:
        raise ValueError("torch MHA with kdim/vdim different from embed_dim is not supported")
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    if theirs.in_proj_bias is not None:
        if ours.w_q.bias is None:
            theirs.in_proj_bias.zero_()
        else:
            theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    if theirs.out_proj.bias is not None:
        theirs.out_proj.bias.copy_(ours.w_o.bias if ours.w_o.bias is not None else 0.0)


@torch.no_grad()
def copy_weights_from_torch_mha(theirs: nn.MultiheadAttention, ours: MultiHeadAttention) -> None:
    """The inverse of :func:`copy_weights_to_torch_mha`."""
    d = ours.d_model
    w = theirs.in_proj_weight
    ours.w_q.weight.copy_(w[:d])
    ours.w_k.weight.copy_(w[d : 2 * d])
    ours.w_v.weight.copy_(w[2 * d :])
    if ours.w_q.bias is not None and theirs.in_proj_bias is not None:
        b = theirs.in_proj_bias
        ours.w_q.bias.copy_(b[:d])
        ours.w_k.bias.copy_(b[d : 2 * d])
        ours.w_v.bias.copy_(b[2 * d :])
    ours.w_o.weight.copy_(theirs.out_proj.weight)
    if ours.w_o.bias is not None and theirs.out_proj.bias is not None:
        ours.w_o.bias.copy_(theirs.out_proj.bias)


def _small_config(vocab: int = 13, norm_first: bool = False, **kw: object) -> TransformerConfig:
    base = dict(
        vocab_size=vocab,
        d_model=32,
        n_heads=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        d_ff=64,
        dropout=0.0,
        norm_first=norm_first,
        max_len=64,
    )
    base.update(kw)
    return TransformerConfig(**base)  # type: ignore[arg-type]


# ------------------------------------------------------------------ masks


def test_subsequent_mask_is_lower_triangular() -> None:
    m = subsequent_mask(4)
    assert m.dtype == torch.bool and m.shape == (4, 4)
    assert torch.equal(m, torch.tensor([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool))


def test_padding_mask_marks_non_pad_keys() -> None:
    tokens = torch.tensor([[5, 6, 0, 0], [7, 0, 0, 0]])
    m = padding_mask(tokens, pad_id=0)
    assert m.shape == (2, 1, 4)
    assert torch.equal(m[:, 0], tokens != 0)


# ------------------------------------------------------------------ multi-head attention


def _pair(d: int = 16, h: int = 4, seed: int = 0) -> tuple[MultiHeadAttention, torch.nn.MultiheadAttention]:
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d, h).eval()
    theirs = torch.nn.MultiheadAttention(d, h, batch_first=True).eval()
    torch.nn.init.normal_(theirs.in_proj_bias)  # non-zero biases, so they are compared too
    torch.nn.init.normal_(theirs.out_proj.bias)
    copy_weights_from_torch_mha(theirs, ours)
    return ours, theirs


@pytest.mark.parametrize("case", ["none", "key_padding", "causal", "causal+key_padding", "cross+key_padding"])
def test_mha_equals_torch_multihead_attention(case: str) -> None:
    ours, theirs = _pair()
    b, L, d = 3, 6, 16
    S = 9 if case.startswith("cross") else L
    q = torch.randn(b, L, d)
    kv = torch.randn(b, S, d) if case.startswith("cross") else q
    lengths = torch.tensor([S, S - 2, 3])
    keep = torch.arange(S).unsqueeze(0) < lengths.unsqueeze(1)  # (B, S) True = real token
    ours_mask = None
    kpm = attn_mask = None
    if "key_padding" in case:
        ours_mask = keep.unsqueeze(1)  # (B, 1, S)
        kpm = ~keep  # torch: True = ignore
    if "causal" in case:
        causal = subsequent_mask(L)
        ours_mask = causal if ours_mask is None else ours_mask & causal
        attn_mask = ~causal  # torch: True = not allowed
    with torch.no_grad():
        out, w = ours(q, kv, kv, ours_mask)
        ref_out, ref_w = theirs(q, kv, kv, key_padding_mask=kpm, attn_mask=attn_mask, average_attn_weights=True)
        _, ref_heads = theirs(q, kv, kv, key_padding_mask=kpm, attn_mask=attn_mask, average_attn_weights=False)
    assert w.shape == (b, 4, L, S)
    assert (out - ref_out).abs().max() <= TOL
    assert (w.mean(dim=1) - ref_w).abs().max() <= TOL
    assert (w - ref_heads).abs().max() <= TOL
    if ours_mask is not None:
        blocked = ~torch.broadcast_to(ours_mask, (b, L, S)).unsqueeze(1).expand_as(w)
        assert torch.all(w[blocked] == 0)


def test_copy_weights_round_trip() -> None:
    ours, theirs = _pair(seed=1)
    other = MultiHeadAttention(16, 4).eval()
    fresh = torch.nn.MultiheadAttention(16, 4, batch_first=True).eval()
    copy_weights_to_torch_mha(ours, fresh)
    copy_weights_from_torch_mha(fresh, other)
    x = torch.randn(2, 5, 16)
    with torch.no_grad():
        assert torch.equal(ours(x, x, x)[0], other(x, x, x)[0])


def test_mha_head_is_the_formula() -> None:
    """Head i = softmax(Q W_i^Q (K W_i^K)ᵀ / √d_k) V W_i^V, concatenated, times W^O."""
    torch.manual_seed(3)
    mha = MultiHeadAttention(8, 2).eval()
    x = torch.randn(1, 4, 8)
    with torch.no_grad():
        out, w = mha(x, x, x)
        heads = []
        for i in range(2):
            rows = slice(4 * i, 4 * i + 4)
            qi = x @ mha.w_q.weight[rows].T + mha.w_q.bias[rows]
            ki = x @ mha.w_k.weight[rows].T + mha.w_k.bias[rows]
            vi = x @ mha.w_v.weight[rows].T + mha.w_v.bias[rows]
            ai = torch.softmax(qi @ ki.transpose(-1, -2) / math.sqrt(4), dim=-1)
            assert torch.allclose(ai, w[:, i], atol=1e-6)
            heads.append(ai @ vi)
        expected = torch.cat(heads, -1) @ mha.w_o.weight.T + mha.w_o.bias
    assert torch.allclose(out, expected, atol=1e-6)


# ------------------------------------------------------------------ masks do their job


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("cross", [True, False])
def test_look_ahead_mask_blocks_the_future(norm_first: bool, cross: bool) -> None:
    """∂ output_t / ∂ input_s is exactly zero for every s > t (and not for s ≤ t)."""
    torch.manual_seed(0)
    dec = Decoder(2, 16, 4, 32, dropout=0.0, norm_first=norm_first, cross_attention=cross).eval()
    T, S = 6, 5
    x = torch.randn(1, T, 16, requires_grad=True)
    memory = torch.randn(1, S, 16) if cross else None
    out, _, _ = dec(x, memory, subsequent_mask(T), None)
    probe = torch.randn(16)  # (a plain sum after LayerNorm would have zero gradient everywhere)
    for t in range(T):
        (grad,) = torch.autograd.grad(out[0, t] @ probe, x, retain_graph=True)
        assert torch.all(grad[0, t + 1 :] == 0), f"output {t} depends on a later input"
        assert torch.all(grad[0, : t + 1].abs().sum(-1) > 0)


def test_decoder_only_lm_is_causal_end_to_end() -> None:
    torch.manual_seed(0)
    lm = DecoderOnlyLM(_small_config()).eval()
    ids = torch.tensor([[1, 5, 6, 7, 8, 9]])
    changed = ids.clone()
    changed[0, 4:] = torch.tensor([3, 4])
    with torch.no_grad():
        a, b = lm(ids), lm(changed)
    assert torch.equal(a[0, :4], b[0, :4])
    assert not torch.equal(a[0, 4:], b[0, 4:])


@pytest.mark.parametrize("norm_first", [False, True])
def test_padding_changes_no_non_padded_output(norm_first: bool) -> None:
    torch.manual_seed(0)
    model = Transformer(_small_config(norm_first=norm_first)).eval()
    src = torch.tensor([[5, 6, 7, 8, PAD_ID, PAD_ID], [9, 10, 11, 12, 3, 4]])
    tgt = torch.tensor([[BOS_ID, 5, 6, PAD_ID, PAD_ID], [BOS_ID, 9, 10, 11, 12]])
    src_mask, tgt_mask = model.source_mask(src), model.target_mask(tgt)
    src_pad, tgt_pad = src == PAD_ID, tgt == PAD_ID
    noisy_src = torch.where(src_pad, torch.randint(3, 13, src.shape), src)
    noisy_tgt = torch.where(tgt_pad, torch.randint(3, 13, tgt.shape), tgt)
    with torch.no_grad():
        base = model.run(src, tgt, src_mask, tgt_mask)
        noisy = model.run(noisy_src, noisy_tgt, src_mask, tgt_mask)
        mem_a, _ = model.encode(src, src_mask)
        mem_b, _ = model.encode(noisy_src, src_mask)
    real_tgt = ~tgt_pad
    assert torch.equal(base.logits[real_tgt], noisy.logits[real_tgt])
    assert torch.equal(mem_a[~src_pad], mem_b[~src_pad])
    assert torch.all(base.cross_attention[0, :, :, :, 4:] == 0)  # padded keys get weight 0

    # Padding a sequence into a longer batch leaves its outputs (numerically) unchanged.
    with torch.no_grad():
        alone = model(src[:1, :4], tgt[:1, :3])
        padded = model(src[:1], tgt[:1])
    assert torch.allclose(alone[0], padded[0, :3], atol=1e-5)


# ------------------------------------------------------------------ loss


def test_label_smoothing_matches_formula_and_torch() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 7, 11)
    target = torch.randint(0, 11, (4, 7))
    target[0, 5:] = -100
    eps = 0.1
    ours = label_smoothed_cross_entropy(logits, target, eps, ignore_index=-100)
    # Formula: q = (1 − ε) onehot(y) + ε / V;  loss = −Σ_k q_k log p_k, mean over counted tokens.
    log_p = torch.log_softmax(logits, -1)
    keep = target != -100
    q = torch.full_like(log_p, eps / 11)
    q[keep] += (1 - eps) * F.one_hot(target[keep], 11)
    expected = -(q * log_p).sum(-1)[keep].mean()
    assert torch.allclose(ours, expected, atol=1e-6)
    ref = F.cross_entropy(logits.reshape(-1, 11), target.reshape(-1), ignore_index=-100, label_smoothing=eps)
    assert torch.allclose(ours, ref, atol=1e-6)


def test_label_smoothing_zero_is_plain_cross_entropy() -> None:
    torch.manual_seed(1)
    logits = torch.randn(10, 5)
    target = torch.randint(0, 5, (10,))
    target[3] = PAD_ID
    ours = label_smoothed_cross_entropy(logits, target, 0.0, ignore_index=PAD_ID)
    assert torch.allclose(ours, F.cross_entropy(logits, target, ignore_index=PAD_ID), atol=1e-6)
    per_token = label_smoothed_cross_entropy(logits, target, 0.0, ignore_index=PAD_ID, reduction="none")
    assert per_token[3] == 0 and per_token.shape == (10,)


# ------------------------------------------------------------------ configuration and blocks


def test_config_json_round_trip() -> None:
    cfg = _small_config(norm_first=True, src_vocab_size=20)
    again = TransformerConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg and again.source_vocab_size == 20
    with pytest.raises(ValueError):
        TransformerConfig.from_dict({**cfg.to_dict(), "d_modle": 8})


@pytest.mark.parametrize("norm_first", [False, True])
def test_pre_and_post_norm_both_train(norm_first: bool) -> None:
    torch.manual_seed(0)
    cfg = _small_config(norm_first=norm_first, dropout=0.1)
    model = Transformer(cfg).train()
    assert isinstance(model.encoder.norm, torch.nn.LayerNorm) == norm_first
    batch = next(batches(ToyTask("reverse", n_symbols=10), batch_size=4))
    out = model.run(batch.src, batch.tgt_in)
    assert out.logits.shape == (*batch.tgt_out.shape, cfg.vocab_size)
    assert out.encoder_attention.shape == (4, 2, 4, batch.src.shape[1], batch.src.shape[1])
    assert out.cross_attention.shape == (4, 2, 4, batch.tgt_in.shape[1], batch.src.shape[1])
    loss = label_smoothed_cross_entropy(out.logits, batch.tgt_out, 0.1, ignore_index=PAD_ID)
    loss.backward()
    assert torch.isfinite(loss)
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters() if p.requires_grad)


def test_embeddings_are_scaled_by_sqrt_d_model() -> None:
    torch.manual_seed(0)
    model = Transformer(_small_config()).eval()
    ids = torch.tensor([[4, 5, 6]])
    expected = model.src_embed.tokens(ids) * math.sqrt(32) + model.src_embed.positions.pe[:3]
    assert torch.allclose(model.src_embed(ids), expected, atol=1e-6)


def test_encoder_attention_rows_are_distributions() -> None:
    torch.manual_seed(0)
    enc = Encoder(2, 16, 4, 32, dropout=0.0).eval()
    _, weights = enc(torch.randn(2, 5, 16))
    assert len(weights) == 2 and weights[0].shape == (2, 4, 5, 5)
    assert torch.allclose(weights[1].sum(-1), torch.ones(2, 4, 5), atol=1e-6)


# ------------------------------------------------------------------ toy task and training


def test_toy_batches_are_aligned() -> None:
    task = ToyTask("reverse", n_symbols=5, min_len=2, max_len=4)
    b = make_batch(task, [[3, 4, 5], [6, 7]])
    assert b.src.tolist() == [[3, 4, 5], [6, 7, PAD_ID]]
    assert b.tgt_in.tolist() == [[BOS_ID, 5, 4, 3], [BOS_ID, 7, 6, PAD_ID]]
    assert b.tgt_out.tolist() == [[5, 4, 3, EOS_ID], [7, 6, EOS_ID, PAD_ID]]
    first = next(batches(task, 8, seed=3))
    again = next(batches(task, 8, seed=3))
    assert torch.equal(first.src, again.src)
    assert int(first.src.max()) < task.vocab_size


def _train(model: torch.nn.Module, step_fn, steps: int, lr: float = 3e-3) -> float:  # type: ignore[no-untyped-def]
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    loss = torch.tensor(float("inf"))
    for _ in range(steps):
        loss = step_fn()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if loss.item() < 0.01:
            break
    model.eval()
    return loss.item()


@pytest.fixture(scope="module")
def copy_model() -> tuple[Transformer, ToyTask, list[list[int]]]:
    """A tiny Transformer overfit on 8 copy sequences (about half a second on one thread)."""
    torch.manual_seed(0)
    task = ToyTask("copy", n_symbols=8, min_len=3, max_len=6)
    seqs = random_sequences(task, 8, torch.Generator().manual_seed(1))
    batch = make_batch(task, seqs)
    model = Transformer(_small_config(vocab=task.vocab_size, num_encoder_layers=1, num_decoder_layers=1, n_heads=2))
    final = _train(
        model,
        lambda: label_smoothed_cross_entropy(model(batch.src, batch.tgt_in), batch.tgt_out, 0.0, ignore_index=PAD_ID),
        steps=400,
    )
    assert final < 0.05
    return model, task, seqs


@pytest.mark.slow
def test_transformer_overfits_copy_task(copy_model: tuple[Transformer, ToyTask, list[list[int]]]) -> None:
    model, task, seqs = copy_model
    for s in seqs:
        assert greedy_decode(model, s, max_len=10).output_ids == task.target(s) + [EOS_ID]


def test_greedy_trace_shapes_and_consistency(copy_model: tuple[Transformer, ToyTask, list[list[int]]]) -> None:
    model, _, seqs = copy_model
    src = seqs[0]
    trace = greedy_decode(model, src, max_len=10, top_k=3)
    S, T = len(src), len(trace.output_ids)
    assert isinstance(trace.encoder_attention, np.ndarray) and trace.encoder_attention.shape == (1, 2, S, S)
    for t, step in enumerate(trace.steps):
        assert step.self_attention.shape == (1, 2, t + 1) and step.cross_attention.shape == (1, 2, S)
        assert np.allclose(step.self_attention.sum(-1), 1, atol=1e-5)
        assert step.top_ids[0] == step.token_id and step.top_probs.shape == (3,)
    # The step rows are the numbers a teacher-forced pass computes.
    with torch.no_grad():
        ref = model.run(torch.tensor([src]), torch.tensor([trace.decoder_input_ids]))
    assert np.allclose(trace.decoder_self_attention, ref.decoder_self_attention[0].numpy(), atol=1e-5)
    assert np.allclose(trace.cross_attention, ref.cross_attention[0].numpy(), atol=1e-5)
    assert trace.decoder_self_attention.shape == (1, 2, T, T)
    assert math.isclose(trace.score, sum(s.log_prob for s in trace.steps), rel_tol=1e-6)


def test_beam_width_one_equals_greedy(copy_model: tuple[Transformer, ToyTask, list[list[int]]]) -> None:
    model, _, seqs = copy_model
    torch.manual_seed(5)
    untrained = Transformer(_small_config(vocab=11)).eval()
    for m, sources in ((model, seqs[:4]), (untrained, [[3, 4, 5, 6], [7, 8, 9], [10, 3]])):
        for s in sources:
            greedy = greedy_decode(m, s, max_len=8)
            beam = beam_search(m, s, beam_width=1, max_len=8)
            assert beam.best.output_ids == greedy.output_ids
            assert math.isclose(beam.best.score, greedy.score, rel_tol=1e-4, abs_tol=1e-5)


def test_beam_search_trace(copy_model: tuple[Transformer, ToyTask, list[list[int]]]) -> None:
    model, task, seqs = copy_model
    beam = beam_search(model, seqs[1], beam_width=3, max_len=10)
    assert beam.best.output_ids == task.target(seqs[1]) + [EOS_ID]
    scores = [s for _, s in beam.finished]
    assert scores == sorted(scores, reverse=True) and len(beam.finished) <= 3
    assert all(len(step.hypotheses) <= 3 for step in beam.beams)
    assert beam.best.steps[-1].cross_attention.shape == (1, 2, len(seqs[1]))


def test_decoder_only_lm_overfits_a_tiny_sequence() -> None:
    torch.manual_seed(0)
    data = torch.tensor([[BOS_ID, 5, 3, 7, 4, 6, 5, EOS_ID]])
    lm = DecoderOnlyLM(_small_config(vocab=9, num_decoder_layers=1, n_heads=2))
    final = _train(
        lm, lambda: label_smoothed_cross_entropy(lm(data[:, :-1]), data[:, 1:], 0.0, ignore_index=PAD_ID), steps=400
    )
    assert final < 0.05
    trace = generate(lm, [BOS_ID], max_new=10, top_k=1)
    assert trace.ids == data[0].tolist()


@pytest.mark.slow
def test_decoder_only_lm_learns_reverse_and_generates() -> None:
    torch.manual_seed(0)
    task = ToyTask("reverse", n_symbols=6, min_len=3, max_len=4)
    seqs = [[3, 4, 5], [6, 7, 8, 3]]
    data = lm_sequences(task, seqs)
    lm = DecoderOnlyLM(_small_config(vocab=task.vocab_size, num_decoder_layers=2, n_heads=2))
    # The first source symbol is unpredictable (ln 2 per sequence), so no loss bound here.
    _train(lm, lambda: label_smoothed_cross_entropy(lm(data[:, :-1]), data[:, 1:], 0.0, ignore_index=PAD_ID), steps=300)
    for s in seqs:
        prompt = [BOS_ID] + s + [EOS_ID]
        trace = generate(lm, prompt, max_new=8, top_k=1)
        assert trace.generated_ids == task.target(s) + [EOS_ID]
        assert trace.attention.shape == (2, 2, len(trace.ids), len(trace.ids))
        for step in trace.steps:
            assert step.attention.shape == (2, 2, step.position)
            assert np.allclose(step.attention.sum(-1), 1, atol=1e-5)


def test_generate_top_k_one_is_deterministic() -> None:
    torch.manual_seed(0)
    lm = DecoderOnlyLM(_small_config(vocab=17)).eval()
    a = generate(lm, [1, 5, 6], max_new=6, top_k=1, seed=1, stop_at_eos=False)
    b = generate(lm, [1, 5, 6], max_new=6, top_k=1, seed=2, stop_at_eos=False)
    assert a.generated_ids == b.generated_ids and len(a.generated_ids) == 6
    assert all(s.prob == 1.0 and s.token_id == s.top_ids[0] for s in a.steps)
    # Sampling is reproducible from its seed, and top-k keeps it inside the k best.
    c = generate(lm, [1, 5, 6], max_new=6, temperature=1.5, top_k=3, seed=7, stop_at_eos=False)
    d = generate(lm, [1, 5, 6], max_new=6, temperature=1.5, top_k=3, seed=7, stop_at_eos=False)
    assert c.generated_ids == d.generated_ids
    assert all(s.token_id in s.top_ids[:3].tolist() for s in c.steps)
    assert all(np.isclose(s.sampling_probs[:3].sum(), 1, atol=1e-5) for s in c.steps)


# ------------------------------------------------------------------ batched greedy, one-head walkthrough


def test_greedy_batch_equals_greedy_decode(copy_model: tuple[Transformer, ToyTask, list[list[int]]]) -> None:
    from models.inference.transformer import greedy_batch

    model, _, seqs = copy_model
    torch.manual_seed(3)
    untrained = Transformer(_small_config(vocab=11)).eval()
    for m, sources in ((model, seqs), (untrained, [[3, 4, 5, 6], [7, 8, 9], [10, 3]])):
        batch = greedy_batch(m, sources, max_len=8)
        assert batch == [greedy_decode(m, s, max_len=8).output_ids for s in sources]


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross", "lm"])
def test_head_walkthrough_is_the_formula_and_the_models_own_weights(kind: str) -> None:
    from models.inference.head import head_walkthrough

    torch.manual_seed(0)
    cfg = _small_config(vocab=13)
    model = DecoderOnlyLM(cfg).eval() if kind == "lm" else Transformer(cfg).eval()
    src, tgt = [3, 4, 5, 6, 7], [BOS_ID, 8, 9, 10]
    query = 2
    w = head_walkthrough(model, kind, 1, 3, query, src_ids=None if kind == "lm" else src, tgt_ids=tgt)
    assert w.d_k == 8 and w.q.shape == (8,)
    n_keys = len(src) if kind in ("encoder", "cross") else len(tgt)
    assert w.keys.shape == (n_keys, 8) and w.values.shape == (n_keys, 8)
    assert np.allclose(w.scores, w.keys @ w.q, atol=1e-5)
    assert np.allclose(w.scaled, w.scores / math.sqrt(8), atol=1e-6)
    causal = kind in ("decoder", "lm")
    assert w.allowed.tolist() == ([k <= query for k in range(n_keys)] if causal else [True] * n_keys)
    assert np.all(np.isneginf(w.masked[~w.allowed])) and np.all(w.weights[~w.allowed] == 0)
    assert np.allclose(w.weights, w.model_weights, atol=1e-6)
    assert np.isclose(w.weights.sum(), 1, atol=1e-6) and np.allclose(w.output, w.weights @ w.values, atol=1e-6)
    # Without ÷√d_k the same scores are √d_k times larger: the softmax is at least as peaked.
    assert w.unscaled_weights.max() >= w.weights.max() - 1e-7


def test_head_walkthrough_sees_the_pre_norm_input() -> None:
    from models.inference.head import head_walkthrough

    torch.manual_seed(1)
    model = Transformer(_small_config(vocab=13, norm_first=True)).eval()
    w = head_walkthrough(model, "cross", 0, 0, 1, src_ids=[3, 4, 5], tgt_ids=[BOS_ID, 6])
    assert np.allclose(w.weights, w.model_weights, atol=1e-6)
    with pytest.raises(ValueError):
        head_walkthrough(model, "lm", 0, 0, 0, tgt_ids=[BOS_ID])
