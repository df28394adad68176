"""nn.DataParallel as PyTorch's behaves without accelerators: the wrapped module, run as it
is, its parameters named ``module.<name>``; the functional data_parallel raises."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import glassgrad as gg


def _program(lib) -> list:
    linear = lib.nn.Linear(3, 2)
    with lib.no_grad():
        linear.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3)))
        linear.bias.fill_(0.5)
    model = lib.nn.DataParallel(linear, device_ids=[0], output_device=0, dim=0)
    out = model(lib.ones(4, 3))
    out.sum().backward()
    restored = lib.nn.DataParallel(lib.nn.Linear(3, 2))
    restored.load_state_dict(copy.deepcopy(model).state_dict())
    return [
        repr(model).replace("glassgrad", "torch"),
        list(model.state_dict()),
        model.device_ids,
        model.module is linear,
        out.tolist(),
        linear.weight.grad.tolist(),
        restored.module.weight.tolist(),
        lib.nn.parallel.DataParallel is lib.nn.DataParallel,
    ]


def test_data_parallel_runs_the_module_as_pytorch_without_accelerators() -> None:
    assert _program(gg) == _program(torch)


def test_functional_data_parallel_needs_an_accelerator_as_pytorch() -> None:
    for lib in (gg, torch):
        with pytest.raises(RuntimeError, match="device type could not be determined"):
            lib.nn.parallel.data_parallel(lib.nn.Identity(), lib.ones(2))
