"""What-if: forcing an output token (RNN seq2seq and Transformer) and switching off one head
(Michel et al. 2019 head masking), against teacher-forced scoring and the formula."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from models.checkpoints import load_seq2seq, load_transformer
from models.inference.common import InputError
from models.inference.translate import prepare_source, prepare_transformer_source, translate, translate_transformer
from models.inference.what_if import (
    ablated_translation,
    forced_ids,
    typed_token,
    what_if_transformer,
    what_if_translation,
)
from models.nn.attention import scaled_dot_product_attention
from models.nn.rnn_seq2seq import AttentionMode
from models.nn.transformer import HeadMask, MultiHeadAttention, Transformer, TransformerConfig
from models.text.vocab import SOS_ID
from tests.conftest import APPTEST_TIMEOUT, ROOT

TEXT = "the old dog sees the red car ."
S2S_MODELS = ["s2s-bahdanau", "s2s-luong-general", "s2s-luong-local-p", "s2s-none"]


@pytest.fixture(scope="module")
def tf_en_fr():
    return load_transformer("tf-en-fr")


def _small_transformer(norm_first: bool = False) -> Transformer:
    torch.manual_seed(0)
    cfg = TransformerConfig(
        vocab_size=13,
        d_model=32,
        n_heads=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        d_ff=64,
        dropout=0.0,
        norm_first=norm_first,
        max_len=64,
    )
    return Transformer(cfg).eval()


def _other_candidate(tokens: list[str], candidates: list[str], t: int) -> str:
    return next(c for c in candidates if c != tokens[t])


# ------------------------------------------------------------------ head masking (models.nn.transformer)


def test_masking_a_head_is_concat_with_its_slice_zero_then_w_o() -> None:
    torch.manual_seed(1)
    mha = MultiHeadAttention(24, 3).eval()
    x, mem = torch.randn(2, 5, 24), torch.randn(2, 7, 24)
    gates = torch.tensor([1.0, 0.0, 1.0])
    out, weights = mha(x, mem, mem, None, head_mask=gates)
    split = lambda t: t.view(2, -1, 3, 8).transpose(1, 2)  # noqa: E731
    heads, ref_w = scaled_dot_product_attention(split(mha.w_q(x)), split(mha.w_k(mem)), split(mha.w_v(mem)))
    concat = heads.transpose(1, 2).reshape(2, 5, 24).clone()
    concat[..., 8:16] = 0.0  # head 1's slice of Concat(head_1, …, head_h)
    assert torch.allclose(out, mha.w_o(concat), atol=1e-6)
    assert torch.allclose(weights, ref_w, atol=1e-6)  # the weights are the head's own, masked or not
    assert not torch.allclose(out, mha(x, mem, mem)[0], atol=1e-3)


@pytest.mark.parametrize("norm_first", [False, True])
def test_no_mask_and_all_gates_on_are_bit_identical(norm_first: bool) -> None:
    model = _small_transformer(norm_first)
    src, tgt = torch.tensor([[5, 6, 7, 8, 2]]), torch.tensor([[1, 9, 10, 11]])
    plain = model.run(src, tgt)
    cfg = model.config
    on = HeadMask(
        torch.ones(cfg.num_encoder_layers, cfg.n_heads),
        torch.ones(cfg.num_decoder_layers, cfg.n_heads),
        torch.ones(cfg.num_decoder_layers, cfg.n_heads),
    )
    gated = model.run(src, tgt, head_mask=on)
    for a, b in [
        (plain.logits, gated.logits),
        (plain.encoder_attention, gated.encoder_attention),
        (plain.decoder_self_attention, gated.decoder_self_attention),
        (plain.cross_attention, gated.cross_attention),
    ]:
        assert torch.equal(a, b)
    assert torch.equal(plain.logits, model(src, tgt))


def test_switching_off_an_encoder_head_changes_what_comes_after_it_only() -> None:
    model = _small_transformer()
    src, tgt = torch.tensor([[5, 6, 7, 8, 2]]), torch.tensor([[1, 9, 10, 11]])
    plain = model.run(src, tgt)
    off = model.run(src, tgt, head_mask=HeadMask.one_head_off(model.config, "encoder", 0, 1))
    assert torch.equal(off.encoder_attention[:, 0], plain.encoder_attention[:, 0])  # before the gate
    assert not torch.allclose(off.encoder_attention[:, 1], plain.encoder_attention[:, 1], atol=1e-4)
    assert not torch.allclose(off.cross_attention, plain.cross_attention, atol=1e-4)
    assert torch.equal(off.decoder_self_attention[:, 0], plain.decoder_self_attention[:, 0])  # no path from memory
    assert not torch.allclose(off.logits, plain.logits, atol=1e-4)


def test_switching_off_a_cross_head_leaves_the_encoder_alone() -> None:
    model = _small_transformer()
    src, tgt = torch.tensor([[5, 6, 7, 8, 2]]), torch.tensor([[1, 9, 10, 11]])
    plain = model.run(src, tgt)
    off = model.run(src, tgt, head_mask=HeadMask.one_head_off(model.config, "cross", 0, 2))
    assert torch.equal(off.encoder_attention, plain.encoder_attention)
    assert torch.equal(off.cross_attention[:, 0], plain.cross_attention[:, 0])
    assert not torch.allclose(off.decoder_self_attention[:, 1], plain.decoder_self_attention[:, 1], atol=1e-4)
    assert not torch.allclose(off.logits, plain.logits, atol=1e-4)


def test_one_head_off_rejects_heads_the_model_lacks() -> None:
    cfg = _small_transformer().config
    with pytest.raises(ValueError):
        HeadMask.one_head_off(cfg, "encoder", 2, 0)
    with pytest.raises(ValueError):
        HeadMask.one_head_off(cfg, "cross", 0, 4)
    with pytest.raises(ValueError):
        HeadMask.one_head_off(cfg, "lm", 0, 0)


# ------------------------------------------------------------------ forcing: RNN seq2seq


@pytest.mark.parametrize("name", S2S_MODELS)
def test_seq2seq_forcing_the_models_own_choice_reproduces_the_trace(name: str) -> None:
    loaded = load_seq2seq(name)
    original = translate(loaded, TEXT)
    for t in (0, len(original.tgt_tokens) // 2):
        same = what_if_translation(loaded, TEXT, original.tgt_tokens, t, original.tgt_tokens[t])
        a, b = original.best, same.best
        assert b.tokens == a.tokens and b.topk_tokens == a.topk_tokens and b.log_prob == a.log_prob
        assert np.array_equal(b.token_probs, a.token_probs) and np.array_equal(b.topk_probs, a.topk_probs)
        assert (a.attention is None and b.attention is None) or np.array_equal(b.attention, a.attention)
        assert (a.positions is None and b.positions is None) or np.array_equal(b.positions, a.positions)
        assert b.forced_step == t and a.forced_step is None


@pytest.mark.parametrize("name", ["s2s-bahdanau", "s2s-luong-general", "s2s-luong-local-p"])
def test_seq2seq_forcing_another_token_matches_teacher_forced_scoring(name: str) -> None:
    loaded = load_seq2seq(name)
    original = translate(loaded, TEXT)
    t = 1
    token = _other_candidate(original.tgt_tokens, original.best.topk_tokens[t], t)
    what_if = what_if_translation(loaded, TEXT, original.tgt_tokens, t, token)
    hyp = what_if.best
    assert hyp.tokens[:t] == original.tgt_tokens[:t] and hyp.tokens[t] == token and hyp.forced_step == t
    assert hyp.tokens != original.tgt_tokens
    ids = loaded.tgt_vocab.encode(hyp.tokens)
    src = prepare_source(TEXT, loaded).ids
    with torch.no_grad():
        tgt_in = torch.tensor([[SOS_ID] + ids[:-1]])
        logits, alphas = loaded.model(torch.tensor([src]), torch.tensor([len(src)]), tgt_in)
    log_p = torch.log_softmax(logits[0].float(), -1)
    np.testing.assert_allclose(hyp.attention, alphas[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(hyp.token_probs, log_p[torch.arange(len(ids)), ids].exp().numpy(), atol=1e-5)
    assert [int(i) for i in log_p[t + 1 :].argmax(-1)] == ids[t + 1 :]  # greedy again after the forced step
    assert what_if.notices[0].topic == "forced" and f"“{token}”" in what_if.notices[0].text


def test_seq2seq_forcing_works_with_hard_attention() -> None:
    loaded = load_seq2seq("s2s-luong-general")
    original = translate(loaded, TEXT, mode=AttentionMode("hard"))
    same = what_if_translation(loaded, TEXT, original.tgt_tokens, 2, original.tgt_tokens[2], AttentionMode("hard"))
    assert np.array_equal(same.best.attention, original.best.attention)
    assert set(np.unique(same.best.attention)) <= {0.0, 1.0}


def test_forcing_the_end_token_stops_there() -> None:
    loaded = load_seq2seq("s2s-bahdanau")
    original = translate(loaded, TEXT)
    what_if = what_if_translation(loaded, TEXT, original.tgt_tokens, 2, typed_token(" </s> "))
    assert what_if.tgt_tokens == original.tgt_tokens[:2] + ["</s>"] and what_if.best.finished


def test_a_typed_token_outside_the_vocabulary_is_reported_not_mapped() -> None:
    loaded = load_seq2seq("s2s-bahdanau")
    original = translate(loaded, TEXT)
    with pytest.raises(InputError, match="“chein” is not in this model's output vocabulary.*chien"):
        what_if_translation(loaded, TEXT, original.tgt_tokens, 1, typed_token("Chein"))
    with pytest.raises(InputError, match="2 tokens"):
        typed_token("le chien")
    with pytest.raises(InputError, match="never outputs"):
        forced_ids(["<s>"], loaded.tgt_vocab.stoi)
    with pytest.raises(InputError, match="not a step"):
        what_if_translation(loaded, TEXT, original.tgt_tokens, len(original.tgt_tokens) + 1, "le")


# ------------------------------------------------------------------ forcing: Transformer


def test_transformer_forcing_the_models_own_choice_reproduces_the_trace(tf_en_fr) -> None:
    original = translate_transformer(tf_en_fr, TEXT)
    same = what_if_transformer(tf_en_fr, TEXT, original.tgt_tokens, 3, original.tgt_tokens[3])
    assert same.output_ids == original.output_ids and same.forced_step == 3 and original.forced_step is None
    for field in (
        "encoder_attention",
        "decoder_self_attention",
        "cross_attention",
        "token_log_probs",
        "topk_probs",
        "topk_ids",
    ):
        assert np.array_equal(getattr(same, field), getattr(original, field)), field


def test_transformer_forcing_another_token_matches_teacher_forced_scoring(tf_en_fr) -> None:
    original = translate_transformer(tf_en_fr, TEXT)
    t = 1
    token = _other_candidate(original.tgt_tokens, original.topk_tokens[t], t)
    what_if = what_if_transformer(tf_en_fr, TEXT, original.tgt_tokens, t, token)
    assert what_if.tgt_tokens[:t] == original.tgt_tokens[:t] and what_if.tgt_tokens[t] == token
    src = torch.tensor([prepare_transformer_source(TEXT, tf_en_fr).ids])
    with torch.no_grad():
        run = tf_en_fr.model.run(src, torch.tensor([what_if.decoder_input_ids]))
    np.testing.assert_allclose(what_if.cross_attention, run.cross_attention[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(what_if.decoder_self_attention, run.decoder_self_attention[0].numpy(), atol=1e-5)
    assert run.logits[0, t + 1 :].argmax(-1).tolist() == what_if.output_ids[t + 1 :]
    assert not np.allclose(what_if.cross_attention[:, :, t + 1], original.cross_attention[:, :, t + 1])


def test_transformer_ablation_is_the_masked_model_and_changes_other_heads(tf_en_fr) -> None:
    original = translate_transformer(tf_en_fr, TEXT)
    off = ablated_translation(tf_en_fr, TEXT, "encoder", 0, 2)
    assert off.ablated_head == ("encoder", 0, 2) and original.ablated_head is None
    src = torch.tensor([prepare_transformer_source(TEXT, tf_en_fr).ids])
    mask = HeadMask.one_head_off(tf_en_fr.config, "encoder", 0, 2)
    with torch.no_grad():
        run = tf_en_fr.model.run(src, torch.tensor([off.decoder_input_ids]), head_mask=mask)
    np.testing.assert_allclose(off.cross_attention, run.cross_attention[0].numpy(), atol=1e-5)
    assert run.logits[0].argmax(-1).tolist() == off.output_ids
    assert np.array_equal(off.encoder_attention[0], original.encoder_attention[0])
    assert not np.allclose(off.encoder_attention[1], original.encoder_attention[1], atol=1e-4)
    assert off.score != original.score
    with pytest.raises(InputError, match="no such head"):
        ablated_translation(tf_en_fr, TEXT, "cross", 9, 0)


def test_transformer_ablation_follows_the_beam_too(tf_en_fr) -> None:
    off = ablated_translation(tf_en_fr, TEXT, "cross", 1, 3, beam=3)
    plain = translate_transformer(tf_en_fr, TEXT, beam=3)
    assert off.search == "beam" and off.hypotheses and off.score != plain.score


# ------------------------------------------------------------------ the pages (AppTest)


def _page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_seq2seq_page_forces_a_candidate_and_a_typed_token() -> None:
    at = _page("2_Seq2seq_attention.py")
    at.button(key="s2s_next").click().run()  # step 2
    pick = at.button_group(key="s2s_what_if_pick_1")
    assert not at.text  # no what-if before a choice
    pick.set_value(pick.options[0]).run()
    assert not at.exception and not at.error
    state = at.session_state["s2s_what_if"]
    original, what_if = [t.value.split() for t in at.text]  # the two translations, side by side
    assert what_if[1] == state["token"] != original[1] and what_if[0] == original[0]
    assert any(c.value.startswith("What\\-if\\: step 2 was forced") for c in at.caption)
    at.button(key="s2s_next").click().run()  # stepping keeps the what-if
    assert at.session_state["s2s_what_if"] == state and at.text[1].value.split() == what_if
    at.text_input(key="s2s_what_if_typed_2").input("xyzzy").run()
    assert not at.exception and any("“xyzzy” is not in this model" in w.value for w in at.warning)
    at.button(key="s2s_what_if_reset").click().run()
    assert at.session_state["s2s_what_if"] is None and not at.warning


@pytest.mark.slow
def test_seq2seq_what_if_is_dropped_when_the_input_changes() -> None:
    at = _page("2_Seq2seq_attention.py")
    at.text_input(key="s2s_what_if_typed_0").input(" Le ").run()  # read as the tokenizer reads it: "le"
    assert not at.warning and at.text[1].value.startswith("le ") and at.text[0].value.startswith("la ")
    at.text_input(key="s2s_text").set_value("the dog is old .").run()
    assert not at.exception and at.session_state["s2s_what_if"] is None


@pytest.mark.slow
def test_transformer_page_forces_a_token_and_switches_off_a_head() -> None:
    at = _page("4_Transformer_translation.py")
    at.text_input(key="tf_what_if_typed_0").input("une").run()
    assert not at.exception and not at.error
    assert any(t.value.startswith("une ") for t in at.text)
    at.toggle(key="tf_ab_on").set_value(True).run()
    at.selectbox(key="tf_ab_kind").set_value("encoder").run()
    at.selectbox(key="tf_ab_head").set_value(2).run()
    assert not at.exception and not at.error
    scores = [m.value for m in at.markdown if "Σ log p =" in m.value]
    assert scores[0].startswith("**Every head on**") and "Encoder self-attention, layer 1, head 3 off" in scores[1]
    assert scores[0].split("= ")[1] != scores[1].split("= ")[1]  # the head's absence shows in Σ log p
    assert len(at.dataframe) >= 1
