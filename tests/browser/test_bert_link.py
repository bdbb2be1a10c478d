"""Issue 24 in a real browser: on the BERT masking page an emptied sentence B and a clicked piece go
into the address bar (``bert_b=``, ``bert_clicked=2``), and the link opens that view again in a new
session: no sentence B, the piece still clicked."""

from playwright.sync_api import expect

from tests.browser.conftest import assert_no_error, wait_for_app

B_LABEL = "Sentence B (optional: leave empty for one segment)"


def test_an_empty_b_and_a_clicked_piece_are_in_the_link(open_page, app_url):
    page = open_page("BERT_masking?bert_draw=false")
    page.wait_for_selector(".st-key-deck_add", timeout=60_000)
    page.get_by_label(B_LABEL).fill("")
    page.keyboard.press("Enter")
    page.wait_for_function("new URLSearchParams(location.search).get('bert_b') === ''", timeout=60_000)
    # The pills are keyed on both sentences: click only once the rerun without B has drawn them (no "milk"
    # left), else the click lands on the old pills and is dropped (a stale "notRunning" under load).
    expect(page.locator("[data-testid='stButtonGroup'] button").filter(has_text="milk")).to_have_count(
        0, timeout=60_000
    )
    wait_for_app(page)
    pills = page.locator("[data-testid='stButtonGroup']").filter(has_text="man").first
    pills.get_by_role("button").filter(has_text="man").first.click()
    page.wait_for_function("new URLSearchParams(location.search).get('bert_clicked') === '2'", timeout=60_000)
    page.get_by_text("(1 clicked)").first.wait_for(timeout=60_000)
    wait_for_app(page)
    link = page.url
    assert_no_error(page)

    again = open_page(link.removeprefix(f"{app_url}/"))  # a new session from the link alone
    again.get_by_text("(1 clicked)").first.wait_for(timeout=60_000)
    assert again.get_by_label(B_LABEL).input_value() == ""
    assert "bert_clicked=2" in again.url and "bert_b=" in again.url
    assert_no_error(again)
