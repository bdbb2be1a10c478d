"""Everyday English sentences written by SmolLM2-135M-Instruct (Apache-2.0) for this lab.

``corpora/data/smollm2_everyday.txt.gz`` is produced by ``python -m models.training.llm_sentences``
(its docstring says how: everyday topics, sampling, filters, the held-out evaluation sentences
removed). It is model-written text, not a human corpus: fluent and simple, sometimes odd.
"""

from __future__ import annotations

import gzip
from pathlib import Path

SENTENCES_FILE = Path(__file__).parent / "data" / "smollm2_everyday.txt.gz"
#: Everyday Chinese sentences written by Gemma 3 270M (Gemma Terms of Use): ``llm_sentences --lang zh``.
SENTENCES_FILE_ZH = Path(__file__).parent / "data" / "gemma3_everyday_zh.txt.gz"


def read_sentences(path: Path = SENTENCES_FILE) -> list[str]:
    """One sentence per line; [] when the file has not been produced."""
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]
