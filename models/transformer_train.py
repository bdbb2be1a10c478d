"""Training, checkpoints and evaluation of the Transformer family (plug-in of models.train/evaluate).

Presets (``python -m models.train --preset NAME``):

* ``tf-copy`` / ``tf-reverse`` — encoder–decoder on random digit sequences (models.toy_tasks),
  evaluated by exact match on held-out sequences (never drawn in training);
* ``tf-en-fr`` — encoder–decoder on the embedded English→French corpus, test BLEU;
* ``tf-lm`` — a word-level decoder-only LM on the World English Bible (models.lm_data),
  held-out perplexity.

Optimisation: Adam (β = 0.9, 0.98, ε = 1e-9, §5.3), learning rate warmed up linearly for
``warmup`` steps, then decayed linearly to 0 by the end of the budget, where progress is the
larger of steps done / planned steps and time spent / the time budget (so a run cut by the
clock still ends at a small learning rate); gradient clipping; label-smoothed cross-entropy
(§5.4). The time budget (``max_minutes``, ``--minutes``) counts this process's CPU time on
CPU — on a shared machine the wall clock includes other people's work; on a dedicated core
the two agree — and wall time on a GPU. ``seconds`` in the record is wall time.

Checkpoint folder: ``model.safetensors`` + ``config.json`` {"family": "transformer", "model":
{"kind", "task", "config"}, "training": {..., "label", "order", "command"}} + ``vocab.json``
({"src", "tgt"} for encoder–decoders, {"tokens"} for the LM). Reading one that is missing or
corrupt raises :class:`models.checkpoint.CheckpointError` with one line naming the file.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from corpora.bible import CorpusError
from models.checkpoint import CHECKPOINT_DIR, CONFIG, VOCAB, WEIGHTS, CheckpointError, checkpoint_path, read_json, shipped
from models.toy_tasks import TASKS as TOY_TASKS
from models.toy_tasks import BOS_ID as TOY_BOS
from models.toy_tasks import EOS_ID as TOY_EOS
from models.toy_tasks import ToyTask, batches, random_sequences
from models.transformer import DecoderOnlyLM, Transformer, TransformerConfig, greedy_batch, label_smoothed_cross_entropy
from models.vocab import EOS, EOS_ID, PAD_ID, SOS, SOS_ID, UNK, Vocab

FAMILY = "transformer"
ENCODER_DECODER, DECODER_ONLY = "encoder-decoder", "decoder-only"


# --------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TFSettings:
    """Optimisation settings; ``steps`` is the planned number of Adam steps."""

    steps: int = 3000
    batch_size: int = 64
    lr: float = 1e-3
    warmup: int = 200
    label_smoothing: float = 0.1
    clip: float = 1.0
    seed: int = 0
    max_minutes: float = 5.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TFPreset:
    name: str
    label: str
    order: int
    task: str  # copy | reverse | en-fr | lm
    model: dict[str, Any]  # TransformerConfig fields other than the vocabulary sizes
    train: TFSettings
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return DECODER_ONLY if self.task == "lm" else ENCODER_DECODER


_TOY_MODEL = dict(d_model=64, n_heads=4, num_encoder_layers=2, num_decoder_layers=2, d_ff=256, dropout=0.0,
                  max_len=32)
_TOY_DATA = dict(n_symbols=10, min_len=3, max_len=12)

PRESETS: dict[str, TFPreset] = {p.name: p for p in (
    TFPreset("tf-copy", "Transformer · copy", 10, "copy", _TOY_MODEL,
             TFSettings(steps=1500, batch_size=64, lr=1e-3, warmup=150), _TOY_DATA),
    TFPreset("tf-reverse", "Transformer · reverse", 11, "reverse", _TOY_MODEL,
             TFSettings(steps=1500, batch_size=64, lr=1e-3, warmup=150), _TOY_DATA),
    TFPreset("tf-en-fr", "Transformer · English→French", 12, "en-fr",
             dict(d_model=128, n_heads=4, num_encoder_layers=2, num_decoder_layers=2, d_ff=256, dropout=0.1,
                  max_len=64),
             TFSettings(steps=3000, batch_size=64, lr=1e-3, warmup=300), dict(n_train=40000, max_src_len=48)),
    TFPreset("tf-lm", "Transformer LM · World English Bible", 13, "lm",
             dict(d_model=128, n_heads=4, num_decoder_layers=2, d_ff=512, dropout=0.1, max_len=64,
                  tie_embeddings=True),
             TFSettings(steps=2500, batch_size=16, lr=1.5e-3, warmup=100, label_smoothing=0.0),
             dict(vocab_cap=6000, context=64)),
)}


# --------------------------------------------------------------------------------------
# Loaded checkpoints
# --------------------------------------------------------------------------------------

@dataclass
class LoadedTransformer:
    """A Transformer checkpoint ready for inference: the model, its token tables and record."""

    name: str
    model: Transformer | DecoderOnlyLM
    kind: str
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
    def unk_id(self) -> int | None:
        return self.src_stoi.get(UNK)

    @property
    def max_src_tokens(self) -> int:
        """Source tokens read (without the appended </s> of the translation model)."""
        limit = int(self.training.get("max_src_len", self.config.max_len))
        return min(limit, self.config.max_len) - (1 if self.task == "en-fr" else 0)

    def src_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.src_itos[i] for i in ids]

    def tgt_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.tgt_itos[i] for i in ids]


def _state(model: torch.nn.Module) -> dict[str, Tensor]:
    return {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}


def save_transformer(folder: Path, model: Transformer | DecoderOnlyLM, task: str, src_itos: Sequence[str],
                     tgt_itos: Sequence[str], training: dict) -> Path:
    """Write model.safetensors, config.json and vocab.json to ``folder``."""
    from safetensors.torch import save_model

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    kind = DECODER_ONLY if isinstance(model, DecoderOnlyLM) else ENCODER_DECODER
    cpu = model.to("cpu")
    save_model(cpu, str(folder / WEIGHTS))
    config = {"family": FAMILY, "model": {"kind": kind, "task": task, "config": model.config.to_dict()},
              "training": training}
    (folder / CONFIG).write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    vocab = {"tokens": list(tgt_itos)} if kind == DECODER_ONLY else {"src": list(src_itos), "tgt": list(tgt_itos)}
    (folder / VOCAB).write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    return folder


def load_transformer(name_or_path: str | Path, device: torch.device | str = "cpu") -> LoadedTransformer:
    """Load a transformer-family checkpoint; raises CheckpointError naming the bad file."""
    from safetensors.torch import load_model

    folder = checkpoint_path(name_or_path)
    config = read_json(folder / CONFIG)
    if config.get("family") != FAMILY:
        raise CheckpointError(f"{folder / CONFIG} is not a transformer checkpoint")
    vocab = read_json(folder / VOCAB)
    try:
        spec = config["model"]
        kind, task = spec["kind"], spec["task"]
        cfg = TransformerConfig.from_dict(spec["config"])
        if kind == DECODER_ONLY:
            src_itos = tgt_itos = [str(t) for t in vocab["tokens"]]
            model: Transformer | DecoderOnlyLM = DecoderOnlyLM(cfg)
        elif kind == ENCODER_DECODER:
            src_itos, tgt_itos = [str(t) for t in vocab["src"]], [str(t) for t in vocab["tgt"]]
            model = Transformer(cfg)
        else:
            raise ValueError(f"unknown model kind {kind!r}")
        if len(tgt_itos) != cfg.vocab_size or len(src_itos) != cfg.source_vocab_size:
            raise ValueError("vocab.json does not match the model's vocabulary sizes")
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {folder}: {str(exc)[:200]}") from None
    weights = folder / WEIGHTS
    if not weights.exists():
        raise CheckpointError(f"missing checkpoint file: {weights}")
    try:
        load_model(model, str(weights), strict=True)
    except Exception as exc:  # safetensors raises its own error types for corrupt headers
        first = (str(exc).splitlines() or [exc.__class__.__name__])[0][:200]
        raise CheckpointError(f"corrupt checkpoint file {weights}: {first}") from None
    model.to(device).eval()
    return LoadedTransformer(folder.name, model, kind, task, src_itos, tgt_itos, config.get("training", {}))


def shipped_transformers(kind: str | None = None) -> list[str]:
    """Names of the shipped transformer checkpoints (optionally of one kind), in preset order."""
    names = shipped(FAMILY)
    if kind is None:
        return names
    out = []
    for name in names:
        try:
            spec = read_json(checkpoint_path(name) / CONFIG).get("model", {})
        except CheckpointError:
            out.append(name)  # listed, so that loading it reports the error
            continue
        if spec.get("kind") == kind:
            out.append(name)
    return out


# --------------------------------------------------------------------------------------
# The training loop
# --------------------------------------------------------------------------------------

def lr_factor(step: int, progress: float, warmup: int) -> float:
    """Linear warmup over ``warmup`` steps, then linear decay to 0 as ``progress`` → 1."""
    warm = min(1.0, (step + 1) / max(1, warmup))
    return warm * max(0.0, 1.0 - progress)


def fit(model: torch.nn.Module, loss_of_batch: Callable[[int], Tensor], settings: TFSettings,
        progress_bar: bool = False, on_step: Callable[[int, float], None] | None = None) -> dict:
    """Adam + warmup/decay + clipping until the planned steps or the time budget run out."""
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr, betas=(0.9, 0.98), eps=1e-9)
    bar = None
    if progress_bar:
        from tqdm import tqdm

        bar = tqdm(total=settings.steps, unit="step", file=sys.stderr, dynamic_ncols=True)
    budget = settings.max_minutes * 60
    # On CPU the budget is this process's CPU time: on a shared machine the wall clock also
    # counts other people's work, and on a dedicated core the two are the same. On a GPU: wall time.
    on_cpu = all(p.device.type == "cpu" for p in model.parameters())
    clock = time.process_time if on_cpu else time.perf_counter
    start, start_clock = time.perf_counter(), clock()
    step, loss_value, progress = 0, float("nan"), 0.0
    losses: list[float] = []
    model.train()
    while progress < 1.0:
        for group in optimizer.param_groups:
            group["lr"] = settings.lr * lr_factor(step, progress, settings.warmup)
        loss = loss_of_batch(step)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
        optimizer.step()
        step += 1
        loss_value = loss.item()
        losses.append(loss_value)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{loss_value:.3f}")
        if on_step is not None:
            on_step(step, loss_value)
        progress = max(step / settings.steps, (clock() - start_clock) / budget if budget > 0 else 1.0)
    if bar is not None:
        bar.close()
    model.eval()
    tail = losses[-50:]
    return {"steps": step, "planned_steps": settings.steps, "seconds": round(time.perf_counter() - start, 1),
            "budget_seconds": round(clock() - start_clock, 1),
            "budget_clock": "process CPU time" if on_cpu else "wall time",
            "final_loss": round(float(np.mean(tail)), 4) if tail else None,
            "torch_threads": torch.get_num_threads()}


def _model_config(preset: TFPreset, vocab_size: int, src_vocab_size: int | None, bos: int, eos: int) -> TransformerConfig:
    return TransformerConfig(vocab_size=vocab_size, src_vocab_size=src_vocab_size, pad_id=PAD_ID, bos_id=bos,
                             eos_id=eos, **preset.model)


# ---- toy tasks -------------------------------------------------------------------------

def toy_task(preset_or_training: TFPreset | dict, task: str | None = None) -> ToyTask:
    data = preset_or_training.data if isinstance(preset_or_training, TFPreset) else preset_or_training["data_settings"]
    name = preset_or_training.task if isinstance(preset_or_training, TFPreset) else task
    return ToyTask(str(name), int(data["n_symbols"]), int(data["min_len"]), int(data["max_len"]))


def toy_exact_match(model: Transformer, task: ToyTask, n: int = 1000, seed: int = 1234) -> float:
    """Exact match (output == target + EOS) of greedy decoding on ``n`` held-out sequences."""
    seqs = random_sequences(task, n, torch.Generator().manual_seed(seed), split="heldout")
    hits = 0
    for i in range(0, n, 250):
        chunk = seqs[i: i + 250]
        for s, out in zip(chunk, greedy_batch(model, chunk, max_len=task.max_len + 2)):
            hits += out == task.target(s) + [TOY_EOS]
    return hits / max(1, n)


def _train_toy(preset: TFPreset, settings: TFSettings, device: torch.device, progress: bool) -> tuple:
    task = toy_task(preset)
    names = task.token_names()
    cfg = _model_config(preset, task.vocab_size, None, TOY_BOS, TOY_EOS)
    model = Transformer(cfg).to(device)
    stream = batches(task, settings.batch_size, seed=settings.seed, split="train")

    def loss_of_batch(_step: int) -> Tensor:
        b = next(stream).to(device)
        return label_smoothed_cross_entropy(model(b.src, b.tgt_in), b.tgt_out, settings.label_smoothing,
                                            ignore_index=PAD_ID)

    stats = fit(model, loss_of_batch, settings, progress)
    model.to("cpu")
    held = toy_exact_match(model, task)
    stats.update(heldout_exact_match=round(held, 4), data=f"random digit sequences, {task.name}",
                 data_settings=dict(preset.data), max_src_len=task.max_len)
    return model, names, names, stats, f"held-out exact match {held:.1%}"


# ---- English→French --------------------------------------------------------------------

def translation_pairs(preset: TFPreset, data_file: Path | None) -> tuple[list, list, str]:
    """(train, valid, description) token pairs: the embedded corpus or a Tatoeba-format file."""
    if data_file is None:
        from corpora.en_fr import make_splits

        splits = make_splits(seed=preset.train.seed)
        return ([(p.src, p.tgt) for p in splits["train"][: preset.data.get("n_train", 40000)]],
                [(p.src, p.tgt) for p in splits["valid"]], "embedded English→French generator")
    from corpora.tatoeba import load_tatoeba

    pairs = [(p.src, p.tgt) for p in load_tatoeba(data_file)]
    random.Random(preset.train.seed).shuffle(pairs)
    n_valid = max(1, len(pairs) // 20)
    return pairs[n_valid:], pairs[:n_valid], f"user file {data_file.name}"


def encode_source(vocab_or_stoi: Vocab | dict[str, int], tokens: Sequence[str], limit: int) -> list[int]:
    """Source ids as the translation model reads them: tokens (cut to ``limit``) + </s>."""
    stoi = vocab_or_stoi.stoi if isinstance(vocab_or_stoi, Vocab) else vocab_or_stoi
    unk = stoi[UNK]
    return [stoi.get(t, unk) for t in list(tokens)[:limit]] + [stoi[EOS]]


def translate_batch(loaded_or_model: LoadedTransformer | Transformer, sources: Sequence[Sequence[str]],
                    src_stoi: dict[str, int] | None = None, tgt_itos: Sequence[str] | None = None,
                    limit: int = 47) -> list[list[str]]:
    """Greedy translations (tokens without </s>) of many token lists, in batches."""
    if isinstance(loaded_or_model, LoadedTransformer):
        model, src_stoi, tgt_itos = loaded_or_model.model, loaded_or_model.src_stoi, loaded_or_model.tgt_itos
        limit = loaded_or_model.max_src_tokens
    else:
        model = loaded_or_model
    assert src_stoi is not None and tgt_itos is not None
    encoded = [encode_source(src_stoi, s, limit) for s in sources]
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    out: list[list[str]] = [[] for _ in encoded]
    for i in range(0, len(order), 128):
        idx = order[i: i + 128]
        for j, ids in zip(idx, greedy_batch(model, [encoded[j] for j in idx])):
            out[j] = [tgt_itos[t] for t in ids if t != EOS_ID]
    return out


def _token_batches(data: list[tuple[list[int], list[int]]], batch_size: int, rng: random.Random):
    """Endless length-bucketed batches (similar source lengths together), reshuffled each epoch."""
    while True:
        order = sorted(range(len(data)), key=lambda i: (len(data[i][0]), rng.random()))
        chunks = [order[i: i + batch_size] for i in range(0, len(order), batch_size)]
        rng.shuffle(chunks)
        yield from chunks


def _pad(rows: Sequence[Sequence[int]]) -> Tensor:
    width = max(len(r) for r in rows)
    out = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.as_tensor(list(r), dtype=torch.long)
    return out


def _train_en_fr(preset: TFPreset, settings: TFSettings, device: torch.device, progress: bool,
                 data_file: Path | None, epochs: int | None) -> tuple:
    from models.evaluate import bleu

    train, valid, source = translation_pairs(preset, data_file)
    src_vocab, tgt_vocab = Vocab.build(p[0] for p in train), Vocab.build(p[1] for p in train)
    limit = int(preset.data.get("max_src_len", 48)) - 1
    data = [(encode_source(src_vocab, s, limit), tgt_vocab.encode(list(t)[: preset.model["max_len"] - 2]))
            for s, t in train]
    if epochs:
        settings = replace(settings, steps=max(1, epochs * math.ceil(len(data) / settings.batch_size)))
    cfg = _model_config(preset, len(tgt_vocab), len(src_vocab), SOS_ID, EOS_ID)
    model = Transformer(cfg).to(device)
    rng = random.Random(settings.seed)
    chunks = _token_batches(data, settings.batch_size, rng)

    def loss_of_batch(_step: int) -> Tensor:
        items = [data[i] for i in next(chunks)]
        src = _pad([s for s, _ in items]).to(device)
        tgt_in = _pad([[SOS_ID] + t for _, t in items]).to(device)
        tgt_out = _pad([t + [EOS_ID] for _, t in items]).to(device)
        return label_smoothed_cross_entropy(model(src, tgt_in), tgt_out, settings.label_smoothing,
                                            ignore_index=PAD_ID)

    stats = fit(model, loss_of_batch, settings, progress)
    model.to("cpu")
    check = valid[:500]
    hyps = translate_batch(model, [s for s, _ in check], src_vocab.stoi, tgt_vocab.itos, limit)
    valid_bleu = bleu(hyps, [list(t) for _, t in check])
    stats.update(valid_bleu=round(valid_bleu, 2), data=source, n_train=len(train), max_src_len=limit + 1,
                 epochs=round(stats["steps"] * settings.batch_size / max(1, len(data)), 2))
    return model, src_vocab.itos, tgt_vocab.itos, stats, f"valid BLEU {valid_bleu:.1f}"


# ---- the language model ----------------------------------------------------------------

def read_text_file(path: Path) -> list[tuple[str, ...]]:
    """A user's plain UTF-8 text file for the LM: one verse/sentence/paragraph per non-empty line."""
    from corpora.text import tokenize

    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    lines = [tuple(tokenize(line)) for line in text.splitlines()]
    lines = [t for t in lines if t]
    if len(lines) < 2:
        raise ValueError(f"{path}: needs at least two non-empty lines of text")
    return lines


def lm_corpus(preset: TFPreset, data_file: Path | None) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], str]:
    """(train, held-out) token lines and a description: the WEB, or a user's text file (95/5 by line)."""
    if data_file is None:
        from models.lm_data import describe, load_verses, split_verses

        split = split_verses(load_verses())
        return [v.tokens for v in split["train"]], [v.tokens for v in split["heldout"]], describe()
    lines = read_text_file(data_file)
    n_held = max(1, len(lines) // 20)
    return lines[n_held:], lines[:n_held], f"user file {Path(data_file).name}, held out: the first 5% of lines"


def lm_stream(lines: Sequence[Sequence[str]], stoi: dict[str, int]) -> list[int]:
    """``<s> line </s>`` for every line, concatenated, as ids (unknown words → <unk>)."""
    unk, sos, eos = stoi[UNK], stoi[SOS], stoi[EOS]
    out: list[int] = []
    for line in lines:
        out.append(sos)
        out.extend(stoi.get(t, unk) for t in line)
        out.append(eos)
    return out


@torch.inference_mode()
def perplexity(lm: DecoderOnlyLM, stream: Sequence[int], context: int, skip_id: int | None = SOS_ID,
               max_tokens: int | None = None) -> tuple[float, int]:
    """exp(mean −log p) over the stream cut into non-overlapping windows of ``context`` + 1
    ids (the last one shorter); targets equal to ``skip_id`` (the <s> that always follows </s>) are not counted.
    Returns (perplexity, tokens counted)."""
    ids = torch.as_tensor(list(stream if max_tokens is None else stream[: max_tokens + 1]), dtype=torch.long)
    total, count = 0.0, 0
    lm.eval()
    starts = list(range(0, max(0, len(ids) - 1), context))  # the last window may be shorter
    full = [s for s in starts if s + context + 1 <= len(ids)]
    groups = [full[i: i + 64] for i in range(0, len(full), 64)] + [[s] for s in starts if s not in set(full)]
    for group in groups:
        x = torch.stack([ids[s: s + context + 1] for s in group])
        logits = lm(x[:, :-1])
        target = x[:, 1:]
        nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), target.reshape(-1),
                                                reduction="none")
        keep = target.reshape(-1) != (skip_id if skip_id is not None else -1)
        total += float(nll[keep].sum())
        count += int(keep.sum())
    return (math.exp(total / count) if count else float("nan")), count


def _train_lm(preset: TFPreset, settings: TFSettings, device: torch.device, progress: bool,
              data_file: Path | None, epochs: int | None) -> tuple:
    train_lines, held_lines, source = lm_corpus(preset, data_file)
    full = Vocab.build(train_lines)
    vocab = Vocab(full.itos[: int(preset.data.get("vocab_cap", 6000))])
    context = int(preset.data.get("context", 64))
    stream = torch.as_tensor(lm_stream(train_lines, vocab.stoi), dtype=torch.long)
    held = lm_stream(held_lines, vocab.stoi)
    if len(stream) < context + 2:
        raise ValueError(f"the training text is too short: {len(stream)} tokens for a context of {context}")
    if epochs:
        settings = replace(settings, steps=max(1, epochs * math.ceil(len(stream) / (settings.batch_size * context))))
    cfg = _model_config(preset, len(vocab), None, SOS_ID, EOS_ID)
    cfg = replace(cfg, max_len=max(cfg.max_len, context))
    model = DecoderOnlyLM(cfg).to(device)
    gen = torch.Generator().manual_seed(settings.seed)
    offsets = torch.arange(context + 1)

    def loss_of_batch(_step: int) -> Tensor:
        starts = torch.randint(0, len(stream) - context - 1, (settings.batch_size,), generator=gen)
        x = stream[starts.unsqueeze(1) + offsets].to(device)
        return label_smoothed_cross_entropy(model(x[:, :-1]), x[:, 1:], settings.label_smoothing,
                                            ignore_index=PAD_ID)

    stats = fit(model, loss_of_batch, settings, progress)
    model.to("cpu")
    ppl, counted = perplexity(model, held, context)
    unk_rate = float(np.mean([t == vocab.stoi[UNK] for t in held])) if held else float("nan")
    stats.update(heldout_perplexity=round(ppl, 2), heldout_tokens=counted, heldout_unk_rate=round(unk_rate, 4),
                 train_tokens=len(stream), data=source, context=context, vocab_cap=len(vocab),
                 epochs=round(stats["steps"] * settings.batch_size * context / len(stream), 3),
                 data_settings=dict(preset.data))
    return model, vocab.itos, vocab.itos, stats, f"held-out perplexity {ppl:.1f} on {counted} tokens"


# --------------------------------------------------------------------------------------
# The plug-in interface of models.train
# --------------------------------------------------------------------------------------

def run_preset(preset: TFPreset, out: Path | None = None, data: Path | None = None, epochs: int | None = None,
               minutes: float | None = None, device: str | None = None, command: str = "",
               progress: bool = True) -> tuple[Path, dict, str]:
    """Train ``preset`` and write its checkpoint; returns (folder, training record, summary)."""
    from models.device import pick_device

    settings = preset.train if minutes is None else replace(preset.train, max_minutes=minutes)
    torch.manual_seed(settings.seed)
    dev = pick_device(device)
    if preset.task in TOY_TASKS:
        if data is not None:
            raise ValueError(f"{preset.name} trains on random sequences; --data is for tf-en-fr and tf-lm")
        if epochs:  # an epoch of the endless toy stream: 10,000 sequences
            settings = replace(settings, steps=max(1, epochs * math.ceil(10_000 / settings.batch_size)))
        model, src_itos, tgt_itos, stats, summary = _train_toy(preset, settings, dev, progress)
    elif preset.task == "en-fr":
        model, src_itos, tgt_itos, stats, summary = _train_en_fr(preset, settings, dev, progress, data, epochs)
    elif preset.task == "lm":
        model, src_itos, tgt_itos, stats, summary = _train_lm(preset, settings, dev, progress, data, epochs)
    else:
        raise ValueError(f"unknown task {preset.task!r}")
    n_params = sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
    training = dict(stats, preset=preset.name, label=preset.label, order=preset.order, task=preset.task,
                    command=command or f"python -m models.train --preset {preset.name}", device=str(dev),
                    settings=settings.to_dict(), parameters=n_params)
    folder = save_transformer(Path(out) if out else CHECKPOINT_DIR / preset.name, model, preset.task,
                              src_itos, tgt_itos, training)
    size = (folder / WEIGHTS).stat().st_size
    line = (f"{preset.name}: {stats['steps']} steps in {stats['seconds']} s, final loss {stats['final_loss']}, "
            f"{summary}, {n_params:,} parameters, {size / 1e6:.2f} MB → {folder}")
    return folder, training, line


def train_preset(name: str, args: argparse.Namespace) -> str:
    """models.train's plug-in entry: train preset ``name`` with the command line's options."""
    command = "python -m models.train " + " ".join(sys.argv[1:]) if sys.argv[1:] else f"python -m models.train --preset {name}"
    _, _, line = run_preset(PRESETS[name], out=getattr(args, "out", None), data=getattr(args, "data", None),
                            epochs=getattr(args, "epochs", None), minutes=getattr(args, "minutes", None),
                            device=getattr(args, "device", None), command=command)
    return line


# --------------------------------------------------------------------------------------
# The plug-in interface of models.evaluate
# --------------------------------------------------------------------------------------

def evaluate_checkpoint(name: str) -> dict:
    """The quality figure of one shipped transformer checkpoint, by its task."""
    loaded = load_transformer(name)
    t = loaded.training
    row: dict[str, Any] = {"name": name, "label": loaded.label, "task": loaded.task,
                           "train_seconds": t.get("seconds"), "train_cpu_seconds": t.get("budget_seconds"),
                           "steps": t.get("steps"),
                           "size_mb": round((checkpoint_path(name) / WEIGHTS).stat().st_size / 1e6, 2)}
    if loaded.task in TOY_TASKS:
        task = toy_task(t, loaded.task)
        row.update(metric="held-out exact match", exact_match=round(toy_exact_match(loaded.model, task), 4),
                   n_test=1000)
    elif loaded.task == "en-fr":
        from corpora.en_fr import make_splits
        from models.evaluate import bleu

        test = make_splits()["test"]
        hyps = translate_batch(loaded, [p.src for p in test])
        refs = [list(p.tgt) for p in test]
        row.update(metric="test BLEU", bleu=round(bleu(hyps, refs), 2), n_test=len(test),
                   exact_match=round(float(np.mean([h == r for h, r in zip(hyps, refs)])), 4))
    elif loaded.task == "lm":
        from models.lm_data import load_verses, split_verses

        held = [v.tokens for v in split_verses(load_verses())["heldout"]]
        context = int(t.get("context", loaded.config.max_len))
        ppl, counted = perplexity(loaded.model, lm_stream(held, loaded.tgt_stoi), context)
        row.update(metric="held-out perplexity", perplexity=round(ppl, 2), n_tokens=counted)
    return row


def evaluate_shipped() -> dict:
    """models.evaluate's plug-in: every shipped transformer checkpoint's figure (JSON-able)."""
    models, errors = [], []
    for name in shipped_transformers():
        try:
            models.append(evaluate_checkpoint(name))
        except (CheckpointError, CorpusError) as exc:
            errors.append(f"{name}: {exc}" if name not in str(exc) else str(exc))
    return {"command": "python -m models.evaluate", "models": models, "errors": errors}


def format_results(results: dict) -> str:
    """The evaluation as a few lines of text."""
    lines = ["", f"{'transformer':38} {'figure':>32} {'wall s':>7} {'CPU s':>6} {'MB':>5}"]
    for m in results.get("models", []):
        if m["task"] == "en-fr":
            figure = f"test BLEU {m['bleu']:.2f} (exact {m['exact_match']:.3f})"
        elif m["task"] == "lm":
            figure = f"held-out perplexity {m['perplexity']:.1f}"
        else:
            figure = f"held-out exact match {m['exact_match']:.1%}"
        cpu = m.get("train_cpu_seconds")
        lines.append(f"{m['label']:38} {figure:>32} {m['train_seconds'] or 0:7.1f} "
                     f"{'—' if cpu is None else f'{cpu:.1f}':>6} {m['size_mb']:5.2f}")
    if not results.get("models"):
        lines.append("no shipped transformer checkpoints: python -m models.train --preset tf-copy (…)")
    lines.extend(f"error: {e}" for e in results.get("errors", []))
    return "\n".join(lines)
