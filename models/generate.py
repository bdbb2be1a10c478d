"""`python -m models.generate`: forwards to :mod:`cli.generate` (argument parsing and printing)."""

from cli.generate import main

if __name__ == "__main__":
    raise SystemExit(main())
