"""The Transformer block page's numbers, against the modules' own forward passes and torch's own
implementations (models.lessons.block, models.lessons.training_ideas)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from models.checkpoints import load_bert, load_transformer
from models.lessons.block import (
    CROSS,
    ENCODER_DECODER,
    ENCODER_ONLY,
    FFN,
    MASKED_SELF,
    SELF,
    block_trace,
    init_gradient_norms,
)
from models.lessons.training_ideas import (
    ALL,
    OTHERS,
    WORDS,
    adam_steps,
    embedded_batch,
    noam_rate,
    norm_comparison,
    smoothed_target,
    torch_adam,
)
from models.nn.transformer import label_smoothed_cross_entropy

TOL = 1e-5


@pytest.fixture(scope="module")
def translation():
    return block_trace(load_transformer("tf-en-fr"), "The red car is in the small house.")


@pytest.fixture(scope="module")
def lm():
    return block_trace(load_transformer("tf-lm"), "In the beginning God created")


@pytest.fixture(scope="module")
def bert():
    return block_trace(load_bert("bert-small"), "In the beginning God created the heavens and the earth.")


def test_the_three_families_are_one_record(translation, lm, bert) -> None:
    assert translation.architecture == ENCODER_DECODER
    assert [s.name for s in translation.stacks] == ["encoder", "decoder"]
    assert [s.sublayer_type for s in translation.stack("encoder").layers[0]] == [SELF, FFN]
    assert [s.sublayer_type for s in translation.stack("decoder").layers[0]] == [MASKED_SELF, CROSS, FFN]
    assert [s.sublayer_type for s in lm.stack("decoder").layers[0]] == [MASKED_SELF, FFN]
    assert bert.architecture == ENCODER_ONLY
    assert [s.sublayer_type for s in bert.stack("encoder").layers[1]] == [SELF, FFN]
    with pytest.raises(ValueError):
        lm.stack("encoder")


@pytest.mark.parametrize("which", ["translation", "lm", "bert"])
def test_the_residual_stream_recomputed_from_the_hooks_is_the_layer_output(which, request) -> None:
    """Post-norm: LN(x + Sublayer(x)) with the LayerNorm's own γ, β, ε is the next sub-layer's x and, after
    the last sub-layer, the next block's input and the stack's output."""
    trace = request.getfixturevalue(which)
    for stack in trace.stacks:
        x = stack.embedding
        for layer in stack.layers:
            for sub in layer:
                assert np.allclose(sub.stream_in, x, atol=TOL)
                added = sub.stream_in + sub.output
                assert np.allclose(sub.norm_in, added, atol=TOL)
                z = (added - added.mean(-1, keepdims=True)) / np.sqrt(added.var(-1, keepdims=True) + sub.eps)
                assert np.allclose(sub.gamma * z + sub.beta, sub.norm_out, atol=TOL)
                x = sub.stream_out
        assert np.allclose(x, stack.output, atol=TOL)


def test_the_stack_outputs_are_the_models_own(translation) -> None:
    loaded = load_transformer("tf-en-fr")
    model = loaded.encoder_decoder
    enc, dec = translation.stacks
    src = torch.tensor([[loaded.src_stoi.get(t, 1) for t in enc.tokens]])
    tgt = torch.tensor([[loaded.tgt_stoi[t] for t in dec.tokens]])
    with torch.inference_mode():
        memory, _ = model.encode(src)
        hidden, self_w, cross_w = model.decode(tgt, memory, model.source_mask(src))
        probs = torch.softmax(model.generator(hidden)[0], -1)
    assert np.allclose(enc.output, memory[0].numpy(), atol=TOL)
    assert np.allclose(dec.output, hidden[0].numpy(), atol=TOL)
    assert np.allclose(dec.layers[1][0].attention, self_w[1][0].numpy(), atol=TOL)
    assert np.allclose(dec.layers[0][1].attention, cross_w[0][0].numpy(), atol=TOL)
    assert np.allclose(translation.top_probs[:, 0], probs.max(-1).values.numpy(), atol=TOL)


@pytest.mark.parametrize("which", ["translation", "bert"])
def test_the_ffn_hidden_units_give_its_output(which, request) -> None:
    """max(0, xW₁ + b₁)W₂ + b₂ from the recorded hidden units is the FFN's output; ReLU's zeros counted."""
    trace = request.getfixturevalue(which)
    loaded = load_transformer("tf-en-fr") if which == "translation" else load_bert("bert-small")
    stack = trace.stacks[0]
    layer = loaded.model.encoder.layers[1]
    sub = stack.layers[1][1]
    w2 = layer.feed_forward.w_2
    out = sub.hidden @ w2.weight.detach().numpy().T + w2.bias.detach().numpy()
    assert np.allclose(out, sub.output, atol=TOL)
    assert sub.hidden.shape == (len(stack.tokens), trace.d_ff)
    if trace.activation == "relu":
        assert np.allclose(sub.hidden, np.maximum(sub.pre_activation, 0), atol=TOL)
        assert sub.zeros(0) == int((sub.hidden[0] == 0).sum()) > 0


def test_the_change_each_sublayer_makes(lm) -> None:
    sub = lm.stacks[0].layers[0][0]
    t = 2
    assert sub.change[t] == pytest.approx(np.linalg.norm(sub.output[t]) / np.linalg.norm(sub.stream_in[t]), rel=1e-6)
    assert lm.stacks[0].changes().shape == (2, 2)
    assert lm.stacks[0].stream_norms().shape == (5, len(lm.stacks[0].tokens))


def test_pre_norm_is_read_the_pre_norm_way() -> None:
    """A freshly built pre-norm LM: x + Sublayer(LN(x)) chains to the final LayerNorm's input."""
    from models.checkpoints import LoadedTransformer
    from models.nn.transformer import DecoderOnlyLM, TransformerConfig

    torch.manual_seed(0)
    itos = ["<pad>", "<unk>", "<s>", "</s>", "a", "b", "c"]
    model = DecoderOnlyLM(
        TransformerConfig(
            vocab_size=7,
            d_model=16,
            n_heads=2,
            num_decoder_layers=2,
            d_ff=32,
            dropout=0.0,
            norm_first=True,
            bos_id=2,
            eos_id=3,
        )
    ).eval()
    trace = block_trace(LoadedTransformer("tiny", model, "decoder-only", "lm", itos, itos, {}), "a b c a")
    stack = trace.stacks[0]
    x = stack.embedding
    for layer in stack.layers:
        for sub in layer:
            assert np.allclose(sub.stream_in, x, atol=TOL) and np.allclose(sub.norm_in, x, atol=TOL)
            x = sub.stream_out
            assert np.allclose(x, sub.stream_in + sub.output, atol=TOL)
    final = model.decoder.norm
    expected = F.layer_norm(torch.tensor(x), (16,), final.weight, final.bias, final.eps).detach().numpy()
    assert np.allclose(stack.output, expected, atol=TOL)


@pytest.mark.slow
def test_post_ln_gradients_grow_toward_the_output_and_pre_ln_stay_level() -> None:
    """Xiong et al. (2020): at initialisation the decoder's post-LN gradient norms grow with depth, pre-LN not."""
    g = init_gradient_norms(n_layers=4, d_model=64, d_ff=256, vocab=200, seeds=2, batch=8, length=12)
    post, pre = g.growth()  # what the tab's paragraph and its slide's line report
    assert post == pytest.approx(g.decoder_post[-1] / g.decoder_post[0]) and post > 2
    assert pre == pytest.approx(g.decoder_pre[-1] / g.decoder_pre[0]) and pre < 1.5
    assert g.decoder_post[-1] > g.decoder_pre[-1]


# ------------------------------------------------------------------------------------------------
# Training ideas
# ------------------------------------------------------------------------------------------------


def test_the_five_word_example_gives_0_925_and_0_025_exactly() -> None:
    """K = 5 entries, one of them padding, ε = 0.1: ε/(K−1) = 0.025 to each word, 1 − ε + 0.025 = 0.925 to the
    target, 0 to padding; the other two conventions give 0.92/0.02 and 0.9/0.025."""
    q = smoothed_target(5, 2, 0.1, WORDS, pad=0)
    assert q.tolist() == pytest.approx([0.0, 0.025, 0.925, 0.025, 0.025], abs=1e-15)
    assert q.sum() == pytest.approx(1.0)
    assert smoothed_target(5, 2, 0.1, ALL).tolist() == pytest.approx([0.02, 0.02, 0.92, 0.02, 0.02], abs=1e-15)
    assert smoothed_target(5, 2, 0.1, OTHERS).tolist() == pytest.approx([0.025, 0.025, 0.9, 0.025, 0.025], abs=1e-15)


def test_the_smoothed_targets_are_the_losses_own() -> None:
    """−Σ q log p equals torch's label_smoothing loss and the lab's own for ALL, and torch's over the four
    words for WORDS."""
    logits = torch.tensor([[0.3, -1.2, 2.0, 0.5, -0.1]])
    log_p = torch.log_softmax(logits, -1)[0].numpy()
    q = smoothed_target(5, 2, 0.1, ALL)
    ours = -(q * log_p).sum()
    target = torch.tensor([2])
    assert ours == pytest.approx(float(F.cross_entropy(logits, target, label_smoothing=0.1)), abs=1e-6)
    assert ours == pytest.approx(float(label_smoothed_cross_entropy(logits, target, 0.1)), abs=1e-6)
    words = smoothed_target(5, 2, 0.1, WORDS, pad=0)[1:]
    log_p4 = torch.log_softmax(logits[:, 1:], -1)[0].numpy()
    assert -(words * log_p4).sum() == pytest.approx(
        float(F.cross_entropy(logits[:, 1:], torch.tensor([1]), label_smoothing=0.1)), abs=1e-6
    )


def test_the_noam_schedule() -> None:
    steps = np.arange(1, 20_001)
    rate = noam_rate(steps, 512, 4000)
    assert int(steps[rate.argmax()]) == 4000
    assert rate.max() == pytest.approx(512**-0.5 * 4000**-0.5)
    assert rate[0] == pytest.approx(512**-0.5 * 4000**-1.5)
    assert np.allclose(noam_rate(steps[4000:], 512, 4000), noam_rate(steps[4000:], 512, None))
    assert noam_rate(1, 512, None) == pytest.approx(512**-0.5)


def test_adam_written_out_is_torchs() -> None:
    grads = [[0.5, -0.02, 3.0], [0.4, 0.01, -1.0], [0.1, -0.03, 2.0]]
    steps = adam_steps([1.0, -0.5, 0.2], grads, lr=0.01)
    assert np.allclose(steps.theta, torch_adam([1.0, -0.5, 0.2], grads, lr=0.01), atol=1e-12)
    # step 1: m̂ = g, v̂ = g², so the update is −α·sign(g) whatever the gradient's size
    assert np.allclose(steps.m_hat[0], grads[0]) and np.allclose(steps.v_hat[0], np.square(grads[0]))
    assert np.allclose(steps.update[0], -0.01 * np.sign(grads[0]), atol=1e-9)


def test_batchnorm_mixes_sentences_and_padding_layernorm_does_not() -> None:
    loaded = load_transformer("tf-lm")
    rows = [[2, 10, 11, 12, 13, 14, 15], [2, 20, 21], [2, 30, 31, 32, 33]]
    x, real = embedded_batch(loaded.language_model.embed, rows, 0)
    assert real.sum() == 15 and (~real).sum() == 6
    c = norm_comparison(x, real)
    flat = torch.tensor(x.reshape(-1, x.shape[-1]))
    bn = nn.BatchNorm1d(x.shape[-1], affine=False, eps=1e-5, dtype=torch.float64).train()
    assert np.allclose(c.bn.reshape(flat.shape), bn(flat).detach().numpy(), atol=TOL)
    ln = nn.LayerNorm(x.shape[-1], elementwise_affine=False, eps=1e-5, dtype=torch.float64)
    assert np.allclose(c.ln, ln(torch.tensor(x)).detach().numpy(), atol=TOL)
    assert np.allclose(c.ln_shift, 0, atol=1e-12) and c.bn_shift.min() > 0.1
    assert not np.allclose(c.bn_mean, c.bn_mean_real)
