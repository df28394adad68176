"""1-d, 3-d and adaptive max pooling: what the registry can't say (the graph PyTorch builds
for 1-d pools, NaN and ties in adaptive windows, the errors). PyTorch is the oracle."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from .test_nn_pool import both, close, raises_like_pytorch


def _names(fn: Any) -> list[str]:
    names = []
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.max_pool1d(x, 2),
        lambda F, x: F.avg_pool1d(x, 2),
        lambda F, x: F.adaptive_avg_pool1d(x, 3),
        lambda F, x: F.adaptive_avg_pool1d(x, 1),
        lambda F, x: F.adaptive_max_pool1d(x, 3),
    ],
)
def test_1d_pools_build_pytorchs_graph(call: Any) -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 8))
    (ours, _), (theirs, _) = both(call, x)
    close(ours, theirs)
    assert _names(ours.grad_fn) == _names(theirs.grad_fn)


def test_adaptive_max_nan_and_ties_pick_pytorchs_element() -> None:
    nan = float("nan")
    x = np.array(
        [[[[1.0, 3.0, 3.0, nan, 2.0], [3.0, nan, 0.0, 1.0, 3.0], [2.0, 2.0, 2.0, 2.0, 2.0]]]]
    )
    (ours, grad_g), (theirs, grad_t) = both(
        lambda F, t: F.adaptive_max_pool2d(t, (2, 3), return_indices=True), x
    )
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    close(grad_g, grad_t)


def test_max_pool3d_indices_into_each_volume() -> None:
    x = np.random.default_rng(1).standard_normal((2, 2, 5, 4, 6))
    (ours, grad_g), (theirs, grad_t) = both(
        lambda F, t: F.max_pool3d(t, 3, stride=2, padding=1, return_indices=True), x
    )
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    close(grad_g, grad_t)


def test_max_pool3d_integers() -> None:
    x = np.random.default_rng(2).integers(-50, 50, (1, 2, 4, 4, 4))
    (ours, _), (theirs, _) = both(lambda F, t: F.max_pool3d(t, 2), x)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "call, array, words",
    [
        (lambda F, x: F.max_pool3d(x, 2), np.ones((2, 4, 4)), ("non-empty 4D or 5D",)),
        (lambda F, x: F.avg_pool3d(x, 2), np.ones((2, 4, 4)), ("non-empty 4D or 5D",)),
        (
            lambda F, x: F.max_pool3d(x, 2, padding=2),
            np.ones((1, 2, 4, 4, 4)),
            ("pad should be at most half of effective kernel size",),
        ),
        (
            lambda F, x: F.max_pool3d(x, 5),
            np.ones((1, 2, 4, 4, 4)),
            ("Calculated output size: (2x0x0x0). Output size is too small",),
        ),
        (
            lambda F, x: F.avg_pool3d(x, 2, divisor_override=0),
            np.ones((1, 2, 4, 4, 4)),
            ("divisor must be not zero",),
        ),
        (
            lambda F, x: F.avg_pool1d(x, (2, 2)),
            np.ones((1, 3, 4)),
            ("avg_pool1d() argument 'kernel_size' should contain one int (got 2)",),
        ),
        (
            lambda F, x: F.adaptive_avg_pool1d(x, 2),
            np.ones(3),
            ("Expected 2 to 3 dimensions, but got 1-dimensional tensor",),
        ),
        (
            lambda F, x: F.adaptive_max_pool2d(x, 2),
            np.ones((3, 4)),
            ("adaptive_max_pool2d(): Expected 3D or 4D tensor",),
        ),
        (
            lambda F, x: F.adaptive_max_pool2d(x, 2),
            np.ones((1, 3, 0, 4)),
            ("non-zero size for non-batch dimensions", "dimension 2 being empty"),
        ),
        (
            lambda F, x: F.adaptive_avg_pool3d(x, 2),
            np.ones((2, 3, 4)),
            ("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [2, 3, 4]",),
        ),
        (
            lambda F, x: F.adaptive_max_pool2d(x, 2),
            np.ones((1, 2, 4, 4), dtype=np.int64),
            ("\"adaptive_max_pool2d\" not implemented for 'Long'",),
        ),
    ],
)
def test_pool_errors(call: Any, array: np.ndarray, words: tuple) -> None:
    raises_like_pytorch(call, array, words)


def _unpool(F: Any, x: Any, indices: Any = None, **kwargs: Any) -> Any:
    values, found = F.max_pool2d(x, 2, return_indices=True)
    return F.max_unpool2d(values, found if indices is None else indices(found), 2, **kwargs)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda F, x: _unpool(F, x, output_size=(9, 9)), ('invalid output_size "(9, 9)"',)),
        (lambda F, x: _unpool(F, x, indices=lambda i: i.float()), ("should be type int64",)),
        (lambda F, x: _unpool(F, x, indices=lambda i: i * 100), ("Found an invalid max index",)),
        (lambda F, x: _unpool(F, x, output_size=(1, 2, 3)), ("output_size should be a sequence",)),
    ],
)
def test_max_unpool_errors(call: Any, words: tuple) -> None:
    raises_like_pytorch(call, np.ones((1, 2, 4, 4)), words)
