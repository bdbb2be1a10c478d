"""The Transformer recipe (tf-copy, tf-reverse, tf-en-fr, tf-bible, tf-hsk, tf-lm) and the evaluation of
its checkpoints.

* ``tf-copy`` / ``tf-reverse`` — encoder–decoder on random digit sequences (:mod:`corpora.toy_tasks`),
  evaluated by exact match on held-out sequences (never drawn in training);
* ``tf-en-fr`` — encoder–decoder on the embedded English→French corpus, test BLEU;
* ``tf-bible`` / ``tf-hsk`` — encoder–decoders on the real sentence pairs' fixed splits
  (:mod:`corpora.real_pairs`: World English Bible → Louis Segond, HSK Chinese → English), as the
  s2s-bible/s2s-hsk RNNs, with the same vocabulary rule; test BLEU and chrF beside them;
* ``tf-lm`` — a word-level decoder-only LM on the World English Bible (:mod:`corpora.lm_data`),
  held-out perplexity.

Loss: label-smoothed cross-entropy (§5.4); optimisation: :func:`models.training.loop.fit`.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from corpora.batching import bucketed_batches
from corpora.bible import CorpusError
from corpora.en_fr import make_splits
from corpora.lm_data import line_stream, lm_corpus, load_verses, split_verses
from corpora.real_pairs import LANGUAGES, real_splits
from corpora.toy_tasks import BOS_ID as TOY_BOS
from corpora.toy_tasks import EOS_ID as TOY_EOS
from corpora.toy_tasks import TASKS as TOY_TASKS
from corpora.toy_tasks import ToyTask, batches, random_sequences
from models.checkpoints import (
    WEIGHTS,
    CheckpointError,
    LoadedTransformer,
    checkpoint_path,
    load_transformer,
    save_transformer,
)
from models.inference.common import pad_ids
from models.inference.transformer import greedy_batch, greedy_decode
from models.inference.translate import TRANSLATION, source_tokens
from models.nn.transformer import DecoderOnlyLM, Transformer, TransformerConfig, label_smoothed_cross_entropy
from models.text.vocab import EOS_ID, PAD_ID, SOS_ID, UNK, Vocab, encode_source
from models.training.loop import Callback, LossOfBatch, Trained, TrainSettings, batch_at_step, fit
from models.training.metrics import (
    bleu,
    expected_calibration_error,
    perplexity,
    reliability_bins,
)
from models.training.presets import Preset, model_config
from models.training.seq2seq import (
    Decoded,
    ExposureTrace,
    build_vocabs,
    evaluate_real,
    real_figures,
    shipped_by_corpus,
    steps_for_epochs,
    training_pairs,
)

#: The presets' translation tasks: the grammar and Bible English→French, HSK Chinese→English.
PAIR_TASKS = tuple(f"{src}-{tgt}" for src, tgt in LANGUAGES.values())


def _smoothed_loss(logits: Tensor, target: Tensor, label_smoothing: float) -> tuple[Tensor, int]:
    return (
        label_smoothed_cross_entropy(logits, target, label_smoothing, ignore_index=PAD_ID),
        int((target != PAD_ID).sum()),
    )


def _saver(model: Transformer | DecoderOnlyLM, task: str, src_itos: Sequence[str], tgt_itos: Sequence[str]):
    def save(folder: Path, record: dict) -> Path:
        return save_transformer(folder, model, task, src_itos, tgt_itos, record)

    return save


# ---- toy tasks -------------------------------------------------------------------------


def toy_task(preset_or_training: Preset | dict, task: str | None = None) -> ToyTask:
    data = preset_or_training.data if isinstance(preset_or_training, Preset) else preset_or_training["data_settings"]
    name = preset_or_training.task if isinstance(preset_or_training, Preset) else task
    return ToyTask(str(name), int(data["n_symbols"]), int(data["min_len"]), int(data["max_len"]))


def toy_exact_match(model: Transformer, task: ToyTask, n: int = 1000, seed: int = 1234) -> float:
    """Exact match (output == target + EOS) of greedy decoding on ``n`` held-out sequences."""
    seqs = random_sequences(task, n, torch.Generator().manual_seed(seed), split="heldout")
    hits = 0
    for i in range(0, n, 250):
        chunk = seqs[i : i + 250]
        for s, out in zip(chunk, greedy_batch(model, chunk, max_len=task.max_len + 2)):
            hits += out == task.target(s) + [TOY_EOS]
    return hits / max(1, n)


def _train_toy(
    preset: Preset,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    task = toy_task(preset)
    names = task.token_names()
    model = Transformer(model_config(preset, TransformerConfig, task.vocab_size, bos_id=TOY_BOS, eos_id=TOY_EOS)).to(
        device
    )
    stream = batches(task, settings.batch_size, seed=settings.seed, split="train")

    def loss_of_batch(_step: int) -> tuple[Tensor, int]:
        b = next(stream).to(device)
        return _smoothed_loss(model(b.src, b.tgt_in), b.tgt_out, settings.label_smoothing)

    stats = fit(model, loss_of_batch, settings, callbacks, stop)
    model.to("cpu")
    held = toy_exact_match(model, task)
    stats.update(
        heldout_exact_match=round(held, 4),
        data=f"random digit sequences, {task.name}",
        data_settings=dict(preset.data),
        max_src_len=task.max_len,
    )
    return Trained(model, _saver(model, preset.task, names, names), settings, stats, f"held-out exact match {held:.1%}")


# ---- English→French --------------------------------------------------------------------


def translate_batch(
    loaded_or_model: LoadedTransformer | Transformer,
    sources: Sequence[Sequence[str]],
    src_stoi: dict[str, int] | None = None,
    tgt_itos: Sequence[str] | None = None,
    limit: int = 47,
) -> list[list[str]]:
    """Greedy translations (tokens without </s>) of many token lists, in batches of similar length."""
    if isinstance(loaded_or_model, LoadedTransformer):
        model, src_stoi, tgt_itos = loaded_or_model.encoder_decoder, loaded_or_model.src_stoi, loaded_or_model.tgt_itos
        limit = loaded_or_model.max_src_tokens
    else:
        model = loaded_or_model
    assert src_stoi is not None and tgt_itos is not None
    _, outputs = greedy_outputs(model, [encode_source(src_stoi, s, limit) for s in sources])
    return [[tgt_itos[t] for t in ids if t != EOS_ID] for ids in outputs]


def greedy_outputs(model: Transformer, encoded: Sequence[list[int]]) -> tuple[list[list[int]], list[list[int]]]:
    """(source ids, greedy output ids with the end token when finished), in batches of similar
    length; each source decoded exactly as the page decodes it alone."""
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    out: list[list[int]] = [[] for _ in encoded]
    for i in range(0, len(order), 128):
        idx = order[i : i + 128]
        for j, ids in zip(idx, greedy_batch(model, [encoded[j] for j in idx])):
            out[j] = ids
    return list(encoded), out


@torch.inference_mode()
def output_token_log_probs(
    model: Transformer, sources: Sequence[list[int]], outputs: Sequence[list[int]]
) -> list[list[float]]:
    """log p(y_t | y_<t, x) of each token of given outputs, teacher-forced (the numbers greedy decoding
    computed)."""
    model.eval()
    c = model.config
    rows: list[list[float]] = []
    for i in range(0, len(sources), 128):
        src = pad_ids(sources[i : i + 128], c.pad_id)
        outs = outputs[i : i + 128]
        tgt_in = pad_ids([[c.bos_id] + o[:-1] for o in outs], c.pad_id)
        target = pad_ids(outs, c.pad_id)
        picked = torch.log_softmax(model(src, tgt_in).float(), -1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
        rows += [row[: len(o)] for row, o in zip(picked.tolist(), outs)]
    return rows


def output_log_probs(model: Transformer, sources: Sequence[list[int]], outputs: Sequence[list[int]]) -> list[float]:
    """Σ log p(y_t | y_<t, x) of given outputs, teacher-forced (the numbers greedy decoding computed)."""
    return [sum(row) for row in output_token_log_probs(model, sources, outputs)]


def decoder_of(loaded: LoadedTransformer) -> Callable[[Sequence[Sequence[str]]], Decoded]:
    """:data:`~models.training.seq2seq.Decoded` of a Transformer translation checkpoint: greedy, as the
    page decodes."""

    def decode(sources: Sequence[Sequence[str]]) -> Decoded:
        limit = loaded.max_src_tokens
        encoded, outputs = greedy_outputs(
            loaded.encoder_decoder, [encode_source(loaded.src_stoi, src, limit) for src in sources]
        )
        hyps = [loaded.tgt_tokens([t for t in ids if t != EOS_ID]) for ids in outputs]
        unknown = [[t not in loaded.src_stoi for t in list(src)[:limit]] for src in sources]
        return hyps, output_token_log_probs(loaded.encoder_decoder, encoded, outputs), unknown

    return decode


def encode_tf_pairs(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    src_limit: int,
    tgt_limit: int,
) -> list[tuple[list[int], list[int]]]:
    """Token pairs → (x_1 … x_n </s>, y_1 … y_m) ids, the source cut to ``src_limit`` words and the target to
    ``tgt_limit`` (<s> and </s> are added per batch by :func:`pair_loss`)."""
    return [(encode_source(src_vocab.stoi, s, src_limit), tgt_vocab.encode(list(t)[:tgt_limit])) for s, t in pairs]


def pair_loss(
    model: Transformer,
    encoded: Sequence[tuple[list[int], list[int]]],
    batch_size: int,
    seed: int,
    label_smoothing: float,
    device: torch.device,
) -> LossOfBatch:
    """The encoder–decoder recipe, for the command line and the studio alike: step t's batch is item t of
    seeded length-bucketed batches (a function of the step, so a resumed run reads on), decoded
    teacher-forced from ``<s> y``, with label-smoothed cross-entropy against ``y </s>`` (§5.4)."""
    chunk_at = batch_at_step(bucketed_batches([len(x) for x, _ in encoded], batch_size, random.Random(seed)))

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        items = [encoded[i] for i in chunk_at(step)]
        src = pad_ids([x for x, _ in items], PAD_ID).to(device)
        tgt_in = pad_ids([[SOS_ID] + y for _, y in items], PAD_ID).to(device)
        tgt_out = pad_ids([y + [EOS_ID] for _, y in items], PAD_ID).to(device)
        return _smoothed_loss(model(src, tgt_in), tgt_out, label_smoothing)

    return loss_of_batch


def _train_pairs(
    preset: Preset,
    settings: TrainSettings,
    device: torch.device,
    data_file: Path | None,
    epochs: float | None,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """An encoder–decoder on sentence pairs: the embedded grammar, a real corpus's fixed split
    (``preset.data["corpus"]``) or a user's file; vocabularies of the words seen ``min_freq`` times."""
    train, valid, source = training_pairs(preset, data_file)
    src_vocab, tgt_vocab = build_vocabs(train, int(preset.data.get("min_freq", 1)))
    limit = int(preset.data.get("max_src_len", 48)) - 1
    data = encode_tf_pairs(train, src_vocab, tgt_vocab, limit, preset.model["max_len"] - 2)
    if epochs:
        settings = replace(settings, steps=steps_for_epochs(len(data), settings.batch_size, epochs))
    model = Transformer(model_config(preset, TransformerConfig, len(tgt_vocab), len(src_vocab))).to(device)
    loss_of_batch = pair_loss(model, data, settings.batch_size, settings.seed, settings.label_smoothing, device)
    stats = fit(model, loss_of_batch, settings, callbacks, stop)
    model.to("cpu")
    check = valid[:500]
    hyps = translate_batch(model, [s for s, _ in check], src_vocab.stoi, tgt_vocab.itos, limit)
    valid_bleu = bleu(hyps, [list(t) for _, t in check])
    corpus = preset.data.get("corpus") if data_file is None else None
    # loaders read typed input by src_lang
    src_lang, tgt_lang = LANGUAGES.get(corpus, ("en", "fr")) if corpus else ("en", "fr")
    stats.update(
        valid_bleu=round(valid_bleu, 2),
        data=source,
        n_train=len(train),
        max_src_len=limit + 1,
        epochs=round(stats["steps"] * settings.batch_size / max(1, len(data)), 2),
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        **({"corpus": corpus} if corpus else {}),
    )
    # the checkpoint's task is TRANSLATION whatever the pair: words in, </s> appended
    return Trained(
        model,
        _saver(model, TRANSLATION, src_vocab.itos, tgt_vocab.itos),
        settings,
        stats,
        f"valid BLEU {valid_bleu:.1f}",
    )


# ---- the language model ----------------------------------------------------------------


def lm_vocab(lines: Sequence[Sequence[str]], cap: int) -> Vocab:
    """The ``cap`` most frequent tokens of ``lines`` (the four specials included); the rest read as <unk>."""
    return Vocab.build(lines).capped(cap)[0]


def lm_windows(stream: Tensor, context: int, batch_size: int, seed: int) -> Iterator[Tensor]:
    """Endless batches (batch_size, context + 1) of token windows starting at seeded random offsets
    of ``stream``: the model reads x[:, :-1] and predicts x[:, 1:]."""
    gen = torch.Generator().manual_seed(seed)
    offsets = torch.arange(context + 1)
    while True:
        starts = torch.randint(0, len(stream) - context - 1, (batch_size,), generator=gen)
        yield stream[starts.unsqueeze(1) + offsets]


def lm_loss(
    model: DecoderOnlyLM,
    stream: Tensor,
    context: int,
    batch_size: int,
    seed: int,
    label_smoothing: float,
    device: torch.device,
) -> LossOfBatch:
    """The decoder-only LM recipe, for the command line and the studio alike: step t's batch is item t of
    :func:`lm_windows`; next-token label-smoothed cross-entropy, x[:, :-1] predicting x[:, 1:]."""
    window_at = batch_at_step(lm_windows(stream, context, batch_size, seed))

    def loss_of_batch(step: int) -> tuple[Tensor, int]:
        x = window_at(step).to(device)
        return _smoothed_loss(model(x[:, :-1]), x[:, 1:], label_smoothing)

    return loss_of_batch


def _train_lm(
    preset: Preset,
    settings: TrainSettings,
    device: torch.device,
    data_file: Path | None,
    epochs: float | None,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    train_lines, held_lines, source = lm_corpus(data_file)
    vocab = lm_vocab(train_lines, int(preset.data.get("vocab_cap", 6000)))
    context = int(preset.data.get("context", 64))
    stream = torch.as_tensor(line_stream(train_lines, vocab), dtype=torch.long)
    held = line_stream(held_lines, vocab)
    if len(stream) < context + 2:
        raise ValueError(f"the training text is too short: {len(stream)} tokens for a context of {context}")
    if epochs:
        batches_per_epoch = math.ceil(len(stream) / (settings.batch_size * context))
        settings = replace(settings, steps=max(1, round(epochs * batches_per_epoch)))
    cfg = model_config(preset, TransformerConfig, len(vocab))
    model = DecoderOnlyLM(replace(cfg, max_len=max(cfg.max_len, context))).to(device)
    loss_of_batch = lm_loss(
        model, stream, context, settings.batch_size, settings.seed, settings.label_smoothing, device
    )
    stats = fit(model, loss_of_batch, settings, callbacks, stop)
    model.to("cpu")
    ppl, counted = perplexity(model, held, context, skip_id=SOS_ID)
    unk_rate = float(np.mean([t == vocab.stoi[UNK] for t in held])) if held else float("nan")
    stats.update(
        heldout_perplexity=round(ppl, 2),
        heldout_tokens=counted,
        heldout_unk_rate=round(unk_rate, 4),
        train_tokens=len(stream),
        data=source,
        context=context,
        vocab_cap=len(vocab),
        epochs=round(stats["steps"] * settings.batch_size * context / len(stream), 3),
        data_settings=dict(preset.data),
    )
    return Trained(
        model,
        _saver(model, preset.task, vocab.itos, vocab.itos),
        settings,
        stats,
        f"held-out perplexity {ppl:.1f} on {counted} tokens",
    )


def train_preset(
    preset: Preset,
    data: Path | None,
    epochs: float | None,
    settings: TrainSettings,
    device: torch.device,
    callbacks: Sequence[Callback],
    stop: threading.Event | None,
) -> Trained:
    """Train a Transformer preset by its task."""
    if preset.task in TOY_TASKS:
        if data is not None:
            raise ValueError(f"{preset.name} trains on random sequences; --data is for tf-en-fr and tf-lm")
        if epochs:  # an epoch of the endless toy stream: 10,000 sequences
            settings = replace(settings, steps=steps_for_epochs(10_000, settings.batch_size, epochs))
        return _train_toy(preset, settings, device, callbacks, stop)
    if preset.task in PAIR_TASKS:
        return _train_pairs(preset, settings, device, data, epochs, callbacks, stop)
    if preset.task == "lm":
        return _train_lm(preset, settings, device, data, epochs, callbacks, stop)
    raise ValueError(f"unknown task {preset.task!r}")


# --------------------------------------------------------------------------------------
# Evaluation of the shipped checkpoints
# --------------------------------------------------------------------------------------


def evaluate_checkpoint(name: str) -> dict:
    """The quality figure of one shipped transformer checkpoint, by its task."""
    loaded = load_transformer(name)
    t = loaded.training
    row: dict[str, Any] = {
        "name": name,
        "label": loaded.label,
        "task": loaded.task,
        "train_seconds": t.get("seconds"),
        "train_cpu_seconds": t.get("budget_seconds"),
        "steps": t.get("steps"),
        "size_mb": round((checkpoint_path(name) / WEIGHTS).stat().st_size / 1e6, 2),
    }
    if loaded.task in TOY_TASKS:
        task = toy_task(t, loaded.task)
        row.update(
            metric="held-out exact match",
            exact_match=round(toy_exact_match(loaded.encoder_decoder, task), 4),
            n_test=1000,
        )
    elif loaded.task == TRANSLATION:
        corpus = t.get("corpus")  # a real corpus's fixed test split (sources in its own tokens), or the grammar's
        splits = real_splits(corpus) if corpus else {"test": [(p.src, p.tgt) for p in make_splits()["test"]]}
        figures = real_figures(
            decoder_of(loaded), lambda text: source_tokens(text, loaded), splits["test"], splits.get("valid"), corpus
        )
        row.update(
            metric="test BLEU",
            **figures,
            n_test=len(splits["test"]),
            family="transformer",
            **({"corpus": corpus} if corpus else {}),
        )
    elif loaded.task == "lm":
        held = [v.tokens for v in split_verses(load_verses())["heldout"]]
        context = int(t.get("context", loaded.config.max_len))
        stream = line_stream(held, Vocab(loaded.tgt_itos))
        ppl, counted = perplexity(loaded.language_model, stream, context, skip_id=SOS_ID)
        row.update(metric="held-out perplexity", perplexity=round(ppl, 2), n_tokens=counted)
    return row


def evaluate_each(names: Sequence[str], evaluate: Callable[[str], dict]) -> dict:
    """``evaluate(name)`` for each checkpoint name, JSON-able: the rows, and one line per checkpoint
    that could not be evaluated (a bad checkpoint or a missing corpus package)."""
    models, errors = [], []
    for name in names:
        try:
            models.append(evaluate(name))
        except (CheckpointError, CorpusError) as exc:
            errors.append(f"{name}: {exc}" if name not in str(exc) else str(exc))
    return {"command": "python -m models.evaluate", "models": models, "errors": errors}


def evaluate_shipped() -> dict:
    """Every shipped transformer checkpoint's figure (JSON-able), but those trained on a real corpus
    (:func:`add_real`)."""
    return evaluate_each(shipped_by_corpus("transformer").get(None, []), evaluate_checkpoint)


def add_real(results: dict) -> None:
    """Evaluate the shipped Transformers trained on real pairs (tf-bible, tf-hsk) and put their rows
    (test BLEU, chrF) beside the RNNs and the copy baseline of their corpus, in ``results["real"]``
    of :func:`models.training.seq2seq.evaluate_shipped`; failures go to ``results["errors"]``."""
    real, errors = results.setdefault("real", {}), results.setdefault("errors", [])
    for corpus, names in sorted((c, n) for c, n in shipped_by_corpus("transformer").items() if c is not None):
        part = evaluate_each(names, evaluate_checkpoint)
        errors += part["errors"]
        if part["models"] and corpus not in real:
            real[corpus] = evaluate_real(corpus, [], real_splits(corpus)["test"])  # the copy baseline
        if part["models"]:
            real[corpus]["models"] += part["models"]


def format_results(results: dict) -> str:
    """The Transformer part of `python -m models.evaluate`'s table."""
    lines = ["", f"{'transformer':38} {'figure':>32} {'wall s':>7} {'CPU s':>6} {'MB':>5}"]
    for m in results.get("models", []):
        if m["task"] == TRANSLATION:
            figure = f"test BLEU {m['bleu']:.2f} (exact {m['exact_match']:.3f})"
        elif m["task"] == "lm":
            figure = f"held-out perplexity {m['perplexity']:.1f}"
        else:
            figure = f"held-out exact match {m['exact_match']:.1%}"
        cpu = m.get("train_cpu_seconds")
        lines.append(
            f"{m['label']:38} {figure:>32} {m['train_seconds'] or 0:7.1f} "
            f"{'—' if cpu is None else f'{cpu:.1f}':>6} {m['size_mb']:5.2f}"
        )
    if not results.get("models"):
        lines.append("no shipped transformer checkpoints: python -m models.train --preset tf-copy (…)")
    lines.extend(f"error: {e}" for e in results.get("errors", []))
    return "\n".join(lines)


# ---- teacher forcing and exposure bias -------------------------------------------------------------


def exposure_trace(
    model: Transformer,
    src_stoi: dict[str, int],
    tgt_stoi: dict[str, int],
    tgt_itos: Sequence[str],
    source: Sequence[str],
    gold: Sequence[str],
    limit: int,
) -> ExposureTrace:
    """``source`` decoded greedily from the gold prefix (teacher forcing: the decoder reads y_<t of the
    reference, as every training step does for all positions at once) and from the model's own prefix (up to
    the gold length + 10 steps, or </s>), as :func:`models.training.seq2seq.exposure_trace` does for an RNN.
    Attention: the last decoder layer's cross-attention, the mean over its heads."""
    c = model.config
    unk = tgt_stoi.get(UNK, 1)
    gold_ids = ([tgt_stoi.get(t, unk) for t in gold] + [EOS_ID])[: c.max_len - 1]
    src_ids = encode_source(src_stoi, source, limit)
    forced = greedy_decode(model, src_ids, max_len=len(gold_ids), top_k=1, forced=gold_ids)
    free = greedy_decode(model, src_ids, max_len=len(gold_ids) + 10, top_k=1)
    return ExposureTrace.of(
        source,
        gold,
        gold_ids,
        (
            [int(i) for i in forced.topk_ids[:, 0]],
            [round(float(p), 4) for p in forced.topk_probs[:, 0]],
            forced.cross_attention[-1].mean(0),
        ),
        (
            list(free.output_ids),
            [round(float(p), 4) for p in np.exp(free.token_log_probs)],
            free.cross_attention[-1].mean(0),
        ),
        lambda i: "</s>" if i == EOS_ID else tgt_itos[i],
        src_ids,
    )


# ---- label smoothing: calibration of the ε = 0 and ε = 0.1 pair -----------------------------------

#: Pairs of Transformers that differ only in label smoothing, ε = 0 first, by test set: two small ones on the
#: grammar (presets tf-en-fr-ls0, tf-en-fr-ls10) and tf-hsk with its ε = 0 twin on HSK's real sentences.
LABEL_SMOOTHING_PAIRS: dict[str, tuple[str, str]] = {
    "grammar": ("tf-en-fr-ls0", "tf-en-fr-ls10"),
    "hsk": ("tf-hsk-ls0", "tf-hsk"),
}


@torch.inference_mode()
def token_calibration(
    model: Transformer,
    src_stoi: dict[str, int],
    tgt_stoi: dict[str, int],
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    limit: int,
) -> dict[str, Any]:
    """Teacher-forced next-token predictions on ``pairs`` (every reference token and the end token):
    perplexity exp(mean −log p(gold)), top-1 accuracy, mean confidence (max p), expected calibration error
    and the reliability diagram's bins (:func:`models.training.metrics.reliability_bins`)."""
    model.eval()
    c = model.config
    unk = tgt_stoi.get(UNK, 1)
    nll: list[np.ndarray] = []
    conf: list[np.ndarray] = []
    hit: list[np.ndarray] = []
    for i in range(0, len(pairs), 128):
        chunk = pairs[i : i + 128]
        src = pad_ids([encode_source(src_stoi, s, limit) for s, _ in chunk], c.pad_id)
        gold = [[tgt_stoi.get(t, unk) for t in tgt] + [EOS_ID] for _, tgt in chunk]
        tgt_in = pad_ids([[c.bos_id] + g[:-1] for g in gold], c.pad_id)
        target = pad_ids(gold, c.pad_id)
        logp = torch.log_softmax(model(src, tgt_in).float(), -1)
        keep = target != c.pad_id
        picked = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        top, arg = logp.max(-1)
        nll.append((-picked[keep]).numpy())
        conf.append(top[keep].exp().numpy())
        hit.append((arg == target)[keep].numpy())
    nlls, confs, hits = np.concatenate(nll), np.concatenate(conf), np.concatenate(hit)
    return {
        "perplexity": round(float(np.exp(nlls.mean())), 4),
        "token_accuracy": round(float(hits.mean()), 4),
        "mean_confidence": round(float(confs.mean()), 4),
        "ece": round(expected_calibration_error(confs, hits), 4),
        "bins": reliability_bins(confs, hits),
        "n_tokens": int(len(hits)),
    }


def calibration_of(name: str) -> dict[str, Any]:
    """BLEU (greedy) and teacher-forced calibration of one translation checkpoint on its test split: the
    grammar's, or its real corpus's in the corpus's own tokens (as its test BLEU is computed)."""
    loaded = load_transformer(name)
    corpus = loaded.training.get("corpus")
    test = real_splits(corpus)["test"] if corpus else [(p.src, p.tgt) for p in make_splits()["test"]]
    row = evaluate_checkpoint(name)
    cal = token_calibration(loaded.encoder_decoder, loaded.src_stoi, loaded.tgt_stoi, test, loaded.max_src_tokens)
    settings = loaded.training.get("settings", {})
    return {
        "name": name,
        "label": loaded.label,
        "test_set": corpus or "grammar",
        "label_smoothing": settings.get("label_smoothing"),
        "bleu": row["bleu"],
        "exact_match": row["exact_match"],
        "n_test": len(test),
        **cal,
    }


def label_smoothing_comparison(pairs: dict[str, tuple[str, str]] = LABEL_SMOOTHING_PAIRS) -> dict[str, Any]:
    """The ε = 0 and ε = 0.1 models side by side, pair by pair (those shipped), for `python -m models.evaluate`."""
    present = {n for names in shipped_by_corpus("transformer").values() for n in names}
    part = evaluate_each([n for pair in pairs.values() for n in pair if n in present], calibration_of)
    part["test_set"] = "each pair's test split; calibration of teacher-forced next-token predictions, 10 bins"
    return part


def format_label_smoothing(results: dict) -> str:
    lines = [
        "",
        f"{'label smoothing (test split)':44} {'test':>7} {'ε':>4} {'BLEU':>6} {'ppl':>6} {'acc':>6} "
        f"{'conf':>6} {'ECE':>6}",
    ]
    for m in results.get("models", []):
        lines.append(
            f"{m['label'][:44]:44} {m.get('test_set', 'grammar'):>7} {m['label_smoothing']:4.1f} {m['bleu']:6.2f} "
            f"{m['perplexity']:6.3f} "
            f"{m['token_accuracy']:6.3f} {m['mean_confidence']:6.3f} {m['ece']:6.4f}"
        )
    if not results.get("models"):
        lines.append("no label-smoothing pair: python -m models.train --preset tf-en-fr-ls0 (and tf-en-fr-ls10)")
    lines += [f"error: {e}" for e in results.get("errors", [])]
    return "\n".join(lines)
