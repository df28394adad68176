"""Anomaly mode: remember where each node was created, and fail loudly on NaN gradients."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from . import graph
from .grad_mode import _ModeContext
from .graph import anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "check_nan", "print_stack"]


def is_anomaly_enabled() -> bool:
    """True inside ``detect_anomaly()``."""
    return anomaly.enabled


class detect_anomaly(_ModeContext):
    """Context manager and decorator: nodes record the user's stack at creation; a backward
    formula that returns NaN or Inf raises an error naming the node and showing that stack.

    Example::

        >>> x = glassgrad.zeros(1, requires_grad=True)
        >>> with glassgrad.autograd.detect_anomaly():
        ...     (glassgrad.log(x) * 0).sum().backward()   # doctest: +SKIP
        RuntimeError: Function 'LogBackward0' returned nan values in its 0th output. ...
    """

    prev: tuple[bool, bool]

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def clone(self) -> detect_anomaly:
        copy = detect_anomaly.__new__(detect_anomaly)
        copy.check_nan = self.check_nan
        return copy

    def __enter__(self) -> None:
        self.prev = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled = True
        anomaly.check_nan = self.check_nan

    def __exit__(self, *exc: Any) -> None:
        anomaly.enabled, anomaly.check_nan = self.prev


class set_detect_anomaly(_ModeContext):
    """Turn anomaly mode on or off (a call, a context manager or a decorator)."""

    check_nan: bool
    mode: bool
    prev: tuple[bool, bool]

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (anomaly.enabled, anomaly.check_nan)
        self.mode, self.check_nan = mode, check_nan
        anomaly.enabled, anomaly.check_nan = mode, check_nan

    def clone(self) -> set_detect_anomaly:
        return set_detect_anomaly(self.mode, self.check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        anomaly.enabled, anomaly.check_nan = self.prev


def check_nan(node: Any, outputs: Any) -> None:
    """PyTorch's anomaly check of a node's results: an error naming the node and the first
    gradient holding NaN (infinities pass, as in PyTorch)."""
    for i, g in enumerate(outputs or ()):
        if g is None:
            continue
        data = g._data if isinstance(g, graph.Tensor) else np.asarray(g)
        if data.dtype.kind == "f" and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def print_stack(node: Any) -> None:
    """Warn with the forward traceback of ``node``, which failed in backward, then with those
    of the nodes whose backward created it (PyTorch's ``AnomalyMetadata.print_stack``).
    A warning that the filters turn into an error goes to stderr instead: the original
    error is the one to raise."""
    meta = node._metadata or {}
    _warn_stack(meta.get("traceback_"), node.name(), False)
    parent = meta.get("parent_")
    while parent is not None:
        meta = parent._metadata or {}
        _warn_stack(meta.get("traceback_"), parent.name(), True)
        parent = meta.get("parent_")


def _warn_stack(stack: list | None, name: str, is_parent: bool) -> None:
    if not stack:
        message = (
            f"Error detected in {name}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information."
        )
    elif not is_parent:
        message = (
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            + "".join(stack)
        )
    else:
        message = (
            f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
            "induced the previous calculation:\n" + "".join(stack)
        )
    try:
        warnings.warn(message, UserWarning, stacklevel=2)
    except Exception:
        print(f"UserWarning: {message}", file=sys.stderr)
