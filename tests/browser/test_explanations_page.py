"""The "Is attention an explanation?" page in a real browser at 1280×720 with the sidebar collapsed: the
methods figure (every method's row over the input tokens) is drawn on the first screen, with no error element,
in English and in 中文."""

from __future__ import annotations

import pytest

from tests.browser.conftest import ROOT, assert_no_error, wait_for_app
from tests.browser.test_first_screen import projector_page  # noqa: F401  (the 1280×720 fixture)

TITLE = {"en": "Which input tokens explain", "zh": "哪些输入词元解释了"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_methods_figure_on_the_first_screen(projector_page, lang):  # noqa: F811
    page = projector_page(f"Attention_as_explanation?lang={lang}")
    figure = page.locator(".st-key-xai_methods .js-plotly-plot").first
    figure.wait_for(timeout=120_000)
    wait_for_app(page)
    assert_no_error(page)
    box = figure.bounding_box()
    assert box is not None and box["y"] < 720 and box["height"] > 200
    assert box["y"] + box["height"] <= 720 and box["x"] + box["width"] <= 1280  # the whole figure, token axis too
    page.locator(".st-key-xai_methods .js-plotly-plot .heatmaplayer").first.wait_for(timeout=60_000)  # drawn
    assert page.locator(".st-key-xai_methods .gtitle", has_text=TITLE[lang]).count() == 1
    # every method row is labelled, in the reader's language, by its short name (the hover has the full one)
    from models.lessons.explanations import METHODS
    from ui.strings import STRINGS

    labels = page.locator(".st-key-xai_methods .ytick text").all_text_contents()
    assert len(labels) == len(METHODS) and not any(label.endswith("…") for label in labels), labels
    assert STRINGS["xai.ms.ig"][lang == "zh"] in labels
    (ROOT / "screenshots").mkdir(exist_ok=True)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ROOT / "screenshots" / f"explanations_1280x720_{lang}.png"))  # what the room sees
