"""Presentation mode in a real browser at 1280×720: the ready-made 10-slide deck walked with the
arrow keys (and the clicker's PageUp/PageDown), no error or warning element, no request to any
host but the app's, every slide's figure at least 1,000 px wide and on the first screen, the
slide number in the URL; and a view added from a page's sidebar presented at its own step."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.browser.conftest import assert_no_error, forget_deck, save_screenshot, wait_for_app

FIGURE = ".st-key-slide_figure"
COUNTER = "document.querySelector('[data-testid=\"stMain\"]').innerText"


def _position(page) -> tuple[int, int]:
    """(slide, step) from the URL (step 1 when the slide has no steps)."""
    query = parse_qs(urlsplit(page.url).query)
    return int(query["slide"][0]), int(query.get("step", ["1"])[0])


def _press(page, key: str) -> tuple[int, int]:
    """Press ``key`` and wait for the URL to move and the new slide to be drawn."""
    before = page.evaluate("location.search")
    page.keyboard.press(key)
    page.wait_for_function(f"location.search !== {before!r}", timeout=60_000)
    wait_for_app(page)
    return _position(page)


def _check_slide(page, number: int) -> None:
    """No error or warning, no sidebar or header, the figure ≥ 1,000 px wide and inside 1280×720."""
    page.wait_for_selector(f"{FIGURE} .main-svg", timeout=120_000)
    assert_no_error(page)
    assert page.locator("[data-testid='stAlertContentWarning']").count() == 0, f"slide {number}"
    assert not page.locator("[data-testid='stSidebar']").is_visible()
    assert not page.locator("[data-testid='stHeader']").is_visible()
    box = page.locator(FIGURE).bounding_box()
    assert box is not None and box["width"] >= 1000, (number, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= 720, (number, box)
    assert page.locator(".js-plotly-plot").count() == 1  # one figure: the slide's


def save_screenshot_at(page, name: str) -> None:
    """A screenshot of the screen as the room sees it (save_screenshot would resize the page)."""
    from tests.browser.conftest import ROOT

    (ROOT / "screenshots").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "screenshots" / f"{name}.png"))


def test_walk_ready_made_deck_with_arrow_keys(app_url, browser_context):
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    app_host = urlsplit(app_url).netloc
    foreign: list[str] = []
    page.on(
        "request",
        lambda r: (
            foreign.append(r.url)
            if urlsplit(r.url).scheme not in ("data", "blob") and urlsplit(r.url).netloc != app_host
            else None
        ),
    )
    try:
        page.goto(f"{app_url}/Present?deck=1_teaching_order&slide=1", wait_until="domcontentloaded")
        wait_for_app(page)
        assert _position(page) == (1, 1)
        _check_slide(page, 1)
        save_screenshot_at(page, "present_slide_1")
        # The clicker's keys: PageDown moves one step on, PageUp one step back.
        assert _press(page, "PageDown") == (1, 2)
        assert _press(page, "PageUp") == (1, 1)
        slide, presses = 1, 0
        while slide < 10:
            new_slide, step = _press(page, "ArrowRight")
            presses += 1
            assert new_slide in (slide, slide + 1), (slide, new_slide)
            if new_slide != slide:
                assert step == 1, f"slide {new_slide} starts at its own step"
                slide = new_slide
                _check_slide(page, slide)
            assert presses < 200
        assert "10 / 10" in page.evaluate(COUNTER)
        save_screenshot_at(page, "present_slide_10")
        page.keyboard.press("ArrowRight")  # past the last slide: nothing moves
        page.wait_for_timeout(500)
        wait_for_app(page)
        assert _position(page)[0] == 10
        assert _press(page, "ArrowLeft")[0] == 9  # back: slide 9 at its last step
        assert _position(page)[1] > 1
        page.set_viewport_size({"width": 1920, "height": 1080})  # the same slide fills a full-HD screen
        page.wait_for_timeout(1000)
        box = page.locator(FIGURE).bounding_box()
        assert box["width"] >= 1800 and box["height"] > 600 and box["y"] + box["height"] <= 1080, box
        assert not foreign, foreign
    finally:
        page.close()


def test_added_view_is_presented_at_its_step(app_url, browser_context):
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1400, "height": 1000})
    try:
        forget_deck(page, app_url)
        page.goto(f"{app_url}/Seq2seq_attention?s2s_model=s2s-luong-dot&s2s_step=3", wait_until="domcontentloaded")
        wait_for_app(page)
        page.wait_for_selector(".main-svg", timeout=60_000)
        page.get_by_role("button", name="Add this view to the deck").click()
        page.wait_for_function(
            f"{COUNTER}.length > 0 && document.querySelector('[data-testid=\"stSidebar\"]')"
            ".innerText.includes('1 slide')",
            timeout=30_000,
        )
        page.locator("[data-testid='stSidebar'] a[href$='Present']").click()  # same session: the deck is kept
        wait_for_app(page)
        page.get_by_role("button", name="Present").click()
        page.wait_for_function("location.search.includes('slide=1')", timeout=30_000)
        wait_for_app(page)
        page.wait_for_selector(f"{FIGURE} .main-svg", timeout=60_000)
        assert _position(page) == (1, 3)
        assert "Luong dot" in page.evaluate(COUNTER)
        assert_no_error(page)
        save_screenshot(page, "present_session_deck")
    finally:
        forget_deck(page, app_url)
        page.close()
