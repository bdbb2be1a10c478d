"""The quiz flow in a real browser: on the seq2seq page, turn on "Quiz: predict, then reveal" in the
Options, see step 1's α bars hidden, click the source word the model attends to most, see the
reveal and the score, and step on: the next step is hidden again."""

from playwright.sync_api import expect

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app
from tests.test_quiz import EN, _reference_trace

GUESSES = "[class*='st-key-s2s_quiz_']:not(.st-key-s2s_quiz_kind):not(.st-key-s2s_quiz_reset) button"


def test_guess_a_source_word_on_the_seq2seq_page(open_page):
    trace = _reference_trace()  # the model's α, computed here without the page
    alpha, best = trace.best.attention, int(trace.best.attention[0].argmax())
    page = open_page("Seq2seq_attention")
    page.wait_for_selector(".st-key-bars .main-svg", timeout=60_000)

    page.get_by_role("button", name=EN["seq2seq.options"]).click()
    page.get_by_text(EN["quiz.toggle"]).click()
    wait_for_app(page)
    page.keyboard.press("Escape")  # close the popover
    page.get_by_text(EN["quiz.ask.look"].format(step=1).replace("**", "")).wait_for(timeout=60_000)
    # Waited for, not read at once: under load the run that hides them may still be under way (a stale
    # "notRunning" lets wait_for_app return early) and the last run's elements stay until it ends.
    expect(page.locator(".st-key-bars")).to_have_count(0, timeout=60_000)  # the step's α is hidden …
    expect(page.locator(".st-key-topk")).to_have_count(0, timeout=60_000)  # … and its top-k
    page.locator(".st-key-heatmap .main-svg").first.wait_for(timeout=60_000)  # the main figure stays (rows blank)
    page.get_by_text(EN["quiz.score"].format(right=0, total=0)).wait_for(timeout=60_000)

    page.locator(GUESSES).nth(best).click()  # the right source word
    wait_for_app(page)
    page.wait_for_selector(".st-key-bars .main-svg", timeout=60_000)  # revealed
    revealed = page.locator("[data-testid='stAlertContentSuccess']").first.inner_text()
    assert EN["quiz.right"] in revealed
    assert f"“{trace.src_tokens[best]}” (α = {alpha[0, best]:.2f})" in revealed  # the model's answer, its α
    page.get_by_text(EN["quiz.score"].format(right=1, total=1)).wait_for(timeout=60_000)
    save_screenshot(page, "quiz_seq2seq")

    page.get_by_role("button", name="Next").click()  # on to step 2: hidden again
    page.get_by_text(EN["quiz.ask.look"].format(step=2).replace("**", "")).wait_for(timeout=60_000)
    wait_for_app(page)
    expect(page.locator(".st-key-bars")).to_have_count(0, timeout=60_000)
    page.locator(GUESSES).nth(int(alpha[1].argmin())).click()  # a wrong one
    wait_for_app(page)
    page.get_by_text(EN["quiz.score"].format(right=1, total=2)).wait_for(timeout=60_000)
    expect(page.locator("[data-testid='stAlertContentWarning']").filter(has_text=EN["quiz.wrong"])).to_have_count(
        1, timeout=60_000
    )
    assert_no_error(page)
