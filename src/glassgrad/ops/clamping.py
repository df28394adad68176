"""Clamping and elementwise extrema: clamp with tensor bounds, clamp_min, clamp_max,
maximum, minimum and nan_to_num, with their in-place forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import (
    array_of,
    binary_operands,
    broadcast_error,
    check_numbers,
    check_tensor,
    is_scalar,
)
from ._namespace import default_float
from ._not_implemented import _binary, _check_tensor_other, any_complex
from ._registry import NoGrad, Sample, register
from ._samples import (
    randn,
)


def _refuse_complex_clamp(x: np.ndarray) -> None:
    if x.dtype.kind == "c":  # complex numbers are not ordered
        raise NotImplementedError("clamp is not supported for complex types")


class ClampBackward1(Op):
    """out = min(max(x, min), max) for Python-number bounds"""

    pointwise = True

    max: Any
    min: Any | None

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("min", "max")

    def forward(self, x: Any, min: Any = None, max: Any = None) -> Any:
        if min is None and max is None:
            raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
        _refuse_complex_clamp(x)
        self.min, self.max = min, max
        if x.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
            x = default_float(x)
        out = x
        if min is not None:
            out = np.maximum(out, np.asarray(min, dtype=x.dtype))
        if max is not None:
            out = np.minimum(out, np.asarray(max, dtype=x.dtype))
        return out if out is not x else x.copy()

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        values = x._data if isinstance(x, Tensor) else x
        mask = np.ones(values.shape, dtype=bool)
        if self.min is not None:
            mask &= values >= self.min
        if self.max is not None:
            mask &= values <= self.max
        return F.where(mask, grad, 0.0)  # PyTorch's clamp_backward: a NaN gradient masked is 0


def clamp(input: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """Limit each element to ``[min, max]`` (either bound may be None).

    The gradient passes where ``min <= input <= max`` (bounds included), as in PyTorch.

    Example::

        >>> glassgrad.clamp(glassgrad.tensor([-2.0, 0.5, 3.0]), min=0, max=1)
        tensor([0.0000, 0.5000, 1.0000])
    """
    check_tensor(input, "clamp")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return clamp_tensor_bounds(input, min, max)
    _check_number_bounds("clamp", min, max, "Tensor, ")
    return ClampBackward1.apply(input, min=min, max=max)


register(
    "clamp",
    clamp,
    nodes=(ClampBackward1,),
    methods=("clamp", "clip"),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),), {"min": -0.5, "max": 0.5}),
        Sample((randn(rng, 3, 4),), {"min": 0.0}),
        Sample((randn(rng, 3, 4),), {"max": 0.2}),
    ],
)


# --- clamp variants, maximum and minimum ---------------------------------------------------


def _clamp_operand(x: np.ndarray, bound: Any) -> np.ndarray:
    """``x`` in the result dtype of clamping it by a Python number (ints by a float: float)."""
    a, b = binary_operands(x, bound)
    if isinstance(b, np.ndarray):  # a NumPy scalar bound
        return a.astype(np.result_type(a, b), copy=False)
    return a


class ClampMinBackward0(Op):
    """out = max(x, min) for a Python-number ``min``; gradient where x >= min"""

    pointwise = True

    min: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("min",)

    def forward(self, x: Any, min: Any = 0.0) -> Any:
        _refuse_complex_clamp(x)
        self.min = min
        return np.maximum(_clamp_operand(x, min), min)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return F.where(array_of(x) >= self.min, grad, 0.0)


class ClampMaxBackward0(Op):
    """out = min(x, max) for a Python-number ``max``; gradient where x <= max"""

    pointwise = True

    max: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("max",)

    def forward(self, x: Any, max: Any = 0.0) -> Any:
        _refuse_complex_clamp(x)
        self.max = max
        return np.minimum(_clamp_operand(x, max), max)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return F.where(array_of(x) <= self.max, grad, 0.0)


def _first_mismatch(arrays: list) -> tuple:
    """The first operand and the first later one it does not broadcast with."""
    for i, a in enumerate(arrays):
        for b in arrays[i + 1 :]:
            try:
                np.broadcast_shapes(np.shape(a), np.shape(b))
            except ValueError:
                return a, b
    return arrays[0], arrays[-1]


def _promoted(op: str, *arrays: Any) -> list:
    """Arrays cast to their common PyTorch result dtype, checked to broadcast together."""
    from .._dtype import result_numpy_dtype

    present = [a for a in arrays if a is not None]
    dtype = result_numpy_dtype(present)
    shapes = [np.shape(a) for a in present]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        a, b = _first_mismatch(present)
        raise broadcast_error(op, a, b) from None
    return [None if a is None else np.asarray(a).astype(dtype, copy=False) for a in arrays]


class ClampMinBackward1(Op):
    """out = max(x, min) for a tensor ``min``"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)
    errors_after_overlap = "not-implemented"

    def forward(self, x: Any, min: Any) -> Any:
        _refuse_complex_clamp(x)
        x, min = _promoted("clamp_min", x, min)
        return np.maximum(x, min)

    def backward(self, F: Any, grad: Any) -> Any:
        x, low = self.saved
        needs = self.needs_input_grad
        xv, lv = array_of(x), array_of(low)
        return (
            F.where(xv >= lv, grad, 0.0) if needs[0] else None,
            F.where(xv < lv, grad, 0.0) if needs[1] else None,
        )


class ClampMaxBackward1(Op):
    """out = min(x, max) for a tensor ``max``"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1)
    errors_after_overlap = "not-implemented"

    def forward(self, x: Any, max: Any) -> Any:
        _refuse_complex_clamp(x)
        x, max = _promoted("clamp_max", x, max)
        return np.minimum(x, max)

    def backward(self, F: Any, grad: Any) -> Any:
        x, high = self.saved
        needs = self.needs_input_grad
        xv, hv = array_of(x), array_of(high)
        return (
            F.where(xv <= hv, grad, 0.0) if needs[0] else None,
            F.where(xv > hv, grad, 0.0) if needs[1] else None,
        )


class ClampBackward0(Op):
    """out = min(max(x, min), max) with tensor bounds (either may be None).

    PyTorch's subgradients: x gets the gradient where min <= x <= max; ``min`` where
    x < min < max; ``max`` where x > max or max < min (then max wins the forward).
    """

    pointwise = True

    saved_inputs: tuple[int, ...] = (0, 1, 2)

    def forward(self, x: Any, min: Any, max: Any) -> Any:
        _refuse_complex_clamp(x)
        x, min, max = _promoted("clamp", x, min, max)
        out = x
        if min is not None:
            out = np.maximum(out, min)
        if max is not None:
            out = np.minimum(out, max)
        return out if out is not x else x.copy()

    def backward(self, F: Any, grad: Any) -> Any:
        x, low, high = self.saved
        needs = self.needs_input_grad
        xv, lv, hv = array_of(x), array_of(low), array_of(high)
        grad_x = grad_min = grad_max = None
        if lv is not None and hv is not None:
            if needs[0]:
                grad_x = F.where((xv >= lv) & (xv <= hv), grad, 0.0)
            if needs[1]:
                grad_min = F.where((xv < lv) & (lv < hv), grad, 0.0)
            if needs[2]:
                grad_max = F.where((xv > hv) | (hv < lv), grad, 0.0)
        elif lv is not None:
            if needs[0]:
                grad_x = F.where(xv >= lv, grad, 0.0)
            if needs[1]:
                grad_min = F.where(xv < lv, grad, 0.0)
        else:
            if needs[0]:
                grad_x = F.where(xv <= hv, grad, 0.0)
            if needs[2]:
                grad_max = F.where(xv > hv, grad, 0.0)
        return grad_x, grad_min, grad_max


def clamp_tensor_bounds(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``clamp`` with tensor bounds (broadcast against ``input``; either may be None).

    Example::

        >>> x = glassgrad.tensor([-2.0, 0.5, 3.0])
        >>> glassgrad.clamp(x, min=glassgrad.tensor([0.0, 1.0, 0.0]))
        tensor([0., 1., 3.])
    """
    check_tensor(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for bound in (min, max):
        if bound is not None and not isinstance(bound, Tensor):
            got = ", ".join(type(v).__name__ for v in (input, min, max))
            raise TypeError(
                f"clamp() received an invalid combination of arguments - got ({got}): the "
                "bounds must be both Tensors (or None) or both numbers"
            )
    return ClampBackward0.apply(input, min, max)


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """``max(input, min)`` elementwise; ``min`` a number or a tensor.

    Example::

        >>> glassgrad.clamp_min(glassgrad.tensor([-1.0, 2.0]), 0.0)
        tensor([0., 2.])
    """
    check_tensor(input, "clamp_min")
    if isinstance(min, Tensor):
        return ClampMinBackward1.apply(input, min)
    _check_bound("clamp_min", "min", min)
    return ClampMinBackward0.apply(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """``min(input, max)`` elementwise; ``max`` a number or a tensor.

    Example::

        >>> glassgrad.clamp_max(glassgrad.tensor([-1.0, 2.0]), 0.0)
        tensor([-1.,  0.])
    """
    check_tensor(input, "clamp_max")
    if isinstance(max, Tensor):
        return ClampMaxBackward1.apply(input, max)
    _check_bound("clamp_max", "max", max)
    return ClampMaxBackward0.apply(input, max=max)


def _check_number_bounds(op: str, min: Any, max: Any, before: str = "") -> None:
    """PyTorch's parser: bounds that are not Tensors are numbers or None (NumPy would
    broadcast a tuple or list of them)."""
    if (min is None or is_scalar(min)) and (max is None or is_scalar(max)):
        return
    got = ", ".join(type(v).__name__ for v in (min, max) if v is not None)
    raise TypeError(
        f"{op}() received an invalid combination of arguments - got ({before}{got}), but "
        "expected the bounds as numbers (or None) or as Tensors (or None)"
    )


def _check_bound(op: str, name: str, value: Any) -> None:
    if not is_scalar(value):
        raise TypeError(
            f"{op}(): argument '{name}' (position 2) must be Number or Tensor, not "
            f"{type(value).__name__}"
        )


def _clamp_inplace(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        clamp_tensor_bounds(self, min, max)  # argument checks
        return apply_inplace(ClampBackward0, self, min, max)
    _check_number_bounds("clamp_", min, max)
    return apply_inplace(ClampBackward1, self, min=min, max=max)


def _clamp_min_inplace(self: Tensor, min: Any) -> Tensor:
    if isinstance(min, Tensor):
        return apply_inplace(ClampMinBackward1, self, min)
    _check_bound("clamp_min_", "min", min)
    return apply_inplace(ClampMinBackward0, self, min=min)


def _clamp_max_inplace(self: Tensor, max: Any) -> Tensor:
    if isinstance(max, Tensor):
        return apply_inplace(ClampMaxBackward1, self, max)
    _check_bound("clamp_max_", "max", max)
    return apply_inplace(ClampMaxBackward0, self, max=max)


class _Extremum(Op):
    """Elementwise maximum/minimum; NaN propagates; on ties each input gets half."""

    saved_inputs: tuple[int, ...] = (0, 1)
    ufunc: Any = None
    op = ""

    def forward(self, a: Any, b: Any) -> Any:
        if any_complex(a, b):
            raise RuntimeError(f"{self.op} not implemented for complex tensors.")
        a, b = binary_operands(a, b)
        return _binary(self.op, a, b, self.ufunc)

    def backward(self, F: Any, grad: Any) -> Any:
        a, b = self.saved
        needs = self.needs_input_grad
        av, bv = array_of(a), array_of(b)
        wins_a, wins_b = self.winners(av, bv)
        tie = av == bv
        half = grad * 0.5
        grad_a = F.where(tie, half, F.where(wins_b, 0.0, grad)) if needs[0] else None
        grad_b = F.where(tie, half, F.where(wins_a, 0.0, grad)) if needs[1] else None
        return grad_a, grad_b


class MaximumBackward0(_Extremum):
    ufunc: Any = staticmethod(np.maximum)
    op = "maximum"

    @staticmethod
    def winners(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return a > b, a < b


class MinimumBackward0(_Extremum):
    ufunc: Any = staticmethod(np.minimum)
    op = "minimum"

    @staticmethod
    def winners(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return a < b, a > b


def _bool_extremum(ufunc: Any, input: Tensor, other: Tensor) -> Tensor | None:
    if input._data.dtype == np.bool_ and other._data.dtype == np.bool_:
        return Tensor._from_array(_binary("maximum", input._data, other._data, ufunc))
    return None


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (NaN propagates; ties split the gradient evenly).

    Example::

        >>> glassgrad.maximum(glassgrad.tensor([1.0, 5.0]), glassgrad.tensor([3.0, 2.0]))
        tensor([3., 5.])
    """
    check_tensor(input, "maximum")
    _check_tensor_other(other, "maximum")
    result = _bool_extremum(np.maximum, input, other)
    return result if result is not None else MaximumBackward0.apply(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum of two tensors (NaN propagates; ties split the gradient evenly).

    Example::

        >>> glassgrad.minimum(glassgrad.tensor([1.0, 5.0]), glassgrad.tensor([3.0, 2.0]))
        tensor([1., 2.])
    """
    check_tensor(input, "minimum")
    _check_tensor_other(other, "minimum")
    result = _bool_extremum(np.minimum, input, other)
    return result if result is not None else MinimumBackward0.apply(input, other)


def _ties(rng: np.random.Generator) -> tuple:
    a = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    b = np.array([[1.0, 0.0, 4.0], [0.5, -1.0, 1.0]])
    return a, b


register(
    "clamp_min",
    clamp_min,
    nodes=(ClampMinBackward0, ClampMinBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), 0.1)),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 3), NoGrad(randn(rng, 2, 1)))),
        Sample((np.array([1, -2, 3]), 0), grad=False),
        Sample((np.array([1, -2, 3]), 0.5), grad=False),
    ],
)


register(
    "clamp_max",
    clamp_max,
    nodes=(ClampMaxBackward0, ClampMaxBackward1),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), -0.1)),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 4, 3).T, randn(rng, 3, 1))),
        Sample((np.array([1, -2, 3]), 2), grad=False),
    ],
)


register(
    "_clamp_tensor_bounds",
    clamp_tensor_bounds,
    nodes=(ClampBackward0,),
    methods=(),
    torch="torch.clamp",
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) - 0.5, randn(rng, 3, 4) + 0.5)),
        Sample((randn(rng, 3, 4), randn(rng, 4) - 0.5, NoGrad(randn(rng, 3, 1) + 0.5))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4), None)),
        Sample((randn(rng, 3, 4), None, randn(rng, 4))),
        Sample((randn(rng, 3, 4), randn(rng, 3, 4) + 0.5, randn(rng, 3, 4) - 0.5), note="min>max"),
        Sample(
            (np.array([0.0, 1.0, 2.0, 1.5]), np.ones(4), np.full(4, 1.5)),
            fd=False,
            note="x on a bound: x gets the gradient, the bound does not",
        ),
        Sample((np.array([0.0, 1.0, 2.0]), np.ones(3), np.ones(3)), fd=False, note="min == max"),
        Sample((np.array([1, 5, -3]), np.array([0.5]), None), grad=False),
    ],
)


register(
    "maximum",
    maximum,
    nodes=(MaximumBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 3, 1), randn(rng, 1, 4))),
        Sample((randn(rng, 4, 3).T, NoGrad(randn(rng, 4)))),
        Sample((randn(rng), randn(rng, 2, 3))),
        Sample(_ties(rng), note="ties split the gradient", fd=False),
        Sample((np.array([1, 5]), np.array([3, 2])), grad=False),
        Sample((np.array([True, False]), np.array([False, False])), grad=False),
    ],
)


register(
    "minimum",
    minimum,
    nodes=(MinimumBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4), randn(rng, 3, 4))),
        Sample((randn(rng, 2, 3, 4), randn(rng, 4))),
        Sample((randn(rng, 3), NoGrad(randn(rng, 3)))),
        Sample(_ties(rng), note="ties split the gradient", fd=False),
        Sample((np.array([1, 5]), np.array([3.0, 2.0])), grad=False),
    ],
)


class NanToNumBackward0(Op):
    """NaN, +inf, -inf replaced by numbers; the gradient passes where the input is finite."""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)
    identity_for_kinds = "biu"

    def forward(self, x: Any, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
        if x.dtype.kind != "f":
            return x.copy()
        if np.isfinite(x).all():
            return x.copy(order="K")  # nothing to replace: the selections below copy x
        info = np.finfo(x.dtype)
        out = np.where(np.isnan(x), x.dtype.type(0.0 if nan is None else nan), x)
        out = np.where(out == np.inf, info.max if posinf is None else x.dtype.type(posinf), out)
        out = np.where(out == -np.inf, info.min if neginf is None else x.dtype.type(neginf), out)
        return out.astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        # PyTorch's formula multiplies by the mask (grad * isfinite(x)): a NaN or inf
        # gradient where x was not finite gives NaN, not 0.
        return grad * np.isfinite(array_of(x)).astype(array_of(x).dtype)


def nan_to_num(
    input: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Tensor:
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (default: the dtype's
    largest and smallest finite values).

    Example::

        >>> glassgrad.nan_to_num(glassgrad.tensor([float("nan"), 1.0]), nan=-1.0)
        tensor([-1.,  1.])
    """
    check_tensor(input, "nan_to_num")
    check_numbers("nan_to_num", True, nan=nan, posinf=posinf, neginf=neginf)
    return NanToNumBackward0.apply(input, nan=nan, posinf=posinf, neginf=neginf)


def _with_nans(rng: np.random.Generator) -> np.ndarray:
    x = randn(rng, 2, 3)
    x[0, 1] = x[1, 0] = np.nan
    return x


def _with_specials(rng: np.random.Generator) -> np.ndarray:
    x = randn(rng, 3, 4)
    x[0, 1], x[1, 2], x[2, 3] = np.nan, np.inf, -np.inf
    return x


register(
    "nan_to_num",
    nan_to_num,
    nodes=(NanToNumBackward0,),
    samples=lambda rng: [
        Sample((_with_specials(rng),), fd=False, note="default posinf overflows the FD check"),
        Sample((_with_nans(rng),)),
        Sample((_with_specials(rng),), {"nan": 1.5, "posinf": 9.0, "neginf": -9.0}),
        Sample((_with_specials(rng).T,), {"posinf": 2.0, "neginf": -1.0}),
        Sample((np.array([1, 2]),), grad=False),
    ],
)


def _nan_to_num_inplace(self: Tensor, nan: float = 0.0, posinf: Any = None, neginf: Any = None):
    check_numbers("nan_to_num_", True, nan=nan, posinf=posinf, neginf=neginf)
    return apply_inplace(NanToNumBackward0, self, nan=nan, posinf=posinf, neginf=neginf)


TENSOR_METHODS: dict[str, Any] = {
    "clamp_": _clamp_inplace,
    "clip_": _clamp_inplace,
    "clamp_min_": _clamp_min_inplace,
    "clamp_max_": _clamp_max_inplace,
    "nan_to_num_": _nan_to_num_inplace,
}
