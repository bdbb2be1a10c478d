"""Honest output: on sentences outside what the grammar models know, every output carries its
notices (unknown words, cut input, unfinished output, confidence against the test set, scope),
in the trace, in the JSON and in the plain-text command; and the evaluation decodes exactly as
the page does, sentence for sentence."""

from __future__ import annotations

import json

import pytest

from models.checkpoints import load_seq2seq, load_transformer, shipped
from models.inference.notices import mean_log_prob
from models.inference.translate import translate, translate_transformer
from tests.cli_helpers import run

# Written for this check: words the grammar never uses, and structures it never makes from words it
# does know (a bare plural subject, stacked adjectives, a question without inversion, repetition).
OUT_OF_SCOPE = [
    "the giraffe quietly ate seventeen bananas .",
    "my neighbour repairs bicycles on sundays .",
    "could you pass me the salt , please ?",
    "dogs eat apples .",
    "the small old red green car is big .",
    "the cat is the cat is the cat is the cat is the cat is the cat .",
    "is not the car red ?",
    "the dog " * 30 + ".",
    "réseau de neurones ⚙ 42 %",
]
MODELS = shipped("seq2seq")


def _check(notices, src_words, src_unknown, dropped, finished):
    kinds = [n.topic for n in notices]
    assert ("unknown" in kinds) == any(src_unknown), (src_words, kinds)
    assert ("cut" in kinds) == bool(dropped), kinds
    assert ("length" in kinds) == (not finished), kinds
    assert kinds.count("confidence") == 1 and kinds.count("scope") == 1
    confidence = next(n for n in notices if n.topic == "confidence")
    assert "test set" in confidence.text, "compared with the model's typical value"
    unknown = next((n for n in notices if n.topic == "unknown"), None)
    if unknown is not None:
        assert f"{sum(src_unknown)} of {len(src_words)} input words" in unknown.text


@pytest.mark.parametrize("name", MODELS)
def test_every_seq2seq_output_carries_its_notices(name):
    loaded = load_seq2seq(name)
    kinds = set()
    for text in OUT_OF_SCOPE:
        trace = translate(loaded, text)
        best = trace.best
        _check(trace.notices, trace.src_tokens[:-1], trace.src_unknown[:-1], trace.input_tokens_dropped, best.finished)
        figure = f"{mean_log_prob(best.log_prob, len(best.tokens)):.3f}"
        assert figure in next(n.text for n in trace.notices if n.topic == "confidence")
        kinds |= {n.topic for n in trace.notices}
    assert {"unknown", "cut", "confidence", "scope"} <= kinds


def test_the_transformer_output_carries_its_notices_too():
    loaded = load_transformer("tf-en-fr")
    for text in OUT_OF_SCOPE:
        trace = translate_transformer(loaded, text, beam=2)
        _check(trace.notices, trace.src_tokens[:-1], trace.src_unknown[:-1], trace.input_tokens_dropped, trace.finished)


def test_attention_models_flag_low_confidence_on_unknown_structure():
    """With every word known, an attention model's confidence on a structure the grammar never makes
    falls below 95% of its test sentences for most of these inputs."""
    known_structure_gaps = ["dogs eat apples .", "is not the car red ?", "the cat is the cat is the cat is the cat ."]
    for name in ("s2s-bahdanau", "s2s-luong-general", "s2s-luong-concat"):
        loaded = load_seq2seq(name)
        flagged = 0
        for text in known_structure_gaps:
            trace = translate(loaded, text)
            assert not any(trace.src_unknown)
            flagged += next(n for n in trace.notices if n.topic == "confidence").level == "warning"
        assert flagged >= 2, name


@pytest.mark.slow
def test_commands_print_the_same_notes():
    proc = run("models.translate", "--model", "s2s-bahdanau", "the giraffe ate the apple .")
    assert proc.returncode == 0
    notes = [line for line in proc.stderr.splitlines() if line.startswith("note: ")]
    assert any("unknown to this model" in n and "giraffe" in n for n in notes)
    assert any("Confidence" in n for n in notes) and any("trained only on" in n for n in notes)
    proc = run("models.translate", "--model", "s2s-bahdanau", "--json", "the giraffe ate the apple .")
    kinds = [n["kind"] for n in json.loads(proc.stdout)["notices"]]
    assert "unknown" in kinds and "confidence" in kinds


@pytest.mark.slow
def test_the_evaluation_decodes_each_sentence_as_the_page_does():
    """Batched greedy decoding (the evaluation) equals one-sentence decoding (the page), token for
    token, in batches that mix short and long sentences."""
    from corpora.en_fr import make_splits
    from models.training.seq2seq import translate_all
    from models.training.transformer import translate_batch

    test = make_splits()["test"]
    pairs = sorted(test, key=lambda p: len(p.src))
    sample = pairs[:40] + pairs[-40:]  # the shortest and the longest in the same batch
    loaded = load_seq2seq("s2s-luong-general")
    batched = translate_all(loaded.model, loaded.src_vocab, loaded.tgt_vocab, [p.src for p in sample])
    for pair, tokens in zip(sample, batched):
        assert [t for t in translate(loaded, " ".join(pair.src)).tgt_tokens if t != "</s>"] == tokens
    tf = load_transformer("tf-en-fr")  # the grammar's Transformer (tf-bible, tf-hsk read other test sets)
    batched = translate_batch(tf, [p.src for p in sample[:20] + sample[-20:]])
    for pair, tokens in zip(sample[:20] + sample[-20:], batched):
        trace = translate_transformer(tf, " ".join(pair.src))
        assert [t for t in trace.tgt_tokens if t != "</s>"] == tokens
