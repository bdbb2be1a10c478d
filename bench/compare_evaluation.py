"""Evaluate every shipped checkpoint and compare with a saved evaluation, figure by figure.

`python -m bench.compare_evaluation [--before bench/baselines/evaluate_before.json] [--tol 1e-6]`

Runs `python -m models.evaluate --json` and walks both results: every number must agree within
``--tol`` and every other value exactly. The baseline was written by the code before the
models/ package was reorganised (its families were keyed by module: transformer_train, bert_train);
at the reorganisation (commit 13bb29d) it found 0 differences in 10 checkpoints. Later changes are
meant to show here: the evaluation now decodes each sentence with its own length limit, as the
page does (Luong general 98.16 → 98.27), the BERT figures use the reference masking rule, two
local-attention models were added, and each translation model carries its test-set confidence.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

RENAMED = {"transformer_train": "transformer", "bert_train": "bert"}


def differences(a: Any, b: Any, tol: float, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}: keys {sorted(set(a) ^ set(b))}"] if set(a) != set(b) else []
        return out + [d for k in a if k in b for d in differences(a[k], b[k], tol, f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items → {len(b)}"]
        return [d for i, (u, v) in enumerate(zip(a, b)) for d in differences(u, v, tol, f"{path}[{i}]")]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        same = (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=0, abs_tol=tol)
        return [] if same else [f"{path}: {a} → {b}"]
    return [] if a == b else [f"{path}: {a!r} → {b!r}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=Path(__file__).parent / "baselines" / "evaluate_before.json")
    parser.add_argument("--tol", type=float, default=1e-6)
    args = parser.parse_args()
    before = json.loads(args.before.read_text())
    before["families"] = {RENAMED.get(k, k): v for k, v in before.get("families", {}).items()}
    proc = subprocess.run([sys.executable, "-m", "models.evaluate", "--json"], capture_output=True, text=True)
    if proc.returncode:
        print(proc.stderr, file=sys.stderr)
        return 1
    diffs = differences(before, json.loads(proc.stdout), args.tol)
    n = len(before["models"]) + sum(len(f["models"]) for f in before["families"].values())
    print(f"{n} checkpoints, {len(diffs)} differences (tolerance {args.tol:g})")
    for d in diffs:
        print("  " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
