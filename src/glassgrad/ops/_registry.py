"""The op registry: one row per public op, read by the parity tests and the docs.

A row names the op, its function, its Node class, the Tensor methods it provides, and a
sampler of inputs. Tests generate, from each row, the comparison with PyTorch (values,
gradients, second derivatives) and finite-difference gradchecks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["Sample", "NoGrad", "OpInfo", "REGISTRY", "register"]


class NoGrad:
    """A floating tensor argument of a sample that does not require grad."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


class Sample:
    """One call of an op: ndarray arguments become tensors (float ones require grad).

    ``grad`` / ``gradgrad``: whether first / second derivatives are compared (False at kinks
    or for discrete ops); ``fd``: whether finite differences apply (False at a kink, e.g. ties
    of max).
    """

    __slots__ = ("args", "kwargs", "grad", "gradgrad", "fd", "note")

    def __init__(
        self,
        args: tuple,
        kwargs: dict | None = None,
        grad: bool = True,
        gradgrad: bool = True,
        fd: bool = True,
        note: str = "",
    ) -> None:
        self.args = args
        self.kwargs = {} if kwargs is None else kwargs
        self.grad, self.gradgrad, self.fd, self.note = grad, gradgrad, fd, note

    def __repr__(self) -> str:
        return f"Sample({self.args!r}, {self.kwargs!r}{', ' + self.note if self.note else ''})"


class OpInfo:
    """A registry row: the op's name, function, Node classes, Tensor methods, samples, how
    PyTorch spells it (a dotted path under torch, or ``f(torch, *args, **kw)``), whether it is
    differentiable (to second order), its namespace ("" is ``glassgrad.X``; also
    "nn.functional", "linalg"), the forward tolerances, and ``gauge``: for ops whose results
    are unique only up to sign (singular and eigen vectors), a function of the results,
    written with Tensor methods both libraries have, giving the quantities tests compare."""

    __slots__ = (
        "name",
        "function",
        "nodes",
        "methods",
        "samples",
        "torch",
        "differentiable",
        "second_order",
        "namespace",
        "atol",
        "rtol",
        "gauge",
    )

    def __init__(
        self,
        name: str,
        function: Callable,
        nodes: tuple = (),
        methods: tuple = (),
        samples: Callable[[np.random.Generator], Iterable[Sample]] | None = None,
        torch: str | Callable | None = None,
        differentiable: bool = True,
        second_order: bool = True,
        namespace: str = "",
        atol: float = 1e-10,
        rtol: float = 1e-8,
        gauge: Callable | None = None,
    ) -> None:
        self.name, self.function, self.nodes, self.methods = name, function, nodes, methods
        self.samples, self.torch = samples, torch
        self.differentiable, self.second_order = differentiable, second_order
        self.namespace, self.atol, self.rtol = namespace, atol, rtol
        self.gauge = gauge


REGISTRY: dict[str, OpInfo] = {}


def register(
    name: str,
    function: Callable,
    *,
    nodes: tuple = (),
    methods: tuple | None = None,
    samples: Callable[[np.random.Generator], Iterable[Sample]] | None = None,
    torch: str | Callable | None = None,
    differentiable: bool = True,
    second_order: bool = True,
    namespace: str = "",
    gauge: Callable | None = None,
    **tolerances: Any,
) -> Callable:
    """Add a row for ``name``; ``methods`` defaults to ``(name,)`` (Tensor method names) for
    ops in the top-level namespace and to none elsewhere.

    Rows of another namespace are keyed ``"<namespace>.<name>"``.
    """
    key = f"{namespace}.{name}" if namespace else name
    if key in REGISTRY:
        raise ValueError(f"op {key!r} is registered twice")
    default_methods = (name,) if not namespace else ()
    REGISTRY[key] = OpInfo(
        name=name,
        function=function,
        nodes=nodes,
        methods=default_methods if methods is None else tuple(methods),
        samples=samples,
        torch=torch if torch is not None else f"torch.{key}",
        differentiable=differentiable,
        second_order=second_order,
        namespace=namespace,
        gauge=gauge,
        **tolerances,
    )
    return function
