"""Einstein summation, composed of views, ``sum``, ``mul`` and ``bmm`` exactly as PyTorch
composes it (``at::native::einsum``): so its values, dtypes, gradient graph, saved tensors and
views (``einsum("ii->i", a)`` is a view of ``a``) are PyTorch's.

The steps: parse the equation into one label list per operand; give every label a place in
one common layout (output labels first, then contracted ones); bring each operand to it
(diagonals for repeated labels, unsqueeze for missing ones, a permute); then contract the
operands left to right, summing each contracted label as soon as no operand left needs it,
with ``sumproduct_pair`` reducing a pair to one ``bmm``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ._common import check_tensor
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .arithmetic import mul
from .diagonals import diagonal
from .linalg import bmm
from .reduction import sum as reduce_sum
from .shape import permute, reshape, unsqueeze, view
from .shape_views import movedim

_LETTERS = 26
_TOTAL_LABELS = 2 * _LETTERS
_ELLIPSIS = _TOTAL_LABELS


def _subscript(label: str) -> int:
    """A letter as an index in [0, 52): upper case first."""
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(subscript: int) -> str:
    return chr(subscript + ord("A")) if subscript < _LETTERS else chr(subscript - _LETTERS + 97)


def _parse_operands(lhs: str, count: int) -> list:
    """The labels of each operand (``_ELLIPSIS`` for ``...``), with PyTorch's checks."""
    labels: list = [[] for _ in range(count)]
    current, ellipsis_seen, i = 0, False, 0
    while i < len(lhs):
        char = lhs[i]
        if char == " ":
            pass
        elif char == ".":
            if ellipsis_seen:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {current} for which an ellipsis was "
                    "already found"
                )
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(
                    f"einsum(): found '.' for operand {current} that is not part of any ellipsis"
                )
            i += 2
            labels[current].append(_ELLIPSIS)
            ellipsis_seen = True
        elif char == ",":
            current += 1
            if current >= count:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            ellipsis_seen = False
        elif char.isascii() and char.isalpha():
            labels[current].append(_subscript(char))
        else:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {i} in the equation string, "
                "subscripts must be in [a-zA-Z]"
            )
        i += 1
    if current != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _layout(equation: str, lhs_length: int, labels: list, ndims: list) -> tuple:
    """Where each label goes in the common layout: ``(label_index, ellipsis_index,
    ellipsis_dims, output_dims, total_dims)``."""
    count = [0] * _TOTAL_LABELS
    ellipsis_dims = 0
    for i, (ops, ndim) in enumerate(zip(labels, ndims)):
        named = sum(1 for s in ops if s != _ELLIPSIS)
        has_ellipsis = _ELLIPSIS in ops
        for s in ops:
            if s != _ELLIPSIS:
                count[s] += 1
        if has_ellipsis:
            ellipsis_dims = max(ellipsis_dims, ndim - named)
        if (named > ndim) if has_ellipsis else (named != ndim):
            relation = "is more than" if has_ellipsis else "does not match"
            tail = "" if has_ellipsis else " and no ellipsis was given"
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) {relation} the "
                f"number of dimensions ({ndim}) for operand {i}{tail}"
            )
    index = [-1] * _TOTAL_LABELS
    position = ellipsis_index = 0
    ellipsis_in_output = False
    arrow = equation.find("->")
    if arrow < 0:  # implicit output: the ellipsis, then the labels seen once, sorted
        position, ellipsis_in_output = ellipsis_dims, True
        for s in range(_TOTAL_LABELS):
            if count[s] == 1:
                index[s] = position
                position += 1
    else:
        rhs = equation[arrow + 2 :]
        i = 0
        while i < len(rhs):
            char = rhs[i]
            if char == ".":
                if ellipsis_in_output:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                i += 2
                ellipsis_index, ellipsis_in_output = position, True
                position += ellipsis_dims
            elif char != " ":
                if not (char.isascii() and char.isalpha()):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {lhs_length + 2 + i} in the "
                        "equation string, subscripts must be in [a-zA-Z]"
                    )
                s = _subscript(char)
                if count[s] == 0 or index[s] != -1:
                    reason = (
                        "appears more than once in the output"
                        if index[s] != -1
                        else "does not appear in the equation for any input operand"
                    )
                    raise RuntimeError(f"einsum(): output subscript {char} {reason}")
                index[s] = position
                position += 1
            i += 1
    output_dims = position
    if not ellipsis_in_output:
        ellipsis_index = position
        position += ellipsis_dims
    for s in range(_TOTAL_LABELS):
        if count[s] and index[s] == -1:
            index[s] = position
            position += 1
    return index, ellipsis_index, ellipsis_dims, output_dims, position


def _aligned(operands: tuple, labels: list, layout: tuple) -> tuple:
    """Each operand brought to the common layout, and for each dim the number of operands
    in which it is not 1 (the contraction bookkeeping)."""
    index, ellipsis_index, ellipsis_dims, _, total = layout
    label_size = [1] * _TOTAL_LABELS
    ellipsis_sizes = [1] * ellipsis_dims
    dim_counts = [0] * total
    aligned = []
    for i, (operand, ops) in enumerate(zip(operands, labels)):
        op = operand
        permutation = [-1] * total
        dim = 0
        for s in ops:
            if s == _ELLIPSIS:
                covered = operand.dim() - (len(ops) - 1)
                for j in range(ellipsis_dims - covered, ellipsis_dims):
                    size = op.shape[dim]
                    if size != 1:
                        if ellipsis_sizes[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has "
                                f"size {size} which does not broadcast with previously seen "
                                f"ellipsis with size {ellipsis_sizes[j]} for the respective "
                                "dimension"
                            )
                        ellipsis_sizes[j] = size
                        dim_counts[ellipsis_index + j] += 1
                    permutation[ellipsis_index + j] = dim
                    dim += 1
            elif permutation[index[s]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[s] not in (1, size):
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {size} for operand {i} "
                            f"which does not broadcast with previously seen size {label_size[s]}"
                        )
                    label_size[s] = size
                    dim_counts[index[s]] += 1
                permutation[index[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, in the first one's place
                previous = permutation[index[s]]
                if op.shape[dim] != op.shape[previous]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.shape[dim]} != {op.shape[previous]}"
                    )
                op = movedim(diagonal(op, 0, previous, dim), -1, previous)
        for k, value in enumerate(permutation):
            if value == -1:
                op = unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        aligned.append(permute(op, tuple(permutation)))
    return aligned, dim_counts


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` by permutes, reshapes and one bmm."""
    if not sum_dims:
        return mul(left, right)
    ndim = left.dim()
    summed = set(sum_dims)
    lro: list = []
    lo: list = []
    ro: list = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        in_left, in_right = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if in_left and in_right:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif in_left:
                left = reduce_sum(left, i, keepdim=True)
            elif in_right:
                right = reduce_sum(right, i, keepdim=True)
        elif in_left and in_right:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif in_left:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = (
        [left.shape[d] for d in lro]
        + [left.shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right.shape[d] for d in ro]
    )
    order = lro + lo + list(sum_dims) + ro
    left = reshape(
        permute(left, tuple(lro + lo + list(sum_dims) + ro)), (lro_size, lo_size, sum_size)
    )
    right = reshape(
        permute(right, tuple(lro + list(sum_dims) + ro + lo)), (lro_size, sum_size, ro_size)
    )
    result = view(bmm(left, right), tuple(out_size))
    inverse = [0] * len(order)
    for position, d in enumerate(order):
        inverse[d] = position
    return permute(result, tuple(inverse))


# Sublist dims 0..51 as letters, upper case first: their alphabetical order is the numbers'.
_SUBLIST_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _from_sublists(args: tuple) -> tuple:
    """PyTorch's sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])``, as an equation and
    its operands (dims numbered 0..51, ``...`` as Ellipsis)."""

    def letters(sublist: Any) -> str:
        out = []
        for d in sublist:
            if d is Ellipsis:
                out.append("...")
            elif isinstance(d, int) and 0 <= d < len(_SUBLIST_LETTERS):
                out.append(_SUBLIST_LETTERS[d])
            else:
                raise ValueError(
                    f"einsum(): expected subscript to be within the range [0, 52), but got {d}"
                )
        return "".join(out)

    operands = list(args[0::2])
    sublists = list(args[1::2])
    output = None
    if len(args) % 2 == 1:  # a trailing output sublist
        output = operands.pop()
    equation = ",".join(letters(s) for s in sublists)
    if output is not None:
        equation += "->" + letters(output)
    return (equation, *operands)


def einsum(*args: Any) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``. Letters name dims,
    letters missing from the output are summed, ``...`` stands for broadcast dims, and
    without ``->`` the output is the ellipsis then the letters seen once, in alphabetical
    order (upper case first). Computed as PyTorch computes it (see the module docstring).

    Example::

        >>> a, b = glassgrad.ones(2, 3), glassgrad.ones(3, 4)
        >>> glassgrad.einsum("ij,jk->ik", a, b).shape
        glassgrad.Size([2, 4])
        >>> glassgrad.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape  # PyTorch's sublist form
        glassgrad.Size([2, 4])
    """
    if args and not isinstance(args[0], str):
        args = _from_sublists(args)
    if not args or not isinstance(args[0], str):
        raise TypeError("einsum(): the first argument must be the equation (a str)")
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for x in operands:
        check_tensor(x, "einsum", "operands", 2)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    labels = _parse_operands(lhs, len(operands))
    layout = _layout(equation, len(lhs), labels, [x.dim() for x in operands])
    ops, dim_counts = _aligned(operands, labels, layout)
    output_dims, total = layout[3], layout[4]
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(output_dims, total):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = reduce_sum(a, tuple(a_sum), keepdim=True)
        if b_sum:
            b = reduce_sum(b, tuple(b_sum), keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if total - output_dims > 0:
        if len(operands) > 1:
            return view(result, tuple(result.shape[:output_dims]))
        return reduce_sum(result, tuple(range(output_dims, total)))
    return result


def _einsum_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample(("ij,jk->ik", randn(rng, 2, 3), randn(rng, 3, 4))),
        Sample(("bij,bjk->bik", randn(rng, 2, 2, 3), randn(rng, 2, 3, 4))),
        Sample(("ii->i", randn(rng, 3, 3)), note="diagonal (a view, as in PyTorch)"),
        Sample(("ii", randn(rng, 3, 3)), note="trace, implicit output"),
        Sample(("ij->", randn(rng, 2, 3))),
        Sample(("i,j->ij", randn(rng, 3), randn(rng, 2))),
        Sample(("ij,ij->i", randn(rng, 3, 4), randn(rng, 1, 4)), note="broadcast letter"),
        Sample(("...ij,...jk", randn(rng, 2, 1, 2, 3), randn(rng, 3, 3, 2)), note="ellipsis"),
        Sample(("i...->...", randn(rng, 3, 2, 2))),
        Sample(("ba,Ab,ac", randn(rng, 2, 3), randn(rng, 4, 2), randn(rng, 3, 2))),
        Sample(("iij,jk->ik", randn(rng, 2, 2, 3), randn(rng, 3, 4))),
        Sample(("ij,jk", randn(rng, 3, 2).T, randn(rng, 4, 3).T), note="non-contiguous"),
        Sample(("ij,j->", randn(rng, 2, 3), NoGrad(randn(rng, 3)))),
        Sample(("i,i", randn(rng, 0), randn(rng, 0))),
        Sample(("ik,jk->ij", randn(rng, 2, 3), randn(rng, 4, 3))),
        Sample(("ab,b->a", randn(rng, 2, 3), randn(rng, 3)), note="unused letter c"),
        Sample(("ijk->kj", randn(rng, 2, 3, 4)), note="sum and transpose"),
        Sample(("i,i->i", randn(rng, 3), randn(rng, 3)), note="no contraction: a mul"),
        Sample(("i j , j k -> i k", randn(rng, 2, 3), randn(rng, 3, 2)), note="spaces"),
    ]


register("einsum", einsum, methods=(), samples=_einsum_samples)
