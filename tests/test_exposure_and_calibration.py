"""Teacher forcing and exposure bias (models.training.seq2seq.exposure_trace) and the label-smoothing
calibration figures (models.training.transformer.token_calibration), checked against direct computations
on the shipped s2s-bahdanau and tf-en-fr."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from corpora.en_fr import make_splits
from models.checkpoints import load_seq2seq, load_transformer
from models.inference.common import pad_ids
from models.text.vocab import EOS_ID, SOS_ID, encode_source
from models.training.metrics import expected_calibration_error
from models.training.seq2seq import exposure_trace
from models.training.transformer import token_calibration

pytestmark = pytest.mark.slow  # the grammar's splits take 10–30 s to build


@pytest.fixture(scope="module")
def test_pairs():
    return make_splits()["test"]


def test_forced_run_is_the_teacher_forced_argmax_and_runs_agree_until_they_part(test_pairs) -> None:
    loaded = load_seq2seq("s2s-bahdanau")
    m, sv, tv = loaded.model, loaded.src_vocab, loaded.tgt_vocab
    for pair in test_pairs[:12]:
        trace = exposure_trace(m, sv, tv, pair.src, pair.tgt)
        src_ids = encode_source(sv.stoi, pair.src, m.cfg.max_src_len - 1)
        gold = tv.encode(list(pair.tgt)) + [EOS_ID]
        with torch.no_grad():
            logits, _ = m(torch.tensor([src_ids]), torch.tensor([len(src_ids)]), torch.tensor([[SOS_ID] + gold[:-1]]))
        direct = ["</s>" if i == EOS_ID else tv.itos[i] for i in logits[0].argmax(-1).tolist()]
        assert trace.forced_tokens == direct
        gold_words = list(pair.tgt) + ["</s>"]
        parted = trace.parted
        if parted is None:
            assert trace.free_tokens == gold_words
        else:
            assert trace.free_tokens[:parted] == gold_words[:parted]
            assert parted >= len(trace.free_tokens) or trace.free_tokens[parted] != gold_words[parted]
        shared = len(trace.free_tokens) if parted is None else parted + 1  # same inputs up to and at the parting step
        assert trace.free_tokens[:shared] == trace.forced_tokens[:shared]
        assert trace.forced_attention is not None and trace.free_attention is not None
        assert np.allclose(trace.free_attention[:shared], trace.forced_attention[:shared], atol=1e-5)


def test_the_transformer_forced_run_is_its_teacher_forced_argmax_and_the_runs_agree_until_they_part(
    test_pairs,
) -> None:
    """The Transformer page's exposure view: the forced row t is argmax p(y | gold y_<t, x) from one teacher-forced
    pass, the free run is greedy decoding, they read the same prefix (and attend the same) up to the parting
    step, and the attention drawn is the last decoder layer's cross-attention, mean over heads."""
    from models.inference.transformer import greedy_decode
    from models.training.transformer import exposure_trace as tf_exposure_trace

    loaded = load_transformer("tf-en-fr")
    model = loaded.encoder_decoder
    parted_seen = 0
    for pair in test_pairs[:30]:
        trace = tf_exposure_trace(
            model, loaded.src_stoi, loaded.tgt_stoi, loaded.tgt_itos, pair.src, pair.tgt, loaded.max_src_tokens
        )
        src = pad_ids([encode_source(loaded.src_stoi, pair.src, loaded.max_src_tokens)], 0)
        gold = [loaded.tgt_stoi.get(t, 1) for t in pair.tgt] + [EOS_ID]
        with torch.no_grad():
            logits = model(src, torch.tensor([[model.config.bos_id] + gold[:-1]]))[0].float()
        direct = ["</s>" if i == EOS_ID else loaded.tgt_itos[i] for i in logits.argmax(-1).tolist()]
        assert trace.forced_tokens == direct
        free = greedy_decode(model, src[0].tolist(), max_len=len(gold) + 10, top_k=1)
        assert trace.free_tokens == ["</s>" if i == EOS_ID else loaded.tgt_itos[i] for i in free.output_ids]
        assert np.allclose(trace.free_attention, free.cross_attention[-1].mean(0))
        gold_words = list(pair.tgt) + ["</s>"]
        if trace.parted is None:
            assert trace.free_tokens == gold_words
            continue
        parted_seen += 1
        assert trace.free_tokens[: trace.parted] == gold_words[: trace.parted]
        shared = trace.parted + 1  # the same inputs up to and at the parting step
        assert trace.free_tokens[:shared] == trace.forced_tokens[:shared]
        assert np.allclose(trace.free_attention[:shared], trace.forced_attention[:shared], atol=1e-5)
    assert parted_seen  # the first 30 test sentences hold at least one where the runs part


def test_the_exposure_figure_notes_the_parting_once_and_in_the_readers_words() -> None:
    from viz_core.finetune import exposure_figure

    weights = np.full((3, 2), 0.5)
    fig = exposure_figure(["a", "b"], ["x", "y", "z"], ["x", "q", "z"], weights, weights, 1, ["L", "R"], "T", "分歧")
    assert [a.text for a in fig.layout.annotations] == ["L", "R", "分歧"]  # no plotly default "new text"


def test_token_calibration_against_a_direct_computation(test_pairs) -> None:
    loaded = load_transformer("tf-en-fr")
    model = loaded.encoder_decoder
    pairs = [(p.src, p.tgt) for p in test_pairs[:40]]
    cal = token_calibration(model, loaded.src_stoi, loaded.tgt_stoi, pairs, loaded.max_src_tokens)
    nll, conf, hit = [], [], []
    with torch.no_grad():
        for src, tgt in pairs:
            s = pad_ids([encode_source(loaded.src_stoi, src, loaded.max_src_tokens)], 0)
            gold = [loaded.tgt_stoi[t] for t in tgt] + [EOS_ID]
            logits = model(s, torch.tensor([[model.config.bos_id] + gold[:-1]]))[0].float()
            nll += F.cross_entropy(logits, torch.tensor(gold), reduction="none").tolist()
            p = logits.softmax(-1)
            conf += p.max(-1).values.tolist()
            hit += (p.argmax(-1) == torch.tensor(gold)).tolist()
    assert cal["n_tokens"] == len(nll)
    assert cal["perplexity"] == pytest.approx(math.exp(np.mean(nll)), rel=1e-3)
    assert cal["token_accuracy"] == pytest.approx(np.mean(hit), abs=1e-4)
    assert cal["ece"] == pytest.approx(expected_calibration_error(conf, hit), abs=1e-4)


def test_shipped_pairs_reproduce_the_written_evaluation() -> None:
    """`python -m models.evaluate --write` keeps the label-smoothing and teacher-forcing comparisons beside the
    checkpoints (the pages read them); recomputing gives the same figures."""
    from models.checkpoints import load_results
    from models.training.seq2seq import exposure_comparison
    from models.training.transformer import label_smoothing_comparison

    saved = load_results() or {}
    for key, compute, fields, n in (
        ("label_smoothing", label_smoothing_comparison, ("bleu", "perplexity", "ece", "token_accuracy"), 4),
        (
            "teacher_forcing",
            exposure_comparison,
            ("bleu", "exact_match", "forced_token_accuracy", "left_gold_prefix"),
            2,
        ),
    ):
        rows = {m["name"]: m for m in compute()["models"]}
        assert len(rows) == n == len(saved[key]["models"]), key
        for m in saved[key]["models"]:
            for field in fields:
                assert rows[m["name"]][field] == pytest.approx(m[field], abs=1e-4), (key, m["name"], field)
