"""The teacher's switch for the class's studio runs: ``python -m models.runs COMMAND``.

    python -m models.runs list                 every run: owner (a key, not a name), status, name
    python -m models.runs cap --per-student 3  at most 3 runs per browser (and --total N for the server)
    python -m models.runs clear [--keep-published]
                                               delete every run a browser made (command-line runs stay)

The runs folder is ``$ATTENTION_LAB_RUNS`` (default ``~/.local/share/attention-lab/runs``), or ``--root``.
A cap holds for new runs at once, on every replica sharing the folder; runs over it are kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models.runs.store import clean_staging, clear_class, limits, saved_runs, set_limits
from models.training.runs import runs_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.runs", description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, help="the runs folder (default: $ATTENTION_LAB_RUNS or ~/.local/share)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list every run with its owner key, status and name")
    cap = commands.add_parser("cap", help="cap the runs each browser (and the server) may keep")
    cap.add_argument("--per-student", type=int, help="runs per browser (0: no new runs)")
    cap.add_argument("--total", type=int, help="runs on the server")
    clear = commands.add_parser("clear", help="delete every run a browser made")
    clear.add_argument("--keep-published", action="store_true", help="keep the runs shown to the class")
    args = parser.parse_args(argv)
    root = args.root or runs_dir()
    if args.command == "list":
        for run in saved_runs(root):
            owner = str(run.meta.get("owner") or "command line")[:12]
            print(f"{run.id}  {owner:<12}  {run.meta.get('status', '?'):<9}  {run.name}")
        caps = limits(root)
        print(f"caps: {caps.per_owner} per browser, {caps.total} on the server")
        return 0
    if args.command == "cap":
        for value in (args.per_student, args.total):
            if value is not None and not 0 <= value <= 10_000:
                parser.error("a cap is a number of runs from 0 to 10000")
        caps = set_limits(root, args.per_student, args.total)
        print(f"caps: {caps.per_owner} per browser, {caps.total} on the server")
        return 0
    gone = clear_class(root, keep_published=args.keep_published)
    clean_staging(root)
    print(f"deleted {gone} run{'s' * (gone != 1)} made in the studio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
