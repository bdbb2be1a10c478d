"""Strings of the slides of the Real LLM, Transformer-XL and Training studio pages (ui/slides.py):
id → (English, 中文). The other slides' strings sit with the Present page's (present.py)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "slide.what.run": ("training run", "训练运行"),
    "slide.real.run": ("The model run", "模型运行"),
    "slide.llm.nothing": (
        "The model ended its answer at once: there is no new token to show.",
        "模型立即结束了回答：没有可显示的新词元。",
    ),
    "slide.txl.line": (
        "Segment {s} of {n}: {m} tokens in the memory, then {l} new tokens",
        "第 {s} / {n} 段：记忆中有 {m} 个词元，随后是 {l} 个新词元",
    ),
    "slide.studio.none": (
        "No training run is saved on this server yet: train one in the Training studio first.",
        "此服务器上还没有保存的训练运行：请先在“训练工作室”中训练一个。",
    ),
    "slide.studio.no_snapshots": (
        "This run saved no snapshots, so there is no attention to show.",
        "这次训练没有保存快照，因此没有可显示的注意力。",
    ),
}
