"""One time step of each recurrent cell, from differentiable ops: shared by the cells, the
LSTM with projections and the recurrent layers on packed sequences."""

from __future__ import annotations

from ..._tensor import Tensor
from ...ops import blas, linalg, pointwise
from .. import functional as F

__all__ = ["rnn_step", "lstm_step", "gru_step"]


# --- one time step -------------------------------------------------------------------------
# ``gi`` is the input projection x @ W_ih.T + b_ih of this step, shape (batch, gates * H);
# ``w_hh_t`` is W_hh.T, transposed once per sequence rather than at every step.
def _project(h: Tensor, w_t: Tensor, b: Tensor | None) -> Tensor:
    """``h @ w_t + b`` as one node (2-D ``h``)."""
    return linalg.mm(h, w_t) if b is None else blas.addmm(b, h, w_t)


def rnn_step(gi: Tensor, h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None, relu: bool) -> Tensor:
    pre = gi + _project(h, w_hh_t, b_hh)
    return pointwise.relu(pre) if relu else pointwise.tanh(pre)


def lstm_step(
    gi: Tensor,
    h: Tensor,
    c: Tensor,
    w_hh_t: Tensor,
    b_hh: Tensor | None,
    w_hr: Tensor | None,
) -> tuple[Tensor, Tensor]:
    gates = gi + _project(h, w_hh_t, b_hh)
    i, f, g, o = gates.chunk(4, -1)  # gate order: input, forget, cell, output
    input_gate = pointwise.sigmoid(i)
    forget_gate = pointwise.sigmoid(f)
    cell_gate = pointwise.tanh(g)
    output_gate = pointwise.sigmoid(o)
    c_next = forget_gate * c + input_gate * cell_gate
    h_next = output_gate * pointwise.tanh(c_next)
    if w_hr is not None:
        h_next = F.linear(h_next, w_hr)
    return h_next, c_next


def gru_step(gi: Tensor, h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None) -> Tensor:
    gh = _project(h, w_hh_t, b_hh)
    i_reset, i_update, i_new = gi.chunk(3, -1)  # gate order: reset, update, new
    h_reset, h_update, h_new = gh.chunk(3, -1)
    reset = pointwise.sigmoid(i_reset + h_reset)
    update = pointwise.sigmoid(i_update + h_update)
    new = pointwise.tanh(i_new + reset * h_new)
    return new + update * (h - new)
