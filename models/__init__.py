"""PyTorch side of Attention Lab: attention functions, models, training, decoding traces.

Nothing here imports Streamlit; tensors never leave this package (views get numpy traces).
"""
