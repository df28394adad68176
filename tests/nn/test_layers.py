"""Every layer against PyTorch's: same weights (copied through the state dict), same float64
input, then the same output, the same parameter and input gradients, the same buffers."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import check_parity

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


def labels(high, *shape):
    return RNG.integers(0, high, shape)


# (id, builder, input arrays, forward kwargs)
LAYERS = [
    ("linear", lambda nn: nn.Linear(5, 3), [randn(4, 5)], {}),
    ("linear_3d_nobias", lambda nn: nn.Linear(5, 3, bias=False), [randn(2, 4, 5)], {}),
    ("bilinear", lambda nn: nn.Bilinear(3, 4, 2), [randn(5, 3), randn(5, 4)], {}),
    ("identity", lambda nn: nn.Identity(3, k=1), [randn(2, 3)], {}),
    ("conv1d", lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), [randn(2, 3, 9)], {}),
    ("conv1d_dilated", lambda nn: nn.Conv1d(4, 4, 2, dilation=2, groups=2), [randn(2, 4, 7)], {}),
    ("conv2d", lambda nn: nn.Conv2d(3, 4, 3), [randn(2, 3, 6, 5)], {}),
    (
        "conv2d_options",
        lambda nn: nn.Conv2d(
            4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2
        ),
        [randn(2, 4, 7, 6)],
        {},
    ),
    (
        "conv2d_same",
        lambda nn: nn.Conv2d(2, 3, 4, padding="same", bias=False),
        [randn(1, 2, 5, 6)],
        {},
    ),
    ("conv2d_valid", lambda nn: nn.Conv2d(2, 3, 3, padding="valid"), [randn(1, 2, 5, 6)], {}),
    (
        "conv2d_reflect",
        lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"),
        [randn(2, 2, 5, 5)],
        {},
    ),
    (
        "conv2d_circular",
        lambda nn: nn.Conv2d(2, 3, 3, padding=2, padding_mode="circular"),
        [randn(1, 2, 5, 5)],
        {},
    ),
    ("conv2d_unbatched", lambda nn: nn.Conv2d(2, 3, 3), [randn(2, 5, 5)], {}),
    (
        "conv_transpose2d",
        lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
        [randn(2, 3, 4, 5)],
        {},
    ),
    (
        "conv_transpose2d_groups",
        lambda nn: nn.ConvTranspose2d(4, 6, 2, groups=2, dilation=2),
        [randn(1, 4, 3, 3)],
        {},
    ),
    (
        "conv_transpose2d_output_size",
        lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1),
        [randn(1, 3, 4, 4)],
        {"output_size": [8, 8]},
    ),
    ("maxpool2d", lambda nn: nn.MaxPool2d(2), [randn(2, 3, 6, 6)], {}),
    (
        "maxpool2d_options",
        lambda nn: nn.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True),
        [randn(1, 2, 7, 8)],
        {},
    ),
    ("maxpool2d_indices", lambda nn: nn.MaxPool2d(2, return_indices=True), [randn(1, 2, 4, 4)], {}),
    ("avgpool2d", lambda nn: nn.AvgPool2d(2), [randn(2, 3, 6, 6)], {}),
    (
        "avgpool2d_options",
        lambda nn: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        [randn(1, 2, 7, 8)],
        {},
    ),
    ("avgpool2d_divisor", lambda nn: nn.AvgPool2d(2, divisor_override=3), [randn(1, 2, 4, 4)], {}),
    ("adaptive_avgpool2d", lambda nn: nn.AdaptiveAvgPool2d((3, 2)), [randn(2, 3, 7, 5)], {}),
    ("adaptive_avgpool2d_1", lambda nn: nn.AdaptiveAvgPool2d(1), [randn(2, 3, 4, 4)], {}),
    ("batchnorm1d", lambda nn: nn.BatchNorm1d(4), [randn(6, 4)], {}),
    ("batchnorm1d_3d", lambda nn: nn.BatchNorm1d(3, momentum=0.3), [randn(4, 3, 5)], {}),
    ("batchnorm1d_no_affine", lambda nn: nn.BatchNorm1d(3, affine=False), [randn(5, 3)], {}),
    ("batchnorm1d_cumulative", lambda nn: nn.BatchNorm1d(3, momentum=None), [randn(5, 3)], {}),
    (
        "batchnorm1d_no_stats",
        lambda nn: nn.BatchNorm1d(3, track_running_stats=False),
        [randn(5, 3)],
        {},
    ),
    ("batchnorm2d", lambda nn: nn.BatchNorm2d(3), [randn(2, 3, 4, 5)], {}),
    (
        "batchnorm2d_nobias",
        lambda nn: nn.BatchNorm2d(3, bias=False, eps=1e-3),
        [randn(2, 3, 4, 5)],
        {},
    ),
    ("layernorm", lambda nn: nn.LayerNorm(5), [randn(3, 4, 5)], {}),
    ("layernorm_2d", lambda nn: nn.LayerNorm([4, 5], eps=1e-3), [randn(3, 4, 5)], {}),
    ("layernorm_nobias", lambda nn: nn.LayerNorm(5, bias=False), [randn(3, 5)], {}),
    (
        "layernorm_no_affine",
        lambda nn: nn.LayerNorm(5, elementwise_affine=False),
        [randn(3, 5)],
        {},
    ),
    ("groupnorm", lambda nn: nn.GroupNorm(2, 4), [randn(3, 4, 5)], {}),
    ("groupnorm_4d", lambda nn: nn.GroupNorm(3, 6, eps=1e-3), [randn(2, 6, 3, 3)], {}),
    ("groupnorm_no_affine", lambda nn: nn.GroupNorm(1, 4, affine=False), [randn(2, 4, 3)], {}),
    ("dropout_p0", lambda nn: nn.Dropout(0.0), [randn(3, 4)], {}),
    ("embedding", lambda nn: nn.Embedding(10, 3), [labels(10, 2, 5)], {}),
    (
        "embedding_padding",
        lambda nn: nn.Embedding(10, 3, padding_idx=2),
        [np.array([[2, 3, 2, 9]])],
        {},
    ),
    (
        "embedding_max_norm_freq",
        lambda nn: nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True),
        [np.array([[1, 3, 1], [9, 1, 0]])],
        {},
    ),
    ("flatten", lambda nn: nn.Flatten(), [randn(2, 3, 4)], {}),
    ("flatten_range", lambda nn: nn.Flatten(0, 1), [randn(2, 3, 4)], {}),
    ("unflatten", lambda nn: nn.Unflatten(1, (2, -1)), [randn(3, 6)], {}),
    ("relu", lambda nn: nn.ReLU(), [randn(3, 4)], {}),
    ("relu6", lambda nn: nn.ReLU6(), [randn(3, 4) * 5], {}),
    ("leaky_relu", lambda nn: nn.LeakyReLU(0.2), [randn(3, 4)], {}),
    ("elu", lambda nn: nn.ELU(alpha=0.7), [randn(3, 4)], {}),
    ("selu", lambda nn: nn.SELU(), [randn(3, 4)], {}),
    ("gelu", lambda nn: nn.GELU(), [randn(3, 4)], {}),
    ("gelu_tanh", lambda nn: nn.GELU(approximate="tanh"), [randn(3, 4)], {}),
    ("silu", lambda nn: nn.SiLU(), [randn(3, 4)], {}),
    ("mish", lambda nn: nn.Mish(), [randn(3, 4)], {}),
    ("softplus", lambda nn: nn.Softplus(beta=2.0, threshold=3.0), [randn(3, 4) * 3], {}),
    ("hardtanh", lambda nn: nn.Hardtanh(-0.5, 0.7), [randn(3, 4)], {}),
    # PyTorch's CPU kernel takes the slope 1/6 in float32 even for float64 tensors.
    ("hardsigmoid", lambda nn: nn.Hardsigmoid(), [randn(3, 4) * 4], {}, 1e-7),
    ("hardswish", lambda nn: nn.Hardswish(), [randn(3, 4) * 4], {}),
    ("logsigmoid", lambda nn: nn.LogSigmoid(), [randn(3, 4)], {}),
    ("sigmoid", lambda nn: nn.Sigmoid(), [randn(3, 4)], {}),
    ("tanh", lambda nn: nn.Tanh(), [randn(3, 4)], {}),
    ("softmax", lambda nn: nn.Softmax(dim=1), [randn(3, 4)], {}),
    ("softmax_dim0", lambda nn: nn.Softmax(dim=0), [randn(3, 4)], {}),
    ("log_softmax", lambda nn: nn.LogSoftmax(dim=-1), [randn(2, 3, 4)], {}),
    ("softmin", lambda nn: nn.Softmin(dim=1), [randn(3, 4)], {}),
]


@pytest.mark.parametrize(
    "make, arrays, kwargs, rtol",
    [(*c[1:4], c[4] if len(c) > 4 else 1e-10) for c in LAYERS],
    ids=[c[0] for c in LAYERS],
)
def test_layer_matches_torch(make, arrays, kwargs, rtol):
    check_parity(make, arrays, kwargs=kwargs, rtol=rtol)


NORMS = [c[:4] for c in LAYERS if c[0].startswith(("batchnorm", "dropout"))]


@pytest.mark.parametrize("make, arrays, kwargs", [c[1:] for c in NORMS], ids=[c[0] for c in NORMS])
def test_layer_in_eval_mode_matches_torch(make, arrays, kwargs):
    check_parity(make, arrays, kwargs=kwargs, train=False)


@pytest.mark.parametrize("make, arrays, kwargs", [c[1:] for c in NORMS], ids=[c[0] for c in NORMS])
def test_running_statistics_over_several_batches_match_torch(make, arrays, kwargs):
    check_parity(make, arrays, kwargs=kwargs, calls=3)


def test_batchnorm_counts_batches_and_uses_running_stats_in_eval():
    bn = gg.nn.BatchNorm1d(2, momentum=None)
    for _ in range(4):
        bn(gg.randn(8, 2))
    assert bn.num_batches_tracked.item() == 4
    bn.eval()
    x = gg.randn(3, 2)
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + bn.eps)
    np.testing.assert_allclose(bn(x).detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        bn(gg.randn(1, 2, 3, 4))
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        gg.nn.BatchNorm2d(2)(gg.randn(3, 2))


def test_inplace_activations_write_into_their_input():
    for name, make in [
        ("relu", lambda nn: nn.ReLU(inplace=True)),
        ("leaky", lambda nn: nn.LeakyReLU(0.1, inplace=True)),
        ("hardtanh", lambda nn: nn.Hardtanh(inplace=True)),
        ("relu6", lambda nn: nn.ReLU6(inplace=True)),
        ("elu", lambda nn: nn.ELU(inplace=True)),
    ]:
        data = randn(3, 4) * 3
        x = gg.tensor(data.copy())
        out = make(gg.nn)(x)
        expected = make(torch.nn)(torch.tensor(data.copy()))
        np.testing.assert_allclose(x.numpy(), expected.numpy(), err_msg=name)
        np.testing.assert_allclose(out.numpy(), expected.numpy(), err_msg=name)


def test_dropout_zeroes_and_scales_in_training_only():
    gg.manual_seed(0)
    drop = gg.nn.Dropout(0.25)
    x = gg.ones(200, 50, requires_grad=True)
    y = drop(x)
    values = y.detach().numpy()
    kept = values != 0
    assert np.all(np.isclose(values, 0.0) | np.isclose(values, 1 / 0.75))
    assert abs(kept.mean() - 0.75) < 0.02
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.75)
    drop.eval()
    assert drop(x) is x or np.array_equal(drop(x).detach().numpy(), x.detach().numpy())
    assert (gg.nn.Dropout(1.0)(x).detach().numpy() == 0).all()
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"
    ):
        gg.nn.Dropout(1.5)


def test_embedding_padding_row_gets_no_gradient_and_starts_at_zero():
    emb = gg.nn.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4
    assert emb.weight[4].tolist() == [0.0, 0.0, 0.0]
    emb(gg.tensor([4, 1, 4])).sum().backward()
    assert emb.weight.grad[4].tolist() == [0.0, 0.0, 0.0]
    assert emb.weight.grad[1].tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        gg.nn.Embedding(5, 3, padding_idx=5)


def test_embedding_from_pretrained():
    table = gg.tensor([[1.0, 2.0], [3.0, 4.0]])
    emb = gg.nn.Embedding.from_pretrained(table)
    assert not emb.weight.requires_grad
    assert emb(gg.tensor([1, 0])).tolist() == [[3.0, 4.0], [1.0, 2.0]]
    assert gg.nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad


def _sorted_sets(message: str) -> str:
    # Messages that print a Python set: its order depends on the process's string hashing.
    return re.sub(
        r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message
    )


def test_layer_argument_errors_match_torch():
    def errors(nn):
        attempts = [
            lambda: nn.Conv2d(3, 4, 3, groups=2),
            lambda: nn.Conv2d(4, 3, 3, groups=2),
            lambda: nn.Conv2d(4, 4, 3, groups=0),
            lambda: nn.Conv2d(4, 4, 3, padding="full"),
            lambda: nn.Conv2d(4, 4, 3, stride=2, padding="same"),
            lambda: nn.Conv2d(4, 4, 3, padding_mode="mirror"),
            lambda: nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
            lambda: nn.GroupNorm(3, 4),
            lambda: nn.Unflatten(1, (2, 2.0)),
            lambda: nn.Unflatten(1, 4),
            lambda: nn.Hardtanh(1.0, -1.0),
        ]
        out = []
        for attempt in attempts:
            try:
                attempt()
                out.append(None)
            except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                out.append((type(error).__name__, _sorted_sets(str(error))))
        return out

    theirs, ours = errors(torch.nn), errors(gg.nn)
    assert None not in theirs
    assert [o[0] for o in ours] == [t[0] for t in theirs]
    # PyTorch's Hardtanh check is a bare assert; every other message is PyTorch's.
    assert ours[:-1] == theirs[:-1]


def test_conv_transpose_output_size_out_of_range():
    up = gg.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    reference = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    for size in ([12, 12], [1, 2, 3]):
        with pytest.raises(ValueError) as theirs:
            reference(torch.randn(1, 3, 4, 4), output_size=size)
        with pytest.raises(ValueError) as ours:
            up(gg.randn(1, 3, 4, 4), output_size=size)
        assert str(ours.value) == str(theirs.value).replace("torch.", "glassgrad.")


def test_layers_run_in_float32_by_default():
    layer = gg.nn.Linear(3, 2)
    assert layer.weight.dtype == gg.float32
    out = layer(gg.randn(4, 3))
    assert out.dtype == gg.float32
    conv = gg.nn.Conv2d(1, 1, 2, dtype=gg.float64)
    assert conv.weight.dtype == gg.float64 and conv.bias.dtype == gg.float64
