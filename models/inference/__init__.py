"""Running trained models: decoding (greedy, beam, sampling), one-head walkthroughs, the real
Hugging Face encoder, and every trace type (:mod:`models.inference.traces`). Never imports training."""
