"""``out=`` and autograd against PyTorch: which op a refusal names for the special functions
PyTorch writes by another op's kernel, and an ``out`` resized in no-grad mode, whose producing
node keeps the shape it recorded (PyTorch's validate_outputs)."""

from __future__ import annotations

import pytest

from ._parity import same, same_error


@pytest.mark.parametrize(
    "call",
    [
        "L.special.expit(x, out=o)",
        "L.special.gammainc(x, x, out=o)",
        "L.special.gammaincc(x, x, out=o)",
        "L.special.multigammaln(x + 2, 2, out=o)",
        "L.special.i1(x, out=o)",
    ],
)
@pytest.mark.parametrize("out", ["L.zeros(3, requires_grad=True)", "(L.zeros(2, 3) * 1)[0]"])
def test_out_requiring_grad_is_refused_naming_pytorchs_kernel(call: str, out: str) -> None:
    def program(L):
        x = L.tensor([0.3, 0.6, 0.9], requires_grad="requires_grad" not in out)
        o = eval(out, {"L": L})
        eval(call, {"L": L, "x": x, "o": o})

    same_error(program)


@pytest.mark.parametrize(
    "call", ["L.special.bessel_j0(x, out=o)", "L.special.chebyshev_polynomial_t(x, 2, out=o)"]
)
@pytest.mark.parametrize(
    "out", ["L.zeros(3, requires_grad=True) * 1", "(L.zeros(2, 3, requires_grad=True) * 1)[0]"]
)
def test_out_of_an_op_without_derivative_keeps_its_history(call: str, out: str) -> None:
    # No derivative at all (not even a NotImplemented node): ``out`` keeps its history.
    def program(L):
        x = L.tensor([0.3, 0.6, 0.9], dtype=L.float64, requires_grad=True)
        o = eval(out, {"L": L}).double()
        eval(call, {"L": L, "x": x, "o": o})
        o.sum().backward()
        return o, o.grad_fn.name(), x.grad is None

    same(program)


def test_an_out_resized_in_no_grad_mode_keeps_its_producers_shape() -> None:
    def resized(L):
        x = L.tensor([0.3, 0.6, 0.9], requires_grad=True)
        y = x * 2
        with L.no_grad():
            L.logsumexp(x, 0, out=y)
        y.sum().backward()

    same_error(resized)

    def same_shape(L):
        x = L.tensor([0.3, 0.6, 0.9], requires_grad=True)
        y = x * 2
        with L.no_grad():
            L.special.bessel_j0(x, out=y)
        y.sum().backward()
        return x.grad

    same(same_shape)
