"""Token strips and user text: tokens as chips, user text escaped (never interpreted as HTML or
Markdown)."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import streamlit as st

from ui.i18n import tr
from ui.strings import STRINGS
from viz_core.style import HIGHLIGHT

_CHIP = (
    "display:inline-block;margin:3px 4px;padding:4px 10px;border-radius:8px;font-size:1.25rem;"
    "font-family:ui-monospace,monospace;border:2px solid {border};background:{bg};color:#111"
)


def token_strip(
    tokens: Sequence[str],
    unknown: Sequence[bool] | None = None,
    highlight: int | None = None,
    caption: str | None = None,
) -> None:
    """Show tokens as chips: unknown ones red and marked ⚠, ``highlight`` outlined in orange."""
    flags = unknown if unknown is not None else [False] * len(tokens)
    chips = []
    for i, (tok, unk) in enumerate(zip(tokens, flags)):
        border = HIGHLIGHT if i == highlight else "#c62828" if unk else "#9aa7b8"
        bg = "#ffebee" if unk else "#fff3e0" if i == highlight else "#f4f6f9"
        text = html.escape(tok) + (" ⚠" if unk else "")
        title = f' title="{html.escape(tr("tokens.unknown_title"))}"' if unk else ""
        chips.append(f'<span style="{_CHIP.format(border=border, bg=bg)}"{title}>{text}</span>')
    if caption:
        st.caption(caption)
    st.html(f'<div style="line-height:2.4">{"".join(chips)}</div>')


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:])")


def md_escape(text: str) -> str:
    """Backslash-escape markdown so user text shows as typed in widget labels, markdown and alerts."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


#: A training-data description (a checkpoint's config.json "data") → its string id ("data.…").
_DATA = {en: key for key, (en, _) in STRINGS.items() if key.startswith("data.")}


def model_text(key: str, fields: Mapping[str, object], english: str) -> str:
    """A message from models/ in the reader's language: the string ``key`` with ``fields`` (a known
    training-data description among them in that language too), else its own ``english`` text."""
    if not key:
        return english
    data = fields.get("data")
    if isinstance(data, str) and data in _DATA:
        fields = {**fields, "data": tr(_DATA[data])}
    return tr(key, **fields)


def input_error(exc: Exception) -> str:
    """Why the input or model cannot be used (a models.errors.KeyedError: InputError, ModelAccessError,
    LLMError …: its string id and fields), in the reader's language, escaped for st.warning/st.error
    (it quotes user words); any other exception as its English text."""
    return md_escape(model_text(getattr(exc, "key", ""), getattr(exc, "params", {}), str(exc)))


def show_notices(notices: Sequence) -> None:
    """A translation's notices (models.inference.notices) next to its output: warnings as alerts,
    the rest as captions, in the reader's language where the notice carries a string id; their
    text quotes user words, so it is escaped, never markdown."""
    for notice in notices:
        text = model_text(notice.key, notice.args, notice.text)
        if notice.level == "warning":
            st.warning(md_escape(text), icon="⚠️")
        else:
            st.caption(md_escape(text))
