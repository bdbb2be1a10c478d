"""A real LLM (SmolLM2-135M-Instruct, or Gemma 3 270M) on this machine: conversion, load, generation speed,
head types, and (a model with sliding-window layers) the window check.

`python -m bench.llm_heads [--model smollm2|gemma3] [--fresh] [--context 256] [--new 16] [--period 50]` prints
- the one-time conversion from GGUF (timed into a temporary folder with ``--fresh``; otherwise
  the user cache is used, converted first when it is not);
- the load time of the converted copy (the bar: ≤ 10 s);
- generation with the KV cache and every layer's attention, at a ``--context``-token prompt:
  seconds per new token and tokens/s (the bar: ≤ 0.5 s per token at 256 tokens on 2 cores),
  and the same without the cache;
- the best induction (the bar: a head ≥ 0.5), previous-token and sink heads, and the mean sink
  score per layer. Layers and heads are numbered from 1, as on the page;
- for Gemma 3, the sliding-window check on a ``--window-tokens``-token input (600): the largest weight
  each layer puts 512 or more tokens back (the bar: exactly 0 on every local layer, not on the global ones).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from models.device import configure_threads
from models.inference.llm import (
    MODEL_NAME,
    SPECS,
    WINDOW_TOKENS,
    ensure_converted,
    generate,
    gguf_path,
    is_converted,
    load_llm,
    measure_heads,
    repeated_random_tokens,
    window_check,
)

TEXT = (
    "The students opened their books. The teacher wrote a short sentence on the board, and the students copied "
    "the sentence into their notebooks before the bell rang. Then the teacher asked a question."
)


def _progress(start: float):
    def report(stage: str, done: float) -> None:
        print(f"  {time.perf_counter() - start:6.1f} s  {stage}", flush=True)

    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=list(SPECS), default=MODEL_NAME)
    parser.add_argument("--window-tokens", type=int, default=WINDOW_TOKENS, help="input length of the window check")
    parser.add_argument("--fresh", action="store_true", help="time a fresh conversion into a temporary folder")
    parser.add_argument("--context", type=int, default=256, help="prompt length for the speed test")
    parser.add_argument("--new", type=int, default=16, help="new tokens in the speed test")
    parser.add_argument("--period", type=int, default=50, help="random tokens repeated in the induction test")
    args = parser.parse_args()
    model = args.model
    if notice := SPECS[model].notice:
        print(f"licence: {notice}")
    print(f"torch threads: {configure_threads()}")
    folder = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.fresh or not is_converted(model=model):
            folder = Path(tmp) / "llm" if args.fresh else None
            start = time.perf_counter()
            print("conversion (GGUF → safetensors):")
            ensure_converted(_progress(start), folder, gguf_path(model), model=model)
            print(f"conversion: {time.perf_counter() - start:.1f} s")
        else:
            print("conversion: already in the user cache (run with --fresh to time it)")
        llm = load_llm(folder, model=model)
        print(f"load: {llm.load_seconds:.2f} s")

        ids = repeated_random_tokens(llm, args.context // 2, seed=1)[: args.context]
        for use_cache in (True, False):
            cpu = []
            new = args.new if use_cache else min(args.new, 4)  # without the cache each token rereads the prompt
            for n in (1, new + 1):  # the prompt step alone, then with the new tokens: the difference is theirs
                start = time.process_time()
                trace = generate(llm, ids, max_new=n, temperature=0.0, use_cache=use_cache)
                cpu.append(time.process_time() - start)
            later = trace.step_seconds[1:]
            per_token = sum(later) / len(later)
            print(
                f"generation at {len(ids)} tokens, {'with' if use_cache else 'without'} KV cache: "
                f"first step (prompt) {trace.step_seconds[0]:.2f} s, then {per_token:.3f} s per token "
                f"({1 / per_token:.1f} tokens/s; CPU time {(cpu[1] - cpu[0]) / len(later):.3f} s per token), "
                f"every layer's attention included"
            )

        start = time.perf_counter()
        with torch.inference_mode():
            scores = measure_heads(llm, TEXT, period=args.period, seed=0)
        print(
            f"head measurement: {time.perf_counter() - start:.1f} s "
            f"({len(scores.text_tokens)} text tokens, {len(scores.induction_tokens)} induction-test tokens)"
        )
        for head_type in ("induction", "previous", "sink"):
            best = ", ".join(f"L{layer + 1} H{head + 1} {s:.2f}" for layer, head, s in scores.best(head_type, 5))
            print(f"best {head_type} heads: {best}")
        per_layer = " ".join(f"{v:.2f}" for v in scores.sink.mean(axis=1))
        print(f"mean sink score per layer (1 … {llm.n_layers}): {per_layer}")
        if llm.sliding_window is not None:
            check = window_check(llm, args.window_tokens)
            print(
                f"window check on {check.n_tokens} tokens ({check.seconds:.1f} s): largest weight {check.window} or "
                f"more tokens back, per layer (1 … {llm.n_layers}, G = global):"
            )
            print(
                "  "
                + " ".join(
                    f"{'G' if layer_type != 'sliding_attention' else ''}{i + 1}:{m:.3g}"
                    for i, (layer_type, m) in enumerate(zip(check.layer_types, check.beyond_max))
                )
            )
            print(
                f"local layers exactly 0: {check.local_zero}; every global layer reaches beyond: "
                f"{check.global_reaches} (mean weight per query beyond the window, global layers: "
                + ", ".join(f"L{i + 1} {check.beyond_mass[i]:.3f}" for i in llm.global_layers)
                + ")"
            )


if __name__ == "__main__":
    main()
