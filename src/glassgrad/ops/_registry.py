"""The op registry: one row per public op, read by the parity tests and the docs.

A row names the op, its function, its Node class, the Tensor methods it provides, and a
sampler of inputs. Tests generate, from each row, the comparison with PyTorch (values,
gradients, second derivatives) and finite-difference gradchecks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Sample", "NoGrad", "OpInfo", "REGISTRY", "register"]


@dataclass(frozen=True)
class NoGrad:
    """A floating tensor argument of a sample that does not require grad."""

    array: np.ndarray


@dataclass(frozen=True)
class Sample:
    """One call of an op: ndarray arguments become tensors (float ones require grad)."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    # Whether the sample's first / second derivatives are compared (kinks, discrete ops).
    grad: bool = True
    gradgrad: bool = True
    # Whether finite differences apply (False at a kink, e.g. ties of max).
    fd: bool = True
    note: str = ""


@dataclass
class OpInfo:
    """A registry row."""

    name: str
    function: Callable
    nodes: tuple = ()
    methods: tuple = ()
    samples: Callable[[np.random.Generator], Iterable[Sample]] | None = None
    # How PyTorch spells the same call: a dotted path under torch, or f(torch, *args, **kw).
    torch: str | Callable | None = None
    differentiable: bool = True
    second_order: bool = True
    # Where the function is public: "" (glassgrad.X), "nn.functional", "linalg", "special".
    namespace: str = ""
    atol: float = 1e-10
    rtol: float = 1e-8


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
        **tolerances,
    )
    return function
