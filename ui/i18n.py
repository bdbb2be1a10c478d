"""Interface language: every visible string comes from one table of English and 中文 strings keyed
by id (``ui/strings/``), the field's established Chinese terms sit in one glossary (:data:`GLOSSARY`),
and the language is a URL parameter (``?lang=en|zh``).

The language of a run (:func:`current`):
the link's ``?lang=`` when it names a language, else the choice made earlier in this session, else
the browser's locale (``st.context.locale``, ``navigator.language``: ``zh-…`` gives 中文), else
English. A choice that differs from the browser's own is written back to the URL, so a shared link
opens in the same language.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

import streamlit as st

from ui.strings import STRINGS
from viz_core.texts import TEXTS as FIGURE_TEXTS

LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}
DEFAULT = "en"
PARAM = "lang"  # the URL parameter
_STATE = "_lang"  # the session's language (a plain state key, kept across page switches)
_WIDGET = "lang_switch"
R = TypeVar("R")


@dataclass(frozen=True)
class Term:
    """One glossary entry: the English term, its established Chinese rendering, and variants a zh
    string must not use. ``required``: a zh string whose English contains the term uses ``zh``."""

    en: str
    zh: str
    avoid: tuple[str, ...] = ()
    required: bool = True


# The field's established Chinese terms (as in the Chinese editions of the attention literature,
# e.g. 《动手学深度学习》), reviewed in one place. tests/test_i18n.py checks every zh string against it.
GLOSSARY: tuple[Term, ...] = (
    Term("attention weight", "注意力权重", ("注意权重", "关注权重", "注意力权值")),
    Term("multi-head attention", "多头注意力", ("多头关注", "多头注意机制")),
    Term("self-attention", "自注意力", ("自我注意力", "自关注")),
    Term("cross-attention", "交叉注意力", ("互注意力", "交互注意力")),
    Term("attention", "注意力", ("关注度", "注意机制")),
    Term("query", "查询", ("询问向量", "问询")),
    Term("key", "键", ("关键字向量", "钥匙"), required=False),
    Term("value", "值", ("价值向量",), required=False),
    Term("mask", "掩码", ("遮罩", "屏蔽码", "蒙版", "遮掩")),
    Term("positional encoding", "位置编码", ("位置编碼", "位置码")),
    Term("beam search", "束搜索", ("集束搜索", "波束搜索", "光束搜索")),
    Term("encoder", "编码器", ("编码机",)),
    Term("decoder", "解码器", ("解码机", "译码器")),
    Term("token", "词元", ("令牌", "符元", "标记词")),
    Term("context vector", "上下文向量", ("语境向量", "背景向量")),
    Term("alignment", "对齐", ("校准",)),
    Term("perplexity", "困惑度", ("混淆度", "迷惑度")),
    Term("temperature", "温度", ("温度系数",), required=False),
    Term("masked language model", "掩码语言模型", ("遮蔽语言模型", "屏蔽语言模型")),
    Term("embedding", "嵌入", ("嵌入式", "埋入")),
    Term("kernel regression", "核回归", ("内核回归",)),
    Term("scaled dot-product", "缩放点积", ("比例点积", "缩放的点乘")),
    Term("vocabulary", "词表", ("词汇表", "字典表")),
    Term("greedy", "贪心", ("贪婪",)),
    Term("length penalty", "长度惩罚", ("长度罚分",)),
    Term("language model", "语言模型", ("語言模型",)),
    Term("head", "头", ("头部",), required=False),
    Term("layer", "层", ("层级",), required=False),
    Term("score function", "评分函数", ("打分函数", "得分函数")),
)


_READING: ContextVar[str | None] = ContextVar("reading_language", default=None)


@contextmanager
def reading(lang: str) -> Iterator[None]:
    """Inside the block, strings and labels are looked up in ``lang``: to read a link or a saved
    view (ui.slides) whose URL values are labels written in another language."""
    token = _READING.set(lang)
    try:
        yield
    finally:
        _READING.reset(token)


def current() -> str:
    """The language of this run: the link's ``?lang=`` when it names one, else this session's
    choice, else the browser's (read on every call, so a page may translate before its frame);
    inside :func:`reading`, that block's language."""
    if (lang := _READING.get()) is not None:
        return lang
    raw = st.query_params.get(PARAM)
    if raw in LANGUAGES:
        return raw
    chosen = st.session_state.get(_STATE)  # any value may sit there (a stale session, code): only a language counts
    return chosen if isinstance(chosen, str) and chosen in LANGUAGES else browser_default()


def text(key: str, lang: str) -> str:
    """The raw table entry ``key`` in ``lang`` (KeyError for an unknown id: a bug, never hidden)."""
    en, zh = STRINGS[key]
    return zh if lang == "zh" else en


def tr(key: str, **fmt: object) -> str:
    """The string ``key`` in the current language, ``str.format``-ed with ``fmt`` when given."""
    s = text(key, current())
    return s.format(**fmt) if fmt else s


def figure_texts() -> Mapping[str, str]:
    """The words figures draw (viz_core.texts ids) in the current language: the ``texts`` argument
    of viz_core's builders."""
    return _figure_texts(current())


@functools.cache
def _figure_texts(lang: str) -> Mapping[str, str]:
    return MappingProxyType({key: text(f"fig.{key}", lang) for key in FIGURE_TEXTS})


def spinning(key: str) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Decorator: the string ``key`` as a spinner while the wrapped call runs. A cached function's own
    ``show_spinner`` text is fixed when its module loads, so it cannot follow the language: cache
    with ``show_spinner=False`` over this instead (``@st.cache_data(...)`` above ``@spinning(...)``),
    so that the spinner runs only when the cache misses. Around a cache hit, st.spinner would still
    start a timer thread and send a message to clear itself: about 1 ms of a step, and a redraw."""

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def run(*args: object, **kwargs: object) -> R:
            with st.spinner(tr(key)):
                return fn(*args, **kwargs)

        return run

    return decorate


class Labels(Mapping[str, str]):
    """A constant option → label mapping (for ``format_func=LABELS.get``) whose labels are string
    ids, looked up in the reader's language on every access: a module-level constant that is
    translated on each run."""

    def __init__(self, ids: Mapping[str, str]) -> None:
        self._ids = dict(ids)

    def __getitem__(self, option: str) -> str:
        return tr(self._ids[option])

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def browser_default() -> str:
    """中文 when the browser's ``navigator.language`` is Chinese, else English."""
    try:
        locale = st.context.locale or ""
    except Exception:  # noqa: BLE001  (no browser behind this run, e.g. a script test)
        locale = ""
    return "zh" if locale.lower().startswith("zh") else DEFAULT


def resolve() -> str | None:
    """Decide this run's language (see the module docstring). Returns the link's ``?lang=`` value
    when it names no language (the frame says so), else None."""
    raw = st.query_params.get(PARAM)
    default = browser_default()
    lang = current()
    st.session_state[_STATE] = lang
    if raw is not None and raw not in LANGUAGES:
        del st.query_params[PARAM]  # said once by the frame, then gone from the address bar
    if lang != default and raw != lang:
        st.query_params[PARAM] = lang
    return raw if raw is not None and raw not in LANGUAGES else None


def _switched() -> None:
    lang = st.session_state[_WIDGET]
    st.session_state[_STATE] = lang
    st.query_params[PARAM] = lang


def language_switch() -> None:
    """The sidebar's English | 中文 switch; a change is kept in the session and in the URL."""
    st.session_state[_WIDGET] = current()
    st.segmented_control(
        tr("lang.switch"), list(LANGUAGES), format_func=LANGUAGES.get, required=True, key=_WIDGET, on_change=_switched
    )
