"""Every figure speaks the chosen language: in 中文, no figure of any view draws an English text of
the string table (ui/strings' English values, viz_core.texts' English words), neither on the pages
(every page, every tab and a few other views, AppTest) nor on the Present page's slides (every page's
slide, and its other views).

A figure's words are read from its plotly JSON wherever the browser shows them: titles, axis and
colour-bar titles, annotations, legend names, hover templates and hover texts, tick texts and
categories. An English text counts when it is found verbatim: a table entry is cut at its format
fields (``{…}``, plotly's ``%{…}``) and tags into pieces, and each piece with an English word in it
is looked for (whole words). Pieces that the 中文 keeps where the English has them (a name such as
"BLEU") and entries that are rightly the same in both languages (``SAME``) are not English evidence;
nor is a trace name that is never shown (no legend entry, no name beside its hover). Tokens of
the model's own text are not interface strings: categories and tick texts count only where the
whole label is a table text. Every offender is listed at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_i18n import MATH
from tests.test_llm import tiny  # noqa: F401  (the fixture: a tiny random Llama)
from ui.strings import SAME, STRINGS

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

PRESENT = str(ROOT / "pages" / "12_Present.py")

_FIELD = re.compile(r"%\{\{[^{}]*\}\}|%\{[^{}]*\}|\{[^{}]*\}|<[^>]*>|\n")  # format fields, plotly fields, tags
_WORD = re.compile(r"[A-Za-z][a-z]{2,}")  # an English word (not a symbol such as d_k or W_Q)
TEXT_KEYS = {"text", "name", "hovertemplate", "hovertext", "texttemplate", "title", "label", "prefix", "suffix"}
# Labels that may be tokens of the model's text: English only where the whole label is a table text.
CATEGORY_KEYS = {"x", "y", "ticktext", "customdata", "labels", "values"}


def _words(s: str) -> list[str]:
    return [w for w in _WORD.findall(s) if w.lower() not in MATH]


STOP = {
    "the",
    "and",
    "has",
    "not",
    "all",
    "from",
    "over",
    "about",
    "after",
    "among",
    "what",
    "why",
    "your",
    "this",
    "that",
    "with",
    "for",
    "are",
    "was",
    "its",
    "one",
    "per",
    "each",
    "into",
    "than",
    "then",
}  # too generic alone


def _trim(piece: str) -> str:
    """``piece`` without the spaces, punctuation and symbols around its words (brackets kept)."""
    return re.sub(r"^[^A-Za-z0-9(\[]+|[^A-Za-z0-9)\]%!?]+$", "", piece)


@cache
def english_pieces() -> dict[str, str]:
    """Piece of English → the id of a table entry it comes from: every entry whose 中文 differs (not
    in SAME), cut at its fields and tags. Left out: pieces without an English word or of generic
    words only, and pieces that the 中文 keeps where the English has them, other than as a gloss in
    brackets (names such as "BLEU", or "dot" in "Luong dot（点积）")."""
    pieces: dict[str, str] = {}
    for key, (en, zh) in sorted(STRINGS.items()):
        if key in SAME or en == zh:
            continue
        for piece in map(_trim, _FIELD.split(en)):
            words = _words(piece)
            if words and not all(w.lower() in STOP for w in words):
                pieces.setdefault(piece, key)
    gloss = re.compile(r"（[^（）]*）|\([^()]*\)")  # "前瞻掩码（look-ahead mask）": the English as a gloss
    both = [(_FIELD.sub(" ", en), gloss.sub(" ", _FIELD.sub(" ", zh))) for en, zh in STRINGS.values()]
    by_word: dict[str, set[int]] = {}  # a word of a 中文 text → the entries whose 中文 has it
    for i, (_, zh) in enumerate(both):
        for w in _words(zh):
            by_word.setdefault(w, set()).add(i)
    kept = {
        piece
        for piece in pieces
        if any(
            _found(piece, both[i][1]) and _found(piece, both[i][0])
            for i in set.intersection(*(by_word.get(w, set()) for w in _words(piece)))
        )
    }
    return {piece: key for piece, key in pieces.items() if piece not in kept}


def _found(piece: str, text: str) -> bool:
    """``piece`` in ``text`` as whole words (not "key" inside "monkey", nor "model" in "d_model")."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(piece)}(?![A-Za-z0-9_])", text) is not None


@cache
def _by_word() -> dict[str, list[str]]:
    """The pieces indexed by their longest word, to look only at pieces whose word a text has."""
    index: dict[str, list[str]] = {}
    for piece in english_pieces():
        index.setdefault(max(_words(piece), key=len), []).append(piece)
    return index


def english_in(text: str) -> list[str]:
    """The table's English pieces found in ``text`` (whole words), longest first, none inside another."""
    plain = re.sub(r"<[^>]*>", " ", text)
    found = sorted(
        {p for w in set(_words(plain)) for p in _by_word().get(w, ()) if _found(p, plain)}, key=len, reverse=True
    )
    return [p for i, p in enumerate(found) if not any(_found(p, q) for q in found[:i])]


def _strings(node: object, path: str, key: str = "") -> Iterator[tuple[str, str, str]]:
    """(path, key, string) of every string of a figure's JSON part under a text or category key."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "template":  # plotly's theme: no words
                yield from _strings(v, f"{path}.{k}", k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, f"{path}[{i}]", key)
    elif isinstance(node, str) and key in TEXT_KEYS | CATEGORY_KEYS:
        yield path, key, node


NO_LEGEND = {"heatmap", "image", "contour", "histogram2d", "table", "surface"}  # plotly's showlegend=False types


def _name_shown(trace: dict, layout: dict) -> bool:
    """Whether a trace's name is seen: in the legend, or beside its hover label (plotly adds it
    unless the hover template ends it with ``<extra></extra>``)."""
    if trace.get("type") == "image":
        return False
    legend = layout.get("showlegend") is not False and trace.get("showlegend", trace.get("type") not in NO_LEGEND)
    templates = trace.get("hovertemplate")
    templates = templates if isinstance(templates, list) else [templates]
    if any(isinstance(h, str) for h in templates):  # a template: the name unless it ends in <extra></extra>
        hover = not all(isinstance(h, str) and "<extra></extra>" in h for h in templates)
    else:  # hoverinfo's flags ("x+y+text"; plotly's default "all")
        info = trace.get("hoverinfo", "all")
        hover = info == "all" or "name" in info.split("+")
    return bool(legend or hover)


def figure_strings(spec: dict) -> Iterator[tuple[str, str, str]]:
    """(path, key, string) of every word a figure shows: its layout's, and its traces' (a trace's
    name only where it is shown)."""
    layout = spec.get("layout", {})
    yield from _strings(layout, ".layout")
    for i, trace in enumerate(spec.get("data", [])):
        shown = _name_shown(trace, layout)
        yield from (s for s in _strings(trace, f".data[{i}]") if s[1] != "name" or shown)


@dataclass(frozen=True)
class Offender:
    where: str  #: the view and the figure's JSON path
    piece: str  #: the English found
    key: str  #: the string id it comes from
    text: str  #: the figure's text it was found in

    def __str__(self) -> str:
        return f"{self.where}: {self.piece!r} ({self.key}) in {self.text[:100]!r}"


def offenders(spec: dict, where: str) -> list[Offender]:
    """The English of the string table that the figure ``spec`` draws. A piece that is itself one
    of the figure's categories or tick texts (a token of the model's text, "key" in a sentence about
    keys) counts only as that label, not inside a hover text that quotes it."""
    pieces, out, seen = english_pieces(), [], set()
    strings = list(figure_strings(spec))
    labels = {_trim(re.sub(r"<[^>]*>", "", text)) for _, key, text in strings if key in CATEGORY_KEYS}
    for path, key, text in strings:
        if key in CATEGORY_KEYS:
            label = _trim(re.sub(r"<[^>]*>", "", text))
            found = [label] if label in pieces else []
        else:
            found = [piece for piece in english_in(text) if piece not in labels]
        for piece in found:
            short = re.sub(r"\[\d+\]", "[]", path)  # one line per field of the figure, not per point
            if (short, piece) not in seen:
                seen.add((short, piece))
                out.append(Offender(f"{where}{short}", piece, pieces[piece], text))
    return out


def _figures(at: AppTest) -> list[tuple[str, dict]]:
    return [(chart.key or str(i), chart.figure) for i, chart in enumerate(charts(at))]


def _report(found: list[Offender]) -> str:
    return f"{len(found)} English texts in 中文 figures:\n" + "\n".join(map(str, found))


# ---------------------------------------------------------------------------------------------
# The check itself
# ---------------------------------------------------------------------------------------------


def _spec(fig) -> dict:
    return json.loads(fig.to_json())


def test_the_check_finds_english_and_lets_chinese_and_tokens_pass() -> None:
    from ui.i18n import _figure_texts
    from viz_core.transformer import attention_matrix_figure

    weights, keys, queries = np.array([[0.5, 0.5]]), ["the", "monkey"], ["dog"]
    found = {o.piece for o in offenders(_spec(attention_matrix_figure(weights, keys, queries)), "en")}
    assert {"key (attended to)", "query (attending)", "weight"} <= found, found
    chinese = attention_matrix_figure(weights, keys, queries, texts=_figure_texts("zh"))
    assert offenders(_spec(chinese), "zh") == []
    assert english_in("第 2 层 · ③ softmax → weights, + mask") == ["softmax → weights", "mask"]
    assert english_in("BLEU 3.5 · the monkey") == []  # a name the 中文 keeps; "key" inside a word; "the"


def test_the_installed_models_label_comes_from_the_table() -> None:
    """The real-model explorer names its installed model (above its figures, on its slide, in its
    export) with the table's words: the same English as models.inference.hf_adapter's, and a 中文."""
    from models.inference.hf_adapter import DEFAULT_MODEL_LABEL

    assert STRINGS["real_model.installed_label"][0] == DEFAULT_MODEL_LABEL


# ---------------------------------------------------------------------------------------------
# (a) The Present page: one slide per page, drawn in 中文
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def one_run(tmp_path_factory) -> Iterator[Path]:
    """The Training studio's runs folder with one finished tiny run (tests/test_runs.TINY)."""
    from models.runs.registry import Registry
    from models.training.runs import FINISHED, RUNS_ENV
    from tests.test_runs import TINY, wait

    root = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(RUNS_ENV, str(root))
        registry = Registry(root, max_active=1)
        assert wait(registry, registry.start(TINY)).status == FINISHED
        yield root


@pytest.fixture(scope="module")
def tiny_llm(tiny) -> Iterator[object]:  # noqa: F811
    """The Real LLM's model replaced by test_llm's tiny random Llama (as tests/test_present_page does)."""
    from models.inference import llm as L
    from ui import llm as page_llm

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(L, "gguf_path", lambda *args, **kwargs: ROOT / "tiny.gguf")
        mp.setattr(L, "is_converted", lambda *args, **kwargs: True)
        mp.setattr(L, "load_llm", lambda *args, **kwargs: tiny)
        for cached in (page_llm.shared_llm, page_llm.generation, page_llm.few_shot_translation):
            cached.clear()
        yield tiny
    for cached in (page_llm.shared_llm, page_llm.generation, page_llm.few_shot_translation):
        cached.clear()


def _slides() -> list[tuple[str, dict[str, str]]]:
    """(page, params): every page's slide with its default values, and the other views a slide draws."""
    from ui.i18n import text
    from ui.slides import RENDERERS

    return [(page, {}) for page in RENDERERS] + [
        ("2_Seq2seq_attention", {"s2s_model": "s2s-luong-local-p", "s2s_beam": "3"}),  # p_t on the map
        ("2_Seq2seq_attention", {"s2s_model": "s2s-none"}),  # its top-k bars instead
        ("2_Seq2seq_attention", {"s2s_compare": "s2s-luong-dot"}),  # the comparison pane: two maps
        ("3_Positional_encoding", {"topic": text("positional.tab.rotation", "zh")}),
        ("4_Transformer_translation", {"tf_kind": "encoder"}),
        ("4_Transformer_translation", {"tf_kind": "decoder"}),
        ("5_Inside_one_head", {"head_scale": "false"}),
        ("8_Real_model_explorer", {"real_source": "decoder"}),
        ("9_LLM_explorer", {"topic": "translate", "llm_tr_dir": "en-fr"}),
        ("7_BERT_masking", {"topic": "finetune", "bert_ft_model": "small", "bert_ft_task": "nli"}),
        ("4_Transformer_translation", {"topic": "exposure", "tf_model": "tf-hsk", "tf_exp_index": "0"}),
        ("4_Transformer_translation", {"topic": "smoothing"}),
        ("2_Seq2seq_attention", {"topic": "exposure", "exp_model": "s2s-forcing-1.0", "exp_index": "3"}),
    ]


@pytest.mark.slow
def test_every_slide_draws_only_chinese_words(tiny_llm, one_run) -> None:
    from ui.deck import Deck, Slide

    slides = _slides()
    at = AppTest.from_file(PRESENT, default_timeout=APPTEST_TIMEOUT)
    at.session_state["deck_uploaded"] = Deck("zh", tuple(Slide(page, params) for page, params in slides))
    at.query_params.update(deck="upload", lang="zh")
    found: list[Offender] = []
    drawn = []
    for number, (page, params) in enumerate(slides, start=1):
        at.query_params["slide"] = str(number)
        at.query_params.pop("step", None)
        at.run()
        figures = _figures(at)
        refused = [c.value for c in at.caption if "不可用" in c.value or "请在页面中查看" in c.value]
        drawn.append(
            (page, params, len(figures), [e.value for e in at.exception] + [w.value for w in at.warning] + refused)
        )
        for _, spec in figures:
            found += offenders(spec, f"slide {page} {params or ''} ")
    # each slide drew its view, every value taken
    assert all(n >= 1 and not notes for _, _, n, notes in drawn), [d for d in drawn if d[2] < 1 or d[3]]
    assert not found, _report(found)


# ---------------------------------------------------------------------------------------------
# (b) Every page, every tab, in 中文
# ---------------------------------------------------------------------------------------------

PAGES = sorted(p.name for p in (ROOT / "pages").glob("[0-9]*_*.py") if p.name != "12_Present.py")
TAB_IDS: dict[str, tuple[str, ...]] = {
    "1_Attention_from_scratch.py": tuple(
        f"scratch.tab.{n}" for n in ("kr", "scores", "shl", "sandbox", "why", "complexity")
    ),
    "3_Positional_encoding.py": tuple(
        f"positional.tab.{n}" for n in ("sinusoids", "rotation", "embeddings", "schemes", "padding")
    ),
    "7_BERT_masking.py": tuple(
        f"masking.tab.{n}" for n in ("predictions", "masking", "pieces", "attention", "nsp", "finetune")
    ),
    "9_LLM_explorer.py": tuple(f"llm_explorer.tab.{n}" for n in ("generation", "translate", "gqa", "rope", "heads")),
    "10_Transformer_XL.py": tuple(f"txl.tab.{n}" for n in ("dependency", "terms", "eval", "generate")),
    "13_XLNet.py": tuple(f"xlnet.tab.{n}" for n in ("masks", "predictions", "bert")),
    "14_Transformer_block.py": tuple(f"block.tab.{n}" for n in ("changes", "norms", "batch", "smoothing", "schedule")),
    "15_Attention_at_scale.py": tuple(f"scale.tab.{n}" for n in ("rebuild", "cache", "window", "linear", "cost")),
}
VIEWS = [(page, tab) for page in PAGES for tab in TAB_IDS.get(page, (None,))]
# Views drawn by a model other than the page's default: minilm-mlm has no trained next-sentence head; a local
# Luong model's aligned positions and a beam search's tree; a model without attention (its top-k bars).
VIEWS += [("2_Seq2seq_attention.py", "s2s-luong-local-p"), ("2_Seq2seq_attention.py", "s2s-none")]
LINKS = {("7_BERT_masking.py", "masking.tab.nsp"): {"bert_model": "bert-small"}}
STATES = {
    ("2_Seq2seq_attention.py", "s2s-luong-local-p"): {"s2s_model": "s2s-luong-local-p", "s2s_beam": 3},
    ("2_Seq2seq_attention.py", "s2s-none"): {"s2s_model": "s2s-none"},
}  # widget values, set before the run


@pytest.mark.slow
@pytest.mark.parametrize("page, view", VIEWS, ids=[f"{p[:-3]}-{v or ''}" for p, v in VIEWS])
def test_every_page_draws_only_chinese_words(page: str, view: str | None, tiny_llm, one_run) -> None:
    """Each page in 中文 as its link opens it: its default view, each tab, and a few other views."""
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    if view in STRINGS:  # a tab, opened by its 中文 title
        at.query_params["topic"] = STRINGS[view][1]
    at.query_params.update(LINKS.get((page, view), {}))
    for key, value in STATES.get((page, view), {}).items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    assert not [i.value for i in at.info if "不可用" in i.value]  # the link was taken, no fallback notice
    assert all(at.session_state[key] == value for key, value in STATES.get((page, view), {}).items())
    figures = _figures(at)
    found = [o for key, spec in figures for o in offenders(spec, f"{page} {view or ''} {key} ")]
    assert not found, _report(found)
