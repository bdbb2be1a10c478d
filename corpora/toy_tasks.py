"""Toy sequence-to-sequence tasks on random integer sequences: copy and reverse.

Ids: 0 = PAD, 1 = BOS, 2 = EOS, then ``n_symbols`` symbols 3 … 3 + n_symbols − 1.
A batch holds ``src`` (B, S) (symbols, right-padded), ``tgt_in`` = BOS + target (decoder
input, teacher forcing) and ``tgt_out`` = target + EOS (what to predict), both right-padded
with PAD so that ``tgt_in[:, t]`` predicts ``tgt_out[:, t]``. For a decoder-only LM,
:func:`lm_sequences` joins both as BOS + source + EOS + target + EOS.

Held-out sequences: :func:`is_heldout` puts one sequence in ``HELDOUT_MODULUS`` (by a CRC-32
of its symbols) in the held-out set; ``split="train"`` never yields one of them, so an exact
match measured on ``split="heldout"`` is on sequences the model never saw.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

PAD_ID = 0
BOS_ID = 1
EOS_ID = 2
FIRST_SYMBOL = 3
SPECIAL_TOKENS = ("<pad>", "<bos>", "<eos>")
TASKS = ("copy", "reverse")
HELDOUT_MODULUS = 10
Split = Literal["train", "heldout"]


@dataclass(frozen=True)
class ToyTask:
    """A task: ``name`` in :data:`TASKS`, sequences of ``min_len`` … ``max_len`` symbols."""

    name: str = "copy"
    n_symbols: int = 10
    min_len: int = 3
    max_len: int = 8

    def __post_init__(self) -> None:
        if self.name not in TASKS:
            raise ValueError(f"unknown toy task {self.name!r}; choose from {TASKS}")
        if not 1 <= self.min_len <= self.max_len:
            raise ValueError("need 1 <= min_len <= max_len")

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + self.n_symbols

    def target(self, src: Sequence[int]) -> list[int]:
        """The expected output symbols for ``src`` (without BOS/EOS)."""
        return list(src) if self.name == "copy" else list(reversed(src))

    def token_names(self) -> list[str]:
        """Display names by id: the special tokens, then the symbols as digits ``0`` … ``9``
        (or ``s0``, ``s1`` … when there are more than ten)."""
        names = (
            [str(i) for i in range(self.n_symbols)]
            if self.n_symbols <= 10
            else [f"s{i}" for i in range(self.n_symbols)]
        )
        return list(SPECIAL_TOKENS) + names


@dataclass
class ToyBatch:
    """Right-padded id tensors: ``src`` (B, S), ``tgt_in`` (B, T) and ``tgt_out`` (B, T)."""

    src: Tensor
    tgt_in: Tensor
    tgt_out: Tensor

    def to(self, device: torch.device | str) -> ToyBatch:
        return ToyBatch(self.src.to(device), self.tgt_in.to(device), self.tgt_out.to(device))


def is_heldout(sequence: Sequence[int]) -> bool:
    """True for the sequences reserved for evaluation (about 1 in ``HELDOUT_MODULUS``)."""
    return zlib.crc32(bytes(int(i) % 256 for i in sequence)) % HELDOUT_MODULUS == 0


def _draw(task: ToyTask, n: int, generator: torch.Generator | None) -> list[list[int]]:
    lengths = torch.randint(task.min_len, task.max_len + 1, (n,), generator=generator)
    return [
        (torch.randint(0, task.n_symbols, (int(length),), generator=generator) + FIRST_SYMBOL).tolist()
        for length in lengths
    ]


def random_sequences(
    task: ToyTask, n: int, generator: torch.Generator | None = None, split: Split | None = None
) -> list[list[int]]:
    """``n`` random symbol sequences with lengths uniform in [min_len, max_len]; with ``split``
    only training (not held-out) or only held-out sequences (see :func:`is_heldout`)."""
    if split is None:
        return _draw(task, n, generator)
    if split not in ("train", "heldout"):
        raise ValueError(f"split must be 'train' or 'heldout', not {split!r}")
    want = split == "heldout"
    out: list[list[int]] = []
    while len(out) < n:
        out.extend(s for s in _draw(task, 4 * n, generator) if is_heldout(s) == want)
    return out[:n]


def _pad(rows: Sequence[Sequence[int]]) -> Tensor:
    width = max(len(r) for r in rows)
    out = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(list(r), dtype=torch.long)
    return out


def make_batch(task: ToyTask, sequences: Sequence[Sequence[int]]) -> ToyBatch:
    """Pad ``sequences`` into a :class:`ToyBatch` with BOS/EOS around the task's targets."""
    targets = [task.target(s) for s in sequences]
    return ToyBatch(
        src=_pad(sequences),
        tgt_in=_pad([[BOS_ID] + t for t in targets]),
        tgt_out=_pad([t + [EOS_ID] for t in targets]),
    )


def batches(
    task: ToyTask,
    batch_size: int = 32,
    n_batches: int | None = None,
    seed: int | None = 0,
    split: Split | None = None,
) -> Iterator[ToyBatch]:
    """Random batches (endless when ``n_batches`` is None), reproducible from ``seed``;
    ``split`` as in :func:`random_sequences`."""
    gen = torch.Generator()
    if seed is None:
        gen.seed()
    else:
        gen.manual_seed(seed)
    i = 0
    while n_batches is None or i < n_batches:
        yield make_batch(task, random_sequences(task, batch_size, gen, split))
        i += 1


def lm_sequences(task: ToyTask, sequences: Sequence[Sequence[int]]) -> Tensor:
    """For a decoder-only LM: BOS + src + EOS + target + EOS per row, right-padded (B, T).

    Train with inputs ``x[:, :-1]`` and targets ``x[:, 1:]`` (PAD ignored); prompt with
    BOS + src + EOS and let the model continue.
    """
    return _pad([[BOS_ID] + list(s) + [EOS_ID] + task.target(s) + [EOS_ID] for s in sequences])
