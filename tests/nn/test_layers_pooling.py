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
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(make, arrays):
    ours, theirs = check_parity(make, arrays)
    assert repr(ours) == repr(theirs)
