"""Export in a real browser, on the seq2seq page: the trace JSON, the heatmap's numbers (CSV) and the
handout from the Export menu, the heatmap as PNG (plotly's camera button) and as SVG (our button
beside it) — each named after page, view and step, all made without one request leaving 127.0.0.1."""

from __future__ import annotations

import csv
import io
import json
import re
import struct
from tests.browser.conftest import assert_no_error, open_logged, outside

HEATMAP = ".st-key-heatmap .js-plotly-plot"


NAMES: dict[str, str] = {}  # the downloads' suggested file names, by button label or tooltip


def _download(page, click, what: str) -> bytes:
    with page.expect_download(timeout=60_000) as info:
        click()
    NAMES[what] = info.value.suggested_filename
    return open(info.value.path(), "rb").read()


def _menu_download(page, label: str) -> bytes:
    page.get_by_role("button", name="Export").first.click()
    button = page.get_by_role("button", name=label, exact=True)
    button.wait_for(timeout=30_000)
    return _download(page, button.click, label)


def _chart_download(page, title: str) -> bytes:
    page.hover(HEATMAP)  # the mode bar shows on hover
    button = page.locator(f"{HEATMAP} .modebar-btn[data-title='{title}']")
    button.wait_for(timeout=30_000)
    return _download(page, button.click, title)


def test_seq2seq_downloads_offline(app_url, browser_context):
    page, requests = open_logged(browser_context, f"{app_url}/Seq2seq_attention", f"{HEATMAP} .heatmaplayer")
    try:
        trace = json.loads(_menu_download(page, "Whole trace (JSON)"))
        assert trace["model"] == "s2s-bahdanau" and trace["src_tokens"][-1] == "</s>"
        assert len(trace["attention"]) == len(trace["tgt_tokens"])
        assert all(abs(sum(row) - 1) < 1e-4 for row in trace["attention"])
        page.keyboard.press("Escape")

        # the heatmap's numbers: one row per cell, each the weight of the trace (issue 24: header only)
        rows = list(csv.DictReader(io.StringIO(_menu_download(page, "Attention (CSV)").decode("utf-8"))))
        attention = trace["attention"]
        assert len(rows) == len(attention) * len(attention[0])
        assert all(abs(float(r["value"]) - attention[int(float(r["y"]))][int(float(r["x"]))]) < 1e-6 for r in rows)
        page.keyboard.press("Escape")

        handout = _menu_download(page, "Handout (HTML, offline)").decode("utf-8")
        assert handout.startswith("<!DOCTYPE html>") and "Seq2seq attention" in handout
        assert not re.search(
            r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", handout, re.I
        )
        page.keyboard.press("Escape")

        png = _chart_download(page, "Download plot as a PNG")
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])
        assert (width, height) == (1920, 1080)

        svg = _chart_download(page, "Download plot as an SVG").decode("utf-8")
        assert "<svg" in svg and 'width="1280"' in svg and "heatmaplayer" in svg
        assert NAMES == {
            "Whole trace (JSON)": "seq2seq-attention-trace.json",
            "Attention (CSV)": "seq2seq-attention-heatmap-step1.csv",
            "Handout (HTML, offline)": "seq2seq-attention-handout-step1.html",
            "Download plot as a PNG": "seq2seq-attention-heatmap-step1.png",
            "Download plot as an SVG": "seq2seq-attention-heatmap-step1.svg",
        }
        assert_no_error(page)
    finally:
        page.close()
    assert outside(requests) == [], outside(requests)
    assert any("127.0.0.1" in u for u in requests)
