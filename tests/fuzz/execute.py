"""Run a fuzz program under one library (glassgrad or PyTorch) and record what it does."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .skips import PYTORCH_SILENT_BUGS

# What a tensor looked like: values, dtype name, shape, requires_grad, is_leaf (each flag
# may be an Error when reading it raised, as reading a stale view's grad_fn can).
Observation = tuple


@dataclass(frozen=True)
class Error:
    """An exception, by its builtin base class (PyTorch's own subclasses of RuntimeError,
    such as ``torch.linalg.LinAlgError``, count as RuntimeError) and message."""

    kind: str
    message: str

    @staticmethod
    def of(exc: BaseException) -> Error:
        for klass in type(exc).__mro__:
            if klass.__module__ == "builtins":
                return Error(klass.__name__, str(exc).split("\n")[0][:300])
        return Error(type(exc).__name__, str(exc)[:300])


@dataclass
class Trace:
    """Everything a program did under one library."""

    steps: list = field(default_factory=list)  # per statement: (Error | None, {name: obs})
    # per statement: {name: the first variable bound to the same tensor} (x.add_() returns x)
    aliases: list = field(default_factory=list)
    hooks: dict = field(default_factory=dict)  # hook name -> [(phase, gradient seen)]
    phases: dict = field(default_factory=dict)  # "backward"/"grad"/"gradgrad" -> outcome


class _HookLog:
    """The ``hook(name)`` and ``grad_hook(name)`` factories programs use to watch gradients."""

    def __init__(self, log: dict) -> None:
        self.log = log
        self.phase = "program"  # which part of the run a call belongs to

    def hook(self, name: str) -> Any:
        def record(grad: Any) -> None:
            self.log.setdefault(name, []).append((self.phase, _value(grad)))

        return record

    def grad_hook(self, name: str) -> Any:
        def record(tensor: Any) -> None:
            self.log.setdefault(name, []).append((self.phase, _value(tensor.grad)))

        return record


def _value(t: Any) -> Any:
    if t is None:
        return None
    return np.array(t.detach().numpy(force=True), copy=True)


def _is_tensor(lib: Any, value: Any) -> bool:
    return isinstance(value, lib.Tensor)


def _flag(t: Any, name: str) -> Any:
    try:
        return bool(getattr(t, name))
    except Exception as exc:  # a stale view made in no_grad mode raises on access
        return Error.of(exc)


def observe(lib: Any, value: Any) -> Observation:
    """A tensor's values, dtype, shape and autograd flags; other values as they are."""
    if not _is_tensor(lib, value):
        return ("value", value if isinstance(value, (int, float, bool, str)) else repr(value))
    return (
        _value(value),
        str(value.dtype).split(".")[-1],
        tuple(value.shape),
        _flag(value, "requires_grad"),
        _flag(value, "is_leaf"),
    )


def _tensors(lib: Any, namespace: dict) -> dict:
    """The program's variables (``v0``, ``v1`` ...) that hold tensors, in creation order."""
    names = [n for n in namespace if n[:1] == "v" and n[1:].isdigit()]
    names.sort(key=lambda n: int(n[1:]))
    return {n: namespace[n] for n in names if _is_tensor(lib, namespace[n])}


def run(statements: list[str], lib: Any, seed: int, default_dtype: str = "float32") -> Trace:
    """Run ``statements`` with ``torch`` bound to ``lib``, then differentiate a weighted sum
    of every float variable that requires grad: ``backward``, ``autograd.grad`` with
    ``create_graph`` and a second ``autograd.grad`` (weights drawn from ``seed``).
    ``default_dtype``: the library's default floating dtype meanwhile."""
    trace = Trace()
    log = _HookLog(trace.hooks)
    namespace: dict = {"torch": lib, "hook": log.hook, "grad_hook": log.grad_hook}
    before = lib.get_default_dtype()
    lib.set_default_dtype(getattr(lib, default_dtype))
    try:
        _run(statements, lib, seed, trace, log, namespace)
    finally:
        lib.set_default_dtype(before)
    return trace


def _run(
    statements: list[str], lib: Any, seed: int, trace: Trace, log: _HookLog, namespace: dict
) -> None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for statement in statements:
            try:
                exec(compile(statement, "<fuzz program>", "exec"), namespace)
                error = None
            except Exception as exc:
                error = Error.of(exc)
            tensors = _tensors(lib, namespace)
            trace.steps.append((error, {n: observe(lib, t) for n, t in tensors.items()}))
            trace.aliases.append(_aliases(tensors))
        _differentiate(lib, _tensors(lib, namespace), seed, trace, log)


def _differentiable(lib: Any, t: Any) -> bool:
    try:
        return t.dtype in (lib.float32, lib.float64) and bool(t.requires_grad)
    except Exception:
        return False


def _differentiate(lib: Any, tensors: dict, seed: int, trace: Trace, log: _HookLog) -> None:
    names = [n for n, t in tensors.items() if _differentiable(lib, t)]
    if not names:
        return
    rng = np.random.default_rng(seed)
    try:
        loss = None
        for n in names:
            t = tensors[n]
            weight = lib.tensor(rng.standard_normal(tuple(t.shape)), dtype=t.dtype)
            term = (t * weight).sum()
            loss = term if loss is None else loss + term
    except Exception as exc:
        trace.phases["loss"] = Error.of(exc)
        return
    leaves = [n for n in names if _flag(tensors[n], "is_leaf") is True]
    if lib.__name__ == "torch":
        bug = pytorch_silent_bug(loss.grad_fn, "backward")
        if bug is not None:
            trace.phases["backward"] = Error("PyTorchBug", bug)
            return
    log.phase = "backward"
    try:
        loss.backward(retain_graph=True)
        trace.phases["backward"] = {n: _value(t.grad) for n, t in tensors.items()}
    except Exception as exc:
        trace.phases["backward"] = Error.of(exc)
    if not leaves:
        return
    inputs = [tensors[n] for n in leaves]
    log.phase = "grad"
    try:
        first = lib.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
        trace.phases["grad"] = [_value(g) for g in first]
        # Which first derivatives are themselves differentiable (PyTorch's double-backward
        # graph decides it): compared as a phase of its own.
        trace.phases["grad requires_grad"] = [g is not None and g.requires_grad for g in first]
    except Exception as exc:
        trace.phases["grad"] = Error.of(exc)
        return
    try:
        total = None
        for g, x in zip(first, inputs):
            weight = rng.standard_normal(tuple(x.shape))  # drawn for every input, used or not
            if g is not None and g.requires_grad:
                term = (g * lib.tensor(weight, dtype=g.dtype)).sum()
                total = term if total is None else total + term
        if total is None:
            return
        if lib.__name__ == "torch":
            bug = pytorch_silent_bug(loss.grad_fn, "gradgrad")
            if bug is not None:
                trace.phases["gradgrad"] = Error("PyTorchBug", bug)
                return
        log.phase = "gradgrad"
        second = lib.autograd.grad(total, inputs, allow_unused=True)
        trace.phases["gradgrad"] = [_value(g) for g in second]
    except Exception as exc:
        trace.phases["gradgrad"] = Error.of(exc)


def _aliases(tensors: dict) -> dict:
    """Each variable bound to the same tensor as an earlier one, with that earlier name."""
    first: dict = {}
    aliases = {}
    for name, t in tensors.items():
        earliest = first.setdefault(id(t), name)
        if earliest != name:
            aliases[name] = earliest
    return aliases


def replay(statement: str, before: dict, lib: Any, aliases: dict) -> dict | None:
    """Run one ``statement`` under ``lib`` on variables rebuilt from the observations
    ``before`` (fresh tensors with those values, dtypes and ``requires_grad``; plain values
    as they were; the names in ``aliases`` bound to the same tensor as the name they map
    to): every variable's observation after it, or None if it raised. Views and graphs are
    not rebuilt, so a statement that relies on them does not come out alike."""
    namespace: dict = {"torch": lib, "hook": lambda name: None, "grad_hook": lambda name: None}
    for name, observation in before.items():
        if name in aliases:
            namespace[name] = namespace[aliases[name]]
            continue
        if len(observation) == 2:
            namespace[name] = observation[1]
            continue
        values, dtype, _, requires_grad, is_leaf = observation
        t = lib.tensor(values, dtype=getattr(lib, dtype))
        if requires_grad is True and (t.is_floating_point() or t.is_complex()):
            # A non-leaf stays one (in-place ops refuse leaves that require grad).
            t = t.requires_grad_() if is_leaf is True else t.requires_grad_().clone()
        namespace[name] = t
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            exec(compile(statement, "<fuzz program>", "exec"), namespace)
        except Exception:
            return None
    return {n: observe(lib, t) for n, t in _tensors(lib, namespace).items()}


def _holds(test: Any, node: Any) -> bool:
    """``test`` of a PyTorch node; one whose saved tensor was changed in place since cannot
    be read (the backward raises that error itself, in both libraries: seed 907491)."""
    try:
        return test(node)
    except RuntimeError:
        return False


def pytorch_silent_bug(root: Any, phase: str) -> str | None:
    """The name of a PyTorch bug of ``skips.PYTORCH_SILENT_BUGS`` that makes ``phase`` wrong,
    if a node of PyTorch's graph under ``root`` has it."""
    tests = [(name, test) for name, (at, test) in PYTORCH_SILENT_BUGS.items() if at == phase]
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name, test in tests:
            if _holds(test, node):
                return name
        stack.extend(n for n, _ in node.next_functions)
    return None
