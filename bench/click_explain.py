"""Click-to-explain: what a click costs on the server, and what the clickable layer adds to a figure.

`python -m bench.click_explain` prints, on CPU:
- server milliseconds of one derivation (uncached, mean after a warm-up) per family: an RNN cell
  (the decoding replayed up to the step), a Transformer head cell (one teacher-forced pass), a
  small-BERT cell, and a real MiniLM-L6 cell at 32, 128 and 512 tokens (one forward pass; all 12 heads
  of the layer's average in the same pass);
- the JSON bytes of a figure before and after :func:`viz_core.explain.add_cell_layer`, for the
  seq2seq heatmap of a 20-word sentence and a real-model head figure at 128 tokens, and at 512
  tokens (binned to 128 × 128 blocks: the click layer has one point per block).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from bench.decode_step import SENTENCE
from models.checkpoints import load_bert, load_seq2seq, load_transformer
from models.inference.explain import (
    explain_bert_cell,
    explain_head_cell,
    explain_hf_heads,
    explain_seq2seq_cell,
)
from models.inference.translate import translate, translate_transformer
from viz_core.attention_grid import head_figure
from viz_core.explain import add_cell_layer
from viz_core.seq2seq import attention_heatmap


def timed(fn: Callable[[], object], repeats: int) -> float:
    """Mean milliseconds per call after one warm-up call."""
    fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1000


def nbytes(fig) -> int:
    return len(fig.to_json().encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    r = args.repeats

    s2s = load_seq2seq("s2s-bahdanau")
    trace = translate(s2s, SENTENCE)
    hyp = trace.best
    last = len(hyp.tokens) - 1
    print(
        f"RNN (Bahdanau) cell, last of {last + 1} steps: "
        f"{timed(lambda: explain_seq2seq_cell(s2s, SENTENCE, hyp.tokens, last, 3), r):.1f} ms"
    )

    tf = load_transformer("tf-en-fr")
    dec = translate_transformer(tf, SENTENCE)
    cell = timed(lambda: explain_head_cell(tf.model, "cross", 1, 2, 5, 3, dec.src_ids, dec.decoder_input_ids), r)
    print(f"Transformer cross-attention cell: {cell:.1f} ms")

    bert = load_bert("bert-small")
    enc = bert.tokenizer.encode_pair(SENTENCE, "", max_len=bert.config.max_len)
    print(
        f"small BERT cell ({len(enc.ids)} pieces): "
        f"{timed(lambda: explain_bert_cell(bert.model, enc.ids, enc.segment_ids, 2, 1, 3, 4), r):.1f} ms"
    )

    from models.inference.hf_adapter import load_hf_model, run_hf

    m = load_hf_model()
    for limit in (32, 128, 512):
        real = run_hf(m, " ".join([SENTENCE] * (limit // 20 + 1)), max_tokens=limit)
        ids, segs = real.ids.tolist(), real.segment_ids.tolist()
        one = timed(lambda ids=ids, segs=segs: explain_hf_heads(m, ids, segs, 3, [5], 4, 2), r)
        every = timed(lambda ids=ids, segs=segs: explain_hf_heads(m, ids, segs, 3, list(range(m.n_heads)), 4, 2), r)
        print(f"MiniLM-L6 cell at {len(ids)} tokens: one head {one:.1f} ms, all 12 heads {every:.1f} ms")

    heat = attention_heatmap(hyp.attention, trace.src_tokens, hyp.tokens)
    before = nbytes(heat)
    add_cell_layer(heat)
    print(
        f"seq2seq heatmap {hyp.attention.shape}: {before / 1e3:.1f} kB → {nbytes(heat) / 1e3:.1f} kB "
        "with the click layer"
    )
    w = np.random.default_rng(0).dirichlet(np.ones(128), size=128).astype(np.float32)
    fig = head_figure(w, [f"t{i}" for i in range(128)]).figure
    before = nbytes(fig)
    add_cell_layer(fig)
    print(f"head figure 128 × 128: {before / 1e3:.1f} kB → {nbytes(fig) / 1e3:.1f} kB with the click layer")
    w = np.random.default_rng(0).dirichlet(np.ones(512), size=512).astype(np.float32)
    fig = head_figure(w, [f"t{i}" for i in range(512)]).figure
    before = nbytes(fig)
    add_cell_layer(fig)
    print(
        f"head figure 512 × 512 (binned 4 × 4): {before / 1e3:.1f} kB → {nbytes(fig) / 1e3:.1f} kB with the click layer"
    )


if __name__ == "__main__":
    main()
