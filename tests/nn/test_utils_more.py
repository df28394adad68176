"""nn.utils additions against PyTorch: get_total_norm / clip_grads_with_norm_, batch-norm
fusion, skip_init, Module.to_empty and stateless.functional_call (values and gradients)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import assert_close, copy_state

RNG = np.random.default_rng(23)


def randn(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, float("inf")])
def test_total_norm_and_clipping(norm_type):
    grads = [randn(3, 2), randn(4)]
    results = []
    for lib in (gg, torch):
        params = [lib.nn.Parameter(lib.zeros(g.shape, dtype=lib.float64)) for g in grads]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g)
        total = lib.nn.utils.get_total_norm([p.grad for p in params], norm_type)
        lib.nn.utils.clip_grads_with_norm_(params, 0.5, total)
        results.append((total, [p.grad for p in params]))
    (total, ours), (their_total, theirs) = results
    assert_close(total, their_total, 1e-12, 0, "total norm")
    for a, b in zip(ours, theirs):
        assert_close(a, b, 1e-12, 0, "clipped grad")


def test_total_norm_records_no_graph_and_checks_finiteness():
    for lib in (gg, torch):
        x = lib.tensor(randn(5), requires_grad=True)
        assert not lib.nn.utils.get_total_norm([x * 2, x[:2]], 3.0).requires_grad
        with pytest.raises(RuntimeError, match="is non-finite"):
            lib.nn.utils.get_total_norm([lib.tensor([float("inf")])], error_if_nonfinite=True)


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: (nn.Conv2d(2, 3, 2), nn.BatchNorm2d(3), False, (1, 2, 4, 4)),
        lambda nn: (nn.ConvTranspose2d(2, 3, 2, bias=False), nn.BatchNorm2d(3), True, (1, 2, 3, 3)),
        lambda nn: (nn.Linear(4, 3), nn.BatchNorm1d(3), None, (5, 4)),
    ],
)
def test_batch_norm_fusion_matches_pytorch(make):
    outputs = []
    th_layer, th_bn, transpose, shape = make(torch.nn)
    gg_layer, gg_bn, _, _ = make(gg.nn)
    th_layer.double().eval()
    th_bn.double().eval()
    with torch.no_grad():
        th_bn.running_mean.copy_(torch.tensor(randn(3)))
        th_bn.running_var.copy_(torch.tensor(np.abs(randn(3)) + 0.5))
        th_bn.weight.copy_(torch.tensor(randn(3)))
    gg_layer.double().eval()
    gg_bn.double().eval()
    copy_state(gg_layer, th_layer)
    copy_state(gg_bn, th_bn)
    x = randn(*shape)
    for lib, layer, bn in ((gg, gg_layer, gg_bn), (torch, th_layer, th_bn)):
        if transpose is None:
            fused = lib.nn.utils.fuse_linear_bn_eval(layer, bn)
        else:
            fused = lib.nn.utils.fuse_conv_bn_eval(layer, bn, transpose=transpose)
        outputs.append(fused(lib.tensor(x)))
    assert_close(outputs[0], outputs[1], 1e-10, 1e-12, "fused output")


def test_skip_init_and_to_empty():
    layer = gg.nn.utils.skip_init(gg.nn.Linear, 3, 2, bias=False)
    assert layer.weight.shape == (2, 3) and layer.bias is None
    for lib in (gg, torch):
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
            lib.nn.utils.skip_init(lib.nn.ReLU)
    weight = gg.nn.Linear(2, 3).to_empty(device="cpu").weight
    assert weight.shape == (3, 2) and isinstance(weight, gg.nn.Parameter)


def test_functional_call_matches_pytorch():
    grads = []
    th = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    ours = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.Tanh(), gg.nn.Linear(4, 2)).double()
    copy_state(ours, th)
    w, x = randn(4, 3), randn(5, 3)
    outs = []
    for lib, model in ((gg, ours), (torch, th)):
        weight = lib.tensor(w, requires_grad=True)
        out = lib.nn.utils.stateless.functional_call(model, {"0.weight": weight}, (lib.tensor(x),))
        out.sum().backward()
        outs.append(out)
        grads.append((weight.grad, model[0].weight.grad, model[2].weight.grad))
        assert not (model[0].weight.detach().numpy() == w).all()  # restored afterwards
        with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'nope'"):
            lib.nn.utils.stateless.functional_call(
                model, {"nope": weight}, lib.tensor(x), strict=True
            )
    assert_close(outs[0], outs[1], 1e-12, 0, "output")
    for a, b in zip(*grads):
        assert_close(a, b, 1e-12, 0, "grad")
