"""Attention Lab landing page: what the lab is and a map of its pages in teaching order."""

from pathlib import Path

import streamlit as st

from ui.frame import PAGES, page_frame, page_text
from ui.i18n import tr

page_frame(tr("app.title"), icon="🔍", intro=tr("app.intro"))

st.subheader(tr("app.pages"))
root = Path(__file__).parent
available = [(path, *page_text(path)) for path, _, _ in PAGES if (root / path).exists()]
columns = st.columns(2)
for number, (path, label, blurb) in enumerate(available, start=1):
    with columns[(number - 1) % 2].container(border=True):
        st.page_link(path, label=f"**{number}. {label}**", icon=":material/arrow_forward:")
        st.markdown(blurb)

st.subheader(tr("app.lecture"))
st.markdown(tr("app.lecture_tips"))
