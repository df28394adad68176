"""``glassgrad.nn.functional``: the neural-network ops as functions (``F.relu``,
``F.conv2d``, ``F.cross_entropy`` ...).

The ops are the op registry's rows with namespace ``"nn.functional"`` (written in
``glassgrad/ops/nn_*.py``); this module adds the composite functions built from them
(attention) and PyTorch's aliases of top-level ops (``F.relu``, ``F.tanh``, ``F.sigmoid``).
A registered op always wins over a composite of the same name.

Example::

    >>> import glassgrad.nn.functional as F
    >>> F.relu(glassgrad.tensor([-1.0, 2.0]))
    tensor([0., 2.])
"""

from __future__ import annotations

from ..ops import public_functions as _public_functions
from ._attention import (  # noqa: F401 - public in this namespace
    multi_head_attention_forward,
    scaled_dot_product_attention,
)

_OPS = _public_functions("nn.functional")
globals().update(_OPS)

# PyTorch exposes these top-level ops in nn.functional too.
_ALIASES = {
    name: function
    for name, function in _public_functions().items()
    if name in ("relu", "tanh", "sigmoid") and name not in _OPS
}
globals().update(_ALIASES)

__all__ = sorted({"multi_head_attention_forward", "scaled_dot_product_attention", *_OPS, *_ALIASES})
