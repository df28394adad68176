"""Fused recurrent layers: one graph node runs a whole RNN, LSTM or GRU layer (one direction)
over a sequence, as PyTorch's CPU LSTM does (its ``MkldnnRnnLayerBackward0`` node).

Recorded step by step, an LSTM of 32 time steps is some 400 small nodes; fused, it is one node
whose forward loops over time in NumPy and whose backward loops back over time:

- the input projection ``x @ W_ih^T + b`` of every time step is one matrix product before the
  loop; only ``h @ W_hh^T`` runs per step;
- the forward keeps gates gate-major, ``(gates, time, batch, hidden)``, so each gate of each
  step is one contiguous block for the activations and the backward's elementwise products;
  the backward keeps the gate gradients row-major, ``(time, batch, gates * hidden)``, so each
  step's ``d_gates @ W_hh`` and the weight gradients over all steps are single products;
- the forward keeps what the backward reads (activated gates, cell states...); a released
  node hands those arrays to the next forward of the same shape (``_BufferPool``);
- an LSTM keeps its gates as (-i, -f, -o, g) (``_LSTM.arrange``): its three sigmoids are then
  one exp, add and reciprocal; its backward first turns the kept arrays, in place, into the
  factors each step multiplies by (``_LSTM.prepare``), so its time loop is a few products.

Threads: NumPy runs each step's small operations on one core; BLAS's own threads (OpenBLAS's
default of one per core) split each step's matrix product. Splitting the work between Python
threads instead (two halves of the batch, the elementwise math of one step, or the input
projection and the backward's factors ahead of the loop) measured slower on two cores: a
hand-off between Python threads costs some 10-20 us, as much as the work of a step it would
split, and BLAS must then be held to one thread, which costs each step's product a third.

The backward is one formula per cell type written against ``F`` (see ``ops/_namespace.py``).
Without a graph it runs on the arrays the forward kept; under ``create_graph=True`` the node
recomputes those values with differentiable glassgrad ops from its saved inputs, and the same
formula then builds the graph of the backward, so second derivatives come out right.

The cell types (``mode``), PyTorch's formulations and gate orders:

- ``"LSTM"``: gates (i, f, g, o); ``c' = σ(f) c + σ(i) tanh(g)``, ``h' = σ(o) tanh(c')``;
- ``"GRU"``: gates (r, z, n); ``r, z = σ(...)``, ``n = tanh(W_in x + b_in + r (W_hn h + b_hn))``,
  ``h' = n + z (h - n)``;
- ``"RNN_TANH"`` / ``"RNN_RELU"``: ``h' = tanh(...)`` or ``relu(...)`` of ``W_ih x + b_ih +
  W_hh h + b_hh``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.op import Op, _modified_error
from . import linalg, shape
from ._registry import NoGrad, Sample, register
from ._rnn_cells import _CELLS, _GateGradients, _KeptArrays, _pool, _time_order, _workspace
from ._samples import randn

__all__ = ["rnn_layer"]


# --- the node ------------------------------------------------------------------------------------


class MkldnnRnnLayerBackward0(Op):
    """One recurrent layer in one direction over a whole sequence (PyTorch's name for the node
    of its CPU LSTM layer; ``mode`` picks the cell as in PyTorch's ``mkldnn_rnn_layer``).

    Inputs ``(x, w_ih, w_hh, b_ih, b_hh, hx, cx)``: biases may be None, ``cx`` is None except
    for an LSTM. Outputs every step's ``h_t`` (time, batch, hidden), the final ``h`` and, for
    an LSTM, the final ``c``. ``reverse`` runs from the last time step to the first (the
    backward direction of a bidirectional layer); ``output[t]`` stays the state after ``x[t]``.
    """

    mode: Any
    reverse: Any

    saved_inputs: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6)
    __slots__ = ("mode", "reverse", "_kept", "_output_version")

    def forward(
        self,
        x: Any,
        w_ih: Any,
        w_hh: Any,
        b_ih: Any,
        b_hh: Any,
        hx: Any,
        cx: Any,
        mode: Any = "LSTM",
        reverse: Any = False,
    ) -> Any:
        self.mode, self.reverse = mode, reverse
        self._output_version = None
        cell = _CELLS[mode]
        steps, batch, features = x.shape
        hidden = w_hh.shape[1]
        # gates[k, t] is gate k of step t: the input projection of every step in one product
        gates = _pool.take((cell.gates, steps, batch, hidden), x.dtype)
        w_ih_t = cell.arrange(w_ih.reshape(cell.gates, hidden, features).transpose(0, 2, 1))
        flat_gates = gates.reshape(cell.gates, steps * batch, hidden)
        np.matmul(x.reshape(steps * batch, features), w_ih_t, out=flat_gates)
        if b_ih is not None:
            gates += cell.arrange(cell.input_bias(b_ih, b_hh).reshape(cell.gates, 1, 1, hidden))
        r = int(reverse)
        states = np.empty((steps + 1, batch, hidden), x.dtype)
        states[steps * r] = hx
        with np.errstate(over="ignore"):
            self._kept = kept = cell.run(gates, states, w_hh, b_hh, cx, r)
        last = steps * (1 - r)
        output = states[1 - r : steps + 1 - r]
        if cell.has_cell:
            return output, states[last].copy(), kept.cells[last].copy()
        return output, states[last].copy()

    def backward(self, F: Any, grad: Any) -> Any:
        cell = _CELLS[self.mode]
        d_output, dh = grad[0], grad[1]
        dc = grad[2] if cell.has_cell else None
        x, w_ih, w_hh, b_ih, b_hh, hx, cx = self.saved
        steps, batch, features = x.shape
        hidden, gates = w_hh.shape[1], cell.gates
        sides = 2 if cell.two_sided else 1
        if isinstance(d_output, Tensor):  # create_graph: the kept values as functions of inputs
            projected = _projection(cell, x, w_ih, b_ih, b_hh)
            kept = cell.recompute(projected, w_hh, b_hh, hx, cx, self.reverse)
            sinks = [_GateGradients(None, steps) for _ in range(sides)]
        else:
            kept = self._kept_arrays()
            if cell.has_cell and not kept.prepared:
                cell.prepare(kept)
                kept.prepared = True
            buffer = _workspace.take((sides, steps, batch, gates * hidden), d_output.dtype)
            sinks = [_GateGradients(buffer[k], steps) for k in range(sides)]
        for t in _time_order(steps, not self.reverse):
            dh = dh + d_output[t]
            d_input_side, d_hidden_side, dh_direct, dc = cell.step_back(F, kept, t, dh, dc)
            d_gates = sinks[0].put(t, d_input_side)
            if d_hidden_side is not None:
                d_gates = sinks[1].put(t, d_hidden_side)
            dh = F.matmul(d_gates, w_hh)
            if dh_direct is not None:
                dh = dh + dh_direct
        # The weight gradients: one product over all time steps and batch rows.
        d_pre = [F.reshape(sink.result(), (steps * batch, gates * hidden)) for sink in sinks]
        needs = self.needs_input_grad
        d_x = d_w_ih = d_w_hh = d_b_ih = d_b_hh = None
        if needs[0]:
            d_x = F.reshape(F.matmul(d_pre[0], w_ih), (steps, batch, features))
        if needs[1]:
            d_w_ih = F.matmul(F.mT(d_pre[0]), F.reshape(x, (steps * batch, features)))
        if needs[2]:
            before = F.reshape(kept.states_before(), (steps * batch, hidden))
            d_w_hh = F.matmul(F.mT(d_pre[-1]), before)
        if needs[3]:
            d_b_ih = F.sum(d_pre[0], 0)
        if needs[4]:  # with one side, the same pre-activations: the same gradient
            d_b_hh = d_b_ih if sides == 1 and needs[3] else F.sum(d_pre[-1], 0)
        return d_x, d_w_ih, d_w_hh, d_b_ih, d_b_hh, dh, dc

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
            _pool.give(*kept.internal())


def _projection(cell: Any, x: Tensor, w_ih: Tensor, b_ih: Any, b_hh: Any) -> Tensor:
    """The input projection of every step, (gates, time, batch, hidden), in differentiable ops."""
    steps, batch, features = x.shape
    hidden = w_ih.shape[0] // cell.gates
    w_ih_t = shape.transpose(shape.reshape(w_ih, (cell.gates, hidden, features)), 1, 2)
    projected = linalg.matmul(shape.reshape(x, (steps * batch, features)), w_ih_t)
    if b_ih is not None:
        projected = projected + shape.reshape(cell.input_bias(b_ih, b_hh), (cell.gates, 1, hidden))
    return shape.reshape(projected, (cell.gates, steps, batch, hidden))


# --- the function the recurrent modules call -----------------------------------------------------


def rnn_layer(
    input: Tensor,
    weight_ih: Tensor,
    weight_hh: Tensor,
    bias_ih: Tensor | None,
    bias_hh: Tensor | None,
    hx: Tensor,
    cx: Tensor | None = None,
    mode: str = "LSTM",
    reverse: bool = False,
) -> tuple[Tensor, ...]:
    """One recurrent layer in one direction over a sequence, as one graph node.

    ``input`` (time, batch, features), ``weight_ih`` (gates * hidden, features), ``weight_hh``
    (gates * hidden, hidden), biases (gates * hidden,) or None, ``hx`` (and for an LSTM ``cx``)
    (batch, hidden); ``mode`` is ``"LSTM"`` (4 gates), ``"GRU"`` (3), ``"RNN_TANH"`` or
    ``"RNN_RELU"`` (1). Returns ``(output, h_n)``, or ``(output, h_n, c_n)`` for an LSTM:
    every step's hidden state (time, batch, hidden) and the final states. Shapes and dtypes
    are the caller's to check (``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` do).

    Example::

        >>> x, h = glassgrad.randn(5, 2, 3), glassgrad.zeros(2, 4)
        >>> out, h_n = rnn_layer(x, glassgrad.randn(12, 3), glassgrad.randn(12, 4), None, None,
        ...                      h, mode="GRU")
        >>> out.shape
        glassgrad.Size([5, 2, 4])
    """
    results = MkldnnRnnLayerBackward0.apply(
        input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx, mode=mode, reverse=bool(reverse)
    )
    node = results[0].grad_fn
    if node is not None:
        node._output_version = results[0]._vc  # the backward reads the output's values
    return results


# --- registry row: samples against PyTorch's own layers --------------------------------------


def _torch_rnn_layer(torch, x, w_ih, w_hh, b_ih, b_hh, hx, cx=None, mode="LSTM", reverse=False):
    weights = [w_ih, w_hh] if b_ih is None else [w_ih, w_hh, b_ih, b_hh]
    sequence = x.flip(0) if reverse else x
    state = (hx[None], cx[None]) if mode == "LSTM" else hx[None]
    layer = getattr(torch, mode.lower())
    out, *finals = layer(sequence, state, weights, b_ih is not None, 1, 0.0, False, False, False)
    return (out.flip(0) if reverse else out), *(f[0] for f in finals)


def _rnn_layer_samples(rng: np.random.Generator) -> list[Sample]:
    steps, batch, features, hidden = 3, 2, 3, 4
    x = randn(rng, steps, batch, features)

    def layer(mode: str, bias: bool = True, zero_state: bool = False, rows: int = batch) -> tuple:
        size = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden
        weights = (randn(rng, size, features) * 0.7, randn(rng, size, hidden) * 0.7)
        biases = (randn(rng, size), randn(rng, size)) if bias else (None, None)
        if zero_state:
            states = (NoGrad(np.zeros((rows, hidden))),) * 2
        else:
            states = (randn(rng, rows, hidden), randn(rng, rows, hidden))
        return (*weights, *biases, states[0], states[1] if mode == "LSTM" else None)

    samples = []
    for mode in ("LSTM", "GRU", "RNN_TANH", "RNN_RELU"):
        samples += [
            Sample((x, *layer(mode)), {"mode": mode}, note=mode),
            Sample((x, *layer(mode)), {"mode": mode, "reverse": True}, note=f"{mode} reverse"),
            Sample((x, *layer(mode, bias=False)), {"mode": mode}, note=f"{mode} no bias"),
        ]
    samples += [
        Sample(
            (randn(rng, batch, steps, features).transpose(1, 0, 2), *layer("LSTM")),
            {"mode": "LSTM"},
            note="non-contiguous input",
        ),
        Sample(
            (randn(rng, 1, 1, features), *layer("GRU", zero_state=True, rows=1)),
            {"mode": "GRU", "reverse": True},
            note="one step, zero state without grad",
        ),
    ]
    return samples


register(
    "_rnn_layer",
    rnn_layer,
    nodes=(MkldnnRnnLayerBackward0,),
    methods=(),
    samples=_rnn_layer_samples,
    torch=_torch_rnn_layer,
)
