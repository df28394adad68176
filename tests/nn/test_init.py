"""nn.init and each layer's default initialisation. Random draws differ from PyTorch's (other
generator), so distributions are compared: deterministic fills exactly, random ones by a
two-sample Kolmogorov-Smirnov distance against PyTorch's draws for the same call."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The largest gap between the empirical CDFs of two samples."""
    a, b = np.sort(a.ravel()), np.sort(b.ravel())
    grid = np.concatenate([a, b])
    return float(
        np.abs(
            np.searchsorted(a, grid, "right") / a.size - np.searchsorted(b, grid, "right") / b.size
        ).max()
    )


def assert_same_distribution(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    assert ours.shape == theirs.shape, what
    if np.all(theirs == theirs.ravel()[0]):  # a constant fill
        np.testing.assert_array_equal(ours, theirs, err_msg=what)
        return
    # Two-sample KS at a 1e-4 significance level: samples from one distribution pass.
    limit = 2.2 * math.sqrt(2 / ours.size)
    distance = ks_distance(ours, theirs)
    assert distance < limit, f"{what}: KS distance {distance:.3f} >= {limit:.3f}"


# --- calculate_gain and fans -----------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("linear",),
        ("conv2d",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("leaky_relu", 3),
        ("selu",),
    ],
)
def test_calculate_gain_matches_torch(args):
    assert gg.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_calculate_gain_errors_match_torch():
    for args in [("softmax",), ("leaky_relu", True), ("leaky_relu", "x")]:
        with pytest.raises(ValueError) as theirs:
            torch.nn.init.calculate_gain(*args)
        with pytest.raises(ValueError) as ours:
            gg.nn.init.calculate_gain(*args)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (6, 4, 3, 2), (2, 3, 1, 1, 2)])
def test_fan_in_and_fan_out_match_torch(shape):
    assert gg.nn.init._calculate_fan_in_and_fan_out(
        gg.empty(*shape)
    ) == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_fan_needs_two_dimensions():
    for fn in (gg.nn.init.xavier_uniform_, gg.nn.init.kaiming_normal_):
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            fn(gg.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        gg.nn.init.kaiming_uniform_(gg.empty(3, 3), mode="fan_avg")


# --- the init functions ----------------------------------------------------------------
RANDOM_INITS = [
    ("uniform", lambda init, t: init.uniform_(t, -0.3, 0.7)),
    ("normal", lambda init, t: init.normal_(t, 0.5, 2.0)),
    ("trunc_normal", lambda init, t: init.trunc_normal_(t, 0.1, 1.0, -1.0, 0.5)),
    ("trunc_normal_tail", lambda init, t: init.trunc_normal_(t, 0.0, 1.0, 3.0, 4.0)),
    ("xavier_uniform", lambda init, t: init.xavier_uniform_(t, gain=2.0)),
    ("xavier_normal", lambda init, t: init.xavier_normal_(t)),
    ("kaiming_uniform", lambda init, t: init.kaiming_uniform_(t, a=math.sqrt(5))),
    (
        "kaiming_uniform_fan_out",
        lambda init, t: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"),
    ),
    ("kaiming_normal", lambda init, t: init.kaiming_normal_(t, nonlinearity="tanh")),
    ("kaiming_normal_fan_out", lambda init, t: init.kaiming_normal_(t, 0.1, "fan_out")),
]


@pytest.mark.parametrize("fill", [c[1] for c in RANDOM_INITS], ids=[c[0] for c in RANDOM_INITS])
def test_random_init_has_torchs_distribution(fill):
    torch.manual_seed(0)
    gg.manual_seed(0)
    theirs = fill(torch.nn.init, torch.empty(80, 30, 3, dtype=torch.float64)).numpy()
    ours = fill(gg.nn.init, gg.empty(80, 30, 3, dtype=gg.float64)).numpy()
    assert_same_distribution(ours, theirs, "init")


def test_trunc_normal_stays_in_bounds():
    t = gg.nn.init.trunc_normal_(gg.empty(1000), std=0.02, a=-0.04, b=0.04)
    assert t.numpy().min() >= -0.04 and t.numpy().max() <= 0.04
    far = gg.nn.init.trunc_normal_(gg.empty(50), mean=0.0, std=1.0, a=6.0, b=6.5)
    assert far.numpy().min() >= 6.0 and far.numpy().max() <= 6.5
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        gg.nn.init.trunc_normal_(gg.empty(5), mean=10.0, a=-1.0, b=1.0)


@pytest.mark.parametrize(
    "fill",
    [
        lambda init, t: init.constant_(t, 0.25),
        lambda init, t: init.ones_(t),
        lambda init, t: init.zeros_(t),
        lambda init, t: init.eye_(t[0]),
        lambda init, t: init.dirac_(t),
        lambda init, t: init.dirac_(t, groups=2),
    ],
    ids=["constant", "ones", "zeros", "eye", "dirac", "dirac_groups"],
)
def test_deterministic_init_equals_torch(fill):
    theirs = torch.full((4, 3, 5), 7.0)
    ours = gg.full((4, 3, 5), 7.0)
    fill(torch.nn.init, theirs)
    fill(gg.nn.init, ours)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3)])
def test_orthogonal_rows_or_columns_are_orthonormal(shape):
    w = gg.nn.init.orthogonal_(gg.empty(*shape, dtype=gg.float64), gain=1.5).numpy()
    flat = w.reshape(shape[0], -1)
    gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(gram, 2.25 * np.eye(gram.shape[0]), atol=1e-12)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        gg.nn.init.orthogonal_(gg.empty(3))


def test_init_records_no_graph_and_bumps_the_version():
    p = gg.nn.Parameter(gg.zeros(3, 4))
    version = p._version
    out = gg.nn.init.normal_(p)
    assert out is p and p.grad_fn is None and p.requires_grad and p.is_leaf
    assert p._version > version
    assert p.abs().sum().item() > 0


def test_init_uses_glassgrads_generator():
    gg.manual_seed(7)
    a = gg.nn.init.uniform_(gg.empty(5)).tolist()
    gg.manual_seed(7)
    b = gg.nn.init.uniform_(gg.empty(5)).tolist()
    generator = gg.Generator().manual_seed(3)
    c = gg.nn.init.normal_(gg.empty(5), generator=generator).tolist()
    d = gg.nn.init.normal_(gg.empty(5), generator=gg.Generator().manual_seed(3)).tolist()
    assert a == b and c == d
    gg.manual_seed(1)
    first = gg.nn.Linear(4, 4).weight.tolist()
    gg.manual_seed(1)
    assert gg.nn.Linear(4, 4).weight.tolist() == first


def test_zero_element_tensor_init_is_a_no_op_with_a_warning():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        gg.nn.init.kaiming_uniform_(gg.empty(0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gg.nn.init.orthogonal_(gg.empty(0, 3))


# --- default initialisation of each layer ------------------------------------------------
DEFAULTS = [
    ("linear", lambda nn: nn.Linear(64, 48)),
    ("bilinear", lambda nn: nn.Bilinear(8, 6, 40)),
    ("conv1d", lambda nn: nn.Conv1d(8, 16, 5)),
    ("conv2d", lambda nn: nn.Conv2d(8, 16, 3, groups=2)),
    ("conv_transpose2d", lambda nn: nn.ConvTranspose2d(8, 16, 3)),
    ("batchnorm", lambda nn: nn.BatchNorm2d(16)),
    ("layernorm", lambda nn: nn.LayerNorm(16)),
    ("groupnorm", lambda nn: nn.GroupNorm(4, 16)),
    ("embedding", lambda nn: nn.Embedding(100, 20, padding_idx=3)),
    ("rnn", lambda nn: nn.RNN(16, 32)),
    ("lstm", lambda nn: nn.LSTM(16, 32, proj_size=8)),
    ("gru", lambda nn: nn.GRU(16, 32, bidirectional=True)),
    ("lstm_cell", lambda nn: nn.LSTMCell(16, 32)),
    ("mha", lambda nn: nn.MultiheadAttention(32, 4, add_bias_kv=True)),
    ("mha_kv", lambda nn: nn.MultiheadAttention(32, 4, kdim=16, vdim=8)),
]


@pytest.mark.parametrize("make", [c[1] for c in DEFAULTS], ids=[c[0] for c in DEFAULTS])
def test_default_initialisation_follows_torch(make):
    torch.manual_seed(0)
    gg.manual_seed(0)
    theirs = dict(make(torch.nn).named_parameters())
    for name, param in make(gg.nn).named_parameters():
        assert param.dtype == gg.float32, name
        assert_same_distribution(param.detach().numpy(), theirs[name].detach().numpy(), name)


def test_embedding_padding_row_is_zero_by_default():
    emb = gg.nn.Embedding(10, 4, padding_idx=3)
    assert emb.weight[3].tolist() == [0.0] * 4
    assert emb.weight.abs().sum().item() > 0


def test_reset_parameters_redraws():
    layer = gg.nn.Linear(10, 10)
    before = layer.weight.detach().numpy().copy()
    layer.reset_parameters()
    assert not np.array_equal(before, layer.weight.detach().numpy())
