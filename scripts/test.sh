#!/usr/bin/env bash
# The whole test suite: lint, unit and parity tests against PyTorch, and the benchmark's quick mode.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
# Two pytest workers on two cores: one BLAS/OpenMP thread each, no oversubscription.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
.venv/bin/python -m pytest -n 2 "$@"
