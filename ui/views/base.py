"""The view plumbing that a page's view and its slide share: a slide's link values read the way
the page reads its link (:class:`SlideParams`), a prepared view (:class:`SlideView`: its steps and
``draw(t)``), and the slide's way of drawing a page's figure (:func:`show_figure`: the same figure,
larger, across the screen). Each family's views (ui.views.seq2seq, …) build their figures with the
same functions their page calls."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

import streamlit as st

from ui.export import PLOT_NO_BAR
from ui.grid import AVERAGE, head_option_label, layer_option_label
from ui.i18n import LANGUAGES, current, reading
from ui.i18n import tr
from ui.plot import chart
from ui.state import link_text, quoted, topic_of
from ui.tokens import md_escape
from viz_core.style import FITTED_TEXT, LINE_EM, TITLE_FONT_SIZE, title_dict, unwrap_text

T = TypeVar("T")
SLIDE_HEIGHT = 540  # px of a slide's figure on a 720 px screen (CSS lets it fill a taller one); ticks plan for it
PLAN_WIDTH = 1200  # px a slide's ticks and titles are planned for (the figure spans the screen)
#: px a full-width figure on a page is planned for: the main column at 1280×720 with the sidebar open
#: (measured 762 px); with the sidebar collapsed the column is wider, so every label still fits.
PAGE_WIDTH = 760
FONT, TITLE_FONT, TICK_FONT = 20, 26, 18  # larger than a page's 16/20/16: read from the back row


class SlideProblem(Exception):
    """A slide that cannot be drawn (a missing model, unusable input): the message says why."""


@dataclass
class SlideView:
    """A prepared slide: ``n_steps`` (1 when the page has no steps), the slide's own step
    ``start`` (0-based), ``draw(t)`` and the notes on refused values."""

    n_steps: int
    start: int
    draw: Callable[[int], None]
    notes: list[str] = field(default_factory=list)


class SlideParams:
    """A slide's URL values, read the way each page reads its link."""

    def __init__(self, params: Mapping[str, str | list[str]]) -> None:
        self._params = params
        self.notes: list[str] = []

    def raw(self, key: str) -> str | None:
        value = self._params.get(key)
        if isinstance(value, list):
            return value[-1] if value else None
        return value

    def refuse(self, what: str, raw: str, instead: str | None = None) -> None:
        """Note a refused value; ``what`` is the string id of what it sets (the page's own URL notice's)."""
        self.notes.append(tr("slide.refused", what=tr(what), raw=quoted(raw), instead=instead or tr("slide.default")))

    def option(self, key: str, options: Iterable[T], default: T, what: str, format_func: Callable[[T], Any] = str) -> T:
        """The option whose value (:func:`ui.state.link_text`) the slide holds; for a slide saved
        before links held values, the option whose label it holds, in either language."""
        raw = self.raw(key)
        if raw is None:
            return default
        options = list(options)
        value = next((o for o in options if link_text(o) == raw), None)  # a link holds the value
        if value is not None:
            return value
        for lang in sorted(LANGUAGES, key=lambda lang: lang != current()):  # an older link: a label, reader first
            with reading(lang):
                match = next((o for o in options if str(format_func(o)) == raw), None)
            if match is not None:
                return match
        self.refuse(what, raw)
        return default

    def number(self, key: str, low: float, high: float, default: float, what: str) -> float:
        """A slider's or number input's value in [low, high]."""
        raw = self.raw(key)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if not low <= value <= high:
            self.refuse(what, raw)
            return default
        return value

    def text(self, key: str, default: str, limit: int = 10_000, what: str = "seq2seq.url.text") -> str:
        """A text input's value, cut to the page's ``limit`` with a note."""
        raw = self.raw(key)
        if raw is None:
            return default
        if len(raw) > limit:
            self.refuse(what, raw, tr("slide.first_chars", n=limit))
        return raw[:limit]

    def flag(self, key: str, default: bool, what: str) -> bool:
        raw = self.raw(key)
        if raw is None:
            return default
        if raw.lower() not in ("true", "false"):
            self.refuse(what, raw)
            return default
        return raw.lower() == "true"

    def step(self, key: str, n_steps: int) -> int:
        """The slide's own step (``{key}_step``, 1-based in the URL) as a 0-based index."""
        raw = self.raw(f"{key}_step")
        if raw is None:
            return 0
        if not raw.isdigit() or not 1 <= int(raw) <= n_steps:
            self.refuse("slide.what.step", raw, tr("step.first"))
            return 0
        return int(raw) - 1

    def topic(self, default: str, drawn: Iterable[str]) -> str:
        """The string id of the page's tab (``?topic=`` is its title, in either language) if a slide
        of the page draws it, else ``default`` with a note."""
        raw = self.raw("topic")
        if raw is None:
            return default
        tab = next((i for i in drawn if topic_of(raw, [i]) is not None), None)
        if tab is None:
            self.notes.append(tr("slide.other_topic", shown=tr(default), raw=quoted(raw)))
        return tab or default

    def section(self, name: str, title: str) -> None:
        """A section slide's ``?topic=`` is its ``name``; another value is noted (``title``: the string id of the
        section's title), and the section is drawn."""
        raw = self.raw("topic")
        if raw is not None and raw != name:
            self.notes.append(tr("slide.other_topic", shown=tr(title), raw=quoted(raw)))

    def layer_head(
        self, layer_key: str, head_key: str, n_layers: int, n_heads: int, average: bool = True
    ) -> tuple[int, int]:
        """(layer, head) of ui.grid.head_picker's ``{key}_layer``/``{key}_head`` ("layer 2", "head 3"), the
        link's ``layer_key`` and ``head_key``."""
        heads = list(range(n_heads)) + ([AVERAGE] if average else [])
        return (
            self.option(layer_key, range(n_layers), 0, "grid.layer_what", layer_option_label),
            self.option(head_key, heads, 0, "grid.head_what", head_option_label),
        )

    def view(self, n_steps: int, start: int, draw: Callable[[int], None]) -> SlideView:
        return SlideView(n_steps, start, draw, self.notes)


class LinkedState(Protocol):
    """A view state (a frozen dataclass of values) that names each URL key once: ``KEYS`` maps each of its
    fields to the key its link writes it under, in the link's order; its ``read`` reads the same keys."""

    KEYS: ClassVar[dict[str, str]]


def link_of(state: LinkedState, **values: Any) -> dict[str, str]:
    """The link's values for ``state``: under each key of its ``KEYS``, the field's value as
    :func:`ui.state.link_text` writes it, or the value ``values`` gives for that field where the link writes
    another; a value that is None is left out of the link."""
    link = {}
    for name, key in state.KEYS.items():
        value = values[name] if name in values else getattr(state, name)
        if value is not None:
            link[key] = link_text(value)
    return link


# While a handout is made (:func:`deck_handout`), what a slide would draw is collected here instead.
CAPTURE: ContextVar[list[Any] | None] = ContextVar("slide_capture", default=None)


def _captured(item: Any) -> bool:
    """Keep ``item`` (a figure, a line of text) for the handout being made; False when none is."""
    kept = CAPTURE.get()
    if kept is None:
        return False
    kept.append(item)
    return True


def show_figure(fig: Any, key: str = "slide_figure", plan_width: float = PLAN_WIDTH) -> None:
    """Draw ``fig`` across the slide (or its pane of it, ``plan_width`` px) at the slide's height, with larger
    text, its title re-wrapped for that width and square heatmap cells let go (the screen is wider than
    tall); no mode bar."""
    if _captured(fig):
        return
    text = fig.layout.title.text
    if text:  # wrapping for font f at width W is wrapping for the style's font at W · size / f
        _, before = title_dict(text, float("inf"))  # the room the builder left for the title as it was wrapped
        title, top = title_dict(unwrap_text(text), plan_width * TITLE_FONT_SIZE / TITLE_FONT)
        title["font"]["size"] = TITLE_FONT
        margin = fig.layout.margin.t if fig.layout.margin.t is not None else before
        above = [a.text.count("<br>") + 1 for a in fig.layout.annotations if a.yref == "paper" and (a.y or 0) >= 1]
        room = max(margin - before, max(above, default=0) * LINE_EM * TICK_FONT)  # subplot titles over the plots
        fig.update_layout(title=title, margin_t=int(room + top * TITLE_FONT / TITLE_FONT_SIZE))
    fig.update_layout(width=None, height=None, autosize=True, font_size=FONT, hoverlabel_font_size=FONT)
    fig.update_xaxes(tickfont_size=TICK_FONT, title_font_size=FONT)
    fig.update_yaxes(tickfont_size=TICK_FONT, title_font_size=FONT, scaleanchor=None)
    if not (fig.layout.meta or {}).get(FITTED_TEXT):  # subplot titles, notes; a diagram's fitted labels kept
        fig.update_annotations(font_size=TICK_FONT)
    chart(fig, key=key, config=PLOT_NO_BAR, stretch=True)


def show_figures(figs: list[Any]) -> None:
    """Draw a view of several figures (a comparison: one pane per model) side by side across the
    slide, each as :func:`show_figure` draws one."""
    if len(figs) == 1 or CAPTURE.get() is not None:
        for fig in figs:
            show_figure(fig)
        return
    with st.container(key="slide_figure", horizontal=True, gap="small"):
        for i, fig in enumerate(figs):
            show_figure(fig, key=f"slide_pane_{i}", plan_width=PLAN_WIDTH / len(figs))


def line(*parts: str) -> None:
    """One line of user text above the figure, escaped (never markdown), cut with … where too long."""
    if _captured(" · ".join(p for p in parts if p)):
        return
    st.container(key="slide_line").markdown(" · ".join(md_escape(p) for p in parts if p))


def pick_model(
    choices: Callable[[], list[tuple[str, str]]],
    p: SlideParams,
    key: str,
    default: str | None,
    loader: Callable,
    what: str = "seq2seq.url.model",
):
    """(name, label, loaded model) of a page's Model selectbox: ``choices()`` gives (name, label)
    in the language being read; ``default`` None: the first; ``what``: the string id a refused value's
    note names the setting by."""
    names = [name for name, _ in choices()]
    if not names:
        raise SlideProblem(tr("slide.no_models"))
    name = p.option(key, names, default if default in names else names[0], what, lambda n: dict(choices())[n])
    loaded = loader(name)
    if isinstance(loaded, str):
        raise SlideProblem(loaded)
    return name, dict(choices())[name], loaded


def input_error_type() -> type[Exception]:
    from models.inference.common import InputError

    return InputError


HIDE_KEY = "present_hide_next"  # session key: a step's later rows are left blank ("where will it look next?")


def hiding() -> bool:
    """Whether the presenter asked to hide what comes after the step (the H key)."""
    return st.session_state.get(HIDE_KEY) is True
