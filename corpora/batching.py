"""Length-bucketed batching shared by the translation recipes: less padding, random order."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence


def bucketed_batches(lengths: Sequence[int], batch_size: int, rng: random.Random) -> Iterator[list[int]]:
    """Endless batches of item indices, epoch after epoch: each epoch sorts the items by length
    (ties broken at random), cuts them into batches of similar length and shuffles the batches."""
    while True:
        order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
        chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
        rng.shuffle(chunks)
        yield from chunks
