"""Named tuples returned by ops with several results (``max(dim)`` -> values, indices)."""

from __future__ import annotations

from collections import namedtuple

max = namedtuple("max", ["values", "indices"])
min = namedtuple("min", ["values", "indices"])
slogdet = namedtuple("slogdet", ["sign", "logabsdet"])
linalg_slogdet = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
