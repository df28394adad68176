"""One flat vector from a model's parameters, and back."""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...ops import shape
from ..modules.module import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated into one vector (differentiable).

    Example::

        >>> nn.utils.parameters_to_vector(nn.Linear(3, 2).parameters()).shape
        glassgrad.Size([8])
    """
    return shape.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter's values the next slice of ``vec`` (the parameters then share
    ``vec``'s storage, as in PyTorch).

    Example::

        >>> layer = nn.Linear(3, 2)
        >>> nn.utils.vector_to_parameters(glassgrad.zeros(8), layer.parameters())
        >>> layer.bias
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer : pointer + count].reshape(param.shape).data
        pointer += count
