"""Seq2seq models: each decoder step against its paper's formulas, padding, decoding, training."""

import random

import numpy as np
import pytest
import torch

from models.checkpoints import CheckpointError, load_seq2seq, save_seq2seq
from models.inference.seq2seq import beam_search, greedy_batch, greedy_decode
from models.training.loop import TrainSettings
from models.nn.rnn_seq2seq import AttentionMode, Seq2Seq, Seq2SeqConfig
from models.training.seq2seq import train_seq2seq
from models.text.vocab import EOS_ID, SOS_ID, Vocab

KINDS = [
    ("none", "dot"),
    ("bahdanau", "dot"),
    ("luong", "dot"),
    ("luong", "general"),
    ("luong", "concat"),
    ("uniform", "dot"),
]


def tiny(attention: str, score: str = "general", **kw) -> Seq2Seq:
    torch.manual_seed(0)
    cfg = Seq2SeqConfig(
        attention=attention,
        score=score,
        src_vocab_size=12,
        tgt_vocab_size=11,
        emb_dim=6,
        hidden_dim=5,
        attn_dim=7,
        dropout=0.0,
        **kw,
    )
    return Seq2Seq(cfg).eval()


def batch():
    src = torch.tensor([[4, 5, 6, 7, EOS_ID], [8, 9, EOS_ID, 0, 0]])
    return src, torch.tensor([5, 3])


@pytest.mark.parametrize("attention,score", KINDS)
def test_padding_changes_nothing(attention, score):
    """A sentence decodes the same alone and in a padded batch; α is 0 on padding."""
    model = tiny(attention, score)
    src, lengths = batch()
    tgt_in = torch.tensor([[SOS_ID, 4, 5], [SOS_ID, 6, 7]])
    logits, alphas = model(src, lengths, tgt_in)
    alone, alone_alpha = model(src[1:, :3], lengths[1:], tgt_in[1:])
    assert torch.allclose(logits[1], alone[0], atol=1e-5)
    if alphas is not None:
        assert torch.all(alphas[1, :, 3:] == 0)
        assert torch.allclose(alphas[1, :, :3], alone_alpha[0], atol=1e-6)
        assert torch.allclose(alphas.sum(-1), torch.ones(2, 3), atol=1e-6)


def test_bahdanau_scores_from_previous_state():
    """e_{t,i} = vᵀ tanh(W s_{t-1} + U h_i), and s_t = GRU([y_{t-1}; c_t], s_{t-1})."""
    model = tiny("bahdanau")
    src, lengths = batch()
    memory = model.encode(src, lengths)
    dec = model.decoder
    state = dec.initial_state(memory)
    y = torch.tensor([SOS_ID, SOS_ID])
    _, new_state, alpha = dec.step(y, state, memory)
    h, s_prev = memory.states, state.hidden
    for b in range(2):
        n = int(lengths[b])
        e = torch.stack(
            [
                dec.v @ torch.tanh(dec.w_query.weight @ s_prev[b] + dec.w_key.weight @ h[b, i] + dec.w_key.bias)
                for i in range(n)
            ]
        )
        assert torch.allclose(alpha[b, :n], torch.softmax(e, 0), atol=1e-5)
        c = (alpha[b, :n, None] * h[b, :n]).sum(0)
        x = torch.cat([dec.embedding(y[b]), c])
        assert torch.allclose(new_state.hidden[b], dec.rnn(x[None], s_prev[b][None])[0], atol=1e-5)


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_luong_scores_from_current_state(score):
    """s_t = GRU([y_{t-1}; h̃_{t-1}], s_{t-1}) first, then e_{t,i} = score(s_t, h_i)."""
    model = tiny("luong", score)
    src, lengths = batch()
    memory = model.encode(src, lengths)
    dec = model.decoder
    state = dec.initial_state(memory)
    y = torch.tensor([SOS_ID, SOS_ID])
    logits, new_state, alpha = dec.step(y, state, memory)
    s_t, h = new_state.hidden, memory.states
    for b in range(2):
        n = int(lengths[b])
        if score == "dot":
            e = torch.stack([s_t[b] @ h[b, i] for i in range(n)])
        elif score == "general":
            e = torch.stack([s_t[b] @ dec.w_general.weight @ h[b, i] for i in range(n)])
        else:
            e = torch.stack([dec.v @ torch.tanh(dec.w_concat.weight @ torch.cat([s_t[b], h[b, i]])) for i in range(n)])
        assert torch.allclose(alpha[b, :n], torch.softmax(e, 0), atol=1e-5)
        c = (alpha[b, :n, None] * h[b, :n]).sum(0)
        h_tilde = torch.tanh(dec.w_c.weight @ torch.cat([c, s_t[b]]))
        assert torch.allclose(new_state.feed[b], h_tilde, atol=1e-5)
        assert torch.allclose(logits[b], dec.out(h_tilde), atol=1e-5)


def test_no_attention_links_only_through_final_state():
    """Without attention, changing encoder states other than through the final state changes nothing."""
    model = tiny("none")
    src, lengths = batch()
    memory = model.encode(src, lengths)
    state = model.decoder.initial_state(memory)
    y = torch.tensor([SOS_ID, SOS_ID])
    logits, _, alpha = model.decoder.step(y, state, memory)
    memory.states = torch.randn_like(memory.states)
    logits2, _, _ = model.decoder.step(y, state, memory)
    assert alpha is None and torch.equal(logits, logits2)


def test_uniform_attention_is_frozen_at_one_over_s():
    """Wiegreffe & Pinter's baseline: α_{t,i} = 1/S over the S real source positions at every step, 0 on
    padding; c_t is the mean of the source states, fed to the GRU as in Bahdanau's decoder."""
    model = tiny("uniform")
    src, lengths = batch()
    memory = model.encode(src, lengths)
    state = model.decoder.initial_state(memory)
    y = torch.tensor([SOS_ID, SOS_ID])
    dec = model.decoder
    for _ in range(3):
        logits, new_state, alpha = dec.step(y, state, memory)
        assert torch.allclose(alpha[0], torch.full((5,), 1 / 5))
        assert torch.allclose(alpha[1, :3], torch.full((3,), 1 / 3)) and torch.all(alpha[1, 3:] == 0)
        for b, n in enumerate((5, 3)):
            c = memory.states[b, :n].mean(0)
            emb = dec.embedding(y[b])
            s_t = dec.rnn(torch.cat([emb, c]).unsqueeze(0), state.hidden[b : b + 1])[0]
            assert torch.allclose(new_state.hidden[b], s_t, atol=1e-6)
            readout = torch.tanh(dec.readout(torch.cat([s_t, c, emb])))
            assert torch.allclose(logits[b], dec.out(readout), atol=1e-5)
        state, y = new_state, logits.argmax(-1)
    assert not any("score" in name or name.startswith(("w_", "v")) for name, _ in dec.named_parameters())


def test_hard_mode_is_one_hot():
    model = tiny("luong", "general")
    src, lengths = batch()
    memory = model.encode(src, lengths)
    state = model.decoder.initial_state(memory)
    y = torch.tensor([SOS_ID, SOS_ID])
    _, _, hard = model.decoder.step(y, state, memory, AttentionMode("hard"))
    assert torch.all(hard.sum(-1) == 1) and torch.all((hard == 0) | (hard == 1))


def test_local_m_decoder_attends_a_window_around_t():
    model = tiny("luong", "general", alignment="local-m", window=1)
    src, lengths = batch()
    memory = model.encode(src, lengths)
    state = model.decoder.initial_state(memory)
    y = torch.tensor([SOS_ID, SOS_ID])
    for t in range(3):
        _, state, alpha = model.decoder.step(y, state, memory)
        assert torch.allclose(alpha.sum(-1), torch.ones(2)) and torch.all(state.position == t)
        outside = [s for s in range(alpha.shape[1]) if abs(s - t) > 1]
        assert torch.all(alpha[:, outside] == 0)


def test_local_p_decoder_predicts_p_t_from_s_t():
    """p_t = S · sigmoid(v_pᵀ tanh(W_p s_t)) (Eq. 9), then Eq. 10 around it; p_t gets gradients."""
    model = tiny("luong", "general", alignment="local-p", window=2)
    src, lengths = batch()
    memory = model.encode(src, lengths)
    state = model.decoder.initial_state(memory)
    dec = model.decoder
    _, new_state, alpha = dec.step(torch.tensor([SOS_ID, SOS_ID]), state, memory)
    s_t = new_state.hidden
    expected = lengths.float() * torch.sigmoid(torch.tanh(s_t @ dec.w_p.weight.T) @ dec.v_p)
    assert torch.allclose(new_state.position, expected)
    assert torch.all(alpha.sum(-1) <= 1 + 1e-6)
    new_state.position.sum().backward()
    assert dec.w_p.weight.grad is not None and dec.w_p.weight.grad.abs().sum() > 0


def vocab(n: int) -> Vocab:
    return Vocab(["<pad>", "<unk>", "<s>", "</s>"] + [f"w{i}" for i in range(n - 4)])


@pytest.mark.parametrize("attention,score", KINDS)
@pytest.mark.slow
def test_beam_width_one_equals_greedy_and_batch_equals_single(attention, score):
    model = tiny(attention, score)
    tv = vocab(11)
    for src in ([4, 5, 6, EOS_ID], [7, 8, 9, 10, 11, 4, EOS_ID]):
        greedy = greedy_decode(model, src, tv)
        beam, steps = beam_search(model, src, tv, width=1)
        assert beam[0].tokens == greedy.tokens
        assert beam[0].log_prob == pytest.approx(greedy.log_prob, abs=1e-5)
        assert len(steps) == len(greedy.tokens)
        ((ids, attn),) = greedy_batch(model, [src])
        assert tv.decode(ids) == greedy.tokens
        if greedy.attention is not None:
            np.testing.assert_allclose(attn, greedy.attention, atol=1e-5)


def test_beam_search_is_at_least_as_likely_as_greedy():
    model = tiny("bahdanau")
    tv = vocab(11)
    src = [4, 5, 6, 7, EOS_ID]
    greedy = greedy_decode(model, src, tv)
    hyps, steps = beam_search(model, src, tv, width=4)
    assert all(sum(c.kept for c in step) <= 4 for step in steps)
    finished = [h for h in hyps if h.finished]
    assert all(h.tokens[-1] == "</s>" for h in finished)
    assert max(h.log_prob for h in hyps) >= greedy.log_prob - 1e-6 or not greedy.finished
    for h in hyps:
        assert h.attention.shape == (len(h.tokens), len(src))


def reverse_corpus(n: int = 120, seed: int = 0):
    rng = random.Random(seed)
    words = "red blue green cat dog sun moon".split()
    pairs = []
    for _ in range(n):
        s = [rng.choice(words) for _ in range(rng.randint(2, 5))]
        pairs.append((s, [w.upper() for w in reversed(s)]))
    return pairs


@pytest.mark.parametrize("attention", ["bahdanau", "luong"])
@pytest.mark.slow
def test_tiny_model_overfits_tiny_corpus(attention):
    pairs = reverse_corpus()
    cfg = Seq2SeqConfig(attention=attention, emb_dim=16, hidden_dim=32, attn_dim=32, dropout=0.0)
    settings = TrainSettings(steps=25 * 8, batch_size=16, lr=5e-3, warmup=20)
    result = train_seq2seq(cfg, settings, pairs, torch.device("cpu"))
    correct = sum(
        greedy_decode(result.model, result.src_vocab.encode(s) + [EOS_ID], result.tgt_vocab).tokens[:-1] == list(t)
        for s, t in pairs[:40]
    )
    assert correct >= 38, correct
    assert result.stats["final_loss"] < 0.1


def test_checkpoint_round_trip_and_errors(tmp_path):
    model = tiny("luong", "concat")
    sv, tv = vocab(12), vocab(11)
    folder = save_seq2seq(tmp_path / "ck", model, sv, tv, {"label": "test"})
    loaded = load_seq2seq(folder)
    for (k, a), b in zip(model.state_dict().items(), loaded.model.state_dict().values()):
        assert torch.equal(a, b), k
    assert loaded.attention_variant == "luong-concat" and loaded.training["label"] == "test"
    (folder / "model.safetensors").write_bytes(b"\x00garbage")
    with pytest.raises(CheckpointError, match="model.safetensors"):
        load_seq2seq(folder)
    (folder / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json"):
        load_seq2seq(folder)
    with pytest.raises(CheckpointError, match="config.json"):
        load_seq2seq(tmp_path / "missing")


def test_throughput_reference_runs_the_same_model():
    """The bench's one-token-at-a-time encoder gives the batched encoder's states exactly."""
    from bench.train_throughput import encode_one_token_at_a_time

    model = tiny("bahdanau")
    src = [4, 5, 6, 7, EOS_ID]
    memory = model.encode(torch.tensor([src]), torch.tensor([5]))
    ref = encode_one_token_at_a_time(model, src)
    assert torch.allclose(memory.states, ref.states, atol=1e-5)
    assert torch.allclose(memory.final, ref.final, atol=1e-5)
    assert torch.allclose(memory.keys, ref.keys, atol=1e-5)


@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.5])
def test_one_beam_ranking_rule_for_both_families(alpha):
    """Both beams rank finished hypotheses by Σ log p / ((5 + |y|) / 6)^α, with the α given."""
    from models.inference.common import length_normalised
    from models.inference.transformer import beam_search as tf_beam
    from models.nn.transformer import Transformer, TransformerConfig

    model = tiny("bahdanau")
    hyps, _ = beam_search(model, [4, 5, 6, 7, EOS_ID], vocab(11), width=4, length_penalty=alpha)
    assert all(h.score == pytest.approx(length_normalised(h.log_prob, len(h.tokens), alpha)) for h in hyps)
    done = [h.score for h in hyps if h.finished]
    assert done == sorted(done, reverse=True)
    torch.manual_seed(0)
    tf = Transformer(
        TransformerConfig(
            vocab_size=11, d_model=8, n_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=16, dropout=0.0
        )
    ).eval()
    result = tf_beam(tf, [4, 5, 6, 7], beam_width=4, max_len=12, length_penalty=alpha)
    ranks = [length_normalised(s, len(h), alpha) for h, s in result.finished]
    assert ranks == sorted(ranks, reverse=True) and result.best.output_ids == (result.finished or [([], 0)])[0][0]
