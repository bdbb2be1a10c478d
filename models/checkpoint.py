"""Checkpoints: a folder with model.safetensors, config.json and vocab.json.

config.json holds {"family": ..., "model": <architecture>, "training": <how it was made>}.
Every failure to read one raises CheckpointError with a one-line message naming the file.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from models.seq2seq import Seq2Seq, Seq2SeqConfig
from models.vocab import Vocab

ROOT = Path(__file__).resolve().parent.parent
# Shipped checkpoints; $ATTN_LAB_CHECKPOINTS points the app and the commands at another folder.
CHECKPOINT_DIR = Path(os.environ.get("ATTN_LAB_CHECKPOINTS", ROOT / "checkpoints"))
WEIGHTS, CONFIG, VOCAB = "model.safetensors", "config.json", "vocab.json"


class CheckpointError(RuntimeError):
    """A checkpoint is missing or unreadable; the message names the file."""


@dataclass
class LoadedSeq2Seq:
    """A seq2seq model ready for decoding, with its vocabularies and training record."""

    name: str
    model: Seq2Seq
    src_vocab: Vocab
    tgt_vocab: Vocab
    training: dict

    @property
    def kind(self) -> str:
        return self.model.cfg.kind


def checkpoint_path(name_or_path: str | Path) -> Path:
    """A shipped checkpoint's name (folder under checkpoints/) or any folder path."""
    path = Path(name_or_path)
    return path if path.is_dir() or len(path.parts) > 1 else CHECKPOINT_DIR / str(name_or_path)


def save_seq2seq(
    folder: Path, model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, training: dict
) -> Path:
    """Write weights, config and vocabularies to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(folder / WEIGHTS))
    config = {"family": "seq2seq", "model": model.cfg.to_dict(), "training": training}
    (folder / CONFIG).write_text(json.dumps(config, indent=2))
    (folder / VOCAB).write_text(json.dumps({"src": src_vocab.itos, "tgt": tgt_vocab.itos}, ensure_ascii=False))
    return folder


def read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"missing checkpoint file: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"corrupt checkpoint file {path}: {exc.__class__.__name__}") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"corrupt checkpoint file {path}: not a JSON object")
    return data


def read_config(name_or_path: str | Path) -> dict:
    """The config.json of a checkpoint (family, model, training)."""
    return read_json(checkpoint_path(name_or_path) / CONFIG)


def load_seq2seq(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedSeq2Seq:
    """Load a seq2seq checkpoint for inference; raises CheckpointError naming the bad file."""
    folder = checkpoint_path(name_or_path)
    config = read_json(folder / CONFIG)
    if config.get("family") != "seq2seq":
        raise CheckpointError(f"{folder / CONFIG} is not a seq2seq checkpoint")
    vocab = read_json(folder / VOCAB)
    try:
        src_vocab, tgt_vocab = Vocab(list(vocab["src"])), Vocab(list(vocab["tgt"]))
        cfg = Seq2SeqConfig.from_dict(config["model"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {exc}") from None
    weights = folder / WEIGHTS
    if not weights.exists():
        raise CheckpointError(f"missing checkpoint file: {weights}")
    try:
        state = load_file(str(weights))
        model = Seq2Seq(cfg)
        model.load_state_dict(state)
    except Exception as exc:  # safetensors raises its own error types for corrupt headers
        raise CheckpointError(f"corrupt checkpoint file {weights}: {str(exc).splitlines()[0][:200]}") from None
    model.to(device).eval()
    return LoadedSeq2Seq(folder.name, model, src_vocab, tgt_vocab, config.get("training", {}))


def shipped(family: str) -> list[str]:
    """Names of the shipped checkpoints of a family, in the order of their ``order`` field."""
    found = []
    for config in sorted(CHECKPOINT_DIR.glob(f"*/{CONFIG}")):
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found.append((99, config.parent.name))  # listed, so that loading it reports the error
            continue
        if data.get("family") == family:
            found.append((data.get("training", {}).get("order", 50), config.parent.name))
    return [name for _, name in sorted(found)]
