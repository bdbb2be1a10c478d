"""One recipe per family: ``python -m models.train`` and the studio train the same model the same way.

Given the same pairs or text, sizes and seed, the command line's trainer and the studio's trainee of a
family start from the same weights and take the same losses step by step; a second, diverging recipe
in either front door fails here."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from corpora.lm_data import line_stream
from models.nn.rnn_seq2seq import Seq2Seq
from models.nn.transformer import DecoderOnlyLM, Transformer
from models.training import runs
from models.training.loop import LossOfBatch, TrainSettings, fit
from models.training.seq2seq import build_vocabs, encode_pairs, rnn_loss, train_seq2seq
from models.training.transformer import encode_tf_pairs, lm_loss, lm_vocab, pair_loss

CPU = torch.device("cpu")
TRAIN = TrainSettings(steps=3, batch_size=8, lr=1e-3, seed=3)


def _losses(model: torch.nn.Module, loss_of_batch: LossOfBatch, settings: TrainSettings = TRAIN) -> list[float]:
    seen: list[float] = []
    fit(model, loss_of_batch, settings, [lambda report: seen.append(report.loss)])
    return seen


@pytest.fixture(scope="module")
def pairs() -> runs.PairData:
    settings = replace(runs.PRESETS["tiny"], n_train=200)
    return runs.load_data(settings)


def test_the_cli_and_the_studio_train_an_rnn_alike(pairs: runs.PairData) -> None:
    s = replace(runs.PRESETS["tiny"], family=runs.RNN, seed=TRAIN.seed, hidden=16)
    torch.manual_seed(TRAIN.seed)
    trainee = runs.rnn_trainee(s, pairs, TRAIN, CPU)
    studio = _losses(trainee.model, trainee.loss_of_batch)
    src_vocab, tgt_vocab = build_vocabs(pairs.train)
    cli = train_seq2seq(s.rnn_config(len(src_vocab), len(tgt_vocab)), TRAIN, pairs.train, CPU, [lambda report: None])
    assert cli.stats["final_loss"] == pytest.approx(sum(studio) / len(studio), abs=1e-4)
    for a, b in zip(cli.model.state_dict().values(), trainee.model.state_dict().values()):
        assert torch.equal(a, b)


def test_the_rnn_recipe_reads_batches_by_step(pairs: runs.PairData) -> None:
    """A resumed run (starting at step 2) takes the batch a fresh run took at step 2."""
    s = replace(runs.PRESETS["tiny"], family=runs.RNN, hidden=16)
    src_vocab, tgt_vocab = build_vocabs(pairs.train)
    cfg = s.rnn_config(len(src_vocab), len(tgt_vocab))
    data = encode_pairs(pairs.train, src_vocab, tgt_vocab, cfg)
    model = Seq2Seq(cfg).eval()
    fresh = rnn_loss(model, data, 8, 0, 1.0, CPU)
    resumed = rnn_loss(model, data, 8, 0, 1.0, CPU)
    with torch.no_grad():
        expected = [fresh(step)[0].item() for step in range(3)][2]
        assert resumed(2)[0].item() == expected


def test_the_cli_and_the_studio_train_a_transformer_alike(pairs: runs.PairData) -> None:
    s = replace(
        runs.PRESETS["tiny"],
        family=runs.TRANSFORMER,
        seed=TRAIN.seed,
        hidden=16,
        heads=2,
        layers=1,
        label_smoothing=0.1,
    )
    torch.manual_seed(TRAIN.seed)
    trainee = runs.transformer_trainee(s, pairs, TRAIN, CPU)
    start = {k: v.clone() for k, v in trainee.model.state_dict().items()}
    studio = _losses(trainee.model, trainee.loss_of_batch)
    src_vocab, tgt_vocab = build_vocabs(pairs.train)
    model = Transformer(s.transformer_config(len(src_vocab), len(tgt_vocab)))
    model.load_state_dict(start)
    encoded = encode_tf_pairs(pairs.train, src_vocab, tgt_vocab, runs.TF_MAX_LEN - 1, runs.TF_MAX_LEN - 2)
    cli = _losses(model, pair_loss(model, encoded, TRAIN.batch_size, TRAIN.seed, 0.1, CPU))
    assert cli == studio


def test_the_cli_and_the_studio_train_a_language_model_alike() -> None:
    s = replace(
        runs.PRESETS["tiny"],
        family=runs.LM,
        data="bible-text",
        seed=TRAIN.seed,
        hidden=16,
        heads=2,
        layers=1,
        n_train=300,
    )
    data = runs.load_text(s)
    assert isinstance(data, runs.LineData)
    torch.manual_seed(TRAIN.seed)
    trainee = runs.lm_trainee(s, data, TRAIN, CPU)
    start = {k: v.clone() for k, v in trainee.model.state_dict().items()}
    studio = _losses(trainee.model, trainee.loss_of_batch)
    vocab = lm_vocab(data.train, runs.LM_VOCAB)
    model = DecoderOnlyLM(s.lm_config(len(vocab)))
    model.load_state_dict(start)
    stream = torch.as_tensor(line_stream(data.train, vocab), dtype=torch.long)
    cli = _losses(model, lm_loss(model, stream, runs.LM_CONTEXT, TRAIN.batch_size, TRAIN.seed, 0.0, CPU))
    assert cli == studio
