"""Slides of the Real LLM page's other tabs (issue 24): a view added from the grouped-query attention,
RoPE or head types tab, with settings other than the page's defaults, presents that tab's view with
those settings (the same figure data as the page, one step, no "on the page itself" note), in English
and 中文. The page's model is test_llm's tiny random Llama (its ``page_model`` fixture)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from models.inference import llm as L
from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from tests.test_llm import page_model  # noqa: F401  (the fixture: the page's model, a tiny random Llama)
from ui.strings import STRINGS

pytestmark = pytest.mark.slow  # every test runs a page

PAGE = str(ROOT / "pages" / "9_LLM_explorer.py")
PRESENT = str(ROOT / "pages" / "12_Present.py")

# (topic, the page's settings in its link: none of them its default)
VIEWS = [
    ("gqa", {"llm_bytes": "2", "llm_context": "1024"}),
    ("rope", {"llm_pair": "2", "llm_positions": "20"}),
    (
        "heads",
        {
            "llm_kind": "sink",
            "llm_period": "12",
            "llm_heads_seed": "3",
            "llm_heads_text": "w3 w4 w5 w6 w7 w3 w4 w9 w10",
        },
    ),
    ("heads", {"llm_kind": "previous", "llm_period": "20"}),
]
OTHER_TOPIC = [text.split("“{raw}”")[1].strip(" .。") for text in STRINGS["slide.other_topic"]]  # "is on the page …"


def _traces(at: AppTest) -> list[str]:
    """The data of every figure the run drew (traces only: a slide draws larger fonts and sizes)."""
    return [json.dumps(chart.figure["data"], sort_keys=True) for chart in charts(at)]


def _texts(at: AppTest) -> str:
    return "\n".join(e.value for kind in ("markdown", "caption", "info", "warning", "error") for e in getattr(at, kind))


def _page(topic: str, settings: dict[str, str], lang: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.query_params.update(topic=topic, lang=lang, **settings)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.info and not at.warning, _texts(at)  # every setting of the link was taken
    return at


def _present(at: AppTest, lang: str) -> AppTest:
    """The page's view added to the deck (the sidebar's button), presented as slide 1."""
    at.button(key="deck_add").click().run()
    assert not at.exception
    present = AppTest.from_file(PRESENT, default_timeout=APPTEST_TIMEOUT)
    present.session_state["deck_slides"] = at.session_state["deck_slides"]
    present.query_params.update(deck="session", slide="1", lang=lang)
    present.run()
    assert not present.exception and not present.error and not present.warning, _texts(present)
    return present


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("topic, settings", VIEWS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(VIEWS)])
def test_a_slide_draws_the_tab_it_was_added_from(
    page_model: L.LLM,  # noqa: F811
    topic: str,
    settings: dict[str, str],
    lang: str,
) -> None:
    at = _page(topic, settings, lang)
    drawn = _traces(at)
    assert drawn
    present = _present(at, lang)
    (slide,) = present.session_state["deck_slides"]
    assert slide.page == "9_LLM_explorer" and slide.params["topic"] == topic
    assert settings.items() <= slide.params.items()  # the slide keeps the page's settings
    texts = _texts(present)
    assert not any(note in texts for note in OTHER_TOPIC), texts  # no "on the page itself"
    assert not present.caption, texts  # every setting taken: no refused value
    assert _traces(present) == drawn  # the page's figures, with the page's numbers
    assert present.button(key="slide_next").disabled  # a view without steps is one step (the deck's last)
    if lang == "zh":  # every figure word of the slide in 中文
        from tests.test_transformer_xl import _english_figure_words

        assert _english_figure_words(present) == []
    if topic == "gqa":  # the KV cache at the page's bytes per value and context length, as the page says it
        line = texts.replace("\\", "")  # the slide's line is escaped markdown
        assert at.metric[0].value in line and at.metric[1].value in line and "1,024" in line
    if topic == "heads":
        kind = STRINGS[f"llm_explorer.kind.{settings['llm_kind']}"][lang == "zh"]
        assert charts(present)[0].figure["layout"]["title"]["text"].startswith(kind)


def test_slide_settings_change_what_it_draws(page_model: L.LLM) -> None:  # noqa: F811
    """The slide reads the settings, not the page's defaults: other settings, other figure data."""
    from ui.deck import Slide

    def slide_traces(params: dict[str, str]) -> list[str]:
        present = AppTest.from_file(PRESENT, default_timeout=APPTEST_TIMEOUT)
        present.session_state["deck_slides"] = [Slide("9_LLM_explorer", params)]
        present.query_params.update(deck="session", slide="1")
        present.run()
        assert not present.exception and not present.caption, _texts(present)
        return _traces(present)

    assert slide_traces({"topic": "rope"}) != slide_traces({"topic": "rope", "llm_pair": "3"})
    assert slide_traces({"topic": "heads"}) != slide_traces({"topic": "heads", "llm_kind": "sink"})
    assert len(slide_traces({"topic": "rope"})) == 3  # the pair, the wavelengths, the scores


def test_a_refused_slide_setting_is_noted_and_the_default_drawn(page_model: L.LLM) -> None:  # noqa: F811
    from ui.deck import Slide

    present = AppTest.from_file(PRESENT, default_timeout=APPTEST_TIMEOUT)
    present.session_state["deck_slides"] = [Slide("9_LLM_explorer", {"topic": "rope", "llm_pair": "99"})]
    present.query_params.update(deck="session", slide="1")
    present.run()
    assert not present.exception
    assert "“99”" in _texts(present) and charts(present)


def test_each_tabs_view_is_a_state_of_values(page_model):  # noqa: F811  (the fixture)
    """Each tab's view state reads back from its link in either language, with no note: values, never labels."""
    from ui.i18n import reading
    from ui.views.base import SlideParams
    from ui.views.llm import GQAState, HeadTypesState, LLMGenerationState, RopeState, TranslationState

    name = page_model.name
    states = [
        GQAState(name, 2, 1024),
        RopeState(name, 2, 20),
        HeadTypesState(name, "previous", "w3 w4 w5 w6 w7 w3 w4", 12, 3),
        TranslationState(name, "en-fr", "w5 w6 w7", "head", 1, 2, False),
    ]
    for lang in ("en", "zh"):
        with reading(lang):
            for state in states:
                p = SlideParams(state.link())
                assert type(state).read(p, page_model) == state and not p.notes, (state, p.notes)
            generation = LLMGenerationState(name, "Hello there", False, 0.0, 0, 0.5, 5, 9, False, "heads", 2)
            p = SlideParams(generation.link())
            assert LLMGenerationState.read(p, name, page_model.n_layers) == generation and not p.notes


def test_each_tabs_link_writes_the_declared_keys_that_its_slide_reads(page_model):  # noqa: F811  (the fixture)
    """Each key of a tab's link is one its state declares (``KEYS``), and the tab's slide asks for it (the
    model and the tab are read by the slide, the rest by the state's ``read``)."""
    from tests.test_view_states import AskedParams
    from ui.views.llm import slide

    for state in _tab_states():
        link = state.link()
        assert set(link) <= set(type(state).KEYS.values()), (state, set(link) - set(type(state).KEYS.values()))
        p = AskedParams(link)
        slide(p)
        assert set(link) <= p.asked and not p.notes, (state, set(link) - p.asked, p.notes)


def _tab_states() -> list:
    """One state per tab of the page (the model is the page's: ``page_model`` is served as it), none of
    them the tab's defaults."""
    from ui.views.llm import GQAState, HeadTypesState, LLMGenerationState, RopeState, TranslationState

    name = L.MODEL_NAME
    return [
        LLMGenerationState(name, "w5 w6 w7 w8", False, 0.0, 0, 0.5, 3, 9, False, "heads", 2),
        GQAState(name, 2, 1024),
        RopeState(name, 2, 20),
        HeadTypesState(name, "previous", "w3 w4 w5 w6 w7 w3 w4", 12, 3),
        TranslationState(name, "en-fr", "w5 w6 w7", "layer", 1, 0, False),
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("index", range(5), ids=["generation", "gqa", "rope", "heads", "translate"])
def test_the_page_publishes_the_state_of_the_tab_shown(page_model: L.LLM, index: int, lang: str) -> None:  # noqa: F811
    """Opened from a tab's state link, the page draws that tab from the same state and publishes it
    (ui.deck.VIEW_STATE), so "Add this view" records the state's link."""
    from ui.deck import SESSION_KEY, VIEW_STATE

    state = _tab_states()[index]
    assert state.model == page_model.name
    settings = state.link()
    at = _page(settings.pop("topic", "generation"), settings, lang)  # (the generation tab's link has no topic)
    assert at.session_state[VIEW_STATE] == ("9_LLM_explorer", state)
    if lang == "en":  # (AppTest reruns a 中文 page's select boxes by their English labels)
        at.button(key="deck_add").click().run()
        (slide,) = at.session_state[SESSION_KEY]
        assert slide.page == "9_LLM_explorer" and state.link().items() <= slide.params.items()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_translation_slide_steps_through_the_pages_figures(page_model: L.LLM, lang: str) -> None:  # noqa: F811
    """The translation tab's slide: one step per generated token, each drawing the page's two figures at
    that token (its summary heatmap and the share of every layer × head on the source), then the lab's
    Transformer on the same sentence, the page's third figure; the same figure data as the page's."""
    from ui.views.llm import TranslationState

    state = TranslationState(page_model.name, "en-fr", "w5 w6 w7", "head", 1, 2, False)
    settings = state.link()
    at = _page(settings.pop("topic"), settings | {"llm_max_new": "3"}, lang)
    page = _traces(at)
    assert len(page) == 3  # the summary, the shares, the lab's Transformer
    present = _present(at, lang)
    steps = []
    while True:
        steps.append(_traces(present))
        if present.button(key="slide_next").disabled:
            break
        present.button(key="slide_next").click().run()
        assert not present.exception
    assert steps[0] == page[:2]  # token 1, as the page draws it at its first step
    assert steps[-1] == page[2:]  # the lab's Transformer
    assert len(steps) == len(json.loads(page[0])[0]["y"]) + 1  # one per generated token, and the lab's
    if lang == "zh":
        from tests.test_transformer_xl import _english_figure_words

        assert _english_figure_words(present) == []
