"""The in-place functions PyTorch exports at the top level: ``torch.exp_(x)``, ``torch.clamp_(x,
0, 1)``, ``torch.relu_(x)`` ... Each is the Tensor method of the same name called on
``input`` (the same result, history, version bump and errors), with the signature of
PyTorch's ``torch._C._VariableFunctions`` stub: ``input`` first, by position or by name, and
no ``out=``. ``torch.relu_``, ``selu_``, ``celu_``, ``rrelu_`` and ``threshold_`` are, as in
PyTorch, the ``nn.functional`` functions of those names.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from . import nn_activation, nn_activation_piecewise
from ._registry import NoGrad, Sample, register

_P = inspect.Parameter

# name -> the parameters after ``input`` (name, default or _P.empty, keyword-only).
_NO_DEFAULT = _P.empty
_UNARY = (
    "abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ "
    "atanh_ ceil_ conj_physical_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fix_ floor_ frac_ "
    "i0_ log10_ log1p_ log2_ log_ neg_ negative_ rad2deg_ reciprocal_ rsqrt_ sigmoid_ sin_ "
    "sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ zero_"
).split()
_PARAMETERS: dict[str, tuple[tuple[str, Any, bool], ...]] = {
    **{name: () for name in _UNARY},
    **{name: (("other", _NO_DEFAULT, False),) for name in ("gcd_", "lcm_", "ldexp_", "xlogy_")},
    "addmv_": (
        ("mat", _NO_DEFAULT, False),
        ("vec", _NO_DEFAULT, False),
        ("beta", 1, True),
        ("alpha", 1, True),
    ),
    "as_strided_": (
        ("size", _NO_DEFAULT, False),
        ("stride", _NO_DEFAULT, False),
        ("storage_offset", None, False),
    ),
    "clamp_": (("min", None, False), ("max", None, False)),
    "clip_": (("min", None, False), ("max", None, False)),
    "clamp_max_": (("max", _NO_DEFAULT, False),),
    "clamp_min_": (("min", _NO_DEFAULT, False),),
    "fill_": (("value", _NO_DEFAULT, False),),
    "index_put_": (
        ("indices", _NO_DEFAULT, False),
        ("values", _NO_DEFAULT, False),
        ("accumulate", False, False),
    ),
    "logit_": (("eps", None, False),),
    "nan_to_num_": (("nan", None, False), ("posinf", None, False), ("neginf", None, False)),
    "resize_as_": (("the_template", _NO_DEFAULT, False), ("memory_format", None, True)),
    "round_": (("decimals", 0, True),),
}


def _input_error(name: str, value: Any, by_position: bool) -> TypeError:
    where = " (position 1)" if by_position else ""
    return TypeError(
        f"{name}(): argument 'input'{where} must be Tensor, not {type(value).__name__}"
    )


def _method_as_function(name: str, parameters: tuple[tuple[str, Any, bool], ...]) -> Callable:
    """``torch.<name>(input, ...)``: ``input.<name>(...)`` with PyTorch's signature."""
    signature = inspect.Signature(
        [
            _P("input", _P.POSITIONAL_OR_KEYWORD, annotation="Tensor"),
            *(
                _P(p, _P.KEYWORD_ONLY if keyword else _P.POSITIONAL_OR_KEYWORD, default=default)
                for p, default, keyword in parameters
            ),
        ],
        return_annotation="Tensor",
    )

    # As many positional arguments as the signature takes by position, keyword-only ones by
    # keyword: ``bind`` would hand them back as they came (and it costs more than most of these
    # ops). Every keyword-only parameter has a default.
    required = sum(p[1] is _NO_DEFAULT for p in parameters) + 1
    positional = sum(not p[2] for p in parameters) + 1
    keyword_only = frozenset(p[0] for p in parameters if p[2])

    def function(*args: Any, **kwargs: Any) -> Tensor:
        if (
            required <= len(args) <= positional
            and kwargs.keys() <= keyword_only
            and isinstance(args[0], Tensor)
        ):
            return getattr(args[0], name)(*args[1:], **kwargs)
        input = args[0] if args else kwargs.get("input")
        if (args or "input" in kwargs) and not isinstance(input, Tensor):
            raise _input_error(name, input, bool(args))  # checked first, as PyTorch's parser
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}() {e}") from None
        return getattr(input, name)(*bound.args[1:], **bound.kwargs)

    function.__name__ = function.__qualname__ = name
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__doc__ = f"""``input.{name}(...)``: the in-place ``{name[:-1]}`` of ``input``, which
    it returns (see ``Tensor.{name}``).

    Example::

        >>> x = glassgrad.tensor([0.5, 2.0])
        >>> glassgrad.{name}(x) is x  # doctest: +SKIP
        True
    """
    return function


FUNCTIONS: dict[str, Callable] = {
    name: _method_as_function(name, parameters) for name, parameters in _PARAMETERS.items()
}
# PyTorch's torch.relu_ ... are the very functions nn.functional exports under these names.
FUNCTIONS |= {
    "relu_": nn_activation.relu_,
    "selu_": nn_activation.selu_,
    "celu_": nn_activation.celu_,
    "rrelu_": nn_activation_piecewise.rrelu_,
    "threshold_": nn_activation_piecewise.threshold_,
}


# --- registry -----------------------------------------------------------------------------
def _values(rng: np.random.Generator, name: str) -> np.ndarray:
    """A 3x4 float sample inside ``name``'s domain (no NaN for the inverse functions)."""
    if name in ("acosh_", "arccosh_"):
        return 1.0 + rng.uniform(0.1, 3.0, (3, 4))
    if name in ("acos_", "arccos_", "asin_", "arcsin_", "atanh_", "arctanh_", "erfc_"):
        return rng.uniform(-0.9, 0.9, (3, 4))
    if name in ("log_", "log10_", "log1p_", "log2_", "sqrt_", "rsqrt_", "reciprocal_"):
        return rng.uniform(0.2, 3.0, (3, 4))
    if name == "logit_":
        return rng.uniform(0.05, 0.95, (3, 4))
    return rng.standard_normal((3, 4)) * 2.0


def _integers(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(-30, 30, (3, 4))


def _samples(name: str) -> Callable[[np.random.Generator], list[Sample]]:
    def samples(rng: np.random.Generator) -> list[Sample]:
        x = NoGrad(_values(rng, name))
        if name in ("gcd_", "lcm_"):
            return [Sample((_integers(rng), _integers(rng)), grad=False)]
        if name == "ldexp_":
            return [Sample((x, rng.integers(-3, 4, (3, 4))), grad=False)]
        arguments: dict[str, tuple] = {
            "xlogy_": (NoGrad(rng.uniform(0.1, 2.0, (3, 4))),),
            "addmv_": (NoGrad(rng.standard_normal((3, 5))), NoGrad(rng.standard_normal(5))),
            "as_strided_": ((2, 2), (1, 3), 1),
            "clamp_": (-0.5, 0.5),
            "clip_": (-1.0,),
            "clamp_max_": (0.3,),
            "clamp_min_": (-0.3,),
            "fill_": (2.5,),
            "index_put_": ([np.array([0, 2])], NoGrad(rng.standard_normal(4))),
            "logit_": (0.1,),
            "nan_to_num_": (0.0, 1.0, -1.0),
            "resize_as_": (NoGrad(rng.standard_normal(6)),),
            "relu_": (),
            "selu_": (),
            "celu_": (0.5,),
            "rrelu_": (0.1, 0.3, False),
            "threshold_": (0.2, -4.0),
        }
        keywords: dict[str, dict] = {
            "addmv_": {"beta": 0.5, "alpha": 2.0},
            "round_": {"decimals": 1},
            "index_put_": {"accumulate": True},
        }
        if name == "addmv_":
            x = NoGrad(rng.standard_normal(3))
        return [Sample((x, *arguments.get(name, ())), keywords.get(name), grad=False)]

    return samples


for _name, _function in FUNCTIONS.items():
    register(_name, _function, methods=(), samples=_samples(_name))
