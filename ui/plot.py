"""Every figure of the lab, drawn in the page by plotly.js with one ``Plotly.react`` per change.

``st.plotly_chart`` redraws a changed figure two or three times (a new spec, then its size, then
its theme), each a full plotly draw: a seq2seq step that changes three figures spent about 0.3 s
of its 0.45 s in those redraws (bench/browser_bench.py). :func:`chart` sends the same figure JSON
to a small component (``st.components.v2``) that draws it once, and not at all when a rerun sends
the figure unchanged; with the same traces (:func:`figure_spec`'s data revision) plotly redraws only
the layout; a figure far below the screen is redrawn when it comes within half a screen of view,
and a drawn figure follows its column's width. plotly.js is the plotly package's own bundle, served
by the app from ``static/vendor`` (copied there on first use): no network, as everywhere in the lab.

The look is the figure's own: :data:`viz_core.style.LAB_TEMPLATE` (the lab's default plotly
template) replaces Streamlit's chart theme, so the page, the PNG/SVG buttons and the handout
draw the same figure. A full-screen button on the mode bar replaces Streamlit's chart toolbar. The
mode bar offers nothing that leaves this machine, speaks the reader's language (plotly.js's locale,
from the string table), and names its images after the page, the chart and the step
(viz_core.export.chart_config, ui.export.file_stem).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import threading
from collections.abc import Callable, Hashable, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any, TypeVar

import plotly
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.export import file_stem, toolbar_dictionary
from ui.i18n import current, tr
from viz_core.export import localized
from viz_core.style import use_lab_template

use_lab_template()  # after Streamlit's import, which made its own theme plotly's default

__all__ = ["COMPONENT", "chart", "figure_spec", "kept_figure", "serve_plotly_js"]

#: Where the app serves plotly.js from (Streamlit's static serving: ``app/static/…``).
PLOTLY_JS = Path(__file__).resolve().parents[1] / "static" / "vendor" / "plotly.min.js"
_PLOTLY_SOURCE = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"

_JS = r"""
const SOURCE = "app/static/vendor/plotly.min.js";
function plotlyReady() {
  if (!window.__labPlotly) {
    window.__labPlotly = window.Plotly ? Promise.resolve(window.Plotly) : new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = SOURCE;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => { window.__labPlotly = null; reject(new Error("plotly.js")); };
      document.head.appendChild(script);
    });
  }
  return window.__labPlotly;
}
const EXPAND = {width: 24, height: 24, path: "M3 3h7v2H5v5H3zm11 0h7v7h-2V5h-5zM3 14h2v5h5v2H3zm16 0h2v7h-7v-2h5z"};
// plotly.py sends numpy arrays as {dtype, bdata (base64), shape}. Plotly.react counts such a spec, and
// a scatter's typed arrays, as changed data at every call, whatever the data revision says: decoded
// here into plain arrays, an unchanged figure keeps its traces (figure_spec).
const TYPED = {f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, i1: Int8Array,
               u4: Uint32Array, u2: Uint16Array, u1: Uint8Array, u1c: Uint8ClampedArray};
function decoded(value) {
  if (Array.isArray(value)) {
    if (value.length && typeof value[0] === "object" && value[0] !== null) {
      value.forEach((v, i) => { value[i] = decoded(v); });
    }
    return value;
  }
  if (value === null || typeof value !== "object") return value;
  const T = TYPED[value.dtype];
  if (T && typeof value.bdata === "string") {
    const text = atob(value.bdata);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const flat = Array.from(new T(bytes.buffer));
    const shape = value.shape ? String(value.shape).split(",").map(Number) : [flat.length];
    if (shape.length !== 2) return flat;
    const [rows, cols] = shape;
    return Array.from({length: rows}, (_, i) => flat.slice(i * cols, (i + 1) * cols));
  }
  for (const key of Object.keys(value)) value[key] = decoded(value[key]);
  return value;
}
// The click layer of a heatmap (viz_core.explain) is WebGL; without WebGL it is drawn as SVG (slower).
let webgl = null;
function withoutWebGL(data) {
  if (webgl === null) {
    try { webgl = Boolean(document.createElement("canvas").getContext("webgl")); } catch (e) { webgl = false; }
  }
  if (!webgl) data.forEach((trace) => { if (trace.type === "scattergl") trace.type = "scatter"; });
  return data;
}
// Plotly.react recomputes every trace when the layout's template is a new object, even an equal one:
// one object per distinct template (every figure of the lab has the same one).
const TEMPLATES = new Map();
function sharedTemplate(layout) {
  if (!layout.template) return;
  const key = JSON.stringify(layout.template);
  if (!TEMPLATES.has(key)) {
    if (TEMPLATES.size >= 8) TEMPLATES.clear();
    TEMPLATES.set(key, layout.template);
  }
  layout.template = TEMPLATES.get(key);
}
function screenSize() { return {width: window.innerWidth, height: window.innerHeight}; }
function point(p) {
  const index = p.pointIndex !== undefined ? p.pointIndex : p.pointNumber;
  return {curve_number: p.curveNumber, point_index: Array.isArray(index) ? index[0] : index,
          point_number: p.pointNumber, x: p.x, y: p.y, customdata: p.customdata === undefined ? null : p.customdata};
}
// A figure far from the screen is drawn when it comes near: a step redraws what the reader sees first,
// and a figure further down the page catches up half a screen before it scrolls into view.
// A drawn figure follows its column's width (plotly's own "responsive" follows only the window's, so
// a figure drawn beside the open sidebar stayed narrow once the presenter collapsed it). A change of
// a scrollbar's width or less is left alone: it is not worth a redraw under the reader's mouse.
function watch(box, gd) {
  if (box.__observer) return;
  box.__observer = new IntersectionObserver((entries) => {
    box.__near = entries[entries.length - 1].isIntersecting;
    const draw = box.__near && box.__pending;
    box.__pending = null;
    if (draw) draw();
  }, {rootMargin: "50% 0px"});
  box.__observer.observe(box);
  box.__resize = new ResizeObserver((entries) => {
    const width = Math.round(entries[entries.length - 1].contentRect.width);
    if (!width || (box.__width !== undefined && Math.abs(width - box.__width) <= 24)) return;
    const resized = box.__width !== undefined;
    box.__width = width;
    if (resized && gd.__bound && window.Plotly) window.Plotly.Plots.resize(gd);
  });
  box.__resize.observe(box);
}
// The images' file name (page, view, step) changes with the step while the config must not: set in
// place, in the config object plotly was given and in its own copy (what the camera and SVG buttons read).
function nameImages(gd, filename) {
  for (const config of [gd.__config, gd._context]) {
    if (config && config.toImageButtonOptions && filename) config.toImageButtonOptions.filename = filename;
  }
}
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const box = parentElement.querySelector(".lab-figure-box");
  const gd = box.querySelector(".lab-figure");
  gd.__select = data.select ? setStateValue : null;
  nameImages(gd, data.filename);
  box.classList.toggle("lab-stretch", Boolean(data.stretch));
  if (gd.__spec === data.spec) return;  // the same figure as drawn: nothing to do
  gd.__spec = data.spec;
  box.querySelectorAll(".lab-figure-failed").forEach((note) => note.remove());
  watch(box, gd);
  const draw = () => drawFigure(box, gd, data);
  box.__pending = null;
  if (gd.__bound && box.__near === false && document.fullscreenElement !== box) box.__pending = draw;
  else draw();
}
function drawFigure(box, gd, data) {
  plotlyReady().then((Plotly) => {
    if (gd.__spec !== data.spec) return;  // a newer figure arrived while plotly.js loaded
    // The same config object while it is unchanged: plotly redraws from scratch when a config differs.
    const configKey = JSON.stringify([data.config, data.fullscreen]);
    if (gd.__configKey !== configKey) {
      gd.__configKey = configKey;
      gd.__config = Object.assign({responsive: true}, data.config);
      gd.__config.toImageButtonOptions = Object.assign({}, data.config.toImageButtonOptions);
      if (gd.__config.displayModeBar !== false) {
        gd.__config.modeBarButtonsToAdd = [{name: "lab-fullscreen", title: data.fullscreen, icon: EXPAND,
          click: () => document.fullscreenElement ? document.exitFullscreen() : box.requestFullscreen()}];
      }
    }
    nameImages(gd, data.filename);
    const figure = () => {
      const fig = JSON.parse(data.spec);
      fig.data = withoutWebGL(decoded(fig.data));
      fig.layout.datarevision = data.revision;  // the same traces as drawn: plotly keeps them (figure_spec)
      sharedTemplate(fig.layout);
      gd.__size = {width: fig.layout.width, height: fig.layout.height};
      if (document.fullscreenElement === box) Object.assign(fig.layout, screenSize());  // a step while full screen
      return fig;
    };
    const fig = figure();
    // Plotly.react cannot carry every drawn figure over to the next (a heatmap of 3 × 4 cells becoming one of
    // 6 × 12 with stacked 中文 labels: "Something went wrong with axis scaling"); such a figure is drawn afresh.
    return Promise.resolve().then(() => Plotly.react(gd, fig.data, fig.layout, gd.__config)).catch(() => {
      const again = figure();
      Plotly.purge(gd);
      gd.__bound = false;
      return Plotly.newPlot(gd, again.data, again.layout, gd.__config);
    }).then(() => {
      if (gd.__bound) return;
      gd.__bound = true;
      gd.on("plotly_click", (ev) => { if (gd.__select) gd.__select("selection", {points: ev.points.map(point)}); });
      if (box.__fullscreenBound) return;
      box.__fullscreenBound = true;
      box.addEventListener("fullscreenchange", () => {
        const full = document.fullscreenElement === box;
        Plotly.relayout(gd, full ? screenSize() : {width: gd.__size.width || null, height: gd.__size.height || null});
      });
    });
  }).catch(() => {
    if (!box.querySelector(".lab-figure-failed")) {
      const note = document.createElement("p");
      note.className = "lab-figure-failed";
      note.textContent = data.failed;
      box.prepend(note);
    }
  });
}
"""

_CSS = """.lab-figure-box:fullscreen { background: #ffffff; }
.lab-figure-box.lab-stretch, .lab-stretch .lab-figure { height: 100%; }
div:has(> .lab-figure-box.lab-stretch), div:has(> div > .lab-figure-box.lab-stretch) { height: 100%; }"""

COMPONENT = "attention_lab.figure"
_figure = st.components.v2.component(
    COMPONENT,
    html="<div class='lab-figure-box'><div class='lab-figure'></div></div>",
    css=_CSS,
    js=_JS,
    isolate_styles=False,
)


def serve_plotly_js(target: Path = PLOTLY_JS, source: Path = _PLOTLY_SOURCE) -> None:
    """Copy the installed plotly package's plotly.js to ``target`` (under ``static/``) unless an
    identical copy is there: the browser loads it from the app itself, never from a CDN."""
    if target.is_file() and target.stat().st_size == source.stat().st_size:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    # a name of its own per process and thread (a deployment's workers may all copy at once), then
    # an atomic rename: a browser never reads half a file
    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.part")
    shutil.copyfile(source, partial)
    partial.replace(target)


@functools.cache
def _served() -> str:
    """ "" once plotly.js is in place for this server process, else why it is not."""
    try:
        serve_plotly_js()
    except OSError as exc:
        return str(exc)
    return ""


_KEPT = "_lab_kept_figures"
F = TypeVar("F")


def kept_figure(slot: str, inputs: Hashable, build: Callable[[], F]) -> F:
    """``build()`` (a figure, or a list of them), or what it returned for ``slot`` in this session's
    last run when ``inputs`` (everything the figure is drawn from: model, text, layer …) and the
    language are unchanged. A rerun for another part of the page (the block page's token) then
    builds only what changed: plotly's validation is most of a figure's time. One result per slot
    is kept; a kept figure is never changed after it is built (a click-to-explain figure, which
    gains a layer, is not kept)."""
    kept = st.session_state.get(_KEPT)
    if not isinstance(kept, dict):  # none yet, or not ours (a forged session value): start afresh
        kept = st.session_state[_KEPT] = {}
    key = (inputs, current())
    hit = kept.get(slot)
    try:
        if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], tuple) and hit[0] == key:
            return hit[1]
    except (TypeError, ValueError):  # an entry that cannot be compared is not ours either
        pass
    fig = build()
    for one in fig if isinstance(fig, list) else [fig]:
        one._lab_kept = True  # chart() keeps its JSON too
    kept[slot] = (key, fig)
    return fig


def figure_spec(fig: go.Figure) -> tuple[str, str]:
    """``fig.to_json()`` (trace uids left out), and a digest of its traces' JSON: the figure's
    ``layout.datarevision`` in the browser. While a step changes only the layout (the heatmap's
    outlined row, a title), the digest stays the same and ``Plotly.react`` keeps the drawn traces
    instead of comparing every data array by identity, which a freshly parsed figure always fails."""
    figure = fig.to_plotly_json()
    traces = [{k: v for k, v in trace.items() if k != "uid"} for trace in figure["data"]]
    data = to_json_plotly(traces)
    spec = f'{{"data":{data},"layout":{to_json_plotly(figure["layout"])}}}'
    return spec, hashlib.blake2b(data.encode(), digest_size=16).hexdigest()


def chart(
    fig: go.Figure,
    *,
    config: Mapping[str, Any],
    key: str | None = None,
    on_select: Callable[[], None] | None = None,
    where: DeltaGenerator | None = None,
    stretch: bool = False,
    step: int | None = None,
) -> None:
    """Draw ``fig`` (``config``: plotly's, ui.export.PLOT) under ``key``, in ``where`` (a column or
    container; default: where the page is writing). ``stretch``: fill the container's height (a
    slide) instead of the figure's own. With ``on_select``, a click on a point sets
    ``st.session_state[key]["selection"]["points"]`` (each point's ``curve_number``,
    ``point_index``, ``x``, ``y``, ``customdata``, as st.plotly_chart names them) and calls
    ``on_select``.

    The mode bar's tooltips are in the reader's language (config.locale); its PNG and SVG are named
    after the page, ``key`` and the 1-based ``step`` (default: the page's step control), e.g.
    "seq2seq-attention-heatmap-step3.png" (ui.export.file_stem); the name is also the figure's
    ``_lab_file``, which ui.export.export_menu gives the figure's CSV. The name travels beside the
    config, not in it: the config stays the same object while the step changes (see _JS)."""
    with where if where is not None else nullcontext():
        error = _served()
        if error:
            st.error(tr("plot.no_js", error=error))
            return
        if getattr(fig, "_lab_kept", False):  # a kept figure (never changed): its JSON once
            if getattr(fig, "_lab_spec", None) is None:
                fig._lab_spec = figure_spec(fig)
            spec, revision = fig._lab_spec
        else:
            spec, revision = figure_spec(fig)
        lang = current()
        filename = file_stem(key or "chart", step)
        fig._lab_file = filename
        data = {
            "spec": spec,
            "revision": revision,
            "config": localized(config, lang, toolbar_dictionary(lang)),
            "filename": filename,
            "select": on_select is not None,
            "stretch": stretch,
            "fullscreen": tr("plot.fullscreen"),
            "failed": tr("plot.failed"),
        }
        events = {} if on_select is None else {"default": {"selection": None}, "on_selection_change": on_select}
        _figure(key=key, data=data, height="stretch" if stretch else "content", **events)
