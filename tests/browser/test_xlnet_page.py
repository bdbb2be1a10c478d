"""The XLNet page in a real browser at 1280×720 with the sidebar collapsed: the order and both
streams' attention start on the first screen, no error element, and a sentence typed as HTML is
shown as text, never rendered."""

from __future__ import annotations

from urllib.parse import quote

from tests.browser.conftest import ROOT, assert_no_error, wait_for_app
from tests.browser.test_first_screen import projector_page  # noqa: F401  (the 1280×720 fixture)

HTML = "<b>bold</b> <img src=x onerror=alert(1)> city"
MAIN = ("xlnet_order", "xlnet_query", "xlnet_content")


def _figures_start_on_the_first_screen(page) -> None:
    for key in MAIN:
        figure = page.locator(f".st-key-{key} .js-plotly-plot").first
        figure.wait_for(timeout=60_000)
        assert figure.bounding_box()["y"] < 720, key


def test_first_screen_and_typed_html(projector_page):  # noqa: F811
    page = projector_page("XLNet")
    _figures_start_on_the_first_screen(page)
    assert_no_error(page)
    (ROOT / "screenshots").mkdir(exist_ok=True)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ROOT / "screenshots" / "xlnet_1280x720.png"))  # what the room sees
    page.locator(".st-key-xlnet_resample button").first.click()  # another order: its seed goes to the URL
    page.wait_for_function("new URLSearchParams(location.search).get('xlnet_seed') === '1'", timeout=60_000)
    wait_for_app(page)
    assert_no_error(page)

    page.goto(page.url.split("?")[0] + f"?xlnet_text={quote(HTML)}", wait_until="domcontentloaded")
    wait_for_app(page)
    _figures_start_on_the_first_screen(page)
    assert_no_error(page)
    main = page.locator("[data-testid='stMain']")
    assert main.locator("b", has_text="bold").count() == 0  # the typed <b> is not rendered as bold
    assert page.locator("img[src='x']").count() == 0  # nor the <img>
    assert main.locator("[data-testid='stTextInput'] input").first.input_value() == HTML  # kept as typed
    assert page.locator(".st-key-xlnet_order .xtick text", has_text="<").count() >= 1  # drawn as text
