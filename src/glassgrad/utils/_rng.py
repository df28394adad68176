"""Where ``utils.data`` gets its random numbers: the bridge to glassgrad's generators.

``DataLoader(shuffle=True)``, ``RandomSampler`` and ``random_split`` take a ``generator``, as in
PyTorch. The draws come from NumPy's PCG64 bit stream, so the orders differ from PyTorch's
for the same seed, but a seeded generator gives the same orders on every run, and a loader's
successive epochs use successive draws from it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
    if isinstance(generator, np.random.Generator):
        return generator
    stream = getattr(generator, "_numpy", None)
    if isinstance(stream, np.random.Generator):
        return stream
    raise TypeError(
        f"generator must be a glassgrad.Generator or a numpy.random.Generator, "
        f"got {type(generator).__name__}"
    )


def fresh_seed() -> int:
    """A seed drawn from glassgrad's global generator (see ``glassgrad.manual_seed``)."""
    import glassgrad

    default = getattr(glassgrad, "default_generator", None)
    stream = getattr(default, "_numpy", None)
    if isinstance(stream, np.random.Generator):
        return int(stream.integers(0, _SEED_BOUND))
    # The core has no global generator yet: fall back to fresh OS entropy.
    return int(np.random.default_rng().integers(0, _SEED_BOUND))
