"""`python -m models.train --preset NAME [--steps N | --epochs E] [--data FILE] [--out DIR] [--log FILE]`:
train one preset. `python -m models.train --studio NAME|run.json [--steps N]`: train a studio run (a studio
preset, or the settings of a run's ``run.json``) with the studio's engine, into the runs folder, where every
session's studio lists it as a command-line run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from models.device import DEFAULT_THREADS, configure_threads
from models.training.loop import jsonl_log
from models.training.presets import PRESETS
from models.training.run import run_preset, train_studio
from models.training.runs import PRESETS as STUDIO_PRESETS


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train one preset and write its checkpoint.")
    front = parser.add_mutually_exclusive_group(required=True)
    front.add_argument("--preset", choices=sorted(PRESETS))
    front.add_argument(
        "--studio",
        metavar="NAME|run.json",
        help=f"train a studio run: one of {', '.join(sorted(STUDIO_PRESETS))}, or a run's run.json "
        "(into $ATTENTION_LAB_RUNS; the studio lists it)",
    )
    parser.add_argument("--out", type=Path, help="checkpoint folder (default checkpoints/<preset>)")
    parser.add_argument("--data", type=Path, help="train on your own file instead (Tatoeba TSV pairs, or text for LMs)")
    parser.add_argument("--steps", type=int, help="override the preset's number of steps")
    parser.add_argument("--epochs", type=float, help="set the number of steps to this many passes over the data")
    parser.add_argument("--minutes", type=float, help="override the wall-clock guard against runaway runs")
    parser.add_argument("--device", help="cpu, cuda or mps (default: best available)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="torch intra-op threads on CPU")
    parser.add_argument("--log", type=Path, help="append every step's progress to this file as JSON lines")
    args = parser.parse_args(argv)
    command = "python -m models.train " + " ".join(sys.argv[1:] if argv is None else argv)
    close_log = None
    try:
        os.environ["ATTN_LAB_THREADS"] = str(args.threads)
        configure_threads()
        callbacks = []
        if args.log:
            log, close_log = jsonl_log(args.log)
            callbacks.append(log)
        if args.studio:
            print(train_studio(args.studio, args.steps))
            return 0
        _, _, line = run_preset(
            PRESETS[args.preset],
            out=args.out,
            data=args.data,
            epochs=args.epochs,
            steps=args.steps,
            minutes=args.minutes,
            device=args.device,
            command=command,
            callbacks=callbacks,
            progress=True,
        )
    except Exception as exc:  # one line, no traceback, non-zero exit
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if close_log is not None:
            close_log()
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
