"""Export: one chart ``config`` for every figure (ui.plot.chart), an SVG button beside plotly's PNG
button, the toolbar's tooltips in the reader's language, language-free file names (page, view, step),
and one small menu of downloads that a page puts next to its main figure.

Images are drawn by plotly.js in the browser (``Plotly.downloadImage``): no server-side renderer
(kaleido), no network. The menu's files are made on the server only when clicked.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.i18n import current, figure_texts, tr, text
from ui.strings import toolbar
from viz_core.export import (
    SVG_BUTTON_JS,
    chart_config,
    download_name,
    figure_csv,
    handout_html,
    page_slug,
    safe_filename,
    trace_json,
    trace_npz,
)

__all__ = [
    "PLOT",
    "PLOT_NO_BAR",
    "chart_config",
    "current_page",
    "current_step",
    "export_menu",
    "file_stem",
    "image_buttons",
    "toolbar_dictionary",
]

# The config of every chart: no plotly logo, no button that sends the chart anywhere; the camera button
# saves a 1920×1080 PNG. ui.plot.chart adds the reader's language and the images' name to it.
PLOT: dict[str, Any] = chart_config()
# The same for a chart whose mode bar would cover what it shows (clickable grids).
PLOT_NO_BAR: dict[str, Any] = chart_config(modebar=False)
# Above this many numbers a trace is offered as NPZ only: JSON text would be tens of megabytes.
JSON_LIMIT = 2_000_000


def _size(value: Any) -> int:
    """How many numbers the arrays of a ``to_dict(keep_arrays=True)`` view hold."""
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, Mapping):
        return sum(_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(_size(v) for v in value)
    return 0


@functools.cache
def toolbar_dictionary(lang: str) -> Mapping[str, str]:
    """plotly.js's mode-bar texts (English, its dictionary keys) → their ``lang`` text from the
    string table (ui/strings/toolbar.py): a plotly locale's dictionary (viz_core.export.chart_config)."""
    return MappingProxyType({en: text(key, lang) for key, (en, _) in toolbar.STRINGS.items()})


def current_page() -> str | None:
    """The running page's name in file names ("seq2seq-attention", viz_core.export.page_slug), from
    the script this run executes; None outside a script run."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    try:
        info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) or {}
        path = info.get("script_path") or ctx.main_script_path
    except AttributeError:  # another Streamlit's context
        path = ctx.main_script_path
    return page_slug(path) if path else None


def current_step() -> int | None:
    """The 1-based step of the page's step control (ui.stepper.step_control) when exactly one was
    drawn earlier in this run (its "{key}_next" button, its step in ``st.session_state["{key}_step"]``);
    else None. Widgets of the page shown before are not counted: only this run's."""
    ctx = get_script_run_ctx()
    try:
        keys = ctx.shared.widget_user_keys_this_run.snapshot() if ctx is not None else ()
    except AttributeError:  # another Streamlit's context: no step in the names
        return None
    steps = {st.session_state.get(f"{k[: -len('_next')]}_step") for k in keys if k.endswith("_next")}
    steps = {s for s in steps if isinstance(s, int) and not isinstance(s, bool)}
    return steps.pop() if len(steps) == 1 else None


_UNSTEPPED: ContextVar[bool] = ContextVar("unstepped", default=False)


@contextlib.contextmanager
def unstepped() -> Iterator[None]:
    """Inside: a section below the page's main view, which the page's step control does not step; its
    files (its charts' PNG, SVG and CSV) are named without that step (:func:`file_stem`)."""
    token = _UNSTEPPED.set(True)
    try:
        yield
    finally:
        _UNSTEPPED.reset(token)


def file_stem(view: str, step: int | None = None, *, page: str | None = None, stepped: bool = True) -> str:
    """A download's name without extension: the page (default: the running page), the view (a chart
    key) and, if ``stepped``, the step (default: the page's step control, :func:`current_step`; none inside
    :func:`unstepped`), e.g. "seq2seq-attention-heatmap-step3". The same in every language."""
    if stepped and step is None and not _UNSTEPPED.get():
        step = current_step()
    return download_name(page or current_page() or "attention-lab", view, step if stepped else None)


def image_buttons() -> None:
    """Install, once per browser tab, the SVG button beside every chart's PNG button (constant
    script, no user text). Called by the page frame, in the sidebar."""
    st.html(f"<script>{SVG_BUTTON_JS}</script>", unsafe_allow_javascript=True)


def export_menu(
    name: str,
    *,
    title: str,
    source: str,
    figures: Mapping[str, Any] | None = None,
    trace: Any = None,
    numbers: Mapping[str, Any] | None = None,
    note: str = "",
    key: str | None = None,
    section: str | None = None,
) -> None:
    """A small "Export" popover: each figure's numbers as CSV, the ``trace`` (anything with
    ``to_dict()``, or a function that gives it again on click, so that a page's session need not
    keep a large trace alive: ui.bert.RealInput) as JSON and NPZ, and a standalone offline HTML handout
    (``title``, ``source`` text, the figures, ``numbers``). ``figures`` maps a caption to a plotly figure. Files are
    built on click; downloading does not rerun the page. ``section``: the menu of a section below the page's
    main view (e.g. "exposure"), whose handout is named after it, without the main view's step."""
    figures = dict(figures or {})
    key = key or f"export_{safe_filename(name)}"
    # File names are language-free: the page, the view (the chart key that drew the figure, ui.plot.chart)
    # and the step, as the figure's PNG and SVG are named; a figure not drawn by chart: the menu's name
    page = current_page() or safe_filename(name)
    stems = [
        getattr(fig, "_lab_file", None) or file_stem(f"{name}-figure{i + 1}", page=page)
        for i, fig in enumerate(figures.values())
    ]
    words, lang = figure_texts(), current()  # read in this run: the file is built later, on click
    toolbar_texts = toolbar_dictionary(lang)
    handout = file_stem(f"{section}-handout" if section else "handout", page=page, stepped=not section)
    with st.popover(tr("export.button"), icon=":material/download:", help=tr("export.help")):
        for i, (caption, fig) in enumerate(figures.items()):
            st.download_button(
                tr("export.csv", caption=caption),
                data=lambda fig=fig: figure_csv(fig),
                mime="text/csv",
                file_name=f"{stems[i]}.csv",
                key=f"{key}_csv{i}",
                on_click="ignore",
                icon=":material/table:",
            )
        if trace is not None:
            again = trace if callable(trace) else lambda: trace
            too_big = _size(again().to_dict(keep_arrays=True)) > JSON_LIMIT
            st.download_button(
                tr("export.json"),
                data=lambda: trace_json(again().to_dict()),
                mime="application/json",
                file_name=f"{file_stem('trace', page=page, stepped=False)}.json",
                key=f"{key}_json",
                on_click="ignore",
                icon=":material/data_object:",
                disabled=too_big,
                help=tr("export.json_big", limit=JSON_LIMIT) if too_big else None,
            )
            st.download_button(
                tr("export.npz"),
                data=lambda: trace_npz(again().to_dict(keep_arrays=True)),
                mime="application/octet-stream",
                file_name=f"{file_stem('trace', page=page, stepped=False)}.npz",
                key=f"{key}_npz",
                on_click="ignore",
                icon=":material/grid_on:",
            )
        st.download_button(
            tr("export.html"),
            mime="text/html",
            file_name=f"{handout}.html",
            data=lambda: handout_html(
                title,
                source,
                list(figures.items()),
                numbers or {},
                note,
                texts=words,
                lang=lang,
                image_names=stems,
                toolbar=toolbar_texts,
            ),
            key=f"{key}_html",
            on_click="ignore",
            icon=":material/description:",
        )
