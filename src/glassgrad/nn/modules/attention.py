"""``MultiheadAttention``: attention over several projected subspaces (heads) at once."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import init
from .._attention import multi_head_attention_forward
from ..parameter import Parameter
from ._utils import new_parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """``concat(head_1, ..., head_h) W_o`` with
    ``head_i = softmax(Q W_q_i (K W_k_i)^T / sqrt(d) + masks) V W_v_i``.

    Parameters
    ----------
    embed_dim : int
        Model dimension (split evenly across the heads).
    num_heads : int
        Number of heads.
    dropout : float
        Dropout on the attention weights (training mode).
    bias : bool
        Learn input and output projection biases.
    add_bias_kv : bool
        Learn an extra key and value appended to the sequence.
    add_zero_attn : bool
        Append a zero key and value.
    kdim, vdim : int, optional
        Feature sizes of key and value (default ``embed_dim``; if either differs, the three
        projections are separate parameters ``q_proj_weight`` ...).
    batch_first : bool
        Inputs and output are (batch, seq, feature) instead of (seq, batch, feature).

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)``. A boolean
    ``key_padding_mask`` (N, S) or ``attn_mask`` (L, S) / (N * heads, L, S) marks with True
    the positions to leave out; float masks are added to the scores.

    Example::

        >>> mha = nn.MultiheadAttention(16, 4, batch_first=True)
        >>> x = glassgrad.randn(2, 5, 16)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (glassgrad.Size([2, 5, 16]), glassgrad.Size([2, 5, 5]))
    """

    q_proj_weight: Parameter | None
    k_proj_weight: Parameter | None
    v_proj_weight: Parameter | None
    in_proj_weight: Parameter | None
    in_proj_bias: Parameter | None
    bias_k: Parameter | None
    bias_v: Parameter | None

    head_dim: int
    kdim: int
    out_proj: NonDynamicallyQuantizableLinear
    vdim: int

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        super().__init__()
        factory = {"dtype": dtype, "device": device}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = new_parameter(embed_dim, embed_dim, **factory)
            self.k_proj_weight = new_parameter(embed_dim, self.kdim, **factory)
            self.v_proj_weight = new_parameter(embed_dim, self.vdim, **factory)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = new_parameter(3 * embed_dim, embed_dim, **factory)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = new_parameter(3 * embed_dim, **factory)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = new_parameter(1, 1, embed_dim, **factory)
            self.bias_v = new_parameter(1, 1, embed_dim, **factory)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        output, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and batched:
            output = output.transpose(1, 0)
        return output, weights
