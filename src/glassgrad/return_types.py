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


def namedtuple(name: str, fields: list) -> type:
    """A named tuple type that prints as PyTorch's return types."""
    kind = _namedtuple(name, fields)
    kind.__repr__ = _repr
    kind.__module__ = __name__
    return kind


max = namedtuple("max", ["values", "indices"])
min = namedtuple("min", ["values", "indices"])
slogdet = namedtuple("slogdet", ["sign", "logabsdet"])
linalg_slogdet = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
sort = namedtuple("sort", ["values", "indices"])
topk = namedtuple("topk", ["values", "indices"])
kthvalue = namedtuple("kthvalue", ["values", "indices"])
median = namedtuple("median", ["values", "indices"])
nanmedian = namedtuple("nanmedian", ["values", "indices"])
mode = namedtuple("mode", ["values", "indices"])
cummax = namedtuple("cummax", ["values", "indices"])
cummin = namedtuple("cummin", ["values", "indices"])
svd = namedtuple("svd", ["U", "S", "V"])
linalg_svd = namedtuple("linalg_svd", ["U", "S", "Vh"])
qr = namedtuple("qr", ["Q", "R"])
linalg_qr = namedtuple("linalg_qr", ["Q", "R"])
linalg_eigh = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_eig = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
triangular_solve = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
linalg_lu_factor = namedtuple("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu = namedtuple("linalg_lu", ["P", "L", "U"])
lu_unpack = namedtuple("lu_unpack", ["P", "L", "U"])
linalg_cholesky_ex = namedtuple("linalg_cholesky_ex", ["L", "info"])
linalg_inv_ex = namedtuple("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = namedtuple("linalg_solve_ex", ["result", "info"])
linalg_lstsq = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
geqrf = namedtuple("geqrf", ["a", "tau"])
linalg_ldl_factor = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
frexp = namedtuple("frexp", ["mantissa", "exponent"])
aminmax = namedtuple("aminmax", ["min", "max"])
histogram = namedtuple("histogram", ["hist", "bin_edges"])
