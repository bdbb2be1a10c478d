"""One recipe per family, one settings shape: ``python -m models.train`` and the studio train the same
model the same way.

A studio run's form compiles to the engine's :class:`~models.training.presets.Preset`; given the same
pairs or text and that Preset, the command line's trainer (its config from the same
:func:`~models.training.presets.model_config`) and the studio's trainee of a family start from the same
weights and take the same losses step by step; a second, diverging recipe in either front door fails here."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from corpora.lm_data import line_stream
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.nn.transformer import DecoderOnlyLM, Transformer, TransformerConfig
from models.training import runs
from models.training.loop import LossOfBatch, TrainSettings, fit
from models.training.presets import Preset, family_config, model_config
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
    return runs.load_data(settings.preset())


def test_the_cli_and_the_studio_train_an_rnn_alike(pairs: runs.PairData) -> None:
    p = replace(replace(runs.PRESETS["tiny"], family=runs.RNN, hidden=16).preset(), train=TRAIN)
    torch.manual_seed(TRAIN.seed)
    trainee = runs.rnn_trainee(p, pairs, CPU)
    studio = _losses(trainee.model, trainee.loss_of_batch)
    cli = train_seq2seq(model_config(p, Seq2SeqConfig, 0), TRAIN, pairs.train, CPU, [lambda report: None])
    assert cli.stats["final_loss"] == pytest.approx(sum(studio) / len(studio), abs=1e-4)
    for a, b in zip(cli.model.state_dict().values(), trainee.model.state_dict().values()):
        assert torch.equal(a, b)


def test_the_rnn_recipe_reads_batches_by_step(pairs: runs.PairData) -> None:
    """A resumed run (starting at step 2) takes the batch a fresh run took at step 2."""
    p = replace(runs.PRESETS["tiny"], family=runs.RNN, hidden=16).preset()
    src_vocab, tgt_vocab = build_vocabs(pairs.train)
    cfg = model_config(p, Seq2SeqConfig, len(tgt_vocab), len(src_vocab))
    assert isinstance(cfg, Seq2SeqConfig)
    data = encode_pairs(pairs.train, src_vocab, tgt_vocab, cfg)
    model = Seq2Seq(cfg).eval()
    fresh = rnn_loss(model, data, 8, 0, 1.0, CPU)
    resumed = rnn_loss(model, data, 8, 0, 1.0, CPU)
    with torch.no_grad():
        expected = [fresh(step)[0].item() for step in range(3)][2]
        assert resumed(2)[0].item() == expected


def test_the_cli_and_the_studio_train_a_transformer_alike(pairs: runs.PairData) -> None:
    s = replace(runs.PRESETS["tiny"], family=runs.TRANSFORMER, hidden=16, heads=2, layers=1)
    p = replace(s.preset(), train=replace(TRAIN, label_smoothing=0.1))
    torch.manual_seed(TRAIN.seed)
    trainee = runs.transformer_trainee(p, pairs, CPU)
    start = {k: v.clone() for k, v in trainee.model.state_dict().items()}
    studio = _losses(trainee.model, trainee.loss_of_batch)
    src_vocab, tgt_vocab = build_vocabs(pairs.train)
    cfg = model_config(p, TransformerConfig, len(tgt_vocab), len(src_vocab))
    assert isinstance(cfg, TransformerConfig)
    model = Transformer(cfg)
    model.load_state_dict(start)
    encoded = encode_tf_pairs(pairs.train, src_vocab, tgt_vocab, runs.TF_MAX_LEN - 1, runs.TF_MAX_LEN - 2)
    cli = _losses(model, pair_loss(model, encoded, TRAIN.batch_size, TRAIN.seed, 0.1, CPU))
    assert cli == studio


def test_the_cli_and_the_studio_train_a_language_model_alike() -> None:
    s = replace(
        runs.PRESETS["tiny"],
        family=runs.LM,
        data="bible-text",
        hidden=16,
        heads=2,
        layers=1,
        n_train=300,
    )
    p = replace(s.preset(), train=TRAIN)
    data = runs.load_text(p)
    assert isinstance(data, runs.LineData)
    torch.manual_seed(TRAIN.seed)
    trainee = runs.lm_trainee(p, data, CPU)
    start = {k: v.clone() for k, v in trainee.model.state_dict().items()}
    studio = _losses(trainee.model, trainee.loss_of_batch)
    vocab = lm_vocab(data.train, runs.LM_VOCAB)
    cfg = model_config(p, TransformerConfig, len(vocab))
    assert isinstance(cfg, TransformerConfig)
    model = DecoderOnlyLM(cfg)
    model.load_state_dict(start)
    stream = torch.as_tensor(line_stream(data.train, vocab), dtype=torch.long)
    cli = _losses(model, lm_loss(model, stream, runs.LM_CONTEXT, TRAIN.batch_size, TRAIN.seed, 0.0, CPU))
    assert cli == studio


def test_every_studio_form_compiles_to_the_engines_one_shape() -> None:
    """Each studio preset is a Preset of the command line's families and tasks, and its model config comes
    from the one builder with the studio's sizes (d_ff = 4·hidden) and each family's shipped choices."""
    for name, s in runs.PRESETS.items():
        p = s.preset()
        assert isinstance(p, Preset) and runs.studio_family(p) == s.family, name
        assert p.train.steps == s.steps and p.train.warmup == max(1, s.steps // 10) and p.train.seed == s.seed
        if s.family == runs.FINETUNE:
            assert p.task == f"finetune-{s.task}" and p.data["base"] == s.base
            continue
        cfg = family_config(p, 100, 90 if s.family in (runs.RNN, runs.TRANSFORMER) else None)
        width = cfg.hidden_dim if isinstance(cfg, Seq2SeqConfig) else cfg.d_model
        assert width == s.hidden, name
        if not isinstance(cfg, Seq2SeqConfig):
            assert cfg.d_ff == 4 * s.hidden and cfg.n_heads == s.heads, name
    assert runs.PRESETS["lm"].preset().model["tie_embeddings"] is True
    assert runs.PRESETS["tiny"].preset().task == "en-fr"
    assert replace(runs.PRESETS["tiny"], data="hsk").preset().task == "zh-en"


def test_the_command_line_trains_a_studio_run_that_the_studio_lists(tmp_path, monkeypatch, capsys) -> None:
    """`python -m models.train --studio NAME` runs the studio's engine: a command-line run (no owner) in the
    runs folder, which a student's studio lists, its checkpoint recording the Preset it was trained from."""
    import json

    from cli.train import main
    from models.checkpoints import load_seq2seq
    from models.runs.store import list_runs

    monkeypatch.setenv(runs.RUNS_ENV, str(tmp_path))
    assert main(["--studio", "tiny", "--steps", "3"]) == 0
    line = capsys.readouterr().out
    assert "finished" in line and "3 steps" in line
    (saved,) = list_runs(tmp_path, owner="a student")
    assert saved.meta["owner"] is None and saved.meta["status"] == runs.FINISHED
    record = load_seq2seq(saved.folder / runs.CHECKPOINT).training
    expected = replace(runs.PRESETS["tiny"], steps=3, name="tiny (command line)").preset().to_dict()
    assert record["preset_settings"] == json.loads(json.dumps(expected))
    # and from that run's own run.json: the same settings again, a second run
    assert main(["--studio", str(saved.folder / runs.RUN_FILE)]) == 0
    assert len(list_runs(tmp_path)) == 2
    capsys.readouterr()
    assert main(["--studio", str(tmp_path / "nothing.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "neither a studio preset" in err and "\n" not in err
