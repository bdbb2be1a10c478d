"""A view's state is values, never labels: it goes through its link and back unchanged in either
language, and a link made in one language reads as the same state in the other (issue 24, item 1)."""

from __future__ import annotations

import pytest

from ui.deck import SESSION_KEY, VIEW_STATE
from ui.i18n import reading
from ui.views.base import SlideParams
from ui.grid import AVERAGE
from ui.views.at_scale import TilesState
from ui.views.bert import FinetuneState, MaskingState
from ui.views.block import BlockState
from ui.views.explanations import ExplanationState
from ui.views.foundations import KernelState
from ui.views.one_head import HeadState
from ui.views.positional import ROTATION, PositionalState
from ui.views.real_model import RealState
from ui.views.seq2seq import ExposureState as Seq2seqExposure
from ui.views.seq2seq import Seq2seqState
from ui.views.transformer import ExposureState, GenerationState, SmoothingState, TranslationState
from ui.views.transformer_xl import XLState
from ui.views.xlnet import XLNetState

STATES = [
    Seq2seqState("s2s-bahdanau", "the red car is not big .", 1, "soft", 0.6),
    Seq2seqState("s2s-luong-general", "the small cat sleeps .", 4, "hard", 1.25, compare="s2s-bahdanau"),
    Seq2seqState("s2s-hsk-bahdanau", "我想喝一杯咖啡", 2, "soft", 0.0),
    TranslationState("tf-en-fr", "the red car is not big .", 3, 0.6, "encoder", 1, 2),
    TranslationState("tf-en-fr", "the small cat sleeps .", 1, 1.5, "cross", 0, AVERAGE),
    TranslationState("tf-hsk", "我想喝一杯咖啡", 1, 0.6, "decoder", 1, 0),
    GenerationState("tf-lm", "In the beginning God", 0.0, 0, 12, 7, 1, AVERAGE),
    GenerationState("tf-lm", "Jesus wept", 1.3, 5, 40, 999_999, 0, 3),
    BlockState("encoder-decoder", "", "dec.cross", 1, 2),
    BlockState("decoder-only", "In the beginning God created", "dec.ffn.norm", 0, 3, "block.tab.norms"),
    BlockState("encoder-only", "Jesus wept .", "out", 0, 1, "block.tab.smoothing"),
    HeadState("tf-en-fr", "the red car is not big .", "cross", 1, 3, 2, False),
    HeadState("tf-lm", "In the beginning God created", "lm", 0, 1, 4, True),
    PositionalState(d_model=128, length=50),
    PositionalState(ROTATION, layer=1, head=3),
    KernelState(30, 0.25, 0.5, 50, 0.1, "parametric", 7),
    XLState("xl-lm", "In the beginning God created the heavens and the earth .", 6, 12, 1, AVERAGE),
    XLNetState("xlnet-small", "In the beginning God created the heavens", "random", 5, "", 2, 1, 0),
    XLNetState("xlnet-small", "Jesus wept", "typed", 0, "2 1", 1, 0, AVERAGE),
    MaskingState("minilm-mlm", "The man went to the store.", "", 7, False, "reference", (2, 4)),
    MaskingState("bert-small", "In the beginning God created the heavens", "Jesus wept", 3, True, "independent"),
    TilesState("tf-lm", "In the beginning God created the heavens and the earth", 1, 2, 4, 0),
    ExplanationState("tf-en-fr", "the red car is in the small house .", -1, 1, 2),
    RealState("installed", "The animal didn't cross the street because it was too tired.", "", 64, "head", 4, 5),
    FinetuneState("small", "qa"),
    FinetuneState("minilm", "cls"),  # recorded in the saved evaluation: its weights need not be here
    ExposureState("tf-hsk", 3),  # the sections below the translation view with their own slide
    SmoothingState(),
    Seq2seqExposure("s2s-forcing-0.5", 5),
]


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{type(s).__name__}-{STATES.index(s)}")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_state_reads_back_from_its_link(state, lang: str) -> None:
    with reading(lang):
        p = SlideParams(state.link())
        assert _read(state, p) == state
        assert not p.notes, p.notes


def _read(state, p: SlideParams):
    """The state ``p`` holds, read by ``state``'s class (RealState.read gives the loaded model too)."""
    read = type(state).read(p)
    return read[0] if isinstance(read, tuple) else read


class AskedParams(SlideParams):
    """A slide's URL values that keep every key read asks for (present or not)."""

    def __init__(self, params: dict[str, str]) -> None:
        super().__init__(params)
        self.asked: set[str] = set()

    def raw(self, key: str) -> str | None:
        self.asked.add(key)
        return super().raw(key)


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{type(s).__name__}-{STATES.index(s)}")
def test_a_link_writes_the_declared_keys_that_read_reads(state) -> None:
    """Each key of a state's link is one its class declares (``KEYS``), and its ``read`` asks for it: a key
    spelled one way in the link and another in ``read`` would drop that setting from every link."""
    link = state.link()
    assert set(link) <= set(type(state).KEYS.values()), set(link) - set(type(state).KEYS.values())
    p = AskedParams(link)
    _read(state, p)
    assert set(link) <= p.asked, set(link) - p.asked


def test_every_declared_key_is_in_some_link() -> None:
    """The example states write every key their class declares, so the test above reads each of them."""
    for cls in {type(s) for s in STATES}:
        written = set().union(*(s.link() for s in STATES if type(s) is cls))
        assert written == set(cls.KEYS.values()), (cls.__name__, set(cls.KEYS.values()) - written)


def test_every_view_state_declares_each_key_once() -> None:
    """Every view state names its URL keys in one place: ``KEYS`` maps each of its fields (and only its fields,
    or a class value its link writes: a tab's name) to a key of its own."""
    import dataclasses
    import inspect
    import sys

    from ui.slides import RENDERERS

    modules = {sys.modules[renderer.__module__] for renderer in RENDERERS.values()}
    for module in modules:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not dataclasses.is_dataclass(cls) or not hasattr(cls, "link"):
                continue
            fields = {f.name for f in dataclasses.fields(cls)}
            assert isinstance(cls.__dict__.get("KEYS"), dict), f"{cls.__name__}: no KEYS"
            assert fields <= set(cls.KEYS), (cls.__name__, fields - set(cls.KEYS))
            assert all(name in fields or hasattr(cls, name) for name in cls.KEYS), cls.__name__
            assert len(set(cls.KEYS.values())) == len(cls.KEYS), f"{cls.__name__}: a key named twice"


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{type(s).__name__}-{STATES.index(s)}")
def test_a_link_holds_no_label(state) -> None:
    """The link is the same whichever language made it: it holds values (checkpoint names, numbers)."""
    with reading("en"):
        english = state.link()
    with reading("zh"):
        assert state.link() == english
    with reading("zh"):
        assert _read(state, SlideParams(english)) == state


PAGES = {Seq2seqState: "2_Seq2seq_attention", TranslationState: "4_Transformer_translation"}
PAGES[GenerationState] = "6_Generation"
PAGES[BlockState] = "14_Transformer_block"
PAGES[HeadState] = "5_Inside_one_head"
PAGES[PositionalState] = "3_Positional_encoding"
PAGES[KernelState] = "1_Attention_from_scratch"
PAGES[XLState] = "10_Transformer_XL"
PAGES[XLNetState] = "13_XLNet"
PAGES[MaskingState] = "7_BERT_masking"
PAGES[TilesState] = "15_Attention_at_scale"
PAGES[ExplanationState] = "16_Attention_as_explanation"
PAGES[RealState] = "8_Real_model_explorer"
PAGES[FinetuneState] = "7_BERT_masking"


@pytest.mark.slow
@pytest.mark.parametrize(
    "state",
    [STATES[i] for i in (1, 3, 6, 9, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 23, 24, 25)],
    ids=lambda s: f"{type(s).__name__}-{STATES.index(s)}",
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_keeps_the_state_its_link_gave(state, lang: str) -> None:
    """A page opened from a state's link, in either language, holds the same state in its own link
    afterwards: the page's widgets and the view state say the same thing."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APPTEST_TIMEOUT, ROOT

    at = AppTest.from_file(str(ROOT / "pages" / f"{PAGES[type(state)]}.py"), default_timeout=APPTEST_TIMEOUT)
    for key, value in {**state.link(), "lang": lang}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    # no notice about the link; the fine-tuning tab warns, by design, that the page model's own heads are untrained
    untrained = ("not trained", "未训练", "没有训练")
    assert not [w.value for w in at.warning if not any(u in w.value for u in untrained)]
    with reading(lang):
        p = SlideParams({k: at.query_params[k] for k in at.query_params})
        assert _read(state, p) == state
        assert not p.notes, p.notes
    # the page built the same typed state from its widgets, and drew from it ("Add this view" records it)
    page, published = at.session_state[VIEW_STATE]
    assert page == PAGES[type(state)]
    assert published == state
    if lang == "en":  # (AppTest reruns a 中文 page's select boxes by their English labels)
        at.button(key="deck_add").click().run()
        (slide,) = at.session_state[SESSION_KEY]
        assert slide.page == page and state.link().items() <= slide.params.items()


def test_every_slide_reads_a_typed_state() -> None:
    """Every page a slide can show has its view declared as a frozen dataclass of values with ``read`` (from a
    link) and ``link`` (back), in the same module as its slide."""
    import dataclasses
    import inspect
    import sys

    from ui.slides import RENDERERS

    for page, renderer in RENDERERS.items():
        module = sys.modules[renderer.__module__]
        states = [
            c
            for _, c in inspect.getmembers(module, inspect.isclass)
            if c.__module__ == module.__name__ and dataclasses.is_dataclass(c) and hasattr(c, "read")
        ]
        assert states, f"{page}: no view state in {module.__name__}"
        for state in states:
            assert state.__dataclass_params__.frozen and callable(state.link), state
        assert any(f"{s.__name__}.read(" in inspect.getsource(renderer) for s in states), page
