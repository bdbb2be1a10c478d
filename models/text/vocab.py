"""Token vocabularies with the special symbols every model here shares."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

PAD, UNK, SOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
SPECIALS = (PAD, UNK, SOS, EOS)
PAD_ID, UNK_ID, SOS_ID, EOS_ID = range(4)


@dataclass
class Vocab:
    """A token ↔ id map; ids 0–3 are <pad>, <unk>, <s>, </s>."""

    itos: list[str]
    stoi: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if tuple(self.itos[:4]) != SPECIALS:
            raise ValueError(f"a vocabulary must start with {SPECIALS}")
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]], min_freq: int = 1) -> Vocab:
        """All tokens seen at least ``min_freq`` times, most frequent first (ties alphabetical)."""
        counts = Counter(t for s in sentences for t in s)
        tokens = sorted(
            (t for t, c in counts.items() if c >= min_freq and t not in SPECIALS), key=lambda t: (-counts[t], t)
        )
        return cls(list(SPECIALS) + tokens)

    def capped(self, cap: int) -> tuple[Vocab, tuple[int, int]]:
        """Its ``cap`` first entries (the specials, then the most frequent words) and (words kept, words
        seen): a file of a million distinct words trains a model of ``cap``, the rest read as <unk>."""
        kept = Vocab(self.itos[:cap])
        return kept, (len(kept.itos) - len(SPECIALS), len(self.itos) - len(SPECIALS))

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.stoi.get(t, UNK_ID) for t in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.itos[i] for i in ids]


def encode_source(stoi: dict[str, int], tokens: Sequence[str], limit: int) -> list[int]:
    """Source ids as a translation model reads them: the first ``limit`` tokens (unknown → <unk>) + </s>."""
    unk = stoi[UNK]
    return [stoi.get(t, unk) for t in list(tokens)[:limit]] + [stoi[EOS]]
