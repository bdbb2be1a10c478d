"""Data: the embedded English→French generator and loaders for user files."""
