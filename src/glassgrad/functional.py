"""``glassgrad.functional``: the functions PyTorch keeps in ``torch.functional`` (all also at
the top level).

Example::

    >>> import glassgrad.functional as F
    >>> F.broadcast_shapes((2, 1), (3,))
    glassgrad.Size([2, 3])
"""

from __future__ import annotations

import glassgrad as _gg

_NAMES = (
    "atleast_1d atleast_2d atleast_3d block_diag broadcast_shapes broadcast_tensors "
    "cartesian_prod cdist chain_matmul einsum lu meshgrid norm split stft istft tensordot "
    "unique unique_consecutive unravel_index"
).split()

# Only the names glassgrad has: the missing ones are listed in docs/api_coverage.md.
__all__ = [name for name in _NAMES if hasattr(_gg, name)]
globals().update({name: getattr(_gg, name) for name in __all__})
