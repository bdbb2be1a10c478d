"""What the browser receives for the layers × heads attention grid, by sequence length.

    python -m bench.attention_payload [--lengths 64 128 256 512] [--layers 12] [--heads 12]

For random attention of shape (layers, heads, L, L) with softmax-normalised rows it prints,
per L: the time to build the grid payload (:func:`viz_core.attention_grid.grid_payload`),
its bytes on the wire (base64 PNG mosaic + metadata) and as a plotly figure, the one-head
view's bytes, and for comparison the bytes of "every weight as JSON text" (``json.dumps``
of the nested lists at full precision), measured up to ``--json-measure-max`` tokens and
estimated above it by scaling the largest measurement with L² (building ~1 GB of text
proves nothing). Target (issue 3): 12 × 12 × 512 → ≤ 1 s and ≤ 5 MB.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from viz_core.attention_grid import grid_payload, head_figure

TIME_BOUND_S = 1.0
BYTES_BOUND = 5_000_000


def random_attention(layers: int, heads: int, length: int, seed: int = 0) -> np.ndarray:
    """(layers, heads, L, L) float32, each row softmax(N(0, 2²)) so it sums to 1."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((layers, heads, length, length), dtype=np.float32)
    x *= 2.0
    x -= x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


def _mb(n: float) -> str:
    return f"{n / 1e6:9.2f} MB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[64, 128, 256, 512])
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3, help="best of N builds")
    ap.add_argument(
        "--json-measure-max",
        type=int,
        default=128,
        help="build the every-weight JSON only up to this length; scale by L² above",
    )
    args = ap.parse_args(argv)

    print(
        f"attention grid payload: {args.layers} layers × {args.heads} heads, random softmax rows; "
        f"best of {args.repeat}; bounds {TIME_BOUND_S:.1f} s and {_mb(BYTES_BOUND).strip()}"
    )
    header = (
        f"{'L':>5} {'build':>8} {'+figure':>8} {'payload':>12} {'figure JSON':>12} "
        f"{'one head':>12} {'every weight as JSON':>24}  within bounds"
    )
    print(header)
    print("-" * len(header))
    json_ref: tuple[int, int, float] | None = None  # (L, bytes, seconds) of the largest measured
    failures = 0
    for length in args.lengths:
        w = random_attention(args.layers, args.heads, length)
        tokens = [f"tok{i}" for i in range(length)]
        best_build = best_total = float("inf")
        payload = None
        fig_bytes = 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            payload = grid_payload(w, tokens)
            payload_json = payload.to_json()
            t1 = time.perf_counter()
            fig_json = payload.figure().to_json()
            t2 = time.perf_counter()
            best_build = min(best_build, t1 - t0)
            best_total = min(best_total, t2 - t0)
            fig_bytes = len(fig_json.encode("utf-8"))
        assert payload is not None
        wire = len(payload_json.encode("utf-8"))
        head = head_figure(w[0, 0], tokens)

        if length <= args.json_measure_max:
            t0 = time.perf_counter()
            n_json = len(json.dumps(w.tolist()).encode("utf-8"))
            json_s = time.perf_counter() - t0
            json_ref = (length, n_json, json_s)
            json_col = f"{_mb(n_json)} {json_s:6.2f} s"
        elif json_ref is not None:
            ratio = (length / json_ref[0]) ** 2
            json_col = f"~{_mb(json_ref[1] * ratio)} ~{json_ref[2] * ratio:5.1f} s"
        else:
            json_col = "(not measured)"
        ok = best_total <= TIME_BOUND_S and max(wire, fig_bytes) <= BYTES_BOUND
        failures += not ok
        print(
            f"{length:>5} {best_build:7.3f}s {best_total:7.3f}s {_mb(wire)} {_mb(fig_bytes)} "
            f"{_mb(head.nbytes)} {json_col:>24}  {'yes' if ok else 'NO'}"
        )
    if json_ref is not None and args.lengths[-1] > json_ref[0]:
        print(f"~ = estimated from the {json_ref[0]}-token measurement scaled by L² (not built)")
    print(
        "build = grid_payload + its JSON; +figure = that plus the plotly figure's JSON; "
        "one head = head_figure of head (0, 0) (binned above 128 tokens)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
