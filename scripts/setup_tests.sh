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
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
