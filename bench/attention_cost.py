"""Time and peak memory of exact, tiled, windowed and linear attention against sequence length.

`python -m bench.attention_cost` runs one causal head (d = 64, float32, random Q, K, V) through
models.lessons.at_scale (numpy on this machine's CPU; one BLAS thread unless --threads) at 128 … 8,192
tokens and prints, per method and length, the fastest of --repeats calls (the least disturbed by other
work) and the peak extra memory
(tracemalloc: numpy's allocations during one call, the inputs excluded), the fitted exponent of time
(and memory) against length over 1k–8k, and the tiled path's peak as a share of the n × n float32
matrix exact attention holds. --save writes the table to bench/baselines/attention_cost.json (the page
draws it). CUDA is not measured here: these paths are numpy (CPU).

Methods: exact softmax(QKᵀ/√d + M)V (the n × n matrix held); tiled (FlashAttention's online softmax,
128 × 128 tiles); window (sliding window of 256 keys, 128-query blocks); linear (Katharopoulos et al.
2020, φ = elu + 1, chunks of 128).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

BASELINE = Path(__file__).parent / "baselines" / "attention_cost.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--save", action="store_true", help=f"write the table to {BASELINE}")
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # read when numpy's BLAS loads, just below
    from models.lessons.at_scale import COST_LENGTHS, measure_cost

    table = measure_cost(args.lengths or COST_LENGTHS, repeats=args.repeats)
    print(
        f"one causal head, d = {table.d}, float32, {table.device}, {args.threads} BLAS thread(s), "
        f"fastest of {table.repeats}"
    )
    print(f"{'n':>6} " + " ".join(f"{m + ' ms':>11} {m + ' MiB':>11}" for m in table.methods) + f" {'n²·4 MiB':>9}")
    for j, n in enumerate(table.lengths):
        cells = " ".join(
            f"{table.seconds[i, j] * 1e3:>11.2f} {table.peak_bytes[i, j] / 2**20:>11.2f}"
            for i in range(len(table.methods))
        )
        print(f"{n:>6} {cells} {table.matrix_bytes[j] / 2**20:>9.1f}")
    print("fitted exponents over 1,024–8,192 tokens (value ≈ a·n^b):")
    for m in table.methods:
        print(f"  {m:>7}: time b = {table.exponent(m):.2f}, memory b = {table.exponent(m, what='bytes'):.2f}")
    last = len(table.lengths) - 1
    share = table.peak_bytes[table.methods.index("tiled"), last] / table.matrix_bytes[last]
    print(f"tiled peak at {table.lengths[last]} tokens: {share:.2%} of the exact path's n × n matrix (bar ≤ 5%)")
    print(
        f"exact time exponent ≥ 1.8: {table.exponent('exact') >= 1.8}; linear ≤ 1.2: {table.exponent('linear') <= 1.2}"
    )
    if args.save:
        BASELINE.write_text(json.dumps(table.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"saved {BASELINE}")


if __name__ == "__main__":
    main()
