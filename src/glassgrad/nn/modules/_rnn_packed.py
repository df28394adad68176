"""``RNN``, ``LSTM`` and ``GRU`` on a ``PackedSequence``: sequences of different lengths in one
batch, each stopping at its own last step.

The packed rows of step ``t`` are the ``batch_sizes[t]`` sequences still running (sorted by
decreasing length), so each step updates the first ``batch_sizes[t]`` hidden states and keeps
the rest; a reverse direction starts each sequence at its own last step, from the initial
state. Steps are built from differentiable ops (``_rnn_steps``), the input projection of all
packed rows computed at once. The caller's ``hx`` and the returned final states are in the
caller's batch order (``sorted_indices`` / ``unsorted_indices``), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from ... import _factories
from ..._tensor import Tensor
from ...ops import shape
from .. import functional as F
from ..utils.rnn import PackedSequence
from ._rnn_steps import gru_step, lstm_step, rnn_step

__all__ = ["PackedSequence", "forward_packed"]


def _direction(
    mode: str, data: Tensor, sizes: list, weights: dict, h: Tensor, c: Tensor | None, reverse: bool
) -> tuple:
    """One layer in one direction over packed ``data``; returns the packed outputs and each
    sequence's final hidden (and cell) state."""
    gi = F.linear(data, weights["weight_ih"], weights.get("bias_ih"))
    w_hh_t, b_hh = weights["weight_hh"].t(), weights.get("bias_hh")
    starts = [0]
    for n in sizes[:-1]:
        starts.append(starts[-1] + n)
    outputs: list = [None] * len(sizes)
    for t in reversed(range(len(sizes))) if reverse else range(len(sizes)):
        n, g = sizes[t], gi[starts[t] : starts[t] + sizes[t]]
        running_h = h[:n]
        if mode == "LSTM":
            new_h, new_c = lstm_step(g, running_h, c[:n], w_hh_t, b_hh, weights.get("weight_hr"))
            c = new_c if n == c.shape[0] else shape.cat([new_c, c[n:]], 0)
        elif mode == "GRU":
            new_h = gru_step(g, running_h, w_hh_t, b_hh)
        else:
            new_h = rnn_step(g, running_h, w_hh_t, b_hh, mode == "RNN_RELU")
        outputs[t] = new_h
        h = new_h if n == h.shape[0] else shape.cat([new_h, h[n:]], 0)
    return shape.cat(outputs, 0), h, c


def _check(module: Any, data: Tensor, hidden: list, expected: list) -> None:
    weight_dtype = module._flat_weights[0].dtype
    if data.dtype != weight_dtype:
        raise ValueError(
            f"RNN input dtype ({data.dtype}) does not match weight dtype ({weight_dtype}). "
            f"Convert input: input.to({weight_dtype}), or convert model: "
            f"model.to({data.dtype})"
        )
    if data.dim() != 2:
        raise RuntimeError(f"packed input must have 2 dimensions, got {data.dim()}")
    if module.input_size != data.size(-1):
        raise RuntimeError(
            "input.size(-1) must be equal to input_size. Expected "
            f"{module.input_size}, got {data.size(-1)}"
        )
    for i, (state, size) in enumerate(zip(hidden, expected)):
        message = (
            "Expected hidden size {}, got {}"
            if len(hidden) == 1
            else (f"Expected hidden[{i}] size {{}}, got {{}}")
        )
        module._check_hidden_size(state, size, message)
    module._check_hidden_dtype(data, *hidden)


def forward_packed(module: Any, packed: PackedSequence, hx: Any) -> tuple[Any, ...]:
    """``module(packed, hx)`` for an ``RNNBase``: (packed output, h_n) or, for an LSTM,
    (packed output, (h_n, c_n))."""
    data, sizes = packed.data, [int(n) for n in packed.batch_sizes.numpy()]
    batch = sizes[0]
    lstm = module.mode == "LSTM"
    real_hidden = module.proj_size if module.proj_size > 0 else module.hidden_size
    shapes = [module._hidden_shape(batch, real_hidden)]
    if lstm:
        shapes.append(module._hidden_shape(batch, module.hidden_size))
    if hx is None:
        hidden = [_factories.zeros(*s, dtype=data.dtype) for s in shapes]
    else:
        hidden = list(hx) if lstm else [hx]
        if packed.sorted_indices is not None:
            hidden = [h.index_select(1, packed.sorted_indices) for h in hidden]
    _check(module, data, hidden, shapes)
    directions = 2 if module.bidirectional else 1
    final_h, final_c = [], []
    layer_input = data
    for layer in range(module.num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weights = {
                name.rsplit("_", 2 if direction else 1)[0]: getattr(module, name)
                for name in module._all_weights[index]
            }
            c = hidden[1][index] if lstm else None
            output, h, c = _direction(
                module.mode, layer_input, sizes, weights, hidden[0][index], c, bool(direction)
            )
            outputs.append(output)
            final_h.append(h)
            final_c.append(c)
        layer_input = outputs[0] if directions == 1 else shape.cat(outputs, 1)
        if module.dropout and module.training and layer < module.num_layers - 1:
            layer_input = F.dropout(layer_input, module.dropout, True)
    states = [shape.stack(final_h)] + ([shape.stack(final_c)] if lstm else [])
    if packed.unsorted_indices is not None:
        states = [s.index_select(1, packed.unsorted_indices) for s in states]
    output = PackedSequence(
        layer_input, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices
    )
    return output, (tuple(states) if lstm else states[0])
