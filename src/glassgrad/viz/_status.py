"""The statuses of :func:`grad_report`'s rows, worst first in :data:`SEVERITY`."""

from __future__ import annotations

STATUS_OK = "ok"
STATUS_NO_GRAD = "no grad"
STATUS_NONFINITE = "nan/inf"
STATUS_EXPLODING = "exploding"
STATUS_ZERO = "zero"
STATUS_VANISHING = "vanishing"
STATUS_INPLACE = "in-place hazard"
STATUS_BACKWARD_ERROR = "backward error"
STATUS_FROZEN = "frozen"  # no gradient, as expected_frozen= said
STATUS_NOT_FROZEN = "not frozen"  # expected frozen, yet it gets a gradient

# A module's summary shows the worst status among its parameters.
SEVERITY = (
    STATUS_NONFINITE,
    STATUS_EXPLODING,
    STATUS_VANISHING,
    STATUS_NOT_FROZEN,
    STATUS_NO_GRAD,
    STATUS_ZERO,
    STATUS_OK,
    STATUS_FROZEN,
)
