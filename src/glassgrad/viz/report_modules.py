"""``grad_report``'s module view: one summary row per module, and ``expected_frozen=``.

A module's row sums up the parameters it owns directly (``blocks.0.attn`` owns
``blocks.0.attn.qkv_weight``, not those of ``blocks.0.attn.proj``): how many, the worst status
among them, and the norm of all their gradients together (the square root of the sum of the
squared norms), so a layer whose gradient is 10⁴ times its neighbour's stands out in one line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ._graph import is_tensor
from ._stats import format_shape
from ._status import SEVERITY, STATUS_FROZEN, STATUS_NO_GRAD, STATUS_NOT_FROZEN, STATUS_OK
from .forward import ForwardLog

__all__ = [
    "ModuleRow",
    "module_rows",
    "format_module_table",
    "frozen_matcher",
    "apply_expected_frozen",
    "frozen_text",
    "not_frozen_text",
]


@dataclass(frozen=True)
class ModuleRow:
    """The summary of one module's parameters in a :class:`GradReport`."""

    name: str  # "" for parameters of the model itself
    type_name: str  # from the forward log, "" without one
    params: int
    numel: int
    status: str  # the worst status among its parameters
    problems: int  # parameters whose status is a problem
    grad_norm: float | None  # of all its parameters' gradients together

    @property
    def label(self) -> str:
        name = self.name or "(model)"
        return f"{name} ({self.type_name})" if self.type_name else name


def _owner(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def module_rows(
    rows: list[Any], pairs: list[tuple[str, Any]], log: ForwardLog | None
) -> list[ModuleRow]:
    """One :class:`ModuleRow` per module owning parameters, in the parameters' order."""
    tensors = dict(pairs)
    grouped: dict[str, list[Any]] = {}
    for row in rows:
        tensor = tensors.get(row.name)
        owner = None
        if log is not None and tensor is not None:
            owner = log.owner_of_param.get(id(tensor))
        grouped.setdefault(owner if owner is not None else _owner(row.name), []).append(row)
    summaries = []
    for name, members in grouped.items():
        statuses = [row.status for row in members]
        worst = min(statuses, key=lambda s: SEVERITY.index(s) if s in SEVERITY else 0)
        norms = [row.grad.norm for row in members if row.grad is not None]
        finite = [n for n in norms if n is not None]
        total = math.sqrt(sum(n * n for n in finite)) if finite else None
        summaries.append(
            ModuleRow(
                name,
                log.module_types.get(name, "") if log is not None else "",
                len(members),
                sum(math.prod(row.shape or ()) for row in members),
                worst,
                sum(s not in (STATUS_OK, STATUS_FROZEN) for s in statuses),
                total,
            )
        )
    return summaries


def format_module_table(modules: list[ModuleRow]) -> str:
    """The module summary as a fixed-width table."""
    header = ("module", "params", "entries", "status", "grad norm")
    body = [
        (
            row.label,
            str(row.params),
            str(row.numel),
            row.status if not row.problems else f"{row.status} ({row.problems} of {row.params})",
            "-" if row.grad_norm is None else f"{row.grad_norm:.3g}",
        )
        for row in modules
    ]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for cells in body:
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    return "\n".join(lines)


def frozen_matcher(
    expected: Iterable[Any] | None, pairs: list[tuple[str, Any]], func: str
) -> set[int]:
    """The set of ``id(tensor)`` that ``expected_frozen`` names (names, prefixes, modules or
    tensors); an entry that matches no parameter raises ``ValueError`` (a typo would otherwise
    silently check nothing)."""
    if expected is None:
        return set()
    if isinstance(expected, (str, bytes)) or is_tensor(expected):
        expected = [expected]
    chosen: set[int] = set()
    for entry in expected:
        if is_tensor(entry):
            ids = {id(entry)} & {id(t) for _, t in pairs}
        elif hasattr(entry, "parameters") and callable(entry.parameters):
            ids = {id(p) for p in entry.parameters()} & {id(t) for _, t in pairs}
        elif isinstance(entry, str):
            ids = {id(t) for name, t in pairs if name == entry or name.startswith(entry + ".")}
        else:
            raise TypeError(
                f"{func}: expected_frozen entries must be parameter names, module name "
                f"prefixes, modules or tensors; got {type(entry).__name__}"
            )
        if not ids:
            what = repr(entry) if isinstance(entry, str) else type(entry).__name__
            raise ValueError(f"{func}: expected_frozen entry {what} matches no parameter given")
        chosen |= ids
    return chosen


def apply_expected_frozen(row: Any, tensor: Any, frozen: set[int]) -> Any:
    """A parameter row judged against the intent: frozen as expected, or not frozen."""
    if id(tensor) not in frozen:
        return row
    if row.status == STATUS_NO_GRAD:
        return replace(row, status=STATUS_FROZEN, detail=frozen_text(row.reason))
    norm = row.grad.norm if row.grad is not None else None
    return replace(row, status=STATUS_NOT_FROZEN, detail=not_frozen_text(norm, row.shape))


def frozen_text(reason: str) -> str:
    """Why a parameter expected frozen is fine: it gets no gradient (for ``reason``)."""
    return f"no gradient, as expected ({reason})"


def not_frozen_text(norm: float | None, shape: tuple[int, ...] | None) -> str:
    """Why a parameter expected frozen is a problem: it received a gradient (of ``norm``)."""
    norm_text = f" of norm {norm:.4g}" if norm else ""
    shape_text = format_shape(shape) if shape is not None else ""
    return (
        f"expected frozen, but it requires grad and received a gradient{norm_text} "
        f"{shape_text}: an optimizer holding it will train it. Call .requires_grad_(False) on "
        "it (or leave it out of the optimizer)"
    )
