"""Click → drawn in a real browser, for the main interaction of every page, next to a minimal
Streamlit app (bench/floor_app.py) measured in the same run.

A MutationObserver on the page records the time of the last change to the document; after a click
the page is "drawn" when the script has finished and nothing has changed for ``QUIET_MS``. The
figure reported is that last change's time minus the click's, the median over ``--repeat`` clicks.
The floor is clicked again right before each page, and each page's median is compared with that
floor's: the machine's speed drifts over a run.

    python -m bench.browser_bench [--repeat 7] [--pages seq2seq real512 ...]

``floor-2fig`` and ``floor-3fig`` are the same minimal app drawing a heatmap and one or two bar charts
per click: not bars, they say how much of a page's time any Streamlit page whose step redraws that
many plotly figures would take.

Bars (issue 10): every page's median within 1.5× of the floor's; the Real model explorer's head
change at 512 tokens within 1 s on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, wait_for_app
from tests.server import streamlit_server

ROOT = Path(__file__).resolve().parents[1]
QUIET_MS = 400
LONG_TEXT = " ".join(["The trophy would not fit in the brown suitcase because it was too big."] * 40)

WATCH_JS = """() => { window.__lastChange = performance.now(); if (window.__watching) return; window.__watching = true;
  new MutationObserver(() => { window.__lastChange = performance.now(); })
    .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true}); }"""
SETTLED_JS = f"""() => {{ const app = document.querySelector("[data-testid='stApp']");
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
         && performance.now() - window.__lastChange > {QUIET_MS}; }}"""


def _key_button(key: str) -> Callable:
    return lambda page, i: page.locator(f".st-key-{key} button").first.click()


def _arrow(page, i) -> None:
    """The ← / → keys step (the lab's step control binds them): forward, then back, alternately."""
    page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")


def _select_head(key: str, n: int) -> Callable:
    """Choose another head in a selectbox by typing its label (head 2, head 3, … in turn)."""

    def act(page, i):
        box = page.locator(f".st-key-{key} input").first
        box.click(timeout=120_000)
        box.fill(f"head {2 + i % (n - 1)}")
        page.keyboard.press("Enter")

    return act


class _Pick:
    """Choose another option of a selectbox (the 2nd, 3rd, … of its first ``n``) from its open list.
    Opening the list is not the interaction being timed: the clock starts at the option's click."""

    def __init__(self, key: str, n: int) -> None:
        self.key, self.n = key, n

    def prepare(self, page, i) -> None:
        page.locator(f".st-key-{self.key} input").first.click(timeout=120_000)
        page.get_by_role("option").first.wait_for()

    def __call__(self, page, i) -> None:
        page.get_by_role("option").nth(1 + i % (self.n - 1)).click()


def _slider(key: str) -> Callable:
    """Move a slider one notch with the keyboard, right then left."""

    def act(page, i):
        thumb = page.locator(f".st-key-{key} [tabindex='0']").first
        thumb.focus()
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")

    return act


def _toggle(key: str) -> Callable:
    return lambda page, i: page.locator(f".st-key-{key} label").first.click()


# (name, URL path and query, what one interaction does)
CASES: dict[str, tuple[str, Callable]] = {
    "floor": ("", _key_button("floor_next")),
    # Not bars: the floor of a page that redraws a heatmap and one bar chart (as XLNet redraws its two streams)
    # or two (as seq2seq does) per step.
    "floor-2fig": ("?heatmap=1&bars=1", _key_button("floor_next")),
    "floor-3fig": ("?heatmap=1&bars=2", _key_button("floor_next")),
    "scratch": ("Attention_from_scratch", _key_button("kr_resample")),
    "seq2seq": ("Seq2seq_attention", _arrow),
    "positional": ("Positional_encoding", _slider("pe_len")),
    "transformer": ("Transformer_translation", _arrow),
    "one-head": ("Inside_one_head", _toggle("head_scale")),
    "generation": ("Generation", _arrow),
    "bert": (
        "BERT_masking",
        lambda page, i: (
            page.locator(".st-key-bert_click_pills button, [class*='st-key-bert_click'] button").nth(i % 4).click()
        ),
    ),
    "real512": (
        "Real_model_explorer?real_max=512&real_text=" + LONG_TEXT.replace(" ", "+"),
        _select_head("real_head", 12),
    ),
    "xl": ("Transformer_XL", _arrow),
    "xlnet": ("XLNet", _Pick("xlnet_head", 4)),
    "llm": ("LLM_explorer", _arrow),
    "block": ("Transformer_block", _Pick("block_token", 6)),
    "scale": ("Attention_at_scale", _arrow),
    "explanation": ("Attention_as_explanation", _Pick("xai_step", 3)),
    "present": ("Present?deck=1_teaching_order&slide=2", _arrow),  # a step within a presented slide
}


def measure(page, act: Callable, repeat: int) -> list[float]:
    """Seconds from each interaction to its last change on the page."""
    page.evaluate(WATCH_JS)
    times = []
    prepare = getattr(act, "prepare", None)
    for i in range(repeat + 1):
        page.wait_for_function(SETTLED_JS, timeout=120_000)
        if prepare:  # e.g. open a list: its drawing is not part of the time
            prepare(page, i)
            page.wait_for_function(SETTLED_JS, timeout=120_000)
        start = page.evaluate("performance.now()")
        act(page, i)
        page.wait_for_function(f"() => window.__lastChange > {start}", timeout=120_000)
        page.wait_for_function(SETTLED_JS, timeout=120_000)
        if i:  # the first interaction warms the caches
            times.append((page.evaluate("window.__lastChange") - start) / 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--pages", nargs="*", default=list(CASES))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results: dict[str, float] = {}
    ratios: dict[str, float] = {}
    with streamlit_server("app.py") as lab, streamlit_server("bench/floor_app.py") as floor, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="attn-bench-"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 720},
        )

        def opened(url: str):
            page = ctx.new_page()
            page.goto(url, wait_until="domcontentloaded")
            wait_for_app(page)
            page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
            return page

        floor_page = opened(f"{floor}/")
        floors: list[float] = []
        for name in [p for p in args.pages if p != "floor"] or ["floor"]:
            # The floor is clicked again right before each page: the machine's speed drifts over a run
            # (a floor's median moved by 15% between runs), and each ratio is taken against its own floor.
            floor_page.bring_to_front()
            floor_times = measure(floor_page, CASES["floor"][1], args.repeat)
            floors += floor_times
            if name == "floor":
                break
            path, act = CASES[name]
            page = opened(f"{floor if name.startswith('floor') else lab}/{path}")
            started = time.perf_counter()
            times = measure(page, act, args.repeat)
            results[name] = statistics.median(times)
            ratios[name] = results[name] / statistics.median(floor_times)
            print(
                f"{name:12s} median {results[name]:.3f} s  p90 {sorted(times)[int(0.9 * (len(times) - 1))]:.3f} s"
                f"  {ratios[name]:4.2f}× its floor ({statistics.median(floor_times):.3f} s)"
                f"  ({len(times)} clicks, {time.perf_counter() - started:.0f} s)",
                flush=True,
            )
            page.close()
        floor_page.close()
        ctx.close()
    results["floor"] = statistics.median(floors)
    print(f"floor        median {results['floor']:.3f} s over the run ({len(floors)} clicks)")
    pages = [n for n in ratios if not n.startswith("floor") and n != "real512"]
    worst = max(pages, key=ratios.__getitem__, default=None)
    if worst:
        print(f"slowest page: {worst}, {ratios[worst]:.2f}× the floor (bar: 1.5×)")
    if "real512" in results:
        print(f"Real model explorer, head change at 512 tokens: {results['real512']:.2f} s (bar: 1 s)")


if __name__ == "__main__":
    main()
