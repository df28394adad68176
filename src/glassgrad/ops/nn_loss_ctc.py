"""``ctc_loss``: the connectionist temporal classification loss (public in
``glassgrad.nn.functional``; ``nn.CTCLoss`` wraps it).

As in ATen: one node, ``CtcLossBackward0``, gives each sequence's negative log-likelihood
from the forward (alpha) recursion in log space; its backward runs the beta recursion and
returns PyTorch's gradient ``exp(log_probs) - exp(log(alpha * beta) + nll - log_probs)``
(the gradient for log-softmax outputs: composed with ``log_softmax`` it is the exact
derivative). ``zero_infinity`` zeroes infinite losses and their gradients; the reduction
(``mean`` divides each loss by its target length first) is composed after the node, so the
graph's last node is PyTorch's (``MeanBackward0``, ``SumBackward0``). PyTorch has no
derivative of the backward: under ``create_graph`` the gradient is recorded under a
``NotImplemented`` node that raises.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, keep_versions
from . import pointwise
from . import reduction as reduce_ops
from ._common import array_of, check_tensor
from ._namespace import ArrayNamespace
from ._not_implemented import _not_implemented_for, _not_implemented_node
from ._registry import Sample, register
from ._samples import randn
from .nn_loss import _reduction

_CtcBackwardNode = _not_implemented_node("_ctc_loss_backward", lambda *arrays: arrays[-1])
_NEG_INF = -np.inf


def _extended(target: np.ndarray, blank: int) -> np.ndarray:
    """``blank, l1, blank, l2, ..., blank``."""
    labels = np.full(2 * target.size + 1, blank, np.int64)
    labels[1::2] = target
    return labels


def _skips(labels: np.ndarray, blank: int) -> np.ndarray:
    """Where the recursion may also come from two states back (a label unlike the last)."""
    allowed = np.zeros(labels.size, bool)
    allowed[2:] = (labels[2:] != blank) & (labels[2:] != labels[:-2])
    return allowed


def _log_sum_exp(terms: list) -> np.ndarray:
    """ATen's three-term ``log(sum(exp(term - max))) + max`` with ``max = 0`` where every
    term is -inf: as its kernel, an infinite term gives NaN (inf - inf), not NumPy's inf."""
    top = np.max(terms, axis=0)
    top = np.where(top == _NEG_INF, 0.0, top)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.log(sum(np.exp(term - top) for term in terms)) + top


def _alpha(lp: np.ndarray, labels: np.ndarray, skip: np.ndarray, length: int) -> np.ndarray:
    alpha = np.full((length, labels.size), _NEG_INF)
    if length == 0:
        return alpha
    alpha[0, 0] = lp[0, labels[0]]
    if labels.size > 1:
        alpha[0, 1] = lp[0, labels[1]]
    for t in range(1, length):
        previous = alpha[t - 1]
        one_back = np.concatenate(([_NEG_INF], previous[:-1]))
        two_back = np.concatenate(([_NEG_INF, _NEG_INF], previous))[: labels.size]
        terms = [previous, one_back, np.where(skip, two_back, _NEG_INF)]
        alpha[t] = _log_sum_exp(terms) + lp[t, labels]
    return alpha


def _beta(lp: np.ndarray, labels: np.ndarray, skip: np.ndarray, length: int) -> np.ndarray:
    beta = np.full((length, labels.size), _NEG_INF)
    if length == 0:
        return beta
    last = labels.size - 1
    beta[length - 1, last] = lp[length - 1, labels[last]]
    if last > 0:
        beta[length - 1, last - 1] = lp[length - 1, labels[last - 1]]
    # the skip into state s + 2 is allowed when skip[s + 2] (label unlike the one at s)
    skip_from = np.concatenate((skip[2:], [False, False]))[: labels.size]
    for t in range(length - 2, -1, -1):
        following = beta[t + 1]
        one_ahead = np.concatenate((following[1:], [_NEG_INF]))
        two_ahead = np.concatenate((following[2:], [_NEG_INF, _NEG_INF]))[: labels.size]
        terms = [following, one_ahead, np.where(skip_from, two_ahead, _NEG_INF)]
        beta[t] = _log_sum_exp(terms) + lp[t, labels]
    return beta


def _log_add(total: np.ndarray, term: np.ndarray) -> np.ndarray:
    """ATen's ``total "log+=" term`` collecting alpha * beta per label: the term itself where
    the total is still -inf, else the two-term log-sum-exp (NaN for two infinities)."""
    top = np.maximum(total, term)
    with np.errstate(invalid="ignore", over="ignore"):
        summed = np.log(np.exp(total - top) + np.exp(term - top)) + top
    return np.where(total == _NEG_INF, term, summed)


def _alpha_beta_by_label(alpha: np.ndarray, beta: np.ndarray, labels: np.ndarray, classes: int):
    """log sum over the states s of each label of alpha[t, s] + beta[t, s], as ATen collects
    it: the last step from its two final states only (assigned), the others over every state
    in descending order."""
    length = alpha.shape[0]
    both = np.full((length, classes), _NEG_INF)
    ab = alpha + beta
    last = labels.size - 1
    both[length - 1, labels[last]] = ab[length - 1, last]
    if last > 0:
        both[length - 1, labels[last - 1]] = ab[length - 1, last - 1]
    for s in range(last, -1, -1):
        column = labels[s]
        both[: length - 1, column] = _log_add(both[: length - 1, column], ab[: length - 1, s])
    return both


class CtcLossBackward0(Op):
    """out[n] = -log sum over the alignments of targets[n] of prod_t exp(log_probs[t, n, .])."""

    blank: Any
    input_lengths: Any
    targets: Any
    zero_infinity: Any

    saved_inputs: tuple[int, ...] = (0,)
    saves_output = True
    grad_reads_saved = True
    __slots__ = ("targets", "input_lengths", "blank", "zero_infinity")

    def forward(
        self, log_probs: Any, targets: Any, input_lengths: Any, blank: Any, zero_infinity: Any
    ) -> Any:
        self.targets, self.input_lengths = targets, input_lengths
        self.blank, self.zero_infinity = blank, zero_infinity
        lp = log_probs.astype(np.float64)
        out = np.empty(len(targets))
        for n, (target, length) in enumerate(zip(targets, input_lengths)):
            labels = _extended(target, blank)
            alpha = _alpha(lp[:, n], labels, _skips(labels, blank), length)
            if length == 0:
                out[n] = 0.0 if target.size == 0 else np.inf
                continue
            if labels.size == 1:  # no label: the one path stays on the blank
                out[n] = -alpha[length - 1, 0]
                continue
            ends = alpha[length - 1, -2:]
            top = ends.max() if ends.max() != _NEG_INF else 0.0
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                out[n] = -(np.log(np.exp(ends[1] - top) + np.exp(ends[0] - top)) + top)
        return out.astype(log_probs.dtype)

    def backward(self, F: Any, grad: Any) -> Any:
        saved, out = self.saved
        lp = array_of(saved).astype(np.float64)
        nll, g = array_of(out).astype(np.float64), array_of(grad).astype(np.float64)
        result = np.zeros_like(lp)
        for n, (target, length) in enumerate(zip(self.targets, self.input_lengths)):
            if (self.zero_infinity and nll[n] == np.inf) or length == 0:
                continue
            labels = _extended(target, self.blank)
            skip = _skips(labels, self.blank)
            alpha = _alpha(lp[:, n], labels, skip, length)
            beta = _beta(lp[:, n], labels, skip, length)
            both = _alpha_beta_by_label(alpha, beta, labels, lp.shape[2])
            with np.errstate(invalid="ignore", over="ignore"):
                step = np.exp(lp[:length, n]) - np.exp(both + nll[n] - lp[:length, n])
            result[:length, n] = step * g[n]
        result = result.astype(array_of(saved).dtype)
        if F is ArrayNamespace:
            return result
        return _CtcBackwardNode.apply(grad, saved, Tensor._from_array(result))


def _lengths(value: Any, name: str, batch: int) -> np.ndarray:
    array = np.asarray(value._data if isinstance(value, Tensor) else value)
    if array.dtype.kind not in "iu":
        raise RuntimeError(f"ctc_loss: {name} must be integers, got {array.dtype}")
    return array.reshape(-1).astype(np.int64)


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    r"""The CTC loss: ``-log p(target | input)`` summed over every alignment of the target
    (with blanks and repeats) to the input's time steps.

    ``log_probs`` is (T, N, C) (or (T, C) for one sequence), log-probabilities over ``C``
    classes, ``blank`` among them; ``targets`` is (N, S) padded or the concatenation of all
    targets; ``input_lengths`` and ``target_lengths`` give each sequence's lengths. ``mean``
    divides each loss by its target length before averaging over the batch.

    Example::

        >>> F = glassgrad.nn.functional
        >>> log_probs = glassgrad.full((2, 1, 2), 0.5).log()
        >>> F.ctc_loss(log_probs, glassgrad.tensor([[1]]), [2], [1], reduction="sum")
        tensor(0.2877)
    """
    how = _reduction(reduction)
    op = "ctc_loss"
    check_tensor(log_probs, op, "log_probs")
    check_tensor(targets, op, "targets", 2)
    batched = log_probs._data.ndim == 3
    if not batched:  # as ATen: anything but 3-d is taken as one sequence
        log_probs = log_probs.unsqueeze(1)
    lp = log_probs._data
    if lp.dtype not in (np.float32, np.float64):  # PyTorch dispatches before its checks
        raise _not_implemented_for("ctc_loss_cpu", lp.dtype)
    if lp.ndim != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {lp.ndim}-dimensional tensor for argument "
            "#1 'log_probs' (while checking arguments for ctc_loss_allocate_outputs)"
        )
    steps, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    in_lengths = _lengths(input_lengths, "input_lengths", batch)
    tg_lengths = _lengths(target_lengths, "target_lengths", batch)
    for name, lengths in (("input_lengths", in_lengths), ("target_lengths", tg_lengths)):
        if lengths.size != batch:
            raise RuntimeError(f"{name} must be of size batch_size")
    if in_lengths.size and in_lengths.max() > steps:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {steps}, but got value "
            f"{in_lengths.max()} (while checking arguments for ctc_loss_allocate_outputs)"
        )
    t = targets._data.astype(np.int64)
    if not batched:
        t = t.reshape(1, -1)
    if t.ndim == 1:
        if t.size < tg_lengths.sum():
            raise RuntimeError(
                f"Expected tensor to have size {tg_lengths.sum()} at dimension 0, "
                f"but got size {t.size} for argument #2 'targets' (while checking arguments "
                "for ctc_loss_allocate_outputs)"
            )
        starts = np.concatenate(([0], np.cumsum(tg_lengths)[:-1]))
        per_sample = [t[s : s + n] for s, n in zip(starts, tg_lengths)]
    else:
        if tg_lengths.size and t.shape[1] < tg_lengths.max():
            raise RuntimeError(
                f"Expected tensor to have size at least {tg_lengths.max()} at dimension 1, but "
                f"got size {t.shape[1]} for argument #2 'targets' (while checking arguments "
                "for ctc_loss_allocate_outputs)"
            )
        per_sample = [row[:n] for row, n in zip(t, tg_lengths)]
    loss = keep_versions(
        CtcLossBackward0.apply(
            log_probs,
            targets=per_sample,
            input_lengths=in_lengths,
            blank=int(blank),
            zero_infinity=bool(zero_infinity),
        ),
        targets,  # PyTorch keeps the lengths as lists of numbers: not tensors, not checked
    )
    if zero_infinity:
        zeros = Tensor._from_array(np.zeros((), lp.dtype))
        loss = pointwise.where(loss == float("inf"), zeros, loss)
    if how == "mean":
        divisor = Tensor._from_array(np.maximum(tg_lengths, 1).astype(lp.dtype))
        return reduce_ops.mean(loss / divisor)
    if how == "sum":
        return reduce_ops.sum(loss)
    return loss if batched else loss.squeeze(0)


def _ctc_samples(rng: np.random.Generator) -> list[Sample]:
    # PyTorch's gradient is the one for log-softmax outputs (it adds exp(log_probs)), not the
    # derivative in free log_probs: finite differences apply only through a log_softmax
    # (tests/nn/test_layers_multiclass.py checks that), so fd=False here.
    def log_probs(*shape: int) -> np.ndarray:
        x = randn(rng, *shape)
        return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))

    targets = np.array([[1, 2, 2], [3, 1, 0]])
    return [
        Sample((log_probs(6, 2, 4), targets, np.array([6, 5]), np.array([3, 2])), fd=False),
        Sample(
            (log_probs(6, 2, 4), np.array([1, 2, 2, 3, 1]), [6, 5], [3, 2]),
            {"reduction": "sum", "blank": 3},
            fd=False,
        ),
        Sample(
            (log_probs(5, 2, 3), targets[:, :2], np.array([5, 3]), np.array([2, 0])),
            {"reduction": "none"},
            fd=False,
        ),
        Sample(
            (log_probs(4, 3), np.array([1, 2]), np.array(4), np.array(2)),
            {"reduction": "none"},
            fd=False,
            note="unbatched",
        ),
        Sample(
            (log_probs(2, 1, 4), np.array([[1, 1]]), [2], [2]),
            {"zero_infinity": True},
            fd=False,
            note="infeasible: infinite loss zeroed",
        ),
    ]


register(
    "ctc_loss",
    ctc_loss,
    nodes=(CtcLossBackward0,),
    samples=_ctc_samples,
    namespace="nn.functional",
    second_order=False,  # PyTorch has no derivative of _ctc_loss_backward
)

__all__ = ["ctc_loss"]
