"""Streamlit widgets shared by the pages: frame, step-through control, token strip, head picker and grid clicks,
explanations."""
