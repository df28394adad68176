"""The ``dtype=`` and ``out=`` of reductions and scans against PyTorch, over a grid of input
dtypes, dtypes asked and ``out`` dtypes: the dtype computed in (PyTorch casts the input to the
dtype asked, or to ``out``'s, first: ``sum(x, 0, out=long)`` sums truncated values), the
result's dtype (int32 stays int32, bool sums and products are bool), and the errors (a
``dtype`` that ``out`` lacks, kernels without a bool case, means that are not floating)."""

from __future__ import annotations

import inspect
import itertools
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY

from .test_registry import _arguments, _call, _numpy, _outputs, _samples

_INPUTS = {
    "float32": [0.5, 0.5, 1.5, float("nan")],  # truncated before summing, not after
    "float64": [1.5, 2.0, 0.0, -1.0],
    "int32": [1, 2, 0, 3],
    "bool": [True, True, False, True],
    "complex64": [1 + 1j, 2, 0, 1j],
}
_DTYPES = [None, "bool", "int32", "float16", "float64", "complex64"]


def _outcome(lib: Any, op: str, x: list, dtype_in: str, dtype: Any, out: Any) -> tuple:
    kwargs = {}
    if dtype is not None:
        kwargs["dtype"] = getattr(lib, dtype)
    if out is not None:
        kwargs["out"] = lib.empty(0, dtype=getattr(lib, out))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = getattr(lib, op)(lib.tensor(x, dtype=getattr(lib, dtype_in)), 0, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type and message are compared
        return type(error).__name__, str(error).split("\n")[0]
    values = result.numpy().astype(np.complex128)
    return "computes", str(result.dtype).split(".")[-1], tuple(result.shape), values


@pytest.mark.parametrize("op", ["sum", "prod", "cumsum", "cumprod", "nansum", "nanmean", "mean"])
def test_dtype_and_out_dtype_as_pytorch(op: str) -> None:
    differences = []
    for (name, x), dtype, out in itertools.product(_INPUTS.items(), _DTYPES, _DTYPES):
        ours = _outcome(gg, op, x, name, dtype, out)
        theirs = _outcome(torch, op, x, name, dtype, out)
        same = ours[:-1] == theirs[:-1] if ours[0] == "computes" else ours == theirs
        if same and ours[0] == "computes":
            same = np.allclose(ours[-1], theirs[-1], rtol=1e-3, equal_nan=True)
        if not same:
            differences.append(f"{op}({name}, dtype={dtype}, out={out}): {ours} != {theirs}")
    assert not differences, "\n".join(differences[:10])


def _takes_dtype(key: str) -> bool:
    try:
        return "dtype" in inspect.signature(REGISTRY[key].function).parameters
    except (TypeError, ValueError):
        return False


def _sample_outcome(key: str, lib: Any, dtype: str) -> tuple:
    args, kwargs, _ = _arguments(_samples(REGISTRY[key])[0], lib)
    args = tuple(a.detach() if hasattr(a, "detach") else a for a in args)
    kwargs = {k: v.detach() if hasattr(v, "detach") else v for k, v in kwargs.items()}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            results = _outputs(
                _call(REGISTRY[key], lib, args, {**kwargs, "dtype": getattr(lib, dtype)})
            )
    except Exception as error:  # noqa: BLE001 - the type is compared
        return (type(error).__name__,)
    return (
        "computes",
        *((str(r.dtype).split(".")[-1], _numpy(r).astype(np.complex128)) for r in results),
    )


@pytest.mark.parametrize(
    "key", [k for k in sorted(REGISTRY) if _takes_dtype(k) and _samples(REGISTRY[k])]
)
def test_every_dtype_argument_as_pytorch(key: str) -> None:
    """Each registry function taking ``dtype=``, on its first sample, with a wider float, an
    integer, bool, complex and a narrower float dtype: PyTorch's result dtype and values, or
    its refusal (an ignored ``dtype``, a narrowing one, one an overload lacks)."""
    for dtype in ("float64", "int32", "bool", "complex64", "float16"):
        ours, theirs = _sample_outcome(key, gg, dtype), _sample_outcome(key, torch, dtype)
        assert len(ours) == len(theirs) and ours[0] == theirs[0], (dtype, ours, theirs)
        for (our_dtype, a), (their_dtype, b) in zip(ours[1:], theirs[1:]):
            assert our_dtype == their_dtype, dtype
            np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4, equal_nan=True)
