"""ui.plot: every figure goes to the page as its own JSON, with the lab's template, plotly.js served
by the app itself."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from ui.plot import PLOTLY_JS, serve_plotly_js
from viz_core.style import LAB_TEMPLATE, TEXT_COLOR

ROOT = Path(__file__).resolve().parents[1]


def test_serve_plotly_js_copies_once_and_replaces_a_partial_file(tmp_path: Path) -> None:
    source = tmp_path / "plotly.min.js"
    source.write_text("/* plotly */" * 100)
    target = tmp_path / "static" / "vendor" / "plotly.min.js"
    serve_plotly_js(target, source)
    assert target.read_text() == source.read_text()
    stamp = target.stat().st_mtime_ns
    serve_plotly_js(target, source)  # an identical copy is left alone
    assert target.stat().st_mtime_ns == stamp
    target.write_text("/* cut off */")  # a broken copy is replaced whole
    serve_plotly_js(target, source)
    assert target.read_text() == source.read_text() and not list(target.parent.glob("*.part"))


def test_the_lab_template_is_every_figures_default() -> None:
    assert pio.templates.default == "attention_lab"
    fig = go.Figure(go.Bar(x=["a"], y=[1]))
    assert fig.layout.template.layout.font.color == TEXT_COLOR
    assert fig.layout.template.layout.title.font.weight == "bold"  # titles read from the back of the room
    assert LAB_TEMPLATE.layout.margin.pad is None  # no padding the tick planner does not know of


@pytest.mark.slow
def test_the_lab_template_stays_the_default_whatever_was_imported_first() -> None:
    """Importing Streamlit makes its theme plotly's default; the figures drawn through ui.plot
    keep the lab's template even when viz_core was imported before Streamlit."""
    code = (
        "import viz_core.style, plotly.io as pio, streamlit; assert pio.templates.default == 'streamlit'; "
        "import ui.plot; print(pio.templates.default)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["attention_lab"]


def _page() -> None:
    import plotly.graph_objects as go
    import streamlit as st

    from ui.export import PLOT
    from ui.plot import chart

    def clicked() -> None:
        st.session_state["clicked"] = True

    fig = go.Figure(go.Scatter(x=[0, 1], y=[2, 3], mode="markers"), layout={"title": {"text": "<b>&lt;b&gt;</b>"}})
    left, right = st.columns(2)
    chart(fig, key="pts", config=PLOT, on_select=clicked, where=left)
    chart(go.Figure(go.Bar(x=["x"], y=[1])), key="bar", config=PLOT, where=right)


@pytest.mark.slow
def test_chart_sends_the_figure_json_under_its_key_and_reports_a_click() -> None:
    at = AppTest.from_function(_page, default_timeout=60).run()
    assert not at.exception
    drawn = charts(at)
    assert [c.key for c in drawn] == ["pts", "bar"]
    figure = drawn[0].figure
    assert figure["data"][0]["type"] == "scatter" and figure["layout"]["title"]["text"] == "<b>&lt;b&gt;</b>"
    assert figure["layout"]["template"]["layout"]["font"]["color"] == TEXT_COLOR
    sent = json.loads(at.get("bidi_component")[0].proto.json)
    assert sent["select"] is True and sent["config"]["displaylogo"] is False
    assert json.loads(at.get("bidi_component")[1].proto.json)["select"] is False
    # (a real click, and the derivation it opens: tests/browser/test_click_explain.py)


def test_plotly_js_is_served_from_static() -> None:
    """The app serves its copy (Streamlit static serving is on), the same bytes as the package's."""
    import plotly

    serve_plotly_js()
    assert PLOTLY_JS.is_relative_to(ROOT / "static")
    package = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert PLOTLY_JS.stat().st_size == package.stat().st_size
    assert "enableStaticServing = true" in (ROOT / ".streamlit" / "config.toml").read_text()


def test_figure_spec_is_the_figure_json_with_a_revision_of_its_traces() -> None:
    """The revision follows the traces only: a step that moves the outlined row keeps it, so that
    the browser keeps the drawn traces; any change of data, even one colour, gives a new one."""
    import numpy as np

    from ui.plot import figure_spec

    fig = go.Figure(
        [go.Heatmap(z=np.eye(3)), go.Scatter(x=np.arange(3), y=np.arange(3), marker={"color": "red"})],
        layout={"title": {"text": "step 1"}, "shapes": [{"type": "rect", "y0": -0.5, "y1": 0.5}]},
    )
    spec, revision = figure_spec(fig)
    assert json.loads(spec) == json.loads(fig.to_json())  # what plotly.py itself sends (no trace uids)
    fig.update_layout(title_text="step 2", shapes=[{"type": "rect", "y0": 0.5, "y1": 1.5}])
    assert figure_spec(fig)[1] == revision
    fig.update_traces(marker_color="blue", selector={"type": "scatter"})
    assert figure_spec(fig)[1] != revision


def _stepped_page() -> None:
    import numpy as np
    import plotly.graph_objects as go

    from ui.export import PLOT
    from ui.plot import chart
    from ui.stepper import step_control

    chart(go.Figure(go.Bar(x=["a"], y=[1])), key="before", config=PLOT)  # drawn before the step control
    t = step_control(4, key="demo")
    chart(go.Figure(go.Heatmap(z=np.eye(3)), layout={"title": {"text": f"step {t + 1}"}}), key="heat_map", config=PLOT)
    chart(go.Figure(go.Bar(x=["a"], y=[1])), key="fixed", config=PLOT, step=7)


def _sent(at: AppTest) -> dict[str, dict]:
    return {c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.json) for c in at.get("bidi_component")}


def test_images_are_named_after_view_and_step_and_the_config_stays_the_same() -> None:
    """The PNG/SVG name (page, key, step of the page's step control) travels beside the config, which
    stays the same while the step changes: plotly.js redraws a chart from scratch when its config differs."""
    at = AppTest.from_function(_stepped_page, default_timeout=60).run()
    assert not at.exception
    first = _sent(at)
    assert first["heat_map"]["filename"].endswith("-heat-map-step1")
    assert first["before"]["filename"].endswith("-before") and first["fixed"]["filename"].endswith("-fixed-step7")
    at.button(key="demo_next").click().run()
    second = _sent(at)
    assert second["heat_map"]["filename"].endswith("-heat-map-step2")
    assert second["heat_map"]["config"] == first["heat_map"]["config"]
    assert second["heat_map"]["config"]["toImageButtonOptions"]["width"] == 1280


@pytest.mark.slow
def test_the_toolbar_speaks_the_readers_language_and_never_offers_the_cloud() -> None:
    """In 中文 every chart's config carries plotly's zh-CN locale with the toolbar's strings from the
    string table (ui/strings/toolbar.py), including the lab's SVG button; in English none (plotly's own)."""
    from ui.strings import STRINGS
    from viz_core.export import SVG_TITLE

    at = AppTest.from_function(_page, default_timeout=60)
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception
    config = json.loads(at.get("bidi_component")[0].proto.json)["config"]
    assert config["locale"] == "zh-CN" and config["showSendToCloud"] is False
    dictionary = config["locales"]["zh-CN"]["dictionary"]
    toolbar = {k: v for k, v in STRINGS.items() if k.startswith("toolbar.")}
    assert dictionary == {en: zh for en, zh in toolbar.values()}
    for english in (
        "Download plot as a PNG",
        "Zoom",
        "Pan",
        "Reset axes",
        "Autoscale",
        "Zoom in",
        "Zoom out",
        SVG_TITLE,
    ):
        assert dictionary[english] != english and re.search(r"[\u4e00-\u9fff]", dictionary[english]), english
    english = json.loads(AppTest.from_function(_page, default_timeout=60).run().get("bidi_component")[0].proto.json)
    assert "locale" not in english["config"] and english["config"]["showSendToCloud"] is False


def _kept_page() -> None:
    import plotly.graph_objects as go
    import streamlit as st

    from ui.plot import chart, kept_figure

    built = st.session_state.setdefault("built", [])
    inputs = st.session_state.get("inputs", 1)

    def build() -> go.Figure:
        built.append(inputs)
        return go.Figure(go.Bar(x=["a"], y=[inputs]))

    fig = kept_figure("slot", inputs, build)
    st.session_state["last"] = fig
    chart(fig, key="kept", config={})


def test_kept_figure_is_built_again_only_when_its_inputs_or_the_language_change() -> None:
    at = AppTest.from_function(_kept_page, default_timeout=60).run()
    first = at.session_state["last"]
    at.run()  # another rerun, the same inputs: the same figure, not built again
    assert at.session_state["built"] == [1] and at.session_state["last"] is first
    assert json.loads(charts(at)[0].spec)["data"][0]["y"] == [1]
    at.session_state["inputs"] = 2
    at.run()  # new inputs: built again, and what is drawn follows
    assert at.session_state["built"] == [1, 2] and json.loads(charts(at)[0].spec)["data"][0]["y"] == [2]
    at.query_params["lang"] = "zh"
    at.run()  # another language (figure text is translated when built): built again
    assert at.session_state["built"] == [1, 2, 2]
