"""The recurrent sequence ops: lstm, gru, rnn_tanh, rnn_relu, each in its padded `.input`
form and its packed-sequence `.data` form (CompositeImplicitAutograd), as torch's layer
stack over the cells of refimpl/ops/rnn_cells.py.

Torch: aten/src/ATen/native/RNN.cpp (gather_params, FullLayer, FullBidirectionalLayer,
PackedLayer, ReversedPackedLayer, PackedBidirectionalLayer, apply_layer_stack, _rnn_impl,
_lstm_impl, the ONE_HIDDEN_RNN ops and lstm), check_attributes in RNN.h. The CPU path:
each layer computes its input gates for the whole sequence with one linear, steps the
cell over the time steps, and stacks the outputs; dropout (aten.dropout, drawing from the
generator as torch does) runs between layers when training.

Differs: torch runs float32 (and bfloat16) CPU lstm without projections through oneDNN
(aten.mkldnn_rnn_layer, a mode sees that op); refimpl always takes the composite path, so
a float32 lstm's values agree to float32 tolerance and its mode log is that of the
composite (torch's with `torch.backends.mkldnn.flags(enabled=False)`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import int64
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop
from refimpl.ops.rnn_cells import (
    Cell,
    CellParams,
    Hidden,
    gru_step,
    lstm_step,
    relu_cell,
    size_at,
    tanh_cell,
)

aten: Final = namespace("aten")


# --- parameters and hidden states ----------------------------------------------------------------


def gather_params(
    params: Sequence[TensorImpl], has_biases: bool, has_projections: bool = False
) -> list[CellParams]:
    """The flat parameter list grouped per layer and direction: (w_ih, w_hh[, b_ih, b_hh]
    [, w_hr]). Torch: gather_params in RNN.cpp."""
    group = 2 + 2 * has_biases + has_projections
    if len(params) % group != 0:
        raise RuntimeError("got an incorrect number of RNN parameters")
    result = []
    for i in range(0, len(params), group):
        w_ih, w_hh = params[i], params[i + 1]
        b_ih, b_hh = (params[i + 2], params[i + 3]) if has_biases else (None, None)
        w_hr = params[i + group - 1] if has_projections else None
        result.append(CellParams(w_ih, w_hh, b_ih, b_hh, w_hr))
    return result


def check_attributes(
    input: TensorImpl, params: Sequence[TensorImpl], hiddens: Sequence[TensorImpl]
) -> None:
    """Every hidden state and parameter on the input's device (a CPU 0-dim tensor may be
    anywhere). Torch: check_attributes in RNN.h (check_dtype=false)."""
    where = input.device
    for name, tensors in (("hidden", hiddens), ("parameter", params)):
        for t in tensors:
            if t.device.type == "cpu" and not t._size:
                continue
            if t.device != where:
                raise RuntimeError(
                    f"Input and {name} tensors are not at the same device, found input tensor "
                    f"at {where} and {name} tensor at {t.device}"
                )


def _pairs(values: Sequence[Any]) -> list[tuple[Any, Any]]:
    # torch: pair_vec in RNN.cpp (forward and backward direction of each layer).
    if len(values) % 2 != 0:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    return [(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def _output_of(hidden: Hidden) -> Any:
    # torch: hidden_as_output: an LSTM's output is its h.
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _slice(hidden: Hidden, start: int, end: int) -> Hidden:
    # torch: hidden_slice (narrow along the batch dim, h and c alike).
    if isinstance(hidden, tuple):
        return tuple(aten.narrow.default(h, 0, start, end - start) for h in hidden)
    return aten.narrow.default(hidden, 0, start, end - start)


def _concat(hiddens: Sequence[Hidden]) -> Hidden:
    # torch: hidden_concat (cat along the batch dim, h and c each).
    if isinstance(hiddens[0], tuple):
        return tuple(aten.cat.default([h[k] for h in hiddens], 0) for k in range(2))
    return aten.cat.default(list(hiddens), 0)


def _check_nonempty(outputs: Sequence[Any]) -> None:
    # torch: FullLayer / FullBidirectionalLayer check after the loop.
    if not outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")


# --- layers over a padded sequence (time-major) -------------------------------------------------


def precomputes_input(input: TensorImpl) -> bool:
    """Whether a layer computes its input gates for the whole sequence with one linear before
    stepping (torch does on the CPU; elsewhere, a meta tensor included, each step's cell
    computes its own). Torch: the `device().is_cpu()` branches of the layers in RNN.cpp."""
    return input.device.type == "cpu"


def _steps(
    cell: Cell, steps: Sequence[Any], hidden: Hidden, p: CellParams, pre: bool
) -> tuple[list[Any], Hidden]:
    # torch: FullLayer's loop over the steps (input gates precomputed or not).
    outputs = []
    for step in steps:
        hidden = cell(step, hidden, p, pre)
        outputs.append(_output_of(hidden))
    return outputs, hidden


def full_layer(cell: Cell, input: TensorImpl, hidden: Hidden, p: CellParams) -> tuple[Any, Hidden]:
    """One direction of one layer over a whole sequence. Torch: FullLayer."""
    pre = precomputes_input(input)
    steps = aten.unbind.int(p.linear_ih(input) if pre else input, 0)
    outputs, hidden = _steps(cell, steps, hidden, p, pre)
    _check_nonempty(outputs)
    return aten.stack.default(outputs, 0), hidden


def full_bidirectional_layer(
    cell: Cell, input: TensorImpl, hidden: tuple[Hidden, Hidden], p: tuple[CellParams, CellParams]
) -> tuple[Any, tuple[Hidden, Hidden]]:
    """Both directions of one layer; outputs joined on the feature dim.

    Torch: FullBidirectionalLayer: the reverse direction runs over the reversed steps and
    its outputs are put back in time order before they are stacked. On the CPU each
    direction first computes its own input gates; elsewhere the input is unbound once.
    """
    pre = precomputes_input(input)
    steps = aten.unbind.int(p[0].linear_ih(input) if pre else input, 0)
    forward, forward_hidden = _steps(cell, steps, hidden[0], p[0], pre)
    _check_nonempty(forward)
    forward_output = aten.stack.default(forward, 0)
    if pre:
        steps = aten.unbind.int(p[1].linear_ih(input), 0)
    backward, backward_hidden = _steps(cell, steps[::-1], hidden[1], p[1], pre)
    backward_output = aten.stack.default(backward[::-1], 0)
    dim = len(forward_output._size) - 1
    output = aten.cat.default([forward_output, backward_output], dim)
    return output, (forward_hidden, backward_hidden)


# --- layers over a packed sequence ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Packed:
    """A packed sequence: the steps' rows one after another, and each step's batch size.

    Torch: PackedSequence in RNN.cpp."""

    data: Any
    batch_sizes: TensorImpl


def _host_sizes(batch_sizes: TensorImpl) -> list[int]:
    # torch: the packed layers read batch_sizes.data_ptr<int64_t>(), which checks the dtype.
    if batch_sizes._dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {batch_sizes._dtype.scalar_name}")
    return [int(v) for v in batch_sizes.tolist()]


def packed_layer(cell: Cell, input: Packed, hidden: Hidden, p: CellParams) -> tuple[Any, Hidden]:
    """One forward direction over a packed sequence. Torch: PackedLayer in RNN.cpp: as the
    batch shrinks, the finished sequences' hidden rows are set aside, and the final hidden
    state is those rows joined back in batch order."""
    sizes = _host_sizes(input.batch_sizes)
    pre = precomputes_input(input.data)
    gates = p.linear_ih(input.data) if pre else input.data
    outputs, finished = [], []
    offset, last = 0, sizes[0]
    for size in sizes:
        step = aten.narrow.default(gates, 0, offset, size)
        offset += size
        if last > size:
            finished.append(_slice(hidden, size, last))
            hidden = _slice(hidden, 0, size)
        last = size
        hidden = cell(step, hidden, p, pre)
        outputs.append(_output_of(hidden))
    finished.append(hidden)
    return aten.cat.default(outputs, 0), _concat(finished[::-1])


def reversed_packed_layer(
    cell: Cell, input: Packed, hidden: Hidden, p: CellParams
) -> tuple[Any, Hidden]:
    """The backward direction over a packed sequence. Torch: ReversedPackedLayer in RNN.cpp:
    from the last step back, taking in each sequence's initial hidden rows as it starts."""
    sizes = _host_sizes(input.batch_sizes)
    pre = precomputes_input(input.data)
    gates = p.linear_ih(input.data) if pre else input.data
    outputs = []
    offset, last = size_at(input.data, 0), sizes[-1]
    state = _slice(hidden, 0, last)
    for size in sizes[::-1]:
        if size > last:
            state = _concat([state, _slice(hidden, last, size)])
        step = aten.narrow.default(gates, 0, offset - size, size)
        offset -= size
        last = size
        state = cell(step, state, p, pre)
        outputs.append(_output_of(state))
    return aten.cat.default(outputs[::-1], 0), state


def packed_bidirectional_layer(
    cell: Cell, input: Packed, hidden: tuple[Hidden, Hidden], p: tuple[CellParams, CellParams]
) -> tuple[Any, tuple[Hidden, Hidden]]:
    """Both directions over a packed sequence. Torch: PackedBidirectionalLayer in RNN.cpp."""
    forward, forward_hidden = packed_layer(cell, input, hidden[0], p[0])
    backward, backward_hidden = reversed_packed_layer(cell, input, hidden[1], p[1])
    return aten.cat.default([forward, backward], -1), (forward_hidden, backward_hidden)


# --- the layer stack -----------------------------------------------------------------------------

Layer = Callable[[Cell, Any, Any, Any], tuple[Any, Any]]


@dataclass(frozen=True, slots=True)
class Stack:
    """How the layers run: the cell, the single and bidirectional layer, and the stack's
    flags. Torch: the template arguments and parameters of _rnn_impl in RNN.cpp."""

    cell: Cell
    layer: Layer
    bidirectional_layer: Layer
    num_layers: int
    dropout: float
    train: bool
    bidirectional: bool


def _dropout(output: Any, p: float) -> Any:
    # torch: dropout(Tensor) / dropout(PackedSequence) in RNN.cpp, train=true.
    if isinstance(output, Packed):
        data = aten.dropout.default(output.data, p, True)
        return Packed(data, output.batch_sizes)
    return aten.dropout.default(output, p, True)


def apply_layer_stack(
    stack: Stack, input: Any, params: Sequence[CellParams], hiddens: Sequence[Hidden]
) -> tuple[Any, list[Hidden]]:
    """The layers one after another, dropout between them when training; the last layer's
    output and each layer's (and direction's) final hidden state.

    Torch: _rnn_impl and apply_layer_stack in RNN.cpp (hiddens are paired before params,
    and counted before them).
    """
    layer: Layer = stack.layer
    hidden_list: Sequence[Any] = hiddens
    param_list: Sequence[Any] = params
    if stack.bidirectional:
        layer = stack.bidirectional_layer
        hidden_list, param_list = _pairs(hiddens), _pairs(params)
    if stack.num_layers != len(hidden_list):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if stack.num_layers != len(param_list):
        raise RuntimeError("Expected more weights in stacked_rnn")
    finals: list[Hidden] = []
    output = input
    for index in range(stack.num_layers):
        result, final = layer(stack.cell, output, hidden_list[index], param_list[index])
        output = Packed(result, input.batch_sizes) if isinstance(input, Packed) else result
        finals.extend(final if stack.bidirectional else [final])
        if stack.dropout != 0 and stack.train and index < stack.num_layers - 1:
            output = _dropout(output, stack.dropout)
    return output, finals


def _output_data(output: Any) -> Any:
    return output.data if isinstance(output, Packed) else output


# --- gru, rnn_tanh, rnn_relu ---------------------------------------------------------------------


def one_hidden_rnn_input(
    cell: Cell,
    input: TensorImpl,
    hx: TensorImpl,
    params: Sequence[TensorImpl],
    flags: tuple[bool, int, float, bool, bool, bool],
) -> tuple[Any, Any]:
    """The `.input` form of gru, rnn_tanh and rnn_relu. Torch: the first NAME of the
    ONE_HIDDEN_RNN macro in RNN.cpp (the batch-first output transposed in place)."""
    has_biases, num_layers, dropout, train, bidirectional, batch_first = flags
    check_attributes(input, params, [hx])
    if batch_first:
        input = aten.transpose.int(input, 0, 1)
    stack = Stack(
        cell, full_layer, full_bidirectional_layer, num_layers, dropout, train, bidirectional
    )
    cell_params = gather_params(params, has_biases)
    output, finals = apply_layer_stack(stack, input, cell_params, aten.unbind.int(hx, 0))
    hy = aten.stack.default(finals, 0)
    if batch_first:
        output = aten.transpose_.default(output, 0, 1)
    return output, hy


def one_hidden_rnn_data(
    cell: Cell,
    data: TensorImpl,
    batch_sizes: TensorImpl,
    hx: TensorImpl,
    params: Sequence[TensorImpl],
    flags: tuple[bool, int, float, bool, bool],
) -> tuple[Any, Any]:
    """The packed `.data` form of gru, rnn_tanh and rnn_relu. Torch: the second NAME of the
    ONE_HIDDEN_RNN macro in RNN.cpp."""
    has_biases, num_layers, dropout, train, bidirectional = flags
    packed = Packed(data, batch_sizes)
    stack = Stack(
        cell, packed_layer, packed_bidirectional_layer, num_layers, dropout, train, bidirectional
    )
    cell_params = gather_params(params, has_biases)
    output, finals = apply_layer_stack(stack, packed, cell_params, aten.unbind.int(hx, 0))
    return _output_data(output), aten.stack.default(finals, 0)


def _register_one_hidden(name: str, cell: Cell) -> None:
    """Register `<name>.input` and `<name>.data` for a one-hidden-state cell.

    Torch: ONE_HIDDEN_RNN(NAME, CELL) in RNN.cpp; the three ops differ only in the cell."""
    by_input = defop(
        f"{name}.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, "
        "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) "
        "-> (Tensor, Tensor)"
    )
    by_data = defop(
        f"{name}.data(Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, "
        "bool has_biases, int num_layers, float dropout, bool train, bool bidirectional) "
        "-> (Tensor, Tensor)"
    )

    @by_input.decomposition
    def input_decomposition(
        input: TensorImpl,
        hx: TensorImpl,
        params: Sequence[TensorImpl],
        has_biases: bool,
        num_layers: int,
        dropout: float,
        train: bool,
        bidirectional: bool,
        batch_first: bool,
    ) -> tuple[Any, Any]:
        """(output, h_n) over a padded sequence. Torch: the op's .input overload."""
        flags = (has_biases, num_layers, dropout, train, bidirectional, batch_first)
        return one_hidden_rnn_input(cell, input, hx, params, flags)

    @by_data.decomposition
    def data_decomposition(
        data: TensorImpl,
        batch_sizes: TensorImpl,
        hx: TensorImpl,
        params: Sequence[TensorImpl],
        has_biases: bool,
        num_layers: int,
        dropout: float,
        train: bool,
        bidirectional: bool,
    ) -> tuple[Any, Any]:
        """(output data, h_n) over a packed sequence. Torch: the op's .data overload."""
        flags = (has_biases, num_layers, dropout, train, bidirectional)
        return one_hidden_rnn_data(cell, data, batch_sizes, hx, params, flags)

    input_decomposition.__name__ = f"{name}_input_decomposition"
    data_decomposition.__name__ = f"{name}_data_decomposition"


# --- gru.input, gru.data -------------------------------------------------------------------------
_register_one_hidden("gru", gru_step)

# --- rnn_tanh.input, rnn_tanh.data ---------------------------------------------------------------
_register_one_hidden("rnn_tanh", tanh_cell)

# --- rnn_relu.input, rnn_relu.data ---------------------------------------------------------------
_register_one_hidden("rnn_relu", relu_cell)


# --- lstm.input, lstm.data -----------------------------------------------------------------------


def _lstm_prologue(hx: Sequence[TensorImpl]) -> bool:
    """Torch: lstm's first checks in RNN.cpp: two hidden states; projections used when h's
    size differs from c's (size(2): a 2-D h or c raises the dim-out-of-range IndexError)."""
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    return size_at(hx[0], 2) != size_at(hx[1], 2)


def _lstm_impl(
    stack: Stack, input: Any, params: list[CellParams], hx: TensorImpl, cx: TensorImpl
) -> tuple[Any, Any, Any]:
    """Pair each layer's h and c, run the stack, and stack the final h's and c's apart.

    Torch: _lstm_impl in RNN.cpp. Differs: where c has fewer layers than h torch reads past
    its end (a crash); refimpl raises the stack's hidden-count error instead.
    """
    layer_hx, layer_cx = aten.unbind.int(hx, 0), aten.unbind.int(cx, 0)
    if len(layer_cx) < len(layer_hx):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    hiddens = [(layer_hx[i], layer_cx[i]) for i in range(len(layer_hx))]
    output, finals = apply_layer_stack(stack, input, params, hiddens)
    hy = aten.stack.default([h for h, _ in finals], 0)
    cy = aten.stack.default([c for _, c in finals], 0)
    return _output_data(output), hy, cy


lstm_input = defop(
    "lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, "
    "float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)"
)


@lstm_input.decomposition
def lstm_input_decomposition(
    input: TensorImpl,
    hx: Sequence[TensorImpl],
    params: Sequence[TensorImpl],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[Any, Any, Any]:
    """An LSTM over a padded sequence: (output, h_n, c_n). Torch: lstm (the .input
    overload) in RNN.cpp; with projections each layer's params end with w_hr, and the
    batch-first output is transposed out of place."""
    has_projections = _lstm_prologue(hx)
    check_attributes(input, params, hx)
    if batch_first:
        input = aten.transpose.int(input, 0, 1)
    cell_params = gather_params(params, has_biases, has_projections)
    stack = Stack(
        lstm_step, full_layer, full_bidirectional_layer, num_layers, dropout, train, bidirectional
    )
    output, hy, cy = _lstm_impl(stack, input, cell_params, hx[0], hx[1])
    if batch_first:
        output = aten.transpose.int(output, 0, 1)
    return output, hy, cy


lstm_data = defop(
    "lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, bool has_biases, "
    "int num_layers, float dropout, bool train, bool bidirectional) -> (Tensor, Tensor, Tensor)"
)


@lstm_data.decomposition
def lstm_data_decomposition(
    data: TensorImpl,
    batch_sizes: TensorImpl,
    hx: Sequence[TensorImpl],
    params: Sequence[TensorImpl],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
) -> tuple[Any, Any, Any]:
    """An LSTM over a packed sequence: (output data, h_n, c_n). Torch: lstm (the .data
    overload) in RNN.cpp (no device check on this path)."""
    has_projections = _lstm_prologue(hx)
    packed = Packed(data, batch_sizes)
    cell_params = gather_params(params, has_biases, has_projections)
    stack = Stack(
        lstm_step,
        packed_layer,
        packed_bidirectional_layer,
        num_layers,
        dropout,
        train,
        bidirectional,
    )
    return _lstm_impl(stack, packed, cell_params, hx[0], hx[1])
