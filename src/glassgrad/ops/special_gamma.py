"""The gamma family: lgamma, digamma, polygamma, the multivariate log-gamma (mvlgamma), the
regularized incomplete gamma functions (igamma, igammac) and the Hurwitz zeta function.

Values come from ``scipy.special`` (imported on first use, see ``_scipy.py``); derivatives are
PyTorch's (``derivatives.yaml``): lgamma -> digamma -> polygamma(n + 1), and where PyTorch has
none (igamma's and zeta's first argument) the backward raises PyTorch's NotImplementedError.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtype import can_cast, default_numpy_float, result_numpy_dtype, scalar_type_name
from .._strides import row_major
from .._tensor import Tensor
from ..autograd.op import Op, apply_inplace, check_inplace_operands
from ._common import check_tensor, float_kernel, floating_operands
from ._not_implemented import refuse_complex
from ._out import kernel_result, out_result, unary_kernel
from ._registry import NoGrad, Sample, register
from ._samples import positive, randn
from ._scipy import scipy_special
from .special import SPECIAL, binary_special

_LOG_PI = math.log(math.pi)
# PyTorch dispatches polygamma(0) and (1) to its digamma and trigamma kernels.
_POLYGAMMA_KERNELS = {0: "digamma", 1: "trigamma"}


def _lgamma(x: np.ndarray) -> np.ndarray:
    out = scipy_special("lgamma").gammaln(x)
    return np.where(x == -np.inf, np.inf, out)  # PyTorch: |Gamma| grows without bound there


def _zeta(x: Any, q: Any) -> np.ndarray:
    refuse_complex("zeta_cpu", x, q)
    out = scipy_special("zeta").zeta(x, q)
    return np.where((q == np.inf) & (x != 1), np.nan, out)  # PyTorch's Cephes zeta


def _trigamma(x: np.ndarray) -> np.ndarray:
    """PyTorch's calc_trigamma, step by step in x's dtype: the reflection below 1/2, six
    recurrence steps, the asymptotic series. At the poles (0, -1, -2 ...) sin(pi x) rounds to
    a tiny nonzero value, so the result is large and finite, as PyTorch's (not inf)."""
    x = np.asarray(x)
    one = x.dtype.type(1)
    pi = x.dtype.type(math.pi)
    reflect = x < 0.5
    with np.errstate(all="ignore"):
        sin_pi_x = np.sin(pi * x)
        result = np.where(reflect, -(pi * pi) / (sin_pi_x * sin_pi_x), 0).astype(x.dtype)
        x = np.where(reflect, one - x, x)
        for _ in range(6):
            result = result + one / (x * x)
            x = x + one
        ixx = one / (x * x)
        sixth, thirtieth, fortysecond = (x.dtype.type(1 / k) for k in (6, 30, 42))
        series = one + one / (2 * x) + ixx * (sixth - ixx * (thirtieth - ixx * fortysecond))
        result = result + series / x
    return np.where(reflect, -result, result)


def _polygamma(n: int, x: np.ndarray) -> np.ndarray:
    special = scipy_special("polygamma")
    if n == 0:
        return special.psi(x)
    if n == 1:
        return _trigamma(x)
    # PyTorch: (-1)^(n+1) n! zeta(n + 1, x)
    return (-1.0) ** (n + 1) * math.exp(math.lgamma(n + 1.0)) * _zeta(float(n + 1), x)


class LgammaBackward0(Op):
    """d lgamma(x)/dx = digamma(x)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return float_kernel(x, _lgamma, "lgamma_vml_cpu")

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * DigammaBackward0.call(x)


class DigammaBackward0(Op):
    """d digamma(x)/dx = polygamma(1, x)"""

    pointwise = True

    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any) -> Any:
        return float_kernel(x, lambda v: _polygamma(0, v), "digamma")

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * PolygammaBackward0.call(x, n=1)


class PolygammaBackward0(Op):
    """d polygamma(n, x)/dx = polygamma(n + 1, x)"""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    n: Any

    __slots__ = ("n",)
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, x: Any, n: Any) -> Any:
        self.n = n
        return float_kernel(x, lambda v: _polygamma(n, v), _POLYGAMMA_KERNELS.get(n, "polygamma"))

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        return grad * PolygammaBackward0.call(x, n=self.n + 1)


class PolygammaBackward1(PolygammaBackward0):
    """``Tensor.polygamma_(n)``: PyTorch's in-place overload has a node of its own."""

    pointwise = True


def _mvlgamma_offsets(p: int) -> list[float]:
    """-(p - 1)/2, ..., -1/2, 0: the arguments' offsets, in PyTorch's order."""
    return [-p / 2.0 + 0.5 + 0.5 * k for k in range(p)]


class MvlgammaBackward0(Op):
    """out = sum_k lgamma(x - k/2) + p(p - 1)/4 log(pi), k < p; d/dx = sum_k digamma(x - k/2)"""

    # Not a TensorIterator kernel: PyTorch's mvlgamma_ (and out=) copies a result computed
    # apart into self, so elements sharing memory read the values as they were.

    p: Any

    __slots__ = ("p",)
    saved_inputs: tuple[int, ...] = (0,)
    # PyTorch's mvlgamma_ computes (its offsets in the input's dtype) before copying back.
    errors_after_overlap = "none"

    @row_major
    def forward(self, x: Any, p: Any) -> Any:
        self.p = p
        return float_kernel(
            x,
            lambda v: sum(_lgamma(v + c) for c in _mvlgamma_offsets(p)) + p * (p - 1) * _LOG_PI / 4,
            "arange_cpu",  # PyTorch's mvlgamma first builds its offsets in the input's dtype
        )

    def backward(self, F: Any, grad: Any) -> Any:
        (x,) = self.saved
        total = None
        for c in _mvlgamma_offsets(self.p):
            term = DigammaBackward0.call(x + c)
            total = term if total is None else total + term
        return grad * total


class _IncompleteGamma(Op):
    """A regularized incomplete gamma function of (a, x): d/dx = +-x^(a-1) e^(-x) / Gamma(a);
    PyTorch has no derivative in a."""

    kernel = ""
    sign: float = 1.0
    saved_inputs: tuple[int, ...] = (0, 1)
    # Both are read by x's formula only (a's is not_implemented): saved only while x's
    # gradient is needed, as PyTorch's, so x may then change in place before the backward.
    saved_for: tuple[tuple[int, ...], ...] = ((1,), (1,))
    vector_bits = 512  # igamma/igammac are registered for AVX512 too

    def forward(self, a: Any, x: Any) -> Any:
        a, x = floating_operands(a, x)
        out = getattr(scipy_special(self.kernel), self.kernel)(a, x)
        # PyTorch's cases before the series, in its order (P; Q = 1 - P swaps the 0s and 1s).
        low, high = (0.0, 1.0) if self.sign > 0 else (1.0, 0.0)
        out = np.where(np.isinf(x), high, out)
        out = np.where(np.isinf(a), np.where(np.isinf(x), np.nan, low), out)
        out = np.where(x == 0, low, out)
        out = np.where(a == 0, np.where(x > 0, high, np.nan), out)
        out = np.where((x < 0) | (a < 0), np.nan, out)
        return out.astype(np.result_type(a, x), copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        a, x = self.saved
        needs = self.needs_input_grad
        if needs[0]:
            raise NotImplementedError(
                f"the derivative for '{self.kernel.replace('gammainc', 'igamma')}: input' is not "
                "implemented."
            )
        density = F.exp((a - 1.0) * F.log(x) - x - LgammaBackward0.call(a))
        return None, grad * density if self.sign > 0 else -grad * density


class IgammaBackward0(_IncompleteGamma):
    pointwise = True
    kernel = "gammainc"


class IgammacBackward0(_IncompleteGamma):
    pointwise = True
    kernel = "gammaincc"
    sign: float = -1.0


class _Zeta(Op):
    """The Hurwitz zeta function zeta(x, q): d/dq = -x zeta(x + 1, q); none in x."""

    # A TensorIterator kernel in PyTorch (no vectorized loop, measured with an overlapping out=)
    pointwise, vector_bits = True, 0

    def _no_derivative(self) -> NotImplementedError:
        return NotImplementedError("the derivative for 'zeta' is not implemented.")


class SpecialZetaBackward0(_Zeta):
    saved_inputs: tuple[int, ...] = (0, 1)
    saved_for = ((1,), (1,))  # both for q's gradient only (x's is not implemented)

    def forward(self, x: Any, q: Any) -> Any:
        x, q = floating_operands(x, q)
        return _zeta(x, q).astype(np.result_type(x, q), copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        x, q = self.saved
        if self.needs_input_grad[0]:
            raise self._no_derivative()
        return None, grad * -x * SpecialZetaBackward0.call(x + 1.0, q)


class SpecialZetaBackward1(_Zeta):
    """zeta(x, q) for a Python number x."""

    x: Any

    __slots__ = ("x",)
    saved_inputs: tuple[int, ...] = (0,)

    def forward(self, q: Any, x: Any) -> Any:
        self.x = x
        x, q = floating_operands(x, q)
        return _zeta(x, q).astype(q.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        (q,) = self.saved
        return grad * -self.x * SpecialZetaBackward1.call(q, x=self.x + 1.0)


class SpecialZetaBackward2(_Zeta):
    """zeta(x, q) for a Python number q."""

    y: Any

    __slots__ = ("y",)

    def forward(self, x: Any, y: Any) -> Any:
        self.y = y
        x, q = floating_operands(x, y)
        return _zeta(x, q).astype(x.dtype, copy=False)

    def backward(self, F: Any, grad: Any) -> Any:
        raise self._no_derivative()


# --- public functions ----------------------------------------------------------------------


def lgamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``log |Gamma(input)|``.

    Example::

        >>> glassgrad.lgamma(glassgrad.tensor([0.5, 3.0]))
        tensor([0.5724, 0.6931])
    """
    return unary_kernel("lgamma", LgammaBackward0, lgamma, input, out)


def digamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The logarithmic derivative of the gamma function, ``psi(x) = Gamma'(x) / Gamma(x)``.

    Example::

        >>> glassgrad.digamma(glassgrad.tensor([1.0]))
        tensor([-0.5772])
    """
    return unary_kernel("digamma", DigammaBackward0, digamma, input, out)


def _check_order(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The ``n``-th derivative of the digamma function.

    Example::

        >>> glassgrad.polygamma(1, glassgrad.tensor([1.0]))
        tensor([1.6449])
    """
    n = _check_order(n)
    result = PolygammaBackward0.apply(check_tensor(input, "polygamma", position=2), n=n)
    return kernel_result("polygamma", PolygammaBackward0, polygamma, out, result, n, input)


def _mvlgamma_order(input: Tensor, p: Any, op: str) -> int:
    """PyTorch's checks of mvlgamma's arguments, in its order; ``p`` as an int."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if check_tensor(input, op)._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return int(p)


def _check_mvlgamma_cast(input: np.dtype, result: np.dtype, out: np.dtype) -> None:
    """PyTorch's mvlgamma_out check of its result against ``out`` (also mvlgamma_, which is
    mvlgamma_out into the input), naming the input's and the result's dtypes."""
    if not can_cast(result, out):
        raise RuntimeError(
            f"mvlgamma: result type {scalar_type_name(input)} can't be cast to the desired "
            f"output type {scalar_type_name(result)}"
        )


def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``:
    ``p(p-1)/4 log(pi) + sum_{k<p} lgamma(input - k/2)``.

    Example::

        >>> glassgrad.mvlgamma(glassgrad.tensor([2.5]), 2)
        tensor([1.0304])
    """
    return _mvlgamma(input, p, out, "mvlgamma")


def _mvlgamma(input: Tensor, p: Any, out: Tensor | None, op: str) -> Tensor:
    result = MvlgammaBackward0.apply(input, p=_mvlgamma_order(input, p, op))
    if isinstance(out, Tensor):
        _check_mvlgamma_cast(input._data.dtype, result._data.dtype, out._data.dtype)
    return out_result(op, out, result, (input,), autograd_op="mvlgamma")  # the kernel it runs


def multigammaln(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """Alias of ``glassgrad.mvlgamma``.

    Example::

        >>> glassgrad.special.multigammaln(glassgrad.tensor([2.5]), 2)
        tensor([1.0304])
    """
    return _mvlgamma(input, p, out, "special_multigammaln")


def _incomplete_gamma(node: type, op: str, input: Any, other: Any) -> Tensor:
    check_tensor(input, op)
    check_tensor(other, op, "other", 2)
    dtype = result_numpy_dtype((input._data, other._data))
    if dtype.kind != "f":
        raise NotImplementedError(
            f'"{node.kernel.replace("gammainc", "igamma")}_cpu" not '
            f"implemented for '{scalar_type_name(dtype)}'"
        )
    return node.apply(input, other)


def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``.

    Example::

        >>> glassgrad.igamma(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]))
        tensor([0.8647])
    """
    result = _incomplete_gamma(IgammaBackward0, "igamma", input, other)
    return kernel_result("igamma", IgammaBackward0, igamma, out, result, input, other)


def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``.

    Example::

        >>> glassgrad.igammac(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]))
        tensor([0.1353])
    """
    result = _incomplete_gamma(IgammacBackward0, "igammac", input, other)
    return kernel_result("igammac", IgammacBackward0, igammac, out, result, input, other)


def gammainc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Alias of ``glassgrad.igamma``.

    Example::

        >>> glassgrad.special.gammainc(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]))
        tensor([0.8647])
    """
    result = _incomplete_gamma(IgammaBackward0, "special_gammainc", input, other)
    return kernel_result(
        "special_gammainc",
        IgammaBackward0,
        gammainc,
        out,
        result,
        input,
        other,
        autograd_op="igamma",
    )


def gammaincc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Alias of ``glassgrad.igammac``.

    Example::

        >>> glassgrad.special.gammaincc(glassgrad.tensor([1.0]), glassgrad.tensor([2.0]))
        tensor([0.1353])
    """
    result = _incomplete_gamma(IgammacBackward0, "special_gammaincc", input, other)
    return kernel_result(
        "special_gammaincc",
        IgammacBackward0,
        gammaincc,
        out,
        result,
        input,
        other,
        autograd_op="igammac",
    )


_ZETA_NODES = (SpecialZetaBackward0, SpecialZetaBackward1, SpecialZetaBackward2)


def zeta(input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:
    """The Hurwitz zeta function ``sum_k (other + k)^(-input)``.

    Example::

        >>> glassgrad.special.zeta(glassgrad.tensor([2.0]), 1.0)
        tensor([1.6449])
    """
    result = binary_special("special_zeta", _ZETA_NODES, input, other)
    return kernel_result("special_zeta", SpecialZetaBackward0, zeta, out, result, input, other)


# --- in-place methods ----------------------------------------------------------------------


def _unary_inplace(node: type) -> Any:
    def method(self: Tensor) -> Tensor:
        return apply_inplace(node, self)

    return method


def _polygamma_inplace(self: Tensor, n: int) -> Tensor:
    return apply_inplace(PolygammaBackward1, self, n=_check_order(n))


def _mvlgamma_inplace(self: Tensor, p: int) -> Tensor:
    p = _mvlgamma_order(self, p, "mvlgamma_")
    dtype = self._data.dtype
    result = np.dtype(default_numpy_float()) if dtype.kind in "iu" else dtype
    _check_mvlgamma_cast(dtype, result, dtype)
    return apply_inplace(MvlgammaBackward0, self, p=p)


def _incomplete_gamma_inplace(node: type, op: str) -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        if isinstance(self, Tensor) and isinstance(other, Tensor):  # before the kernel's
            check_inplace_operands(self, [other])
        _incomplete_gamma(node, op, self, other)  # the checks
        return apply_inplace(node, self, other)

    return method


TENSOR_METHODS: dict[str, Any] = {
    "lgamma_": _unary_inplace(LgammaBackward0),
    "digamma_": _unary_inplace(DigammaBackward0),
    "polygamma": lambda self, n: polygamma(n, self),
    "polygamma_": _polygamma_inplace,
    "mvlgamma_": _mvlgamma_inplace,
    "igamma_": _incomplete_gamma_inplace(IgammaBackward0, "igamma_"),
    "igammac_": _incomplete_gamma_inplace(IgammacBackward0, "igammac_"),
}


# --- registry rows -------------------------------------------------------------------------


def _gamma_samples(rng: np.random.Generator) -> list[Sample]:
    """Positive arguments, negative non-integers, a 0-d and an empty tensor, poles (integer
    inputs and more special points: tests/ops/test_special.py)."""
    return [
        Sample((3 * positive(rng, 3, 4) + 0.1,)),
        Sample((3 * positive(rng, 4, 3).T + 0.1,)),
        Sample((-positive(rng, 5) * 0.8 - 1.1,), note="between -2 and -1"),
        Sample((np.asarray(2.5),)),
        Sample((randn(rng, 0, 3),)),
        Sample((np.array([0.0, -1.0, -np.inf, np.inf, np.nan, 1e-300]),), grad=False),
    ]


register("lgamma", lgamma, nodes=(LgammaBackward0,), samples=_gamma_samples)
register("digamma", digamma, nodes=(DigammaBackward0,), samples=_gamma_samples)
register(
    "polygamma",
    polygamma,
    nodes=(PolygammaBackward0,),
    methods=(),
    samples=lambda rng: [
        *(Sample((n, s.args[0]), grad=s.grad) for n in (1, 2) for s in _gamma_samples(rng)[:5]),
        Sample((0, 3 * positive(rng, 3, 4))),
        Sample((3, positive(rng, 4) + 0.5)),
        Sample((4, np.array([0.0, np.inf, 2.5])), grad=False),
    ],
)
register(
    "mvlgamma",
    mvlgamma,
    nodes=(MvlgammaBackward0,),
    samples=lambda rng: [
        Sample((3 * positive(rng, 3, 4) + 1.0, 1)),
        Sample((3 * positive(rng, 4, 3).T + 1.6, 3)),
        Sample((np.asarray(4.2), 5)),
        Sample((np.array([3, 4]), 2), grad=False),
    ],
)


def _incomplete_gamma_samples(rng: np.random.Generator) -> list[Sample]:
    """The shape ``a`` without a gradient (PyTorch has none), ``x`` with one."""
    return [
        Sample((NoGrad(3 * positive(rng, 3, 4)), 3 * positive(rng, 3, 4))),
        Sample((NoGrad(2 * positive(rng, 3, 1) + 0.5), 2 * positive(rng, 1, 4))),
        Sample((NoGrad(positive(rng, 4) + 1.0), NoGrad(positive(rng, 4))), grad=False),
        Sample(
            (np.array([0.0, 1.0, 2.0, 0.5, -1.0]), np.array([0.0, 0.0, np.inf, -1.0, 2.0])),
            grad=False,
        ),
    ]


register("igamma", igamma, nodes=(IgammaBackward0,), samples=_incomplete_gamma_samples)
register("igammac", igammac, nodes=(IgammacBackward0,), samples=_incomplete_gamma_samples)
register(
    "zeta",
    zeta,
    nodes=_ZETA_NODES,
    namespace=SPECIAL,
    samples=lambda rng: [
        Sample((NoGrad(2 + 3 * positive(rng, 3, 4)), positive(rng, 3, 4) + 0.5)),
        Sample((NoGrad(2 + positive(rng, 3, 1)), 2 * positive(rng, 1, 4))),
        Sample((3.0, positive(rng, 2, 3) + 0.2)),
        Sample((NoGrad(2 + 3 * positive(rng, 4)), 1.5), grad=False),
        Sample((np.array([3, 4]), 2), grad=False),
    ],
)
