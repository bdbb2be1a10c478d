"""Take full-page screenshots of the app's pages in headless Debian Chromium (for looking, not testing).

`python scripts/screenshots.py [PAGE ...]` starts the app, opens each page (URL path, e.g.
Seq2seq_attention; default: every page) and writes screenshots/<page>.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, save_screenshot, wait_for_app  # noqa: E402
from tests.server import streamlit_server  # noqa: E402
from ui.frame import PAGES  # noqa: E402


def main(paths: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    paths = paths or [""] + [Path(p).stem.split("_", 1)[1] for p, _, _ in PAGES if (ROOT / p).exists()]
    with streamlit_server("app.py") as url, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            tempfile.mkdtemp(),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        for path in paths:
            page = ctx.new_page()
            page.goto(f"{url}/{path}")
            wait_for_app(page)
            page.wait_for_timeout(1500)
            name = path or "home"
            save_screenshot(page, name)
            print(f"screenshots/{name}.png")
        ctx.close()


if __name__ == "__main__":
    main(sys.argv[1:])
