"""Deep links in a real browser: a URL with model, text, layer, head and step opens exactly that
view; a widget changed in the page is written back to the address bar; a bad link shows a notice."""
from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

from tests.browser.conftest import assert_no_error, save_screenshot, wait_for_app

STEP = "input[type=range][aria-label='Decoding step']"


def _wait_for_step(page, value: int) -> None:
    page.wait_for_function(f"document.querySelector(\"{STEP}\")?.value === '{value}'", timeout=60_000)


def _selected(page, key: str) -> str:
    return page.locator(f".st-key-{key} input").first.input_value()


def _url_params(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_seq2seq_deep_link(open_page):
    link = {"s2s_model": "Luong dot", "s2s_text": "the red car is small .", "s2s_step": "3"}
    page = open_page("Seq2seq_attention?" + urlencode(link))
    page.wait_for_selector(".main-svg", timeout=60_000)
    _wait_for_step(page, 3)
    assert page.locator(".st-key-s2s_text input").input_value() == link["s2s_text"]
    assert _selected(page, "s2s_model") == "Luong dot"
    assert page.get_by_text("Step 3 of").count() == 1
    assert page.get_by_text("Translation by Luong dot").count() == 1
    assert_no_error(page)
    page.get_by_role("button", name="Next").click()  # the step the page moves to goes to the URL
    _wait_for_step(page, 4)
    wait_for_app(page)
    page.wait_for_function("location.search.includes('s2s_step=4')", timeout=30_000)
    assert _url_params(page)["s2s_model"] == ["Luong dot"]


def test_transformer_deep_link(open_page):
    link = {"tf_text": "the red car is small .", "tf_layer": "layer 2", "tf_head": "head 3", "tf_step": "3",
            "tf_kind": "Encoder self-attention"}
    page = open_page("Transformer_translation?" + urlencode(link))
    page.wait_for_selector(".main-svg", timeout=60_000)
    _wait_for_step(page, 3)
    assert page.locator(".st-key-tf_text input").input_value() == link["tf_text"]
    assert _selected(page, "tf_layer") == "layer 2"
    assert _selected(page, "tf_head") == "head 3"
    assert page.locator(".st-key-tf_kind input[type=radio]:checked").count() == 1
    assert page.get_by_text("Step 3 of").count() == 1
    assert_no_error(page)
    save_screenshot(page, "deep_link_transformer")
    page.get_by_role("button", name="Prev").click()
    _wait_for_step(page, 2)
    wait_for_app(page)
    page.wait_for_function("location.search.includes('tf_step=2')", timeout=30_000)
    params = _url_params(page)
    assert params["tf_layer"] == ["layer 2"] and params["tf_head"] == ["head 3"]


def test_bad_deep_link_shows_a_notice(open_page):
    link = {"tf_model": "<b>gone</b>", "tf_layer": "layer 99", "tf_head": "-1", "tf_step": "999"}
    page = open_page("Transformer_translation?" + urlencode(link))
    page.wait_for_selector(".main-svg", timeout=60_000)
    notices = page.locator("[data-testid='stAlertContentInfo']")
    page.wait_for_function("document.querySelectorAll(\"[data-testid='stAlertContentInfo']\").length >= 3",
                           timeout=30_000)
    text = " ".join(notices.all_inner_texts())
    assert "<b>gone</b>" in text and page.locator("[data-testid='stAlertContentInfo'] b").count() == 0
    assert "the last step" in text
    assert _selected(page, "tf_layer") == "layer 1"
    assert_no_error(page)
