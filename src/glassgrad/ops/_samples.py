"""Sample inputs for the registry: small float64 arrays covering broadcasting, 0-d, empty."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ._registry import Sample, register

# What PyTorch (and glassgrad after it) warns on the PyTorch spellings of a few registry rows
# (deprecations, a beta notice): the test suite and the op sweep call them thousands of times,
# and silence them with filters set once at their start (``silence_oracle_warnings``). A
# ``warnings.catch_warnings`` around each call would cost ~3 us and, on its exit, make Python
# forget which warnings it has shown (a once-per-line warning would be shown again).
ORACLE_WARNINGS = (
    r"torch\.cholesky is deprecated",
    r"non-inplace resize is deprecated",
    r"at::nuclear_norm is deprecated",
    r"index_reduce\(\) is in beta",
)


def silence_oracle_warnings() -> None:
    """Filters that ignore ``ORACLE_WARNINGS`` (for the tests and the op sweep)."""
    for message in ORACLE_WARNINGS:
        warnings.filterwarnings("ignore", message=message, category=UserWarning)


def randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Standard normal float64 values of ``shape``."""
    return np.asarray(rng.standard_normal(shape))


def positive(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values in (0, 1] of ``shape`` (for log, sqrt, divisors)."""
    return np.asarray(1.0 - rng.random(shape))


def unary_samples(rng: np.random.Generator) -> list[Sample]:
    """A matrix, a non-contiguous view's values, a 0-d and an empty tensor."""
    return [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 4, 3).T,), note="non-contiguous"),
        Sample((randn(rng),)),
        Sample((randn(rng, 0, 3),)),
    ]


def binary_samples(rng: np.random.Generator) -> list[Sample]:
    """Same shape, broadcasting both ways, a Python scalar, 0-d with a matrix, empty."""
    return [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 3, 4), 2.5)),
        Sample((randn(rng), randn(rng, 2, 3))),
        Sample((randn(rng, 0, 3), randn(rng, 3))),
    ]


def complex_randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Standard complex normal values of ``shape`` (complex128)."""
    return randn(rng, *shape) + 1j * randn(rng, *shape)


def complex_samples(rng: np.random.Generator) -> list[Sample]:
    """Samples of one complex tensor: a matrix, its transpose, a 0-d and an empty one."""
    return [
        Sample((complex_randn(rng, 3, 4),)),
        Sample((complex_randn(rng, 4, 3).T,), note="non-contiguous"),
        Sample((complex_randn(rng),)),
        Sample((complex_randn(rng, 0, 2),)),
    ]


def complex_binary_samples(rng: np.random.Generator) -> list[Sample]:
    """Complex operands: two, a real with a complex (the real one's gradient is real), and
    complex and real Python numbers."""
    return [
        Sample((complex_randn(rng, 3, 4), complex_randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), complex_randn(rng, 1, 4)), note="real with complex"),
        Sample((complex_randn(rng, 3), 1.5 - 2.0j)),
        Sample((complex_randn(rng, 2, 3), 2.0)),
    ]


def register_on_copy(method: str, samples: Any) -> None:
    """A registry row ``_<method>`` for an in-place Tensor method: it runs on a copy of the
    sample (a leaf that requires grad cannot be written), in both libraries, so that the
    in-place op's values and first and second derivatives are compared."""

    def run(x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(x * 1, method)(*args, **kwargs)

    run.__name__ = f"_{method}"
    register(
        f"_{method}",
        run,
        methods=(),
        samples=samples,
        torch=lambda torch, x, *a, **k: run(x, *a, **k),
    )
