"""Labels for figures: user text shown as text, never interpreted as markup."""

from __future__ import annotations

import html
from collections.abc import Sequence

UNKNOWN_MARK = " ⚠"


def safe_label(text: str, limit: int = 40) -> str:
    """``text`` escaped for plotly's HTML-like labels (``<b>`` shows as typed), cut to ``limit``."""
    text = "".join(ch if ch.isprintable() else "�" for ch in str(text))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=False)


def token_labels(tokens: Sequence[str], unknown: Sequence[bool] | None = None) -> list[str]:
    """Escaped token labels; tokens outside the model's vocabulary get a warning mark."""
    flags = unknown if unknown is not None else [False] * len(tokens)
    return [safe_label(t) + (UNKNOWN_MARK if u else "") for t, u in zip(tokens, flags)]
