"""PyTorch side of Attention Lab, by role: ``nn`` (modules and formulas), ``text`` (tokenisers),
``inference`` (decoding and traces), ``training`` (the loop, recipes, presets, metrics),
``lessons`` (page-only computations), ``checkpoints`` (save/load of every family), ``device``.

Nothing here imports Streamlit; tensors never leave this package (views get numpy traces).
``python -m models.train | evaluate | translate | generate`` forward to :mod:`cli`.
"""
