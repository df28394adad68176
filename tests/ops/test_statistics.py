"""nansum/nanmean, aminmax, quantile/nanquantile, cov/corrcoef, cdist/dist/renorm, kron,
combinations and the trapezoid rule beyond the registry: NaN, argument forms, errors."""

from __future__ import annotations

from typing import Any

from ._parity import same, same_error

NAN = float("nan")


def test_nan_aware_reductions() -> None:
    data = [[1.0, NAN, 3.0], [NAN, NAN, NAN]]
    same(lambda lib: lib.nansum(lib.tensor(data), dim=1))
    same(lambda lib: lib.nanmean(lib.tensor(data), dim=1, keepdim=True))
    same(lambda lib: lib.tensor(data).nanquantile(0.5, dim=1))
    same(lambda lib: lib.tensor(data).quantile(lib.tensor([0.25, 0.75]), dim=1))
    same(lambda lib: lib.nansum(lib.tensor([1, 2, 3]), dtype=lib.float64))
    same(lambda lib: lib.aminmax(lib.tensor([[1, 5], [3, 2]]), dim=1, keepdim=True))


def test_quantile_interpolations() -> None:
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        same(lambda lib, mode=mode: lib.quantile(lib.arange(6.0), 0.3, interpolation=mode))
        same(lambda lib, mode=mode: lib.quantile(lib.arange(4.0), 0.5, interpolation=mode))


def test_covariance_and_distances() -> None:
    data = [[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.0, 3.0]]
    same(lambda lib: lib.cov(lib.tensor(data), correction=0).tolist())
    same(lambda lib: lib.corrcoef(lib.tensor(data)).tolist())
    same(lambda lib: lib.tensor(data).dist(lib.zeros(4), p=1))
    same(lambda lib: lib.cdist(lib.tensor([[0.0, 0.0]]), lib.tensor([[3.0, 4.0], [0.0, 0.0]])))
    same(lambda lib: lib.kron(lib.eye(2), lib.tensor([[1, 2]])))
    same(lambda lib: lib.combinations(lib.tensor([1, 2, 3]), r=2, with_replacement=True))
    same(lambda lib: lib.trapezoid(lib.tensor([1.0, 4.0, 9.0]), x=lib.tensor([0.0, 1.0, 3.0])))

    def zero_distance_gradient(lib: Any) -> Any:
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        lib.cdist(x, x.detach()).sum().backward()
        return x.grad

    same(zero_distance_gradient)


def test_errors() -> None:
    same_error(lambda lib: lib.quantile(lib.tensor([1, 2]), 0.5))
    same_error(lambda lib: lib.quantile(lib.ones(3), 1.5))
    same_error(lambda lib: lib.quantile(lib.ones(3), 0.5, interpolation="cubic"))
    same_error(lambda lib: lib.quantile(lib.ones(3), lib.ones(2, 2) / 2))
    same_error(lambda lib: lib.nanmean(lib.tensor([1, 2])))
    same_error(lambda lib: lib.aminmax(lib.ones(0)))
    same_error(lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)))
    same_error(lambda lib: lib.cdist(lib.ones(3), lib.ones(2, 3)))
    same_error(lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1))
    same_error(lambda lib: lib.renorm(lib.ones(2, 2), 0, 0, 1.0))
    same_error(lambda lib: lib.combinations(lib.ones(2, 2)))
    same_error(lambda lib: lib.cov(lib.ones(2, 2, 2)))


def test_quantile_q_tensor_of_another_dtype_refused_as_pytorch() -> None:
    """PyTorch refuses a q tensor whose dtype is not the input's (fuzz seed 73126)."""
    for name in ("quantile", "nanquantile"):
        same_error(
            lambda lib, name=name: getattr(lib.zeros(3, 4, dtype=lib.float64), name)(
                lib.tensor([0.5], dtype=lib.float32), 0, True
            )
        )
