#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (never a browser download). Runs before `npm test`:
# installs it from Debian's packages when it is missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "Chromium is missing: installing Debian's chromium package for the browser tests…"
if [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
elif command -v sudo >/dev/null 2>&1; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
else
  echo "Cannot install chromium (not root, no sudo). Install it with: apt-get install -y chromium" >&2
  exit 1
fi
