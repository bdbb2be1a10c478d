"""The figures that an AppTest run drew with ui.plot.chart (their keys and plotly JSON), and the
tables it drew with ui.table.table."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from ui.plot import COMPONENT
from ui.table import TABLE_COMPONENT


@dataclass(frozen=True)
class Chart:
    key: str  #: the chart's key as the page gave it ("" for none)
    spec: str  #: the figure's JSON, as sent to the browser

    @property
    def figure(self) -> dict:
        return json.loads(self.spec)


def typed_array(value):
    """A trace's array as plotly.py sends it to the browser: a typed array ({dtype, bdata (base64), shape})
    decoded into numpy; anything else (a list, a number) as it is."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return flat.reshape([int(n) for n in str(value.get("shape", len(flat))).split(",")])
    return value


def _key(element) -> str:
    """The key a page gave a component ("" for none)."""
    return element.proto.id.rsplit("-", 1)[-1] if "$$ID-" in element.proto.id else ""


def charts(at: AppTest) -> list[Chart]:
    """Every figure of the run, in page order."""
    out = []
    for element in at.get("bidi_component"):
        if element.proto.component_name == COMPONENT:
            out.append(Chart(_key(element), json.loads(element.proto.json)["spec"]))
    return out


def tables(at: AppTest) -> dict[str, pd.DataFrame]:
    """Every ui.table.table of the run by key: its columns and its cells as the browser shows them."""
    out = {}
    for element in at.get("bidi_component"):
        if element.proto.component_name == TABLE_COMPONENT:
            spec = json.loads(json.loads(element.proto.json)["spec"])
            out[_key(element)] = pd.DataFrame(spec["rows"], columns=spec["columns"])
    return out


def clicked(at: AppTest, key: str, cell: tuple[int, int], panel: int = 0) -> str:
    """Click ``cell`` (row, column) of ``panel`` of the click-to-explain chart ``key`` (ui.explain: the
    cell its callback stores), rerun, and return the derivation's title ("Why …? Query …") with its
    panel's name; the run must show no mismatch between derivation and drawn weight."""
    at.session_state[f"{key}_cell"] = cell
    at.session_state[f"{key}_panel"] = panel
    at.run()
    assert not at.exception, at.exception
    assert not any("does not reproduce the drawn weight" in w.value for w in at.warning)
    return " ".join(m.value for m in at.markdown if "Why" in m.value and "Query" in m.value)
