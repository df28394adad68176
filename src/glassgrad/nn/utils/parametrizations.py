"""``nn.utils.parametrizations``: orthogonal matrices, weight normalisation and spectral
normalisation as parametrizations (``nn.utils.parametrize``), with PyTorch's sub-module and state-dict layout.

Example::

    >>> layer = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
    >>> layer.parametrizations.weight.original0.shape
    glassgrad.Size([40, 1])
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize
from ._orthogonal import orthogonal

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


def norm_except_dim(v: Tensor, pow: float, dim: int) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, shaped to broadcast
    against ``v`` (PyTorch's ``torch.norm_except_dim``; ``dim=-1``: the norm of all of ``v``).
    """
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        sizes = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(sizes)
    if dim == v.dim() - 1:
        sizes = (1,) * (v.dim() - 1) + (v.size(-1),)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(sizes)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def weight_norm_value(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """``v * (g / ||v||)``, the norm taken over every dimension but ``dim`` (PyTorch's
    ``torch._weight_norm``)."""
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    """weight = g * v / ||v||, from (g, v) = (||weight||, weight)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_norm_value(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: magnitude ``g``
    (``parametrizations.<name>.original0``, one per slice along ``dim``; ``dim=None``: one)
    and direction ``v`` (``original1``). Old ``<name>_g`` / ``<name>_v`` state-dict keys load.

    Example::

        >>> layer = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
        >>> layer.parametrizations.weight.original1.shape
        glassgrad.Size([40, 20])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def compat_hook(
        module: Module,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(compat_hook)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight (as a matrix with
    ``dim`` first) estimated by power iteration on the buffers ``_u`` and ``_v``."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                # In place, as PyTorch's out=: the buffers stay the same tensors.
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Reparametrize ``module.<name>`` as ``weight / sigma(weight)``, the spectral norm
    estimated by ``n_power_iterations`` of power iteration per training-mode access (buffers
    ``_u``, ``_v``); ``dim`` defaults to 1 for transposed convolutions, else 0.

    Example::

        >>> layer = nn.utils.parametrizations.spectral_norm(nn.Linear(20, 40))
        >>> layer.parametrizations.weight.original.shape
        glassgrad.Size([40, 20])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _TRANSPOSED) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


_TRANSPOSED: Any = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
