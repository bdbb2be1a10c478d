"""Session-state helpers shared by the pages' widgets."""
from __future__ import annotations

import streamlit as st


def increment(key: str) -> None:
    """Widget callback: add 1 to the integer under ``key`` in the session state (0 when unset)."""
    st.session_state[key] = int(st.session_state.get(key, 0)) + 1
