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
    page.locator(".st-key-xai_methods .js-plotly-plot .heatmaplayer").first.wait_for(timeout=60_000)  # drawn
    assert page.locator(".st-key-xai_methods .gtitle", has_text=TITLE[lang]).count() == 1
    # the method rows are labelled in the reader's language
    row = "integrated" if lang == "en" else "积分梯度"  # long labels are shortened with an ellipsis
    assert page.locator(".st-key-xai_methods .ytick text", has_text=row).count() == 1
    (ROOT / "screenshots").mkdir(exist_ok=True)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ROOT / "screenshots" / f"explanations_1280x720_{lang}.png"))  # what the room sees
