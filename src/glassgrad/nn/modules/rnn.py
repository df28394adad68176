"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their single-step cells.

Each layer and direction of ``RNN``, ``LSTM`` and ``GRU`` is one fused graph node
(``MkldnnRnnLayerBackward0``, the node PyTorch's CPU LSTM records; see ``ops/nn_rnn.py``):
its forward loops over time in NumPy, its backward loops back. Layers are joined with
``cat`` (directions), ``dropout`` and ``stack`` (final states) as in PyTorch. An LSTM with
``proj_size`` and the cells are built step by step from differentiable ops (linear, sigmoid,
tanh), with the input projection ``x @ W_ih.T + b_ih`` of all time steps computed at once,
as PyTorch also runs those outside its fused kernel. Parameter names, shapes, gate order and
initialisation are PyTorch's (``weight_ih_l0``, ``weight_hh_l0_reverse`` ...), so state
dicts move between the two libraries unchanged.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from ... import _factories
from ..._tensor import Tensor
from ...ops import nn_rnn, shape
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._rnn_packed import PackedSequence, forward_packed
from ._rnn_steps import gru_step, lstm_step, rnn_step
from ._utils import new_parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_DTYPE_WORDS = {
    "glassgrad.float32": "Float",
    "glassgrad.float64": "Double",
    "glassgrad.float16": "Half",
}


class RNNBase(Module):
    """What RNN, LSTM and GRU share: parameters per layer and direction, checks, and the
    loop over layers, directions and time steps."""

    dropout: float

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        _check_type("bias", bias, bool)
        _check_type("batch_first", batch_first, bool)
        _check_type("input_size", input_size, int)
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type("hidden_size", hidden_size, int)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {
                    f"weight_ih_{suffix}": (gate_size, layer_input),
                    f"weight_hh_{suffix}": (gate_size, real_hidden),
                }
                if bias:
                    shapes[f"bias_ih_{suffix}"] = (gate_size,)
                    shapes[f"bias_hh_{suffix}"] = (gate_size,)
                if proj_size > 0:
                    shapes[f"weight_hr_{suffix}"] = (proj_size, hidden_size)
                for name, size in shapes.items():
                    setattr(self, name, new_parameter(*size, dtype=dtype, device=device))
                self._flat_weights_names.extend(shapes)
                self._all_weights.append(list(shapes))
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Tensor]]:
        """The parameters, one list per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """No-op (a cuDNN memory layout in PyTorch)."""

    def reset_parameters(self) -> None:
        """Draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- checks ----------------------------------------------------------------------------
    def _check_input(self, input: Tensor) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def _hidden_shape(self, batch: int, size: int) -> tuple[int, int, int]:
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    @staticmethod
    def _check_hidden_size(hx: Tensor, expected: tuple, message: str) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(message.format(expected, list(hx.shape)))

    @staticmethod
    def _check_hidden_dtype(input: Tensor, *states: Tensor) -> None:
        # PyTorch's words (from the product h @ W_hh^T that meets the mismatch).
        for state in states:
            if state.dtype != input.dtype:
                raise RuntimeError(
                    "mat1 and mat2 must have the same dtype, but got "
                    f"{_DTYPE_WORDS.get(str(state.dtype), state.dtype)} and "
                    f"{_DTYPE_WORDS.get(str(input.dtype), input.dtype)}"
                )

    def _batched(self, input: Tensor, name: str) -> bool:
        if input.dim() not in (2, 3):
            what = "D tensor" if name == "RNN" else "D"  # PyTorch's wording differs by layer
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.dim()}{what} instead"
            )
        return input.dim() == 3

    def _zeros(self, input: Tensor, size: int) -> Tensor:
        batch = input.size(0) if self.batch_first else input.size(1)
        return _factories.zeros(*self._hidden_shape(batch, size), dtype=input.dtype)

    # --- the recurrence --------------------------------------------------------------------
    def _run(self, input: Tensor, h0: Tensor, c0: Tensor | None) -> tuple:
        """Run all layers on a (time, batch, feature) input; returns the last layer's
        outputs, and the final hidden (and cell) states stacked per layer and direction."""
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        directions = 2 if self.bidirectional else 1
        final_h, final_c = [], []
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                weights = {
                    name.rsplit("_", 2 if direction else 1)[0]: getattr(self, name)
                    for name in self._all_weights[index]
                }
                h = h0[index]
                c = c0[index] if c0 is not None else None
                run = self._projected_lstm_direction if self.proj_size else self._fused_direction
                output, h, c = run(layer_input, weights, h, c, bool(direction))
                outputs.append(output)
                final_h.append(h)
                final_c.append(c)
            layer_input = outputs[0] if directions == 1 else shape.cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        h_n = shape.stack(final_h)
        c_n = shape.stack(final_c) if c0 is not None else None
        return layer_input, h_n, c_n

    def _fused_direction(
        self, input: Tensor, weights: dict, h: Tensor, c: Tensor | None, reverse: bool
    ) -> tuple:
        """One layer in one direction as one graph node (as PyTorch's CPU LSTM records it)."""
        output, h, *cell = nn_rnn.rnn_layer(
            input,
            weights["weight_ih"],
            weights["weight_hh"],
            weights.get("bias_ih"),
            weights.get("bias_hh"),
            h,
            c,
            mode=self.mode,
            reverse=reverse,
        )
        return output, h, cell[0] if cell else None

    def _projected_lstm_direction(
        self, input: Tensor, weights: dict, h: Tensor, c: Tensor, reverse: bool
    ) -> tuple:
        """An LSTM with projections, step by step from differentiable ops (PyTorch also runs
        these outside its fused kernel)."""
        # The input projection of every time step at once, then one slice per step.
        gi = F.linear(input, weights["weight_ih"], weights.get("bias_ih")).unbind(0)
        w_hh_t, b_hh, w_hr = weights["weight_hh"].t(), weights.get("bias_hh"), weights["weight_hr"]
        steps = input.shape[0]
        sequence: list = [None] * steps
        for t in range(steps - 1, -1, -1) if reverse else range(steps):
            h, c = lstm_step(gi[t], h, c, w_hh_t, b_hh, w_hr)
            sequence[t] = h
        return shape.stack(sequence), h, c

    def _forward_single_state(self, input: Tensor, hx: Tensor | None, name: str) -> tuple:
        # RNN and GRU: one hidden state.
        batched = self._batched(input, name)
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                        "tensor"
                    )
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self._check_input(input)
        batch = input.size(0) if self.batch_first else input.size(1)
        self._check_hidden_size(
            hx, self._hidden_shape(batch, self.hidden_size), "Expected hidden size {}, got {}"
        )
        self._check_hidden_dtype(input, hx)
        x = input.transpose(0, 1) if self.batch_first else input
        output, h_n, _ = self._run(x, hx, None)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(batch_dim)
            h_n = h_n.squeeze(1)
        return output, h_n


def _check_type(name: str, value: Any, kind: type) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU).

    Parameters
    ----------
    input_size, hidden_size : int
        Features of the input and of the hidden state.
    num_layers : int
        Stacked layers; each one's output sequence is the next one's input.
    nonlinearity : {"tanh", "relu"}
    bias : bool
        Learn ``bias_ih_l*`` and ``bias_hh_l*``.
    batch_first : bool
        Input and output are (batch, time, feature) instead of (time, batch, feature).
    dropout : float
        Dropout on the outputs of every layer but the last (training mode only).
    bidirectional : bool
        Also run each layer backwards in time (``*_reverse`` parameters); outputs are
        concatenated.

    ``forward(input, hx=None)`` returns ``(output, h_n)``: every time step's last-layer
    output, and the final hidden state of every layer and direction
    (num_layers * directions, batch, hidden_size). Unbatched (time, feature) input works,
    and so does a ``PackedSequence`` (``nn.utils.rnn``: sequences of different lengths; the
    output is then packed too, and ``h_n`` holds each sequence's state at its own last step).

    Example::

        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, h_n = rnn(glassgrad.randn(5, 3, 10), glassgrad.randn(2, 3, 20))
        >>> output.shape, h_n.shape
        (glassgrad.Size([5, 3, 20]), glassgrad.Size([2, 3, 20]))
    """

    nonlinearity: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, ...]:
        if isinstance(input, PackedSequence):
            return forward_packed(self, input, hx)
        return self._forward_single_state(input, hx, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit, PyTorch's formulation (gate order reset, update, new)::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    Arguments and results are those of ``RNN`` (without ``nonlinearity``).

    Example::

        >>> gru = nn.GRU(10, 20, batch_first=True, bidirectional=True)
        >>> output, h_n = gru(glassgrad.randn(3, 5, 10))
        >>> output.shape, h_n.shape
        (glassgrad.Size([3, 5, 40]), glassgrad.Size([2, 3, 20]))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, ...]:
        if isinstance(input, PackedSequence):
            return forward_packed(self, input, hx)
        return self._forward_single_state(input, hx, "GRU")


class LSTM(RNNBase):
    """Long short-term memory, PyTorch's formulation (gate order input, forget, cell,
    output)::

        gates = x W_ih^T + b_ih + h W_hh^T + b_hh, split in four
        i, f, g, o = sigmoid(gates_0), sigmoid(gates_1), tanh(gates_2), sigmoid(gates_3)
        c' = f * c + i * g
        h' = o * tanh(c')            (then h' W_hr^T with proj_size > 0)

    Arguments are those of ``RNN`` (without ``nonlinearity``) plus ``proj_size``.
    ``forward(input, (h_0, c_0))`` returns ``(output, (h_n, c_n))``.

    Example::

        >>> lstm = nn.LSTM(10, 20, num_layers=2)
        >>> output, (h_n, c_n) = lstm(glassgrad.randn(5, 3, 10))
        >>> output.shape, c_n.shape
        (glassgrad.Size([5, 3, 20]), glassgrad.Size([2, 3, 20]))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Any, hx: tuple[Any, ...] | None = None) -> tuple[Any, ...]:
        if isinstance(input, PackedSequence):
            return forward_packed(self, input, hx)
        batched = self._batched(input, "LSTM")
        batch_dim = 0 if self.batch_first else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        elif hx is not None and (hx[0].dim() != 3 or hx[1].dim() != 3):
            raise RuntimeError(
                "For batched 3-D input, hx and cx should also be 3-D but got "
                f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
            )
        if hx is None:
            hx = (self._zeros(input, real_hidden), self._zeros(input, self.hidden_size))
        self._check_input(input)
        batch = input.size(0) if self.batch_first else input.size(1)
        self._check_hidden_size(
            hx[0], self._hidden_shape(batch, real_hidden), "Expected hidden[0] size {}, got {}"
        )
        self._check_hidden_size(
            hx[1],
            self._hidden_shape(batch, self.hidden_size),
            "Expected hidden[1] size {}, got {}",
        )
        self._check_hidden_dtype(input, *hx)
        x = input.transpose(0, 1) if self.batch_first else input
        output, h_n, c_n = self._run(x, hx[0], hx[1])
        if self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(batch_dim)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


# --- cells ---------------------------------------------------------------------------------
class RNNCellBase(Module):
    """The parameters shared by ``RNNCell``, ``LSTMCell`` and ``GRUCell``: ``weight_ih``
    (num_chunks * hidden_size, input_size), ``weight_hh`` (num_chunks * hidden_size,
    hidden_size) and, with ``bias``, ``bias_ih`` and ``bias_hh``, all drawn from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Example::

        >>> nn.RNNCellBase(3, 4, bias=True, num_chunks=2).weight_ih.shape
        glassgrad.Size([8, 3])
    """

    weight_ih: Parameter
    weight_hh: Parameter
    bias_ih: Parameter | None
    bias_hh: Parameter | None

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        self.weight_ih = new_parameter(gates, input_size, dtype=dtype, device=device)
        self.weight_hh = new_parameter(gates, hidden_size, dtype=dtype, device=device)
        if bias:
            self.bias_ih = new_parameter(gates, dtype=dtype, device=device)
            self.bias_hh = new_parameter(gates, dtype=dtype, device=device)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Tensor, hx: Tensor | None, name: str) -> tuple:
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _factories.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Example::

        >>> cell = nn.RNNCell(10, 20)
        >>> cell(glassgrad.randn(3, 10)).shape
        glassgrad.Size([3, 20])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._prepare(input, hx, "RNNCell")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h = rnn_step(gi, hx, self.weight_hh.t(), self.bias_hh, self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class GRUCell(RNNCellBase):
    """One step of a GRU (see ``GRU``).

    Example::

        >>> cell = nn.GRUCell(10, 20)
        >>> cell(glassgrad.randn(3, 10)).shape
        glassgrad.Size([3, 20])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._prepare(input, hx, "GRUCell")
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h = gru_step(gi, hx, self.weight_hh.t(), self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM (see ``LSTM``); ``forward(input, (h, c))`` returns ``(h', c')``.

    Example::

        >>> cell = nn.LSTMCell(10, 20)
        >>> h, c = cell(glassgrad.randn(3, 10))
        >>> h.shape
        glassgrad.Size([3, 20])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Any, ...] | None = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for index, state in enumerate(hx):
                if state.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got {state.dim()}D instead"
                    )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _factories.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = lstm_step(gi, hx[0], hx[1], self.weight_hh.t(), self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))
