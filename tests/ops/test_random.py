"""Random sampling: the distributions (moments of many samples), the ranges, the generator
argument, the graph PyTorch records (zero gradients, node names) and the errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import glassgrad as gg

from ._parity import LIBS, same, same_error

N = 20000


def _moments(t: Any) -> tuple:
    values = t.detach().numpy().astype(np.float64).ravel()
    return values.mean(), values.std()


@pytest.mark.parametrize(
    "fill, args, mean, std",
    [
        ("normal_", (2.0, 3.0), 2.0, 3.0),
        ("uniform_", (-1.0, 3.0), 1.0, 4 / np.sqrt(12)),
        ("exponential_", (2.0,), 0.5, 0.5),
        ("geometric_", (0.25,), 4.0, np.sqrt(0.75) / 0.25),
        ("log_normal_", (0.0, 0.5), np.exp(0.125), np.sqrt((np.exp(0.25) - 1) * np.exp(0.25))),
        ("bernoulli_", (0.3,), 0.3, np.sqrt(0.21)),
    ],
)
def test_fill_distributions(fill: str, args: tuple, mean: float, std: float) -> None:
    gg.manual_seed(0)
    t = getattr(gg.empty(N, dtype=gg.float64), fill)(*args)
    m, s = _moments(t)
    assert abs(m - mean) < 5 * std / np.sqrt(N)
    assert abs(s - std) < 0.05 * std


def test_ranges_and_dtypes() -> None:
    u = gg.empty(N).uniform_(2.0, 2.5)
    assert u.dtype == gg.float32 and float(u.min()) >= 2.0 and float(u.max()) < 2.5
    r = gg.empty(N, dtype=gg.int64).random_(3, 7)
    assert set(np.unique(r.numpy())) == {3, 4, 5, 6}
    assert set(np.unique(gg.empty(N).random_(3).numpy())) == {0.0, 1.0, 2.0}
    assert float(gg.empty(N).random_().max()) <= 2**24
    assert set(np.unique(gg.empty(100, dtype=gg.bool).random_().numpy())) == {False, True}
    assert float(gg.empty(N).cauchy_(1.0, 0.1).median()) == pytest.approx(1.0, abs=0.01)
    same(lambda lib: lib.empty(3).bernoulli_(lib.tensor([0.0, 1.0, 0.0])))


def test_generator_reproduces_and_default_seed() -> None:
    a = gg.empty(5).normal_(generator=gg.Generator().manual_seed(3))
    b = gg.empty(5).normal_(generator=gg.Generator().manual_seed(3))
    assert gg.equal(a, b)
    gg.manual_seed(7)
    c = gg.multinomial(gg.ones(10), 4)
    gg.manual_seed(7)
    assert gg.equal(c, gg.multinomial(gg.ones(10), 4))
    assert len(set(c.tolist())) == 4  # without replacement: distinct categories


def test_multinomial_and_bernoulli_frequencies() -> None:
    gg.manual_seed(0)
    draws = gg.multinomial(gg.tensor([1.0, 3.0, 0.0]), N, replacement=True).numpy()
    assert np.mean(draws == 1) == pytest.approx(0.75, abs=0.02) and not np.any(draws == 2)
    picks = gg.multinomial(gg.tensor([[1.0, 0.0, 1.0, 1.0]] * 200), 3).numpy()
    assert not np.any(picks == 1)
    p = gg.tensor([0.1, 0.9]).expand(N, 2)
    assert _moments(gg.bernoulli(p)[:, 1])[0] == pytest.approx(0.9, abs=0.02)
    assert _moments(gg.poisson(gg.full((N,), 4.0)))[0] == pytest.approx(4.0, abs=0.1)
    m, s = _moments(gg.normal(gg.full((N,), 1.0, dtype=gg.float64), 2.0))
    assert m == pytest.approx(1.0, abs=0.1) and s == pytest.approx(2.0, abs=0.1)
    assert gg.normal(0.0, 1.0, (2, 3), dtype=gg.float64).dtype == gg.float64


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("shape", [(4, 6), (7,), (2, 3000)])  # the last: more than 2**20 draws
def test_multinomial_draws_rows_as_numpy_choice_row_by_row(shape: tuple, replacement: bool) -> None:
    """All rows drawn at once are what one row at a time draws from the same stream: NumPy's
    ``choice`` with replacement, the smallest exponential race times without."""
    rng = np.random.default_rng(3)
    weights = rng.random(shape) * (rng.random(shape) > 0.3)
    weights[..., 0] += 0.5
    count = 400 if replacement else 5
    gg.manual_seed(11)
    ours = gg.multinomial(gg.tensor(weights), count, replacement=replacement).numpy()
    gg.manual_seed(11)
    stream = gg.default_generator.rng
    expected = []
    for row in np.atleast_2d(weights):
        if replacement:
            expected.append(stream.choice(row.size, count, p=row / row.sum()))
        else:
            with np.errstate(divide="ignore"):
                keys = stream.exponential(size=row.size) / row
            expected.append(np.argsort(keys, kind="stable")[:count])
    np.testing.assert_array_equal(ours, np.array(expected).reshape(ours.shape))
    if replacement:  # a category of weight zero is never drawn
        assert np.all(np.take_along_axis(np.atleast_2d(weights), np.atleast_2d(ours), 1) > 0)


def test_graph_matches_pytorch() -> None:
    def program(lib: Any) -> Any:
        x = lib.ones(3, requires_grad=True)
        names = []
        for fill, args in [
            ("normal_", ()),
            ("uniform_", ()),
            ("bernoulli_", ()),
            ("exponential_", ()),
            ("random_", ()),
            ("random_", (3,)),
            ("random_", (1, 3)),
            ("geometric_", (0.5,)),
            ("log_normal_", ()),
            ("cauchy_", ()),
        ]:
            y = x * 2
            getattr(y, fill)(*args)
            names.append(y.grad_fn.name())
            y.sum().backward()
        p = lib.full((3,), 0.5, requires_grad=True)
        for out in (lib.bernoulli(p), lib.poisson(p), lib.normal(p, 1.0), lib.normal(p, p)):
            names.append(out.grad_fn.name())
            out.sum().backward()
        names.append(lib.bernoulli(p, 0.5).grad_fn.name().split("::")[-1])
        return names, x.grad, p.grad

    same(program)


def test_errors() -> None:
    same_error(lambda lib: lib.zeros(2, requires_grad=True).normal_())
    same_error(lambda lib: lib.zeros(2).normal_(std=-1.0))
    same_error(lambda lib: lib.zeros(2).uniform_(1.0, 0.0))
    same_error(lambda lib: lib.zeros(2).bernoulli_(2.0))
    same_error(lambda lib: lib.zeros(2).exponential_(0.0))
    same_error(lambda lib: lib.zeros(2).geometric_(0.0))
    same_error(lambda lib: lib.zeros(2).log_normal_(std=0.0))
    same_error(lambda lib: lib.zeros(2).cauchy_(sigma=0.0))
    same_error(lambda lib: lib.zeros(2, dtype=lib.int64).random_(5, 2))
    same_error(lambda lib: lib.multinomial(lib.tensor([0.0, 0.0]), 1))
    same_error(lambda lib: lib.multinomial(lib.tensor([1.0, 1.0]), 3))
    same_error(lambda lib: lib.multinomial(lib.tensor([-1.0, 1.0]), 1))
    same_error(lambda lib: lib.bernoulli(lib.tensor([2.0])))
    same_error(lambda lib: lib.binomial(lib.tensor([5.0]), lib.tensor([0.5]).double()))
    same_error(lambda lib: lib.binomial(lib.tensor([5.0]).double(), lib.tensor([0.5])))
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="derivative for .*bernoulli.* not implemented"):
            p = lib.full((2,), 0.5, requires_grad=True)
            lib.bernoulli(p, 0.5).sum().backward()


_FILLS = {
    "normal_": (),
    "uniform_": (),
    "exponential_": (),
    "geometric_": (0.5,),
    "log_normal_": (),
    "cauchy_": (),
    "bernoulli_": (),
    "random_": (),
}


@pytest.mark.parametrize("fill", sorted(_FILLS))
@pytest.mark.parametrize("dtype", ["float32", "int64", "int8", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("expanded", [False, True], ids=["plain", "expanded"])
def test_fill_dtypes_and_overlap_as_pytorch(fill: str, dtype: str, expanded: bool) -> None:
    """Each fill refuses the dtypes PyTorch's kernel has no case for, with its error, and a
    target whose elements share memory (an expand) in PyTorch's order of the two checks."""

    def program(lib: Any) -> Any:
        x = lib.ones(1 if expanded else 3, dtype=getattr(lib, dtype))
        x = x.expand(3) if expanded else x
        getattr(x, fill)(*_FILLS[fill])
        return x.shape

    outcomes = []
    for lib in LIBS:
        try:
            outcomes.append(program(lib))
        except Exception as exc:
            outcomes.append((type(exc), str(exc).split("\n")[0]))
    assert outcomes[0] == outcomes[1]


_NORMAL_OUTS = {
    "empty": lambda L: L.empty(0),
    "larger": lambda L: L.zeros(7),
    "broadcast": lambda L: L.zeros(2, 3),
    "same": lambda L: L.zeros(3),
    "one element": lambda L: L.zeros(1),
    "double": lambda L: L.zeros(3, dtype=L.float64),
    "complex": lambda L: L.zeros(3, dtype=L.complex64),
    "long": lambda L: L.zeros(3, dtype=L.int64),
    "bool": lambda L: L.zeros(3, dtype=L.bool),
}
_NORMAL_CALLS = {
    "tensor, float": lambda L, o: L.normal(L.zeros(3), 1.0, out=o),
    "float, tensor": lambda L, o: L.normal(0.0, L.ones(3), out=o),
    "tensor, tensor": lambda L, o: L.normal(L.zeros(3), L.ones(3), out=o),
    "float, float, size": lambda L, o: L.normal(0.0, 1.0, (3,), out=o),
}


@pytest.mark.parametrize("call", list(_NORMAL_CALLS))
def test_normal_out_shapes_dtypes_and_errors_as_pytorch(call: str) -> None:
    """normal(Tensor, float, out=o) fills the broadcast of mean's shape and o's (an empty o
    is an error, a larger one filled whole); normal(float, float, size, out=o) resizes o
    quietly; integral and bool outs have no kernel (NotImplementedError)."""

    def program(L: Any) -> Any:
        outcomes = []
        for make in _NORMAL_OUTS.values():
            out = make(L)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    returned = _NORMAL_CALLS[call](L, out)
                    outcome = (tuple(out.shape), str(out.dtype)[-7:], returned is out)
                except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                    outcome = (type(error).__name__, str(error))
            outcomes.append((outcome, sum("resized" in str(w.message) for w in caught)))
        return outcomes

    same(program)
