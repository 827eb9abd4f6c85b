#!/bin/sh
# Installs what the native Kineto reader links against (native/CMakeLists.txt): Debian's simdjson
# and zlib headers, unless they are already there. Without them the build skips that addon and
# PyTorch traces are read by the JavaScript reader. Safe to run again. Needs root (CI runs as root;
# elsewhere use sudo).
set -eu
if [ -f /usr/include/simdjson.h ] && [ -f /usr/include/zlib.h ]; then
  echo "simdjson and zlib headers already installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends libsimdjson-dev zlib1g-dev
