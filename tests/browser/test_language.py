"""English and 中文 in a real browser: a Chinese link, the served CJK font, the sidebar switch, and
the language kept across a page change."""

from __future__ import annotations

from tests.browser.conftest import assert_no_error, wait_for_app
from ui.strings import STRINGS


def test_language_switch_and_font(app_url: str, browser_context) -> None:
    page = browser_context.new_page()
    try:
        page.goto(f"{app_url}/?lang=zh")
        wait_for_app(page)
        assert_no_error(page)
        assert page.locator("h1").first.inner_text() == STRINGS["app.title"][1]
        # the Chinese glyphs come from the app's own font file, not from a font server
        page.wait_for_function(
            "Array.from(document.fonts).some(f => f.family.includes('Lab CJK') && f.status === 'loaded')",
            timeout=30_000,
        )

        sidebar = page.get_by_test_id("stSidebarUserContent")
        sidebar.get_by_role("link", name=f"3. {STRINGS['nav.3'][1]}").click()  # another page keeps 中文
        page.wait_for_function(f"document.querySelector('h1')?.innerText === {STRINGS['nav.3'][1]!r}", timeout=120_000)
        wait_for_app(page)
        assert_no_error(page)
        assert "lang=zh" in page.url

        sidebar.get_by_text("English", exact=True).click()  # the sidebar switch
        page.wait_for_function(f"document.querySelector('h1')?.innerText === {STRINGS['nav.3'][0]!r}", timeout=60_000)
        assert "lang=en" in page.url
    finally:
        page.close()
