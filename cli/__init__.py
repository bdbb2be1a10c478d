"""Command-line programs: argument parsing and printing only; the work is in ``models``.

Run them as ``python -m models.train``, ``models.evaluate``, ``models.translate`` and
``models.generate`` (those modules forward here) or as ``python -m cli.<name>``.
"""
