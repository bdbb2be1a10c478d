"""`python -m models.fill_mask [--model NAME] [--top-k K] [--json] "a sentence with [MASK] in it"`: the masked
LM's k most probable pieces at every [MASK], with their probabilities (default: the BERT page's model)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli.output import print_trace
from models.checkpoints import DEFAULT_MASKED_LM, CheckpointError, load_bert
from models.device import configure_threads
from models.inference.bert import fill_mask
from models.inference.common import InputError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Predict the words under [MASK] with a masked language model.")
    parser.add_argument(
        "text", help='a sentence with [MASK] where a word is missing, e.g. "the cat sat on the [MASK] ."'
    )
    parser.add_argument(
        "--model", default=DEFAULT_MASKED_LM, help=f"BERT checkpoint name or folder (default {DEFAULT_MASKED_LM})"
    )
    parser.add_argument("--top-k", type=int, default=5, help="predictions per [MASK] (1–100)")
    parser.add_argument("--json", action="store_true", help="print the predictions as JSON")
    args = parser.parse_args(argv)
    try:
        configure_threads()
        trace = fill_mask(load_bert(args.model), args.text, args.top_k)
    except (CheckpointError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    lines = [
        f"[MASK] {k + 1} (piece {m['position']}): "
        + " · ".join(f"{p['token']} {p['prob']:.3f}" for p in m["predictions"])
        for k, m in enumerate(trace.masks)
    ]
    notes = [f"{trace.n_unknown} piece(s) unknown to {trace.model}, read as [UNK]"] if trace.n_unknown else []
    return print_trace(trace, "\n".join([*lines, f"filled: {trace.filled}"]), args.json, notes)


if __name__ == "__main__":
    raise SystemExit(main())
