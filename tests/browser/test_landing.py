"""The landing page loads in a real browser and links the pages."""

from tests.browser.conftest import assert_no_error


def test_landing_page_lists_pages(open_page):
    page = open_page("")
    assert "Attention Lab" in page.inner_text("h1")
    assert page.locator("[data-testid='stPageLink']").count() >= 1
    assert_no_error(page)


def test_sidebar_names_the_landing_page_and_lists_every_page(open_page):
    """The first sidebar entry has a real name (Streamlit would call it "app"), pages follow in teaching order."""
    from ui.frame import PAGES

    page = open_page("Seq2seq_attention")
    links = page.locator("[data-testid='stSidebar'] [data-testid='stPageLink']")
    texts = [links.nth(i).inner_text().strip() for i in range(links.count())]
    assert texts[0].endswith("Attention Lab — home") and not any(t == "app" for t in texts)
    assert [t.split(". ", 1)[1] for t in texts[1:]] == [label for _, label, _ in PAGES]
    assert page.locator("[data-testid='stSidebarNav']").count() == 0
    links.nth(0).click()
    page.wait_for_selector("h1:has-text('Attention Lab')")
    assert_no_error(page)
