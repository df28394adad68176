"""Lazy modules: the placeholders, shape inference on the first call, the class they become,
state dicts both ways, as PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
import glassgrad.nn as nn

CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (3,), {"bias": False}, (4, 2, 7)),
    ("LazyConv1d", (4, 3), {"stride": 2}, (2, 5, 9)),
    ("LazyConv2d", (4, 3), {"groups": 2, "bias": False}, (6, 5, 5)),  # unbatched
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"output_padding": 1, "stride": 2}, (2, 5, 6)),
    ("LazyConvTranspose2d", (4, 3), {"groups": 2}, (1, 2, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), {"bias": False}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {"affine": False, "track_running_stats": False}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"bias": False}, (2, 3, 2, 2, 2)),
]


def _layout(module) -> tuple:
    return (
        type(module).__name__,
        repr(module),
        [(name, tuple(p.shape), p.requires_grad) for name, p in module.named_parameters()],
        [(name, tuple(b.shape), str(b.dtype).split(".")[-1]) for name, b in module.named_buffers()],
    )


@pytest.mark.parametrize(("name", "args", "kwargs", "shape"), CASES, ids=[c[0] for c in CASES])
def test_first_call_gives_torchs_module(name, args, kwargs, shape) -> None:
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours_out, theirs_out = ours(gg.tensor(x)), theirs(torch.tensor(x))
    assert tuple(ours_out.shape) == tuple(theirs_out.shape)
    assert _layout(ours) == _layout(theirs)
    # The module works on: a second call, a backward reaching every parameter.
    if list(ours.parameters()):
        ours(gg.tensor(x)).sum().backward()
        assert all(p.grad is not None for p in ours.parameters())
    # Same values as the layer built directly with the inferred size and the same parameters.
    direct = type(ours)(**_direct_kwargs(ours))
    direct.load_state_dict(ours.state_dict())
    np.testing.assert_allclose(direct(gg.tensor(x)).detach().numpy(),
                               ours(gg.tensor(x)).detach().numpy(), rtol=1e-6)  # fmt: skip


def _direct_kwargs(module) -> dict:
    if isinstance(module, nn.Linear):
        return {"in_features": module.in_features, "out_features": module.out_features,
                "bias": module.bias is not None}  # fmt: skip
    if hasattr(module, "kernel_size"):
        keys = ["in_channels", "out_channels", "kernel_size", "stride", "padding", "groups",
                "dilation", "padding_mode"]  # fmt: skip
        kwargs = {k: getattr(module, k) for k in keys}
        if module.transposed:
            kwargs["output_padding"] = module.output_padding
        return {**kwargs, "bias": module.bias is not None}
    return {"num_features": module.num_features, "affine": module.affine,
            "track_running_stats": module.track_running_stats,
            "bias": getattr(module, "bias", None) is not None}  # fmt: skip


def test_placeholders_as_torch() -> None:
    for lib in (nn, torch.nn):
        p = lib.UninitializedParameter()
        assert repr(p) == "<UninitializedParameter>" and p.requires_grad
        assert repr(lib.UninitializedBuffer()) == "<UninitializedBuffer>"
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
            p.shape  # noqa: B018
        p.materialize((2, 3))
        assert type(p) is lib.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        b = lib.UninitializedBuffer(dtype=(gg if lib is nn else torch).float64)
        b.materialize(4)
        assert type(b) is (gg.Tensor if lib is nn else torch.Tensor)
        assert tuple(b.shape) == (4,) and "float64" in str(b.dtype)


def test_state_dicts_load_both_ways() -> None:
    trained = nn.LazyLinear(3)
    trained(gg.ones(1, 4))
    # An initialised state into a lazy module: the placeholders take its shapes.
    lazy = nn.LazyLinear(3)
    lazy.load_state_dict(trained.state_dict())
    assert type(lazy).__name__ == "LazyLinear" and tuple(lazy.weight.shape) == (3, 4)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), trained.weight.detach().numpy())
    out = lazy(gg.ones(2, 4))  # the first call finds nothing to infer and becomes Linear
    assert type(lazy) is nn.Linear and tuple(out.shape) == (2, 3)
    # An uninitialised state into an initialised module: a clear size error, as in PyTorch.
    with pytest.raises(RuntimeError):
        trained.load_state_dict(nn.LazyLinear(3).state_dict())


def test_errors_as_torch() -> None:
    for lib, tensor in ((nn, gg.ones), (torch.nn, torch.ones)):
        with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\)"):
            lib.LazyConv2d(4, 3)(tensor(5, 5))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.LazyConv1d(4, 3, groups=2)(tensor(1, 3, 5))


def test_optimizer_after_the_first_call_trains_the_materialized_parameters() -> None:
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    x, y = gg.randn(16, 3), gg.randn(16, 1)
    model(x)  # dry run, as PyTorch's documentation asks before building the optimizer
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear"]
