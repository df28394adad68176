"""``glassgrad.linalg``: the linear-algebra ops registered with namespace "linalg"."""

from .ops import public_functions as _public_functions
from .ops._linalg_common import LinAlgError as LinAlgError

globals().update(_public_functions("linalg"))
