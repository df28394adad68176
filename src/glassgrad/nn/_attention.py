"""Attention, composed from differentiable ops: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (the function behind ``nn.MultiheadAttention``).

Both follow PyTorch's definitions: boolean masks mark positions to leave out (True in a
``key_padding_mask``; True in a boolean ``attn_mask`` of ``multi_head_attention_forward``),
float masks are added to the attention scores.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..ops import linalg, reduction, shape
from ..ops.nn_misc import dropout, linear
from ..ops.nn_softmax import softmax

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _float_mask(mask: Tensor | None, dtype: np.dtype, name: str) -> Tensor | None:
    """A boolean mask (True = leave out) as an additive float mask of 0 and -inf."""
    if mask is None:
        return None
    if mask._data.dtype == np.bool_:
        return Tensor._from_array(np.where(mask._data, -np.inf, 0.0).astype(dtype))
    if mask._data.dtype.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _pad_last(mask: Tensor | None) -> Tensor | None:
    """Append a zero column on the last dimension (for an added key position)."""
    if mask is None:
        return None
    zeros = Tensor._from_array(np.zeros(mask.shape[:-1] + (1,), dtype=mask._data.dtype))
    return shape.cat([mask, zeros], -1)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(q @ k^T * scale + mask) @ v`` over the last two dimensions.

    Parameters
    ----------
    query : Tensor of shape (..., L, E)
    key : Tensor of shape (..., S, E)
    value : Tensor of shape (..., S, Ev)
    attn_mask : Tensor, optional
        Broadcastable to (..., L, S): boolean (True = take part, PyTorch's convention for
        this function) or float (added to the scores).
    dropout_p : float
        Dropout on the attention weights.
    is_causal : bool
        Mask out keys after each query (the upper triangle).
    scale : float, optional
        Score scale (default ``1 / sqrt(E)``).

    Example::

        >>> q = k = v = glassgrad.randn(2, 4, 8)
        >>> F.scaled_dot_product_attention(q, k, v).shape
        glassgrad.Size([2, 4, 8])
    """
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention: enable_gqa is not supported")
    length, source = query.shape[-2], key.shape[-2]
    factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    dtype = query._data.dtype
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "scaled_dot_product_attention: explicit attn_mask should not be set when "
                "is_causal=True"
            )
        allowed = np.tril(np.ones((length, source), dtype=bool))
        bias = Tensor._from_array(np.where(allowed, 0.0, -np.inf).astype(dtype))
    elif attn_mask is not None:
        if attn_mask._data.dtype == np.bool_:
            bias = Tensor._from_array(np.where(attn_mask._data, 0.0, -np.inf).astype(dtype))
        else:
            bias = attn_mask
    scores = linalg.matmul(query, key.transpose(-2, -1)) * factor
    if bias is not None:
        scores = scores + bias
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return linalg.matmul(weights, value)


def _check_mask_shapes(
    attn_mask: Tensor | None, tgt_len: int, src_len: int, heads_batch: int
) -> Tensor | None:
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (heads_batch, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(heads_batch, tgt_len, src_len)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention on sequence-first inputs (L, N, E) (or unbatched (L, E)).

    Projects query, key and value (packed ``in_proj_weight`` or the three separate
    weights), splits the embedding into ``num_heads`` heads, computes
    ``softmax(q k^T / sqrt(head_dim) + masks) v`` per head, merges the heads and applies the
    output projection. Returns ``(output, weights)``: weights (N, L, S) averaged over heads,
    (N, heads, L, S) without averaging, or None unless ``need_weights``.

    Example::

        >>> mha = nn.MultiheadAttention(8, 2)
        >>> x = glassgrad.randn(5, 3, 8)
        >>> out, w = F.multi_head_attention_forward(x, x, x, 8, 2, mha.in_proj_weight,
        ...     mha.in_proj_bias, None, None, False, 0.0, mha.out_proj.weight, mha.out_proj.bias)
        >>> out.shape, w.shape
        (glassgrad.Size([5, 3, 8]), glassgrad.Size([3, 5, 5]))
    """
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    dtype = query._data.dtype
    key_padding_mask = _float_mask(key_padding_mask, dtype, "key_padding_mask")
    attn_mask = _float_mask(attn_mask, dtype, "attn_mask")
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k/static_v")

    # Input projections.
    if use_separate_proj_weight:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q = in_proj_bias[:embed_dim]
            b_k = in_proj_bias[embed_dim : 2 * embed_dim]
            b_v = in_proj_bias[2 * embed_dim :]
        q = linear(query, q_proj_weight, b_q)
        k = linear(key, k_proj_weight, b_k)
        v = linear(value, v_proj_weight, b_v)
    else:
        w_q = in_proj_weight[:embed_dim]
        w_k = in_proj_weight[embed_dim : 2 * embed_dim]
        w_v = in_proj_weight[2 * embed_dim :]
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q = in_proj_bias[:embed_dim]
            b_k = in_proj_bias[embed_dim : 2 * embed_dim]
            b_v = in_proj_bias[2 * embed_dim :]
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)

    attn_mask = _check_mask_shapes(attn_mask, tgt_len, src_len, bsz * num_heads)
    if bias_k is not None and bias_v is not None:
        k = shape.cat([k, bias_k.expand(1, bsz, embed_dim)], 0)
        v = shape.cat([v, bias_v.expand(1, bsz, embed_dim)], 0)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)

    # (length, batch, embed) -> (batch * heads, length, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zeros = Tensor._from_array(np.zeros((bsz * num_heads, 1, head_dim), dtype=dtype))
        k = shape.cat([k, zeros], 1)
        v = shape.cat([v, zeros], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{key_padding_mask.shape}"
            )
        padding = (
            key_padding_mask.reshape(bsz, 1, 1, src_len)
            .expand(bsz, num_heads, 1, src_len)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = padding if attn_mask is None else attn_mask + padding

    if not training:
        dropout_p = 0.0
    scores = linalg.matmul(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    output = linalg.matmul(weights, v)  # (batch * heads, tgt_len, head_dim)
    output = output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if not batched:
        output = output.squeeze(1)
    if not need_weights:
        return output, None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = reduction.mean(weights, 1)
    if not batched:
        weights = weights.squeeze(0)
    return output, weights
