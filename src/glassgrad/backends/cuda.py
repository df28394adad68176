"""CUDA backend switches (no CUDA here; the flags do nothing)."""

from types import SimpleNamespace

matmul: SimpleNamespace = SimpleNamespace(
    allow_tf32=False, allow_fp16_reduced_precision_reduction=True
)


def is_built() -> bool:
    return False
