"""WordPiece tokenization for the small BERT (Devlin et al. 2019, §3; Wu et al. 2016).

A word is split greedily, longest-match-first, into pieces of a learned vocabulary; pieces
that continue a word carry the ``##`` prefix ("unbelievable" → "un", "##believ", "##able").
The vocabulary is trained with the ``tokenizers`` library (BERT's normaliser: lowercase,
accents stripped, control characters dropped, CJK characters split; BERT's pre-tokenizer:
whitespace and punctuation). The World English Bible writes apostrophes as backticks
(``God`s``), so a ``Replace("`", "'")`` normaliser runs first.

An input pair is ``[CLS] A [SEP] B [SEP]`` with segment ids 0 for ``[CLS] A [SEP]`` and 1 for
``B [SEP]`` (§3.1, Fig. 2); too long pairs are truncated longest-first, as BERT does.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
from tokenizers import models as tokenizer_models

__all__ = [
    "SPECIAL_TOKENS", "PAD", "UNK", "CLS", "SEP", "MASK", "PAD_ID", "UNK_ID", "CLS_ID", "SEP_ID",
    "MASK_ID", "TOKENIZER_FILE", "EncodedPair", "WordPiece", "train_wordpiece",
]

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
#: The special tokens, in id order: [PAD] = 0, [UNK] = 1, [CLS] = 2, [SEP] = 3, [MASK] = 4.
SPECIAL_TOKENS: tuple[str, ...] = (PAD, UNK, CLS, SEP, MASK)
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = range(5)
TOKENIZER_FILE = "tokenizer.json"


@dataclass
class EncodedPair:
    """``[CLS] A [SEP] (B [SEP])`` as ids, pieces, segment ids and positions 0 … n−1.

    ``word_ids[i]`` is the index of the word (in its segment) that piece i belongs to, None for
    special tokens; ``dropped`` counts pieces cut by truncation.
    """

    ids: list[int]
    tokens: list[str]
    segment_ids: list[int]
    word_ids: list[int | None]
    dropped: int = 0
    n_unknown: int = 0
    special: list[bool] = field(default_factory=list)

    @property
    def positions(self) -> list[int]:
        return list(range(len(self.ids)))

    def __len__(self) -> int:
        return len(self.ids)


def _normalizer() -> normalizers.Normalizer:
    return normalizers.Sequence([
        normalizers.Replace("`", "'"),
        normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=True,
                                   lowercase=True),
    ])


def train_wordpiece(texts: Iterable[str], vocab_size: int = 6000, min_frequency: int = 2) -> WordPiece:
    """Learn a WordPiece vocabulary of at most ``vocab_size`` entries (specials first) from ``texts``."""
    tok = Tokenizer(tokenizer_models.WordPiece(unk_token=UNK, max_input_chars_per_word=100))
    tok.normalizer = _normalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=list(SPECIAL_TOKENS),
        continuing_subword_prefix="##", show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return WordPiece(tok)


class WordPiece:
    """A trained ``tokenizers.Tokenizer`` with BERT's pair encoding; specials have ids 0–4."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        for expected, tok in enumerate(SPECIAL_TOKENS):
            if tokenizer.token_to_id(tok) != expected:
                raise ValueError(f"tokenizer has {tok} at id {tokenizer.token_to_id(tok)}, expected {expected}")
        self._vocab: list[str] | None = None

    # -- files ---------------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | Path) -> WordPiece:
        return cls(Tokenizer.from_file(str(path)))

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        self.tokenizer.save(str(path))
        return path

    # -- vocabulary ----------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return self.tokenizer.get_vocab_size()

    @property
    def vocab(self) -> list[str]:
        """id → piece, for every id."""
        if self._vocab is None:
            inv = {i: t for t, i in self.tokenizer.get_vocab().items()}
            self._vocab = [inv.get(i, UNK) for i in range(self.vocab_size)]
        return self._vocab

    def id_to_token(self, i: int) -> str:
        return self.vocab[int(i)] if 0 <= int(i) < self.vocab_size else UNK

    def token_to_id(self, token: str) -> int:
        found = self.tokenizer.token_to_id(token)
        return UNK_ID if found is None else int(found)

    def convert_ids(self, ids: Sequence[int]) -> list[str]:
        return [self.id_to_token(i) for i in ids]

    # -- encoding ------------------------------------------------------------------------
    def pieces(self, text: str) -> tuple[list[int], list[int]]:
        """(ids, word index of each piece) of ``text`` without special tokens."""
        enc = self.tokenizer.encode(text or "", add_special_tokens=False)
        return list(enc.ids), [w if w is not None else 0 for w in enc.word_ids]

    def pieces_with_offsets(self, text: str) -> tuple[list[int], list[int | None], list[tuple[int, int]]]:
        """(ids, word index, (start, end) character span in ``text``) of every piece, no specials."""
        enc = self.tokenizer.encode(text or "", add_special_tokens=False)
        return list(enc.ids), list(enc.word_ids), [tuple(o) for o in enc.offsets]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """Piece ids of many texts at once (no special tokens)."""
        return [list(e.ids) for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def encode_pair(self, text_a: str, text_b: str | None = None, max_len: int = 64) -> EncodedPair:
        """``[CLS] A [SEP] (B [SEP])``, truncated longest-first to ``max_len`` pieces (§3.1)."""
        a, wa = self.pieces(text_a)
        b, wb = self.pieces(text_b) if text_b else ([], [])
        return self.assemble(a, b if text_b else None, max_len, wa, wb)

    def assemble(self, a: Sequence[int], b: Sequence[int] | None, max_len: int = 64,
                 words_a: Sequence[int] | None = None, words_b: Sequence[int] | None = None) -> EncodedPair:
        """Pack piece ids into ``[CLS] A [SEP] (B [SEP])`` of at most ``max_len``, longest-first."""
        a, b_list = list(a), list(b) if b is not None else []
        budget = max_len - (3 if b is not None else 2)
        if budget < 2:
            raise ValueError(f"max_len={max_len} leaves no room for text")
        dropped = 0
        while len(a) + len(b_list) > budget:
            if len(a) >= len(b_list):
                a.pop()
            else:
                b_list.pop()
            dropped += 1
        wa = list(words_a or range(len(a)))[: len(a)]
        wb = list(words_b or range(len(b_list)))[: len(b_list)]
        ids = [CLS_ID, *a, SEP_ID]
        segments = [0] * len(ids)
        word_ids: list[int | None] = [None, *wa, None]
        if b is not None:
            ids += [*b_list, SEP_ID]
            segments += [1] * (len(b_list) + 1)
            word_ids += [*wb, None]
        tokens = self.convert_ids(ids)
        special = [i in (CLS_ID, SEP_ID, PAD_ID) for i in ids]
        return EncodedPair(ids=ids, tokens=tokens, segment_ids=segments, word_ids=word_ids, dropped=dropped,
                           n_unknown=sum(i == UNK_ID for i in ids), special=special)
