"""Seeded NumPy inputs shared by every library: initial weights and data.

Every library receives the same arrays, built here from a fixed seed, so that the outputs of a
workload can be compared element by element. Weights follow PyTorch's layouts (a Linear weight is
``(out_features, in_features)``, a Conv2d weight ``(out, in, kh, kw)``, an LSTM's gates are stacked
``i, f, g, o``) and PyTorch's default initialisation ranges.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

SEED = 20240601


def rng_for(name: str) -> np.random.Generator:
    """Return a generator whose seed depends only on ``SEED`` and the workload name."""
    return np.random.default_rng([SEED, *name.encode()])


def uniform_weight(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    """PyTorch's default range for Linear/Conv/LSTM weights: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def linear_layers(rng: np.random.Generator, widths: list[int]) -> list[np.ndarray]:
    """Weights and biases ``[w1, b1, w2, b2, ...]`` of an MLP with the given layer widths."""
    arrays = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:], strict=True):
        arrays.append(uniform_weight(rng, (fan_out, fan_in), fan_in))
        arrays.append(uniform_weight(rng, (fan_out,), fan_in))
    return arrays


def load_digits_arrays() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits as ``(data (1797, 64), target (1797,))``.

    Reads the CSV that scikit-learn ships without importing scikit-learn (whose import costs a
    second per worker process); falls back to ``sklearn.datasets.load_digits``.
    """
    spec = importlib.util.find_spec("sklearn")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "datasets" / "data" / "digits.csv.gz"
        if path.exists():
            table = np.loadtxt(path, delimiter=",")
            return table[:, :-1], table[:, -1].astype(np.int64)
    from sklearn.datasets import load_digits

    digits = load_digits()
    return digits.data, digits.target


def digits_batches(
    rng: np.random.Generator, batch: int, image: bool
) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits, scaled to [0, 1], shuffled once, cut into full batches.

    Returns ``(x, y)`` with ``x`` of shape ``(n_batches, batch, 64)`` (or
    ``(n_batches, batch, 1, 8, 8)`` when ``image``) in float32 and ``y`` of shape
    ``(n_batches, batch)`` in int64.
    """
    data, target = load_digits_arrays()
    order = rng.permutation(len(target))
    n_batches = len(order) // batch
    order = order[: n_batches * batch]
    x = (data[order] / 16.0).astype(np.float32)
    y = target[order].astype(np.int64)
    shape = (n_batches, batch, 1, 8, 8) if image else (n_batches, batch, 64)
    return x.reshape(shape), y.reshape(n_batches, batch)
