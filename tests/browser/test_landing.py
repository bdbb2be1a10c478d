"""The landing page loads in a real browser and links the pages."""
from tests.browser.conftest import assert_no_error


def test_landing_page_lists_pages(open_page):
    page = open_page("")
    assert "Attention Lab" in page.inner_text("h1")
    assert page.locator("[data-testid='stPageLink']").count() >= 1
    assert_no_error(page)
