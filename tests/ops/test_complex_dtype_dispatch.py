"""Complex inputs to every registry op: glassgrad raises where PyTorch raises (its dtype dispatch
has no complex case: comparisons, clamps, rounding, sorting, extrema, the real special
functions ...), with PyTorch's exception type, and computes where PyTorch computes.

Each op's first sample runs with its float arguments made complex. ``KNOWN`` lists the ops
where glassgrad still refuses complex inputs that PyTorch accepts, or where the two refuse
with other exception types; it may only shrink.
"""

from __future__ import annotations

import warnings
import zlib
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY
from glassgrad.ops._registry import NoGrad

from .test_registry import _call

KNOWN: dict[str, str] = {}


def _complex(value: Any, lib: Any) -> Any:
    if isinstance(value, NoGrad):
        value = value.array
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            return lib.tensor(value.astype(np.complex128) + 0.5j)
        return lib.from_numpy(value.copy())
    if isinstance(value, list):
        return [_complex(v, lib) for v in value]
    return value


def _outcome(key: str, lib: Any, sample: Any) -> str:
    args = tuple(_complex(a, lib) for a in sample.args)
    kwargs = {k: _complex(v, lib) for k, v in sample.kwargs.items()}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            _call(REGISTRY[key], lib, args, kwargs)
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        # torch.linalg.LinAlgError is the class torch._C._LinAlgError
        return "LinAlgError" if type(exc).__name__ == "_LinAlgError" else type(exc).__name__
    return "computes"


def _first_sample(key: str) -> Any:
    info = REGISTRY[key]
    samples = list(info.samples(np.random.default_rng(zlib.crc32(info.name.encode()))))
    return samples[0] if samples else None


def _differs(key: str) -> tuple | None:
    sample = _first_sample(key)
    if sample is None:
        return None
    ours, theirs = _outcome(key, gg, sample), _outcome(key, torch, sample)
    return None if ours == theirs else (ours, theirs)


KEYS = sorted(k for k, info in REGISTRY.items() if info.samples)


@pytest.mark.parametrize("key", [k for k in KEYS if k not in KNOWN])
def test_complex_input_outcome_is_pytorchs(key: str) -> None:
    found = _differs(key)
    assert found is None, f"{key}: glassgrad {found[0]}, PyTorch {found[1]}"


def test_known_list_only_shrinks() -> None:
    """Every op listed as differing still differs (remove it from KNOWN once fixed)."""
    fixed = [k for k in KNOWN if k in REGISTRY and _differs(k) is None]
    assert not fixed, f"now agree with PyTorch, remove from KNOWN: {fixed}"


METHODS = {
    "x >= x": lambda x: x >= x,
    "x < 1j": lambda x: x < 1j,
    "x.lt_(1.0)": lambda x: x.lt_(1.0),
    "x // 2": lambda x: x // 2,
    "x % 2": lambda x: x % 2,
    "x.atan2_(x)": lambda x: x.atan2_(x),
    "x.floor_()": lambda x: x.floor_(),
    "x.round_()": lambda x: x.round_(),
    "x.clamp_(0, 1)": lambda x: x.clamp_(0, 1),
    "x.relu_()": lambda x: x.relu_(),
    "x.sign_()": lambda x: x.sign_(),
    "x.erf_()": lambda x: x.erf_(),
    "x.lgamma_()": lambda x: x.lgamma_(),
    "x.max(0)": lambda x: x.max(0),
    "x.sort()": lambda x: x.sort(),
    "x.cummax(0)": lambda x: x.cummax(0),
    "x.scatter_reduce_(amax)": lambda x: x.scatter_reduce_(
        0, (x.real * 0).long(), x.clone(), "amax"
    ),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_complex_methods_refused_as_pytorch(name: str) -> None:
    """In-place methods and operators on a complex tensor raise PyTorch's error."""
    caught = []
    for lib in (gg, torch):
        x = lib.tensor([1 + 2j, -0.5j], dtype=lib.complex64)
        with pytest.raises(Exception) as info:
            METHODS[name](x)
        caught.append(info.value)
    assert type(caught[0]) is type(caught[1]) and str(caught[0]) == str(caught[1]), caught


def test_complex_mean_as_pytorch() -> None:
    """mean of a complex tensor, and its gradient (PyTorch's mean accepts complex inputs)."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]]), requires_grad=True)
        m, rows = x.mean(), x.mean(1)
        (m.abs() + (rows * rows).real.sum()).backward()
        results.append([t.detach().numpy() for t in (m, rows, x.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


OUTCOMES = {
    "float_power of a complex tensor": lambda L: L.tensor([1j, 2]).float_power(2),
    "float_power by a complex number": lambda L: L.tensor([1.0, 2.0]).float_power(1j),
    "float_power_ of float32": lambda L: L.tensor([1.0, 2.0]).float_power_(2),
    "float_power_ of complex128": lambda L: L.tensor([1j, 2], dtype=L.complex128).float_power_(2),
    "float_power_ of float64 by a complex tensor": lambda L: L.tensor(
        [1.0, 2.0], dtype=L.float64
    ).float_power_(L.tensor([1j])),
    "bool tensor ** bool tensor": lambda L: L.tensor([True, False]) ** L.tensor([True, False]),
    "True ** bool tensor": lambda L: L.pow(True, L.tensor([True, False])),
    "bool tensor ** True": lambda L: L.tensor([True, False]) ** True,
    "bool tensor ** 2": lambda L: L.tensor([True, False]) ** 2,
}


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_power_dtypes_as_pytorch(name: str) -> None:
    """The same values and dtype, or the same error, as PyTorch."""
    outcomes = []
    for lib in (gg, torch):
        try:
            result = OUTCOMES[name](lib)
            outcomes.append(
                (np.round(result.numpy(), 12).tolist(), str(result.dtype).split(".")[-1])
            )
        except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("dtype", ["complex128", "complex64", "int64", "bool", "float16"])
def test_embedding_bag_weight_dtypes_as_pytorch(dtype: str) -> None:
    """embedding_bag takes half, float and double weights only; PyTorch's message names the
    others by their CPU type (complex, bool) or legacy tensor type."""
    outcomes = []
    for lib in (gg, torch):
        weight = lib.ones(3, 2, dtype=getattr(lib, dtype))
        try:
            bags = lib.nn.functional.embedding_bag(lib.tensor([0, 1]), weight, lib.tensor([0]))
            outcomes.append(bags.tolist())
        except RuntimeError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]
