"""`python -m models.train`: forwards to :mod:`cli.train` (argument parsing and printing)."""

from cli.train import main

if __name__ == "__main__":
    raise SystemExit(main())
