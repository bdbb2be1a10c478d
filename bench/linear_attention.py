"""Softmax against linear attention, trained here: held-out perplexity, then time and memory against length.

`python -m bench.linear_attention` trains two small decoder LMs that differ only in their attention
(models.lessons.linear_lm: softmax(QKᵀ/√d + M)V, or linear attention with φ(x) = elu(x) + 1, Katharopoulos
et al. 2020) with the lab's one training loop, on the same batches of the World English Bible (word level,
2,000 words, held-out chapters as corpora.lm_data splits them) for the same --steps, and prints each one's
held-out perplexity and training time; that the trained linear model's recurrent form (one token at a time,
a d × d state per head) gives its parallel form's logits; and, against length n (random tokens, the fastest
of --repeats, torch on this machine's CPU, one thread unless --threads): the seconds of one forward pass over
n tokens (softmax: parallel, the n × n matrix; linear: its recurrent form in chunks of 64), the seconds of one
generation step after n tokens (the mean of 16 steps; softmax: against its KV cache; linear: against S and z),
and the bytes that state holds. --save writes bench/baselines/linear_attention.json (the page's linear tab draws
it). Small models trained in minutes of CPU: a comparison of these two models, not of the methods at scale.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

BASELINE = Path(__file__).parent / "baselines" / "linear_attention.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--lengths", type=int, nargs="+", default=[128, 256, 512, 1024, 2048, 4096])
    parser.add_argument("--save", action="store_true", help=f"write the results to {BASELINE}")
    args = parser.parse_args()
    import torch

    from models.lessons.at_scale import fit_exponent
    from models.lessons.linear_lm import bible_corpus, measure_lengths, train_pair

    torch.set_num_threads(args.threads)
    models, pair = train_pair(args.steps, args.batch)
    print(
        f"two decoder LMs, {pair.parameters:,} parameters each ({pair.config}), {args.steps} steps of "
        f"{args.batch} × {pair.config['context']} tokens, the same batches; {pair.device}, {args.threads} thread(s)"
    )
    print(f"{'attention':>9} {'held-out perplexity':>19} {'final loss':>10} {'train s':>8}")
    for i, attention in enumerate(pair.kinds):
        print(f"{attention:>9} {pair.heldout_ppl[i]:>19.2f} {pair.final_loss[i]:>10.3f} {pair.seconds[i]:>8.1f}")
    corpus = bible_corpus(pair.settings["vocab_cap"])
    linear = models["linear"]
    ids = torch.from_numpy(corpus.heldout[:257])[None]
    with torch.inference_mode():
        parallel = linear(ids)
        recurrent = linear.recurrent_logits(ids)
        chunked = linear(ids, chunked=True)
    agree = float((parallel - recurrent).abs().max())
    print(
        f"trained linear model, {ids.shape[1]} held-out tokens: max |logits parallel − recurrent| = {agree:.2e}, "
        f"parallel − chunked = {float((parallel - chunked).abs().max()):.2e} (max |logit| "
        f"{float(parallel.abs().max()):.1f})"
    )
    cost = measure_lengths(models, tuple(args.lengths), args.repeats)
    print(
        f"{'n':>6} " + " ".join(f"{k + ' fwd ms':>15} {k + ' step ms':>16} {k + ' state KiB':>17}" for k in pair.kinds)
    )
    for j, n in enumerate(cost.lengths):
        print(
            f"{n:>6} "
            + " ".join(
                f"{cost.forward_seconds[k][j] * 1e3:>15.2f} {cost.step_seconds[k][j] * 1e3:>16.3f} "
                f"{cost.state_bytes[k][j] / 1024:>17.1f}"
                for k in pair.kinds
            )
        )
    low, high = cost.lengths[len(cost.lengths) // 2], cost.lengths[-1]
    for k in pair.kinds:
        print(
            f"  {k:>7}: forward time ∝ n^{fit_exponent(cost.lengths, cost.forward_seconds[k], low, high):.2f}, "
            f"step time ∝ n^{fit_exponent(cost.lengths, cost.step_seconds[k], low, high):.2f} "
            f"over {low:,}–{high:,} tokens"
        )
    if args.save:
        data = {**pair.to_dict(), "recurrent_vs_parallel": agree, "cost": cost.to_dict()}
        BASELINE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"saved {BASELINE}")


if __name__ == "__main__":
    main()
