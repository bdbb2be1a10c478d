"""BERT fine-tuning (models/training/finetune.py): §4 trains every parameter, §5.3 only the head; span
extraction, the attention-change measure and the checkpoint, on small models in seconds. The shipped
checkpoints' figures and the issue's bars: the slow test at the end."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from corpora import nli
from models.checkpoints import load_bert
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
