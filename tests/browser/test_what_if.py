"""The forced-token what-if in a real browser: on the seq2seq page, step to step 2, force another
candidate, and see the what-if translation and its own attention heatmap beside the original."""

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app

STEP = "input[type=range][aria-label='Decoding step']"


def test_force_a_token_on_the_seq2seq_page(open_page):
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(".main-svg", timeout=60_000)
    page.get_by_role("button", name="Next").click()
    page.wait_for_function(f"document.querySelector(\"{STEP}\")?.value === '2'", timeout=60_000)
    wait_for_app(page)

    expander = page.locator("[data-testid='stExpander']").filter(has_text="What if? Force a different token")
    expander.get_by_text("What if? Force a different token").click()
    pill = expander.locator("[data-testid='stButtonGroup'] button").first
    pill.wait_for(timeout=30_000)
    forced = pill.inner_text().split()[0]
    pill.click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-s2s_what_if_heatmap .main-svg", timeout=60_000)

    original, what_if = (t.split() for t in expander.locator("[data-testid='stText']").all_inner_texts())
    assert what_if[1] == forced != original[1]  # step 2 differs: the forced token
    assert what_if[0] == original[0]  # the step before it is the original's
    assert page.locator(".st-key-s2s_what_if_heatmap .heatmaplayer").count() == 1  # the what-if's heatmap
    assert page.locator(".st-key-s2s_what_if_original .heatmaplayer").count() == 1  # beside the original's
    assert page.locator(".st-key-heatmap .heatmaplayer").count() == 1  # the main figure stays
    assert expander.get_by_text("step 2 was forced").count() == 1
    assert_no_error(page)
    save_screenshot(page, "what_if_seq2seq")
