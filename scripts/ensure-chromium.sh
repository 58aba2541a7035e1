#!/usr/bin/env bash
# The webview tests (npm test) drive a headless Chromium: Debian's, at /usr/lib/chromium/chromium, or the
# executable named by $CHROMIUM_BIN. Installs Debian's chromium when it is missing (as root; otherwise one
# line saying what to run). Fast when it is there.
set -euo pipefail
bin=${CHROMIUM_BIN:-/usr/lib/chromium/chromium}
[ -x "$bin" ] && exit 0
if [ -n "${CHROMIUM_BIN:-}" ]; then
  echo "[contact-lens] CHROMIUM_BIN=$CHROMIUM_BIN is not an executable file" >&2
  exit 1
fi
bash "$(dirname "$0")/apt-install.sh" "the webview tests (headless Chromium)" chromium
[ -x "$bin" ] || { echo "[contact-lens] chromium was installed but $bin is missing" >&2; exit 1; }
