"""Which head of the installed MiniLM-L6 links "it" to "animal"? Every layer and head, ranked.

    python -m bench.find_heads [--text TEXT] [--query it] [--key animal] [--top 10] [--json]

Runs the text through the Real model explorer's model (the installed MiniLM-L6, loaded and
tokenised as the page does: :func:`models.inference.hf_adapter.load_hf_model` and
:func:`~models.inference.hf_adapter.run_hf`, at most 512 tokens) and ranks all 6 × 12 heads by the
attention weight that the query token puts on the key token (the first occurrence of each), printing
the best ``--top`` with the weight each puts on every other token of interest for contrast. Layers and
heads are numbered from 1, as on the page ("layer 3", "head 5"). The ready-made decks' MiniLM slide
shows the best head (tests/test_ready_decks.py checks that it is the one this search picks).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

TEXT = "The animal didn't cross the street because it was too tired"
QUERY, KEY = "it", "animal"
OTHERS = ("street", "tired")  # the other words a reader might think "it" stands for, for contrast


@dataclass(frozen=True)
class HeadWeight:
    """One head's weight from the query token to the key token; ``layer`` and ``head`` from 1."""

    layer: int
    head: int
    weight: float
    others: dict[str, float]


def position(tokens: Sequence[str], word: str) -> int:
    """The first position of ``word`` among ``tokens`` (ValueError naming the tokens when absent)."""
    try:
        return list(tokens).index(word)
    except ValueError:
        raise ValueError(f"{word!r} is not one of the tokens {list(tokens)}") from None


def rank_heads(
    attention: np.ndarray, tokens: Sequence[str], query: str = QUERY, key: str = KEY, others: Sequence[str] = OTHERS
) -> list[HeadWeight]:
    """Every head of ``attention`` (layers, heads, L, L) by the weight ``query`` puts on ``key``,
    largest first (ties: the lower layer, then the lower head)."""
    q, k = position(tokens, query), position(tokens, key)
    extra = {word: position(tokens, word) for word in others if word in tokens and word not in (query, key)}
    n_layers, n_heads = attention.shape[:2]
    heads = [
        HeadWeight(
            layer + 1,
            head + 1,
            float(attention[layer, head, q, k]),
            {word: float(attention[layer, head, q, j]) for word, j in extra.items()},
        )
        for layer in range(n_layers)
        for head in range(n_heads)
    ]
    return sorted(heads, key=lambda h: (-h.weight, h.layer, h.head))


def search(
    text: str = TEXT, query: str = QUERY, key: str = KEY, others: Sequence[str] = OTHERS
) -> tuple[list[str], list[HeadWeight]]:
    """(tokens, every head ranked) of the installed MiniLM-L6 on ``text``, as the explorer runs it."""
    from models.device import configure_threads
    from models.inference.hf_adapter import MAX_TOKENS, load_hf_model, run_hf

    configure_threads()
    trace = run_hf(load_hf_model(None), text, None, max_tokens=MAX_TOKENS)
    return trace.tokens, rank_heads(trace.attention, trace.tokens, query, key, others)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--text", default=TEXT)
    ap.add_argument("--query", default=QUERY, help="the token that attends (first occurrence)")
    ap.add_argument("--key", default=KEY, help="the token attended to (first occurrence)")
    ap.add_argument("--top", type=int, default=10, help="how many heads to print")
    ap.add_argument("--json", action="store_true", help="print the ranking as JSON")
    args = ap.parse_args(argv)
    try:
        tokens, heads = search(args.text, args.query, args.key)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "text": args.text,
                    "tokens": tokens,
                    "query": args.query,
                    "key": args.key,
                    "heads": [asdict(h) for h in heads[: args.top]],
                },
                indent=1,
            )
        )
        return 0
    print(f"text: {args.text}")
    print(f"tokens ({len(tokens)}): {' '.join(tokens)}")
    print(f"weight of {args.query!r} → {args.key!r} in each of {len(heads)} heads, the best {args.top}:")
    for rank, h in enumerate(heads[: args.top], 1):
        contrast = "".join(f"   → {word} {w:.3f}" for word, w in h.others.items())
        print(f"{rank:3d}. layer {h.layer} head {h.head}: {h.weight:.3f}{contrast}")
    weights = np.array([h.weight for h in heads])
    print(f"median over all heads: {np.median(weights):.3f}; uniform over {len(tokens)} tokens: {1 / len(tokens):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
