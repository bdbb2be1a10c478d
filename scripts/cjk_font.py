"""Build static/fonts/lab-cjk.woff: Noto Sans CJK SC (SIL OFL 1.1, Debian fonts-noto-cjk) cut down to
the Chinese characters of the interface's string table (ui/strings), of the shipped Chinese models'
vocabularies (the HSK translation models' source words) and CJK punctuation, so that a browser
without Chinese fonts still draws the 中文 interface and its figures, offline.

The app serves it as a static file (.streamlit/config.toml: server.enableStaticServing) and names it
in an @font-face rule limited by unicode-range to CJK code points (ui/frame.py), so browsers that
show no Chinese never download it. Run again after adding 中文 strings or training a Chinese model
(tests/test_i18n.py checks that the font covers the table, tests/test_real_translation.py the models):

    apt-get install fonts-noto-cjk && pip install fonttools && python scripts/cjk_font.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ui.strings import STRINGS  # noqa: E402

SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
OUT = ROOT / "static" / "fonts" / "lab-cjk.woff"
FAMILY = "Lab CJK"
# The @font-face unicode-range (ui/frame.py) and the characters the font must hold: CJK punctuation,
# ideographs, full-width forms.
RANGES = ((0x3000, 0x303F), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF))


def is_cjk(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in RANGES)


def model_characters() -> set[str]:
    """The CJK characters of the shipped models that read Chinese (training "src_lang" "zh", e.g.
    s2s-hsk-bahdanau): their source words are the tick labels of the seq2seq page's figures."""
    chars: set[str] = set()
    for config in sorted((ROOT / "checkpoints").glob("*/config.json")):
        try:
            if json.loads(config.read_text(encoding="utf-8")).get("training", {}).get("src_lang") != "zh":
                continue
            words = json.loads((config.parent / "vocab.json").read_text(encoding="utf-8"))["src"]
        except (OSError, ValueError, KeyError):
            continue
        chars |= {ch for word in words for ch in word if is_cjk(ch)}
    return chars


def needed() -> set[str]:
    """Every CJK character of the 中文 strings and of the shipped Chinese models' vocabularies, plus
    all CJK punctuation and full-width forms."""
    chars = {ch for _, zh in STRINGS.values() for ch in zh if is_cjk(ch)} | model_characters()
    return chars | {chr(c) for lo, hi in ((0x3000, 0x303F), (0xFF00, 0xFFEF)) for c in range(lo, hi + 1)}


def simplified_chinese_face() -> int:
    """The index of Noto Sans CJK SC in the collection."""
    for i, font in enumerate(TTCollection(str(SOURCE)).fonts):
        if "SC" in font["name"].getDebugName(1).split():
            return i
    raise SystemExit(f"no Noto Sans CJK SC face in {SOURCE}")


def main() -> None:
    options = subset.Options()
    options.flavor = "woff"  # zlib-compressed; woff2 would need brotli
    options.font_number = simplified_chinese_face()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the copyright and OFL licence records
    options.notdef_outline = True
    font = subset.load_font(str(SOURCE), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in needed()])
    subsetter.subset(font)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(OUT), options)
    print(f"{OUT.relative_to(ROOT)}: {len(needed())} characters, {OUT.stat().st_size / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
