"""The one table of interface strings: id → (English, 中文), merged from one module per area so
that a page's strings sit together. Terms follow the glossary in :mod:`ui.i18n`."""

from __future__ import annotations

from ui.strings import common, scratch, seq2seq, positional, transformer, head, generation
from ui.strings import explain, masking, real_model, present, llm_explorer, quiz
from ui.strings import figures, messages, studio, transformer_xl, what_if
from ui.strings import slides, toolbar, xlnet
from ui.strings import at_scale, block
from ui.strings import explanations

_PARTS = (
    common,
    scratch,
    seq2seq,
    positional,
    transformer,
    head,
    generation,
    masking,
    real_model,
    present,
    llm_explorer,
    explain,
    quiz,
    studio,
    transformer_xl,
    what_if,
    figures,
    messages,
    slides,
    toolbar,
    xlnet,
    block,
    at_scale,
    explanations,
)


def _merge() -> dict[str, tuple[str, str]]:
    table: dict[str, tuple[str, str]] = {}
    for part in _PARTS:
        clash = table.keys() & part.STRINGS.keys()
        if clash:
            raise ValueError(f"string ids defined twice: {sorted(clash)}")
        table.update(part.STRINGS)
    return table


STRINGS: dict[str, tuple[str, str]] = _merge()
# ids whose English and 中文 are rightly the same text (names, symbols, bilingual labels)
SAME: frozenset[str] = frozenset().union(*(getattr(part, "SAME", ()) for part in _PARTS))
