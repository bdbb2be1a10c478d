"""Files written before ``kind`` got its precise names keep loading (issue 26): config.json's
``model.kind`` and run.json's ``kind`` are a transformer's architecture, read into ``architecture``;
the JSON of traces (command-line output, downloads) keeps its key "kind" for the renamed fields."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import torch

from models.checkpoints import (
    DECODER_ONLY,
    ENCODER_DECODER,
    load_transformer,
    read_config,
    save_transformer,
    shipped_transformers,
)
from models.inference import traces
from models.lessons.explanations import Explanation
from models.nn.transformer import DecoderOnlyLM, TransformerConfig
from models.runs import store


def _tiny_lm() -> DecoderOnlyLM:
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=7, d_model=8, n_heads=2, num_decoder_layers=1, d_ff=16, dropout=0.0)
    return DecoderOnlyLM(config).eval()


def test_shipped_checkpoints_say_kind_and_load_as_architecture() -> None:
    """The shipped files are not rewritten: their ``model.kind`` is read as the architecture."""
    for name, architecture in (("tf-copy", ENCODER_DECODER), ("tf-lm", DECODER_ONLY)):
        assert read_config(name)["model"]["kind"] == architecture
        assert name in shipped_transformers(architecture)
        assert load_transformer(name).architecture == architecture


def test_a_saved_checkpoint_keeps_the_key_kind(tmp_path: Path) -> None:
    """New files are written as old ones were, so an older lab reads them too."""
    itos = ["<pad>", "<unk>", "<s>", "</s>", "a", "b", "c"]
    folder = save_transformer(tmp_path / "lm", _tiny_lm(), "lm", itos, itos, {})
    spec = json.loads((folder / "config.json").read_text())["model"]
    assert spec["kind"] == DECODER_ONLY and "architecture" not in spec
    assert load_transformer(folder).architecture == DECODER_ONLY


def test_run_json_kind_picks_runs_by_architecture(tmp_path: Path) -> None:
    """A saved run's run.json says "kind"; a run.json without it is an encoder-decoder (older runs)."""
    itos = ["<pad>", "<unk>", "<s>", "</s>", "a", "b", "c"]
    for run_id, kind in (("20250101-000000-aaaaaa", DECODER_ONLY), ("20250101-000001-bbbbbb", None)):
        save_transformer(tmp_path / run_id / store.CHECKPOINT, _tiny_lm(), "lm", itos, itos, {})
        meta = {"name": run_id, "family": "transformer", "created": 1.0} | ({"kind": kind} if kind else {})
        (tmp_path / run_id / store.RUN_FILE).write_text(json.dumps(meta))
    picked = {n for _, n, _ in store.user_checkpoints("transformer", tmp_path, architecture=DECODER_ONLY)}
    assert picked == {"20250101-000000-aaaaaa"}
    picked = {n for _, n, _ in store.user_checkpoints("transformer", tmp_path, architecture=ENCODER_DECODER)}
    assert picked == {"20250101-000001-bbbbbb"}
    assert len(store.user_checkpoints("transformer", tmp_path)) == 2


def test_trace_json_keeps_the_key_kind() -> None:
    notice = traces.Notice("unknown", "warning", "text")
    assert notice.topic == "unknown" and notice.to_dict()["kind"] == "unknown" and "topic" not in notice.to_dict()
    renamed = {
        traces.Notice: "topic",
        traces.Seq2seqDecodeTrace: "attention_variant",
        traces.HeadWalkthrough: "site",
        Explanation: "family",
    }
    for cls, field in renamed.items():
        assert cls.JSON_KEYS == {field: "kind"}, cls
        assert field in {f.name for f in dataclasses.fields(cls)}, cls
