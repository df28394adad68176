"""Activation, distance, padding, fold and dropout layers against PyTorch's: same weights,
same inputs, same outputs, gradients and printed form; dropout layers' training behaviour by
its statistics (the random streams differ)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import check_parity

RNG = np.random.default_rng(9)


def randn(*shape):
    return 3.0 * RNG.standard_normal(shape)


PADS = [
    (f"{kind}Pad{n}d", n, args)
    for kind, args in (
        ("Constant", (2.5,)),
        ("Zero", ()),
        ("Reflection", ()),
        ("Replication", ()),
        ("Circular", ()),
    )
    for n in (1, 2, 3)
]

LAYERS = [
    ("hardshrink", lambda nn: nn.Hardshrink(1.0), [randn(3, 4)]),
    ("softshrink", lambda nn: nn.Softshrink(), [randn(3, 4)]),
    ("threshold", lambda nn: nn.Threshold(0.5, -3.0), [randn(3, 4)]),
    ("glu", lambda nn: nn.GLU(1), [randn(3, 4, 2)]),
    ("prelu", lambda nn: nn.PReLU(), [randn(3, 4)]),
    ("prelu_channels", lambda nn: nn.PReLU(3, init=0.1), [randn(2, 3, 4)]),
    ("celu", lambda nn: nn.CELU(0.5), [randn(3, 4)]),
    ("softsign", lambda nn: nn.Softsign(), [randn(3, 4)]),
    ("tanhshrink", lambda nn: nn.Tanhshrink(), [randn(3, 4)]),
    ("softmax2d", lambda nn: nn.Softmax2d(), [randn(2, 3, 2, 2)]),
    ("cosine_similarity", lambda nn: nn.CosineSimilarity(0), [randn(3, 4), randn(3, 4)]),
    (
        "pairwise_distance",
        lambda nn: nn.PairwiseDistance(1.5, keepdim=True),
        [randn(3, 4), randn(3, 4)],
    ),
    ("fold", lambda nn: nn.Fold((4, 5), 2, stride=(2, 1)), [randn(2, 12, 8)]),
    ("unfold", lambda nn: nn.Unfold((2, 3), padding=1, dilation=(1, 2)), [randn(2, 2, 4, 5)]),
    *[
        (
            name.lower(),
            lambda nn, name=name, n=n, args=args: getattr(nn, name)(1, *args),
            [randn(1, 2, *(3,) * n)],
        )
        for name, n, args in PADS
    ],
    ("constantpad2d_tuple", lambda nn: nn.ConstantPad2d((1, 0, 2, 1), -1.0), [randn(1, 2, 3)]),
    ("reflectionpad1d_tuple", lambda nn: nn.ReflectionPad1d((2, 1)), [randn(2, 4)]),
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(make, arrays):
    ours, theirs = check_parity(make, arrays)
    assert repr(ours) == repr(theirs)


DROPOUTS = [
    ("Dropout1d", (4, 50, 3)),
    ("Dropout2d", (4, 50, 3, 3)),
    ("Dropout3d", (4, 50, 2, 3, 3)),
    ("AlphaDropout", (200, 50)),
    ("FeatureAlphaDropout", (200, 50, 3)),
]


@pytest.mark.parametrize("name, shape", DROPOUTS)
def test_dropout_layers_are_the_identity_in_eval_and_print_as_pytorch(name, shape):
    check_parity(lambda nn: getattr(nn, name)(0.3), [randn(*shape)], train=False)
    assert repr(getattr(gg.nn, name)(0.3)) == repr(getattr(torch.nn, name)(0.3))


@pytest.mark.parametrize("name, shape", DROPOUTS[:3])
def test_channel_dropout_drops_whole_channels(name, shape):
    gg.manual_seed(0)
    x = gg.ones(*shape, dtype=gg.float64, requires_grad=True)
    out = getattr(gg.nn, name)(0.4)(x)
    values = out.detach().numpy().reshape(shape[0], shape[1], -1)
    per_channel = values[:, :, 0]
    assert np.all(values == per_channel[:, :, None])  # one draw per (sample, channel)
    assert set(np.unique(per_channel)) <= {0.0, 1 / 0.6}
    assert 0.25 < np.mean(per_channel == 0) < 0.55
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), values.reshape(shape))


@pytest.mark.parametrize("name, shape", DROPOUTS[3:])
def test_alpha_dropout_keeps_mean_and_variance(name, shape):
    gg.manual_seed(0)
    x = gg.randn(*shape, dtype=gg.float64)
    out = getattr(gg.nn, name)(0.3)(x).numpy()
    assert abs(out.mean()) < 0.05
    assert abs(out.std() - 1.0) < 0.05
    dropped = -1.7580993408473766 / np.sqrt((1.7580993408473766**2 * 0.3 + 1) * 0.7)
    expected = dropped + 1.7580993408473766 * 0.3 / np.sqrt((1.7580993408473766**2 * 0.3 + 1) * 0.7)
    assert 0.25 < np.mean(np.isclose(out, expected)) < 0.35


def test_rrelu_training_draws_slopes_between_the_bounds():
    gg.manual_seed(0)
    x = gg.full((1000,), -1.0, requires_grad=True)
    out = gg.nn.RReLU(0.1, 0.3)(x)
    slopes = -out.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.05
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)


def test_dropout_warnings_and_errors_match_pytorch():
    for lib in (gg, torch):
        F = lib.nn.functional
        with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
            F.dropout2d(lib.ones(2, 3, 4))
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
            F.dropout1d(lib.ones(2, 3, 4, 5))
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            F.alpha_dropout(lib.ones(2), 1.5)
        with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D"):
            lib.nn.Softmax2d()(lib.ones(2, 3))
        with pytest.raises(ValueError, match="expected 3D or 4D input"):
            lib.nn.CircularPad2d(1)(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match="Halving dimension must be even"):
            F.glu(lib.ones(3, 5))
        with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel"):
            F.prelu(lib.ones(2, 3), lib.ones(2))


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_samples_and_gradients(hard):
    gg.manual_seed(0)
    logits = gg.tensor(np.log([[0.7, 0.2, 0.1]] * 4000), requires_grad=True)
    y = gg.nn.functional.gumbel_softmax(logits, tau=0.5, hard=hard)
    values = y.detach().numpy()
    np.testing.assert_allclose(values.sum(-1), 1.0, rtol=1e-12)
    frequencies = np.bincount(values.argmax(-1), minlength=3) / len(values)
    np.testing.assert_allclose(frequencies, [0.7, 0.2, 0.1], atol=0.03)
    if hard:
        assert set(np.unique(values)) == {0.0, 1.0}
    (y * gg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad is not None and np.isfinite(logits.grad.numpy()).all()
    assert np.abs(logits.grad.numpy()).sum() > 0  # straight-through: the soft sample's gradient
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        gg.nn.functional.gumbel_softmax(logits, eps=1e-3)
