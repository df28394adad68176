"""The in-place random fills: ``normal_``, ``uniform_``, ``bernoulli_``, ``exponential_``,
``geometric_``, ``log_normal_``, ``cauchy_``, ``random_``.

Numbers come from the glassgrad Generator passed as ``generator`` (else the default one);
the streams differ from PyTorch's. As in PyTorch, a fill is recorded in the graph with a
zero gradient, and refuses the dtypes PyTorch's kernel has no case for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._factories import Generator, default_generator
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace
from ._common import zeros_like_grad
from ._not_implemented import _not_implemented_for


def _rng(generator: Generator | None) -> np.random.Generator:
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a glassgrad.Generator, not {type(generator).__name__}")
    return (generator or default_generator).rng


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
            raise _continuous_only("Cauchy", _dtype.c_type_name(x.dtype))
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
