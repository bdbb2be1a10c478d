"""Batched training of the seq2seq models; `python -m models.train --preset NAME` writes a checkpoint.

Teacher-forced cross-entropy (optionally scheduled sampling), Adam, gradient clipping, dropout,
length-bucketed padded batches with masks. Runs on CUDA when present, else MPS, else CPU.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch import Tensor, nn

from models.presets import PRESETS, Preset, TrainSettings
from models.seq2seq import Seq2Seq, Seq2SeqConfig
from models.vocab import EOS_ID, PAD_ID, SOS_ID, Vocab

TokenPair = tuple[Sequence[str], Sequence[str]]


@dataclass
class EncodedPair:
    src: list[int]  # x_1 … x_n </s>
    tgt: list[int]  # y_1 … y_m </s>


def build_vocabs(pairs: Sequence[TokenPair]) -> tuple[Vocab, Vocab]:
    return Vocab.build(p[0] for p in pairs), Vocab.build(p[1] for p in pairs)


def encode_pairs(pairs: Sequence[TokenPair], src_vocab: Vocab, tgt_vocab: Vocab, cfg: Seq2SeqConfig) -> list[EncodedPair]:
    """Token pairs → id pairs with </s>, cut to the model's length limits."""
    return [
        EncodedPair(src_vocab.encode(s)[: cfg.max_src_len - 1] + [EOS_ID],
                    tgt_vocab.encode(t)[: cfg.max_tgt_len - 1] + [EOS_ID])
        for s, t in pairs
    ]


@dataclass
class Batch:
    src: Tensor  # (B, S) padded
    lengths: Tensor  # (B,)
    tgt_in: Tensor  # (B, T) <s> y_1 … y_{T-1}
    tgt_out: Tensor  # (B, T) y_1 … </s>, padded with PAD
    n_tokens: int  # real target tokens


def collate(items: Sequence[EncodedPair], device: torch.device) -> Batch:
    """Pad a list of pairs into one batch (PAD = 0)."""
    s_len = max(len(p.src) for p in items)
    t_len = max(len(p.tgt) for p in items)
    src = torch.full((len(items), s_len), PAD_ID, dtype=torch.long)
    tgt_out = torch.full((len(items), t_len), PAD_ID, dtype=torch.long)
    tgt_in = torch.full((len(items), t_len), PAD_ID, dtype=torch.long)
    for i, p in enumerate(items):
        src[i, : len(p.src)] = torch.tensor(p.src)
        tgt_out[i, : len(p.tgt)] = torch.tensor(p.tgt)
        tgt_in[i, 0] = SOS_ID
        tgt_in[i, 1 : len(p.tgt)] = torch.tensor(p.tgt[:-1])
    lengths = torch.tensor([len(p.src) for p in items])
    n_tokens = sum(len(p.tgt) for p in items)
    return Batch(src.to(device), lengths, tgt_in.to(device), tgt_out.to(device), n_tokens)


def bucketed_batches(data: Sequence[EncodedPair], batch_size: int, rng: random.Random) -> Iterator[list[EncodedPair]]:
    """Batches of similar source length (less padding), in random order."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i].src), rng.random()))
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(chunks)
    for chunk in chunks:
        yield [data[i] for i in chunk]


def sequence_loss(logits: Tensor, target: Tensor) -> Tensor:
    """Mean cross-entropy over real (non-PAD) target tokens."""
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=PAD_ID)


@dataclass
class TrainResult:
    model: Seq2Seq
    src_vocab: Vocab
    tgt_vocab: Vocab
    stats: dict


def train_seq2seq(
    cfg: Seq2SeqConfig,
    settings: TrainSettings,
    pairs: Sequence[TokenPair],
    device: torch.device,
    progress: bool = False,
    on_step: Callable[[int, float], None] | None = None,
) -> TrainResult:
    """Train a fresh model on ``pairs`` and return it with its vocabularies and statistics."""
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    src_vocab, tgt_vocab = build_vocabs(pairs)
    cfg = replace(cfg, src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab))
    data = encode_pairs(pairs, src_vocab, tgt_vocab, cfg)
    model = Seq2Seq(cfg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr)
    n_batches = (len(data) + settings.batch_size - 1) // settings.batch_size
    total_steps = settings.epochs * n_batches
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=settings.lr, total_steps=total_steps,
                                                    pct_start=0.1)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total_steps, unit="batch", file=sys.stderr, dynamic_ncols=True)
    start, step, tokens, loss_value = time.perf_counter(), 0, 0, float("nan")
    deadline = start + settings.max_minutes * 60
    model.train()
    for _epoch in range(settings.epochs):
        for items in bucketed_batches(data, settings.batch_size, rng):
            batch = collate(items, device)
            logits, _ = model(batch.src, batch.lengths, batch.tgt_in, settings.teacher_forcing)
            loss = sequence_loss(logits, batch.tgt_out)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
            optimizer.step()
            scheduler.step()
            step, tokens, loss_value = step + 1, tokens + batch.n_tokens, loss.item()
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{loss_value:.3f}")
            if on_step is not None:
                on_step(step, loss_value)
            if time.perf_counter() > deadline:
                break
        if time.perf_counter() > deadline:
            break
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - start
    model.eval()
    stats = {
        "steps": step,
        "planned_steps": total_steps,
        "seconds": round(seconds, 1),
        "final_loss": round(loss_value, 4),
        "target_tokens_per_second": round(tokens / max(seconds, 1e-9)),
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        "n_train": len(pairs),
    }
    return TrainResult(model, src_vocab, tgt_vocab, stats)


def training_pairs(preset: Preset, data_file: Path | None) -> tuple[list[TokenPair], list[TokenPair], str]:
    """(train, valid, description): the embedded corpus, or a user's Tatoeba-format file split 95/5."""
    if data_file is None:
        from corpora.en_fr import make_splits

        splits = make_splits(seed=preset.train.seed)
        train = [(p.src, p.tgt) for p in splits["train"][: preset.train.n_train]]
        return train, [(p.src, p.tgt) for p in splits["valid"]], "embedded English→French generator"
    from corpora.tatoeba import load_tatoeba

    pairs = [(p.src, p.tgt) for p in load_tatoeba(data_file)]
    random.Random(preset.train.seed).shuffle(pairs)
    n_valid = max(1, len(pairs) // 20)
    return pairs[n_valid:], pairs[:n_valid], f"user file {data_file.name}"


# Other model families register presets here: each module defines PRESETS (a dict keyed by name)
# and train_preset(name, args) -> str, which trains, writes the checkpoint and returns a summary line.
FAMILY_MODULES = ("models.transformer_train", "models.bert_train")


def family_trainers() -> dict[str, object]:
    """Preset name → the module that trains it, for the families that are installed."""
    import importlib

    trainers = {}
    for module_name in FAMILY_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        trainers.update({name: module for name in module.PRESETS})
    return trainers


def main(argv: Sequence[str] | None = None) -> int:
    from models.checkpoint import CHECKPOINT_DIR, save_seq2seq
    from models.device import configure_threads, pick_device
    from models.evaluate import corpus_bleu_of

    others = family_trainers()
    parser = argparse.ArgumentParser(description="Train one preset and write its checkpoint.")
    parser.add_argument("--preset", required=True, choices=sorted(PRESETS) + sorted(others))
    parser.add_argument("--out", type=Path, help="checkpoint folder (default checkpoints/<preset>)")
    parser.add_argument("--data", type=Path, help="train on a Tatoeba-format TSV file instead")
    parser.add_argument("--epochs", type=int, help="override the preset's epochs")
    parser.add_argument("--minutes", type=float, help="override the preset's time budget")
    parser.add_argument("--device", help="cpu, cuda or mps (default: best available)")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads on CPU")
    args = parser.parse_args(argv)
    try:
        import os

        os.environ["ATTN_LAB_THREADS"] = str(args.threads)
        configure_threads()
        if args.preset in others:
            print(others[args.preset].train_preset(args.preset, args))
            return 0
        preset = PRESETS[args.preset]
        settings = replace(preset.train, **{k: v for k, v in
                                            {"epochs": args.epochs, "max_minutes": args.minutes}.items() if v})
        device = pick_device(args.device)
        train, valid, source = training_pairs(preset, args.data)
        print(f"Training {preset.name} ({preset.label}) on {len(train)} pairs from the {source}, device {device}",
              file=sys.stderr)
        result = train_seq2seq(preset.model, settings, train, device, progress=True)
        result.model.to("cpu")
        bleu = corpus_bleu_of(result.model, result.src_vocab, result.tgt_vocab, valid[:500])
        command = "python -m models.train " + " ".join(sys.argv[1:] if argv is None else argv)
        stats = dict(result.stats, command=command, preset=preset.name, label=preset.label, order=preset.order, data=source,
                     settings=settings.to_dict(), valid_bleu=round(bleu, 2))
        out = save_seq2seq(args.out or CHECKPOINT_DIR / preset.name, result.model, result.src_vocab,
                           result.tgt_vocab, stats)
        print(f"{preset.name}: {stats['steps']} steps in {stats['seconds']} s, "
              f"{stats['target_tokens_per_second']} target tokens/s, valid BLEU {bleu:.1f} → {out}")
        return 0
    except Exception as exc:  # one line, no traceback, non-zero exit
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
