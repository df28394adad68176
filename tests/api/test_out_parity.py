"""``out=`` exactly where PyTorch has it, with PyTorch's rules.

Every public function glassgrad shares with PyTorch (top level, ``nn.functional``,
``linalg``, ``special``, ``fft``) takes ``out=`` if and only if PyTorch's does, and refuses
it elsewhere with PyTorch's TypeError (naming the keyword); no Tensor method takes it (none
of PyTorch's does). What PyTorch takes is read by a real call where the op registry has a
sample to call with (PyTorch's stubs omit ``out`` for some: ``F.gelu``, ``linalg.lstsq``),
from its signatures elsewhere.

Then, for every registry function that takes ``out=``, the rules of PyTorch's out= are
compared on the same call in both libraries: an empty ``out`` is filled, a wrong-shaped one
is resized with PyTorch's deprecation warning, an ``out`` of a narrower dtype kind is
refused, an ``out`` that requires grad is refused under grad mode.
"""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY

from ..ops.test_registry import _arguments, _numpy, _samples
from . import _namespaces as ns
from ._torch_signatures import torch_overloads

NAMESPACES = ("", "nn.functional", "linalg", "special", "fft")
_REFUSED = re.compile(r"unexpected keyword argument 'out'|keywords were incorrect: out")


def _functions(namespace: str) -> list[str]:
    ours = ns.glassgrad_object(namespace)
    return [
        name
        for name in ns.glassgrad_public_names(namespace)
        if not inspect.isclass(getattr(ours, name))
    ]


CASES = [
    pytest.param(namespace, name, id=f"{namespace or 'torch'}.{name}")
    for namespace in NAMESPACES
    for name in _functions(namespace)
]


def _row(namespace: str, name: str) -> Any:
    info = REGISTRY.get(f"{namespace}.{name}" if namespace else name)
    return info if info is not None and _samples(info) else None


def _empty_outs(result: Any, lib: Any) -> Any:
    """Empty tensors of the result's structure and dtypes, or None where it has none."""
    if isinstance(result, (torch.Tensor, gg.Tensor)):
        return lib.empty(0, dtype=result.dtype)
    if isinstance(result, (tuple, list)) and result:
        outs = tuple(_empty_outs(r, lib) for r in result)
        return None if any(o is None for o in outs) else outs
    return None


def _accepts_out(lib: Any, fn: Any, info: Any) -> bool | None:
    """Whether ``fn`` takes ``out=`` on the row's first sample that it can be called with
    (None: no sample gives a tensor result)."""
    for sample in _samples(info)[:4]:
        with lib.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args, kwargs, _ = _arguments(sample, lib)
            try:
                outs = _empty_outs(fn(*args, **kwargs), lib)
            except Exception:  # noqa: BLE001 - a sample PyTorch's spelling cannot take
                continue
            if outs is None:
                continue
            try:
                fn(*args, **kwargs, out=outs)
            except TypeError as error:
                message = str(error)
                if "invalid combination" in message:  # the overloads it lists, with out or not
                    return bool(re.search(r"\bout = ", message))
                return not _REFUSED.search(message)
            except Exception:  # noqa: BLE001 - refused later than the keyword: taken
                return True
            return True
    return None


def _torch_takes_out(namespace: str, name: str) -> bool:
    info = _row(namespace, name)
    if info is not None:
        verdict = _accepts_out(torch, getattr(ns.torch_object(namespace), name), info)
        if verdict is not None:
            return verdict
    return any(p.name == "out" for overload in torch_overloads(namespace, name) for p in overload)


@pytest.mark.parametrize("namespace, name", CASES)
def test_out_is_taken_exactly_where_pytorch_takes_it(namespace: str, name: str) -> None:
    ours = getattr(ns.glassgrad_object(namespace), name)
    params = inspect.signature(ours).parameters
    expected = _torch_takes_out(namespace, name)
    label = f"{namespace or 'torch'}.{name}"
    if any(p.kind is p.VAR_KEYWORD for p in params.values()) and "out" not in params:
        with pytest.raises(TypeError, match="'out'"):
            ours(gg.ones(2), out=gg.empty(0))
        assert not expected, f"{label}: PyTorch takes out=, glassgrad refuses it"
        return
    assert ("out" in params) == expected, (
        f"{label}: PyTorch {'takes' if expected else 'refuses'} out=, glassgrad does not"
    )
    info = _row(namespace, name)
    if info is not None:  # the real call agrees with the signature
        assert _accepts_out(gg, ours, info) in (expected, None), label
    if not expected and info is not None:
        aten = f"{namespace}_{name}" if namespace in ("linalg", "special", "fft") else name
        args, kwargs, _ = _arguments(_samples(info)[0], gg)
        with pytest.raises(TypeError, match=rf"^{aten}\(\) got an unexpected keyword .*'out'"):
            ours(*args, **kwargs, out=gg.empty(0))


def test_no_tensor_method_takes_out() -> None:
    taking = []
    x = gg.ones(2)
    for name in ns.glassgrad_public_names("Tensor"):
        if isinstance(inspect.getattr_static(gg.Tensor, name), property):
            continue
        try:
            params = inspect.signature(getattr(gg.Tensor, name)).parameters
        except (TypeError, ValueError):
            continue
        if "out" in params:
            taking.append(name)
        elif any(p.kind is p.VAR_KEYWORD for p in params.values()):
            try:
                getattr(x.clone(), name)(out=gg.empty(0))
            except TypeError as error:
                if "'out'" not in str(error):
                    taking.append(f"{name}: {error}")
            else:
                taking.append(name)
    assert not taking, f"Tensor methods taking out= (PyTorch's take none): {taking}"


def test_a_method_refuses_out_as_pytorchs() -> None:
    for lib in (torch, gg):
        x = lib.ones(2, 3)
        with pytest.raises(TypeError, match="max\\(\\) got an unexpected keyword argument 'out'"):
            x.max(0, out=(lib.empty(0), lib.empty(0, dtype=lib.int64)))


# --- the rules of out= ---------------------------------------------------------------------

OUT_CASES = [
    pytest.param(namespace, name, id=f"{namespace or 'torch'}.{name}")
    for namespace, name in [(c.values[0], c.values[1]) for c in CASES]
    if _row(namespace, name) is not None
    and "out" in inspect.signature(getattr(ns.glassgrad_object(namespace), name)).parameters
]


def _outcome(lib: Any, fn: Any, args: tuple, kwargs: dict, outs: Any) -> tuple:
    """(exception type name, or None; the tensors written; whether each warning was the
    resize warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            lib.manual_seed(0)  # random ops: the same draw as the call without out
            returned = fn(*args, **kwargs, out=outs)
        except Exception as error:  # noqa: BLE001 - compared with the other library's
            return type(error).__name__, None, 0
    written = outs if isinstance(outs, tuple) else (outs,)
    returned = returned if isinstance(returned, (tuple, list)) else (returned,)
    assert all(r is w for r, w in zip(returned, written)), "the out tensors are returned"
    return None, list(written), sum("was resized" in str(w.message) for w in caught)


def _detached(value: Any) -> Any:
    if isinstance(value, list):
        return [_detached(v) for v in value]
    return value.detach() if isinstance(value, (torch.Tensor, gg.Tensor)) else value


_VARIANTS = {
    "empty": lambda lib, r: lib.empty(0, dtype=r.dtype),
    "wrong shape": lambda lib, r: lib.zeros(7, dtype=r.dtype),
    "bool": lambda lib, r: lib.empty(0, dtype=lib.bool),
    "requires grad": lambda lib, r: lib.zeros(0, dtype=r.dtype, requires_grad=True),
    "inputs require grad": lambda lib, r: lib.empty(0, dtype=r.dtype),
}


def _variant_outs(lib: Any, result: Any, variant: str) -> Any:
    results = result if isinstance(result, (tuple, list)) else (result,)
    if variant == "requires grad" and not all(r.dtype.is_floating_point for r in results):
        return None
    outs = tuple(_VARIANTS[variant](lib, r) for r in results)
    return outs if isinstance(result, (tuple, list)) else outs[0]


# Differences left, each asserted still to differ (remove an entry when it is fixed).
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


def _variant_outcome(lib: Any, namespace: str, name: str, variant: str) -> tuple | None:
    """(error type or None, the (shape, dtype) of each out written, the resize warnings) of
    the row's first sample called with the variant's out; None where it has no such out."""
    fn = getattr((ns.torch_object if lib is torch else ns.glassgrad_object)(namespace), name)
    args, kwargs, _ = _arguments(_samples(_row(namespace, name))[0], lib)
    if variant != "inputs require grad":
        args, kwargs = _detached(list(args)), {k: _detached(v) for k, v in kwargs.items()}
    with lib.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.manual_seed(0)
        result = fn(*args, **kwargs)
    outs = None if _empty_outs(result, lib) is None else _variant_outs(lib, result, variant)
    if outs is None:
        return None
    if variant in ("requires grad", "inputs require grad"):
        error, written, warned = _outcome(lib, fn, args, kwargs, outs)
    else:
        with lib.no_grad():
            error, written, warned = _outcome(lib, fn, args, kwargs, outs)
    if written is not None:  # out holds what the call without out returned
        results = result if isinstance(result, (tuple, list)) else (result,)
        for w, r in zip(written, results):
            w, r = _numpy(w), _numpy(r)
            np.testing.assert_allclose(w, r.astype(w.dtype), rtol=1e-12, atol=1e-14)
        written = [(tuple(w.shape), str(w.dtype).split(".")[-1]) for w in written]
    return error, written, warned


@pytest.mark.parametrize("namespace, name", OUT_CASES)
def test_out_rules_match_pytorch(namespace: str, name: str) -> None:
    differences, compared = [], 0
    for variant in _VARIANTS:
        theirs = _variant_outcome(torch, namespace, name, variant)
        ours = _variant_outcome(gg, namespace, name, variant)
        assert (ours is None) == (theirs is None), variant
        if theirs is None:
            continue
        compared += 1
        known = KNOWN_DIFFERENCES.get((f"{namespace or 'torch'}.{name}", variant))
        if known is not None:
            assert ours != theirs, f"fixed: remove {known!r} from KNOWN_DIFFERENCES"
        elif ours != theirs:
            differences.append(f"{variant}: glassgrad {ours}, torch {theirs}")
    assert compared, "no variant applies to the sample"
    assert not differences, "\n".join(differences)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: x.to(lib.float64, foo=1),
        lambda lib, x: lib.zeros_like(x, out=x),
        lambda lib, x: lib.rand_like(x, out=x),
        lambda lib, x: x.new_zeros(2, out=x),
        lambda lib, x: x.new_empty((2,), memory_format=lib.contiguous_format),
        lambda lib, x: lib.var(x, True, out=lib.empty(0)),
        lambda lib, x: lib.std(x, unbiased=False, out=lib.empty(0)),
    ],
)
def test_keywords_pytorch_refuses_are_refused(call: Any) -> None:
    for lib in (torch, gg):
        with pytest.raises(TypeError, match="keyword|invalid combination"):
            call(lib, lib.ones(1, 2, 3, 4))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: lib.var(x, None, True, out=lib.empty(0)),
        lambda lib, x: lib.std(x, 0, False, True, out=lib.empty(0)),
        lambda lib, x: lib.var(x, correction=0, out=lib.empty(0)),
        lambda lib, x: lib.std(x, out=lib.empty(0)),
    ],
)
def test_var_and_std_take_out_with_a_dim_or_without_unbiased(call: Any) -> None:
    shapes = [tuple(call(lib, lib.ones(2, 3)).shape) for lib in (torch, gg)]
    assert shapes[0] == shapes[1]


def test_nonzero_as_tuple_refuses_out_as_pytorch() -> None:
    for lib in (torch, gg):
        with pytest.raises(RuntimeError, match="does not support the out kwarg when as_tuple"):
            lib.nonzero(lib.ones(2), as_tuple=True, out=lib.empty(0, dtype=lib.int64))


def test_to_lays_out_in_the_memory_format_asked() -> None:
    strides = []
    for lib in (torch, gg):
        x = lib.rand(2, 3, 4, 5)
        y = x.to(memory_format=lib.channels_last)
        z = x.mT.to(lib.float64, memory_format=lib.contiguous_format)
        strides.append((y.stride(), z.stride(), z.dtype == lib.float64))
    assert strides[0] == strides[1]


def test_torch_lu_copies_into_out_as_pytorchs_python_function() -> None:
    """torch.lu's out=: each tensor resized as its result (no warning), then ``copy_`` (any
    dtype, recorded as CopyBackwards); a wrong number of outs is a TypeError."""

    def program(lib: Any) -> Any:
        a = lib.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        outs = [lib.zeros(5, dtype=lib.float32), lib.empty(0, dtype=lib.float64)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            returned = lib.lu(a, out=outs)
        resized = [w for w in caught if "resized" in str(w.message)]
        return (
            returned is outs,
            [(o.dtype, tuple(o.shape), o.detach().numpy().tolist()) for o in outs],
            type(outs[0].grad_fn).__name__,
            len(resized),
        )

    ours, theirs = program(gg), program(torch)
    assert str(ours).replace("glassgrad", "torch") == str(theirs)
    for lib in (torch, gg):
        with pytest.raises(TypeError, match="expected tuple of 3 elements but got 2"):
            lib.lu(lib.eye(2), get_infos=True, out=(lib.empty(0), lib.empty(0)))


def _out_outcome(call: Any, lib: Any) -> tuple:
    try:
        result = call(lib)
    except Exception as exc:  # compared with PyTorch's: type and message
        return (type(exc).__name__, str(exc).split("\n")[0])
    results = result if isinstance(result, tuple) else (result,)
    return ("ok", [str(r.dtype).split(".")[-1] for r in results])


@pytest.mark.parametrize("input_dtype", ["float32", "int64"])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool", "complex64"])
@pytest.mark.parametrize(
    "call",
    [
        lambda L, i, o: L.logcumsumexp(L.ones(3, dtype=i), 0, out=L.zeros(3, dtype=o)),
        lambda L, i, o: L.cummax(
            L.ones(3, dtype=i), 0, out=(L.zeros(3, dtype=o), L.zeros(3, dtype=L.int64))
        ),
        lambda L, i, o: L.cummin(
            L.ones(3, dtype=i), 0, out=(L.zeros(3, dtype=i), L.zeros(3, dtype=o))
        ),
        lambda L, i, o: L.logsumexp(L.ones(3, dtype=i), 0, out=L.zeros((), dtype=o)),
        lambda L, i, o: L.logcumsumexp(
            L.ones(3, dtype=i, requires_grad=i == L.float32), 5, out=L.zeros(3, dtype=o)
        ),
    ],
    ids=["logcumsumexp", "cummax values", "cummin indices", "logsumexp", "autograd first"],
)
def test_out_dtype_checked_before_the_kernel_as_pytorch(
    call: Any, input_dtype: str, out_dtype: str
) -> None:
    """logcumsumexp, cummax and cummin require ``out`` of exactly their result's dtype, and
    logsumexp a floating one, before computing (after the autograd refusal)."""

    def run(lib: Any) -> tuple:
        return _out_outcome(lambda L: call(L, getattr(L, input_dtype), getattr(L, out_dtype)), lib)

    (kind, ours), (expected_kind, theirs) = run(gg), run(torch)
    assert kind == expected_kind and (ours == theirs if kind == "ok" else theirs in ours)
