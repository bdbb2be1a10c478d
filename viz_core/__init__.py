"""Pure figure and table builders: arrays and token lists in, plotly figures or pandas frames out.

No Streamlit and no torch here.
"""
