"""`python -m models.prepare_llm`: forwards to :mod:`cli.prepare_llm` (conversion of the real LLM, with progress)."""

from cli.prepare_llm import main

if __name__ == "__main__":
    raise SystemExit(main())
