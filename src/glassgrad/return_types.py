"""Named tuples returned by ops with several results (``max(dim)`` -> values, indices),
printed as PyTorch prints its ``torch.return_types``.

Example::

    >>> glassgrad.max(glassgrad.tensor([[1, 5]]), 1)
    glassgrad.return_types.max(
    values=tensor([5]),
    indices=tensor([1]))
"""

from __future__ import annotations

from collections import namedtuple as _namedtuple
from typing import Any


def _repr(self: Any) -> str:
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"glassgrad.return_types.{type(self).__name__}(\n{fields})"


def namedtuple(name: str, fields: list[str]) -> type:
    """A named tuple type that prints as PyTorch's return types."""
    kind = _namedtuple(name, fields)
    kind.__repr__ = _repr
    kind.__module__ = __name__
    return kind


max: type = namedtuple("max", ["values", "indices"])
min: type = namedtuple("min", ["values", "indices"])
slogdet: type = namedtuple("slogdet", ["sign", "logabsdet"])
linalg_slogdet: type = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
sort: type = namedtuple("sort", ["values", "indices"])
topk: type = namedtuple("topk", ["values", "indices"])
kthvalue: type = namedtuple("kthvalue", ["values", "indices"])
median: type = namedtuple("median", ["values", "indices"])
nanmedian: type = namedtuple("nanmedian", ["values", "indices"])
mode: type = namedtuple("mode", ["values", "indices"])
cummax: type = namedtuple("cummax", ["values", "indices"])
cummin: type = namedtuple("cummin", ["values", "indices"])
svd: type = namedtuple("svd", ["U", "S", "V"])
linalg_svd: type = namedtuple("linalg_svd", ["U", "S", "Vh"])
qr: type = namedtuple("qr", ["Q", "R"])
linalg_qr: type = namedtuple("linalg_qr", ["Q", "R"])
linalg_eigh: type = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_eig: type = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
triangular_solve: type = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
linalg_lu_factor: type = namedtuple("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex: type = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu: type = namedtuple("linalg_lu", ["P", "L", "U"])
lu_unpack: type = namedtuple("lu_unpack", ["P", "L", "U"])
linalg_cholesky_ex: type = namedtuple("linalg_cholesky_ex", ["L", "info"])
linalg_inv_ex: type = namedtuple("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex: type = namedtuple("linalg_solve_ex", ["result", "info"])
linalg_lstsq: type = namedtuple(
    "linalg_lstsq", ["solution", "residuals", "rank", "singular_values"]
)
geqrf: type = namedtuple("geqrf", ["a", "tau"])
linalg_ldl_factor: type = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex: type = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
frexp: type = namedtuple("frexp", ["mantissa", "exponent"])
aminmax: type = namedtuple("aminmax", ["min", "max"])
histogram: type = namedtuple("histogram", ["hist", "bin_edges"])
histogramdd: type = namedtuple("histogramdd", ["hist", "bin_edges"])
