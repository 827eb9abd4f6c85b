#!/usr/bin/env bash
# Prepares what the end-to-end tests need, from nothing: Debian packages (headless Chromium and a
# font for its screenshots, ripgrep, the compiler and headers code-server's native modules build
# with) and code-server 4.100.3, the last release that runs on Node 20. Idempotent: each step
# checks what is there, and a finished install is kept in the cache and found again.
#
# code-server's own postinstall downloads ripgrep from the network, so it is installed with
# scripts off and its native modules are rebuilt here instead.
set -euo pipefail

VERSION=4.100.3
CACHE="${SYNCSCOPE_E2E_CACHE:-$HOME/.cache/syncscope-e2e}"
DIR="$CACHE/code-server-$VERSION"
CS="$DIR/node_modules/code-server"
STAMP="$DIR/.complete"

log() { printf 'setup-e2e: %s\n' "$*" >&2; }

need_apt=()
for pkg in ca-certificates g++ make python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium fonts-dejavu-core; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  log "installing Debian packages: ${need_apt[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  # Another apt run may hold the lock for a while; wait for it rather than fail.
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${need_apt[@]}"
fi

if [ -f "$STAMP" ]; then
  log "code-server $VERSION ready in $DIR"
  exit 0
fi

# node-gyp would download Node's headers from the internet; the installed Node has its own.
NODE_PREFIX="$(dirname "$(dirname "$(command -v node)")")"
if [ -f "$NODE_PREFIX/include/node/node.h" ]; then export npm_config_nodedir="$NODE_PREFIX"; fi

mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || npm init -y >/dev/null
log "installing code-server $VERSION (scripts off)"
npm install --no-audit --no-fund --ignore-scripts "code-server@$VERSION"
npm rebuild argon2

cd "$CS/lib/vscode"
log "installing the workbench's runtime modules"
npm install --no-audit --no-fund --omit=dev --ignore-scripts
# node-pty's install script runs `npx node-gyp`; let npx fetch it without asking.
npm_config_yes=true npm rebuild kerberos @vscode/spdlog node-pty native-watchdog @parcel/watcher @vscode/deviceid
for f in kerberos/build/Release/kerberos.node @vscode/spdlog/build/Release/spdlog.node \
         node-pty/build/Release/pty.node native-watchdog/build/Release/watchdog.node; do
  [ -f "node_modules/$f" ] || { log "native module missing after rebuild: $f"; exit 1; }
done
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
# The server looks its modules up through an asar path, as a packaged build would have.
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
(cd extensions && npm install --no-audit --no-fund --omit=dev --ignore-scripts)

touch "$STAMP"
log "code-server $VERSION ready in $DIR"
