"""Running the command-line tools from tests, and the one-line error they must give."""

import os
import subprocess
import sys

from tests.conftest import ROOT


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m ARGS` in the repository root, one torch thread, captured output."""
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ATTN_LAB_THREADS": "1", **(env or {})},
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    """A non-zero exit with exactly one `error: …` line naming ``words``, and no traceback."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
