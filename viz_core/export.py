"""Downloads, as pure conversions: a trace → JSON or NPZ bytes, a matrix or a figure's numbers → a
tidy CSV table, a page's view → one standalone, offline HTML handout.

Input is plain data, as a trace's ``to_dict()`` and a figure's ``to_dict()`` give it (lists, numpy
arrays, plotly's ``{"dtype", "bdata", "shape"}`` typed arrays). No Streamlit, no torch.

Images are made in the browser, not here: plotly.js draws PNG and SVG itself (``Plotly.downloadImage``),
offline, at the size in :data:`IMAGE_OPTIONS`; :data:`SVG_BUTTON_JS` adds an SVG button beside
plotly's own PNG (camera) button, in the app and in the handout alike.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from viz_core.texts import Texts, word

# Presentation resolution: a 16:9 slide drawn at 1280×720 CSS pixels, PNG at scale 1.5 = 1920×1080
# pixels (text stays as large, relative to the slide, as on a 1280×720 screen); SVG is vector.
IMAGE_OPTIONS: dict[str, Any] = {"format": "png", "width": 1280, "height": 720, "scale": 1.5}


# The mode bar offers nothing that leaves this machine: plotly.js's "Share chart..." button
# (sendChartToCloud, shown by default) uploads the figure to plotlyServerURL, a cloud service. (The
# bundled plotly.js 4 has no "Edit in Chart Studio" button and no showEditInChartStudio option; plotly.py
# warns about the unknown key, so it is not set.)
NO_CLOUD: dict[str, Any] = {
    "showSendToCloud": False,
    "plotlyServerURL": "",
    "modeBarButtonsToRemove": ["sendChartToCloud"],
}

# plotly.js's locale name for each language of the lab (config.locale).
PLOTLY_LOCALES: dict[str, str] = {"en": "en", "zh": "zh-CN"}

# The SVG button's tooltip (its English text is also its key in a locale's dictionary).
SVG_TITLE = "Download plot as an SVG"


def chart_config(
    filename: str = "attention-lab", modebar: bool = True, lang: str = "en", dictionary: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The plotly ``config`` of every chart: no logo, no button that sends the figure anywhere
    (:data:`NO_CLOUD`), the camera button downloads a 1920×1080 PNG named ``filename`` (made by
    plotly.js in the browser, offline); ``modebar=False`` hides the bar. In a language other than
    English the mode bar's tooltips come from ``dictionary`` (plotly's English text → translation)."""
    config: dict[str, Any] = {
        "displaylogo": False,
        **NO_CLOUD,
        "modeBarButtonsToRemove": list(NO_CLOUD["modeBarButtonsToRemove"]),
        "toImageButtonOptions": dict(IMAGE_OPTIONS, filename=safe_filename(filename)),
    }
    if not modebar:
        config["displayModeBar"] = False
    return localized(config, lang, dictionary)


def localized(config: Mapping[str, Any], lang: str, dictionary: Mapping[str, str] | None) -> dict[str, Any]:
    """``config`` with plotly's ``locale`` for ``lang`` and, unless English, ``dictionary`` as that
    locale's tooltips (``locales``): plotly.js translates its own mode bar, :data:`SVG_BUTTON_JS` its button."""
    out = dict(config)
    locale = PLOTLY_LOCALES.get(lang, "en")
    if locale == "en" or not dictionary:
        out.pop("locale", None)
        out.pop("locales", None)
        return out
    out["locale"] = locale
    out["locales"] = {locale: {"dictionary": dict(dictionary)}}
    return out


def page_slug(script_path: str) -> str:
    """A page's name in file names, from its script: "pages/2_Seq2seq_attention.py" → "seq2seq-attention"
    (the landing page, app.py: "attention-lab")."""
    stem = re.sub(r"^\d+_", "", Path(str(script_path)).stem)
    slug = safe_filename(stem.lower().replace("_", "-"), default="")
    return "attention-lab" if slug in ("", "app") else slug


def download_name(page: str, view: str, step: int | None = None) -> str:
    """A download's file name without extension, language-free: page, view (a chart key) and, where
    there is one, the 1-based step: ("seq2seq-attention", "heatmap", 3) → "seq2seq-attention-heatmap-step3"."""
    parts = [page, view.replace("_", "-")] + ([f"step{int(step)}"] if step is not None else [])
    return safe_filename("-".join(filter(None, (safe_filename(p, default="") for p in parts))))


def safe_filename(name: str, default: str = "attention-lab") -> str:
    """``name`` reduced to letters, digits, '-', '_' and '.' (a download's file name)."""
    cleaned = re.sub(r"[^\w.-]+", "-", str(name), flags=re.ASCII).strip("-.")
    return cleaned[:80] or default


# --------------------------------------------------------------------------------------
# Trace → JSON, NPZ
# --------------------------------------------------------------------------------------


def _json_safe(value: Any) -> Any:
    """Plain JSON values: arrays → lists, numpy scalars → Python, NaN/±inf → None (strict JSON)."""
    if isinstance(value, np.ndarray):
        return _json_safe(value.tolist())
    if isinstance(value, np.generic):
        return _json_safe(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def trace_json(trace: Mapping[str, Any], indent: int | None = 1) -> bytes:
    """A trace's ``to_dict()`` as UTF-8 JSON (strict: NaN and ±inf, e.g. masked scores, become null)."""
    return json.dumps(_json_safe(trace), ensure_ascii=False, indent=indent, allow_nan=False).encode("utf-8")


def _as_array(value: Any) -> np.ndarray | None:
    """``value`` as a plain (not object) numpy array: numbers, booleans or strings; else None."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and any(v is None for v in value):
        return None
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        return None
    return arr if arr.dtype.kind in "biufU" else None


def _flatten(value: Any, prefix: str, out: dict[str, np.ndarray]) -> None:
    arr = _as_array(value) if not isinstance(value, Mapping) else None
    if arr is not None:
        out[prefix or "value"] = arr
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(v, f"{prefix}/{k}" if prefix else str(k), out)
    elif isinstance(value, (list, tuple)) and value:
        columns = _columns(value)
        if columns is not None:  # (nested) lists of records → one array per field
            for k, column in columns.items():
                _flatten(column, f"{prefix}/{k}", out)
        else:
            for i, v in enumerate(value):
                _flatten(v, f"{prefix}/{i}", out)
    # None and empty lists that are not arrays are left out: NPZ holds arrays only.


def _columns(value: Any) -> dict[str, list[Any]] | None:
    """A list (of lists …) of records with the same fields as one nested list per field, else None."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    if all(isinstance(v, Mapping) for v in value):
        keys = list(value[0])
        return {k: [v[k] for v in value] for k in keys} if all(list(v) == keys for v in value) else None
    inner = [_columns(v) for v in value]
    records = [c for c in inner if c is not None]
    if len(records) < len(inner) or any(list(c) != list(records[0]) for c in records):
        return None
    return {k: [c[k] for c in records] for k in records[0]}


def trace_arrays(trace: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Every array in a trace's ``to_dict()``, by path ("hypotheses/0/attention"): rectangular
    numbers and token lists as numpy arrays; lists of records become one array per field; None
    values (e.g. no attention) are left out."""
    out: dict[str, np.ndarray] = {}
    _flatten(trace, "", out)
    return out


def trace_npz(trace: Mapping[str, Any]) -> bytes:
    """The arrays of :func:`trace_arrays` as a compressed ``.npz`` (``np.load`` reads it without pickle)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, allow_pickle=False, **trace_arrays(trace))
    return buf.getvalue()


# --------------------------------------------------------------------------------------
# Numbers → tidy CSV
# --------------------------------------------------------------------------------------


def _csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else _cell(v) for v in row])
    return buf.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return value


def matrix_csv(
    matrix: Any,
    row_labels: Sequence[Any] | None = None,
    col_labels: Sequence[Any] | None = None,
    *,
    row_name: str = "row",
    col_name: str = "column",
    value_name: str = "value",
) -> str:
    """A matrix as a tidy table: a header, then one line per cell (row, row label, column,
    column label, value), row by row; full float precision, empty for NaN/±inf."""
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    rows = [str(v) for v in row_labels] if row_labels is not None else [""] * m.shape[0]
    cols = [str(v) for v in col_labels] if col_labels is not None else [""] * m.shape[1]
    header = [row_name, f"{row_name}_label", col_name, f"{col_name}_label", value_name]
    return _csv_text(
        header,
        (
            (i, rows[i] if i < len(rows) else "", j, cols[j] if j < len(cols) else "", m[i, j])
            for i in range(m.shape[0])
            for j in range(m.shape[1])
        ),
    )


def _decode(value: Any) -> Any:
    """plotly's typed array ``{"dtype", "bdata", "shape"}`` → numpy; anything else unchanged."""
    if isinstance(value, Mapping) and "bdata" in value and "dtype" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            arr = arr.reshape([int(s) for s in str(shape).split(",")] if isinstance(shape, str) else shape)
        return arr
    return value


def _axis_labels(layout: Mapping[str, Any], axis: str) -> dict[Any, str]:
    """Tick text by tick value of one axis (integer axes with token labels), else empty."""
    spec = layout.get(axis) or {}
    vals, text = _decode(spec.get("tickvals")), _decode(spec.get("ticktext"))
    if vals is None or text is None:
        return {}
    return {_key(v): label_text(t) for v, t in zip(list(vals), list(text))}


def label_text(tick: Any) -> str:
    """A tick label as plain text: plotly's HTML-like tags dropped (<br> → space), entities decoded."""
    text = re.sub(r"<br\s*/?>", " ", str(tick), flags=re.I)
    return html.unescape(re.sub(r"</?(?:b|i|em|strong|sup|sub|span|a)\b[^>]*>", "", text, flags=re.I))


def _key(v: Any) -> Any:
    v = v.item() if isinstance(v, np.generic) else v
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def _axis_name(ref: str | None, letter: str) -> str:
    """'x2' → 'xaxis2' (the layout key of a trace's axis)."""
    ref = ref or letter
    return f"{letter}axis{ref[1:]}"


def _one_colour(scale: Any) -> bool:
    """Whether a heatmap's colour scale paints every value the same colour (a mask: where, not how much)."""
    if not isinstance(scale, (list, tuple)) or not scale:
        return False
    colours = {
        str(stop[1]).replace(" ", "").lower() for stop in scale if isinstance(stop, (list, tuple)) and len(stop) == 2
    }
    return len(colours) == 1


def _helper(trace: Mapping[str, Any]) -> bool:
    """Whether a trace draws no numbers of its own: hidden, a one-colour mask heatmap, an invisible
    click layer (markers at opacity 0), or a decoration left out of the hover (``hoverinfo='skip'``:
    arcs, edges, outlines). A heatmap's cells are its numbers whatever its hover says: the click
    layer (viz_core.explain.add_cell_layer) takes the hover over and skips the heatmap's own."""
    if trace.get("visible") is False or trace.get("opacity") == 0:
        return True
    if trace.get("type", "scatter") == "heatmap":
        return _one_colour(trace.get("colorscale"))
    if trace.get("hoverinfo") == "skip":
        return True
    return trace.get("type", "scatter") != "bar" and (trace.get("marker") or {}).get("opacity") == 0


def figure_rows(figure: Mapping[str, Any] | Any) -> list[list[Any]]:
    """The numbers behind a figure as tidy rows (trace, name, trace type, x, x label, y, y label, value):
    a heatmap gives one row per cell (value = z), bars one row per bar (value = bar length),
    lines and markers one row per point (value = y). Helper layers that draw no numbers
    (:func:`_helper`) are left out."""
    fig = figure.to_dict() if hasattr(figure, "to_dict") else figure
    layout = fig.get("layout", {}) or {}
    rows: list[list[Any]] = []
    for n, tr in enumerate(fig.get("data", [])):
        trace_type = tr.get("type", "scatter")
        if _helper(tr):
            continue
        xl = _axis_labels(layout, _axis_name(tr.get("xaxis"), "x"))
        yl = _axis_labels(layout, _axis_name(tr.get("yaxis"), "y"))
        name = tr.get("name") or ""
        x, y = _decode(tr.get("x")), _decode(tr.get("y"))
        if trace_type == "heatmap":
            z = _decode(tr.get("z"))
            if z is None:
                continue
            z = (
                np.asarray([[np.nan if v is None else v for v in row] for row in z], dtype=float)
                if not isinstance(z, np.ndarray)
                else np.atleast_2d(z.astype(float))
            )
            xs = list(x) if x is not None else list(range(z.shape[1]))
            ys = list(y) if y is not None else list(range(z.shape[0]))
            for i in range(z.shape[0]):
                for j in range(z.shape[1]):
                    xv, yv = xs[j] if j < len(xs) else j, ys[i] if i < len(ys) else i
                    rows.append([n, name, trace_type, xv, xl.get(_key(xv), ""), yv, yl.get(_key(yv), ""), z[i, j]])
        elif trace_type in ("bar", "scatter", "scattergl"):
            xs = list(x) if x is not None else list(range(len(y if y is not None else [])))
            ys = list(y) if y is not None else list(range(len(xs)))
            horizontal = trace_type == "bar" and tr.get("orientation") == "h"
            for xv, yv in zip(xs, ys):
                value = xv if horizontal else yv
                rows.append([n, name, trace_type, xv, xl.get(_key(xv), ""), yv, yl.get(_key(yv), ""), value])
    return rows


FIGURE_HEADER = ["trace", "name", "kind", "x", "x_label", "y", "y_label", "value"]


def figure_csv(figure: Mapping[str, Any] | Any) -> str:
    """:func:`figure_rows` as CSV text with a header line."""
    return _csv_text(FIGURE_HEADER, figure_rows(figure))


# --------------------------------------------------------------------------------------
# Images in the browser
# --------------------------------------------------------------------------------------

# Adds an "SVG" button after plotly's camera (PNG) button in every chart's mode bar, now and as
# charts appear (a MutationObserver, installed once per document). The SVG is made by plotly.js in
# the browser (Plotly.downloadImage), with the camera button's file name and size: nothing is fetched.
# The camera is found by its tooltip in the chart's own language, and the SVG button's tooltip is
# translated the way plotly.js translates its own: the chart's config.locale, then its language
# ("zh-CN", then "zh"), in config.locales (chart_config); a language switch rebuilds the mode bar.
# No "<" anywhere in it: Streamlit's HTML sanitiser empties a script whose text looks like markup.
SVG_BUTTON_JS = (
    """
(function () {
  if (window.__attnLabSvgButtons) return;
  window.__attnLabSvgButtons = true;
  function say(gd, text) {
    var ctx = gd._context || {}, locales = ctx.locales || {}, locale = ctx.locale || 'en';
    while (locale) {
      var dict = (locales[locale] || {}).dictionary || {};
      if (dict[text]) return dict[text];
      var lang = locale.split('-')[0];
      locale = lang === locale ? '' : lang;
    }
    return text;
  }
  function label(a, title) {
    a.setAttribute('data-title', title);
    a.setAttribute('aria-label', title);
  }
  function add(root) {
    (root || document).querySelectorAll('.js-plotly-plot').forEach(function (gd) {
      var cameras = [say(gd, 'Download plot as a PNG'), say(gd, 'Download plot')];
      var title = say(gd, '"""
    + SVG_TITLE
    + """');
      gd.querySelectorAll('.modebar-btn').forEach(function (cam) {
        var group = cam.parentNode;
        if (!group || cameras.indexOf(cam.getAttribute('data-title')) === -1) return;
        var old = group.querySelector('.attn-lab-svg');
        if (old) {
          if (old.getAttribute('data-title') !== title) label(old, title);
          return;
        }
        var a = document.createElement('a');
        a.className = 'modebar-btn attn-lab-svg';
        a.setAttribute('rel', 'tooltip');
        label(a, title);
        a.textContent = 'SVG';
        a.style.cssText = 'display: inline-block; vertical-align: top; font: bold 10px/16px sans-serif; '
          + 'color: #506784; cursor: pointer';
        a.addEventListener('click', function (ev) {
          ev.preventDefault();
          var P = window.Plotly;
          if (!P) return;
          var o = (gd._context && gd._context.toImageButtonOptions) || {};
          var opts = {format: 'svg', filename: o.filename || 'attention-lab'};
          if (o.width) opts.width = o.width;
          if (o.height) opts.height = o.height;
          P.downloadImage(gd, opts);
        });
        cam.insertAdjacentElement('afterend', a);
      });
    });
  }
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; add(document); });
  }).observe(document.body, {childList: true, subtree: true});
  add(document);
})();
"""
)


# --------------------------------------------------------------------------------------
# The handout
# --------------------------------------------------------------------------------------

_HANDOUT_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", sans-serif;
       max-width: 1100px; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.8rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.input { white-space: pre-wrap; background: #f3f4f6; border-left: 4px solid #4b5563; padding: .6rem .8rem; }
table { border-collapse: collapse; } td, th { border: 1px solid #d1d5db; padding: .3rem .6rem; text-align: left; }
th { background: #f3f4f6; } .note { color: #4b5563; font-size: .9rem; } figure { margin: 1rem 0; }
"""


def handout_html(
    title: str,
    input_text: str,
    figures: Sequence[tuple[str, Any]] = (),
    numbers: Mapping[str, Any] | Sequence[tuple[str, Any]] = (),
    note: str = "",
    subtitle: str | None = None,
    texts: Texts | None = None,
    lang: str = "en",
    image_names: Sequence[str] | None = None,
    toolbar: Mapping[str, str] | None = None,
) -> str:
    """One standalone HTML page: ``title``, the input, the figures (interactive plotly, the plotly.js
    bundle inlined once: the page opens offline and loads nothing), the key numbers as a table and
    a note; its headings from ``texts`` (viz_core.texts) in language ``lang`` (the html lang tag),
    the figures' mode-bar tooltips from ``toolbar`` (:func:`chart_config`), figure i's images named
    ``image_names[i]`` (default: the title and i).
    Every user-supplied string is HTML-escaped; figure text is escaped by plotly.js."""
    import plotly.io as pio  # plotly is only needed for the handout

    esc = html.escape
    subtitle = word(texts, "handout.subtitle") if subtitle is None else subtitle
    parts = [
        f'<!DOCTYPE html>\n<html lang="{esc(lang)}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · {esc(subtitle)}</title><style>{_HANDOUT_CSS}</style></head><body>",
        f'<p class="note">{esc(subtitle)}</p><h1>{esc(title)}</h1>',
        f'<h2>{esc(word(texts, "handout.input"))}</h2><div class="input">{esc(input_text)}</div>',
    ]
    pairs = list(numbers.items()) if isinstance(numbers, Mapping) else list(numbers)
    if pairs:
        parts.append(f"<h2>{esc(word(texts, 'handout.numbers'))}</h2><table>")
        parts.extend(f"<tr><th>{esc(str(k))}</th><td>{esc(_number_text(v))}</td></tr>" for k, v in pairs)
        parts.append("</table>")
    for i, (caption, fig) in enumerate(figures):
        name = image_names[i] if image_names is not None and i < len(image_names) else f"{title}-{i + 1}"
        body = pio.to_html(
            fig,
            config=chart_config(name, lang=lang, dictionary=toolbar),
            include_plotlyjs=(i == 0),
            include_mathjax=False,
            full_html=False,
            default_width="100%",
            default_height="520px",
            validate=False,
            div_id=f"figure-{i + 1}",
        )
        parts.append(f"<figure><figcaption><h2>{esc(caption)}</h2></figcaption>{body}</figure>")
    if note:
        parts.append(f'<p class="note">{esc(note)}</p>')
    parts.append(f'<p class="note">{esc(word(texts, "handout.images"))}</p>')
    if figures:
        parts.append(f"<script>{SVG_BUTTON_JS}</script>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _number_text(value: Any) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return f"{value:.4g}" if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)
