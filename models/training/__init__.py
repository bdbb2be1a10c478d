"""Training: the one loop (:mod:`~models.training.loop`), every family's recipe and the presets,
metrics, and the evaluation of the shipped checkpoints."""
