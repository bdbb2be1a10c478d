"""Masked LMs on everyday text: top-1 / top-5 at [MASK] on the 100 held-out sentences of the model's language
(:mod:`corpora.mlm_eval`; Chinese: :mod:`corpora.mlm_eval_zh`), for every shipped BERT checkpoint (minilm-mlm,
bert-small, bert-zh) or the ``--model`` folders given.

`python -m bench.mlm_everyday [--json] [--examples N] [--model DIR ...]` prints one line per model (and N
example predictions each); the same figures are part of `python -m models.evaluate` (its BERT section).
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
    parser.add_argument("--model", nargs="*", help="checkpoint names or folders (default: every shipped BERT)")
    args = parser.parse_args()
    configure_threads()
    results, failed = {}, 0
    for name in args.model or shipped("bert"):
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
            f"{name:12} top-1 {r['top1']:.2f}  top-5 {r['top5']:.2f}  on {r['sentences']} {r['lang']} sentences "
            f"({r['answers_one_piece']} answers are one piece of its vocabulary)"
        )
        for ex in r["examples"]:
            guesses = ", ".join(f"{p['token']} {p['prob']:.2f}" for p in ex["top5"])
            print(f"    {ex['sentence']}  [{ex['answer']}] → {guesses}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
