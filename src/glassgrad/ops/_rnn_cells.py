"""The machinery of the fused recurrent layer (``nn_rnn.py``): its buffers (a pool reused
across calls, the arrays kept for backward or recomputed as tensors under ``create_graph``)
and the cell types, LSTM, GRU and the tanh / relu RNN, each its forward step on arrays and its
backward formula written against ``F``, with PyTorch's formulations and gate orders.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from . import linalg, pointwise, shape
from ._common import array_of
from ._conv_kernels import _Workspace

__all__ = []


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


# Steps of an LSTM's kept arrays turned into backward factors at a time (``_LSTM.prepare``).
_PREPARE_STEPS = 4


# --- what the forward keeps for the backward -------------------------------------------------


class _KeptArrays:
    """The forward's arrays, read by the backward per time step ``t``. ``gate_values`` holds
    the activated gates (gates, time, batch, hidden); ``states`` h_0 and every h_t, with step
    t reading slot ``t + r`` and writing slot ``t + 1 - r`` (``r`` = 1 when reversed).

    An LSTM's arrays are turned in place, once, into the factors its backward multiplies by
    (``_LSTM.prepare``); ``prepared`` says it was done."""

    __slots__ = ("gate_values", "states", "r", "cells", "tanh_cells", "hidden_n", "prepared")

    def __init__(self, gate_values, states, r, cells=None, tanh_cells=None, hidden_n=None):
        self.gate_values, self.states, self.r = gate_values, states, r
        self.cells, self.tanh_cells, self.hidden_n = cells, tanh_cells, hidden_n
        self.prepared = False

    def gates(self, t: int) -> np.ndarray:  # (gates, batch, hidden): unpacks into the gates
        return self.gate_values[:, t]

    def lstm_factors(self, t: int) -> tuple:  # after _LSTM.prepare: see _LSTM.step_back
        d_g, f, a, d_i = self.gate_values[:, t]  # where prepare wrote them
        return a, d_i, self.cells[t + self.r], d_g, self.tanh_cells[t], f

    def state_before(self, t: int) -> np.ndarray:
        return self.states[t + self.r]

    def states_before(self) -> np.ndarray:  # (time, batch, hidden): the h each step read
        steps = self.gate_values.shape[1]
        return self.states[self.r : steps + self.r]

    def outputs(self) -> np.ndarray:
        steps = self.gate_values.shape[1]
        return self.states[1 - self.r : steps + 1 - self.r]

    def cell_before(self, t: int) -> np.ndarray:
        return self.cells[t + self.r]

    def tanh_cell(self, t: int) -> np.ndarray:
        return self.tanh_cells[t]

    def hidden_new(self, t: int) -> np.ndarray:  # GRU: W_hn h + b_hn
        return self.hidden_n[t]

    def internal(self) -> list:
        """The arrays only the node refers to (``states`` backs the output)."""
        extras = (self.cells, self.tanh_cells, self.hidden_n)
        return [self.gate_values, *(a for a in extras if a is not None)]


class _RecomputedTensors:
    """The same quantities as ``_KeptArrays``, as differentiable Tensors (under create_graph),
    one list entry per time step."""

    __slots__ = (
        "gate_list",
        "state_list",
        "cell_list",
        "tanh_list",
        "hidden_n_list",
        "factor_list",
    )

    def __init__(self, steps: int) -> None:
        self.factor_list: list = [None] * steps
        self.gate_list: list = [None] * steps
        self.state_list: list = [None] * steps
        self.cell_list: list = [None] * steps
        self.tanh_list: list = [None] * steps
        self.hidden_n_list: list = [None] * steps

    def gates(self, t: int) -> tuple:
        return self.gate_list[t]

    def lstm_factors(self, t: int) -> tuple:
        return self.factor_list[t]

    def state_before(self, t: int) -> Tensor:
        return self.state_list[t]

    def states_before(self) -> Tensor:
        return shape.stack(self.state_list, 0)

    def cell_before(self, t: int) -> Tensor:
        return self.cell_list[t]

    def tanh_cell(self, t: int) -> Tensor:
        return self.tanh_list[t]

    def hidden_new(self, t: int) -> Tensor:
        return self.hidden_n_list[t]


def _time_order(steps: int, reverse: bool) -> range:
    return range(steps - 1, -1, -1) if reverse else range(steps)


# --- the cell types ----------------------------------------------------------------------------
# Each has: ``gates``; ``input_bias`` (the biases folded into the input projection);
# ``run`` (the time loop on arrays: fills ``states``, returns the kept arrays); ``recompute``
# (the same in differentiable ops); ``arrange`` (the stacked weights, (gates, ...), in the order
# and signs ``run`` wants them); ``step_back`` (the backward of one step against ``F``:
# gradients of the gate pre-activations on the input side and, when they differ, on the hidden
# side, the gradient reaching h_{t-1} other than through W_hh, and the cell-state gradient).


class _LSTM:
    gates = 4
    has_cell = True
    two_sided = False

    @staticmethod
    def arrange(stacked: np.ndarray) -> np.ndarray:
        """PyTorch's gates (i, f, g, o) as ``run`` keeps them: (-i, -f, -o, g). Negated, the
        pre-activations of the three sigmoid gates come out of the products as -x exactly,
        and their sigmoid 1 / (1 + exp(-x)) is three operations on one block."""
        return np.concatenate((-stacked[[0, 1, 3]], stacked[2:3]))

    @staticmethod
    def input_bias(b_ih: Any, b_hh: Any) -> Any:
        return b_ih + b_hh

    @staticmethod
    def run(gates, states, w_hh, b_hh, cx, r) -> _KeptArrays:
        _, steps, batch, hidden = gates.shape
        dtype = gates.dtype
        w_hh_t = _LSTM.arrange(w_hh.reshape(4, hidden, hidden).transpose(0, 2, 1))
        cells = _pool.take((steps + 1, batch, hidden), dtype)
        tanh_cells = _pool.take((steps, batch, hidden), dtype)
        cells[steps * r] = cx
        product = np.empty((4, batch, hidden), dtype)
        scratch = np.empty((batch, hidden), dtype)
        for t in _time_order(steps, r):
            a = gates[:, t]  # -i, -f, -o, g (``arrange``)
            np.matmul(states[t + r], w_hh_t, out=product)
            a += product
            sigmoids = a[:3]
            np.exp(sigmoids, out=sigmoids)
            sigmoids += 1.0
            np.reciprocal(sigmoids, out=sigmoids)
            np.tanh(a[3], out=a[3])
            c = cells[t + 1 - r]
            np.multiply(a[1], cells[t + r], out=c)
            np.multiply(a[0], a[3], out=scratch)
            c += scratch
            np.tanh(c, out=tanh_cells[t])
            np.multiply(a[2], tanh_cells[t], out=states[t + 1 - r])
        return _KeptArrays(gates, states, r, cells=cells, tanh_cells=tanh_cells)

    @staticmethod
    def recompute(projected, w_hh, b_hh, hx, cx, reverse) -> _RecomputedTensors:
        _, steps, _, hidden = projected.shape
        w_hh_t = shape.transpose(shape.reshape(w_hh, (4, hidden, hidden)), 1, 2)
        kept = _RecomputedTensors(steps)
        h, c = hx, cx
        for t in _time_order(steps, reverse):
            pre = projected[:, t] + linalg.matmul(h, w_hh_t)
            i, f, o = (pointwise.sigmoid(pre[k]) for k in (0, 1, 3))
            g = pointwise.tanh(pre[2])
            kept.gate_list[t] = (i, f, g, o)
            kept.state_list[t], kept.cell_list[t] = h, c
            c_before, c = c, f * c + i * g
            tanh_c = pointwise.tanh(c)
            h = o * tanh_c
            kept.factor_list[t] = (
                (1.0 - tanh_c * tanh_c) * o,
                (i * (1.0 - i)) * g,
                c_before * (f * (1.0 - f)),
                (1.0 - g * g) * i,
                (o * (1.0 - o)) * tanh_c,
                f,
            )
        return kept

    @staticmethod
    def prepare(kept: _KeptArrays) -> None:
        """Turn the kept arrays into the factors of ``step_back`` in place, with the same
        float operations as ``recompute``'s: the slots of the activated (i, f, o, g) then
        hold (d_g, f, a, d_i), ``tanh_cells`` d_o and the cell before each step d_f (no step
        reads a cell slot again once it has run). Works ``_PREPARE_STEPS`` steps at a time,
        so that the arrays stay in cache between the operations."""
        _, steps, batch, hidden = kept.gate_values.shape
        size = max(1, min(_PREPARE_STEPS, steps))
        scratch = np.empty((2, size, batch, hidden), kept.gate_values.dtype)
        for start in range(0, steps, size):
            stop = min(start + size, steps)
            first, second = scratch[:, : stop - start]
            i, f, o, g = kept.gate_values[:, start:stop]  # run's gate order
            tanh_c = kept.tanh_cells[start:stop]
            c_before = kept.cells[start + kept.r : stop + kept.r]
            np.subtract(1.0, f, out=first)
            first *= f
            c_before *= first  # d_f = c (f (1 - f))
            np.subtract(1.0, i, out=first)
            first *= i
            np.multiply(g, g, out=second)
            np.subtract(1.0, second, out=second)
            np.multiply(second, i, out=i)  # d_g = (1 - g^2) i
            np.multiply(first, g, out=g)  # d_i = (i (1 - i)) g
            np.subtract(1.0, o, out=first)
            first *= o
            np.multiply(tanh_c, tanh_c, out=second)
            np.subtract(1.0, second, out=second)
            np.multiply(second, o, out=o)  # a = (1 - tanh(c)^2) o
            np.multiply(first, tanh_c, out=tanh_c)  # d_o = (o (1 - o)) tanh(c)

    @staticmethod
    def step_back(F, kept, t, dh, dc) -> tuple:
        # a = o (1 - tanh(c)^2): dh's share of dc; the gates' factors d_i = g i (1 - i),
        # d_f = c_{t-1} f (1 - f), d_g = i (1 - g^2), d_o = tanh(c) o (1 - o).
        a, d_i, d_f, d_g, d_o, f = kept.lstm_factors(t)
        dc = dc + dh * a
        return (dc * d_i, dc * d_f, dc * d_g, dh * d_o), None, None, dc * f


class _GRU:
    gates = 3
    has_cell = False
    two_sided = True  # the new gate's hidden side is scaled by r: its gradient differs
    arrange = staticmethod(lambda stacked: stacked)

    @staticmethod
    def input_bias(b_ih: Any, b_hh: Any) -> Any:
        # b_hr and b_hz add to the input side; b_hn stays inside r * (W_hn h + b_hn).
        hidden = b_hh.shape[0] // 3
        return b_ih + b_hh * np.repeat(np.array([1, 1, 0], array_of(b_hh).dtype), hidden)

    @staticmethod
    def run(gates, states, w_hh, b_hh, cx, r) -> _KeptArrays:
        _, steps, batch, hidden = gates.shape
        dtype = gates.dtype
        w_hh_t = np.ascontiguousarray(w_hh.reshape(3, hidden, hidden).transpose(0, 2, 1))
        b_hn = None if b_hh is None else b_hh[2 * hidden :]
        hidden_n = _pool.take((steps, batch, hidden), dtype)
        product = np.empty((3, batch, hidden), dtype)
        for t in _time_order(steps, r):
            a = gates[:, t]
            np.matmul(states[t + r], w_hh_t, out=product)
            a[:2] += product[:2]
            pointwise.sigmoid_into(a[:2], a[:2])
            hn = hidden_n[t]
            if b_hn is None:
                hn[...] = product[2]
            else:
                np.add(product[2], b_hn, out=hn)
            np.multiply(a[0], hn, out=product[2])
            a[2] += product[2]
            np.tanh(a[2], out=a[2])
            h = states[t + 1 - r]
            np.subtract(states[t + r], a[2], out=h)
            h *= a[1]
            h += a[2]
        return _KeptArrays(gates, states, r, hidden_n=hidden_n)

    @staticmethod
    def recompute(projected, w_hh, b_hh, hx, cx, reverse) -> _RecomputedTensors:
        _, steps, _, hidden = projected.shape
        w_hh_t = shape.transpose(shape.reshape(w_hh, (3, hidden, hidden)), 1, 2)
        kept = _RecomputedTensors(steps)
        h = hx
        for t in _time_order(steps, reverse):
            product = linalg.matmul(h, w_hh_t)
            hn = product[2] if b_hh is None else product[2] + b_hh[2 * hidden :]
            r = pointwise.sigmoid(projected[0, t] + product[0])
            z = pointwise.sigmoid(projected[1, t] + product[1])
            n = pointwise.tanh(projected[2, t] + r * hn)
            kept.gate_list[t], kept.hidden_n_list[t], kept.state_list[t] = (r, z, n), hn, h
            h = n + z * (h - n)
        return kept

    @staticmethod
    def step_back(F, kept, t, dh, dc) -> tuple:
        r, z, n = kept.gates(t)
        d_n = dh * (1.0 - z) * (1.0 - n * n)
        d_r = d_n * kept.hidden_new(t) * r * (1.0 - r)
        d_z = dh * (kept.state_before(t) - n) * z * (1.0 - z)
        return (d_r, d_z, d_n), (d_r, d_z, d_n * r), dh * z, None


class _RNN:
    gates = 1
    has_cell = False
    two_sided = False
    arrange = staticmethod(lambda stacked: stacked)

    def __init__(self, relu: bool) -> None:
        self.relu = relu

    @staticmethod
    def input_bias(b_ih: Any, b_hh: Any) -> Any:
        return b_ih + b_hh

    def run(self, gates, states, w_hh, b_hh, cx, r) -> _KeptArrays:
        steps = gates.shape[1]
        w_hh_t = w_hh.T
        for t in _time_order(steps, r):
            a = gates[0, t]
            a += states[t + r] @ w_hh_t
            if self.relu:
                np.maximum(a, 0, out=a)
            else:
                np.tanh(a, out=a)
            states[t + 1 - r] = a
        return _KeptArrays(gates, states, r)

    def recompute(self, projected, w_hh, b_hh, hx, cx, reverse) -> _RecomputedTensors:
        kept = _RecomputedTensors(projected.shape[1])
        w_hh_t = shape.transpose(w_hh, 0, 1)
        h = hx
        for t in _time_order(projected.shape[1], reverse):
            kept.state_list[t] = h
            pre = projected[0, t] + linalg.matmul(h, w_hh_t)
            h = pointwise.relu(pre) if self.relu else pointwise.tanh(pre)
            kept.gate_list[t] = (h,)
        return kept

    def step_back(self, F, kept, t, dh, dc) -> tuple:
        (h,) = kept.gates(t)
        if self.relu:
            d_pre = F.where(array_of(h) > 0, dh, 0.0)
        else:
            d_pre = dh * (1.0 - h * h)
        return (d_pre,), None, None, None


_CELLS = {"LSTM": _LSTM, "GRU": _GRU, "RNN_TANH": _RNN(relu=False), "RNN_RELU": _RNN(relu=True)}


class _GateGradients:
    """Where the backward loop puts the gradient of each step's gate pre-activations: rows of
    a reused (time, batch, gates * hidden) array, or (under create_graph) Tensors stacked at
    the end. Row layout, so that each step's ``d_gates @ W_hh`` and the weight gradients over
    all steps are each a single plain matrix product."""

    __slots__ = ("buffer", "steps")

    def __init__(self, buffer: np.ndarray | None, steps: int) -> None:
        self.buffer = buffer
        self.steps: list = [None] * steps

    def put(self, t: int, parts: tuple) -> Any:
        """Store step ``t``'s gate gradients; returns them as one (batch, gates * hidden)."""
        if self.buffer is None:
            stacked = shape.stack(list(parts), 1)
            batch, gates, hidden = stacked.shape
            self.steps[t] = shape.reshape(stacked, (batch, gates * hidden))
            return self.steps[t]
        row = self.buffer[t]
        gates = row.reshape(row.shape[0], len(parts), row.shape[1] // len(parts))
        for k, part in enumerate(parts):
            gates[:, k] = part
        return row

    def result(self) -> Any:
        return self.buffer if self.buffer is not None else shape.stack(self.steps, 0)
