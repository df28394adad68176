"""Copies, casts and in-place writes: clone, to / float / double / long ..., contiguous,
copy_, zero_, fill_, and the in-place variants (``add_``, ``x += y``) of pointwise ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype, _layout
from .._layout import check_factory_options
from .._strides import iterator_order
from .._tensor import Tensor, check_device, device
from ..autograd.op import Op, apply_inplace
from . import arithmetic, pointwise, powers
from ._common import check_tensor, infer_size, zeros_like_grad
from ._registry import Sample, register
from ._samples import randn


class CloneBackward0(Op):
    records_inference_inputs = True  # a copy into an ordinary tensor (see Op)

    def forward(self, x: Any, row_major: bool = False, channels_last: bool = False) -> Any:
        if channels_last:  # the channel dim (1) innermost in memory
            order = (0, *range(2, x.ndim), 1)
            return np.ascontiguousarray(x.transpose(order)).transpose(np.argsort(order))
        # PyTorch's preserve_format (the default) keeps x's layout, made dense.
        if row_major or x.size < 2 or 0 not in x.strides:
            return x.copy(order="C" if row_major else "K")
        # A broadcast dim (stride 0) does not decide the order, as in PyTorch's
        # infer_dense_strides (NumPy's "K" puts it innermost: fuzz seed 920659)
        slowest_first = iterator_order(x.shape, [x])[::-1]
        return np.ascontiguousarray(x.transpose(slowest_first)).transpose(np.argsort(slowest_first))

    def backward(self, F: Any, grad: Any) -> Any:
        return grad


class ToCopyBackward0(Op):
    """A copy in another dtype; the gradient is cast back to the source's dtype (its real
    part for a real source), PyTorch's _to_copy_backward: in the formula itself, so that a
    leaf whose grad_dtype is None gets it in the source's dtype too."""

    source: np.dtype

    records_inference_inputs = True
    __slots__ = ("source",)

    def forward(self, x: Any, dtype: Any) -> Any:
        self.source = x.dtype
        return x.astype(dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        values = grad._data if isinstance(grad, Tensor) else grad
        if values.dtype == self.source:
            return grad
        if values.dtype.kind == "c" and self.source.kind != "c":
            grad = F.real(grad)
        return F.cast(grad, self.source)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy that stays in the graph (gradient flows back unchanged).

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> x.clone().grad_fn
        <CloneBackward0 object at ...>

    The copy keeps ``input``'s memory layout (``preserve_format``, made dense where
    ``input`` has gaps) or is row-major (``memory_format=glassgrad.contiguous_format``).
    """
    check_factory_options("clone", memory_format=memory_format)
    if memory_format is _layout.contiguous_format:
        return CloneBackward0.apply(check_tensor(input, "clone"), row_major=True)
    return CloneBackward0.apply(check_tensor(input, "clone"))


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """``input`` itself if C-contiguous, else a contiguous copy in the graph; with
    ``memory_format=channels_last`` (``channels_last_3d``), a 4-D (5-D) tensor laid out with
    its channels innermost."""
    lasts = {_layout.channels_last: 4, _layout.channels_last_3d: 5}
    if memory_format in lasts:
        rank = lasts[memory_format]
        if input._data.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format.name} format")
        order = (0, *range(2, rank), 1)
        if input._data.transpose(order).flags.c_contiguous:
            return input
        return CloneBackward0.apply(input, channels_last=True)
    if memory_format is not None and memory_format is not _layout.contiguous_format:
        check_factory_options("contiguous", memory_format=memory_format)
    if input._data.flags.c_contiguous:
        return input
    return CloneBackward0.apply(input, row_major=True)


def _resolve_dtype(args: tuple, kwargs: dict) -> _dtype.dtype | None:
    """The dtype in ``to(dtype)``, ``to(other)``, ``to("cpu", dtype)`` and ``to(dtype=...)``."""
    found = kwargs.get("dtype")
    for a in args:
        if isinstance(a, (_dtype.dtype, np.dtype)):
            found = a
        elif isinstance(a, Tensor):
            found = a.dtype
        elif isinstance(a, (str, device)):
            check_device(a)  # raises for anything but the CPU
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    if "device" in kwargs and kwargs["device"] is not None:
        check_device(kwargs["device"])
    return found


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The tensor in another dtype (a copy in the graph), or itself if nothing changes.

    Example::

        >>> glassgrad.tensor([1.5]).to(glassgrad.float64)
        tensor([1.5000], dtype=glassgrad.float64)
    """
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", None)
    unknown = sorted(set(kwargs) - {"dtype", "device"})
    if unknown:  # PyTorch's parser refuses them; never accept and ignore an argument
        raise TypeError(
            f"to() received an invalid combination of arguments - got an unexpected keyword "
            f"argument {unknown[0]!r}"
        )
    if memory_format is not None and memory_format is not _layout.preserve_format:
        laid_out = contiguous(input, memory_format)  # a copy unless already so laid out
        input, copy = laid_out, copy and laid_out is input
    target = _resolve_dtype(args, kwargs)
    np_dtype = target.numpy if isinstance(target, _dtype.dtype) else target
    if np_dtype is None or np_dtype == input._data.dtype:
        return clone(input) if copy else input
    if np.dtype(np_dtype).kind not in "fc":
        # PyTorch's _to_copy output is differentiable only for a floating dtype: an integer
        # or bool copy is outside the graph (it would otherwise pass gradients back).
        return Tensor._from_array(input._data.astype(np_dtype))
    return ToCopyBackward0.apply(input, dtype=np_dtype)


def _cast_method(dt: _dtype.dtype) -> Any:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        return to(self, dt)

    method.__name__ = {
        "float32": "float",
        "float64": "double",
        "float16": "half",
        "int64": "long",
        "int32": "int",
        "int16": "short",
        "bool": "bool",
        "uint8": "byte",
        "int8": "char",
    }[dt.name]
    method.__doc__ = f"``self.to(glassgrad.{dt.name})``."
    return method


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """Without argument, the legacy type name (``'torch.FloatTensor'``); else ``to(dtype)``
    (``non_blocking`` changes nothing on the CPU)."""
    if dtype is None:
        for name, dt in _LEGACY_TYPE_NAMES.items():
            if dt.numpy == self._data.dtype:
                return f"torch.{name}"
        raise TypeError(f"no legacy type name for {self.dtype}")
    if isinstance(dtype, str):
        dtype = _LEGACY_TYPE_NAMES.get(dtype.removeprefix("torch."), dtype)
    elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), _dtype.dtype):
        dtype = dtype.dtype  # a legacy type: glassgrad.FloatTensor ...
    if isinstance(dtype, str):
        raise ValueError(f"invalid type: '{dtype}'")
    return to(self, dtype)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor in ``other``'s dtype (itself when they already match).

    Example::

        >>> glassgrad.ones(2).type_as(glassgrad.zeros(1, dtype=glassgrad.int64)).dtype
        glassgrad.int64
    """
    return to(self, other.dtype)


_LEGACY_TYPE_NAMES = {
    "FloatTensor": _dtype.float32,
    "DoubleTensor": _dtype.float64,
    "HalfTensor": _dtype.float16,
    "LongTensor": _dtype.int64,
    "IntTensor": _dtype.int32,
    "ShortTensor": _dtype.int16,
    "CharTensor": _dtype.int8,
    "ByteTensor": _dtype.uint8,
    "BoolTensor": _dtype.bool_,
}


def input_dtype_name(t: Tensor) -> str:
    return t._data.dtype.name


# --- in-place writes -----------------------------------------------------------------------


class CopyBackwards(Op):
    """self.copy_(src): the old values get no gradient; src gets it (summed, cast back)."""

    cpp_node = True
    pointwise = True
    unvectorized_kinds = ""  # copy_ of bool is vectorized too

    copies_source = True
    # PyTorch's TensorIterator checks the overlap before the shapes: x.copy_(x[None]) is
    # refused as a partial overlap, not as a shape that does not broadcast.
    errors_after_overlap = "all"

    def forward(self, x: Any, src: Any) -> Any:
        if type(src) is np.ndarray:  # np.broadcast_to's Python layer costs more than the copy
            if src.shape == x.shape:
                return src.astype(x.dtype, copy=False)
            if not src.ndim:  # a number written by setitem, a 0-d tensor: one element read
                spread = np.ndarray(x.shape, src.dtype, buffer=src, strides=(0,) * x.ndim)
                return spread.astype(x.dtype, copy=False)
        # A broadcast shape other than x's is refused by apply_inplace, with PyTorch's message
        shape = infer_size(x.shape, np.shape(src))
        return np.broadcast_to(src, shape).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad) if self.needs_input_grad[0] else None, grad


class ZeroBackward0(Op):
    allows_internal_overlap = True

    def forward(self, x: Any) -> Any:
        # Written into x's own memory: its layout does not matter, and np.zeros costs less than
        # np.zeros_like's Python wrapper.
        return np.zeros(x.shape, x.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad)


class FillBackward2(Op):
    allows_internal_overlap = True

    def forward(self, x: Any, value: Any) -> Any:
        return np.full_like(x, value)

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad)


class FillBackward3(Op):
    """``self.fill_(value)`` with a 0-d tensor ``value``: it gets the gradient's sum. A value
    in self's memory is read first (PyTorch clones it), so it may overlap the target."""

    checks_source_overlap = False

    def forward(self, x: Any, value: Any) -> Any:
        return np.full_like(x, value)

    def backward(self, F: Any, grad: Any) -> Any:
        value_grad = F.sum(grad) if self.needs_input_grad[1] else None
        return zeros_like_grad(F, grad) if self.needs_input_grad[0] else None, value_grad


def copy_(input: Tensor, other: Any, non_blocking: bool = False) -> Tensor:
    """Write ``other`` (broadcast, cast) into ``input`` in place (``non_blocking`` changes
    nothing on the CPU, as in PyTorch).

    Example::

        >>> x = glassgrad.zeros(3); x.copy_(glassgrad.tensor([1.0, 2.0, 3.0]))
        tensor([1., 2., 3.])
    """
    return apply_inplace(CopyBackwards, input, other)


def zero_(input: Tensor) -> Tensor:
    """Fill with zeros in place."""
    return apply_inplace(ZeroBackward0, input)


def fill_(input: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` (a number or a 0-d tensor, which then gets a gradient) in place.

    Example::

        >>> x = glassgrad.zeros(2); x.fill_(glassgrad.tensor(3.0))
        tensor([3., 3.])
    """
    if isinstance(value, Tensor):
        if value.dim():
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.dim()} dimensions."
            )
        return apply_inplace(FillBackward3, input, value)
    value = _dtype.checked_scalar(value, input._data.dtype, "fill_")
    return apply_inplace(FillBackward2, input, value=value)


def _inplace(node: type, name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return apply_inplace(node, self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place version of ``{name.rstrip('_')}``."
    return method


def _inplace_abs(self: Tensor) -> Tensor:
    if self._data.dtype.kind == "c":  # |z| is real: PyTorch will not write it into z
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return apply_inplace(pointwise.AbsBackward0, self)


def _inplace_pow(self: Tensor, exponent: Any) -> Tensor:
    if isinstance(exponent, Tensor):
        return apply_inplace(powers.PowBackward1, self, exponent)
    powers.check_exponent("pow_", exponent)
    return apply_inplace(powers.PowBackward0, self, exponent=exponent)


def _inplace_add(self: Tensor, other: Any, *, alpha: float = 1) -> Tensor:
    return apply_inplace(arithmetic.AddBackward0, self, other, alpha=alpha)


def _inplace_sub(self: Tensor, other: Any, *, alpha: float = 1) -> Tensor:
    return apply_inplace(arithmetic.SubBackward0, self, other, alpha=alpha)


INPLACE_METHODS: dict[str, Any] = {
    "add_": _inplace_add,
    "__iadd__": _inplace_add,
    "sub_": _inplace_sub,
    "__isub__": _inplace_sub,
    "mul_": _inplace(arithmetic.MulBackward0, "mul_"),
    "__imul__": _inplace(arithmetic.MulBackward0, "mul_"),
    "pow_": _inplace_pow,
    "__ipow__": _inplace_pow,
    "neg_": _inplace(arithmetic.NegBackward0, "neg_"),
    "exp_": _inplace(pointwise.ExpBackward0, "exp_"),
    "log_": _inplace(pointwise.LogBackward0, "log_"),
    "sqrt_": _inplace(pointwise.SqrtBackward0, "sqrt_"),
    "sin_": _inplace(pointwise.SinBackward0, "sin_"),
    "cos_": _inplace(pointwise.CosBackward0, "cos_"),
    "tanh_": _inplace(pointwise.TanhBackward0, "tanh_"),
    "sigmoid_": _inplace(pointwise.SigmoidBackward0, "sigmoid_"),
    "relu_": _inplace(pointwise.ReluBackward0, "relu_"),
    "abs_": _inplace_abs,
    "reciprocal_": _inplace(arithmetic.ReciprocalBackward0, "reciprocal_"),
    "copy_": copy_,
    "zero_": zero_,
    "fill_": fill_,
}

CAST_METHODS: dict[str, Any] = {
    m.__name__: m
    for m in map(
        _cast_method,
        (
            _dtype.float32,
            _dtype.float64,
            _dtype.float16,
            _dtype.int64,
            _dtype.int32,
            _dtype.int16,
            _dtype.bool_,
            _dtype.uint8,
            _dtype.int8,
        ),
    )
}

register("clone", clone, nodes=(CloneBackward0,), samples=lambda rng: [Sample((randn(rng, 3, 2),))])
register(
    "to",
    to,
    nodes=(ToCopyBackward0,),
    torch=lambda torch, x, dt: x.to(getattr(torch, dt.name) if hasattr(dt, "name") else dt),
    samples=lambda rng: [Sample((randn(rng, 3, 2), _dtype.float32), gradgrad=False)],
    atol=1e-6,
    rtol=1e-5,
)
register(
    "contiguous",
    contiguous,
    nodes=(CloneBackward0,),
    samples=lambda rng: [Sample((randn(rng, 3, 2).T,))],
    torch=lambda torch, x: x.contiguous(),
)
