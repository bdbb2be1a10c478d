"""Server-side time of one decoding step on the seq2seq page, for a 20-word sentence on CPU.

`python -m bench.decode_step` loads a shipped checkpoint and prints, averaged over repeats:
- the first view: tokenize + greedy decode of the whole sentence (the page caches this trace);
- one model decoding step (decoder.step on the encoded sentence);
- one step on the page after the first: what the step fragment rebuilds — the heatmap with the
  current row outlined, α_t bars and top-k bars — serialised to JSON as ui.plot.chart does
  before sending them.
"""

from __future__ import annotations

import argparse
import time

import torch

from models.checkpoints import load_seq2seq
from models.inference.translate import prepare_source, translate
from models.text.vocab import SOS_ID
from viz_core.seq2seq import attention_heatmap, step_attention_bars, topk_bars

SENTENCE = "the tall woman reads the old books in the small house and my brother does not eat the green apples ."


def timed(fn, repeats: int) -> float:
    """Mean milliseconds per call after one warm-up call."""
    fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="s2s-bahdanau")
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(1)  # as in the app server (models.device.configure_threads)
    loaded = load_seq2seq(args.model)
    source = prepare_source(SENTENCE, loaded)
    trace = translate(loaded, SENTENCE)
    hyp = trace.best
    memory = loaded.model.encode(torch.tensor([source.ids]), torch.tensor([len(source.ids)]))
    state = loaded.model.decoder.initial_state(memory)

    @torch.no_grad()
    def model_step():
        loaded.model.decoder.step(torch.tensor([SOS_ID]), state, memory)

    def page_step(t: int = len(hyp.tokens) // 2):
        figs = [
            step_attention_bars(hyp.attention[t], trace.src_tokens, trace.src_unknown),
            topk_bars(hyp.topk_tokens[t], hyp.topk_probs[t], hyp.tokens[t]),
        ]
        if hyp.attention is not None:
            figs.append(attention_heatmap(hyp.attention, trace.src_tokens, hyp.tokens, step=t))
        # What ui.plot.chart does with each figure before sending it.
        return sum(len(f.to_json()) for f in figs)

    print(f"model {args.model}; sentence of {len(source.tokens) - 1} words → {len(hyp.tokens)} target steps")
    print(f"first view, whole greedy decode:        {timed(lambda: translate(loaded, SENTENCE), 10):7.2f} ms")
    print(f"one model decoding step:                {timed(model_step, args.repeats):7.2f} ms")
    print(
        f"one step on the page after the first:   {timed(page_step, args.repeats):7.2f} ms "
        f"({page_step() / 1024:.0f} KiB of figure JSON)"
    )


if __name__ == "__main__":
    main()
