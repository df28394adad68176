"""PyTorch's tensor printing: ``tensor([2., 3.], requires_grad=True)``, ``tensor(91.5000)``."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions"]

# PyTorch's print options (``set_printoptions``); sci_mode None: chosen from the values.
_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
_PROFILES = {
    "default": _DEFAULTS,
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
options = SimpleNamespace(**_DEFAULTS)


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """How tensors print, as PyTorch's: digits after the point, the element count above
    which the middle is summarised, the items kept at each edge, the line width, a profile
    (``"default"``, ``"short"``, ``"full"``) and scientific notation (None: automatic).

    Example::

        >>> glassgrad.set_printoptions(precision=2); glassgrad.tensor([1.2345])
        tensor([1.23])
        >>> glassgrad.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile {profile!r}: use 'default', 'short' or 'full'")
        vars(options).update(_PROFILES[profile])
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(options, name, value)
    options.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options (see ``set_printoptions``)."""
    return dict(vars(options))


class _Formatter:
    """Chooses integer, fixed or scientific notation and the column width, as PyTorch does."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(self._plain(value)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:  # only zeros, nan, inf: PyTorch keeps width 1
            return
        abs_vals = np.abs(finite)
        lo, hi = float(abs_vals.min()), float(abs_vals.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if options.sci_mode is not None:
            self.sci_mode = options.sci_mode
        if self.sci_mode:
            strs = [f"{v:.{options.precision}e}" for v in finite.tolist()]
        elif self.int_mode:
            strs = [f"{v:.0f}." for v in finite.tolist()]
        else:
            strs = [f"{v:.{options.precision}f}" for v in finite.tolist()]
        self.max_width = max(len(s) for s in strs)

    @staticmethod
    def _plain(value) -> str:
        return "True" if value is True else "False" if value is False else str(value)

    @staticmethod
    def _float_fixed0(value: float) -> str:
        s = f"{value:.0f}"
        return s if math.isinf(value) or math.isnan(value) else s + "."

    def format(self, value) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{value:.{options.precision}e}"
            elif self.int_mode:
                text = self._float_fixed0(value)
            else:
                text = f"{value:.{options.precision}f}"
        else:
            text = self._plain(value)
        return " " * (self.max_width - len(text)) + text


class _ComplexFormatter:
    """PyTorch's complex printing: the real parts formatted (and padded) together, each
    imaginary part in its own formatter's notation, unpadded, with its sign and a ``j``."""

    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(np.ascontiguousarray(values.real))
        self.imag = _Formatter(np.ascontiguousarray(values.imag))
        self.max_width = self.real.max_width + self.imag.max_width

    def format(self, value: complex) -> str:
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _formatter(values: np.ndarray) -> _Formatter | _ComplexFormatter:
    return _ComplexFormatter(values) if values.dtype.kind == "c" else _Formatter(values)


def _summarized(values: np.ndarray) -> np.ndarray:
    """The edge items PyTorch keeps when it summarizes a large tensor."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * options.edgeitems:
        values = np.concatenate([values[: options.edgeitems], values[-options.edgeitems :]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row) for row in values])


def _vector(values: np.ndarray, indent: int, summarize: bool, fmt: Any) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((options.linewidth - indent) / element_length)))
    items = values.tolist()
    if summarize and len(items) > 2 * options.edgeitems:
        data = (
            [fmt.format(v) for v in items[: options.edgeitems]]
            + [" ..."]
            + [fmt.format(v) for v in items[-options.edgeitems :]]
        )
    else:
        data = [fmt.format(v) for v in items]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: np.ndarray, indent: int, summarize: bool, fmt: Any) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, fmt)
    n = values.shape[0]
    if summarize and n > 2 * options.edgeitems:
        rows = (
            [_nested(values[i], indent + 1, summarize, fmt) for i in range(options.edgeitems)]
            + ["..."]
            + [
                _nested(values[i], indent + 1, summarize, fmt)
                for i in range(n - options.edgeitems, n)
            ]
        )
    else:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def array_body(values: np.ndarray, indent: int) -> str:
    """The bracketed numbers of a tensor's repr, indented to follow a prefix of ``indent``."""
    summarize = values.size > options.threshold
    fmt = _formatter(_summarized(values) if summarize else values)
    return _nested(values, indent, summarize, fmt)


def tensor_repr(values: np.ndarray, suffixes: list[str], default_dtype_name: str) -> str:
    """``tensor(...)`` with PyTorch's suffixes (size of empty tensors, dtype, grad_fn)."""
    prefix = "tensor("
    dtype_name = values.dtype.name
    extra = []
    if values.size == 0 and values.shape != (0,):
        extra.append(f"size={tuple(values.shape)}")
    # PyTorch omits the default float dtype and its complex counterpart, int64 and bool; an
    # empty tensor has no values to tell them apart, so it shows any but the default float.
    default_complex = "complex128" if default_dtype_name == "float64" else "complex64"
    if values.size == 0:
        shows_dtype = dtype_name != default_dtype_name
    else:
        shows_dtype = dtype_name not in (default_dtype_name, default_complex, "int64", "bool")
    if shows_dtype:
        extra.append(f"dtype=glassgrad.{dtype_name}")
    body = "[]" if values.size == 0 else array_body(values, len(prefix))
    return _add_suffixes(prefix + body, [*extra, *suffixes], len(prefix))


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """PyTorch's ``_add_suffixes``: each suffix after a comma, on a new line when the current
    one would pass the line width."""
    parts = [text]
    line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line + len(suffix) + 2 > options.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(parts) + ")"
