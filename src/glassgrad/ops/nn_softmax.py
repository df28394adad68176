"""The softmax family: ``softmax``, ``log_softmax`` and ``softmin`` (in ``nn.functional``, and
as Tensor methods), with PyTorch's SoftmaxBackward0 / LogSoftmaxBackward0 and its implicit-dim
warning.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op
from . import arithmetic, conversion
from ._common import check_tensor, wrap_dim
from ._namespace import ArrayNamespace
from ._registry import Sample, register
from ._samples import randn
from .nn_activation import NN

__all__ = ["softmax", "log_softmax", "softmin"]


# --- softmax family ----------------------------------------------------------------------------


def _reduce_axis(x: np.ndarray, dim: int) -> int | None:
    # A 0-d tensor is its own (only) slice; NumPy reduces it with axis=None.
    return dim if x.ndim else None


# Largest spread (max - min) of the values for which one shift by the overall max is safe:
# exp() of every shifted value stays a normal number, so no slice sums to zero.
_ONE_SHIFT_SPREAD = {
    np.dtype(np.float16): 4.0,
    np.dtype(np.float32): 40.0,
    np.dtype(np.float64): 350.0,
}


def _exp_and_sums(x: np.ndarray, dim: int | None) -> tuple:
    """``(x - shift, exp(x - shift), sum of the exps along dim)`` with ``shift`` the max.

    When the values are finite and close together (the usual logits) one overall max does:
    two whole-array reductions and a matrix-vector sum cost less than per-slice reductions.
    """
    spread = _ONE_SHIFT_SPREAD.get(x.dtype)
    if spread is not None and x.size:
        top = float(x.max())
        if top - float(x.min()) <= spread:  # False for inf and nan as well
            shifted = x - top
            e = np.exp(shifted)
            return shifted, e, ArrayNamespace.sum(e, dim, True)
    with np.errstate(invalid="ignore", over="ignore"):
        # `initial` keeps empty inputs legal.
        shifted = x - x.max(axis=dim, keepdims=True, initial=-np.inf)
        e = np.exp(shifted)
        return shifted, e, e.sum(axis=dim, keepdims=True)


class SoftmaxBackward0(Op):
    """out = exp(x) / sum(exp(x)) along ``dim`` (computed from x - max, so no overflow)"""

    dim: int | None

    saves_output = True
    __slots__ = ("dim",)

    @row_major
    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim = _reduce_axis(x, dim)
        _, e, sums = _exp_and_sums(x, dim)
        # Every slice sums to at least 1 (its max gives exp(0)), or to nan: nothing to warn.
        return e / sums if x.size else e

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return SoftmaxBackwardDataBackward0.call(grad, out, dim=self.dim)


class LogSoftmaxBackward0(Op):
    """out = x - log(sum(exp(x))) along ``dim`` (computed from x - max: finite at 1e4)"""

    dim: int | None

    saves_output = True
    __slots__ = ("dim",)

    @row_major
    def forward(self, x: Any, dim: Any) -> Any:
        self.dim = dim = _reduce_axis(x, dim)
        shifted, _, sums = _exp_and_sums(x, dim)
        # Every slice sums to at least 1 (its max gives exp(0)), or to nan: nothing to warn.
        return shifted - np.log(sums) if x.size else shifted

    def backward(self, F: Any, grad: Any) -> Any:
        (out,) = self.saved
        return LogSoftmaxBackwardDataBackward0.call(grad, out, dim=self.dim)


# PyTorch's _softmax_backward_data and _log_softmax_backward_data as ops: under create_graph a
# first derivative is one node named as PyTorch's, with derivatives.yaml's derivatives.


class _BackwardData(Op):
    """A softmax backward of the incoming gradient and the saved result along ``dim``."""

    dim: int | None

    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (0, 1))
    __slots__ = ("dim",)


class SoftmaxBackwardDataBackward0(_BackwardData):
    """``out * (grad - sum(grad * out))``; its derivatives are itself again for ``grad`` and
    ``softmax_double_backward`` for ``out``."""

    __slots__ = ()

    def forward(self, grad: Any, out: Any, dim: Any) -> Any:
        self.dim = dim
        return out * (grad - ArrayNamespace.sum(grad * out, dim, True))

    def backward(self, F: Any, gg: Any) -> Any:
        grad, out = self.saved
        needs, dim = self.needs_input_grad, self.dim
        d_grad = SoftmaxBackwardDataBackward0.call(gg, out, dim=dim) if needs[0] else None
        d_out = None
        if needs[1]:  # softmax_double_backward(gg, grad, dim, out)
            d_out = (
                grad * gg - F.sum(out * grad, dim, True) * gg - grad * F.sum(out * gg, dim, True)
            )
        return d_grad, d_out


class LogSoftmaxBackwardDataBackward0(_BackwardData):
    """``grad - exp(out) * sum(grad)``; its derivatives are ``gg - sum(gg * exp(out))`` for
    ``grad`` and ``-sum(grad) * exp(out) * gg`` for ``out``."""

    __slots__ = ()

    def forward(self, grad: Any, out: Any, dim: Any) -> Any:
        self.dim = dim
        return grad - np.exp(out) * ArrayNamespace.sum(grad, dim, True)

    def backward(self, F: Any, gg: Any) -> Any:
        grad, out = self.saved
        needs, dim = self.needs_input_grad, self.dim
        d_grad = gg - F.sum(gg * F.exp(out), dim, True) if needs[0] else None
        d_out = -F.sum(grad, dim, True) * F.exp(out) * gg if needs[1] else None
        return d_grad, d_out


def _implicit_softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=4,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(input: Tensor, name: str, dtype: Any) -> Tensor:
    """``input`` cast to ``dtype`` first (ToCopyBackward0, as in PyTorch), checked floating."""
    if dtype is not None:
        input = conversion.to(input, dtype)
    kind = input._data.dtype
    if kind.kind != "f":
        raise NotImplementedError(
            f"{name}: \"{name}_lastdim_kernel_impl\" not implemented for '{scalar_type_name(kind)}' "
            f"(expected a floating point input; pass dtype=glassgrad.float32 to convert)"
        )
    return input


def _softmax_like(node: type, name: str, input: Tensor, dim: Any, dtype: Any) -> Tensor:
    check_tensor(input, name)
    if dim is None:
        dim = _implicit_softmax_dim(name, input._data.ndim)
    d = wrap_dim(dim, input._data.ndim, name)
    return node.apply(_softmax_input(input, name, dtype), dim=d)


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``; with ``dtype`` the input is cast first.

    Example::

        >>> glassgrad.nn.functional.softmax(glassgrad.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``dim``; finite for logits of any magnitude.

    Example::

        >>> glassgrad.nn.functional.log_softmax(glassgrad.tensor([0.0, 1e4]), dim=0)
        tensor([-10000.,      0.])
    """
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``softmax(-input)`` along ``dim``.

    Example::

        >>> glassgrad.nn.functional.softmin(glassgrad.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    check_tensor(input, "softmin")
    if dim is None:
        dim = _implicit_softmax_dim("softmin", input._data.ndim)
    return _softmax_like(SoftmaxBackward0, "softmax", arithmetic.neg(input), dim, dtype)


def _softmax_method(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``glassgrad.softmax(input, dim, dtype=None)`` (``dim`` required), also ``x.softmax``.

    Example::

        >>> glassgrad.tensor([0.0, 0.0]).softmax(0)
        tensor([0.5000, 0.5000])
    """
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


def _log_softmax_method(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``glassgrad.log_softmax(input, dim, dtype=None)``, also ``x.log_softmax(dim)``.

    Example::

        >>> glassgrad.tensor([0.0, 0.0]).log_softmax(0)
        tensor([-0.6931, -0.6931])
    """
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


_softmax_method.__name__ = _softmax_method.__qualname__ = "softmax"


_log_softmax_method.__name__ = _log_softmax_method.__qualname__ = "log_softmax"


def _softmax_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4), 1)),
        Sample((randn(rng, 3, 4), 0)),
        Sample((randn(rng, 2, 3, 4),), {"dim": -1}),
        Sample((randn(rng, 2, 3, 4), 1)),
        Sample((randn(rng, 5, 3).T, 1), note="non-contiguous"),
        Sample((randn(rng), 0)),
        Sample((randn(rng, 0, 3), 1)),
        Sample((randn(rng, 3, 0), 1)),
        Sample((10.0 * randn(rng, 4, 6), 1), note="wide logits"),
    ]


register("softmax", softmax, nodes=(SoftmaxBackward0,), namespace=NN, samples=_softmax_samples)


register(
    "log_softmax",
    log_softmax,
    nodes=(LogSoftmaxBackward0,),
    namespace=NN,
    samples=_softmax_samples,
)


register("softmin", softmin, nodes=(SoftmaxBackward0,), namespace=NN, samples=_softmax_samples)


register(
    "softmax",
    _softmax_method,
    nodes=(SoftmaxBackward0,),
    methods=("softmax",),
    samples=_softmax_samples,
)


register(
    "log_softmax",
    _log_softmax_method,
    nodes=(LogSoftmaxBackward0,),
    methods=("log_softmax",),
    samples=_softmax_samples,
)
