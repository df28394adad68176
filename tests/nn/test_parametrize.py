"""nn.utils.parametrize, parametrizations.weight_norm/spectral_norm and the hook-based
weight_norm/spectral_norm against PyTorch: same state-dict layout, printed form, outputs,
gradients of the originals and power-iteration buffers, and the same behaviour of
right_inverse, caching, removal and errors."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import assert_close, check_parity

RNG = np.random.default_rng(17)


def randn(*shape):
    return RNG.standard_normal(shape)


def _quiet(make):
    def build(nn):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return make(nn)

    return build


LAYERS = [
    (
        "weight_norm_linear",
        lambda nn: nn.utils.parametrizations.weight_norm(nn.Linear(3, 4)),
        [randn(5, 3)],
    ),
    (
        "weight_norm_conv_dim_none",
        lambda nn: nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 2), dim=None),
        [randn(1, 2, 4, 4)],
    ),
    (
        "weight_norm_conv_dim_1",
        lambda nn: nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 2), dim=1),
        [randn(2, 2, 5)],
    ),
    (
        "spectral_norm_linear",
        lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(3, 4), n_power_iterations=2),
        [randn(5, 3)],
    ),
    (
        "spectral_norm_conv_transpose",
        lambda nn: nn.utils.parametrizations.spectral_norm(nn.ConvTranspose1d(3, 2, 2)),
        [randn(2, 3, 4)],
    ),
    (
        "old_weight_norm",
        _quiet(lambda nn: nn.utils.weight_norm(nn.Linear(3, 4), dim=1)),
        [randn(5, 3)],
    ),
    ("old_spectral_norm", lambda nn: nn.utils.spectral_norm(nn.Linear(3, 4)), [randn(5, 3)]),
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS])
@pytest.mark.parametrize("train", [True, False])
def test_layer_matches_torch(make, arrays, train):
    ours, theirs = check_parity(make, arrays, train=train, calls=2)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


class Symmetric:
    """The same parametrization for both libraries: X -> triu(X) + triu(X, 1)^T."""

    @staticmethod
    def make(lib):
        class Sym(lib.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

            def right_inverse(self, A):
                return A.triu()

        return Sym()


class Scale:
    @staticmethod
    def make(lib):
        class Twice(lib.nn.Module):
            def forward(self, X):
                return X * 2

            def right_inverse(self, A):
                return A / 2

        return Twice()


def test_custom_parametrizations_chain_assign_cache_and_remove():
    weight = randn(3, 3)
    results = []
    for lib in (gg, torch):
        P = lib.nn.utils.parametrize
        layer = lib.nn.Linear(3, 3, bias=False).double()
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(weight))
        P.register_parametrization(layer, "weight", Symmetric.make(lib))
        P.register_parametrization(layer, "weight", Scale.make(lib))
        first = layer.weight.detach().numpy().copy()
        layer.weight = lib.tensor(weight + weight.T)  # stored through both right_inverses
        second = layer.weight.detach().numpy().copy()
        with P.cached():
            same = layer.weight is layer.weight
        names = [n for n, _ in layer.named_parameters()]
        clone = copy.deepcopy(layer)
        cloned = clone.weight.detach().numpy().copy()
        P.remove_parametrizations(layer, "weight", leave_parametrized=True)
        results.append(
            (
                first,
                second,
                same,
                names,
                cloned,
                layer.weight.detach().numpy(),
                type(layer).__name__,
            )
        )
    (ours, theirs) = results
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12)
        else:
            assert a == b


def test_leave_parametrized_false_and_sequence_originals():
    for lib in (gg, torch):
        P = lib.nn.utils.parametrize
        layer = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 3))
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            P.remove_parametrizations(layer, "weight", leave_parametrized=False)
        P.remove_parametrizations(layer, "weight")
        assert not P.is_parametrized(layer)
        assert type(layer) is lib.nn.Linear
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            P.remove_parametrizations(layer, "weight")
        with pytest.raises(
            ValueError, match="does not have a parameter, a buffer, or a parametrized"
        ):
            P.register_parametrization(layer, "nothing", Scale.make(lib))


def test_weight_norm_loads_old_checkpoints_and_deprecation_warns():
    torch_old = torch.nn.Linear(3, 2)
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        torch.nn.utils.weight_norm(torch_old)
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        gg.nn.utils.weight_norm(gg.nn.Linear(3, 2))
    state = {k: gg.tensor(v.detach().numpy()) for k, v in torch_old.state_dict().items()}
    ours = gg.nn.utils.parametrizations.weight_norm(gg.nn.Linear(3, 2))
    ours.load_state_dict(state)
    assert_close(ours.weight, torch_old.weight, 1e-12, 0, "weight from weight_g/weight_v")


def test_hook_based_norms_remove_and_refuse_twice():
    for lib in (gg, torch):
        U = lib.nn.utils
        layer = U.spectral_norm(lib.nn.Linear(3, 2))
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            U.spectral_norm(layer)
        U.remove_spectral_norm(layer)
        assert sorted(n for n, _ in layer.named_parameters()) == ["bias", "weight"]
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
            U.remove_spectral_norm(layer)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            U.parametrizations.spectral_norm(lib.nn.Linear(3, 2), n_power_iterations=0)
