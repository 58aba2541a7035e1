#!/usr/bin/env bash
# Installs Debian packages with apt-get: `bash scripts/apt-install.sh "<what needs them>" pkg…`.
# As root it runs apt-get (log in $TMPDIR/contact-lens-apt.log); otherwise it prints one line naming the
# command to run and exits 1. Used by scripts/ensure-chromium.sh (npm test) and scripts/vscode-host/install.sh.
set -euo pipefail
what=$1
shift
[ $# -gt 0 ] || exit 0
say() { echo "[contact-lens] $*" >&2; }
if ! command -v apt-get >/dev/null; then
  say "$what: missing Debian packages: $*; this machine has no apt-get: install them with its package manager"
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  say "$what: missing Debian packages: $*; run \`sudo apt-get install -y $*\`, or run this command as root, which installs them"
  exit 1
fi
log=${TMPDIR:-/tmp}/contact-lens-apt.log
say "$what: apt-get install $* (log: $log)"
(apt-get update -qq || true) >"$log" 2>&1
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" ca-certificates >>"$log" 2>&1 \
  || { say "apt-get install $* failed, see $log"; tail -20 "$log" >&2; exit 1; }
say "installed $*"
