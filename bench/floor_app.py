"""The floor for bench/browser_bench.py: a minimal Streamlit app with one button and one small plot.
No page of the lab can answer a click faster than this does in the same browser and server setup."""
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", page_icon="·")
if st.button("Next ▶", key="floor_next"):
    st.session_state["floor_n"] = st.session_state.get("floor_n", 0) + 1
n = st.session_state.get("floor_n", 0)
st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[n % 3, 1, 2])), key="floor_plot")
