"""Anomaly mode: remember where each node was created, and fail loudly on NaN/Inf gradients."""

from __future__ import annotations

import warnings
from typing import Any

from .grad_mode import _ModeContext
from .graph import anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


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
