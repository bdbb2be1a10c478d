"""How the commands print a trace: JSON (the trace's to_dict), or its text with a note on stderr
when the input was cut."""
from __future__ import annotations

import json
import sys

from models.inference.traces import Trace


def print_trace(trace: Trace, text: str, as_json: bool, dropped: int, what: str) -> int:
    """Print ``trace`` as JSON, or ``text`` after a note on stderr about ``dropped`` tokens of ``what``."""
    if as_json:
        print(json.dumps(trace.to_dict(), ensure_ascii=False))
        return 0
    if dropped:
        print(f"note: {what}; {dropped} tokens dropped", file=sys.stderr)
    print(text)
    return 0
