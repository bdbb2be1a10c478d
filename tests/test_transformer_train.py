"""Transformer family: WEB data, held-out toy split, training smoke tests on tiny models,
checkpoint round trip and one-line errors, the translate/generate/evaluate command lines."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from models.training import presets
from models.training import transformer as tt
from models.training.loop import lr_factor
from models.training.run import run_preset
from models.checkpoints import CheckpointError
from corpora.toy_tasks import ToyTask, is_heldout, random_sequences
from tests.cli_helpers import assert_one_line_error, run

TINY = dict(d_model=16, n_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=32, dropout=0.0)


def tiny(name: str, steps: int = 40, **data: object) -> presets.Preset:
    p = presets.PRESETS[name]
    return dataclasses.replace(
        p,
        model={**p.model, **TINY},
        train=dataclasses.replace(p.train, steps=steps, warmup=5, batch_size=16),
        data={**p.data, **data},
    )


# ------------------------------------------------------------------ data


def test_toy_heldout_split_is_disjoint() -> None:
    task = ToyTask("copy", 10, 3, 12)
    gen = torch.Generator().manual_seed(0)
    train = random_sequences(task, 500, gen, split="train")
    held = random_sequences(task, 200, gen, split="heldout")
    assert not any(is_heldout(s) for s in train) and all(is_heldout(s) for s in held)
    assert len(train) == 500 and len(held) == 200
    assert 0.05 < np.mean([is_heldout(s) for s in random_sequences(task, 2000, gen)]) < 0.15
    assert task.token_names()[3:6] == ["0", "1", "2"]


def test_web_bible_read_only_and_split_by_chapter() -> None:
    from corpora.bible import bible_db_path
    from corpora import lm_data

    path = bible_db_path()
    before = path.stat().st_mtime
    verses = lm_data.load_verses()
    assert len(verses) == 31102 and verses[0].tokens[:4] == ("in", "the", "beginning", "god")
    assert path.stat().st_mtime == before
    assert not any("[" in t or "`" in t for v in verses[:3000] for t in v.tokens)
    split = lm_data.split_verses(verses)
    chapters = {k: {(v.book, v.chapter) for v in vs} for k, vs in split.items()}
    assert not chapters["train"] & chapters["heldout"]
    assert 0.03 < len(split["heldout"]) / len(verses) < 0.07
    vocab = lm_data.build_vocab(split["train"][:500], cap=300)
    assert len(vocab) == 300 and vocab.itos[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    stream = lm_data.verse_stream(split["train"][:2], vocab)
    assert stream[0] == vocab.stoi["<s>"] and stream[-1] == vocab.stoi["</s>"]


def test_lr_factor_warms_up_then_decays() -> None:
    assert lr_factor(0, 0.0, 10) == pytest.approx(0.1)
    assert lr_factor(9, 0.0, 10) == pytest.approx(1.0)
    assert lr_factor(50, 0.5, 10) == pytest.approx(0.5)
    assert lr_factor(99, 1.0, 10) == 0.0


# ------------------------------------------------------------------ training smoke tests


@pytest.fixture(scope="module")
def tiny_checkpoints(tmp_path_factory) -> Path:
    """Tiny copy, English→French (on a small Tatoeba-format file) and LM (on a text file) checkpoints."""
    root = tmp_path_factory.mktemp("tf_cks")
    pairs = root / "pairs.tsv"
    pairs.write_text(
        "".join(
            f"the {e} car .\tla voiture {f} .\n"
            for e, f in [("red", "rouge"), ("green", "verte"), ("small", "petite"), ("big", "grande")] * 8
        ),
        encoding="utf-8",
    )
    text = root / "text.txt"
    text.write_text("in the beginning god created the heavens and the earth .\n" * 30, encoding="utf-8")
    run_preset(tiny("tf-copy", steps=60), out=root / "tf-copy", progress=False)
    run_preset(tiny("tf-en-fr", steps=60), out=root / "tf-en-fr", data=pairs, progress=False)
    run_preset(tiny("tf-lm", steps=60, context=16, vocab_cap=50), out=root / "tf-lm", data=text, progress=False)
    return root


@pytest.mark.slow
def test_training_writes_a_loadable_checkpoint(tiny_checkpoints: Path) -> None:
    for name, architecture in (
        ("tf-copy", "encoder-decoder"),
        ("tf-en-fr", "encoder-decoder"),
        ("tf-lm", "decoder-only"),
    ):
        folder = tiny_checkpoints / name
        config = json.loads((folder / "config.json").read_text())
        assert config["family"] == "transformer" and config["model"]["kind"] == architecture
        training = config["training"]
        assert {"label", "order", "command", "seconds", "steps", "settings"} <= set(training)
        assert training["steps"] == 60 and training["settings"]["label_smoothing"] in (0.0, 0.1)
        assert (folder / "model.safetensors").stat().st_size < 10_000_000
        loaded = tt.load_transformer(folder)
        assert loaded.architecture == architecture and loaded.training["preset"] == name
    lm = tt.load_transformer(tiny_checkpoints / "tf-lm")
    assert lm.model.generator.weight.data_ptr() == lm.model.embed.tokens.weight.data_ptr()  # tied, as trained
    assert json.loads((tiny_checkpoints / "tf-lm" / "config.json").read_text())["training"]["heldout_perplexity"] > 0


def test_lm_learns_the_repeated_line(tiny_checkpoints: Path) -> None:
    from models.inference.generate import generate_text

    lm = tt.load_transformer(tiny_checkpoints / "tf-lm")
    out = generate_text(lm, "in the beginning", max_new=4, temperature=0.0, seed=0)
    assert out.prompt_tokens[0] == "<s>" and len(out.steps) <= 4
    assert out.attention.shape[:2] == (1, 2)
    for s in out.steps:
        assert s.attention.shape == (1, 2, s.position)
        assert np.isclose(s.sampling_probs[0], 1.0) and s.token == s.top_tokens[0]


def test_corrupt_checkpoints_are_one_line_errors(tiny_checkpoints: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(tiny_checkpoints / "tf-copy", bad)
    (bad / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="model.safetensors"):
        tt.load_transformer(bad)
    (bad / "vocab.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="vocab.json"):
        tt.load_transformer(bad)
    (bad / "config.json").unlink()
    with pytest.raises(CheckpointError, match="config.json"):
        tt.load_transformer(bad)


@pytest.mark.slow
def test_train_command_dispatches_to_the_family(monkeypatch, tmp_path: Path) -> None:
    import models.train as train

    assert presets.PRESETS["tf-reverse"].family == "transformer"
    monkeypatch.setitem(presets.PRESETS, "tf-reverse", tiny("tf-reverse", steps=20))
    assert train.main(["--preset", "tf-reverse", "--out", str(tmp_path / "rev"), "--threads", "1"]) == 0
    config = json.loads((tmp_path / "rev" / "config.json").read_text())
    assert config["training"]["command"].startswith("python -m models.train")
    assert config["model"]["task"] == "reverse" and "heldout_exact_match" in config["training"]
    assert (
        train.main(["--preset", "tf-reverse", "--data", str(tmp_path / "x.tsv"), "--out", str(tmp_path / "r2")]) == 1
    )  # toy tasks take no --data: one-line error


@pytest.mark.slow
def test_train_command_steps_and_progress_log(monkeypatch, tmp_path: Path) -> None:
    """--steps overrides the preset's steps; --log gets one JSON line per step from the loop's callback."""
    import models.train as train

    monkeypatch.setitem(presets.PRESETS, "tf-copy", tiny("tf-copy", steps=50))
    log = tmp_path / "progress.jsonl"
    assert train.main(["--preset", "tf-copy", "--steps", "12", "--out", str(tmp_path / "c"), "--log", str(log)]) == 0
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["step"] for r in rows] == list(range(1, 13)) and all(r["steps"] == 12 for r in rows)
    assert all(r["loss"] > 0 and r["tokens_per_second"] > 0 and r["elapsed"] >= 0 for r in rows)
    training = json.loads((tmp_path / "c" / "config.json").read_text())["training"]
    assert training["steps"] == 12 and training["settings"]["steps"] == 12 and training["cut_short"] is None


@pytest.mark.slow
def test_evaluate_plugin(monkeypatch, tiny_checkpoints: Path) -> None:
    import models.checkpoints as ck

    monkeypatch.setattr(ck, "CHECKPOINT_DIR", tiny_checkpoints)
    monkeypatch.setattr(tt, "toy_exact_match", lambda model, task, n=1000, seed=1234: 0.5)
    monkeypatch.setattr(tt, "greedy_outputs", lambda model, encoded: (list(encoded), [[5, 2] for _ in encoded]))
    results = tt.evaluate_shipped()
    by_task = {m["task"]: m for m in results["models"]}
    assert set(by_task) == {"copy", "en-fr", "lm"} and not results["errors"]
    assert by_task["copy"]["exact_match"] == 0.5 and 0 <= by_task["en-fr"]["bleu"] <= 100
    assert by_task["lm"]["perplexity"] > 1 and by_task["lm"]["n_tokens"] > 1000
    json.dumps(results)
    text = tt.format_results(results)
    assert "held-out perplexity" in text and "test BLEU" in text and "exact match" in text


# ------------------------------------------------------------------ command lines


def _main(module: str, args: list[str], capsys) -> tuple[int, str, str]:
    """Run a command's main() in-process (the subprocess start costs seconds per call)."""
    import importlib

    code = importlib.import_module(module).main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_translate_and_generate_json(tiny_checkpoints: Path, capsys) -> None:
    code, out, err = _main(
        "models.translate", ["--model", str(tiny_checkpoints / "tf-copy"), "--json", "3 1 4 1 5"], capsys
    )
    assert code == 0, err
    trace = json.loads(out)
    assert trace["src_tokens"] == ["3", "1", "4", "1", "5"]
    n_layers, n_heads, S = 1, 2, 5
    assert np.array(trace["encoder_attention"]).shape == (n_layers, n_heads, S, S)
    T = len(trace["tgt_tokens"])
    assert np.array(trace["cross_attention"]).shape == (n_layers, n_heads, T, S)
    dec = np.array(trace["decoder_self_attention"])
    assert dec.shape == (n_layers, n_heads, T, T) and np.allclose(np.triu(dec, 1), 0)

    code, out, err = _main(
        "models.generate",
        [
            "--model",
            str(tiny_checkpoints / "tf-lm"),
            "--temperature",
            "0.7",
            "--top-k",
            "3",
            "--max-new",
            "5",
            "--json",
            "in the",
        ],
        capsys,
    )
    assert code == 0, err
    gen = json.loads(out)
    assert gen["prompt_tokens"] == ["<s>", "in", "the"] and 1 <= len(gen["steps"]) <= 5
    step = gen["steps"][0]
    assert len(step["top"]) >= 3 and sum(c["sampling_prob"] for c in step["top"]) == pytest.approx(1, abs=1e-5)
    assert np.array(step["attention"]).shape == (1, 2, 3)


@pytest.mark.slow
def test_generate_command_line(tiny_checkpoints: Path) -> None:
    plain = run("models.generate", "--model", str(tiny_checkpoints / "tf-lm"), "--temperature", "0", "in the")
    assert plain.returncode == 0 and plain.stdout.startswith("in the")
    assert_one_line_error(run("models.generate", "--model", "no-such-lm", "hi"), "no-such-lm", "config.json")


@pytest.mark.parametrize(
    "module,args,words",
    [
        ("models.generate", ["--model", "{lm}", "--top-k", "0", "hi"], ["top-k"]),
        ("models.generate", ["--model", "{copy}", "hi"], ["not a language model"]),
        ("models.translate", ["--model", "{copy}", "hello there"], ["copy model", "hello"]),
        ("models.translate", ["--model", "{lm}", "hello"], ["language model"]),
    ],
)
def test_cli_errors_are_one_line(
    tiny_checkpoints: Path, capsys, module: str, args: list[str], words: list[str]
) -> None:
    args = [a.format(lm=tiny_checkpoints / "tf-lm", copy=tiny_checkpoints / "tf-copy") for a in args]
    code, _, err = _main(module, args, capsys)
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and lines[0].startswith("error:"), err
    for word in words:
        assert word in lines[0], lines[0]
