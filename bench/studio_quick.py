"""The Training studio's quick presets, trained through the studio's own engine (not a test).

`python -m bench.studio_quick [--preset bahdanau] [--device cpu|cuda|mps] [--steps N]` trains one
preset of :data:`models.training.runs.PRESETS` in a background run of a
:class:`~models.training.runs.Registry` (a temporary runs folder), exactly as the page does, and
prints the device, wall time, target tokens per second, validation BLEU and the AER of the first and
last snapshots, and BLEU on the grammar's test split (the LM and BERT presets: their validation
perplexity or masked-LM accuracy at the first and last snapshots). Issue 12's bar: test BLEU ≥ 80 within 2 minutes,
AER from above 0.6 to below 0.3; on a CUDA machine run it with --device cuda and --device cpu to
compare tokens per second.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from corpora.en_fr import make_splits
from models.checkpoints import load_seq2seq, load_transformer
from models.device import configure_threads
from models.training.metrics import bleu
from models.training.runs import N_VALID, PRESETS, RNN, TEXT_DATA, Registry
from models.training.seq2seq import translate_all
from models.training.transformer import translate_batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="bahdanau", choices=sorted(PRESETS))
    parser.add_argument("--device", choices=["cpu", "cuda", "mps"])
    parser.add_argument("--steps", type=int)
    args = parser.parse_args()
    if args.device:
        os.environ["ATTN_LAB_DEVICE"] = args.device
    configure_threads()
    settings = PRESETS[args.preset]
    if args.steps:
        settings = replace(settings, steps=args.steps)
    registry = Registry(Path(tempfile.mkdtemp(prefix="studio-bench-")), max_active=1)
    start = time.perf_counter()
    run = registry.get(registry.start(settings))
    while run.active:
        time.sleep(0.2)
    wall = time.perf_counter() - start
    if run.status != "finished":
        raise SystemExit(f"run {run.status}: {run.message}")
    first, last = run.snapshots[0], run.snapshots[-1]
    print(f"preset {args.preset}: {run.step} steps on {run.device} in {wall:.1f} s wall "
          f"(training loop {run.elapsed:.1f} s), {run.tokens_per_second:,.0f} target tokens/s")
    if settings.data in TEXT_DATA:  # the LM and BERT: their validation metric, first and last snapshot
        print(f"validation {last.metric} {first.score} at the first snapshot, {last.score} at the last; "
              f"data: {run.data}")
        return
    test = make_splits(seed=settings.seed, n_train=settings.n_train, n_valid=N_VALID, n_test=1000)["test"]
    sources = [p.src for p in test]
    if settings.family == RNN:
        loaded = load_seq2seq(run.checkpoint)
        hyps = translate_all(loaded.model, loaded.src_vocab, loaded.tgt_vocab, sources)
    else:
        hyps = translate_batch(load_transformer(run.checkpoint), sources)
    test_bleu = bleu(hyps, [list(p.tgt) for p in test])
    print(f"validation BLEU {last.score:.1f} (first snapshot {first.score:.1f}); test BLEU {test_bleu:.1f} "
          f"on {len(test)} pairs; AER first snapshot {first.aer}, last {last.aer}")


if __name__ == "__main__":
    main()
