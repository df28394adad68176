"""Random sampling ops returning new tensors: bernoulli, multinomial, poisson, binomial,
normal (tensor forms); the in-place fills are in ``random_fills.py``.

Numbers come from the glassgrad Generator passed as ``generator`` (else the default one);
the streams differ from PyTorch's. As in PyTorch, sampling is recorded in the graph with a
zero gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._factories import Generator
from .._tensor import Tensor
from ..autograd.op import Op
from ._common import check_tensor, infer_size, zeros_like_grad
from ._not_implemented import _not_implemented_node, refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .random_fills import _check_probability, _Fill, _rng

# --- ops returning new tensors --------------------------------------------------------------


class BernoulliBackward0(Op):
    """out ~ Bernoulli(input); zero gradient"""

    def forward(self, p: Any, generator: Any) -> Any:
        if p.dtype.kind != "f":
            raise NotImplementedError(
                f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_dtype.scalar_type_name(p.dtype)}'"
            )
        if np.any((p < 0) | (p > 1)):
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
        return (_rng(generator).random(p.shape) < p).astype(p.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad)


def _bernoulli_scalar_p(x: np.ndarray, p_and_generator: tuple) -> np.ndarray:
    p, generator = p_and_generator
    return (_rng(generator).random(x.shape) < p).astype(x.dtype)


# bernoulli(input, p): PyTorch records it with a NotImplemented node (its backward raises).
BernoulliNotImplemented: type[Op] = _not_implemented_node("bernoulli", _bernoulli_scalar_p)


def bernoulli(
    input: Tensor, p: float | None = None, *, generator: Generator | None = None, out: Any = None
) -> Tensor:
    """Samples of 1 with probability ``input`` (elementwise), else 0; with ``p``, every
    element has probability ``p`` (``input`` gives the shape and dtype).

    Example::

        >>> glassgrad.bernoulli(glassgrad.tensor([0.0, 1.0]))
        tensor([0., 1.])
    """
    check_tensor(input, "bernoulli")
    if p is None:
        result = BernoulliBackward0.apply(input, generator=generator)
    else:
        _check_probability(p, "bernoulli_")
        result = BernoulliNotImplemented.apply(input, after=(p, generator))
    # PyTorch samples into out of any dtype, resized without a warning.
    return out_result("bernoulli", out, result, (input,), resize_warning=False, casting="unsafe")


class PoissonBackward0(Op):
    """out ~ Poisson(input); zero gradient"""

    def forward(self, rates: Any, generator: Any) -> Any:
        if np.any(rates < 0) or not np.all(np.isfinite(rates)):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return _rng(generator).poisson(rates).astype(rates.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        return zeros_like_grad(F, grad)


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Poisson samples with the rates in ``input``.

    Example::

        >>> glassgrad.poisson(glassgrad.zeros(2))
        tensor([0., 0.])
    """
    check_tensor(input, "poisson")
    refuse_complex("poisson_cpu", input)
    return PoissonBackward0.apply(input, generator=generator)


def _binomial_arrays(count: np.ndarray, prob: np.ndarray, generator: Any) -> np.ndarray:
    for name, values in (("count", count), ("prob", prob)):
        if values.dtype.kind != "f":
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: "
                f"{_dtype.scalar_type_name(values.dtype)}"
            )
    if prob.dtype != count.dtype:  # PyTorch's kernel reads prob in count's dtype
        raise RuntimeError(
            f"Found dtype {_dtype.scalar_type_name(prob.dtype)} but expected "
            f"{_dtype.scalar_type_name(count.dtype)}"
        )
    draws = _rng(generator).binomial(count.astype(np.int64), np.clip(prob, 0.0, 1.0))
    return draws.astype(count.dtype)


# PyTorch records binomial with a NotImplemented node (no derivative).
BinomialNotImplemented: type[Op] = _not_implemented_node("binomial", _binomial_arrays)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Binomial samples: successes in ``count`` trials of probability ``prob`` (float
    tensors, broadcast).

    Example::

        >>> glassgrad.binomial(glassgrad.tensor([5.0]), glassgrad.tensor([1.0]))
        tensor([5.])
    """
    check_tensor(count, "binomial", "count")
    check_tensor(prob, "binomial", "prob", 2)
    return BinomialNotImplemented.apply(count, prob, after=generator)


_COMPARISONS_AT_ONCE = 1 << 20  # draws x categories compared in one array, at most


def _draw_with_replacement(rng: np.random.Generator, p: np.ndarray, count: int) -> np.ndarray:
    """``count`` categories per row of probabilities ``p``: row by row what
    ``rng.choice(n, count, p=row)`` draws (the inverse of each row's normalised cumulative sum
    at ``rng.random(count)``), all rows from one stream of uniforms."""
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    uniform = rng.random((p.shape[0], count))
    if cdf.size * count <= _COMPARISONS_AT_ONCE:
        # searchsorted(side="right") of a sorted row: how many of its values are <= the draw.
        return (cdf[:, None, :] <= uniform[:, :, None]).sum(axis=2, dtype=np.int64)
    return np.stack([c.searchsorted(u, side="right") for c, u in zip(cdf, uniform)]).astype(
        np.int64
    )


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
    out: Any = None,
) -> Tensor:
    """``num_samples`` category indices per row, drawn with the (unnormalised) weights of
    ``input`` (1-d or 2-d), with or without replacement.

    Example::

        >>> glassgrad.multinomial(glassgrad.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
    """
    check_tensor(input, "multinomial")
    weights = input._data
    if weights.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if weights.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{_dtype.scalar_type_name(weights.dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = np.atleast_2d(weights).astype(np.float64)
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = rows.sum(axis=1)
    if (totals <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    if replacement:
        drawn = _draw_with_replacement(rng, rows / totals[:, None], num_samples)
    else:
        # Without replacement: the categories with the smallest exponential race times
        # (Gumbel-top-k), which never picks a zero-weight category before the others.
        with np.errstate(divide="ignore"):
            keys = rng.exponential(size=rows.shape) / rows
        drawn = np.ascontiguousarray(np.argsort(keys, axis=1, kind="stable")[:, :num_samples])
    result = Tensor._from_array(drawn if weights.ndim == 2 else drawn[0])
    return out_result("multinomial", out, result, (input,), resize_warning=False)


class _NormalTensors(_Fill):
    """out = mean + std * eps with eps ~ N(0, 1); zero gradients, as PyTorch's (it does not
    reparameterise: use ``mean + std * randn_like(std)`` for that)."""

    def forward(self, mean: Any, std: Any, generator: Any) -> Any:
        std_values = np.asarray(std)
        if np.any(std_values < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
        dtype = (mean if isinstance(mean, np.ndarray) else std_values).dtype
        eps = _rng(generator).standard_normal(shape).astype(dtype)
        return np.asarray(mean + std * eps, dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        meta = self._meta
        return tuple(
            None if meta[2 * k] is None else F.zeros(meta[2 * k], meta[2 * k + 1]) for k in (0, 1)
        )


class NormalBackward1(_NormalTensors):
    """normal(mean tensor, std number)"""


class NormalBackward2(_NormalTensors):
    """normal(mean number, std tensor)"""


class NormalBackward3(_NormalTensors):
    """normal(mean tensor, std tensor)"""


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Normal samples: elementwise means and standard deviations from tensors (broadcast),
    or numbers with a ``size``. The gradients are zero, as in PyTorch.

    Example::

        >>> glassgrad.normal(glassgrad.zeros(3), 0.0)
        tensor([0., 0., 0.])
        >>> glassgrad.normal(0.0, 2.0, (3,)).shape
        glassgrad.Size([3])
    """
    tensors = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not any(tensors):
        if size is None:
            raise TypeError("normal(): with a number mean and std, a size is required")
        from .._factories import empty

        result = empty(size, dtype=dtype, device=device)
        _check_normal_out(out)
        result.normal_(mean, std, generator=generator)
        if requires_grad:
            result.requires_grad_()
        # PyTorch resizes out to ``size`` (resize_, no warning) and fills it in place
        return out_result("normal", out, result, (), resize_warning=False)
    factory = dict(size=size, dtype=dtype, layout=layout, device=device)
    given = [k for k, v in factory.items() if v is not None] + ["requires_grad"] * requires_grad
    if given or pin_memory:  # only the (float, float, size) overload takes them
        raise TypeError(
            f"normal() received an invalid combination of arguments - got {given or 'pin_memory'} "
            "with a tensor mean or std: only normal(float, float, size, ...) takes them"
        )
    node = {(True, False): NormalBackward1, (False, True): NormalBackward2}.get(
        tensors, NormalBackward3
    )
    check = std if node is NormalBackward1 else None
    if check is not None and check < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {check:g}")
    if node is NormalBackward1 and isinstance(out, Tensor):
        # PyTorch fills the broadcast of mean's shape and out's own, then adds mean: an out
        # of more elements is filled whole, an empty one is an error
        mean = mean.expand(infer_size(mean._data.shape, out._data.shape))
    _check_normal_out(out)
    result = node.apply(mean, std, generator=generator)
    return out_result("normal", out, result, (mean, std))


def _check_normal_out(out: Any) -> None:
    """PyTorch's normal kernel fills floating and complex tensors only."""
    if isinstance(out, Tensor) and out._data.dtype.kind not in "fc":
        raise NotImplementedError(
            f"\"normal_kernel_cpu\" not implemented for '{_dtype.scalar_type_name(out._data.dtype)}'"
        )


# Deterministic samples (probabilities 0 and 1, one-hot weights, std 0) compare exactly with
# PyTorch (no finite differences: PyTorch defines these gradients as zero); the
# distributions themselves are tested statistically in tests/ops/test_random.py.
register(
    "bernoulli",
    bernoulli,
    nodes=(BernoulliBackward0,),
    samples=lambda rng: [
        Sample((np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]),), fd=False),
        Sample((NoGrad(np.array([0.0, 1.0])),)),
        Sample((NoGrad(randn(rng, 2, 3)), 1.0)),
        Sample((NoGrad(randn(rng, 2, 3)), 0.0)),
    ],
)
register(
    "multinomial",
    multinomial,
    differentiable=False,
    samples=lambda rng: [
        Sample((NoGrad(np.array([0.0, 2.0, 0.0])), 3, True)),
        Sample((NoGrad(np.array([[0.0, 0.0, 0.5], [1.0, 0.0, 0.0]])), 1)),
        Sample((NoGrad(np.array([[0.0, 0.0, 0.5], [1.0, 0.0, 0.0]])), 2), {"replacement": True}),
    ],
)
register(
    "binomial",
    binomial,
    nodes=(BinomialNotImplemented,),
    methods=(),
    differentiable=False,
    samples=lambda rng: [
        Sample((NoGrad(np.array([[5.0, 3.0], [0.0, 7.0]])), NoGrad(np.array([1.0, 0.0])))),
        Sample((NoGrad(np.array([2.0, 4.0])), NoGrad(np.array([0.0, 1.0])))),
    ],
)
register(
    "poisson",
    poisson,
    nodes=(PoissonBackward0,),
    methods=(),
    samples=lambda rng: [Sample((np.zeros((2, 3)),), fd=False)],
)
register(
    "normal",
    normal,
    nodes=(NormalBackward1, NormalBackward3),
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 2, 3), 0.0), fd=False),
        Sample((randn(rng, 2, 3), NoGrad(np.zeros(3))), fd=False),
        Sample((randn(rng), NoGrad(np.zeros((2, 2)))), fd=False),
        Sample((1.5, 0.0, (2, 3))),
    ],
)
