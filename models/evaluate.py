"""`python -m models.evaluate`: forwards to :mod:`cli.evaluate` (argument parsing and printing)."""

from cli.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
