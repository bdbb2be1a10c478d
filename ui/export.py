"""Export: one chart ``config`` for every figure (ui.plot.chart), an SVG button beside plotly's PNG
button, and one small menu of downloads that a page puts next to its main figure.

Images are drawn by plotly.js in the browser (``Plotly.downloadImage``): no server-side renderer
(kaleido), no network. The menu's files are made on the server only when clicked.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from ui.i18n import current, figure_texts, t
from viz_core.export import SVG_BUTTON_JS, chart_config, figure_csv, handout_html, safe_filename, trace_json, trace_npz

__all__ = ["PLOT", "PLOT_NO_BAR", "chart_config", "export_menu", "image_buttons"]

# The config of every chart: no plotly logo; the camera button saves a 1920×1080 PNG.
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


def image_buttons() -> None:
    """Install, once per browser tab, the SVG button beside every chart's PNG button (constant
    script, no user text). Called by the page frame, in the sidebar."""
    st.html(f"<script>{SVG_BUTTON_JS}</script>", unsafe_allow_javascript=True)


def export_menu(name: str, *, title: str, source: str, figures: Mapping[str, Any] | None = None,
                trace: Any = None, numbers: Mapping[str, Any] | None = None, note: str = "",
                key: str | None = None) -> None:
    """A small "Export" popover: each figure's numbers as CSV, the ``trace`` (anything with
    ``to_dict()``, or a function that gives it again on click, so that a page's session need not
    keep a large trace alive: ui.bert.RealInput) as JSON and NPZ, and a standalone offline HTML handout (``title``, ``source``
    text, the figures, ``numbers``). ``figures`` maps a caption to a plotly figure. Files are
    built on click; downloading does not rerun the page."""
    figures = dict(figures or {})
    key = key or f"export_{safe_filename(name)}"
    base = safe_filename(name)
    words, lang = figure_texts(), current()  # read in this run: the file is built later, on click
    with st.popover(t("export.button"), icon=":material/download:", help=t("export.help")):
        for i, (caption, fig) in enumerate(figures.items()):
            st.download_button(t("export.csv", caption=caption), data=lambda fig=fig: figure_csv(fig), mime="text/csv",
                               file_name=f"{base}-{safe_filename(caption)}.csv", key=f"{key}_csv{i}",
                               on_click="ignore", icon=":material/table:")
        if trace is not None:
            again = trace if callable(trace) else lambda: trace
            too_big = _size(again().to_dict(keep_arrays=True)) > JSON_LIMIT
            st.download_button(t("export.json"), data=lambda: trace_json(again().to_dict()), mime="application/json",
                               file_name=f"{base}-trace.json", key=f"{key}_json", on_click="ignore",
                               icon=":material/data_object:", disabled=too_big,
                               help=t("export.json_big", limit=JSON_LIMIT) if too_big else None)
            st.download_button(t("export.npz"), data=lambda: trace_npz(again().to_dict(keep_arrays=True)),
                               mime="application/octet-stream", file_name=f"{base}-trace.npz", key=f"{key}_npz",
                               on_click="ignore", icon=":material/grid_on:")
        st.download_button(t("export.html"), mime="text/html", file_name=f"{base}-handout.html",
                           data=lambda: handout_html(title, source, list(figures.items()), numbers or {}, note,
                                                      texts=words, lang=lang),
                           key=f"{key}_html", on_click="ignore", icon=":material/description:")
