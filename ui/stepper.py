"""Step-through control: Prev/Next buttons (also the ←/→ keys) and a step slider.

Call it inside an ``st.fragment`` so that stepping reruns only the fragment, not the page.
"""
from __future__ import annotations

import streamlit as st

from ui.state import url_notice, url_value


def _move(state_key: str, delta: int, n_steps: int) -> None:
    st.session_state[state_key] = min(n_steps, max(1, st.session_state.get(state_key, 1) + delta))


def step_control(n_steps: int, key: str, label: str = "Decoding step") -> int:
    """Show the controls and return the current step as a 0-based index (0 ≤ t < n_steps)."""
    state_key = f"{key}_step"  # also the step's name in the URL (the slider is bound to it)
    current = min(max(1, int(st.session_state.get(state_key, 1))), n_steps)
    linked = url_value(state_key)
    if linked is not None:  # the page's first run with ?{key}_step=… in the link
        try:
            current = int(linked[-1])
        except ValueError:
            current = 0
        if current > n_steps:
            url_notice(label.lower(), linked[-1], f"the last step, {n_steps}")
        elif current < 1:
            url_notice(label.lower(), linked[-1], "step 1")
        current = min(max(1, current), n_steps)
    st.session_state[state_key] = current
    prev_col, next_col, slider_col = st.columns([1.4, 1.4, 5], vertical_alignment="bottom")
    prev_col.button("◀ Prev", key=f"{key}_prev", shortcut="Left", on_click=_move, args=(state_key, -1, n_steps),
                    disabled=current <= 1, width="stretch", help="Previous step (← key)")
    next_col.button("Next ▶", key=f"{key}_next", shortcut="Right", on_click=_move, args=(state_key, 1, n_steps),
                    disabled=current >= n_steps, width="stretch", help="Next step (→ key)")
    if n_steps > 1:
        slider_col.slider(label, min_value=1, max_value=n_steps, key=state_key, bind="query-params")
    else:
        slider_col.caption(f"{label}: 1 of 1")
    return int(st.session_state[state_key]) - 1


def length_penalty_slider(key: str, beam: int, default: float, **widget: object) -> float:
    """The beam's α, the same control on every decoding page: finished hypotheses are ranked by
    Σ log p / ((5 + |y|) / 6)^α (Wu et al. 2016); disabled for greedy decoding (beam 1)."""
    return st.slider("Length penalty α", 0.0, 2.0, default, 0.1, key=key, disabled=beam == 1,
                     help="The beam ranks finished outputs by Σ log p / ((5 + |y|) / 6)^α (Wu et al. 2016), the same "
                          "rule on the seq2seq and Transformer pages: 0 = raw log-probability, larger α favours "
                          "longer outputs.", **widget)
