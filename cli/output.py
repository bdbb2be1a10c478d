"""How the commands print a trace: JSON (the trace's to_dict), or its text with notes on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from models.inference.traces import Trace


def print_trace(trace: Trace, text: str, as_json: bool, notes: Sequence[str] = ()) -> int:
    """Print ``trace`` as JSON, or ``text`` after ``notes`` (one ``note:`` line each, on stderr)."""
    if as_json:
        print(json.dumps(trace.to_dict(), ensure_ascii=False))
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(text)
    return 0
