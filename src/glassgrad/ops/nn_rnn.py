"""Fused recurrent layers: one graph node runs a whole LSTM layer (one direction) over a
sequence, as PyTorch's CPU LSTM does (its ``MkldnnRnnLayerBackward0`` node).

Recorded step by step, an LSTM of 32 time steps is some 400 small nodes; fused, it is one node
whose forward loops over time in NumPy and whose backward loops back over time:

- the input projection ``x @ W_ih^T + b_ih + b_hh`` of every time step is one matrix product
  before the loop; only ``h @ W_hh^T`` runs per step;
- gates are kept gate-major, ``(4, time, batch, hidden)``, so each gate of each step is one
  contiguous block: the activations and the backward's products run on contiguous memory, and
  the weight gradients are one matrix product per gate over all time steps at once;
- the forward keeps the activated gates, the cell states and their tanh for the backward.

The backward is one formula written against ``F`` (see ``ops/_namespace.py``). Without a graph
it runs on the arrays the forward kept; under ``create_graph=True`` the node recomputes those
activations with differentiable glassgrad ops from its saved inputs, and the same formula then
builds the graph of the backward, so second derivatives come out right.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, _modified_error
from . import linalg, pointwise, shape
from ._registry import NoGrad, Sample, register
from ._samples import randn
from .nn_conv import _Workspace

__all__ = ["lstm_layer"]

# Gradients of the gate pre-activations live here between the backward's time loop and its
# weight products: one buffer reused from call to call (a fresh multi-megabyte array per call
# costs page faults that rival the arithmetic).
_workspace = _Workspace()


class _BufferPool:
    """Arrays that a released node no longer needs, handed to the next forward that asks for
    the same shape and dtype: a training loop then reuses the same few megabytes of gate and
    cell values at every step instead of faulting in fresh pages. Holds at most ``limit`` bytes.
    """

    def __init__(self, limit: int) -> None:
        self.free: dict = {}
        self.nbytes = 0
        self.limit = limit

    def take(self, shape: tuple, dtype: np.dtype) -> np.ndarray:
        stack = self.free.get((shape, dtype))
        if stack:
            array = stack.pop()
            self.nbytes -= array.nbytes
            return array
        return np.empty(shape, dtype)

    def give(self, *arrays: np.ndarray) -> None:
        """Take back arrays nothing else refers to."""
        for array in arrays:
            if self.nbytes + array.nbytes <= self.limit:
                self.free.setdefault((array.shape, array.dtype), []).append(array)
                self.nbytes += array.nbytes


_pool = _BufferPool(64 * 2**20)


def _sigmoid_(a: np.ndarray) -> None:
    """``a = 1 / (1 + exp(-a))`` in place; exp may overflow to inf, which gives the exact 0."""
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += 1.0
    np.reciprocal(a, out=a)


class MkldnnRnnLayerBackward0(Op):
    """One LSTM layer in one direction over a whole sequence (PyTorch's name for this node on
    CPU)::

        gates_t = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh, split in four (i, f, g, o)
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
        h_t = sigmoid(o) * tanh(c_t)

    Inputs ``(x, w_ih, w_hh, b_ih, b_hh, hx, cx)`` (biases may be None); outputs every step's
    ``h_t`` (time, batch, hidden) and the final ``h`` and ``c``. ``reverse`` runs from the last
    time step to the first (the backward direction of a bidirectional layer); ``output[t]``
    stays the state after reading ``x[t]``.
    """

    saved_inputs = (0, 1, 2, 3, 4, 5, 6)
    __slots__ = ("reverse", "_kept", "_output_version")

    def forward(self, x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse=False):
        self.reverse = reverse
        self._output_version = None
        steps, batch, features = x.shape
        hidden = w_hh.shape[1]
        dtype = x.dtype
        r = int(reverse)  # state of step t: slot t + 1 - r; the state it reads: slot t + r
        # gates[k, t] is gate k of step t: the input projection for every step in one product
        gates = _pool.take((4, steps, batch, hidden), dtype)
        w_ih_t = w_ih.reshape(4, hidden, features).transpose(0, 2, 1)
        np.matmul(x.reshape(steps * batch, features), w_ih_t, out=gates.reshape(4, -1, hidden))
        if b_ih is not None:
            gates += (b_ih + b_hh).reshape(4, 1, 1, hidden)
        w_hh_t = w_hh.reshape(4, hidden, hidden).transpose(0, 2, 1)
        states = np.empty((steps + 1, batch, hidden), dtype)  # h_0 and every h_t
        cells = _pool.take((steps + 1, batch, hidden), dtype)
        tanh_cells = _pool.take((steps, batch, hidden), dtype)
        states[steps * r] = hx
        cells[steps * r] = cx
        product = np.empty((4, batch, hidden), dtype)
        scratch = np.empty((batch, hidden), dtype)
        with np.errstate(over="ignore"):
            for t in range(steps - 1, -1, -1) if reverse else range(steps):
                a = gates[:, t]
                np.matmul(states[t + r], w_hh_t, out=product)
                a += product
                _sigmoid_(a[:2])
                np.tanh(a[2], out=a[2])
                _sigmoid_(a[3])
                c = cells[t + 1 - r]
                np.multiply(a[1], cells[t + r], out=c)
                np.multiply(a[0], a[2], out=scratch)
                c += scratch
                np.tanh(c, out=tanh_cells[t])
                np.multiply(a[3], tanh_cells[t], out=states[t + 1 - r])
        self._kept = _KeptArrays(gates, cells, tanh_cells, states, r)
        last = steps * (1 - r)
        return states[1 - r : steps + 1 - r], states[last].copy(), cells[last].copy()

    def backward(self, F, grad):
        d_output, d_hn, d_cn = grad
        x, w_ih, w_hh, b_ih, b_hh, hx, cx = self.saved
        steps, batch, features = x.shape
        hidden = w_hh.shape[1]
        if isinstance(d_output, Tensor):  # create_graph: activations as functions of inputs
            kept = _recompute(x, w_ih, w_hh, b_ih, b_hh, hx, cx, self.reverse)
            sink = _GateGradients(None, steps)
        else:
            kept = self._kept_arrays()
            buffer = _workspace.take((4, steps, batch, hidden), d_output.dtype)
            sink = _GateGradients(buffer, steps)
        order = range(steps) if self.reverse else range(steps - 1, -1, -1)
        w_hh_gates = F.reshape(w_hh, (4, hidden, hidden))
        dh, dc = d_hn, d_cn
        for t in order:
            i, f, g, o = kept.gates(t)
            tanh_c = kept.tanh_cell(t)
            dh = dh + d_output[t]
            dc = dc + dh * o * (1.0 - tanh_c * tanh_c)
            d_gates = sink.put(
                t,
                (
                    dc * g * i * (1.0 - i),
                    dc * kept.cell_before(t) * f * (1.0 - f),
                    dc * i * (1.0 - g * g),
                    dh * tanh_c * o * (1.0 - o),
                ),
            )
            dc = dc * f
            dh = F.sum(F.matmul(d_gates, w_hh_gates), 0)
        # Per gate, one product over all time steps and batch rows.
        d_pre = F.reshape(sink.result(), (4, steps * batch, hidden))
        needs = self.needs_input_grad
        d_x = d_w_ih = d_w_hh = d_bias = None
        if needs[0]:
            w_ih_gates = F.reshape(w_ih, (4, hidden, features))
            d_x = F.reshape(F.sum(F.matmul(d_pre, w_ih_gates), 0), (steps, batch, features))
        if needs[1]:
            inputs = F.reshape(x, (steps * batch, features))
            d_w_ih = F.reshape(F.matmul(F.mT(d_pre), inputs), (4 * hidden, features))
        if needs[2]:
            before = F.reshape(kept.states_before(), (steps * batch, hidden))
            d_w_hh = F.reshape(F.matmul(F.mT(d_pre), before), (4 * hidden, hidden))
        if needs[3] or needs[4]:
            d_bias = F.reshape(F.sum(d_pre, 1), (4 * hidden,))
        return d_x, d_w_ih, d_w_hh, d_bias, d_bias, dh, dc

    def _kept_arrays(self) -> _KeptArrays:
        version = self._output_version
        if version is not None and version[0] != 0:  # the output was modified in place
            holder = Tensor._from_array(self._kept.outputs())
            holder._vc = version
            raise _modified_error(holder, 0, self)
        return self._kept

    def _release(self) -> None:
        Op._release(self)
        kept = self._kept
        if kept is not None:
            self._kept = None
            # The output's states stay with the output; the rest only this node saw.
            _pool.give(kept.gate_values, kept.cells, kept.tanh_cells)


class _KeptArrays:
    """What the forward keeps for the backward, read per time step ``t``."""

    __slots__ = ("gate_values", "cells", "tanh_cells", "states", "r")

    def __init__(self, gates, cells, tanh_cells, states, r) -> None:
        self.gate_values, self.cells, self.tanh_cells, self.states, self.r = (
            gates,
            cells,
            tanh_cells,
            states,
            r,
        )

    def gates(self, t: int) -> np.ndarray:  # (4, batch, hidden): unpacks into i, f, g, o
        return self.gate_values[:, t]

    def tanh_cell(self, t: int) -> np.ndarray:
        return self.tanh_cells[t]

    def cell_before(self, t: int) -> np.ndarray:
        return self.cells[t + self.r]

    def states_before(self) -> np.ndarray:  # (time, batch, hidden): the h each step read
        steps = self.tanh_cells.shape[0]
        return self.states[self.r : steps + self.r]

    def outputs(self) -> np.ndarray:
        steps = self.tanh_cells.shape[0]
        return self.states[1 - self.r : steps + 1 - self.r]


class _RecomputedTensors:
    """The same quantities as ``_KeptArrays``, as differentiable Tensors (under create_graph)."""

    __slots__ = ("gate_list", "cell_list", "tanh_list", "state_list")

    def __init__(self, steps: int) -> None:
        self.gate_list: list = [None] * steps
        self.cell_list: list = [None] * steps
        self.tanh_list: list = [None] * steps
        self.state_list: list = [None] * steps

    def gates(self, t: int) -> tuple:
        return self.gate_list[t]

    def tanh_cell(self, t: int) -> Tensor:
        return self.tanh_list[t]

    def cell_before(self, t: int) -> Tensor:
        return self.cell_list[t]

    def states_before(self) -> Tensor:
        return shape.stack(self.state_list, 0)


def _recompute(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse: bool) -> _RecomputedTensors:
    """The forward of ``MkldnnRnnLayerBackward0`` in differentiable ops, keeping per step what
    the backward formula reads."""
    steps, batch, features = x.shape
    hidden = w_hh.shape[1]
    w_ih_t = shape.transpose(shape.reshape(w_ih, (4, hidden, features)), 1, 2)
    projected = linalg.matmul(shape.reshape(x, (steps * batch, features)), w_ih_t)
    if b_ih is not None:
        projected = projected + shape.reshape(b_ih + b_hh, (4, 1, hidden))
    projected = shape.reshape(projected, (4, steps, batch, hidden))
    w_hh_t = shape.transpose(shape.reshape(w_hh, (4, hidden, hidden)), 1, 2)
    kept = _RecomputedTensors(steps)
    h, c = hx, cx
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        pre = projected[:, t] + linalg.matmul(h, w_hh_t)
        i, f, o = pointwise.sigmoid(pre[0]), pointwise.sigmoid(pre[1]), pointwise.sigmoid(pre[3])
        g = pointwise.tanh(pre[2])
        kept.gate_list[t] = (i, f, g, o)
        kept.cell_list[t] = c
        kept.state_list[t] = h
        c = f * c + i * g
        kept.tanh_list[t] = pointwise.tanh(c)
        h = o * kept.tanh_list[t]
    return kept


class _GateGradients:
    """Where the backward loop puts the gradient of each step's gate pre-activations: rows of
    a reused (4, time, batch, hidden) array, or (under create_graph) Tensors stacked at the end.
    """

    __slots__ = ("buffer", "steps")

    def __init__(self, buffer: np.ndarray | None, steps: int) -> None:
        self.buffer = buffer
        self.steps: list = [None] * steps

    def put(self, t: int, parts: tuple) -> Any:
        """Store step ``t``'s four gate gradients; returns them as one (4, batch, hidden)."""
        if self.buffer is None:
            self.steps[t] = shape.stack(list(parts), 0)
            return self.steps[t]
        block = self.buffer[:, t]
        for k, part in enumerate(parts):
            block[k] = part
        return block

    def result(self) -> Any:
        return self.buffer if self.buffer is not None else shape.stack(self.steps, 1)


# --- the function the LSTM module calls ------------------------------------------------------


def lstm_layer(
    input: Tensor,
    weight_ih: Tensor,
    weight_hh: Tensor,
    bias_ih: Tensor | None,
    bias_hh: Tensor | None,
    hx: Tensor,
    cx: Tensor,
    reverse: bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    """One LSTM layer in one direction over a sequence, as one graph node.

    ``input`` (time, batch, features), ``weight_ih`` (4 * hidden, features), ``weight_hh``
    (4 * hidden, hidden), biases (4 * hidden,) or None, ``hx`` and ``cx`` (batch, hidden).
    Returns ``(output, h_n, c_n)``: every step's hidden state (time, batch, hidden) and the
    final hidden and cell states. Shapes and dtypes are the caller's to check (``nn.LSTM``).

    Example::

        >>> x, h = glassgrad.randn(5, 2, 3), glassgrad.zeros(2, 4)
        >>> out, h_n, c_n = lstm_layer(x, glassgrad.randn(16, 3), glassgrad.randn(16, 4),
        ...                            None, None, h, h)
        >>> out.shape
        glassgrad.Size([5, 2, 4])
    """
    output, h_n, c_n = MkldnnRnnLayerBackward0.apply(
        input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx, reverse=bool(reverse)
    )
    node = output.grad_fn
    if node is not None:
        node._output_version = output._vc  # the backward reads the output's values
    return output, h_n, c_n


def _torch_lstm_layer(torch, x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse=False):
    weights = [w_ih, w_hh] if b_ih is None else [w_ih, w_hh, b_ih, b_hh]
    sequence = x.flip(0) if reverse else x
    out, h, c = torch.lstm(
        sequence, (hx[None], cx[None]), weights, b_ih is not None, 1, 0.0, False, False, False
    )
    return (out.flip(0) if reverse else out), h[0], c[0]


def _lstm_layer_samples(rng: np.random.Generator) -> list[Sample]:
    steps, batch, features, hidden = 3, 2, 3, 4

    def weights(bias: bool = True) -> tuple:
        gates = 4 * hidden
        w = (randn(rng, gates, features) * 0.7, randn(rng, gates, hidden) * 0.7)
        b = (randn(rng, gates), randn(rng, gates)) if bias else (None, None)
        return w + b

    def states(rows: int = batch) -> tuple:
        return randn(rng, rows, hidden), randn(rng, rows, hidden)

    x = randn(rng, steps, batch, features)
    return [
        Sample((x, *weights(), *states())),
        Sample((x, *weights(), *states()), {"reverse": True}, note="reverse"),
        Sample((x, *weights(bias=False), *states()), note="no bias"),
        Sample(
            (randn(rng, batch, steps, features).transpose(1, 0, 2), *weights(), *states()),
            note="non-contiguous input",
        ),
        Sample(
            (
                randn(rng, 1, 1, features),
                *weights(),
                NoGrad(np.zeros((1, hidden))),
                NoGrad(np.zeros((1, hidden))),
            ),
            {"reverse": True},
            note="one step, zero state without grad",
        ),
    ]


register(
    "_lstm_layer",
    lstm_layer,
    nodes=(MkldnnRnnLayerBackward0,),
    methods=(),
    samples=_lstm_layer_samples,
    torch=_torch_lstm_layer,
)
