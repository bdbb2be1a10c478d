"""Masked LMs on everyday English: top-1 / top-5 at [MASK] on the 100 held-out sentences of
:mod:`corpora.mlm_eval`, for every shipped BERT checkpoint (minilm-mlm, bert-small).

`python -m bench.mlm_everyday [--json] [--examples N]` prints one line per model (and N example
predictions each); the same figures are part of `python -m models.evaluate` (its BERT section).
"""

from __future__ import annotations

import argparse
import json

from models.checkpoints import CheckpointError, load_bert, shipped
from models.device import configure_threads
from models.training.mlm_head import evaluate_everyday


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--examples", type=int, default=5, help="example predictions per model")
    args = parser.parse_args()
    configure_threads()
    results, failed = {}, 0
    for name in shipped("bert"):
        try:
            results[name] = evaluate_everyday(load_bert(name), examples=args.examples)
        except CheckpointError as exc:
            print(f"error: {exc}")
            failed += 1
    if args.json:
        print(json.dumps(results, indent=1, ensure_ascii=False))
        return 1 if failed else 0
    for name, r in results.items():
        print(
            f"{name:12} top-1 {r['top1']:.2f}  top-5 {r['top5']:.2f}  on {r['sentences']} sentences "
            f"({r['answers_one_piece']} answers are one piece of its vocabulary)"
        )
        for ex in r["examples"]:
            guesses = ", ".join(f"{p['token']} {p['prob']:.2f}" for p in ex["top5"])
            print(f"    {ex['sentence']}  [{ex['answer']}] → {guesses}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
