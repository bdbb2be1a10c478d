"""Spinners and server messages shared by the pages (ui.i18n.spinning, ui/work_queue.py): id → (English, 中文)."""
from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "spin.model": ("Loading model …", "正在加载模型 …"),
    "spin.tf_en_fr": ("Loading tf-en-fr …", "正在加载 tf-en-fr …"),
    "spin.bert": ("Loading the small BERT …", "正在加载小型 BERT …"),
    "spin.translate": ("Translating …", "正在翻译 …"),
    "spin.what_if": ("Decoding the what-if …", "正在解码假设情形 …"),
    "spin.generate": ("Generating …", "正在生成 …"),
    "spin.compute": ("Computing …", "正在计算 …"),
    "spin.ablation": ("Decoding with the head switched off …", "正在关闭这个头后解码 …"),
    "spin.pairs": ("Drawing sentence pairs …", "正在抽取句对 …"),
    "spin.run": ("Running the model …", "正在运行模型 …"),
    "queue.waiting": ("{what}: waiting: {ahead} ahead (one heavy request runs at a time on this server).",
                      "{what}：排队中，前面还有 {ahead} 个（本服务器一次只运行一个繁重请求）。"),
    "queue.full": ("{what}: the server is busy with other heavy requests ({waiting} already waiting). Try again in a "
                   "minute.", "{what}：服务器正忙于其他繁重请求（已有 {waiting} 个在等待）。请一分钟后再试。"),
}

SAME: frozenset[str] = frozenset()
