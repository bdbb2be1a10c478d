"""`python -m models.translate`: forwards to :mod:`cli.translate` (argument parsing and printing)."""

from cli.translate import main

if __name__ == "__main__":
    raise SystemExit(main())
