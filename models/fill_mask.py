"""`python -m models.fill_mask`: forwards to :mod:`cli.fill_mask` (argument parsing and printing)."""

from cli.fill_mask import main

if __name__ == "__main__":
    raise SystemExit(main())
