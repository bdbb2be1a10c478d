"""A light table for numbers that change with a page's main interaction.

``st.dataframe``'s grid redraws its cells about 150 ms after the rest of a rerun has been drawn
(bench/browser_bench.py, Inside one head's scale toggle); this table is plain HTML built in the
page by a small component (``st.components.v2``), so it is drawn with everything else. Cells are
set as text (``textContent``), never as HTML or markdown: a token typed by the user is shown as
typed. Long tables scroll inside a box under a header that stays in view.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import streamlit as st

__all__ = ["TABLE_COMPONENT", "table", "table_data"]

_JS = r"""
export default function (component) {
  const { data, parentElement } = component;
  const box = parentElement.querySelector(".lab-table-box");
  if (box.__spec === data.spec) return;  // the same table as drawn: nothing to do
  box.__spec = data.spec;
  const spec = JSON.parse(data.spec);
  const table = document.createElement("table");
  table.className = "lab-table";
  const head = table.createTHead().insertRow();
  spec.columns.forEach((name, j) => {
    const th = document.createElement("th");
    th.textContent = name;
    if (spec.numeric[j]) th.className = "lab-num";
    head.appendChild(th);
  });
  const body = table.createTBody();
  spec.rows.forEach((row) => {
    const tr = body.insertRow();
    row.forEach((cell, j) => {
      const td = tr.insertCell();
      td.textContent = cell;
      if (spec.numeric[j]) td.className = "lab-num";
    });
  });
  box.replaceChildren(table);
}
"""

_CSS = """.lab-table-box { overflow: auto; max-height: 28rem; border: 1px solid #d0d4da; border-radius: 0.4rem; }
.lab-table { border-collapse: collapse; width: 100%; font-size: 0.95rem; color: #111418; background: #ffffff; }
.lab-table th { position: sticky; top: 0; background: #eef0f3; font-weight: 600; text-align: left;
  border-bottom: 2px solid #b8bec7; }
.lab-table th, .lab-table td { padding: 0.2rem 0.45rem; }
.lab-table td { white-space: nowrap; }
.lab-table th { vertical-align: bottom; }
.lab-table td { border-bottom: 1px solid #e4e7eb; }
.lab-table .lab-num { text-align: right; font-variant-numeric: tabular-nums; }"""

#: a cell that reads as a number: "0.123", "−∞", "+0", "12%", "1e-05"
_NUMBER = re.compile(r"[+\-−]?(\d[\d.,]*(e[+\-]?\d+)?|∞)%?")

TABLE_COMPONENT = "attention_lab.table"
_table = st.components.v2.component(
    TABLE_COMPONENT, html="<div class='lab-table-box'></div>", css=_CSS, js=_JS, isolate_styles=False
)


def table_data(frame: pd.DataFrame) -> str:
    """The JSON the browser draws: column names, every cell as text, and which columns hold numbers
    (right-aligned; "—", a value not defined, among them)."""
    rows = [[str(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    numeric = [
        any(_NUMBER.fullmatch(row[j]) for row in rows)
        and all(_NUMBER.fullmatch(row[j]) or row[j] == "—" for row in rows)
        for j in range(len(frame.columns))
    ]
    return json.dumps(
        {"columns": [str(c) for c in frame.columns], "numeric": numeric, "rows": rows}, ensure_ascii=False
    )


def table(frame: pd.DataFrame, *, key: str) -> None:
    """Draw ``frame`` (its index left out) as a plain table under ``key``."""
    _table(key=key, data={"spec": table_data(frame)}, height="content")
