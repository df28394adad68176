"""The edges real scripts touch first: torch.cuda on a machine without CUDA, devices,
backends flags, Variable, Tensor.new, torch.functional, the profiler, NumPy interop,
pickle/deepcopy, print options. PyTorch (CPU build) is the oracle where it has an answer."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (gg, torch)


def test_cuda_namespace_without_cuda() -> None:
    for lib in LIBS:
        assert lib.cuda.is_available() is False
        assert lib.cuda.device_count() == 0
        assert lib.cuda.manual_seed(0) is None and lib.cuda.manual_seed_all(0) is None
        assert lib.cuda.is_initialized() is False
        device = "cuda" if lib.cuda.is_available() else "cpu"
        assert lib.ones(2).to(device).device == lib.device("cpu")
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            lib.cuda.current_device()
    gg.cuda.synchronize()


def test_devices_are_made_and_compared() -> None:
    for lib in LIBS:
        cuda = lib.device("cuda")
        assert cuda.type == "cuda" and cuda.index is None
        assert lib.device("cuda:1") == lib.device("cuda", 1)
        assert lib.device("cuda") != lib.device("cuda:0") and lib.device("cpu") != "cpu"
        assert str(lib.device("cuda", 0)) == "cuda:0"
        assert repr(lib.device("cuda", 0)) == "device(type='cuda', index=0)"
        assert {lib.device("cpu"), lib.device("cpu")} == {lib.device("cpu")}
        assert lib.get_default_device() == lib.device("cpu")
        try:
            lib.set_default_device("cpu")
        finally:
            lib.set_default_device(None)  # PyTorch's installs a mode until reset: reset it
        for move in (
            lambda lib=lib: lib.ones(2).to("cuda"),
            lambda lib=lib: lib.ones(2).cuda(),
            lambda lib=lib: lib.ones(2, device="cuda"),
            lambda lib=lib: lib.nn.Linear(2, 2).cuda(),
            lambda lib=lib: lib.nn.Linear(2, 2).to("cuda:0"),
        ):
            with pytest.raises(AssertionError, match="not compiled with CUDA"):
                move()
        with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
            lib.device("gpu")
    with pytest.raises(RuntimeError, match="mps"):
        gg.ones(2).to("mps")
    with pytest.raises(AssertionError, match="CUDA"):
        gg.set_default_device("cuda")


def test_backend_flags() -> None:
    import glassgrad.backends.cudnn as cudnn

    for lib in LIBS:
        assert lib.backends.mps.is_available() is False
        assert lib.backends.cudnn.enabled is True and lib.backends.cudnn.benchmark is False
        assert lib.backends.cudnn.deterministic is False
        assert lib.backends.cuda.matmul.allow_tf32 is False
    cudnn.benchmark = True
    assert gg.backends.cudnn.benchmark is True
    cudnn.benchmark = False


def test_variable_is_a_class_every_tensor_is_an_instance_of() -> None:
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = lib.autograd.Variable(lib.ones(2), requires_grad=True)
        assert isinstance(v, lib.Tensor) and v.requires_grad
        assert isinstance(lib.ones(1), lib.autograd.Variable)
        assert not isinstance(3.0, lib.autograd.Variable)
        assert isinstance(lib.autograd.Variable, type)


def test_tensor_new_and_contains() -> None:
    for lib in LIBS:
        t = lib.zeros(1, dtype=lib.float64)
        assert t.new([1, 2]).dtype == lib.float64 and t.new(2, 3).shape == (2, 3)
        assert t.new().shape == (0,)
        x = lib.tensor([1.0, 2.0])
        assert 1.0 in x and 2 in x and 3 not in x and lib.tensor(2.0) in x
        with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
            _ = "a" in x


def test_functional_module() -> None:
    import glassgrad.functional as F

    for name in F.__all__:
        assert getattr(F, name) is getattr(gg, name)
        assert hasattr(torch.functional, name)
    assert F.meshgrid is gg.meshgrid and "unique" in F.__all__


def test_numpy_interop() -> None:
    def program(lib: Any) -> list:
        t = lib.tensor([0.5, 2.0])
        results = [np.sin(t), np.add(t, 1), np.maximum(t, 1.0), np.float64(2) * t]
        return [(type(r).__name__, r.numpy().tolist()) for r in results] + [
            type(np.asarray(t)).__name__
        ]

    ours, theirs = program(gg), program(torch)
    assert [(n.replace("Tensor", "T"), v) for n, v in ours[:-1]] == [
        (n.replace("Tensor", "T"), v) for n, v in theirs[:-1]
    ]
    assert ours[-1] == theirs[-1] == "ndarray"
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            np.exp(lib.ones(2, requires_grad=True))
    x = gg.ones(2, requires_grad=True)
    y = np.ones(2) * x  # the reflected operator: recorded
    assert y.grad_fn is not None


def test_pickle_and_deepcopy_of_tensors_and_modules() -> None:
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.grad = lib.tensor([3.0, 4.0])
        y = pickle.loads(pickle.dumps(x))
        assert y.requires_grad and y.is_leaf and y.grad is None  # .grad does not travel
        z = pickle.loads(pickle.dumps(x * 2))
        assert z.is_leaf and z.requires_grad and z.tolist() == [2.0, 4.0]
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
        for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
            assert type(clone[0].weight) is type(model[0].weight)
            assert lib.equal(clone[0].weight, model[0].weight)
            clone(lib.ones(1, 3)).sum().backward()
            assert clone[0].weight.grad is not None and model[0].weight.grad is None
        with pytest.raises(RuntimeError, match="deepcopy"):
            copy.deepcopy(x * 2)


def test_print_options() -> None:
    for lib in LIBS:
        try:
            x = lib.tensor([1.23456, 100.5, 3.0])
            lib.set_printoptions(precision=2)
            short = repr(x)
            lib.set_printoptions(sci_mode=True)
            sci = repr(x)
            lib.set_printoptions(threshold=5, edgeitems=1)
            summary = repr(lib.arange(10.0))
        finally:
            lib.set_printoptions(profile="default")
        assert (short, sci, summary) == (
            "tensor([  1.23, 100.50,   3.00])",
            "tensor([1.23e+00, 1.00e+02, 3.00e+00])",
            "tensor([0.,  ..., 9.])",
        )
        assert repr(x) == "tensor([  1.2346, 100.5000,   3.0000])"


def test_profiler_records_ops_counts_and_backward() -> None:
    with gg.autograd.profiler.profile(record_shapes=True) as prof:
        x = gg.ones(3, 4, requires_grad=True)
        with gg.autograd.profiler.record_function("forward"):
            y = gg.nn.functional.relu(x @ gg.ones(4, 2)).sum()
            y = y + x.sum() * 2
        y.backward()
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["aten::ones"].count == 2 and averages["aten::sum"].count == 2
    assert averages["aten::matmul"].count == 1 and averages["aten::relu"].count == 1
    assert averages["forward"].count == 1
    assert "autograd::engine::evaluate_function: MmBackward0" in averages
    forward = averages["forward"]
    inner = sum(averages[k].cpu_time_total for k in ("aten::matmul", "aten::relu"))
    assert forward.cpu_time_total >= inner and forward.self_cpu_time_total >= 0
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    assert "Self CPU time total" in table and "# of Calls" in table
    assert len([line for line in table.splitlines() if "aten::" in line or "::" in line]) <= 5
    # Outside the profile the ops are the originals again.
    assert gg.Tensor.__mul__.__name__ == "mul" or not hasattr(gg.Tensor.__mul__, "__wrapped__")
    assert not hasattr(gg.ones, "__wrapped__")


def test_new_profiler_api(tmp_path: Any) -> None:
    from glassgrad.profiler import ProfilerActivity, profile, record_function

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(2):
            with record_function("step_body"):
                gg.ones(2) * 2
            prof.step()
    keys = [e.key for e in prof.key_averages()]
    assert "ProfilerStep#0" in keys and "ProfilerStep#1" in keys
    assert {e.key: e.count for e in prof.key_averages()}["step_body"] == 2
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    assert "traceEvents" in (tmp_path / "trace.json").read_text()
    with pytest.raises(ValueError, match="schedule"):
        profile(schedule=lambda step: None)


def test_numpy_keyword_names() -> None:
    for lib in LIBS:
        x = lib.ones(2, 3)
        assert x.sum(axis=1).tolist() == [3.0, 3.0]
        assert tuple(lib.mean(x, axis=0, keepdims=True).shape) == (1, 3)
        assert x.max(axis=1).values.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        gg.ones(2).sum(axis=0, dim=0)
