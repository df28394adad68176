#!/usr/bin/env bash
# The main job: train a small CNN on scikit-learn's digits and write curves, graph and checkpoint.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/python -m glassgrad.demo "$@"
