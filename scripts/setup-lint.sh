#!/bin/sh
# Installs Debian's clang-format for npm run lint's check of the native sources, unless it is already
# there. Safe to run again. Needs root (CI runs as root; elsewhere use sudo).
set -eu
if command -v clang-format >/dev/null 2>&1; then
  echo "clang-format already installed: $(clang-format --version)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends clang-format
clang-format --version
