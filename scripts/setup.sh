#!/usr/bin/env bash
# Idempotent set-up: system packages, a virtual environment, and glassgrad with the given extras.
# Usage: scripts/setup.sh [extras]   (default: demo)
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-demo}"

apt_missing=()
command -v dot >/dev/null 2>&1 || apt_missing+=(graphviz)
if [[ "$extras" == *dev* ]]; then
  command -v chromium >/dev/null 2>&1 || apt_missing+=(chromium chromium-driver)
fi
if ((${#apt_missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
fi

[[ -x .venv/bin/python ]] || python3 -m venv .venv
stamp=".venv/.installed-$extras-$(sha1sum pyproject.toml | cut -c1-12)"
if [[ ! -f "$stamp" ]]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[$extras]"
  touch "$stamp"
fi
