"""Hostile widget state: every widget of every page fed values that a URL, a stale session, a test
harness or code can leave in ``st.session_state`` (issue 14, "Validated state").

`python -m bench.hostile_state [--page N] [--batched]`

For every view of every page (app.py, each page, each tab of a tabbed page, the folder mode of the
real model explorer) a first run discovers every session-state key the view creates (its
widgets, and the plain state keys it keeps); then each key is set to each hostile value of
:data:`HOSTILE` (NaN, ±inf, a list, a dict, an unknown option, a number out of every range, a
10,000-character text, None) in a run of its own: the full cross product, one AppTest run per
(key, value). Prints per page "widgets covered / exceptions" and each failing (key, value).
The bar: every widget covered, 0 exceptions, and the page's main element drawn every time.

``--batched`` runs what tests/test_hostile_state.py runs instead: per view, one run per hostile
value in which every key gets a value at once, each key a different one, rotating, so that the
runs together give every key every value.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120  # AppTest's default_timeout: torch's cold import alone takes seconds

HOSTILE: dict[str, Any] = {
    "NaN": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "list": [3, "x"],
    "dict": {"x": 1},
    "unknown option": "<no such option>",
    "number": 10**12,
    "negative": -7.5,
    "10,000 characters": "é" * 10_000,
    "None": None,
}


@dataclass(frozen=True)
class View:
    """One view of a page: the page script, the key of the element it must always draw (its main
    chart), the session values that open the view (a tab, a mode), kept out of the attack, and
    state keys that only a click creates (``extra``), attacked too."""

    page: str
    main: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    extra: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.page + "".join(f" [{v}]" for v in self.fixed.values())


P1, P3, P7 = "pages/1_Attention_from_scratch.py", "pages/3_Positional_encoding.py", "pages/7_BERT_masking.py"
P10 = "pages/9_LLM_explorer.py"
VIEWS: tuple[View, ...] = (
    View("app.py", "page_link"),
    View(P1, "kr_fit", {"topic": "Kernel regression"}),
    View(P1, "sf_plane", {"topic": "Score functions"}),
    View(P1, "shl_fig", {"topic": "Soft, hard, local"}),
    View(P1, "sb_mask", {"topic": "Q/K/V sandbox"}),  # typed text may not parse: the figures wait
    View(P1, "why_bleu", {"topic": "Why attention"}),
    View(P1, "cx_run", {"topic": "Attention vs RNN vs CNN"}, ("cx_params",)),
    View("pages/2_Seq2seq_attention.py", "topk"),
    View(P3, "pe_curves", {"topic": "Sinusoids"}),
    View(P3, "rot_similarity", {"topic": "Similarity and rotation"}),
    View(P3, "emb_heatmaps", {"topic": "Adding to embeddings"}),
    View(P3, "sch_maps", {"topic": "Learned, relative, RoPE, ALiBi"}),
    View(P3, "pad_ids", {"topic": "Padding"}),
    View("pages/4_Transformer_translation.py", "tf_head_fig"),
    View("pages/5_Inside_one_head.py", "head_chain"),
    View("pages/6_Generation.py", "gen_dist"),
    View(P7, "bert_predictions", {"topic": "Predictions"}),
    View(P7, "bert_stats", {"topic": "Masking"}),
    View(P7, "bert_embedding", {"topic": "Pieces and embeddings"}),
    View(P7, "bert_from", {"topic": "Attention"}),
    # minilm-mlm (the default) has no trained next-sentence head: the tab's draw is bert-small's
    View(P7, "bert_nsp_draw", {"topic": "Next sentence", "bert_model": "bert-small"}, ("bert_nsp_seed",)),
    View(P7, "bert_class", {"topic": "Fine-tuning"}),
    View("pages/8_Real_model_explorer.py", "real_grid"),
    View("pages/8_Real_model_explorer.py", "real_dir", {"real_source": "folder"}),
    View("pages/12_Present.py", "present_pick"),
    View(P10, "llm_step", {"topic": "Generation"}),
    View(P10, "llm_bytes", {"topic": "Grouped-query attention"}),
    View(P10, "llm_pair", {"topic": "RoPE"}),
    View(P10, "llm_kind", {"topic": "Head types"}),
    View("pages/11_Training_studio.py", "studio_preset"),
    View("pages/10_Transformer_XL.py", "txl_text"),
    View("pages/13_XLNet.py", "xlnet_text"),
    View("pages/14_Transformer_block.py", "block_diagram"),
    View("pages/15_Attention_at_scale.py", "scale_tiles"),
    View("pages/16_Attention_as_explanation.py", "xai_methods"),
)


def run(view: View, values: Mapping[str, Any]) -> AppTest:
    """One AppTest run of the view with ``values`` in the session state before the run."""
    at = AppTest.from_file(str(ROOT / view.page), default_timeout=TIMEOUT)
    for key, value in {**values, **view.fixed}.items():
        at.session_state[key] = value
    with contextlib.redirect_stdout(io.StringIO()):  # Streamlit prints each exception's traceback
        at.run()
    return at


def _nodes(node: Any) -> Iterator[Any]:
    """``node`` and every element and block under it."""
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _nodes(child)


def has_element(at: AppTest, key: str) -> bool:
    """Whether the run drew in the main area an element with the user key ``key`` (a widget, a
    chart), or of the type ``key`` ("page_link")."""
    for node in _nodes(at.main):
        if key in (getattr(node, "key", None), getattr(node, "type", None)):
            return True
        proto_id = getattr(getattr(node, "proto", None), "id", "")
        if isinstance(proto_id, str) and proto_id.endswith(f"-{key}"):
            return True
    return False


def discover(view: View) -> list[str]:
    """Every session-state key that a first run of the view creates (widgets and plain state),
    but those that open the view, and its ``extra`` keys."""
    at = run(view, {})
    problems = failures(at, view)
    if problems:
        raise RuntimeError(f"{view.name} fails on a clean first run: {problems}")
    return sorted({*at.session_state.keys(), *view.extra} - set(view.fixed))


def failures(at: AppTest, view: View) -> list[str]:
    """What went wrong in a run: its exceptions, and a missing main element."""
    out = [str(e.value)[:200] for e in at.exception]
    if not out and not has_element(at, view.main):
        out.append(f"main element '{view.main}' not drawn")
    return out


def rotated(keys: list[str], shift: int) -> dict[str, Any]:
    """Every key a hostile value at once: key i gets value (i + shift) mod the number of values."""
    values = list(HOSTILE.values())
    return {key: values[(i + shift) % len(values)] for i, key in enumerate(keys)}


def describe(value: Any) -> str:
    """The name of a hostile value in :data:`HOSTILE`."""
    return next(name for name, v in HOSTILE.items() if v is value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", help="only views whose script name contains this (e.g. 6_ or app)")
    parser.add_argument("--batched", action="store_true", help="the test's batched runs, not the cross product")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    totals: dict[str, list[int]] = {}
    start = time.perf_counter()
    for view in VIEWS:
        if args.page and args.page not in view.page:
            continue
        try:
            keys = discover(view)
        except RuntimeError as exc:  # the view is broken before any attack: count it, go on
            print(f"  {exc}", flush=True)
            totals.setdefault(view.page, [0, 0, 0])[1] += 1
            continue
        if args.batched:
            cases = [(f"rotation {shift}", rotated(keys, shift)) for shift in range(len(HOSTILE))]
        else:
            cases = [(f"{key} = {name}", {key: value}) for key in keys for name, value in HOSTILE.items()]
        bad = 0
        for label, values in cases:
            problems = failures(run(view, values), view)
            if problems:
                bad += 1
                detail = "" if not args.batched else f" ({', '.join(f'{k}={describe(v)}' for k, v in values.items())})"
                print(f"  {view.name}: {label}{detail}: {problems[0]}", flush=True)
        total = totals.setdefault(view.page, [0, 0, 0])  # keys (each attacked with every value), bad runs, runs
        total[0] += len(keys)
        total[1] += bad
        total[2] += len(cases)
        print(
            f"{view.name}: {len(keys)} keys, {len(cases)} runs, {bad} with an exception or no main element", flush=True
        )
    print("\npage: widgets covered / exceptions (runs)")
    for page, (n_keys, bad, n_runs) in totals.items():
        print(f"{page}: {n_keys} widgets covered / {bad} exceptions ({n_runs} runs)")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
