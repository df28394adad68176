"""Random sampling ops: bernoulli, multinomial, poisson, normal (tensor forms), and the
in-place fills ``normal_``, ``uniform_``, ``bernoulli_``, ``exponential_``, ``geometric_``,
``log_normal_``, ``cauchy_``, ``random_``.

Numbers come from the glassgrad Generator passed as ``generator`` (else the default one);
the streams differ from PyTorch's. As in PyTorch, sampling is recorded in the graph with a
zero gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._factories import Generator, default_generator
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import check_tensor, zeros_like_grad
from ._not_implemented import _not_implemented_for, _not_implemented_node, refuse_complex
from ._out import out_result
from ._registry import NoGrad, Sample, register
from ._samples import randn


def _rng(generator: Generator | None) -> np.random.Generator:
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a glassgrad.Generator, not {type(generator).__name__}")
    return (generator or default_generator).rng


# The C++ names of the dtypes, as PyTorch's cauchy_ prints them.
_CPP_TYPE_NAMES = {
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "uint8": "unsigned char",
    "uint16": "short unsigned int",
    "uint32": "unsigned int",
    "uint64": "long unsigned int",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _continuous_only(distribution: str, dtype_name: str) -> RuntimeError:
    return RuntimeError(
        f"{distribution} distribution is a continuous probability distribution. dtype must be a "
        f"floating point but you specified {dtype_name}"
    )


class _Fill(Op):
    """An in-place fill with random numbers: the old values do not matter, the gradient of
    the target is zero (a tensor argument, such as bernoulli_'s p, gets zero too).

    ``kernel``/``kernel_kinds``: the name PyTorch's dtype dispatch reports and the dtype kinds
    it has a case for (others raise its NotImplementedError)."""

    kernel = ""
    kernel_kinds = "biufc"
    promotes_result = False  # the parameters (mean, std ...) are not operands

    def forward(self, x: Any, *tensors: Any, **params: Any) -> Any:
        if x.dtype.kind not in self.kernel_kinds:
            raise _not_implemented_for(self.kernel, x.dtype)
        return np.asarray(self.sample(x, *tensors, **params)).astype(x.dtype, copy=False)

    def sample(self, x: np.ndarray, *tensors: Any, **params: Any) -> np.ndarray:
        raise NotImplementedError

    def backward(self, F: Any, grad: Any) -> Any:
        meta = self._meta
        others = (
            None if meta[2 * k] is None else F.zeros(meta[2 * k], meta[2 * k + 1])
            for k in range(1, len(self._next_nodes))
        )
        return (zeros_like_grad(F, grad), *others)


class NormalBackward0(_Fill):
    kernel, kernel_kinds = "normal_kernel_cpu", "fc"
    errors_after_overlap = "none"

    def sample(self, x: np.ndarray, mean: Any, std: Any, generator: Generator | None) -> np.ndarray:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        return _rng(generator).normal(mean, std, x.shape)


class UniformBackward0(_Fill):
    kernel, kernel_kinds = "check_uniform_bounds", "fc"
    errors_after_overlap = "none"

    def sample(self, x: np.ndarray, low: Any, high: Any, generator: Generator | None) -> np.ndarray:
        if low > high:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={low:g} > "
                f"to={high:g}"
            )
        return low + (high - low) * _rng(generator).random(x.shape)


class ExponentialBackward0(_Fill):
    @staticmethod
    def check_after_overlap(data: np.ndarray) -> None:
        if data.dtype.kind != "f":
            raise _continuous_only("Exponential", _dtype.scalar_type_name(data.dtype))

    def sample(self, x: np.ndarray, lambd: Any, generator: Generator | None) -> np.ndarray:
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
        return _rng(generator).exponential(1.0 / lambd, x.shape)


class GeometricBackward0(_Fill):
    kernel, kernel_kinds = "geometric_cpu", "iuf"

    def sample(self, x: np.ndarray, p: Any, generator: Generator | None) -> np.ndarray:
        if p is None:
            raise TypeError('geometric_() missing 1 required positional arguments: "p"')
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
        return _rng(generator).geometric(p, x.shape)


class LogNormalBackward0(_Fill):
    kernel, kernel_kinds = "log_normal_cpu", "f"

    def sample(self, x: np.ndarray, mean: Any, std: Any, generator: Generator | None) -> np.ndarray:
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
        return _rng(generator).lognormal(mean, std, x.shape)


class CauchyBackward0(_Fill):
    def sample(
        self, x: np.ndarray, median: Any, sigma: Any, generator: Generator | None
    ) -> np.ndarray:
        if x.dtype.kind != "f":
            raise _continuous_only("Cauchy", _CPP_TYPE_NAMES[x.dtype.name])
        if not sigma > 0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
        return median + sigma * _rng(generator).standard_cauchy(x.shape)


def _check_probability(p: Any, op: str) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"{op} expects p to be in [0, 1], but got p={p:g}")


class BernoulliBackward2(_Fill):
    """bernoulli_ with a number p"""

    kernel, kernel_kinds = "bernoulli_scalar_cpu_", "biuf"

    def sample(self, x: np.ndarray, p: Any, generator: Generator | None) -> np.ndarray:
        _check_probability(p, "bernoulli_")
        return _rng(generator).random(x.shape) < p


class BernoulliBackward1(_Fill):
    """bernoulli_ with a tensor of probabilities p (broadcast to the target)"""

    kernel, kernel_kinds = "bernoulli_tensor_cpu_self_", "biuf"

    def sample(self, x: np.ndarray, p: Any, generator: Generator | None) -> np.ndarray:
        p = np.broadcast_to(p, x.shape)
        if np.any((p < 0) | (p > 1)):
            raise RuntimeError("bernoulli_: all values of p must be in [0, 1]")
        return _rng(generator).random(x.shape) < p


def _random_bounds(dtype: np.dtype, low: Any, high: Any) -> tuple:
    """``random_``'s range: [0, 2**mantissa] for floats and [0, max] for integers when no
    bound is given, [0, to) with one, [from, to) with two."""
    if low is None:
        if dtype.kind == "f":
            return 0, 2 ** (np.finfo(dtype).nmant + 1) + 1
        if dtype.kind == "b":
            return 0, 2
        return 0, int(np.iinfo(dtype).max) + 1
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return low, high


class _Random(_Fill):
    kernel, kernel_kinds = "random_kernel_cpu", "biuf"

    def sample(self, x: np.ndarray, low: Any, high: Any, generator: Generator | None) -> np.ndarray:
        low, high = _random_bounds(x.dtype, low, high)
        return _rng(generator).integers(low, high, x.shape, dtype=np.int64, endpoint=False)


class RandomBackward0(_Random):
    """random_(from, to)"""


class RandomBackward1(_Random):
    """random_(to)"""


class RandomBackward2(_Random):
    """random_()"""


def _fill_method(node: type, name: str, defaults: tuple, doc: str) -> Any:
    names = [n for n, _ in defaults]

    def method(self: Tensor, *args: Any, generator: Generator | None = None, **kwargs: Any):
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments ({len(args)} given)")
        values = dict(defaults)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            values[key] = value
        return apply_inplace(node, self, *values.values(), generator=generator)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


normal_: Callable[..., Any] = _fill_method(
    NormalBackward0,
    "normal_",
    (("mean", 0.0), ("std", 1.0)),
    """Fill with normal samples of ``mean`` and ``std``, in place.

Example::

    >>> glassgrad.empty(3).normal_(0.0, 2.0).shape
    glassgrad.Size([3])
""",
)
uniform_: Callable[..., Any] = _fill_method(
    UniformBackward0,
    "uniform_",
    (("from", 0.0), ("to", 1.0)),
    "Fill with uniform samples from ``[from, to)``, in place.",
)
exponential_: Callable[..., Any] = _fill_method(
    ExponentialBackward0,
    "exponential_",
    (("lambd", 1.0),),
    "Fill with exponential samples of rate ``lambd``, in place.",
)
geometric_: Callable[..., Any] = _fill_method(
    GeometricBackward0,
    "geometric_",
    (("p", None),),
    "Fill with geometric samples (trials to the first success, from 1), in place.",
)
log_normal_: Callable[..., Any] = _fill_method(
    LogNormalBackward0,
    "log_normal_",
    (("mean", 1.0), ("std", 2.0)),
    "Fill with samples whose logarithm is normal of ``mean`` and ``std``, in place.",
)
cauchy_: Callable[..., Any] = _fill_method(
    CauchyBackward0,
    "cauchy_",
    (("median", 0.0), ("sigma", 1.0)),
    "Fill with Cauchy samples, in place.",
)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 (probability ``p``, a number or a tensor) or 0, in place.

    Example::

        >>> glassgrad.empty(3).bernoulli_(1.0)
        tensor([1., 1., 1.])
    """
    if isinstance(p, Tensor):
        return apply_inplace(BernoulliBackward1, self, p, generator=generator)
    return apply_inplace(BernoulliBackward2, self, p, generator=generator)


def random_(
    self: Tensor, from_: Any = None, to: Any = None, *, generator: Generator | None = None
) -> Tensor:
    """Fill with random integers: ``random_(from, to)`` from ``[from, to)``, ``random_(to)``
    from ``[0, to)``, ``random_()`` over the dtype's exactly representable integers.

    Example::

        >>> bool((glassgrad.empty(5).random_(3) < 3).all())
        True
    """
    node = RandomBackward2 if from_ is None else RandomBackward1 if to is None else RandomBackward0
    return apply_inplace(node, self, from_, to, generator=generator)


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
        result.normal_(mean, std, generator=generator)
        if requires_grad:
            result.requires_grad_()
        return out_result("normal", out, result, ())
    if size is not None:
        raise TypeError("normal(): size is only accepted with a number mean and std")
    if tensors == (True, False):
        node = NormalBackward1
        check = std
    elif tensors == (False, True):
        node = NormalBackward2
        check = None
    else:
        node, check = NormalBackward3, None
    if check is not None and check < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {check:g}")
    result = node.apply(mean, std, generator=generator)
    return out_result("normal", out, result, (mean, std))


TENSOR_METHODS: dict[str, Any] = {
    "normal_": normal_,
    "uniform_": uniform_,
    "exponential_": exponential_,
    "geometric_": geometric_,
    "log_normal_": log_normal_,
    "cauchy_": cauchy_,
    "bernoulli_": bernoulli_,
    "random_": random_,
}


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
