"""The deck being built is kept by the browser: ten views added on a page are all there after a
reload, a second tab of the same browser sees them, and a slide added in one tab reaches the other
without a reload."""

from __future__ import annotations

from tests.browser.conftest import assert_no_error, forget_deck, wait_for_app

SIDEBAR = "document.querySelector('[data-testid=\"stSidebar\"]')?.innerText || ''"


def _wait_count(page, n: int) -> None:
    """Wait until the sidebar says the deck has ``n`` slides."""
    page.wait_for_function(f"({SIDEBAR}).includes('Your deck: {n} slide(s).')", timeout=60_000)


def test_ten_views_survive_a_reload_and_reach_another_tab(app_url, browser_context):
    page = browser_context.new_page()
    other = None
    try:
        forget_deck(page, app_url)
        page.goto(f"{app_url}/Positional_encoding?lang=en", wait_until="domcontentloaded")
        wait_for_app(page)
        _wait_count(page, 0)
        for n in range(1, 11):
            page.get_by_role("button", name="Add this view to the deck").click()
            _wait_count(page, n)
            wait_for_app(page)  # the run is over, as a teacher sees it, before the next click
        page.reload(wait_until="domcontentloaded")
        wait_for_app(page)
        _wait_count(page, 10)  # a new session: the browser handed the deck back

        other = browser_context.new_page()
        other.goto(f"{app_url}/Present?lang=en", wait_until="domcontentloaded")
        wait_for_app(other)
        other.wait_for_function(
            "document.querySelector('[data-testid=\"stMain\"]').innerText.includes('Your deck')", timeout=60_000
        )
        _wait_count(other, 10)

        page.get_by_role("button", name="Add this view to the deck").click()  # the first tab adds one more
        _wait_count(page, 11)
        _wait_count(other, 11)  # the second tab follows, without a reload
        assert_no_error(page)
        assert_no_error(other)
    finally:
        forget_deck(page, app_url)  # the tests share one browser profile
        page.close()
        if other is not None:
            other.close()


def test_a_clicker_starts_the_deck_and_skips_a_slide(app_url, browser_context):
    """F5 on the overview starts the deck (a clicker's "present" button), "." (its third button)
    skips the rest of a slide's steps, N shows the speaker notes."""
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        forget_deck(page, app_url)
        page.goto(f"{app_url}/Seq2seq_attention?lang=en", wait_until="domcontentloaded")
        wait_for_app(page)
        page.wait_for_selector(".main-svg", timeout=120_000)
        for n in (1, 2):
            page.get_by_role("button", name="Add this view to the deck").click()
            _wait_count(page, n)
        page.locator("[data-testid='stSidebar'] a[href$='Present']").click()
        wait_for_app(page)
        page.wait_for_selector(".st-key-present_start button", timeout=60_000)
        page.keyboard.press("F5")
        page.wait_for_function("location.search.includes('slide=1')", timeout=60_000)
        wait_for_app(page)
        page.wait_for_selector(".st-key-slide_figure .main-svg", timeout=120_000)
        assert "step=1" in page.url
        page.keyboard.press(".")
        page.wait_for_function("location.search.includes('slide=2')", timeout=60_000)
        wait_for_app(page)
        assert "step=1" in page.url  # the next slide, from its first step
        assert_no_error(page)
    finally:
        forget_deck(page, app_url)
        page.close()
