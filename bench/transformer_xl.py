"""Transformer-XL (xl-lm): held-out perplexity with and without memory, against the vanilla LM, and
the speed of generating with cached memory against recomputing the context.

`python -m bench.transformer_xl [--context 512] [--tokens 50]` prints:
- held-out perplexity of xl-lm at its training segment length L with memory M = 0 (every segment
  alone) … 256, on the same held-out chapters as tf-lm (one stream, read in order);
- the vanilla decoder-only tf-lm at context windows 16, 32, 64 (non-overlapping, as it is evaluated);
- ms per generated token at ``--context`` tokens of context: one-token segments after a cached
  memory of that many states, against re-running the model on the whole context for each token
  (the same model without cache: what a fixed-context Transformer must do). One torch thread.
"""

from __future__ import annotations

import argparse

from corpora.lm_data import line_stream, load_verses, split_verses
from models.checkpoints import load_transformer, load_txl
from models.device import configure_threads
from models.inference.transformer_xl import generation_speed
from models.text.vocab import SOS_ID, Vocab
from models.training.metrics import perplexity
from models.training.transformer_xl import EVAL_MEMORIES, memory_evaluation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="xl-lm")
    parser.add_argument("--vanilla", default="tf-lm")
    parser.add_argument("--context", type=int, default=512)
    parser.add_argument("--tokens", type=int, default=50)
    args = parser.parse_args()
    threads = configure_threads()
    loaded = load_txl(args.model)
    held = [v.tokens for v in split_verses(load_verses())["heldout"]]
    ev = memory_evaluation(
        loaded.model,
        line_stream(held, Vocab(loaded.itos)),
        loaded.config.seg_len,
        sorted({*EVAL_MEMORIES, loaded.config.mem_len}),
    )
    ppl = ev["perplexity_by_memory"]
    print(f"{args.model}: held-out perplexity, segments of L = {ev['seg_len']}, {ev['tokens']} tokens")
    for m, value in ppl.items():
        print(f"  memory {m:>4}: {value:8.2f}   (each query attends to at most {ev['seg_len'] + int(m)} positions)")
    trained_m = str(loaded.config.mem_len)
    print(f"  memory {trained_m} vs 0: {1 - ppl[trained_m] / ppl['0']:.1%} lower")
    vanilla = load_transformer(args.vanilla)
    stream = line_stream(held, Vocab(vanilla.tgt_itos))
    print(f"{args.vanilla} (vanilla decoder-only, same vocabulary and held-out text), windows of C tokens:")
    for c in (16, 32, vanilla.config.max_len):
        print(f"  C = {c:>4}: {perplexity(vanilla.model, stream, c, skip_id=SOS_ID)[0]:8.2f}")
    cached, recomputed = generation_speed(loaded.model, args.context, args.tokens)
    print(
        f"generation at {args.context} tokens of context, {threads} thread(s), mean of {args.tokens} tokens: "
        f"cached memory {cached:.2f} ms/token, recomputing {recomputed:.2f} ms/token, "
        f"{recomputed / cached:.1f}× faster"
    )


if __name__ == "__main__":
    main()
