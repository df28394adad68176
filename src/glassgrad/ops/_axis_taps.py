"""Separable linear maps over the last axes, given as taps: along each axis, output position
``i`` reads input positions ``index[i, t]`` with weights ``weights[i, t]`` (weights None: 1;
an index of -1: no tap). Resampling (``nn_upsample.py``) and adaptive average pooling are
such maps.

Applied and transposed by gathering and scattering the taps themselves, never through a dense
(out, size) matrix: a NaN or inf then reaches exactly the positions PyTorch's loop kernels
touch, where a matrix product would multiply it by the matrix's zeros (0 * NaN is NaN) and
spread it over every position.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import moveaxis

Taps = tuple[np.ndarray, Any]  # (index (out, taps), weights (out, taps) or None)


def apply_taps(x: np.ndarray, taps: list) -> np.ndarray:
    """``x`` mapped along each of its last ``len(taps)`` axes by that axis's taps."""
    nd = len(taps)
    for k, (index, weights) in enumerate(taps):
        axis = x.ndim - nd + k
        moved = moveaxis(x, axis, -1)
        total = np.zeros((*moved.shape[:-1], len(index)), x.dtype) if not index.size else None
        for t in range(index.shape[1]):
            column = index[:, t]
            term = moved[..., column]
            if weights is not None:
                term = term * weights[:, t]
            if (column < 0).any():
                term = np.where(column >= 0, term, term.dtype.type(0))
            total = term if total is None else total + term
        x = moveaxis(total, -1, axis)
    return np.ascontiguousarray(x)  # PyTorch's kernels write a contiguous result


def apply_taps_adjoint(grad: np.ndarray, taps: list, sizes: tuple) -> np.ndarray:
    """The transpose of ``apply_taps`` (inputs of sizes ``sizes``) applied to ``grad``: every
    output's gradient added, times its weight, at each position it read."""
    nd = len(taps)
    for k in range(nd - 1, -1, -1):
        index, weights = taps[k]
        axis = grad.ndim - nd + k
        moved = moveaxis(grad, axis, 0)  # add.at indexes the first axis
        total = np.zeros((sizes[k], *moved.shape[1:]), grad.dtype)
        lead = (slice(None),) + (None,) * (moved.ndim - 1)
        for t in range(index.shape[1]):
            rows = np.flatnonzero(index[:, t] >= 0)
            term = moved[rows]
            if weights is not None:
                term = term * weights[rows, t][lead]
            np.add.at(total, index[rows, t], term)
        grad = moveaxis(total, 0, axis)
    return np.ascontiguousarray(grad)
