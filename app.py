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
available = [(path, label, blurb) for path, label, blurb in PAGES if (root / path).exists()]
columns = st.columns(2)
for number, (path, label, blurb) in enumerate(available, start=1):
    with columns[(number - 1) % 2].container(border=True):
        st.page_link(path, label=f"**{number}. {label}**", icon=":material/arrow_forward:")
        st.markdown(blurb)

st.subheader("In a lecture")
st.markdown(
    "- Step through a decoding with **←** and **→** (or the Prev/Next buttons).\n"
    "- Everything runs on this machine: no internet is needed in the room.\n"
    "- The model picker and other settings are kept in the address bar, so a link reopens the same view."
)
