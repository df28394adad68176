"""Max pooling's two forward paths agree bit for bit (issue 18): one gather of every window for
small inputs, one strided slice per kernel offset for large ones; and the one-scatter backward
sums an element's gradients in the kernel-offset order of a loop over the offsets."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import nn_pool
from glassgrad.ops._pool_geometry import (
    _kernel_positions,
    _kernel_slices,
    _padded_planes,
    _padded_size,
    _pool_params,
    _unpadded,
)

# (input shape, kernel, stride, padding, dilation, ceil_mode)
GEOMETRIES = [
    ((2, 3, 6, 6), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((2, 3, 5, 5), (2, 2), (1, 1), (0, 0), (1, 1), False),
    ((1, 2, 7, 6), (3, 3), (2, 2), (1, 1), (1, 1), True),
    ((1, 1, 1, 1), (3, 3), (2, 2), (1, 1), (1, 1), False),
    ((1, 2, 5, 4, 5), (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), False),
    ((1, 1, 5, 5, 4), (3, 2, 2), (1, 1, 1), (0, 0, 0), (2, 1, 1), True),
]


def _input(shape: tuple, dtype: type, special: bool) -> np.ndarray:
    rng = np.random.default_rng(len(shape) * 7 + shape[-1])
    x = rng.standard_normal(shape).astype(dtype)
    if special:  # NaNs, -inf windows and ties
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.15] = np.nan
        flat[rng.random(flat.size) < 0.15] = -np.inf
        flat[rng.random(flat.size) < 0.2] = 0.5
    return x


def _params(shape: tuple, kernel, stride, padding, dilation, ceil_mode) -> tuple:
    x = gg.zeros(shape)
    return _pool_params("max_pool", x, len(kernel), kernel, stride, padding, dilation, ceil_mode, 1)


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize(
    ("dtype", "special"),
    [(np.float32, False), (np.float32, True), (np.float64, True), (np.int32, False)],
)
def test_gathered_and_sliced_max_pool_agree(geometry: tuple, dtype: type, special: bool) -> None:
    shape = geometry[0]
    x = _input(shape, dtype, special)
    kernel, stride, padding, dilation, out = _params(*geometry)
    planes = _padded_planes(x, padding, out, kernel, stride, dilation, nn_pool._lowest(x.dtype))
    gathered = nn_pool._max_pool_gathered(planes, kernel, stride, dilation, out)
    sliced = nn_pool._max_pool_sliced(planes, kernel, stride, dilation, out)
    for a, b in zip(gathered, sliced, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def _looped_backward(grad, choice, shape, kernel, stride, padding, dilation) -> np.ndarray:
    """The reference: one masked add per kernel offset, in offset order."""
    nd = len(kernel)
    out = grad.shape[-nd:]
    full = _padded_size(shape[-nd:], padding, out, kernel, stride, dilation)
    buf = np.zeros((*shape[:-nd], *full), grad.dtype)
    for q, offset in enumerate(_kernel_positions(kernel)):
        target = buf[_kernel_slices(offset, out, stride, dilation)]
        np.add(target, grad, out=target, where=choice == q)
    return buf[_unpadded(padding, shape[-nd:])]


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_scatter_backward_sums_in_kernel_order(geometry: tuple) -> None:
    x = _input(geometry[0], np.float32, False)
    kernel, stride, padding, dilation, out = _params(*geometry)
    _, choice = nn_pool._max_pool(x, kernel, stride, padding, dilation, out)
    grad = np.random.default_rng(1).standard_normal(choice.shape).astype(np.float32) * 1e3
    got = nn_pool._max_pool_backward(grad, choice, x.shape, kernel, stride, padding, dilation)
    expected = _looped_backward(grad, choice, x.shape, kernel, stride, padding, dilation)
    assert got.shape == expected.shape
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes()


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_both_paths_match_pytorch(geometry: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    shape, kernel, stride, padding, dilation, ceil_mode = geometry
    x = _input(shape, np.float64, True)
    op = "max_pool2d" if len(kernel) == 2 else "max_pool3d"
    expected = getattr(torch.nn.functional, op)(
        torch.tensor(x), kernel, stride, padding, dilation, ceil_mode, return_indices=True
    )
    for limit in (0, 1 << 30):  # always sliced, always gathered
        monkeypatch.setattr(nn_pool, "_GATHER_ELEMENTS", limit)
        got = getattr(gg.nn.functional, op)(
            gg.tensor(x), kernel, stride, padding, dilation, ceil_mode, return_indices=True
        )
        np.testing.assert_array_equal(got[0].numpy(), expected[0].numpy())
        np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())
