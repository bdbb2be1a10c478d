"""The layout's rules, read off the code: no import circles, inference never imports training,
models/viz_core/corpora never import Streamlit, and every module imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("models", "cli", "corpora", "viz_core", "ui")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Every project module ``path`` imports, at module level or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name.split(".")[0] in PACKAGES:
                found.add(name)
    return found


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def _package_parents(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_circle() -> None:
    """Depth-first search of the import graph (package __init__ modules that a module sits in
    are not edges: Python runs them first but they import nothing here)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node] - _package_parents(node)):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                pytest.fail("import circle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name)


def _reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in GRAPH[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_loading_and_inference_never_import_training() -> None:
    for name in MODULES:
        if name.startswith(("models.inference", "models.nn", "models.text")) or name == "models.checkpoints":
            bad = sorted(m for m in _reachable(name) if m.startswith("models.training"))
            assert not bad, f"{name} reaches {bad}"


def test_lower_layers_never_import_streamlit_or_the_ui() -> None:
    for name, path in MODULES.items():
        if name.split(".")[0] in ("models", "corpora", "viz_core", "cli"):
            source = path.read_text(encoding="utf-8")
            assert "import streamlit" not in source and "from streamlit" not in source, name
            assert not any(m.startswith(("ui", "pages")) for m in GRAPH[name]), name
        if name.startswith("viz_core"):
            assert not any(m.startswith("models") for m in GRAPH[name]), name


@pytest.mark.slow
def test_every_module_imports_alone() -> None:
    """Each module imported first, on its own, in a fresh interpreter: one subprocess preloads the
    third-party libraries (torch, transformers …), then forks one child per module, so no project
    module is loaded when the child imports its module (an import circle fails there)."""
    names = [n for n in MODULES if not n.startswith("ui")]  # ui needs a running Streamlit script
    code = """
import importlib, os, sys
import numpy, torch, safetensors, sacrebleu, tokenizers, plotly, pandas  # noqa: F401
failed = []
for name in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException as exc:
            print(f"{name}: {exc.__class__.__name__}: {exc}", flush=True)
            os._exit(1)
        os._exit(0)
    if os.waitpid(pid, 0)[1] != 0:
        failed.append(name)
sys.exit(1 if failed else 0)
"""
    proc = subprocess.run([sys.executable, "-c", code, *names], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]


#: Present's slide is a page of one view (its own step reruns a page with nothing else on it).
WHOLE_PAGE_VIEWS = {"12_Present.py"}


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "pages").glob("*.py")))
def test_every_page_reruns_its_interactions_in_a_fragment(page: str) -> None:
    """Each page runs what its controls change in an st.fragment (or in ui.state.topic_tabs, whose
    open tab is one), so that stepping or switching a head does not rerun the whole page."""
    tree = ast.parse((ROOT / "pages" / page).read_text())
    used = {
        ast.unparse(node.func if isinstance(node, ast.Call) else node)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef)
        for node in fn.decorator_list
    }
    used |= {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert any(name.startswith("st.fragment") or name == "topic_tabs" for name in used) or page in WHOLE_PAGE_VIEWS


def translation_spellings(source: str) -> list[str]:
    """Where ``source`` reaches ui.i18n's translation function by a name other than ``tr``."""
    found = []
    modules = set()  # names bound to the ui.i18n module itself
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "ui.i18n":
            found += [f"{node.lineno}: tr as {a.asname}" for a in node.names if a.name == "tr" and a.asname]
        elif isinstance(node, ast.ImportFrom) and node.module == "ui":
            modules |= {a.asname or a.name for a in node.names if a.name == "i18n"}
        elif isinstance(node, ast.Import):
            modules |= {a.asname or "ui" for a in node.names if a.name == "ui.i18n"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "tr" and ast.unparse(node.value) in modules | {"ui.i18n"}:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_translation_function_has_one_spelling() -> None:
    """Pages, ui and tests call it ``tr`` (imported as itself, never ``i18n.tr``): ``t`` is a step."""
    paths = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]
    paths += list((ROOT / "tests").rglob("*.py"))
    found = [
        f"{p.relative_to(ROOT)}:{at}" for p in paths for at in translation_spellings(p.read_text(encoding="utf-8"))
    ]
    assert not found, found


def test_the_spelling_check_finds_other_names() -> None:
    assert translation_spellings("from ui.i18n import figure_texts, tr as t\n") == ["1: tr as t"]
    assert translation_spellings("from ui import i18n\ni18n.tr('x')\n") == ["2: i18n.tr"]
    assert translation_spellings("import ui.i18n\nui.i18n.tr('x')\n") == ["2: ui.i18n.tr"]
    assert translation_spellings("from ui.i18n import tr\ntr('x')\n") == []


# --------------------------------------------------------------------------------------
# One meaning per name: ``kind`` once meant a Transformer's architecture, which attention of it,
# a mask, a model family, a widget type, a grammar category … (issue 26). Each meaning has its own
# name now; ``kind`` is left only where another library's API spells it so.
# --------------------------------------------------------------------------------------

NAMED_FOLDERS = ("models", "ui", "viz_core", "corpora", "pages", "cli", "bench")
#: Calls whose ``kind=`` is numpy's (the sorting algorithm: "stable", "mergesort"), not ours.
LIBRARY_KIND_KEYWORD = {"argsort", "sort"}
#: ``x.dtype.kind``: numpy's one-letter code of a dtype ("f", "i" …).
LIBRARY_KIND_ATTRIBUTE_OF = "dtype"


def kind_identifiers(source: str) -> list[str]:
    """Every use of ``kind`` as an identifier in ``source``: a name, a parameter, a function, an
    attribute, a keyword argument or an import alias ("line: what"), but for numpy's. Strings are
    not identifiers: persisted JSON keeps its key "kind" (config.json, run.json, trace JSON)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == "kind":
            found.append(f"{node.lineno}: name")
        elif isinstance(node, ast.arg) and node.arg == "kind":
            found.append(f"{node.lineno}: parameter")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "kind":
            found.append(f"{node.lineno}: definition")
        elif isinstance(node, ast.alias) and node.asname == "kind":
            found.append(f"{node.lineno}: import alias")
        elif isinstance(node, ast.Attribute) and node.attr == "kind":
            value = node.value
            if not (isinstance(value, ast.Attribute) and value.attr == LIBRARY_KIND_ATTRIBUTE_OF):
                found.append(f"{node.lineno}: attribute {ast.unparse(node)}")
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called not in LIBRARY_KIND_KEYWORD:
                found += [f"{k.value.lineno}: keyword of {called}()" for k in node.keywords if k.arg == "kind"]
    return found


def test_kind_is_not_an_identifier() -> None:
    """Each meaning has its own name: ``architecture`` (encoder-decoder | decoder-only), ``site`` (which
    attention of a Transformer), ``mask``, ``family``, ``attention``, ``weighting`` (soft | hard),
    ``attention_variant``, ``topic`` (a notice's), ``widget_type``, ``category`` / ``predicate_type``
    (grammar), ``head_type``, ``layer_type`` … never ``kind``."""
    paths = [ROOT / "app.py", *(p for folder in NAMED_FOLDERS for p in sorted((ROOT / folder).rglob("*.py")))]
    found = [f"{p.relative_to(ROOT)}:{at}" for p in paths for at in kind_identifiers(p.read_text(encoding="utf-8"))]
    assert not found, found


def test_the_kind_check_finds_every_use() -> None:
    assert kind_identifiers("kind = 1\n") == ["1: name"]
    assert kind_identifiers("def f(kind): pass\n") == ["1: parameter"]
    assert kind_identifiers("class A:\n    kind: str\n") == ["2: name"]
    assert kind_identifiers("class A:\n    def kind(self): pass\n") == ["2: definition"]
    assert kind_identifiers("x.kind\n") == ["1: attribute x.kind"]
    assert kind_identifiers("f(kind='lm')\n") == ["1: keyword of f()"]
    assert kind_identifiers("from m import k as kind\n") == ["1: import alias"]
    assert kind_identifiers("lambda kind: 0\n") == ["1: parameter"]
    assert kind_identifiers("np.argsort(x, kind='stable')\nx.dtype.kind\nd['kind']\n") == []


# --------------------------------------------------------------------------------------
# No private name crosses a module: what another module needs is public (issue 26).
# --------------------------------------------------------------------------------------

LAB_PACKAGES = ("models", "ui", "viz_core", "corpora", "cli", "bench", "pages", "tests")


def private_imports(source: str) -> list[str]:
    """Every ``from <lab module> import _name`` in ``source`` ("line: module._name"); dunders are not private."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in LAB_PACKAGES:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.lineno}: {node.module}.{alias.name}")
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    """The lab's own code imports only public names of its modules (tests may reach inside to test them)."""
    paths = [ROOT / "app.py", *(p for folder in NAMED_FOLDERS for p in sorted((ROOT / folder).rglob("*.py")))]
    found = [f"{p.relative_to(ROOT)}:{at}" for p in paths for at in private_imports(p.read_text(encoding="utf-8"))]
    assert not found, found


def test_the_private_import_check_finds_them() -> None:
    assert private_imports("from models.runs.store import _owner, public\n") == ["1: models.runs.store._owner"]
    assert private_imports("from ui.state import (\n    a,\n    _b,\n)\n") == ["1: ui.state._b"]
    assert private_imports("from numpy import _private\nfrom models import __version__\n") == []
