"""English and 中文: the string table is complete and consistent with the glossary, pages pass no
English literal straight to Streamlit, and every page runs in Chinese (AppTest)."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts, tables
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.i18n import GLOSSARY, LANGUAGES
from ui.strings import SAME, STRINGS

CJK = re.compile(r"[\u4e00-\u9fff]")
PAGES = sorted(p.name for p in (ROOT / "pages").glob("[0-9]*_*.py"))
# Files whose visible strings all come from the table; the AST check below holds them to that.
CONVERTED = [
    "app.py",
    "ui/frame.py",
    "ui/state.py",
    "ui/stepper.py",
    "ui/export.py",
    "ui/tokens.py",
    "pages/3_Positional_encoding.py",
    "ui/positional.py",
    "pages/1_Attention_from_scratch.py",
    "ui/foundations.py",
    "pages/6_Generation.py",
    "ui/grid.py",
    "pages/8_Real_model_explorer.py",
    "pages/5_Inside_one_head.py",
    "pages/7_BERT_masking.py",
    "ui/bert.py",
    "pages/4_Transformer_translation.py",
    "pages/2_Seq2seq_attention.py",
    "ui/seq2seq.py",
    "ui/transformer.py",
    "ui/explain.py",
    "ui/foundations.py",
    "ui/work_queue.py",
    "ui/i18n.py",
    "ui/checkpoints.py",
    "pages/11_Training_studio.py",
    "ui/studio.py",
    "pages/12_Present.py",
    "ui/deck.py",
    "ui/quiz.py",
    "pages/9_LLM_explorer.py",
    "ui/llm.py",
    "pages/10_Transformer_XL.py",
    "ui/transformer_xl.py",
    "ui/slides.py",
    *sorted(f"ui/views/{p.name}" for p in (ROOT / "ui" / "views").glob("*.py")),
]


LATEX_ARG = re.compile(r"\\[a-zA-Z]+\{[^{}]*\}")  # \text{…}: LaTeX, not a format field
MATH = {"exp", "log", "max", "min", "diag", "softmax", "tanh", "cos", "sin", "argmax", "sqrt", "frac", "top", "pos"}
ENGLISH = re.compile(r"\b[A-Za-z][a-z]{2,}\b")  # a word, not a symbol such as d_model or W_Q


def english_words(text: str) -> list[str]:
    return [w for w in ENGLISH.findall(text) if w.lower() not in MATH]


# Pages whose own strings are converted but which still show English from elsewhere (not yet done):
PARTLY: dict[str, str] = {}


def _fields(s: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(LATEX_ARG.sub("", s)) if name is not None}
    except ValueError:
        return {"<unbalanced braces>"}


def string_problems(key: str, en: str, zh: str) -> list[str]:
    """What is wrong with one id of the table: an empty side, 中文 that is the English text or has no
    Chinese, format fields that differ between the two."""
    if not (en.strip() and zh.strip()):
        return [f"{key}: an empty side"]
    problems = []
    words = re.sub(r"\{[^{}]*\}|\\[a-zA-Z]+", "", en)  # what is said, less fields and LaTeX commands
    if key not in SAME and english_words(words):
        if zh == en:
            problems.append(f"{key}: the 中文 is the English text")
        elif not CJK.search(zh):
            problems.append(f"{key}: the 中文 has no Chinese characters: {zh!r}")
    if _fields(en) != _fields(zh):
        problems.append(f"{key}: format fields differ between English and 中文")
    return problems


def test_every_id_has_english_and_chinese() -> None:
    """One check over the whole table, reporting every problem at once."""
    problems = [p for key in sorted(STRINGS) for p in string_problems(key, *STRINGS[key])]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


def test_ids_are_named_after_pages_not_numbers() -> None:
    """Page numbers change as pages move; an id's prefix names its page or view (CONTRIBUTING)."""
    numbered = sorted(key for key in STRINGS if re.fullmatch(r"p\d+", key.split(".", 1)[0]))
    assert not numbered, numbered


def test_the_table_check_finds_each_problem() -> None:
    assert string_problems("x", "", "好") == ["x: an empty side"]
    assert string_problems("x", "Run the model", "Run the model") == ["x: the 中文 is the English text"]
    assert string_problems("x", "Run the model", "Lauf") == ["x: the 中文 has no Chinese characters: 'Lauf'"]
    assert string_problems("x", "Run {n} steps", "运行 {m} 步") == ["x: format fields differ between English and 中文"]
    assert string_problems("x", "Run {n} steps", "运行 {n} 步") == []


def test_glossary_terms_are_used_consistently() -> None:
    """No zh string uses a variant the glossary rules out, and where the English uses a glossary
    term, the 中文 uses its established rendering."""
    problems = []
    for key, (en, zh) in STRINGS.items():
        en = re.sub(r"\{[^{}]*\}|\[[A-Z]+\]", "", en)  # format fields and [MASK]-like pieces name no terms
        for term in GLOSSARY:
            problems += [f"{key}: “{bad}” instead of “{term.zh}”" for bad in term.avoid if bad in zh]
            pattern = rf"\b{re.escape(term.en)}(s|es|ed|ing)?\b"
            if term.required and re.search(pattern, en, re.IGNORECASE) and term.zh not in zh:
                problems.append(f"{key}: “{term.en}” is not rendered as “{term.zh}”")
    assert not problems, "\n".join(problems)


# Streamlit calls whose first argument or these keywords are shown to the reader.
SHOWN = {
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "info",
    "warning",
    "error",
    "success",
    "toast",
    "button",
    "selectbox",
    "radio",
    "slider",
    "select_slider",
    "multiselect",
    "text_input",
    "text_area",
    "number_input",
    "toggle",
    "checkbox",
    "metric",
    "expander",
    "popover",
    "download_button",
    "segmented_control",
    "pills",
    "spinner",
    "page_link",
    "write",
    "tabs",
}
SHOWN_KEYWORDS = {"help", "label", "placeholder", "caption", "title", "x_title", "y_title"}


def _literal_text(node: ast.AST) -> str:
    """The literal text of a string constant or f-string (the parts outside its {…} fields)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.BinOp):
        return _literal_text(node.left) + " " + _literal_text(node.right)
    return ""


def english_literals(path: Path) -> list[str]:
    """English text passed as a literal to a Streamlit display call in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SHOWN):
            continue
        shown = node.args[: 1 if node.func.attr != "page_link" else 0] + [
            k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS
        ]
        if node.func.attr == "markdown" and any(k.arg == "unsafe_allow_html" for k in node.keywords):
            shown = []  # constant CSS
        for arg in shown:
            text = _literal_text(arg)
            if re.fullmatch(r"[\w./-]*[\d_./-][\w./-]*", text):
                continue  # a name or path (bert-base-uncased, app.py), not prose
            if english_words(text):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:60]!r}")
    return found


@pytest.mark.parametrize("name", CONVERTED)
def test_no_english_literal_reaches_streamlit(name: str) -> None:
    assert not english_literals(ROOT / name)


def test_the_check_finds_english_literals(tmp_path: Path) -> None:
    """The AST check itself: a literal label, help text or f-string title is found; tr(...) is not."""
    bad = tmp_path / "page.py"
    bad.write_text(
        'st.button("Run it", help=tr("x"))\nc1.slider(tr("a"), help="Pick a value")\n'
        'st.caption(f"Layer {n} of the model")\nst.title(tr("nav.1"))\n',
        encoding="utf-8",
    )
    import tests.test_i18n as me

    old, me.ROOT = me.ROOT, tmp_path
    try:
        assert len(english_literals(bad)) == 3, english_literals(bad)
    finally:
        me.ROOT = old


def _texts(at: AppTest) -> list[str]:
    """Visible text of a finished run: headings, markdown, captions, alerts and widget labels."""
    out = [
        e.value
        for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error")
        for e in getattr(at, kind)
        if isinstance(e.value, str) and not e.value.startswith("<style>")
    ]
    widgets = (
        "button",
        "selectbox",
        "radio",
        "slider",
        "select_slider",
        "multiselect",
        "text_input",
        "text_area",
        "number_input",
        "toggle",
        "checkbox",
    )
    return out + [w.label for kind in widgets for w in getattr(at, kind)]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.slow
def test_every_page_runs_in_chinese(page: str) -> None:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception, page
    number = page.split("_", 1)[0]
    assert at.title[0].value == STRINGS[f"nav.{number}"][1]
    texts = _texts(at)
    assert sum(bool(CJK.search(s)) for s in texts) >= 3, texts
    if f"pages/{page}" in CONVERTED and page not in PARTLY:  # every label and heading is Chinese
        names = {STRINGS[key][1] for key in SAME}  # rightly the same in both (Transformer-XL)
        english = [s for s in texts if english_words(s) and not CJK.search(s) and s not in names]
        assert not english, english


#: The pages whose string ids carry the page's name: id prefix → the page file's number and "_".
PAGE_OF_PREFIX = {
    "scratch": "1_",
    "seq2seq": "2_",
    "positional": "3_",
    "transformer": "4_",
    "head": "5_",
    "generation": "6_",
    "masking": "7_",
    "real_model": "8_",
}
TABS = sorted(key for key in STRINGS if re.fullmatch(r"(\w+)\.tab\.\w+", key) and key.split(".")[0] in PAGE_OF_PREFIX)
assert len(TABS) >= 10, TABS  # every page's tab titles (a renamed prefix must not empty the list)


@pytest.mark.parametrize("tab", TABS)
@pytest.mark.slow
def test_every_tab_runs_in_chinese(tab: str) -> None:
    """Every tab of a page with tabs, opened from a Chinese link (its ?topic= is the 中文 title)."""
    page = next(p for p in PAGES if p.startswith(PAGE_OF_PREFIX[tab.split(".")[0]]))  # "1_…", not "10_…"
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    at.query_params["topic"] = STRINGS[tab][1]
    at.run()
    assert not at.exception, tab
    assert not [i.value for i in at.info if "不可用" in i.value]  # the topic was accepted, no fallback notice
    texts = _texts(at)
    assert [s for s in texts if english_words(s) and not CJK.search(s)] == [], tab


@pytest.mark.slow
def test_landing_page_switches_language() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APPTEST_TIMEOUT)
    at.run()
    assert at.title[0].value == STRINGS["app.title"][0]
    switch = at.get("button_group")[0]
    assert switch.options == list(LANGUAGES.values())
    switch.set_value("zh").run()
    assert at.title[0].value == STRINGS["app.title"][1]
    assert at.query_params["lang"] == "zh"  # kept in the URL
    assert at.subheader[0].value == STRINGS["app.pages"][1]
    at.get("button_group")[0].set_value("en").run()
    assert at.title[0].value == STRINGS["app.title"][0]


def test_bad_language_in_the_link_falls_back_with_a_notice() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "klingon"
    at.run()
    assert not at.exception
    assert at.title[0].value == STRINGS["app.title"][0]
    assert [i.value for i in at.info] == [STRINGS["lang.bad"][0].format(raw="klingon", language="English")]
    assert "lang" not in at.query_params


@pytest.mark.parametrize("typical", [None, {"median": -0.04, "p05": -0.1, "p01": -0.2}])
@pytest.mark.parametrize("confidence", [-0.01, -0.15, -0.9])
def test_translation_notices_carry_their_translation(typical: dict | None, confidence: float) -> None:
    """Every notice a translation can carry names a table entry whose English is the notice's own
    text, so the page shows the same words in English and a translation in 中文."""
    from models.inference.notices import scope_notice, translation_notices

    notices = translation_notices(
        ["the", "zorg", "car"],
        [False, True, False],
        2,
        False,
        confidence,
        typical,
        scope_notice({"data": "embedded English→French generator"}, 247),
    )
    assert {n.topic for n in notices} == {"unknown", "cut", "length", "confidence", "scope"}
    for notice in notices:
        en, zh = STRINGS[notice.key]
        assert en.format(**notice.args) == notice.text
        assert CJK.search(zh.format(**notice.args))


def test_the_served_font_holds_every_chinese_character_of_the_table() -> None:
    """static/fonts/lab-cjk.woff (scripts/cjk_font.py) draws the whole 中文 interface on a browser
    without Chinese fonts; after new 中文 strings, run the script again."""
    from fontTools.ttLib import TTFont

    from scripts.cjk_font import OUT, is_cjk

    cmap = TTFont(str(OUT)).getBestCmap()
    missing = sorted({ch for _, zh in STRINGS.values() for ch in zh if is_cjk(ch) and ord(ch) not in cmap})
    assert not missing, f"not in {OUT.name}: {''.join(missing)}; run python scripts/cjk_font.py"


def _figure_words(spec: dict) -> list[str]:
    """The words a plotly figure spec draws: its title, subplot titles and annotations, axis and
    colour-bar titles, legend names."""
    layout = spec.get("layout", {})
    words = [(layout.get("title") or {}).get("text")]
    words += [a.get("text") for a in layout.get("annotations", [])]
    words += [
        (axis.get("title") or {}).get("text")
        for name, axis in layout.items()
        if re.fullmatch(r"[xy]axis\d*", name) and isinstance(axis, dict)
    ]
    for trace in (t for t in spec.get("data", []) if t.get("type") != "image"):  # an image has no legend entry
        words.append(trace.get("name") if trace.get("showlegend") is not False else None)
        words.append(
            ((trace.get("colorbar") or (trace.get("marker") or {}).get("colorbar") or {}).get("title") or {}).get(
                "text"
            )
        )
    return [w for w in words if isinstance(w, str)]


FIGURE_PAGES = [
    "2_Seq2seq_attention.py",
    "4_Transformer_translation.py",
    "5_Inside_one_head.py",
    "6_Generation.py",
    "10_Transformer_XL.py",  # page 9 needs the converted LLM: tests/test_llm.py checks its figures
    "1_Attention_from_scratch.py",
    "3_Positional_encoding.py",
    "7_BERT_masking.py",
    "8_Real_model_explorer.py",
]
# A page with tabs draws only its open tab: each tab of it, opened by its 中文 ?topic=, else the page itself.
FIGURE_VIEWS = [
    (page, STRINGS[tab][1] if tab else None)
    for page in FIGURE_PAGES
    for tab in [k for k in TABS if page.startswith(PAGE_OF_PREFIX[k.split(".")[0]])] or [None]
]
# Views drawn by a model other than the page's default: minilm-mlm has no trained next-sentence head.
FIGURE_LINKS = {("7_BERT_masking.py", STRINGS["masking.tab.nsp"][1]): {"bert_model": "bert-small"}}


def _table_words(at: AppTest) -> list[str]:
    """The column headers and row names of every st.dataframe, st.table and ui.table.table of a run."""
    frames = [e.value for kind in ("dataframe", "table") for e in at.get(kind)] + list(tables(at).values())
    return [str(w) for df in frames for w in (*df.columns, *(name for name in df.index if isinstance(name, str)))]


@pytest.mark.parametrize("page, topic", FIGURE_VIEWS)
@pytest.mark.slow
def test_figures_draw_chinese_words_in_chinese(page: str, topic: str | None) -> None:
    """In 中文, no figure of the page draws an English-only title, axis title, colour-bar title or
    legend name (viz_core's words come in through ``texts=ui.i18n.figure_texts()``), and no table
    has an English-only column header or row name."""
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=APPTEST_TIMEOUT)
    at.query_params["lang"] = "zh"
    if topic is not None:
        at.query_params["topic"] = topic
    for key, value in FIGURE_LINKS.get((page, topic), {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, page
    figures = [c.figure for c in charts(at)]
    words = [w for spec in figures for w in _figure_words(spec)] + _table_words(at)
    assert sum(bool(CJK.search(w)) for w in words) >= 2, words
    english = [w for w in words if english_words(re.sub(r"<[^>]+>", "", w)) and not CJK.search(w)]
    assert not english, english


def test_every_figure_word_has_its_chinese() -> None:
    """Each word viz_core draws (viz_core.texts) is in the table with the same English, and a
    builder given the 中文 words draws them (here: the attention heatmap's axes and colour bar)."""
    from ui.i18n import _figure_texts
    from viz_core.texts import TEXTS
    from viz_core.transformer import attention_matrix_figure

    assert {k: STRINGS[f"fig.{k}"][0] for k in TEXTS} == TEXTS
    zh = _figure_texts("zh")
    fig = attention_matrix_figure([[0.5, 0.5]], ["a", "b"], ["x"], texts=zh).to_dict()
    assert fig["layout"]["xaxis"]["title"]["text"] == STRINGS["fig.key_attended"][1]
    assert fig["data"][0]["colorbar"]["title"]["text"] == STRINGS["fig.weight"][1]


def test_device_names_have_the_same_english_in_the_table() -> None:
    """The sidebar names the compute device in the reader's language (models.device.device_name)."""
    from models.device import DEVICE_NAMES

    assert {k: STRINGS[k][0] for k in DEVICE_NAMES} == DEVICE_NAMES
    assert STRINGS["device.cpu_many"][1].format(n=2) == "CPU（2 个线程）"


def test_model_folder_refusals_have_the_same_english_in_the_table() -> None:
    """The Real model explorer shows the model-folder refusals in the reader's language."""
    from models.inference.model_access import OFF, REFUSED

    assert STRINGS["real_model.access.refused"][0] == REFUSED and STRINGS["real_model.access.off"][0] == OFF
