"""Parity of every registry row with PyTorch, generated from the rows' samples.

For each sample: forward values (float64 and float32), first derivatives, second derivatives
(create_graph), the array and Tensor backward paths agreeing, and a finite-difference check of
the vector-Jacobian product that does not involve PyTorch.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Container, Iterable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad._dtype import complex_of
from glassgrad.ops import REGISTRY
from glassgrad.ops._registry import NoGrad, OpInfo, Sample


def _samples(info: OpInfo) -> list[Sample]:
    rng = np.random.default_rng(zlib.crc32(info.name.encode()))
    return list(info.samples(rng)) if info.samples else []


CASES = [
    pytest.param(key, i, sample, id=f"{key}-{i}")
    for key, info in REGISTRY.items()
    for i, sample in enumerate(_samples(info))
]


def _precision(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float sample in ``dtype``; a complex one in the complex dtype of that precision."""
    return value.astype(complex_of(np.dtype(dtype)) if value.dtype.kind == "c" else dtype)


def _convert(value: Any, lib: Any, dtype: np.dtype, leaves: list) -> Any:
    """Sample arguments as tensors of ``lib``; float and complex arrays require grad
    (collected)."""
    if isinstance(value, NoGrad):
        return lib.tensor(_precision(value.array, dtype))
    if isinstance(value, np.generic):  # NumPy scalars stand for 0-d tensors
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            t = lib.tensor(_precision(value, dtype), requires_grad=True)
            leaves.append(t)
            return t
        return lib.from_numpy(value.copy())
    if isinstance(value, list):
        return [_convert(v, lib, dtype, leaves) for v in value]
    return value


def _call(info: OpInfo, lib: Any, args: tuple, kwargs: dict) -> Any:
    if lib is gg:
        return info.function(*args, **kwargs)
    if callable(info.torch):
        return info.torch(torch, *args, **kwargs)
    fn: Any = torch
    for part in info.torch.split(".")[1:]:
        fn = getattr(fn, part, None)
        if fn is None:  # a Tensor method only (view, expand ...)
            return getattr(args[0], info.name)(*args[1:], **kwargs)
    return fn(*args, **kwargs)


def _outputs(result: Any) -> list:
    items = result if isinstance(result, (tuple, list)) else [result]
    return [r for r in items if hasattr(r, "shape")]


def _numpy(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)  # force: torch may hand back a ZeroTensor
    return np.asarray(t.detach().numpy())


def _arguments(sample: Sample, lib: Any, dtype: np.dtype = np.float64) -> tuple:
    """``(args, kwargs, leaves)``: the sample's arguments as ``lib``'s tensors, and the
    leaves among them (its float and complex arrays, which require grad)."""
    leaves: list = []
    args = tuple(_convert(a, lib, dtype, leaves) for a in sample.args)
    kwargs = {k: _convert(v, lib, dtype, leaves) for k, v in sample.kwargs.items()}
    return args, kwargs, leaves


def _tensor_arguments(args: tuple, kwargs: dict) -> list:
    """Every tensor among the arguments, those in lists included."""
    found = []
    for value in (*args, *kwargs.values()):
        found += [v for v in (value if isinstance(value, list) else [value]) if hasattr(v, "shape")]
    return found


def _gauged_outputs(info: OpInfo, lib: Any, args: tuple, kwargs: dict) -> list:
    """The op's tensor outputs, through the row's gauge (signs, phases) if it has one."""
    result = _call(info, lib, args, kwargs)
    return _outputs(info.gauge(result) if info.gauge else result)


def _run(info: OpInfo, sample: Sample, lib: Any, dtype: np.dtype = np.float64) -> tuple:
    args, kwargs, leaves = _arguments(sample, lib, dtype)
    return _gauged_outputs(info, lib, args, kwargs), leaves


def _output_differences(
    info: OpInfo,
    samples: Iterable[Sample],
    run: Callable[[OpInfo, Sample, Any], list],
    differ: Callable[[Any, Any], str | None],
) -> list[str]:
    """One line per output of ``samples`` where ``differ(ours, theirs)`` names a difference,
    ``run(info, sample, lib)`` giving each library's per-output facts. Samples that raise are
    left to the error tests."""
    found = []
    for i, sample in enumerate(samples):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = run(info, sample, gg)
                theirs = run(info, sample, torch)
        except Exception:
            continue
        for k, (o, t) in enumerate(zip(ours, theirs)):
            difference = differ(o, t)
            if difference:
                found.append(f"sample {i} output {k}: {difference}")
    return found


def _assert_ratchet(key: str, differences: list[str], known: Container[str], what: str) -> None:
    """A ratchet on ``known``: a listed op must still differ (else it leaves the list), any other
    must not differ."""
    if key in known:
        assert differences, f"{key}: {what} now agree with PyTorch; remove it from the list"
    else:
        assert not differences, f"{key}: {what} differ from PyTorch's: {differences}"


def _assert_close(ours: Any, theirs: Any, info: OpInfo, what: str, rtol: float, atol: float):
    a, b = _numpy(ours), _numpy(theirs)
    assert a.shape == b.shape, f"{info.name}: {what} shape {a.shape} != torch {b.shape}"
    assert a.dtype == b.dtype, f"{info.name}: {what} dtype {a.dtype} != torch {b.dtype}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{info.name}: {what}")


def _differentiable(outputs: list, lib: Any) -> list:
    kinds = (lib.float32, lib.float64, lib.complex64, lib.complex128)
    return [o for o in outputs if o.requires_grad and o.dtype in kinds]


def _cotangents(outputs: list, rng: np.random.Generator) -> list[np.ndarray]:
    """Random gradients of the outputs: complex for complex outputs."""
    vs = []
    for o in outputs:
        v = rng.standard_normal(tuple(o.shape))
        vs.append(v + 1j * rng.standard_normal(v.shape) if o.dtype.is_complex else v)
    return vs


def _inner(a: np.ndarray, b: np.ndarray) -> float:
    """Re <a, b>: the real inner product PyTorch's complex gradients are taken in."""
    return float(np.real(np.sum(np.conj(a) * b)))


def _first_grads(lib: Any, outputs: list, leaves: list, vs: list, create_graph: bool) -> list:
    grads = lib.autograd.grad(
        outputs,
        leaves,
        [lib.tensor(v, dtype=o.dtype) for o, v in zip(outputs, vs)],
        create_graph=create_graph,
        retain_graph=True,
        allow_unused=True,
    )
    return [lib.zeros_like(x) if g is None else g for g, x in zip(grads, leaves)]


@pytest.mark.parametrize("key, index, sample", CASES)
def test_forward_float64(key: str, index: int, sample: Sample) -> None:
    info = REGISTRY[key]
    ours, _ = _run(info, sample, gg)
    theirs, _ = _run(info, sample, torch)
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        _assert_close(a, b, info, f"output {i}", info.rtol, info.atol)


@pytest.mark.parametrize("key, index, sample", CASES)
def test_forward_float32(key: str, index: int, sample: Sample) -> None:
    info = REGISTRY[key]
    ours, _ = _run(info, sample, gg, np.float32)
    theirs, _ = _run(info, sample, torch, np.float32)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        scale = float(np.abs(_numpy(b)).max()) if b.numel() and b.dtype.is_floating_point else 1.0
        _assert_close(a, b, info, f"float32 output {i}", 1e-5, 1e-5 * max(scale, 1.0))


@pytest.mark.parametrize("key, index, sample", CASES)
def test_gradients(key: str, index: int, sample: Sample) -> None:
    info = REGISTRY[key]
    if not (info.differentiable and sample.grad):
        ours, _ = _run(info, sample, gg)
        differentiable_dtypes = (gg.float32, gg.float64, gg.complex64, gg.complex128)
        assert not any(o.requires_grad for o in ours if o.dtype not in differentiable_dtypes)
        return
    ours, our_leaves = _run(info, sample, gg)
    theirs, their_leaves = _run(info, sample, torch)
    ours, theirs = _differentiable(ours, gg), _differentiable(theirs, torch)
    assert len(ours) == len(theirs), f"{key}: differentiable outputs differ from torch"
    if not ours or not our_leaves:
        return
    vs = _cotangents(ours, np.random.default_rng(index))
    fast = _first_grads(gg, ours, our_leaves, vs, create_graph=False)
    graph = _first_grads(gg, ours, our_leaves, vs, create_graph=True)
    reference = _first_grads(torch, theirs, their_leaves, vs, create_graph=True)
    for i, (a, g, b) in enumerate(zip(fast, graph, reference)):
        _assert_close(a, b, info, f"grad of input {i}", 1e-7, 1e-9)
        _assert_close(g, a, info, f"grad of input {i} (create_graph path)", 1e-10, 1e-12)
    if not (info.second_order and sample.gradgrad):
        return
    ws = _cotangents(graph, np.random.default_rng(index + 1))
    second = _second_grads(gg, graph, our_leaves, ws)
    second_ref = _second_grads(torch, reference, their_leaves, ws)
    for i, (a, b) in enumerate(zip(second, second_ref)):
        _assert_close(a, b, info, f"second derivative wrt input {i}", 1e-6, 1e-8)


@pytest.mark.parametrize("key, index, sample", CASES)
def test_gradient_through_one_output_alone(key: str, index: int, sample: Sample) -> None:
    """Through one output of a multi-output op, the other outputs' gradients are undefined,
    not zeros, as in PyTorch: an input gets no gradient (None with allow_unused), or one that
    requires grad under create_graph, exactly where PyTorch's does."""
    info = REGISTRY[key]
    if not (info.differentiable and sample.grad):
        return
    ours, our_leaves = _run(info, sample, gg)
    ours = _differentiable(ours, gg)
    if len(ours) < 2 or not our_leaves:
        return
    theirs, their_leaves = _run(info, sample, torch)
    theirs = _differentiable(theirs, torch)
    vs = _cotangents(ours, np.random.default_rng(index))
    for k, (mine, reference, v) in enumerate(zip(ours, theirs, vs)):
        got, expected = (
            lib.autograd.grad(
                [out],
                leaves,
                [lib.tensor(v, dtype=out.dtype)],
                retain_graph=True,
                create_graph=True,
                allow_unused=True,
            )
            for lib, out, leaves in ((gg, mine, our_leaves), (torch, reference, their_leaves))
        )
        for i, (a, b) in enumerate(zip(got, expected)):
            what = f"grad of input {i} through output {k} alone"
            assert (a is None) == (b is None), f"{key}: {what}: {a} vs torch {b}"
            if a is not None:
                assert a.requires_grad == b.requires_grad, f"{key}: {what}: requires_grad"
                _assert_close(a, b, info, what, 1e-7, 1e-9)


def _second_grads(lib: Any, first: list, leaves: list, ws: list) -> list:
    """d<first, w>/d leaves; a first gradient that is constant contributes zero."""
    pairs = [(g, w) for g, w in zip(first, ws) if g.requires_grad]
    if not pairs:
        return [lib.zeros_like(x) for x in leaves]
    return _first_grads(lib, [g for g, _ in pairs], leaves, [w for _, w in pairs], False)


@pytest.mark.parametrize("key, index, sample", CASES)
def test_vjp_matches_finite_differences(key: str, index: int, sample: Sample) -> None:
    """<v, J u> by central differences equals <J^T v, u> from backward (float64); for complex
    values the inner product is Re <a, b>, in which PyTorch's complex gradients are defined."""
    info = REGISTRY[key]
    if not (info.differentiable and sample.grad and sample.fd):
        return
    ours, leaves = _run(info, sample, gg)
    outs = _differentiable(ours, gg)
    if not outs or not leaves or any(o.dtype not in (gg.float64, gg.complex128) for o in outs):
        return  # finite differences need double precision outputs
    rng = np.random.default_rng(1000 + index)
    vs = _cotangents(outs, rng)
    grads = _first_grads(gg, outs, leaves, vs, create_graph=False)
    us = _cotangents(leaves, rng)
    analytic = sum(_inner(g.numpy(), u) for g, u in zip(grads, us))
    eps = 1e-6
    base = [x.detach().numpy().copy() for x in leaves]

    def projected(sign: float) -> float:
        with gg.no_grad():
            for x, b, u in zip(leaves, base, us):
                x.data.numpy()[...] = b + sign * eps * u
            outputs = _differentiable(_outputs_nograd(info, sample, leaves), gg)
            return sum(_inner(v, o.detach().numpy()) for o, v in zip(outputs, vs))

    numeric = (projected(1.0) - projected(-1.0)) / (2 * eps)
    for x, b in zip(leaves, base):
        x.data.numpy()[...] = b
    assert numeric == pytest.approx(analytic, rel=1e-5, abs=1e-6), key


def _outputs_nograd(info: OpInfo, sample: Sample, leaves: list) -> list:
    """Re-run the op on the (perturbed) leaves, keeping requires_grad for selection."""
    it = iter(leaves)

    def rebuild(value: Any) -> Any:
        if isinstance(value, NoGrad):
            return gg.tensor(value.array)
        if isinstance(value, np.generic):
            value = np.asarray(value)
        if isinstance(value, np.ndarray):
            return next(it) if value.dtype.kind in "fc" else gg.from_numpy(value.copy())
        if isinstance(value, list):
            return [rebuild(v) for v in value]
        return value

    args = tuple(rebuild(a) for a in sample.args)
    kwargs = {k: rebuild(v) for k, v in sample.kwargs.items()}
    with gg.enable_grad():
        result = info.function(*args, **kwargs)
        return _outputs(info.gauge(result) if info.gauge else result)
