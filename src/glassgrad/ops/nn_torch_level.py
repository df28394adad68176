"""nn ops PyTorch also exports outside ``nn.functional``: ``torch.dropout`` and its feature,
alpha and in-place variants (``input, p, train``, errors as RuntimeError), the Tensor methods
``hardshrink`` and ``prelu``, and the deprecated ``torch.nuclear_norm``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._common import check_tensor
from ._out import composite_out
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .nn_activation_piecewise import hardshrink, prelu
from .nn_dropout_feature import _dropout_impl
from .norms import matrix_norm


def _dropout(name: str, feature: bool, alpha: bool, inplace: bool) -> Any:
    def fn(input: Tensor, p: float, train: bool) -> Tensor:
        check_tensor(input, name)
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
        return _dropout_impl(input, p, train, feature, alpha, inplace)

    kind = ("feature " if feature else "") + ("alpha " if alpha else "")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""{kind.capitalize() or "Plain "}dropout{", in place" if inplace else ""}:
    ``nn.functional``'s, with ``train`` for ``training``.

    Example::

        >>> glassgrad.{name}(glassgrad.ones(2, 3), 0.5, False)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return fn


dropout: Callable[..., Any] = _dropout("dropout", False, False, False)
dropout_: Callable[..., Any] = _dropout("dropout_", False, False, True)
feature_dropout: Callable[..., Any] = _dropout("feature_dropout", True, False, False)
feature_dropout_: Callable[..., Any] = _dropout("feature_dropout_", True, False, True)
alpha_dropout: Callable[..., Any] = _dropout("alpha_dropout", False, True, False)
alpha_dropout_: Callable[..., Any] = _dropout("alpha_dropout_", False, True, True)
feature_alpha_dropout: Callable[..., Any] = _dropout("feature_alpha_dropout", True, True, False)
feature_alpha_dropout_: Callable[..., Any] = _dropout("feature_alpha_dropout_", True, True, True)


def nuclear_norm(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:
    """The sum of the singular values of the matrices over ``dim`` (the last two by default);
    deprecated in PyTorch for ``linalg.matrix_norm(A, 'nuc', dim, keepdim)``, as here.

    Example::

        >>> glassgrad.nuclear_norm(glassgrad.eye(3))  # doctest: +SKIP
        tensor(3.)
    """
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim): PyTorch's second overload
        dim, keepdim = None, dim
    if dim is None:
        dim = (-2, -1)
    elif isinstance(dim, (int, np.integer)):
        dim = (dim, dim)  # PyTorch reads one dim as a pair, which matrix_norm then refuses
    if out is not None:
        return composite_out("nuclear_norm", out, lambda: matrix_norm(input, "nuc", dim, keepdim))
    return matrix_norm(input, "nuc", dim, keepdim)


TENSOR_METHODS: dict[str, Any] = {"hardshrink": hardshrink, "prelu": prelu}


def _deterministic(shape: tuple) -> Any:
    def samples(rng: np.random.Generator) -> list[Sample]:
        return [
            Sample((randn(rng, *shape), 0.5, False)),
            Sample((randn(rng, *shape), 0.0, True)),
            Sample((randn(rng, *shape), 1.0, True), note="everything dropped"),
        ]

    return samples


def _deterministic_inplace(shape: tuple) -> Any:
    return lambda rng: [
        Sample((NoGrad(randn(rng, *shape)), 0.5, False), grad=False),
        Sample((NoGrad(randn(rng, *shape)), 1.0, True), grad=False),
    ]


for _fn in (dropout, feature_dropout, alpha_dropout, feature_alpha_dropout):
    register(_fn.__name__, _fn, methods=(), samples=_deterministic((2, 3, 4)))
for _fn in (dropout_, feature_dropout_, alpha_dropout_, feature_alpha_dropout_):
    register(_fn.__name__, _fn, methods=(), samples=_deterministic_inplace((2, 3, 4)))


register(
    "nuclear_norm",
    nuclear_norm,
    methods=(),
    samples=lambda rng: [
        Sample((randn(rng, 3, 4),)),
        Sample((randn(rng, 2, 3, 3), (1, 2))),
        Sample((randn(rng, 3, 2), True)),
        Sample((randn(rng, 2, 3, 4), (0, 2), True)),
    ],
    torch="torch.nuclear_norm",
)
