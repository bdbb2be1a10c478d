"""The Transformer block page in a real browser at 1280×720 with the sidebar collapsed: the architecture
diagram and the chosen box's figure start on the first screen, no error element, and a click on a box of the
diagram chooses that box (its figure and the link follow)."""

from __future__ import annotations

from tests.browser.conftest import ROOT, assert_no_error, wait_for_app
from tests.browser.test_first_screen import projector_page  # noqa: F401  (the 1280×720 fixture)

MAIN = ("block_diagram", "block_detail")


def test_first_screen_and_a_clicked_box(projector_page):  # noqa: F811
    page = projector_page("Transformer_block")
    for key in MAIN:
        figure = page.locator(f".st-key-{key} .js-plotly-plot").first
        figure.wait_for(timeout=60_000)
        assert figure.bounding_box()["y"] < 720, key
    assert_no_error(page)
    (ROOT / "screenshots").mkdir(exist_ok=True)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ROOT / "screenshots" / "transformer_block_1280x720.png"))  # what the room sees
    plot = page.locator(".st-key-block_diagram .js-plotly-plot").first
    x, y = plot.evaluate(  # the centre of the output box, from the plot's own axes
        """(gd) => {
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
            const trace = gd.data.find(d => d.customdata && d.customdata.includes('out'));
            const i = trace.customdata.indexOf('out');
            return [xa._offset + xa.l2p(trace.x[i]), ya._offset + ya.l2p(trace.y[i])];
        }"""
    )
    plot.click(position={"x": x, "y": y})
    page.wait_for_function("new URLSearchParams(location.search).get('block_box') === 'out'", timeout=60_000)
    wait_for_app(page)
    assert_no_error(page)
    page.locator(".st-key-block_detail .js-plotly-plot .barlayer").first.wait_for(timeout=60_000)
