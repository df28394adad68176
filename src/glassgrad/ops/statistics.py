"""Statistics over tensors: nansum, nanmean, aminmax, quantile, nanquantile, cov, corrcoef.

``nansum`` is an op of its own (NaN elements get no gradient); the others are PyTorch's own
composites of sum, amin/amax, sort, gather and lerp, so their gradients are those ops'.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import c_type_name, float32, scalar_type_name, to_numpy_dtype
from .._tensor import Tensor
from ..autograd.op import Op
from ..autograd.views import own_temporary_view
from ._common import array_of, check_tensor, sum_defined, wrap_dim, wrap_dims
from ._not_implemented import refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .complex import complex as complex_from_parts
from .complex_views import imag, real
from .division import true_divide
from .fused_arithmetic import lerp
from .pointwise import where
from .reduction import _integer_accumulator, _restore, check_mean_dtype, sum
from .shape import reshape, unsqueeze
from .sorting import sort


class NansumBackward0(Op):
    """out = sum of the non-NaN elements over ``dims``; NaN elements get no gradient"""

    dims: Any
    keepdim: Any

    saved_inputs: tuple[int, ...] = (0,)
    __slots__ = ("dims", "keepdim")

    def forward(
        self, x: Any, dims: Any, keepdim: Any, dtype: Any = None, kernel_dtype: bool = False
    ) -> Any:
        self.dims, self.keepdim = dims, keepdim
        if x.dtype.kind in "biu":  # no NaN to skip: sum's rules (int64, or the dtype asked)
            x = _integer_accumulator(x, dtype)
            return np.asarray(np.sum(x, axis=dims, keepdims=keepdim, dtype=x.dtype))
        if dtype is None:
            return np.asarray(np.nansum(x, axis=dims, keepdims=keepdim))
        target = to_numpy_dtype(dtype)
        # PyTorch's kernel has no complex case, nor (for an out='s dtype, ``kernel_dtype``) an
        # integral one; else each element, NaN as 0, is cast to the dtype and summed in it
        if target.kind == "c" or (kernel_dtype and target.kind != "f"):
            raise NotImplementedError(
                f"\"nansum_cpu\" not implemented for '{scalar_type_name(target)}'"
            )
        x = _integer_accumulator(np.where(np.isnan(x), x.dtype.type(0), x), dtype)
        return np.asarray(np.sum(x, axis=dims, keepdims=keepdim, dtype=x.dtype))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        values = array_of(x)
        if self.dims is not None and not self.keepdim:
            grad = F.unsqueeze_dims(grad, self.dims)
        # PyTorch's grad * isnan(x).logical_not(): an infinite gradient times 0 is NaN.
        present = (~np.isnan(values)).astype(values.dtype)
        return F.expand(grad, values.shape) * present


def nansum(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Any = None
) -> Tensor:
    """``sum`` treating NaN as zero. With ``out=``, computed in ``out``'s dtype (floating
    only, as PyTorch's kernel) unless ``dtype`` is given, which ``out`` must then have.

    Example::

        >>> glassgrad.nansum(glassgrad.tensor([1.0, float("nan"), 2.0]))
        tensor(3.)
    """
    check_tensor(input, "nansum")
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dims = wrap_dims(dim, input._data.ndim, "nansum")
    if dims == ():
        dims = None
    from_out = isinstance(out, Tensor)
    if from_out and dtype is not None and to_numpy_dtype(dtype) != out._data.dtype:
        asked = to_numpy_dtype(dtype)
        if asked.kind in "biu" or input._data.dtype.kind in "biu":  # sum's check, as sum's
            raise RuntimeError(
                f"Expected out tensor to have dtype {c_type_name(asked)}, but got "
                f"{c_type_name(out._data.dtype)} instead"
            )
        raise RuntimeError(
            f"nansum: provided dtype must match dtype of result. Got "
            f"{scalar_type_name(out._data.dtype)} and {scalar_type_name(asked)}."
        )
    kernel_dtype = from_out and dtype is None
    result = NansumBackward0.apply(
        input,
        dims=dims,
        keepdim=keepdim,
        dtype=out.dtype if kernel_dtype else dtype,
        kernel_dtype=kernel_dtype,
    )
    return out_result("nansum", out, result, (input,))


def nanmean(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Any = None
) -> Tensor:
    """``mean`` over the non-NaN elements (NaN where there are none); with ``out=``, the
    ``nansum`` into ``out`` divided in place by the count, as PyTorch's.

    Example::

        >>> glassgrad.nanmean(glassgrad.tensor([1.0, float("nan"), 2.0]))
        tensor(1.5000)
    """
    check_tensor(input, "nanmean")
    kind = input._data.dtype.kind
    if kind in "biu" and out is not None:  # nanmean's out= overload words it so
        raise RuntimeError(
            "nanmean(): integral types and 'Bool' are not supported for nanmean, even for "
            "empty tensors."
        )
    if kind not in "fc":  # a complex input is refused by nansum
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{scalar_type_name(input._data.dtype)}"
        )
    if dtype is not None:
        check_mean_dtype("nanmean", input._data, dtype)
    present = Tensor._from_array(~np.isnan(input._data))
    count = sum(present, dim, keepdim)
    if out is None:
        return nansum(input, dim, keepdim, dtype=dtype) / count
    return nansum(input, dim, keepdim, dtype=dtype, out=out).div_(count)


class AminmaxBackward0(Op):
    """(min, max) over ``dim`` (all dims if None) in one node with two outputs, as PyTorch's;
    each output's gradient is shared evenly among the elements that reach it (amin's and
    amax's), the two summed where both are defined."""

    dim: Any
    keepdim: Any

    saved_inputs: tuple[int, ...] = (0,)
    saved_outputs: tuple[int, ...] = (0, 1)
    takes_undefined_grads = True
    __slots__ = ("dim", "keepdim")

    def forward(self, x: Any, dim: Any = None, keepdim: Any = False) -> Any:
        self.dim, self.keepdim = dim, keepdim
        axis = None if dim is None else (dim,)
        return np.min(x, axis, keepdims=keepdim), np.max(x, axis, keepdims=keepdim)

    def backward(self, F: Any, grads: Any) -> Any:
        x, low, high = self.saved
        xv = array_of(x)
        dims = None if self.dim is None else (self.dim,)
        terms = []
        for grad, result in zip(grads, (low, high)):
            if grad is None:
                terms.append(None)
                continue
            value = array_of(result)
            if dims is None:
                value = value.reshape(-1)[0]
            elif not self.keepdim:
                value = np.expand_dims(value, dims)
            reached = xv == value
            count = reached.sum(axis=dims, keepdims=True).astype(xv.dtype)
            # PyTorch's scale_grad_by_count: (grad / count) * mask.
            terms.append(_restore(F, grad, dims, self.keepdim) / count * reached.astype(xv.dtype))
        return sum_defined(*terms)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, ...]:
    """``(min, max)`` of all elements or over ``dim``; ties share the gradient evenly.

    Example::

        >>> glassgrad.aminmax(glassgrad.tensor([3.0, 1.0, 2.0]))
        aminmax(min=tensor(1.), max=tensor(3.))
    """
    data = check_tensor(input, "aminmax")._data
    refuse_complex("aminmax_cpu", input)
    if dim is None:
        if data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
    else:
        dim = wrap_dim(dim, data.ndim, "aminmax")
        if data.ndim == 0:
            dim = None
        elif data.shape[dim] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
    return return_types.aminmax(*AminmaxBackward0.apply(input, dim=dim, keepdim=keepdim))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(
    name: str, input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool
) -> Tensor:
    check_tensor(input, name)
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    qs = np.asarray(q if scalar_q else q._data, dtype=np.float64)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if not scalar_q and q._data.dtype != data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if np.any((qs < 0) | (qs > 1)):
        if scalar_q:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {float(q):g}")
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        x, d = reshape(input, (-1,)), 0
    else:
        d = wrap_dim(dim, data.ndim, name)
        x = input if data.ndim else reshape(input, (1,))
    values, _ = sort(x, d)
    sorted_data = values._data
    n = sorted_data.shape[d]
    nan = np.isnan(sorted_data)
    if ignore_nan:
        last = (n - nan.sum(axis=d, keepdims=True)) - 1
    else:
        last = np.full_like(nan.sum(axis=d, keepdims=True), n - 1)
    # PyTorch's ranks are q * (count - 1): a q that requires grad gets lerp's gradient
    # through the linear interpolation's weight (ranks - below); rows holding NaN take the
    # last rank, a constant, in quantile
    scale = np.maximum(last, 0).astype(np.float64)
    masked = np.zeros(scale.shape, bool) if ignore_nan else nan.any(axis=d, keepdims=True)
    q_grad = not scalar_q and q.requires_grad and interpolation == "linear"
    results = []
    for k, fraction in enumerate(qs.reshape(-1)):
        ranks = np.where(masked, n - 1, fraction * scale)
        below = np.floor(ranks)
        above = np.ceil(ranks)
        if interpolation == "lower":
            above = below
        elif interpolation == "higher":
            below = above
        elif interpolation == "nearest":
            below = above = np.round(ranks)  # half to even, as PyTorch's round
        low = values.gather(d, Tensor._from_array(np.clip(below, 0, n - 1).astype(np.int64)))
        high = values.gather(d, Tensor._from_array(np.clip(above, 0, n - 1).astype(np.int64)))
        if interpolation == "midpoint":
            weight = Tensor._from_array(np.full(ranks.shape, 0.5, sorted_data.dtype))
        elif q_grad:
            rank = reshape(q, (-1,))[k] * Tensor._from_array(scale.astype(sorted_data.dtype))
            rank = where(Tensor._from_array(masked), float(n - 1), rank)
            weight = rank - Tensor._from_array(below.astype(sorted_data.dtype))
        else:
            weight = Tensor._from_array((ranks - below).astype(sorted_data.dtype))
        result = lerp(low, high, weight)  # PyTorch's lerp_, whose rounding it shares
        if ignore_nan:
            empty = last < 0  # every element NaN
            result = where(Tensor._from_array(empty), float("nan"), result)
        results.append(result if keepdim else result.squeeze(d))
    if dim is not None and not data.ndim and not keepdim:
        results = [r.squeeze(0) if r.dim() else r for r in results]
    if dim is None and keepdim:
        results = [reshape(r, (1,) * data.ndim) for r in results]
    elif dim is None:
        results = [reshape(r, ()) for r in results]
    # PyTorch's quantile reshapes its own result in place: no view of a temporary.
    if scalar_q or qs.ndim == 0:
        return own_temporary_view(results[0])
    return own_temporary_view(unsqueeze(results[0], 0)) if len(results) == 1 else _stack(results)


def _stack(results: list) -> Tensor:
    from .shape import stack

    return stack(results, 0)


def quantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """The ``q``-th quantiles (``q`` a number or a 1-d tensor, in [0, 1]) of all elements
    or along ``dim``; ``interpolation`` between the two nearest ranks: "linear", "lower",
    "higher", "midpoint" or "nearest". NaN if a reduced slice holds NaN.

    Example::

        >>> glassgrad.quantile(glassgrad.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)
        tensor(2.5000)
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """``quantile`` ignoring NaN elements (NaN only where a slice is all NaN).

    Example::

        >>> glassgrad.nanquantile(glassgrad.tensor([1.0, float("nan"), 3.0]), 0.5)
        tensor(2.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def cov(
    input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Any = None
) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in its
    columns), with frequency and analytic weights as NumPy's ``cov``.

    Example::

        >>> glassgrad.cov(glassgrad.tensor([[0.0, 2.0], [1.0, 1.0]]))
        tensor([[ 2., -1.],
                [-1.,  0.5]])
    """
    check_tensor(input, "cov")
    if input._data.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    if input._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input._data.ndim == 2 else input.view(1, -1)
    observations = x._data.shape[1]
    weights = None
    if fweights is not None:
        weights = _checked_cov_weights(fweights, "fweights", observations)
    if aweights is not None:
        aweights = _checked_cov_weights(aweights, "aweights", observations)
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        w_sum = Tensor._from_array(np.asarray(observations, np.int64))
    else:
        w_sum = sum(weights)
        if not w_sum._data != 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = sum(x if weights is None else x * weights, 1) / w_sum
    if weights is None:
        norm = Tensor._from_array(np.asarray(observations - correction, np.int64))
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    elif fweights is None and observations == 1 and correction == 1:
        norm = Tensor._from_array(np.asarray(0, np.int64))  # PyTorch's corner case, as NumPy's
    else:
        norm = w_sum - correction * sum(weights * aweights) / w_sum
    if norm._data <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm.zero_()
    if observations == 1 and (fweights is None) != (aweights is None):
        # PyTorch's corner case zeroes its `in`: the input itself, or a view of it.
        centered = x.zero_()
        if centered._data.dtype.kind in "iu":
            centered = centered.to(float32)
    else:
        centered = x - unsqueeze(avg, 1)
    c = centered @ (centered if weights is None else centered * weights).t().conj()
    return true_divide(c, norm).squeeze()


def _checked_cov_weights(weights: Any, name: str, observations: int) -> Tensor:
    """cov's checks of ``fweights`` (integers) or ``aweights`` (floating), in PyTorch's order."""
    check_tensor(weights, "cov", name)
    data = weights._data
    if data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{data.ndim} dimensions"
        )
    if data.dtype.kind not in ("iu" if name == "fweights" else "f"):
        kind = "integral" if name == "fweights" else "floating point"
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with "
            f"{scalar_type_name(data.dtype)} dtype"
        )
    if data.size != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {data.size} != {observations}"
        )
    if observations and data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return weights


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of ``input``, clipped
    to [-1, 1].

    Example::

        >>> glassgrad.corrcoef(glassgrad.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]))[0, 1]
        tensor(0.9934)
    """
    check_tensor(input, "corrcoef")
    if input._data.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = (real(d) if d.is_complex() else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        return complex_from_parts(real(c).clip(-1, 1), imag(c).clip(-1, 1))
    return c.clip(-1, 1)


register(
    "nansum",
    nansum,
    nodes=(NansumBackward0,),
    samples=lambda rng: [
        Sample((_with_nan(rng, 3, 4),)),
        Sample((_with_nan(rng, 3, 4), 1)),
        Sample((_with_nan(rng, 3, 4), (0, 1), True)),
        Sample((randn(rng, 2, 3), -1)),
        Sample((randn(rng),)),
        Sample((np.array([[1, 2], [3, 4]]), 0)),
    ],
)
register(
    "nanmean",
    nanmean,
    samples=lambda rng: [
        Sample((_with_nan(rng, 3, 4),)),
        Sample((_with_nan(rng, 3, 4), 1)),
        Sample((_with_nan(rng, 3, 4), 0, True), fd=False, note="an all-NaN column: NaN grad"),
        Sample((randn(rng),)),
    ],
)
register(
    "aminmax",
    aminmax,
    nodes=(AminmaxBackward0,),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 3, 4),), {"dim": 1}),
        Sample((randn(rng, 3, 4),), {"dim": 0, "keepdim": True}),
        Sample((randn(rng, 3, 4),), {"keepdim": True}),
        Sample((np.array([1.0, 3.0, 3.0]),), fd=False, note="ties share the gradient"),
        Sample((np.array([[1, 5], [3, 2]]),), {"dim": 0}),
    ],
)


def _with_nan(rng: np.random.Generator, *shape: int) -> np.ndarray:
    values = randn(rng, *shape)
    values.reshape(-1)[:: max(1, values.size // 3)] = np.nan
    return values


def _quantile_samples(rng):
    x = randn(rng, 3, 5)
    return [
        Sample((x, 0.3)),
        Sample((randn(rng, 3, 5), 0.5, 1)),
        Sample((randn(rng, 3, 4), NoGrad(np.array([0.1, 0.5, 0.9])), 0, True)),
        Sample((randn(rng, 3, 4), np.array([0.2, 0.7]), 1), note="q's gradient: lerp's weight"),
        Sample((randn(rng, 3, 4), np.array(0.45), 0, True), {"interpolation": "lower"}),
        *[
            Sample((randn(rng, 4, 5), 0.35, 1), {"interpolation": mode})
            for mode in ("lower", "higher", "midpoint", "nearest")
        ],
        Sample((randn(rng, 6), 0.5), {"interpolation": "nearest"}),
        Sample((randn(rng), 0.2)),
        Sample((randn(rng, 2, 3), 0.25), {"keepdim": True}),
        Sample((_with_nan(rng, 3, 4), 0.5, 1), fd=False),
    ]


register("quantile", quantile, samples=_quantile_samples)
register("nanquantile", nanquantile, samples=_quantile_samples)
register(
    "cov",
    cov,
    samples=lambda rng: [
        Sample((randn(rng, 3, 5),)),
        Sample((randn(rng, 3, 5),), {"correction": 0}),
        Sample((randn(rng, 5),)),
        Sample((randn(rng, 1, 5),)),  # one variable: a 0-d result
        Sample((randn(rng, 2, 4),), {"fweights": np.array([1, 2, 1, 3])}),
        Sample((randn(rng, 2, 4),), {"aweights": NoGrad(1.0 - rng.random(4))}),
        Sample(
            (randn(rng, 2, 4),),
            {"fweights": np.array([1, 2, 1, 3]), "aweights": 1.0 - rng.random(4)},
        ),
    ],
)
register(
    "corrcoef",
    corrcoef,
    samples=lambda rng: [
        Sample((randn(rng, 3, 5),)),
        Sample((randn(rng, 2, 6),)),
        Sample((randn(rng, 1, 6),)),
    ],
)
