"""Computations that exist for one page: kernel regression, the Q/K/V sandbox and score functions,
the complexity timings, the positional-encoding page's traces."""
