"""Attention Lab landing page: what the lab is and a map of its pages in teaching order."""
from pathlib import Path

import streamlit as st

from ui.frame import PAGES, page_frame

page_frame(
    "Attention Lab",
    icon="🔍",
    intro=(
        "See how attention works by looking inside small models that run right here, offline. "
        "Type a sentence, step through its translation, and watch where each step looks. "
        "Every number on screen is the number the model computed."
    ),
)

st.subheader("Pages, in teaching order")
root = Path(__file__).parent
for number, (path, label, blurb) in enumerate(PAGES, start=1):
    if (root / path).exists():
        st.page_link(path, label=f"{number}. {label}", icon="➡️")
        st.caption(blurb)
