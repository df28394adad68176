"""Conv3d and ConvTranspose3d against PyTorch's: same weights, same inputs, same outputs and
gradients of input, weight and bias, same printed form and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import check_parity

RNG = np.random.default_rng(29)


def randn(*shape):
    return RNG.standard_normal(shape)


LAYERS = [
    ("conv3d", lambda nn: nn.Conv3d(2, 3, 3), [randn(2, 2, 4, 5, 4)], {}),
    (
        "conv3d_options",
        lambda nn: nn.Conv3d(
            4, 6, (2, 3, 1), stride=(1, 2, 1), padding=(1, 1, 0), dilation=(2, 1, 1), groups=2
        ),
        [randn(1, 4, 5, 6, 3)],
        {},
    ),
    (
        "conv3d_same_reflect",
        lambda nn: nn.Conv3d(2, 2, 3, padding=1, padding_mode="reflect"),
        [randn(2, 4, 4, 4)],
        {},
    ),
    (
        "conv3d_same",
        lambda nn: nn.Conv3d(2, 2, (2, 3, 2), padding="same", bias=False),
        [randn(1, 2, 3, 4, 3)],
        {},
    ),
    (
        "conv_transpose3d",
        lambda nn: nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1),
        [randn(1, 3, 2, 3, 2)],
        {},
    ),
    (
        "conv_transpose3d_output_size",
        lambda nn: nn.ConvTranspose3d(
            4, 2, (2, 3, 3), stride=(2, 2, 1), groups=2, dilation=(1, 1, 2)
        ),
        [randn(2, 4, 2, 2, 3)],
        {"output_size": [5, 5, 7]},
    ),
]


@pytest.mark.parametrize(
    "make, arrays, kwargs", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS]
)
def test_layer_matches_torch(make, arrays, kwargs):
    ours, theirs = check_parity(make, arrays, kwargs=kwargs)
    assert repr(ours) == repr(theirs)


def test_conv3d_errors_match_pytorch():
    for lib in (gg, torch):
        F = lib.nn.functional
        with pytest.raises(
            RuntimeError, match="Expected 4D \\(unbatched\\) or 5D \\(batched\\) input"
        ):
            F.conv3d(lib.ones(2, 3, 4), lib.ones(1, 2, 1, 1, 1))
        with pytest.raises(
            RuntimeError, match="Kernel size can't be greater than actual input size"
        ):
            F.conv3d(lib.ones(1, 1, 2, 2, 2), lib.ones(1, 1, 3, 3, 3))
        with pytest.raises(
            RuntimeError, match="output padding must be smaller than either stride or dilation"
        ):
            F.conv_transpose3d(lib.ones(1, 1, 2, 2, 2), lib.ones(1, 1, 2, 2, 2), output_padding=1)
