"""The one training loop: exact step counts, the schedule it applies, progress reports, stopping,
the wall-clock guard; atomic checkpoint writes; one to_dict for every trace."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from models.checkpoints import CheckpointError, load_seq2seq, save_seq2seq
from models.inference.traces import BeamCandidate, GenerationStep, GenerationTrace, Hypothesis, Trace
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.text.vocab import Vocab
from models.training.loop import Progress, TrainSettings, batch_at_step, fit, lr_factor, make_optimizer


def _regression(seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Linear(3, 1)
    x = torch.randn(32, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]])

    def loss_of_batch(_step: int):
        return torch.nn.functional.mse_loss(model(x), y), len(x)

    return model, loss_of_batch


def test_fit_runs_exactly_the_planned_steps_and_reports_each() -> None:
    model, loss_of_batch = _regression()
    seen: list[Progress] = []
    stats = fit(model, loss_of_batch, TrainSettings(steps=25, lr=0.1, warmup=5), callbacks=[seen.append])
    assert stats["steps"] == 25 and stats["planned_steps"] == 25 and stats["cut_short"] is None
    assert [p.step for p in seen] == list(range(1, 26)) and all(p.steps == 25 for p in seen)
    assert seen[-1].loss < seen[0].loss
    assert all(p.tokens_per_second > 0 and p.elapsed >= 0 for p in seen)
    assert stats["tokens_per_second"] > 0 and not model.training


def test_fit_applies_linear_warmup_then_linear_decay() -> None:
    model, loss_of_batch = _regression()
    lrs: list[float] = []
    optimizer_step = torch.optim.Adam.step

    def spy(self, *args, **kwargs):
        lrs.append(self.param_groups[0]["lr"])
        return optimizer_step(self, *args, **kwargs)

    torch.optim.Adam.step = spy  # type: ignore[method-assign]
    try:
        fit(model, loss_of_batch, TrainSettings(steps=20, lr=1.0, warmup=4))
    finally:
        torch.optim.Adam.step = optimizer_step  # type: ignore[method-assign]
    expected = [lr_factor(t, t / 20, 4) for t in range(20)]
    assert lrs == pytest.approx(expected)
    assert lrs[0] == pytest.approx(0.25) and lrs[3] == pytest.approx(0.85) and lrs[-1] == pytest.approx(0.05)


def test_fit_stops_between_steps_when_asked() -> None:
    model, loss_of_batch = _regression()
    stop = threading.Event()

    def stop_at_7(p: Progress) -> None:
        if p.step == 7:
            stop.set()

    stats = fit(model, loss_of_batch, TrainSettings(steps=100, lr=0.1), callbacks=[stop_at_7], stop=stop)
    assert stats["steps"] == 7 and "stopped by request at step 7 of 100" in stats["cut_short"]


def test_the_wall_clock_guard_cuts_short_loudly(capsys) -> None:
    model, loss_of_batch = _regression()
    stats = fit(model, loss_of_batch, TrainSettings(steps=1000, lr=0.1, max_minutes=0.0))
    assert stats["steps"] == 0 and "time guard" in stats["cut_short"]
    assert "WARNING" in capsys.readouterr().err


def test_same_seed_same_curve() -> None:
    curves = []
    for _ in range(2):
        model, loss_of_batch = _regression(seed=3)
        losses: list[float] = []
        fit(
            model,
            loss_of_batch,
            TrainSettings(steps=15, lr=0.05, warmup=3),
            callbacks=[lambda p, out=losses: out.append(p.loss)],
        )
        curves.append(losses)
    assert curves[0] == curves[1]


def _tiny_seq2seq() -> tuple[Seq2Seq, Vocab, Vocab]:
    src = Vocab.build([["a", "b"]])
    tgt = Vocab.build([["x", "y"]])
    cfg = Seq2SeqConfig(
        attention="bahdanau", src_vocab_size=len(src), tgt_vocab_size=len(tgt), emb_dim=4, hidden_dim=4, attn_dim=4
    )
    return Seq2Seq(cfg), src, tgt


def test_a_failed_save_leaves_the_old_checkpoint_whole(tmp_path: Path, monkeypatch) -> None:
    model, src, tgt = _tiny_seq2seq()
    folder = save_seq2seq(tmp_path / "m", model, src, tgt, {"label": "first"})
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    import models.checkpoints as ck

    def broken(_vocab):
        def write(_folder: Path) -> None:
            raise OSError("disk full")

        return write

    monkeypatch.setattr(ck, "_vocab_writer", broken)
    with pytest.raises(CheckpointError, match="disk full"):
        save_seq2seq(tmp_path / "m", model, src, tgt, {"label": "second"})
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no half-written folder left behind
    assert load_seq2seq(folder).training["label"] == "first"


def test_saving_over_a_checkpoint_replaces_it(tmp_path: Path) -> None:
    model, src, tgt = _tiny_seq2seq()
    save_seq2seq(tmp_path / "m", model, src, tgt, {"label": "first"})
    save_seq2seq(tmp_path / "m", model, src, tgt, {"label": "second"})
    assert load_seq2seq(tmp_path / "m").training["label"] == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]
    (tmp_path / "m" / "config.json").write_text("{")
    with pytest.raises(CheckpointError, match="config.json"):
        load_seq2seq(tmp_path / "m")


def test_to_dict_is_one_function_for_every_trace() -> None:
    hyp = Hypothesis(
        ["x", "</s>"],
        np.array([0.5, 0.25], np.float32),
        np.eye(2, dtype=np.float32),
        [["x", "y"], ["</s>", "x"]],
        np.array([[0.5, 0.2], [0.25, 0.1]], np.float32),
        -2.0,
        True,
        -1.0,
    )
    step = GenerationStep(
        3,
        7,
        0.5,
        np.array([7, 2]),
        np.array([0.5, 0.3], np.float32),
        np.array([0.5, 0.5], np.float32),
        np.zeros((1, 1, 3), np.float32),
        "the",
        ["the", "a"],
    )
    gen = GenerationTrace(
        [1, 5, 6], [7], [step], np.zeros((1, 1, 4, 4), np.float32), 0, 1.0, None, ["<s>", "in", "the"], ["the"]
    )
    for trace in (hyp, BeamCandidate(0, "x", -0.5, -0.5, True, False), gen):
        assert isinstance(trace, Trace)
        data = json.loads(json.dumps(trace.to_dict()))
        assert all(name in data for name in type(trace).DERIVED)
    assert hyp.to_dict()["score"] == pytest.approx(-1.0) and hyp.to_dict()["topk"][0][0] == {"token": "x", "prob": 0.5}
    g = gen.to_dict()
    assert g["text"] == "in the the" and g["steps"][0]["top"][0] == {"token": "the", "prob": 0.5, "sampling_prob": 0.5}


def test_presets_are_defined_by_steps() -> None:
    from models.training.presets import NORM_RUNS, PRESETS

    without = {NORM_RUNS[0], NORM_RUNS[2]}  # post-LN and pre-LN trained without warm-up on purpose
    for preset in PRESETS.values():
        assert preset.train.steps > 0 and 0 <= preset.train.warmup < preset.train.steps
        assert (preset.train.warmup == 0) == (preset.name in without), preset.name
        assert replace(preset.train, steps=10).steps == 10


def _noisy_regression(seed: int = 0):
    """A model with dropout whose batches come from a seeded stream: random numbers everywhere."""
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Dropout(0.3), torch.nn.Linear(8, 1))

    def stream():
        gen = torch.Generator().manual_seed(seed)
        while True:
            x = torch.randn(16, 3, generator=gen)
            yield x, x.sum(-1, keepdim=True)

    batch_at = batch_at_step(stream())

    def loss_of_batch(step: int):
        x, y = batch_at(step)
        return torch.nn.functional.mse_loss(model(x), y), len(x)

    return model, loss_of_batch


def test_fit_from_a_kept_optimizer_and_step_ends_as_an_uninterrupted_run() -> None:
    settings = TrainSettings(steps=20, lr=0.05, warmup=4)
    whole, loss_of_batch = _noisy_regression()
    fit(whole, loss_of_batch, settings)
    first, loss_of_batch = _noisy_regression()
    optimizer, stop = make_optimizer(first, settings), threading.Event()
    stats = fit(
        first, loss_of_batch, settings, callbacks=[lambda p: p.step == 7 and stop.set()], stop=stop, optimizer=optimizer
    )
    assert stats["steps"] == 7
    kept = {"model": first.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}
    second, loss_of_batch = _noisy_regression()  # as in a fresh process: new model, new batch stream
    optimizer = make_optimizer(second, settings)
    second.load_state_dict(kept["model"])
    optimizer.load_state_dict(kept["optimizer"])
    torch.set_rng_state(kept["rng"])
    seen: list[Progress] = []
    stats = fit(second, loss_of_batch, settings, callbacks=[seen.append], start_step=7, optimizer=optimizer)
    assert stats["steps"] == 20 and [p.step for p in seen] == list(range(8, 21))
    a, b = whole.state_dict(), second.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    fresh, loss_of_batch = _noisy_regression()  # without the kept optimizer state the weights differ
    fresh.load_state_dict(kept["model"])
    torch.set_rng_state(kept["rng"])
    fit(fresh, loss_of_batch, settings, start_step=7)
    assert not all(torch.equal(a[k], fresh.state_dict()[k]) for k in a)


def test_batch_at_step_skips_to_the_step_and_never_goes_back() -> None:
    batch_at = batch_at_step(iter(range(100)))
    assert [batch_at(0), batch_at(1), batch_at(5), batch_at(6)] == [0, 1, 5, 6]
    assert batch_at_step(iter(range(100)))(42) == 42  # a resumed run's first batch
    with pytest.raises(ValueError, match="step 3"):
        batch_at(3)
