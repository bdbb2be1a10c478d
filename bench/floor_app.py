"""The floor for bench/browser_bench.py: a minimal Streamlit app with one button and one small plot.
No page of the lab can answer a click faster than this does in the same browser and server setup.

``?heatmap=1&bars=N`` draws a 10×10 heatmap and N small bar charts instead, each changed by every
click: the floor of a page whose step redraws that many figures (the seq2seq step redraws a
heatmap and two bar charts)."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", page_icon="·")
heatmap = st.query_params.get("heatmap") == "1"
try:
    bars = min(max(int(st.query_params.get("bars", "1")), 0), 8)
except ValueError:
    bars = 1
if st.button("Next ▶", key="floor_next"):
    st.session_state["floor_n"] = st.session_state.get("floor_n", 0) + 1
n = st.session_state.get("floor_n", 0)
if heatmap:
    words = [f"w{i}" for i in range(10)]
    st.plotly_chart(
        go.Figure(go.Heatmap(z=np.random.default_rng(n).random((10, 10)), x=words, y=words, zmin=0, zmax=1)),
        key="floor_heatmap",
    )
for b in range(bars):
    st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[(n + b) % 3, 1, 2])), key=f"floor_plot{b or ''}")
