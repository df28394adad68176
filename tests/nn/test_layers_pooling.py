"""Pooling and upsampling layers against PyTorch's: same input, same output, same gradients,
the same printed form."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import check_parity

RNG = np.random.default_rng(3)


def randn(*shape):
    return RNG.standard_normal(shape)


# (id, builder, input arrays)
LAYERS = [
    ("maxpool1d", lambda nn: nn.MaxPool1d(3, stride=2, padding=1), [randn(2, 3, 9)]),
    ("maxpool1d_indices", lambda nn: nn.MaxPool1d(2, return_indices=True), [randn(3, 8)]),
    ("maxpool3d", lambda nn: nn.MaxPool3d(2), [randn(2, 2, 4, 4, 6)]),
    (
        "maxpool3d_options",
        lambda nn: nn.MaxPool3d((2, 3, 2), stride=1, padding=1, dilation=(1, 1, 2), ceil_mode=True),
        [randn(1, 2, 4, 5, 6)],
    ),
    ("avgpool1d", lambda nn: nn.AvgPool1d(3, stride=2, padding=1), [randn(2, 3, 9)]),
    ("avgpool1d_no_pad", lambda nn: nn.AvgPool1d(3, 2, 1, True, False), [randn(3, 8)]),
    ("avgpool3d", lambda nn: nn.AvgPool3d(2, divisor_override=3), [randn(1, 2, 4, 4, 4)]),
    ("adaptive_avgpool1d", lambda nn: nn.AdaptiveAvgPool1d(3), [randn(2, 3, 7)]),
    ("adaptive_avgpool3d", lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), [randn(1, 2, 5, 4, 7)]),
    ("adaptive_maxpool1d", lambda nn: nn.AdaptiveMaxPool1d(4, True), [randn(2, 3, 7)]),
    ("adaptive_maxpool2d", lambda nn: nn.AdaptiveMaxPool2d((3, 2)), [randn(2, 3, 7, 5)]),
    ("adaptive_maxpool3d", lambda nn: nn.AdaptiveMaxPool3d(2), [randn(2, 5, 4, 7)]),
    ("lppool1d", lambda nn: nn.LPPool1d(2, 3, stride=2), [randn(2, 3, 9)]),
    (
        "lppool2d",
        lambda nn: nn.LPPool2d(1.5, (2, 3), ceil_mode=True),
        [0.5 + abs(randn(2, 3, 5, 7))],
    ),
    ("lppool3d_inf", lambda nn: nn.LPPool3d(float("inf"), 2), [randn(1, 2, 4, 4, 4)]),
]


class _PoolUnpool:
    """Max pooling with indices, then unpooling (the usual pair in an autoencoder)."""

    @staticmethod
    def make(nn, nd, output_size=None):
        pool = getattr(nn, f"MaxPool{nd}d")(2, return_indices=True)
        unpool = getattr(nn, f"MaxUnpool{nd}d")(2)

        class Pair(nn.Module):
            def __init__(self):
                super().__init__()
                self.pool, self.unpool = pool, unpool

            def forward(self, x):
                return self.unpool(*self.pool(x), output_size=output_size)

        return Pair()


LAYERS += [
    ("unpool1d", lambda nn: _PoolUnpool.make(nn, 1), [randn(2, 3, 8)]),
    ("unpool2d", lambda nn: _PoolUnpool.make(nn, 2, (5, 7)), [randn(2, 3, 5, 7)]),
    ("unpool3d", lambda nn: _PoolUnpool.make(nn, 3), [randn(1, 2, 4, 4, 4)]),
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(make, arrays):
    ours, theirs = check_parity(make, arrays)
    assert repr(ours) == repr(theirs)
