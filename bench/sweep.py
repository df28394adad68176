"""The op-sweep rows: every op of glassgrad's registry, forward + backward, glassgrad / PyTorch.

Where the other rows time a few workloads, this one times what a user writes anywhere: each op
of the registry (``glassgrad.ops.REGISTRY``) on a float32 sample sized to 1 and to 1,000
elements, plus the cases a registry row does not spell out (Python-scalar operands, the kinds of
indexing, views, reductions with ``dim``, in-place ops and ``setitem``: :data:`EXTRA_CASES`).

Both libraries run in this one process, through the same code: the op is called by its PyTorch
spelling (``torch.nn.functional.relu`` is looked up as ``lib.nn.functional.relu``), so glassgrad
is measured through its public API, as a user calls it.

Sizing a sample: the registry's samples are small (a 3x4 matrix, a 0-d tensor ...). For 1
element, every float array of the sample is cut to its first element (``a[:1, :1]``, the same
number of dimensions); for 1,000 elements, it is repeated along its first axis, or a batch axis
is put in front, or, for square matrices (linear algebra), it becomes a block-diagonal matrix of
about 32 x 32 (``kron(eye(k), a)``: the values stay in the op's domain, a positive-definite
matrix stays positive-definite). The first sizing whose outputs and gradients agree between the
two libraries is used; an op none of them fits keeps the registered sample closest in size (its
element count is in the table). Correctness first: a case whose values or gradients differ from
PyTorch's is INVALID and gets no ratio.

Timing (CPU time of the calling thread, see ``_clock``): a unit is one call of the op and, when
it has differentiable outputs, one backward from fixed gradients (``autograd.backward(outputs, grads)``, the leaves' ``.grad`` reset first). The
two libraries take turns, block by block (a block runs enough units to last ``block_s``), for
``rounds`` rounds, each library first in every other round; the ratio is glassgrad's median time
per unit over PyTorch's. Objects alive before the timing starts (both libraries, the cases) are
moved out of the cyclic collector's way (``gc.freeze``).

    .venv/bin/python -m bench.sweep --mode quick --out sweep.json
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import math
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.libraries import CANDIDATE, REFERENCE

SIZES = (1, 1000)
MATRIX_SIDE = 32  # a "matrix-sized" sample for linear algebra: about 32 x 32 = 1,024 elements
# Op families whose 1,000-element sample is a matrix of about MATRIX_SIDE x MATRIX_SIDE.
_MATRIX_MODULES = (
    "blas",
    "products",
    "linalg",
    "linalg_extra",
    "inverses",
    "decompositions",
    "cholesky",
    "lu",
    "ldl",
    "solvers",
    "householder",
    "matrix_functions",
)
PLANS = {
    "full": {"rounds": 3, "block_s": 0.003},
    "quick": {"rounds": 1, "block_s": 0.0},
}
# Quick mode (CI) keeps the harness alive cheaply: every QUICK_STRIDE-th op of the registry and
# every extra case, one unit per library.
QUICK_STRIDE = 12


@dataclass
class Case:
    """One timed case: ``name`` (a registry key, ``key [scalar]`` or an extra case's name),
    its float inputs' largest element count, how it was sized, and its program."""

    name: str
    elements: int
    sizing: str
    program: Callable[[Any], tuple[Callable[[], Any], list, Any]]


# --- samples as programs -----------------------------------------------------------------------


def _is_float(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


def _convert(value: Any, lib: Any, leaves: list, NoGrad: type) -> Any:
    """A sample argument as ``lib``'s: float arrays become float32 leaves that require grad."""
    if isinstance(value, NoGrad):
        return lib.tensor(value.array.astype(np.float32))
    if isinstance(value, np.generic):  # NumPy scalars stand for 0-d tensors
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            leaf = lib.tensor(value.astype(np.float32), requires_grad=True)
            leaves.append(leaf)
            return leaf
        return lib.from_numpy(value.copy())
    if isinstance(value, list):
        return [_convert(v, lib, leaves, NoGrad) for v in value]
    return value


def _resolve(info: Any, lib: Any) -> Callable:
    """The op as ``lib`` spells it (the registry's PyTorch spelling, looked up on ``lib``)."""
    if callable(info.torch):
        return lambda *args, **kwargs: info.torch(lib, *args, **kwargs)
    target: Any = lib
    for part in info.torch.split(".")[1:]:
        target = getattr(target, part, None)
        if target is None:  # a Tensor method only (view, expand ...)
            return lambda first, *args, **kwargs: getattr(first, info.name)(*args, **kwargs)
    return target


def _registry_program(info: Any, args: tuple, kwargs: dict, NoGrad: type) -> Callable:
    def program(lib: Any) -> tuple[Callable[[], Any], list, Any]:
        leaves: list = []
        call_args = tuple(_convert(a, lib, leaves, NoGrad) for a in args)
        call_kwargs = {k: _convert(v, lib, leaves, NoGrad) for k, v in kwargs.items()}
        function = _resolve(info, lib)
        return (lambda: function(*call_args, **call_kwargs)), leaves, None

    return program


def _float_arrays(args: tuple, kwargs: dict, NoGrad: type) -> list[np.ndarray]:
    found: list[np.ndarray] = []

    def visit(value: Any) -> None:
        if isinstance(value, NoGrad):
            value = value.array
        if isinstance(value, list):
            for v in value:
                visit(v)
        elif _is_float(value):
            found.append(value)

    for value in (*args, *kwargs.values()):
        visit(value)
    return found


def _map_floats(args: tuple, kwargs: dict, fn: Callable, NoGrad: type, first_only: bool) -> tuple:
    """``args, kwargs`` with ``fn`` applied to their float arrays (to the first one only)."""
    done = [False]

    def mapped(value: Any) -> Any:
        if isinstance(value, NoGrad):
            return NoGrad(mapped(value.array))
        if isinstance(value, list):
            return [mapped(v) for v in value]
        if _is_float(value) and not (first_only and done[0]):
            done[0] = True
            return fn(value)
        return value

    return tuple(mapped(a) for a in args), {k: mapped(v) for k, v in kwargs.items()}


def _first_element(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a[(slice(0, 1),) * a.ndim])


def _repeat_rows(target: int) -> Callable:
    def fn(a: np.ndarray) -> np.ndarray:
        if a.ndim == 0 or a.size == 0:
            return a
        return np.concatenate([a] * max(1, math.ceil(target / a.size)), axis=0)

    return fn


def _batch(target: int) -> Callable:
    def fn(a: np.ndarray) -> np.ndarray:
        if a.size == 0:
            return a
        k = max(1, math.ceil(target / a.size))
        return np.ascontiguousarray(np.broadcast_to(a, (k, *a.shape)))

    return fn


def _block_diagonal(a: np.ndarray) -> np.ndarray:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] == 0:
        return a
    k = max(1, round(MATRIX_SIDE / a.shape[-1]))
    return np.kron(np.eye(k), a)


def _sizings(info: Any, target: int) -> list[tuple[str, Callable, bool]]:
    """How to bring a sample to ``target`` elements, in the order they are tried."""
    if target == 1:
        return [("first element", _first_element, False)]
    sizings = [
        ("rows repeated", _repeat_rows(target), False),
        ("rows of the first input repeated", _repeat_rows(target), True),
        ("batch axis", _batch(target), False),
    ]
    module = getattr(info.function, "__module__", "") or ""
    if module.rsplit(".", 1)[-1] in _MATRIX_MODULES or info.namespace == "linalg":
        sizings.insert(0, ("block-diagonal matrix", _block_diagonal, False))
    return sizings


# --- checking a case against PyTorch -----------------------------------------------------------


def _outputs(result: Any) -> list:
    items = result if isinstance(result, (tuple, list)) else [result]
    return [r for r in items if hasattr(r, "shape") and hasattr(r, "requires_grad")]


def _differentiable(outputs: list) -> list[int]:
    return [
        i
        for i, o in enumerate(outputs)
        if o.requires_grad and o.dtype.is_floating_point and o.numel()
    ]


def _numpy(t: Any) -> np.ndarray:
    if hasattr(t, "resolve_conj"):  # PyTorch: a lazily conjugated or zero tensor
        return t.detach().numpy(force=True)
    return np.asarray(t.detach().numpy())


def _agree(ours: np.ndarray, theirs: np.ndarray) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if ours.dtype.kind not in "fc":
        return bool(np.array_equal(ours, theirs))
    scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0.0)))
    return bool(np.allclose(ours, theirs, rtol=1e-3, atol=1e-4 * scale, equal_nan=True))


def _prepare(case: Case, lib: Any) -> Callable[[], None]:
    """The case's timed unit in ``lib``; first checks that the op runs there."""
    call, leaves, _ = case.program(lib)
    outputs = _outputs(call())
    wanted = _differentiable(outputs)
    grads = [lib.ones_like(outputs[i]) for i in wanted]
    backward = lib.autograd.backward

    if not wanted:
        return call

    def unit() -> None:
        for leaf in leaves:
            leaf.grad = None
        items = _outputs(call())
        backward([items[i] for i in wanted], grads)

    return unit


def _results(case: Case, lib: Any) -> list[np.ndarray]:
    """Outputs and leaf gradients of one run of the case in ``lib``, as arrays."""
    call, leaves, _ = case.program(lib)
    outputs = _outputs(call())
    wanted = _differentiable(outputs)
    arrays = [_numpy(o) for o in outputs]
    if wanted:
        lib.autograd.backward(
            [outputs[i] for i in wanted], [lib.ones_like(outputs[i]) for i in wanted]
        )
        arrays += [_numpy(leaf.grad) if leaf.grad is not None else None for leaf in leaves]
    return arrays


def check(case: Case, ours: Any, theirs: Any) -> str | None:
    """None when the case gives PyTorch's outputs and gradients in glassgrad, else why not."""
    try:
        expected = _results(case, theirs)
    except Exception as error:
        return f"PyTorch: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
    try:
        got = _results(case, ours)
    except Exception as error:
        return f"glassgrad: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
    if len(got) != len(expected):
        return f"{len(got)} outputs and gradients, PyTorch {len(expected)}"
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        if (a is None) != (b is None) or (a is not None and not _agree(a, b)):
            return f"output or gradient {i} differs from PyTorch's"
    return None


# --- the cases ---------------------------------------------------------------------------------


def registry_cases(
    ours: Any, theirs: Any, target: int, keys: list[str] | None = None
) -> tuple[list[Case], dict[str, str]]:
    """One case per registry op (and one more for an op with a Python-scalar sample), sized to
    ``target`` elements; ops left out, with why."""
    registry_module = importlib.import_module("glassgrad.ops._registry")
    REGISTRY, NoGrad = registry_module.REGISTRY, registry_module.NoGrad
    cases: list[Case] = []
    left_out: dict[str, str] = {}
    for key in keys if keys is not None else sorted(REGISTRY):
        info = REGISTRY[key]
        rng = np.random.default_rng(zlib.crc32(info.name.encode()))
        samples = [
            s
            for s in (info.samples(rng) if info.samples else [])
            if _float_arrays(s.args, s.kwargs, NoGrad)
        ]
        if not samples:
            left_out[key] = "no float sample"
            continue
        scalar = [s for s in samples if _scalar_operand(info, s)]
        for name, group in ((key, samples), (f"{key} [scalar]", scalar[:1])):
            if group:
                case, why = _sized_case(info, name, group, target, ours, theirs, NoGrad)
                if case is None:
                    left_out[name] = why
                else:
                    cases.append(case)
    return cases, left_out


def _scalar_operand(info: Any, sample: Any) -> bool:
    """Whether a sample has a Python number as an operand (not a ``dim`` or a size): a float
    anywhere after the first argument, or an int given to an elementwise op."""
    module = (getattr(info.function, "__module__", "") or "").rsplit(".", 1)[-1]
    elementwise = module.startswith(("pointwise", "comparison", "special"))
    return any(type(a) is float or (type(a) is int and elementwise) for a in sample.args[1:])


def _sized_case(
    info: Any,
    name: str,
    samples: list,
    target: int,
    ours: Any,
    theirs: Any,
    NoGrad: type,
) -> tuple[Case | None, str]:
    first_error = ""
    for sizing, fn, first_only in _sizings(info, target):
        for sample in samples[:3]:
            args, kwargs = _map_floats(sample.args, sample.kwargs, fn, NoGrad, first_only)
            if not _keeps_sorted(info, sample, args, kwargs, NoGrad):
                continue
            elements = max(a.size for a in _float_arrays(args, kwargs, NoGrad))
            if not (target / 2 <= elements <= 2 * target + 64):
                continue
            case = Case(name, elements, sizing, _registry_program(info, args, kwargs, NoGrad))
            why = check(case, ours, theirs)
            if why is None:
                return case, ""
            first_error = first_error or why
    # None of the sizings fits the op: its registered sample closest in size.
    closest = sorted(
        samples,
        key=lambda s: abs(
            math.log(max(1, max(a.size for a in _float_arrays(s.args, s.kwargs, NoGrad))) / target)
        ),
    )
    for sample in closest:
        elements = max(a.size for a in _float_arrays(sample.args, sample.kwargs, NoGrad))
        case = Case(
            name,
            elements,
            "as registered",
            _registry_program(info, sample.args, sample.kwargs, NoGrad),
        )
        why = check(case, ours, theirs)
        if why is None:
            return case, ""
        first_error = first_error or why
    return None, first_error


# Ops whose inputs must be sorted but are not checked (the result is undefined otherwise, and
# both libraries then take their slowest path): their sizings must keep sorted vectors sorted.
_SORTED_INPUTS = ("bucketize", "searchsorted")


def _sorted_vector(a: np.ndarray) -> bool:
    return a.ndim == 1 and a.size >= 2 and bool(np.all(a[1:] >= a[:-1]))


def _keeps_sorted(info: Any, sample: Any, args: tuple, kwargs: dict, NoGrad: type) -> bool:
    """Whether a sizing leaves every sorted vector of the sample sorted, for the ops of
    ``_SORTED_INPUTS``: repeated, ``bucketize``'s boundaries ``[-1, 0, 1]`` would become
    ``[-1, 0, 1, -1, 0, 1, ...]``, an input no user gives it."""
    if info.name not in _SORTED_INPUTS:
        return True
    before = _float_arrays(sample.args, sample.kwargs, NoGrad)
    after = _float_arrays(args, kwargs, NoGrad)
    return all(
        not _sorted_vector(a) or _sorted_vector(b) for a, b in zip(before, after, strict=True)
    )


def _extra(name: str, shapes: Callable[[int], list[tuple]], body: Callable) -> Callable:
    """An extra case: ``body(lib, *tensors)`` on float leaves of ``shapes(target)``; a shape
    given as ``("mask", shape)`` / ``("index", shape, high)`` is a bool mask / int64 index."""

    def make(target: int) -> Case:
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        arrays: list[Any] = []
        for shape in shapes(target):
            if shape and shape[0] == "mask":
                arrays.append(("mask", rng.random(shape[1]) < 0.5))
            elif shape and shape[0] == "index":
                arrays.append(("index", rng.integers(0, shape[2], size=shape[1])))
            else:
                arrays.append(rng.standard_normal(shape).astype(np.float32))
        elements = max(a.size for a in arrays if isinstance(a, np.ndarray))

        def program(lib: Any) -> tuple[Callable[[], Any], list, Any]:
            leaves, tensors = [], []
            for a in arrays:
                if isinstance(a, tuple):
                    tensors.append(lib.from_numpy(a[1].copy()))
                else:
                    leaf = lib.tensor(a, requires_grad=True)
                    leaves.append(leaf)
                    tensors.append(leaf)
            return (lambda: body(lib, *tensors)), leaves, None

        return Case(name, elements, "written for the sweep", program)

    return make


def _vector(target: int) -> list[tuple]:
    return [(target,)]


def _matrix(target: int) -> list[tuple]:
    return [(1, 1)] if target == 1 else [(40, 25)]


def _two_vectors(target: int) -> list[tuple]:
    return [(target,), (target,)]


def _setitem(key: Callable) -> Callable:
    def body(lib: Any, x: Any, *rest: Any) -> Any:
        y = x.clone()
        y[key(rest)] = 0.5
        return y

    return body


def _inplace(method: str, *args: Any) -> Callable:
    def body(lib: Any, x: Any, *rest: Any) -> Any:
        y = x.clone()
        getattr(y, method)(*(rest or args))
        return y

    return body


# What a user writes that a registry row does not spell out. Names say what runs.
EXTRA_CASES = [
    _extra("x * 1.0001", _vector, lambda lib, x: x * 1.0001),
    _extra("x + 0.1", _vector, lambda lib, x: x + 0.1),
    _extra("1.0 - x", _vector, lambda lib, x: 1.0 - x),
    _extra("x / 3", _vector, lambda lib, x: x / 3),
    _extra("x ** 2", _vector, lambda lib, x: x**2),
    _extra("x * a", _two_vectors, lambda lib, x, a: x * a),
    _extra("x[0]", _vector, lambda lib, x: x[0]),
    _extra("x[1:]", lambda n: [(max(n, 2),)], lambda lib, x: x[1:]),
    _extra("x[:, 0]", _matrix, lambda lib, x: x[:, 0]),
    _extra("x[0, 1:]", lambda n: [(2, 2)] if n == 1 else [(25, 40)], lambda lib, x: x[0, 1:]),
    _extra("x[..., None]", _vector, lambda lib, x: x[..., None]),
    _extra("x[mask]", lambda n: [(n,), ("mask", (n,))], lambda lib, x, m: x[m]),
    _extra("x[index]", lambda n: [(n,), ("index", (n,), n)], lambda lib, x, i: x[i]),
    _extra(
        "x.view(1, 1)",
        lambda n: [(1,)] if n == 1 else [(1000,)],
        lambda lib, x: x.view(1, 1) if x.numel() == 1 else x.view(40, 25),
    ),  # fmt: skip
    _extra("x.view(-1)", _matrix, lambda lib, x: x.view(-1)),
    _extra("x.reshape(-1, 1)", _vector, lambda lib, x: x.reshape(-1, 1)),
    _extra("x.unsqueeze(0)", _vector, lambda lib, x: x.unsqueeze(0)),
    _extra("x.t()", _matrix, lambda lib, x: x.t()),
    _extra("x.sum()", _vector, lambda lib, x: x.sum()),
    _extra("x.sum(0)", _matrix, lambda lib, x: x.sum(0)),
    _extra("x.mean(-1, keepdim=True)", _matrix, lambda lib, x: x.mean(-1, keepdim=True)),
    _extra("x.max(dim=0)", _matrix, lambda lib, x: x.max(dim=0)),
    _extra("relu(x)", _vector, lambda lib, x: lib.relu(x)),
    _extra("x.relu()", _vector, lambda lib, x: x.relu()),
    _extra("x.exp()", _vector, lambda lib, x: x.exp()),
    _extra("y[0] = 0.5", _vector, _setitem(lambda rest: 0)),
    _extra("y[mask] = 0.5", lambda n: [(n,), ("mask", (n,))], _setitem(lambda rest: rest[0])),
    _extra("y[index] = 0.5", lambda n: [(n,), ("index", (n,), n)], _setitem(lambda rest: rest[0])),
    _extra("y.mul_(2.0)", _vector, _inplace("mul_", 2.0)),
    _extra("y.add_(a)", _two_vectors, _inplace("add_")),
    _extra("y.relu_()", _vector, _inplace("relu_")),
    _extra("y.zero_()", _vector, _inplace("zero_")),
]


# --- timing ------------------------------------------------------------------------------------

# CPU time of this thread: a block of a few milliseconds is short enough for the wall clock to
# count a whole time slice given to another process on a busy machine (a 3 ms block that waits
# 20 ms reads 7x slower), which the thread's CPU time does not. At 1 and 1,000 elements both
# libraries compute on the calling thread (PyTorch splits elementwise work across threads only
# from 32,768 elements), so nothing of either is left out.
_clock = time.thread_time


def time_case(case: Case, ours: Any, theirs: Any, plan: dict[str, float]) -> dict[str, Any]:
    """Seconds per unit of each library: blocks of units, taking turns (see the module)."""
    units = {CANDIDATE: _prepare(case, ours), REFERENCE: _prepare(case, theirs)}
    for unit in units.values():  # warm-up: first calls fill caches in both libraries
        unit()
    start = _clock()
    units[REFERENCE]()
    reference_s = _clock() - start
    per_block = max(1, math.ceil(plan["block_s"] / max(reference_s, 1e-7)))
    times: dict[str, list[float]] = {CANDIDATE: [], REFERENCE: []}
    for round_index in range(int(plan["rounds"])):
        order = (CANDIDATE, REFERENCE) if round_index % 2 == 0 else (REFERENCE, CANDIDATE)
        for library in order:
            unit = units[library]
            begin = _clock()
            for _ in range(per_block):
                unit()
            times[library].append((_clock() - begin) / per_block)
    ours_s, theirs_s = statistics.median(times[CANDIDATE]), statistics.median(times[REFERENCE])
    return {
        "name": case.name,
        "elements": case.elements,
        "sizing": case.sizing,
        "glassgrad_s": ours_s,
        "torch_s": theirs_s,
        "ratio": ours_s / theirs_s,
        "units_per_block": per_block,
    }


def _one_thread(torch: Any) -> None:
    """Both libraries on one thread (PyTorch's intra-op pool, NumPy's BLAS). At 1 and 1,000
    elements neither gains from threads, and on a busy machine a pool's workers wait for CPU
    while the calling thread spins at their barrier: its CPU time then counts their wait."""
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # NumPy's BLAS keeps its threads; the products are small
        return
    threadpool_limits(1)


def distribution(ratios: list[float]) -> dict[str, float]:
    """Median, 90th percentile (nearest rank) and maximum of the cases' ratios.

    Example
    -------
    >>> distribution([1.0, 2.0, 3.0])["median"]
    2.0
    """
    ordered = sorted(ratios)
    p90 = ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]
    return {"median": statistics.median(ordered), "p90": p90, "max": ordered[-1]}


def run(candidate: str, mode: str, sizes: tuple[int, ...] = SIZES) -> dict[str, Any]:
    """Every size's cases checked and timed: ``{"sizes": {"1": {...}, "1000": {...}}}``."""
    ours = importlib.import_module(candidate)
    theirs = importlib.import_module(REFERENCE)
    _one_thread(theirs)
    plan = PLANS[mode]
    report: dict[str, Any] = {"status": "ok", "mode": mode, "plan": plan, "sizes": {}}
    registry = importlib.import_module("glassgrad.ops._registry").REGISTRY
    # once, as the tests do (a catch_warnings per call would cost both libraries ~3 us)
    importlib.import_module("glassgrad.ops._samples").silence_oracle_warnings()
    keys = sorted(registry)
    if mode == "quick":
        keys = keys[::QUICK_STRIDE]
    for target in sizes:
        began = time.perf_counter()
        cases, left_out = registry_cases(ours, theirs, target, keys)
        invalid: dict[str, str] = {}
        for make in EXTRA_CASES:
            case = make(target)
            why = check(case, ours, theirs)
            if why is None:
                cases.append(case)
            else:
                invalid[case.name] = why
        timed = []
        # Both libraries' modules, the cases and their inputs stay alive for the whole run:
        # out of the collector's way, so that a collection costs what it costs a user's
        # program, not a walk over two imported libraries (and no collection per case).
        gc.collect()
        gc.freeze()
        for case in cases:
            print(f"  [op sweep {target}] {case.name}", file=sys.stderr, flush=True)
            try:
                timed.append(time_case(case, ours, theirs, plan))
            except Exception as error:
                invalid[case.name] = f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"
        timed.sort(key=lambda r: r["ratio"], reverse=True)
        report["sizes"][str(target)] = {
            "cases": timed,
            "left_out": left_out,
            "invalid": invalid,
            "registry_ops": len(keys),
            "distribution": distribution([r["ratio"] for r in timed]) if timed else None,
            "seconds": round(time.perf_counter() - began, 1),
        }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sweep", description=__doc__)
    parser.add_argument("--mode", choices=sorted(PLANS), default="quick")
    parser.add_argument("--candidate", default=CANDIDATE)
    parser.add_argument("--out", required=True, help="path of the JSON file to write")
    parser.add_argument(
        "--sizes", default=",".join(map(str, SIZES)), help="element counts, comma-separated"
    )
    args = parser.parse_args(argv)
    try:
        report = run(args.candidate, args.mode, tuple(int(n) for n in args.sizes.split(",")))
    except Exception as error:
        report = {"status": "unavailable", "error": f"{type(error).__name__}: {error}"}
    with open(args.out, "w") as handle:
        json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
