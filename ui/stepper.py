"""Step-through control: Prev/Next buttons (also the ←/→ keys) and a step slider.

Call it inside an ``st.fragment`` so that stepping reruns only the fragment, not the page.
"""

from __future__ import annotations

import sys

import streamlit as st

from ui.i18n import tr
from ui.state import number_in, url_check, url_notice, url_value


def _move(state_key: str, delta: int, n_steps: int) -> None:
    st.session_state[state_key] = min(n_steps, max(1, st.session_state.get(state_key, 1) + delta))


def step_control(n_steps: int, key: str, label: str | None = None) -> int:
    """Show the controls and return the current step as a 0-based index (0 ≤ t < n_steps);
    ``label`` defaults to "Decoding step" in the reader's language."""
    label = label or tr("step.label")
    state_key = f"{key}_step"  # also the step's name in the URL (the slider is bound to it)
    # Any whole step ≥ 1 in the session is clamped to this decoding below; anything else is reset.
    url_check(state_key, number_in(1, sys.maxsize), label.lower(), url=False)
    current = min(max(1, int(st.session_state.get(state_key, 1))), n_steps)
    linked = url_value(state_key)
    if linked is not None:  # the page's first run with ?{key}_step=… in the link
        try:
            current = int(linked[-1])
        except ValueError:
            current = 0
        if current > n_steps:
            url_notice(label.lower(), linked[-1], tr("step.last", n=n_steps))
        elif current < 1:
            url_notice(label.lower(), linked[-1], tr("step.first"))
        current = min(max(1, current), n_steps)
    st.session_state[state_key] = current
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.button(
            tr("step.prev"),
            key=f"{key}_prev",
            shortcut="Left",
            on_click=_move,
            args=(state_key, -1, n_steps),
            disabled=current <= 1,
            help=tr("step.prev_help"),
        )
        st.button(
            tr("step.next"),
            key=f"{key}_next",
            shortcut="Right",
            on_click=_move,
            args=(state_key, 1, n_steps),
            disabled=current >= n_steps,
            help=tr("step.next_help"),
        )
        if n_steps > 1:
            st.slider(label, min_value=1, max_value=n_steps, key=state_key, bind="query-params")
        else:
            st.caption(tr("step.one", label=label))
    return int(st.session_state[state_key]) - 1


def length_penalty_slider(key: str, beam: int, default: float, **widget: object) -> float:
    """The beam's α, the same control on every decoding page: finished hypotheses are ranked by
    Σ log p / ((5 + |y|) / 6)^α (Wu et al. 2016); disabled for greedy decoding (beam 1)."""
    return st.slider(
        tr("step.penalty"), 0.0, 2.0, default, 0.1, key=key, disabled=beam == 1, help=tr("step.penalty_help"), **widget
    )
