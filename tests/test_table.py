"""ui.table: a light table drawn in the page, every cell sent as text (never HTML or markdown)."""

from __future__ import annotations

import json

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.charts import tables
from ui.table import table_data


def test_table_data_keeps_every_cell_as_typed_and_marks_number_columns() -> None:
    frame = pd.DataFrame(
        {
            "key": ["<b>x</b>", "**y**", "12"],
            "q·k": ["0.123", "-1.500", "1e-05"],
            "mask": ["+0", "−∞", "+0"],
            "p": [0.5, 0.25, 0.125],
            "top": ["a (5%)", "b", "c"],
        }
    )
    spec = json.loads(table_data(frame))
    assert spec["columns"] == ["key", "q·k", "mask", "p", "top"]
    assert spec["rows"][0] == ["<b>x</b>", "0.123", "+0", "0.5", "a (5%)"]
    assert spec["rows"][1][0] == "**y**"
    # right-aligned: columns whose every cell reads as a number; a text column with one number is not
    assert spec["numeric"] == [False, True, True, True, False]
    assert json.loads(table_data(pd.DataFrame({"empty": []})))["numeric"] == [False]


def _page() -> None:
    import pandas as pd

    from ui.table import table

    table(pd.DataFrame({"token": ["<img src=x>", "the"], "weight": ["0.75", "0.25"]}), key="weights")


def test_table_sends_its_cells_under_its_key() -> None:
    at = AppTest.from_function(_page, default_timeout=60).run()
    assert not at.exception
    drawn = tables(at)
    assert list(drawn) == ["weights"]
    assert drawn["weights"].to_dict("list") == {"token": ["<img src=x>", "the"], "weight": ["0.75", "0.25"]}
    assert not at.markdown and not at.dataframe  # nothing of it goes through markdown
