"""The command-line tools: JSON traces, one-line errors with a non-zero exit, training on a user file."""

import json
import shutil

import pytest

from tests.cli_helpers import assert_one_line_error, run
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

SHIPPED = ROOT / "checkpoints" / "s2s-bahdanau"


def test_translate_json_trace():
    proc = run("models.translate", "--model", "s2s-bahdanau", "--beam", "3", "--json", "the red car is small .")
    assert proc.returncode == 0, proc.stderr
    trace = json.loads(proc.stdout)
    assert trace["src_tokens"][-1] == "</s>" and trace["tgt_tokens"][-1] == "</s>"
    attention = trace["attention"]
    assert len(attention) == len(trace["tgt_tokens"]) and len(attention[0]) == len(trace["src_tokens"])
    assert all(abs(sum(row) - 1) < 1e-4 for row in attention)
    assert trace["beam_width"] == 3 and trace["beam_steps"] and trace["hypotheses"][0]["topk"]


def test_translate_plain_text():
    proc = run("models.translate", "--model", "s2s-luong-dot", "the red car is small .")
    assert proc.returncode == 0 and "voiture rouge" in proc.stdout


@pytest.mark.parametrize(
    "args,words",
    [
        (["--model", "no-such-model", "hello"], ["no-such-model", "config.json"]),
        (["--model", "s2s-bahdanau", "   "], ["nothing to translate"]),
        (["--model", "s2s-bahdanau", "--beam", "9", "the car"], ["beam width"]),
    ],
)
def test_translate_errors_are_one_line(args, words):
    assert_one_line_error(run("models.translate", *args), *words)


def test_corrupt_checkpoint_named(tmp_path):
    bad = tmp_path / "broken"
    shutil.copytree(SHIPPED, bad)
    (bad / "model.safetensors").write_bytes(b"not safetensors")
    assert_one_line_error(run("models.translate", "--model", str(bad), "the car"), "model.safetensors")


def test_train_on_user_tatoeba_file(tmp_path):
    data = tmp_path / "pairs.tsv"
    data.write_text(
        "".join(
            f"the {w} car .\tla voiture {f} .\tCC-BY 2.0 (France) Attribution: tatoeba.org\n"
            for w, f in [("red", "rouge"), ("green", "verte"), ("small", "petite")] * 10
        ),
        encoding="utf-8",
    )
    out = tmp_path / "ck"
    proc = run(
        "models.train",
        "--preset",
        "s2s-luong-dot",
        "--data",
        str(data),
        "--epochs",
        "1",
        "--out",
        str(out),
        "--threads",
        "1",
    )
    assert proc.returncode == 0, proc.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["training"]["data"] == "user file pairs.tsv" and config["training"]["n_train"] == 29
    proc = run("models.translate", "--model", str(out), "the red car .")
    assert proc.returncode == 0


def test_train_bad_user_file_is_one_line(tmp_path):
    data = tmp_path / "bad.tsv"
    data.write_text("the red car\tla voiture rouge\nno tab on this line\n", encoding="utf-8")
    assert_one_line_error(
        run("models.train", "--preset", "s2s-luong-dot", "--data", str(data), "--out", str(tmp_path / "x")), "line 2"
    )


def test_evaluate_json(tmp_path):
    folder = tmp_path / "cks"
    shutil.copytree(SHIPPED, folder / "s2s-bahdanau")
    proc = run("models.evaluate", "--json", env={"ATTN_LAB_CHECKPOINTS": str(folder)})
    assert proc.returncode == 0, proc.stderr
    (model,) = json.loads(proc.stdout)["models"]
    assert model["name"] == "s2s-bahdanau" and model["bleu"] > 50 and 0 <= model["aer"] < 0.5
    assert sum(b["n"] for b in model["bleu_by_length"]) == model["n_test"]
