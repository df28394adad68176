"""Where ``utils.data`` gets its random numbers: the bridge to glassgrad's generators.

``DataLoader(shuffle=True)``, ``RandomSampler`` and ``random_split`` take a ``generator``, as in
PyTorch. The draws come from the NumPy PCG64 stream behind a ``glassgrad.Generator``, so the
orders differ from PyTorch's for the same seed, but a seeded generator gives the same orders
on every run, and a loader's successive epochs use successive draws from it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import glassgrad

__all__ = ["numpy_generator", "fresh_seed"]

_SEED_BOUND = 2**63  # seeds are non-negative int64 values, as torch.Generator's


def numpy_generator(generator: Any) -> np.random.Generator:
    """The NumPy stream to draw from for ``generator``.

    ``generator`` may be a ``glassgrad.Generator`` (its stream is shared, so it advances) or a
    ``numpy.random.Generator`` (used as it is). ``None`` means the global generator, as in
    PyTorch: a fresh stream is seeded from it, so ``glassgrad.manual_seed`` decides the draws.
    """
    if generator is None:
        return np.random.default_rng(fresh_seed())
    if isinstance(generator, glassgrad.Generator):
        return generator.rng  # read at each use: manual_seed replaces it
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(
        f"generator must be a glassgrad.Generator or a numpy.random.Generator, "
        f"got {type(generator).__name__}"
    )


def fresh_seed() -> int:
    """A seed drawn from glassgrad's global generator (see ``glassgrad.manual_seed``)."""
    return int(glassgrad.default_generator.rng.integers(0, _SEED_BOUND))
