"""pyproject.toml and requirements*.txt pin the same versions; the packages and the pytest markers are declared."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)$")


def canonical(name: str) -> str:
    """PEP 503 normalised name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lines: list[str]) -> dict[str, str]:
    """{name: version} of requirement lines, each of which must be an exact pin."""
    found: dict[str, str] = {}
    for line in lines:
        match = PIN.match(line.strip())
        assert match, f"not an exact pin: {line!r}"
        name = canonical(match[1])
        assert name not in found, f"{name} pinned twice"
        found[name] = match[2]
    return found


def requirement_file(name: str) -> dict[str, str]:
    """The pins of one requirements file (comments, blank lines and -r includes left out)."""
    lines = []
    for raw in (ROOT / name).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("-r "):
            lines.append(line)
    return pins(lines)


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_runtime_dependencies_are_requirements_txt() -> None:
    assert pins(pyproject()["project"]["dependencies"]) == requirement_file("requirements.txt")


def test_llm_extra_is_requirements_llm_txt() -> None:
    assert pins(pyproject()["project"]["optional-dependencies"]["llm"]) == requirement_file("requirements-llm.txt")


def test_test_extra_is_requirements_dev_txt() -> None:
    extra = pins(pyproject()["project"]["optional-dependencies"]["test"])
    dev = requirement_file("requirements-dev.txt")
    assert extra == dev, "requirements-dev.txt and the test extra differ"
    assert {"ruff", "mypy"} <= set(dev)  # .ci/run runs both: the README's set-up installs them
    assert (ROOT / "requirements-dev.txt").read_text().splitlines()[0] == "-r requirements.txt"


def test_the_declared_packages_are_the_lab_s_folders() -> None:
    include = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    assert include == [f"{p}*" for p in ("models", "viz_core", "corpora", "cli", "ui", "bench")]
    for pattern in include:
        assert (ROOT / pattern.rstrip("*") / "__init__.py").is_file()


def test_package_data_globs_match_files() -> None:
    for package, globs in pyproject()["tool"]["setuptools"]["package-data"].items():
        for glob in globs:
            assert list((ROOT / package).glob(glob)), f"{package}/{glob} matches nothing"


def test_pytest_configuration_lives_in_pyproject() -> None:
    assert not (ROOT / "pytest.ini").exists(), "pytest.ini would take precedence over pyproject.toml"
    options = pyproject()["tool"]["pytest"]["ini_options"]
    markers = {m.split(":", 1)[0] for m in options["markers"]}
    assert markers == {"slow", "browser"}
    assert options["testpaths"] == ["tests"]


def test_licence_files_exist() -> None:
    for name in pyproject()["project"]["license-files"]:
        assert (ROOT / name).is_file(), name
