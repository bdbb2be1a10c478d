"""WordPiece tokenization for the small BERT (Devlin et al. 2019, §3; Wu et al. 2016).

A word is split greedily, longest-match-first, into pieces of a learned vocabulary; pieces
that continue a word carry the ``##`` prefix ("unbelievable" → "un", "##believ", "##able").
The vocabulary is trained with the ``tokenizers`` library (BERT's normaliser: lowercase,
accents stripped, control characters dropped, CJK characters split; BERT's pre-tokenizer:
whitespace and punctuation). The World English Bible writes apostrophes as backticks
(``God`s``), so a ``Replace("`", "'")`` normaliser runs first.

An input pair is ``[CLS] A [SEP] B [SEP]`` with segment ids 0 for ``[CLS] A [SEP]`` and 1 for
``B [SEP]`` (§3.1, Fig. 2); too long pairs are truncated longest-first, as BERT does.

The special pieces' ids are looked up in the vocabulary by name: a vocabulary trained here has
them at 0–4 (the module constants below), a released BERT vocabulary elsewhere (MiniLM's
``vocab.txt``: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103), which
:meth:`WordPiece.from_vocab` reads with BERT's own uncased normaliser.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpora.text import is_cjk
from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
from tokenizers import models as tokenizer_models

__all__ = [
    "SPECIAL_TOKENS",
    "PAD",
    "UNK",
    "CLS",
    "SEP",
    "MASK",
    "PAD_ID",
    "UNK_ID",
    "CLS_ID",
    "SEP_ID",
    "MASK_ID",
    "TOKENIZER_FILE",
    "EncodedPair",
    "WordPiece",
    "train_wordpiece",
]

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
#: The special tokens, in the id order of a vocabulary trained here: [PAD] = 0, [UNK] = 1, [CLS] = 2,
#: [SEP] = 3, [MASK] = 4 (another vocabulary may place them elsewhere: use a WordPiece's ``*_id``).
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


def _without_spaces_by_cjk(text: str) -> str:
    """``text`` without the spaces next to a CJK character or punctuation mark (:func:`corpora.text.is_cjk`:
    、。，！？： and the like) or a Chinese quotation mark “ ”."""

    def joins(ch: str) -> bool:
        return is_cjk(ch) or ch in "“”"

    return "".join(
        ch for i, ch in enumerate(text) if ch != " " or not (joins(text[i - 1 : i]) or joins(text[i + 1 : i + 2]))
    )


def _bert_normalizer() -> normalizers.Normalizer:
    """BERT's uncased normaliser: control characters dropped, CJK characters split, lowercase, accents stripped."""
    return normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=True, lowercase=True)


def _normalizer() -> normalizers.Normalizer:
    return normalizers.Sequence([normalizers.Replace("`", "'"), _bert_normalizer()])


def _tokenizer(model: tokenizer_models.Model, normalizer: normalizers.Normalizer) -> Tokenizer:
    """A WordPiece ``Tokenizer`` with BERT's pre-tokenizer (whitespace and punctuation) and ``##`` decoder."""
    tok = Tokenizer(model)
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def train_wordpiece(texts: Iterable[str], vocab_size: int = 6000, min_frequency: int = 2) -> WordPiece:
    """Learn a WordPiece vocabulary of at most ``vocab_size`` entries (specials first) from ``texts``."""
    tok = _tokenizer(tokenizer_models.WordPiece(unk_token=UNK, max_input_chars_per_word=100), _normalizer())
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=list(SPECIAL_TOKENS),
        continuing_subword_prefix="##",
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return WordPiece(tok)


class WordPiece:
    """A ``tokenizers.Tokenizer`` with BERT's pair encoding; the specials' ids (``pad_id``, ``unk_id``,
    ``cls_id``, ``sep_id``, ``mask_id``) are those of the five special pieces in its vocabulary."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        tokenizer.no_padding()  # a released tokenizer.json may pad or cut; pieces here are never padded
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        found = {tok: tokenizer.token_to_id(tok) for tok in SPECIAL_TOKENS}
        missing = [tok for tok, i in found.items() if i is None]
        if missing:
            raise ValueError(f"the vocabulary lacks the special pieces {', '.join(missing)}")
        self.pad_id, self.unk_id, self.cls_id, self.sep_id, self.mask_id = (
            int(i) for i in found.values() if i is not None
        )  # in SPECIAL_TOKENS order, none missing
        self._vocab: list[str] | None = None

    # -- files ---------------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | Path) -> WordPiece:
        """A ``tokenizer.json`` (this project's, or a released BERT's)."""
        return cls(Tokenizer.from_file(str(path)))

    @classmethod
    def from_vocab(cls, path: str | Path) -> WordPiece:
        """A released uncased BERT's ``vocab.txt`` (one piece a line, id = line number) with BERT's
        normaliser and pre-tokenizer, as its own tokenizer encodes (Devlin et al. 2019, §A.2)."""
        vocab = tokenizer_models.WordPiece.read_file(str(path))
        tok = _tokenizer(
            tokenizer_models.WordPiece(vocab, unk_token=UNK, max_input_chars_per_word=100), _bert_normalizer()
        )
        tok.add_special_tokens(list(SPECIAL_TOKENS))  # "[MASK]" typed in a text is the [MASK] piece
        return cls(tok)

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
        return self.unk_id if found is None else int(found)

    def convert_ids(self, ids: Sequence[int]) -> list[str]:
        return [self.id_to_token(i) for i in ids]

    def decode(self, ids: Sequence[int]) -> str:
        """Text of piece ids: ``##`` pieces joined to their word, special pieces left out, and no space beside a
        CJK character or Chinese punctuation (BERT reads each as a word; Chinese is written without spaces)."""
        text = self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=True)
        return _without_spaces_by_cjk(text)

    # -- encoding ------------------------------------------------------------------------
    def pieces(self, text: str) -> tuple[list[int], list[int]]:
        """(ids, word index of each piece) of ``text`` without special tokens."""
        enc = self.tokenizer.encode(text or "", add_special_tokens=False)
        return list(enc.ids), [w if w is not None else 0 for w in enc.word_ids]

    def pieces_with_offsets(self, text: str) -> tuple[list[int], list[int | None], list[tuple[int, int]]]:
        """(ids, word index, (start, end) character span in ``text``) of every piece, no specials."""
        enc = self.tokenizer.encode(text or "", add_special_tokens=False)
        return list(enc.ids), list(enc.word_ids), [(start, end) for start, end in enc.offsets]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """Piece ids of many texts at once (no special tokens)."""
        return [list(e.ids) for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def encode_pair(self, text_a: str, text_b: str | None = None, max_len: int = 64) -> EncodedPair:
        """``[CLS] A [SEP] (B [SEP])``, truncated longest-first to ``max_len`` pieces (§3.1)."""
        a, wa = self.pieces(text_a)
        b, wb = self.pieces(text_b) if text_b else ([], [])
        return self.assemble(a, b if text_b else None, max_len, wa, wb)

    def assemble(
        self,
        a: Sequence[int],
        b: Sequence[int] | None,
        max_len: int = 64,
        words_a: Sequence[int] | None = None,
        words_b: Sequence[int] | None = None,
    ) -> EncodedPair:
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
        ids = [self.cls_id, *a, self.sep_id]
        segments = [0] * len(ids)
        word_ids: list[int | None] = [None, *wa, None]
        if b is not None:
            ids += [*b_list, self.sep_id]
            segments += [1] * (len(b_list) + 1)
            word_ids += [*wb, None]
        tokens = self.convert_ids(ids)
        special = [i in (self.cls_id, self.sep_id, self.pad_id) for i in ids]
        return EncodedPair(
            ids=ids,
            tokens=tokens,
            segment_ids=segments,
            word_ids=word_ids,
            dropped=dropped,
            n_unknown=sum(i == self.unk_id for i in ids),
            special=special,
        )
