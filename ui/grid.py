"""The layers × heads grid's head choice: Layer/Head selectboxes and the click callback of the
grid chart, which write the same session keys, so a click on a thumbnail selects its head."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from ui.i18n import tr
from ui.state import labels, linked, url_check

AVERAGE = -1  # the "head" that means the average over heads


def layer_option_label(layer: int) -> str:
    return tr("grid.layer_n", n=layer + 1)


def head_option_label(head: int) -> str:
    return tr("grid.average") if head == AVERAGE else tr("grid.head_n", n=head + 1)


def head_picker(
    n_layers: int, n_heads: int, key: str, allow_average: bool = True, columns: Sequence | None = None
) -> tuple[int, int]:
    """Layer and head selectboxes (with ``allow_average`` the head list ends with "average over
    heads") in ``columns`` (default: two new ones); returns 0-based (layer, head) with head =
    AVERAGE for the average. The grid's click callback (:func:`on_grid_select`) writes the same
    session keys ``{key}_layer`` and ``{key}_head``."""
    lk, hk = f"{key}_layer", f"{key}_head"  # also their names in the URL (bound selectboxes)
    heads = list(range(n_heads)) + ([AVERAGE] if allow_average else [])
    # a layer or head that another model or text had, but this one has not, falls back too
    url_check(lk, labels(range(n_layers), layer_option_label), tr("grid.layer_what"), layer_option_label(0))
    url_check(hk, labels(heads, head_option_label), tr("grid.head_what"), head_option_label(0))
    c1, c2 = columns if columns is not None else st.columns(2)
    linked(c1.selectbox, tr("grid.layer"), list(range(n_layers)), format_func=layer_option_label, key=lk)
    linked(c2.selectbox, tr("grid.head"), heads, format_func=head_option_label, key=hk)
    return int(st.session_state[lk]), int(st.session_state[hk])


def on_grid_select(chart_key: str, key: str, heads_as_rows: bool = False) -> None:
    """Callback of a grid chart (``GridPayload.figure`` / ``grid_figure``): a clicked thumbnail
    selects its (layer, head) in the keys of :func:`head_picker` with the same ``key``
    (``heads_as_rows``: a mosaic drawn with the heads as its rows, its customdata [head, layer])."""
    event = st.session_state.get(chart_key)
    try:
        points = event["selection"]["points"] if event else []
    except (KeyError, TypeError):
        points = []
    for point in points:
        data = point.get("customdata")
        if isinstance(data, dict):  # a numpy row arrives as {"0": layer, "1": head}
            data = [data[k] for k in sorted(data, key=int)]
        if data is not None and len(data) == 2:
            layer, head = (data[1], data[0]) if heads_as_rows else (data[0], data[1])
            st.session_state[f"{key}_layer"], st.session_state[f"{key}_head"] = int(layer), int(head)
            return


def pick(weights: np.ndarray, layer: int, head: int) -> np.ndarray:
    """One head's matrix, or the average over heads when ``head`` is AVERAGE."""
    return weights[layer].mean(axis=0) if head == AVERAGE else weights[layer, head]


def head_name(layer: int, head: int) -> str:
    """ "layer 2, head 3" or "layer 2, average over heads"."""
    return tr("grid.name", layer=layer_option_label(layer), head=head_option_label(head))
