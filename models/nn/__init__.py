"""The modules and formulas: attention scores, positional encodings, the RNN encoder–decoders,
the Transformer and BERT, as pure ``nn.Module``s and tensor functions (no data, no training)."""
