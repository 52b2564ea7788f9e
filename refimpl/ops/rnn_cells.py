"""The recurrent cells as aten ops: lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell (each
CompositeImplicitAutograd), the CUDA-only fused cells, and the one-step cell functions the
sequence ops of refimpl/ops/rnn.py apply.

Torch: aten/src/ATen/native/RNN.cpp (CellParams, SimpleCell, LSTMCell, GRUCell, the
check_rnn_cell_forward_* checks, lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell). Every
step is made of aten calls in torch's order, so autograd records the primitive ops (torch's
gradients come from the same decomposition) and a TorchDispatchMode sees torch's calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- one cell's parameters and steps -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CellParams:
    """One direction of one layer: the input and hidden weights, their optional biases, and
    the LSTM projection weight. Torch: CellParams in RNN.cpp (w_hr defined only for an LSTM
    with projections)."""

    w_ih: TensorImpl
    w_hh: TensorImpl
    b_ih: TensorImpl | None = None
    b_hh: TensorImpl | None = None
    w_hr: TensorImpl | None = None

    def linear_ih(self, input: TensorImpl) -> Any:
        """Torch: CellParams::linear_ih, at::linear(input, w_ih, b_ih)."""
        return aten.linear.default(input, self.w_ih, self.b_ih)

    def linear_hh(self, hidden: TensorImpl) -> Any:
        """Torch: CellParams::linear_hh, at::linear(h, w_hh, b_hh)."""
        return aten.linear.default(hidden, self.w_hh, self.b_hh)

    def matmul_hr(self, hidden: TensorImpl) -> Any:
        """The projected hidden state (unchanged without w_hr). Torch: CellParams::matmul_hr."""
        if self.w_hr is None:
            return hidden
        return aten.matmul.default(hidden, aten.t.default(self.w_hr))


# A cell's hidden state: one tensor (RNN, GRU) or the pair (h, c) of an LSTM.
Hidden = Any
# (input or precomputed input gates, hidden, params, pre_compute_input) -> new hidden.
Cell = Callable[[TensorImpl, Hidden, CellParams, bool], Hidden]


def _input_gates(input: TensorImpl, params: CellParams, pre_computed: bool) -> Any:
    # torch: the sequence ops compute linear_ih once for the whole sequence on the CPU and
    # hand each step its slice (pre_compute_input), the cell ops compute it per call.
    return input if pre_computed else params.linear_ih(input)


def tanh_cell(input: TensorImpl, hidden: TensorImpl, params: CellParams, pre: bool) -> Any:
    """h' = tanh(W_hh h + b_hh + W_ih x + b_ih). Torch: SimpleCell<tanh_f> in RNN.cpp."""
    gates = aten.add_.Tensor(params.linear_hh(hidden), _input_gates(input, params, pre))
    return aten.tanh.default(gates)


def relu_cell(input: TensorImpl, hidden: TensorImpl, params: CellParams, pre: bool) -> Any:
    """h' = relu(W_hh h + b_hh + W_ih x + b_ih). Torch: SimpleCell<relu_f> in RNN.cpp."""
    gates = aten.add_.Tensor(params.linear_hh(hidden), _input_gates(input, params, pre))
    return aten.relu.default(gates)


def lstm_step(
    input: TensorImpl, hidden: tuple[TensorImpl, TensorImpl], params: CellParams, pre: bool
) -> tuple[Any, Any]:
    """One LSTM step, gates in torch's order i, f, g, o; (h', c').

    Torch: LSTMCell<CellParams> in RNN.cpp, its CPU branch: the gate activations run in
    place on the chunks of one gate tensor; c' = f * c + i * g, h' = o * tanh(c'), then the
    projection. Differs: torch's CUDA branch calls _thnn_fused_lstm_cell; refimpl takes
    this branch on every device.
    """
    hx, cx = hidden
    gates = aten.add_.Tensor(params.linear_hh(hx), _input_gates(input, params, pre))
    ingate, forgetgate, cellgate, outgate = aten.unsafe_chunk.default(gates, 4, 1)
    ingate = aten.sigmoid_.default(ingate)
    forgetgate = aten.sigmoid_.default(forgetgate)
    cellgate = aten.tanh_.default(cellgate)
    outgate = aten.sigmoid_.default(outgate)
    forget = aten.mul.Tensor(forgetgate, cx)
    cy = aten.add_.Tensor(forget, aten.mul.Tensor(ingate, cellgate))
    hy = aten.mul.Tensor(outgate, aten.tanh.default(cy))
    return params.matmul_hr(hy), cy


def gru_step(input: TensorImpl, hidden: TensorImpl, params: CellParams, pre: bool) -> Any:
    """One GRU step, gates in torch's order r, z, n; h' = (h - n) * z + n.

    Torch: GRUCell<CellParams> in RNN.cpp, its CPU branch: the reset gate multiplies the
    hidden part of the new gate (W_hn h + b_hn) before the input part is added. Differs:
    torch's CUDA branch calls _thnn_fused_gru_cell; refimpl takes this branch everywhere.
    """
    igates = aten.unsafe_chunk.default(_input_gates(input, params, pre), 3, 1)
    hgates = aten.unsafe_chunk.default(params.linear_hh(hidden), 3, 1)
    reset_gate = aten.sigmoid_.default(aten.add_.Tensor(hgates[0], igates[0]))
    input_gate = aten.sigmoid_.default(aten.add_.Tensor(hgates[1], igates[1]))
    hidden_new = aten.mul_.Tensor(hgates[2], reset_gate)
    new_gate = aten.tanh_.default(aten.add.Tensor(igates[2], hidden_new))
    blended = aten.mul_.Tensor(aten.sub.Tensor(hidden, new_gate), input_gate)
    return aten.add_.Tensor(blended, new_gate)


# --- the cell ops' checks ------------------------------------------------------------------------


def size_at(t: TensorImpl, dim: int) -> int:
    """`t.size(dim)` without a dispatch. Torch: TensorImpl::size(dim) (no aten call)."""
    if not t._size:
        raise geometry.no_dimensions(dim)
    return t._size[geometry.wrap_dim(dim, len(t._size))]


def _check_input(input: TensorImpl, input_size: int) -> None:
    # torch: check_rnn_cell_forward_input in RNN.cpp (input.size(1): a 1-D input raises
    # the IndexError of a dim out of range).
    got = size_at(input, 1)
    if got != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {got} expected {input_size}")


def _check_hidden(input: TensorImpl, hx: TensorImpl, hidden_size: int, label: int) -> None:
    # torch: check_rnn_cell_forward_hidden in RNN.cpp.
    batch, hidden_batch = size_at(input, 0), size_at(hx, 0)
    if batch != hidden_batch:
        raise RuntimeError(
            f"Input batch size {batch} doesn't match hidden{label} batch size {hidden_batch}"
        )
    got = size_at(hx, 1)
    if got != hidden_size:
        raise RuntimeError(
            f"hidden{label} has inconsistent hidden_size: got {got}, expected {hidden_size}"
        )


def _check_weights(w_ih: TensorImpl, w_hh: TensorImpl, gates: int, hidden_size: int) -> None:
    # torch: check_rnn_cell_forward_weights<gate_count> in RNN.cpp.
    expected = gates * hidden_size
    for name, weight in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        got = size_at(weight, 0)
        if got != expected:
            raise RuntimeError(
                f"{name} first dim must be {gates} * hidden_size = {expected}, but got {got}"
            )


# --- lstm_cell -----------------------------------------------------------------------------------

lstm_cell = defop(
    "lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
    "Tensor? b_hh=None) -> (Tensor, Tensor)"
)


@lstm_cell.decomposition
def lstm_cell_decomposition(
    input: TensorImpl,
    hx: Sequence[TensorImpl],
    w_ih: TensorImpl,
    w_hh: TensorImpl,
    b_ih: TensorImpl | None = None,
    b_hh: TensorImpl | None = None,
) -> tuple[Any, Any]:
    """One LSTM step on a batch: (h', c'). Torch: lstm_cell in RNN.cpp."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = size_at(w_hh, 1)
    _check_input(input, size_at(w_ih, 1))
    _check_weights(w_ih, w_hh, 4, hidden_size)
    _check_hidden(input, hx[0], hidden_size, 0)
    _check_hidden(input, hx[1], hidden_size, 1)
    return lstm_step(input, (hx[0], hx[1]), CellParams(w_ih, w_hh, b_ih, b_hh), False)


# --- gru_cell ------------------------------------------------------------------------------------

gru_cell = defop(
    "gru_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
    "Tensor? b_hh=None) -> Tensor"
)


@gru_cell.decomposition
def gru_cell_decomposition(
    input: TensorImpl,
    hx: TensorImpl,
    w_ih: TensorImpl,
    w_hh: TensorImpl,
    b_ih: TensorImpl | None = None,
    b_hh: TensorImpl | None = None,
) -> Any:
    """One GRU step on a batch. Torch: gru_cell in RNN.cpp (checks input, hidden, weights)."""
    hidden_size = size_at(w_hh, 1)
    _check_input(input, size_at(w_ih, 1))
    _check_hidden(input, hx, hidden_size, 0)
    _check_weights(w_ih, w_hh, 3, hidden_size)
    return gru_step(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh), False)


# --- rnn_tanh_cell -------------------------------------------------------------------------------

rnn_tanh_cell = defop(
    "rnn_tanh_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
    "Tensor? b_hh=None) -> Tensor"
)


def _simple_cell_checks(
    input: TensorImpl, hx: TensorImpl, w_ih: TensorImpl, w_hh: TensorImpl
) -> None:
    # torch: rnn_tanh_cell / rnn_relu_cell check the weights first, then input and hidden.
    hidden_size = size_at(w_hh, 1)
    _check_weights(w_ih, w_hh, 1, hidden_size)
    _check_input(input, size_at(w_ih, 1))
    _check_hidden(input, hx, hidden_size, 0)


@rnn_tanh_cell.decomposition
def rnn_tanh_cell_decomposition(
    input: TensorImpl,
    hx: TensorImpl,
    w_ih: TensorImpl,
    w_hh: TensorImpl,
    b_ih: TensorImpl | None = None,
    b_hh: TensorImpl | None = None,
) -> Any:
    """One Elman step with tanh. Torch: rnn_tanh_cell in RNN.cpp."""
    _simple_cell_checks(input, hx, w_ih, w_hh)
    return tanh_cell(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh), False)


# --- rnn_relu_cell -------------------------------------------------------------------------------

rnn_relu_cell = defop(
    "rnn_relu_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
    "Tensor? b_hh=None) -> Tensor"
)


@rnn_relu_cell.decomposition
def rnn_relu_cell_decomposition(
    input: TensorImpl,
    hx: TensorImpl,
    w_ih: TensorImpl,
    w_hh: TensorImpl,
    b_ih: TensorImpl | None = None,
    b_hh: TensorImpl | None = None,
) -> Any:
    """One Elman step with relu. Torch: rnn_relu_cell in RNN.cpp."""
    _simple_cell_checks(input, hx, w_ih, w_hh)
    return relu_cell(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh), False)


# --- _thnn_fused_lstm_cell, _thnn_fused_gru_cell -----------------------------------------------

# torch 2.13 registers these only for CUDA (and Meta, Autograd): on CPU tensors the
# dispatcher raises its "Could not run ... with arguments from the 'CPU' backend" error.
# refimpl registers no kernel, so its dispatcher raises the same error for every backend.
# Differs: torch's CUDA kernels (and the lstm cell's Meta kernel) are not written here.
_thnn_fused_lstm_cell = defop(
    "_thnn_fused_lstm_cell(Tensor input_gates, Tensor hidden_gates, Tensor cx, "
    "Tensor? input_bias=None, Tensor? hidden_bias=None) -> (Tensor, Tensor, Tensor)"
)

_thnn_fused_gru_cell = defop(
    "_thnn_fused_gru_cell(Tensor input_gates, Tensor hidden_gates, Tensor hx, "
    "Tensor? input_bias=None, Tensor? hidden_bias=None) -> (Tensor, Tensor)"
)
