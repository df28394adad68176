"""Instance, RMS and local response normalization, BatchNorm3d, ConvTranspose1d, pixel and
channel shuffles, upsampling layers against PyTorch's: same weights, same input, same outputs,
gradients, buffers and printed form."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import check_parity

RNG = np.random.default_rng(5)


def randn(*shape):
    return RNG.standard_normal(shape)


# (id, builder, input arrays)
LAYERS = [
    ("instancenorm1d", lambda nn: nn.InstanceNorm1d(3), [randn(2, 3, 6)]),
    ("instancenorm1d_unbatched", lambda nn: nn.InstanceNorm1d(3, affine=True), [randn(3, 6)]),
    (
        "instancenorm2d_stats",
        lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3),
        [randn(2, 3, 4, 5)],
    ),
    (
        "instancenorm3d",
        lambda nn: nn.InstanceNorm3d(2, affine=True, bias=False),
        [randn(2, 2, 3, 2, 4)],
    ),
    ("batchnorm3d", lambda nn: nn.BatchNorm3d(3), [randn(2, 3, 2, 3, 4)]),
    ("rmsnorm", lambda nn: nn.RMSNorm(4), [randn(2, 3, 4)]),
    (
        "rmsnorm_shape",
        lambda nn: nn.RMSNorm([3, 4], eps=1e-3, elementwise_affine=False),
        [randn(2, 3, 4)],
    ),
    ("local_response_norm", lambda nn: nn.LocalResponseNorm(3, alpha=0.1), [randn(2, 5, 4, 3)]),
    (
        "conv_transpose1d",
        lambda nn: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
        [randn(2, 4, 5)],
    ),
    ("pixel_shuffle", lambda nn: nn.PixelShuffle(2), [randn(2, 8, 3, 3)]),
    ("pixel_unshuffle", lambda nn: nn.PixelUnshuffle(3), [randn(2, 1, 6, 3)]),
    ("channel_shuffle", lambda nn: nn.ChannelShuffle(2), [randn(2, 4, 3, 3)]),
    ("upsample", lambda nn: nn.Upsample(scale_factor=2), [randn(2, 3, 4, 4)]),
    ("upsample_size", lambda nn: nn.Upsample(size=(5, 7), mode="bicubic"), [randn(1, 2, 3, 3)]),
    (
        "upsample_trilinear",
        lambda nn: nn.Upsample(scale_factor=(1.5, 2, 1), mode="trilinear", align_corners=True),
        [randn(1, 2, 2, 3, 4)],
    ),
    ("upsampling_nearest2d", lambda nn: nn.UpsamplingNearest2d(size=5), [randn(1, 2, 3, 3)]),
    (
        "upsampling_bilinear2d",
        lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
        [randn(1, 2, 3, 3)],
    ),
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(make, arrays):
    ours, theirs = check_parity(make, arrays, calls=2)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize(
    "make, arrays", [c[1:] for c in LAYERS[:5]], ids=[c[0] for c in LAYERS[:5]]
)
def test_norm_layer_in_eval_mode_matches_torch(make, arrays):
    check_parity(make, arrays, train=False)


def test_instance_norm_checks_like_pytorch():
    for lib in (gg, torch):
        with pytest.raises(ValueError, match="expected 3D or 4D input"):
            lib.nn.InstanceNorm2d(3)(lib.ones(3, 4))
        with pytest.raises(ValueError, match="match num_features"):
            lib.nn.InstanceNorm1d(3, affine=True)(lib.ones(2, 4, 5))
        with pytest.warns(UserWarning, match="does not match num_features"):
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 4, 5))
        with pytest.raises(ValueError, match="Expected more than 1 spatial element"):
            lib.nn.functional.instance_norm(lib.ones(2, 3, 1))


def test_instance_norm_old_checkpoint_running_stats_are_reported():
    errors = []
    for lib in (gg, torch):
        layer = lib.nn.InstanceNorm1d(2)
        state = OrderedDict(running_mean=lib.zeros(2), running_var=lib.ones(2))
        state._metadata = {"": {}}  # a checkpoint from before versions were recorded
        with pytest.raises(RuntimeError) as info:
            layer.load_state_dict(state)
        errors.append(str(info.value).split("\n\t", 1)[1].split(". ")[0])
    assert errors[0] == errors[1]
