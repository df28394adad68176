"""copysign, float_power, fmax/fmin, fmod, hypot, ldexp, logaddexp, nextafter, heaviside,
gcd/lcm, bit shifts and the new unary ops beyond the registry: in-place forms, integer
dtypes, graphs and errors, against PyTorch."""

from __future__ import annotations

from typing import Any

import pytest

from ._parity import same, same_error


def test_inplace_forms() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.5, -2.0, 3.0], requires_grad=True)
        names = []
        for method, args in (
            ("copysign_", (lib.tensor([-1.0, -1.0, 1.0]),)),
            ("fmod_", (2.0,)),
            ("hypot_", (lib.tensor([1.0, 1.0, 1.0]),)),
            ("ldexp_", (lib.tensor([1, 2, 3]),)),
        ):
            y = x * 1
            getattr(y, method)(*args)
            names.append(y.grad_fn.name())
            y.sum().backward()
        ints = lib.tensor([4, 6, 8])
        ints.gcd_(lib.tensor([6, 9, 12]))
        shifted = lib.tensor([1, 2]).bitwise_left_shift_(2)
        powered = lib.tensor([2.0, 3.0], dtype=lib.float64).float_power_(2)
        degrees = lib.tensor([3.141592653589793]).rad2deg_()
        return names, x.grad, ints, shifted, powered, degrees

    same(program)


def test_integer_and_mixed_dtypes() -> None:
    same(lambda lib: lib.copysign(lib.tensor([1, 2]), lib.tensor([-1, 1])))
    same(lambda lib: lib.fmod(lib.tensor([5, -5, 7]), lib.tensor([3, 3, -2])))
    same(lambda lib: lib.float_power(lib.tensor([2, 3]), lib.tensor([1.5, 2.0])))
    same(lambda lib: lib.ldexp(lib.tensor([1, 3]), lib.tensor([2, -1])))
    same(lambda lib: lib.lcm(lib.tensor([4, -6]), lib.tensor([6, 4])))
    same(lambda lib: lib.bitwise_right_shift(lib.tensor([-8, 16], dtype=lib.int8), 2))
    same(lambda lib: lib.deg2rad(lib.tensor([180, 90])))
    same(lambda lib: lib.frexp(lib.tensor([8.0, -0.75, 0.0])))
    same(lambda lib: lib.signbit(lib.tensor([-0.0, 0.0, -1.0])))
    same(lambda lib: lib.fmax(lib.tensor([float("nan"), 1.0]), lib.tensor([float("nan"), 2.0])))


def test_graphs() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        names = [
            lib.copysign(x, -1.0).grad_fn.name(),
            lib.fmod(x, x).grad_fn.name(),
            lib.fmod(x, 2.0).grad_fn.name(),
            lib.ldexp(x, lib.tensor([1, 2])).grad_fn.name(),
            lib.float_power(x, 2).grad_fn.name(),
            lib.frexp(x).mantissa.grad_fn.name(),
            lib.heaviside(x, x).grad_fn.name().split("::")[-1],
        ]
        return names, lib.positive(x) is x

    same(program)


def test_errors() -> None:
    same_error(lambda lib: lib.hypot(lib.tensor([1]), lib.tensor([1])))
    same_error(lambda lib: lib.logaddexp(lib.tensor([1]), lib.tensor([1])))
    same_error(lambda lib: lib.fmax(lib.tensor([1.0]), 1.0))
    same_error(lambda lib: lib.gcd(lib.tensor([1.0]), lib.tensor([1.0])))
    same_error(lambda lib: lib.frexp(lib.tensor([1, 2])))
    same_error(lambda lib: lib.positive(lib.tensor([True])))
    same_error(lambda lib: lib.fmod(lib.tensor([1]), lib.tensor([0])))
    same_error(lambda lib: lib.heaviside(lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64)))
    same_error(
        lambda lib: (
            lib.heaviside(lib.tensor([1.0], requires_grad=True), lib.tensor([2.0])).sum().backward()
        )
    )


@pytest.mark.parametrize("op", ["fmod_", "remainder_", "floor_divide_", "trunc", "floor"])
@pytest.mark.parametrize("transposed", [False, True])
def test_integer_division_by_zero_stops_midway_as_pytorch(op: str, transposed: bool) -> None:
    """PyTorch's integer kernels raise "ZeroDivisionError" at the first zero divisor they
    reach, in TensorIterator's order, having written the elements before it (fuzz seed
    844747: one_hot(...).fmod_(itself) kept the rows after the first 0 % 0)."""

    def program(L):
        x = L.tensor([[3, 5, 0, 4], [7, 1, 2, 6], [9, 8, 0, 2]])
        x = x.T if transposed else x
        try:
            if op in ("trunc", "floor"):
                x.div_(x.clone(), rounding_mode=op)
            else:
                getattr(x, op)(x.clone())
        except RuntimeError as error:
            return str(error), x
        return "no error", x

    assert same(program)[0] == "ZeroDivisionError"
