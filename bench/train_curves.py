"""The first N steps of one preset per family through the one training loop: loss curve and speed.

`python -m bench.train_curves [--steps 200] [--json OUT] [--compare BEFORE.json]`

Runs s2s-bahdanau, tf-copy, tf-en-fr, tf-lm and bert-small for ``--steps`` steps on the CPU with
one thread, seed 0, each preset's warm-up scaled to the shorter run (warm-up steps × N / preset
steps; BERT reads with the shipped bert-small tokenizer), and prints per family the loss at a few steps, the
final loss, the wall seconds of the steps and target tokens per second. ``--compare`` prints the largest loss
difference, step for step, and the speed ratio against a file written the same way by an earlier version of the code
(``bench/baselines/train_curves_before.json`` holds the figures of the three separate loops that
this loop replaced, written at the commit before the move).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import torch

from corpora.bert_data import load_web_documents, split_documents
from corpora.en_fr import make_splits
from models.nn.rnn_seq2seq import Seq2SeqConfig
from models.checkpoints import load_bert
from models.training import bert, transformer
from models.training.loop import Progress, TrainSettings
from models.training.presets import PRESETS
from models.training.seq2seq import train_seq2seq

NAMES = ("s2s-bahdanau", "tf-copy", "tf-en-fr", "tf-lm", "bert-small")


def short(settings: TrainSettings, steps: int) -> TrainSettings:
    return replace(settings, steps=steps, warmup=max(1, round(settings.warmup * steps / settings.steps)))


def run(name: str, steps: int) -> dict:
    preset = PRESETS[name]
    settings = short(preset.train, steps)
    losses: list[float] = []

    def collect(p: Progress) -> None:
        losses.append(p.loss)

    cpu = torch.device("cpu")
    torch.manual_seed(settings.seed)
    if preset.family == "seq2seq":
        pairs = [(q.src, q.tgt) for q in make_splits(seed=settings.seed)["train"][: steps * settings.batch_size]]
        stats = train_seq2seq(Seq2SeqConfig(**preset.model), settings, pairs, cpu, [collect]).stats
    elif preset.family == "transformer":
        stats = transformer.train_preset(preset, None, None, settings, cpu, [collect], None).stats
    else:
        # The shipped tokenizer: WordPiece training (HF tokenizers) is not deterministic between
        # runs, and the curves should differ only by what the loop does.
        train_docs, _ = split_documents(load_web_documents())
        tokenizer = load_bert("bert-small").tokenizer
        corpus = bert.encode_documents(train_docs, tokenizer)
        _, stats = bert.pretrain(preset, settings, corpus, tokenizer.vocab_size, cpu, [collect])
    return {"losses": losses, "seconds": stats["seconds"], "tokens_per_second": stats["tokens_per_second"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--only", nargs="*", choices=NAMES, help="run only these presets")
    parser.add_argument("--json", type=Path, help="write the curves here")
    parser.add_argument("--compare", type=Path, help="a file written by --json (or the baseline) to compare with")
    args = parser.parse_args()
    torch.set_num_threads(1)
    before = json.loads(args.compare.read_text()) if args.compare else {}
    results = {}
    for name in args.only or NAMES:
        r = results[name] = run(name, args.steps)
        marks = {s: r["losses"][s - 1] for s in (1, 10, 50, 100, args.steps) if s <= len(r["losses"])}
        line = (
            f"{name:14} "
            + "  ".join(f"step {s}: {v:.4f}" for s, v in marks.items())
            + f"  | {r['seconds']:.1f} s, {r['tokens_per_second']:,} target tokens/s"
        )
        if name in before:
            old = before[name]
            n = min(len(old["losses"]), len(r["losses"]))
            diff = max(abs(a - b) for a, b in zip(old["losses"][:n], r["losses"][:n]))
            line += (
                f"\n{'':14} vs before: max |Δloss| {diff:.2e} over {n} steps, final {old['losses'][n - 1]:.4f}"
                f" → {r['losses'][n - 1]:.4f}; time {old['seconds']:.1f} s → {r['seconds']:.1f} s "
                f"({old['seconds'] / max(r['seconds'], 1e-9):.2f}× as fast)"
            )
        print(line, flush=True)
    if args.json:
        args.json.write_text(json.dumps(results))


if __name__ == "__main__":
    main()
