"""torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu (padded `.input` and packed `.data`
overloads) and their cells against torch: values (float32 and float64), strides, the aten
calls a TorchDispatchMode sees, gradients (compared with torch's, and gradcheck), dropout
between layers drawing torch's masks, and the errors of bad shapes and arguments.

Each case runs the same call in both libraries. The cases cover every flag: layers,
bidirectional, batch_first, biases, LSTM projections, unbatched input, packed sequences.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import outcome

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
INPUT, HIDDEN, BATCH, STEPS = 3, 4, 2, 3


def _values(lib: Any, shape: tuple[int, ...], seed: int, dtype: str, grad: bool = False) -> Any:
    rng = np.random.default_rng(seed)
    values = rng.uniform(-0.9, 0.9, size=shape).tolist()
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=grad)


@dataclass(frozen=True)
class Case:
    """One call of a sequence op: which op, its flags, and its shapes."""

    op: str
    layers: int = 1
    bidirectional: bool = False
    batch_first: bool = False
    bias: bool = True
    proj: int = 0  # LSTM projection size (0: none)
    unbatched: bool = False
    packed: tuple[int, ...] = ()  # batch_sizes of a packed sequence
    dropout: float = 0.0
    train: bool = False

    @property
    def id(self) -> str:
        flags = [
            f"L{self.layers}",
            "bi" if self.bidirectional else "",
            "bf" if self.batch_first else "",
            "" if self.bias else "nobias",
            f"proj{self.proj}" if self.proj else "",
            "unbatched" if self.unbatched else "",
            "packed" + "-".join(map(str, self.packed)) if self.packed else "",
            f"dropout{self.dropout}" if self.dropout else "",
        ]
        return "-".join([self.op, *[f for f in flags if f]])

    def inputs(self, lib: Any, dtype: str, grad: bool = False) -> tuple[Any, Any, list[Any]]:
        """(input or packed data, hx, params) for `lib`, the same values in both libraries."""
        directions = 2 if self.bidirectional else 1
        out = self.proj or HIDDEN
        gates = GATES[self.op] * HIDDEN
        params, seed = [], 0
        for layer in range(self.layers):
            for _ in range(directions):
                width = INPUT if layer == 0 else out * directions
                shapes: list[tuple[int, ...]] = [(gates, width), (gates, out)]
                if self.bias:
                    shapes += [(gates,), (gates,)]
                if self.proj:
                    shapes.append((self.proj, HIDDEN))
                for shape in shapes:
                    params.append(_values(lib, shape, seed, dtype, grad))
                    seed += 1
        batch = self.packed[0] if self.packed else BATCH
        if self.packed:
            data = _values(lib, (sum(self.packed), INPUT), 100, dtype, grad)
        elif self.unbatched:
            data = _values(lib, (STEPS, INPUT), 100, dtype, grad)
        else:
            padded = (batch, STEPS, INPUT) if self.batch_first else (STEPS, batch, INPUT)
            data = _values(lib, padded, 100, dtype, grad)
        layers = self.layers * directions
        lead: tuple[int, ...] = (
            (layers,) if self.unbatched and self.op != "lstm" else (layers, batch)
        )
        if self.unbatched and self.op == "lstm":
            lead = (layers, 1)  # lstm reads hx.size(2): the unbatched hx stays 3-D
        h = _values(lib, (*lead, out), 101, dtype, grad)
        if self.op == "lstm":
            return data, [h, _values(lib, (*lead, HIDDEN), 102, dtype, grad)], params
        return data, h, params

    def call(self, lib: Any, data: Any, hx: Any, params: list[Any]) -> Any:
        fn = getattr(lib, self.op)
        flags = (self.bias, self.layers, self.dropout, self.train, self.bidirectional)
        if self.packed:
            sizes = lib.tensor(list(self.packed), dtype=lib.int64)
            return fn(data, sizes, hx, params, *flags)
        return fn(data, hx, params, *flags, self.batch_first)


def _flag_cases(op: str) -> list[Case]:
    cases = [
        Case(op),
        Case(op, layers=2, bidirectional=True),
        Case(op, batch_first=True, bias=False),
        Case(op, layers=2, batch_first=True),
        Case(op, bidirectional=True, batch_first=True, bias=False),
        Case(op, unbatched=True),
        Case(op, packed=(3, 2, 2, 1)),
        Case(op, layers=2, bidirectional=True, packed=(2, 2, 1)),
    ]
    if op == "lstm":
        cases += [
            Case(op, proj=2),
            Case(op, layers=2, bidirectional=True, bias=False, proj=3),
            Case(op, bidirectional=True, proj=2, packed=(3, 1)),
        ]
    return cases


CASES = [case for op in GATES for case in _flag_cases(op)]


def _numpy(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().numpy())


def _same(expected: Any, actual: Any, dtype: str) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a, dtype)
        return
    if expected is None:
        assert actual is None
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    # torch's default tolerances for the dtype (torch.testing.assert_close).
    rtol, atol = (1.3e-6, 1e-5) if dtype == "float32" else (1e-7, 1e-7)
    np.testing.assert_allclose(_numpy(actual), _numpy(expected), rtol=rtol, atol=atol)


# --- values and the aten calls a mode sees -----------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sequence_values_and_mode_log(case: Case, dtype: str) -> None:
    def run(lib: Any) -> Any:
        return case.call(lib, *case.inputs(lib, dtype))

    if dtype == "float32" and case.op == "lstm" and not case.proj:
        # torch runs these through oneDNN (aten.mkldnn_rnn_layer); refimpl's composite is
        # torch's path without it (see refimpl/ops/rnn.py), whose values oneDNN's match.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # oneDNN's TF32 notice when the flags are set
            with torch.backends.mkldnn.flags(enabled=False):
                expected_log, expected = aten_calls(torch, lambda: run(torch))
        if not case.unbatched:  # oneDNN refuses a 2-D input the composite accepts
            _same(run(torch), expected, dtype)
    else:
        logged, error = outcome(lambda lib: aten_calls(lib, lambda: run(lib)), torch)
        if error is not None:  # gru's cell cannot take the steps of a 2-D input
            _, actual_error = outcome(run, refimpl)
            assert (type(actual_error), str(actual_error)) == (type(error), str(error))
            return
        expected_log, expected = logged
    actual_log, actual = aten_calls(refimpl, lambda: run(refimpl))
    _same(expected, actual, dtype)
    assert actual_log == expected_log


META_CASES = [
    Case("lstm", layers=2, bidirectional=True, proj=2),
    Case("gru", batch_first=True),
    Case("rnn_tanh", bidirectional=True, packed=(3, 2, 1)),
    Case("lstm", bidirectional=True, packed=(3, 2, 1)),
]


@pytest.mark.parametrize("case", META_CASES, ids=[c.id for c in META_CASES])
def test_meta_device_steps_without_precomputed_gates(case: Case) -> None:
    # Off the CPU torch's layers compute each step's input gates in the cell: another log.
    def run(lib: Any) -> Any:
        data, hx, params = case.inputs(lib, "float64")
        hx = [h.to("meta") for h in hx] if isinstance(hx, list) else hx.to("meta")
        meta = [t.to("meta") for t in params]
        log, out = aten_calls(lib, lambda: case.call(lib, data.to("meta"), hx, meta))
        return log, [(str(t.device), tuple(t.shape), tuple(t.stride())) for t in out]

    assert run(refimpl) == run(torch)


# --- gradients ----------------------------------------------------------------------------------

GRAD_CASES = [c for c in CASES if not c.unbatched or c.op in ("lstm", "rnn_tanh")]


def _loss(lib: Any, outputs: Any) -> Any:
    # Each output weighted differently, so a gradient sent to the wrong output shows.
    total = outputs[0].sin().sum()
    for k, t in enumerate(outputs[1:], start=2):
        total = total + (t * k).cos().sum()
    return total


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_gradients_match_torch(case: Case) -> None:
    def grads(lib: Any) -> Any:
        data, hx, params = case.inputs(lib, "float64", grad=True)
        leaves = [data, *(hx if isinstance(hx, list) else [hx]), *params]
        return lib.autograd.grad(_loss(lib, case.call(lib, data, hx, params)), leaves)

    _same(grads(torch), grads(refimpl), "float64")


BACKWARD_LOG_CASES = [
    Case("lstm", layers=2, bidirectional=True, proj=2),
    Case("gru", batch_first=True, bias=False),
    Case("rnn_tanh", bidirectional=True, packed=(3, 2, 1)),
    Case("rnn_relu", layers=2),
]


@pytest.mark.parametrize("case", BACKWARD_LOG_CASES, ids=[c.id for c in BACKWARD_LOG_CASES])
def test_backward_mode_log(case: Case) -> None:
    # The backward of the decomposition: the primitive ops' derivative calls, in torch's order.
    def log(lib: Any) -> list[str]:
        data, hx, params = case.inputs(lib, "float64", grad=True)
        loss = _loss(lib, case.call(lib, data, hx, params))
        return aten_calls(lib, loss.backward)[0]

    assert log(refimpl) == log(torch)


GRADCHECK_CASES = [
    Case("lstm", proj=2),
    Case("gru", batch_first=True),
    Case("rnn_tanh", bidirectional=True, packed=(2, 1)),
    Case("rnn_relu", layers=2, bias=False),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=[c.id for c in GRADCHECK_CASES])
def test_gradcheck(case: Case) -> None:
    # Numerical Jacobians over the input and the hidden states only keep this quick on
    # array-api-strict; every parameter's gradient is compared with torch's above, and the
    # cells' gradcheck below covers the weights.
    data, hx, params = case.inputs(refimpl, "float64")
    hxs = hx if isinstance(hx, list) else [hx]
    leaves = [t.requires_grad_() for t in (data, *hxs)]

    def fn(data: Any, *h: Any) -> Any:
        return case.call(refimpl, data, list(h) if isinstance(hx, list) else h[0], params)

    assert refimpl.autograd.gradcheck(fn, tuple(leaves))


# --- dropout between layers ---------------------------------------------------------------------

DROPOUT_CASES = [
    Case("lstm", layers=3, dropout=0.4, train=True),
    Case("gru", layers=2, bidirectional=True, dropout=0.5, train=True),
    Case("rnn_tanh", layers=2, dropout=0.3, train=True, packed=(3, 2, 1)),
    Case("rnn_relu", layers=2, dropout=0.5, train=False),
]


@pytest.mark.parametrize("case", DROPOUT_CASES, ids=[c.id for c in DROPOUT_CASES])
def test_dropout_draws_torch_masks(case: Case) -> None:
    def run(lib: Any) -> Any:
        inputs = case.inputs(lib, "float64")
        lib.manual_seed(7)
        return aten_calls(lib, lambda: case.call(lib, *inputs))

    (expected_log, expected), (actual_log, actual) = run(torch), run(refimpl)
    _same(expected, actual, "float64")
    assert actual_log == expected_log


# --- cells --------------------------------------------------------------------------------------

CELLS = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _cell_inputs(lib: Any, name: str, dtype: str, bias: bool, grad: bool = False) -> list[Any]:
    gates = GATES[name.removesuffix("_cell")] * HIDDEN
    x = _values(lib, (BATCH, INPUT), 1, dtype, grad)
    h = _values(lib, (BATCH, HIDDEN), 2, dtype, grad)
    hx: Any = [h, _values(lib, (BATCH, HIDDEN), 3, dtype, grad)] if name == "lstm_cell" else h
    weights = [
        _values(lib, (gates, INPUT), 4, dtype, grad),
        _values(lib, (gates, HIDDEN), 5, dtype, grad),
    ]
    if bias:
        weights += [_values(lib, (gates,), 6, dtype, grad), _values(lib, (gates,), 7, dtype, grad)]
    return [x, hx, *weights]


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CELLS)
def test_cell_values_grads_and_mode_log(name: str, dtype: str, bias: bool) -> None:
    def run(lib: Any) -> Any:
        return getattr(lib, name)(*_cell_inputs(lib, name, dtype, bias))

    expected_log, expected = aten_calls(torch, lambda: run(torch))
    actual_log, actual = aten_calls(refimpl, lambda: run(refimpl))
    _same(expected, actual, dtype)
    assert actual_log == expected_log
    if dtype == "float64":

        def grads(lib: Any) -> Any:
            args = _cell_inputs(lib, name, dtype, bias, grad=True)
            leaves = [args[0], *(args[1] if isinstance(args[1], list) else [args[1]]), *args[2:]]
            out = getattr(lib, name)(*args)
            return lib.autograd.grad(_loss(lib, out if isinstance(out, tuple) else (out,)), leaves)

        _same(grads(torch), grads(refimpl), dtype)


def test_cell_gradcheck() -> None:
    # Over the input, the hidden states and the biases (the weights' gradients are compared
    # with torch's above), so that array-api-strict runs it quickly.
    x, h, w_ih, w_hh, b_ih, b_hh = _cell_inputs(refimpl, "gru_cell", "float64", True, grad=True)
    assert refimpl.autograd.gradcheck(
        lambda x, h, b_ih, b_hh: refimpl.gru_cell(x, h, w_ih, w_hh, b_ih, b_hh), (x, h, b_ih, b_hh)
    )
    x, (h, c), w_ih, w_hh, b_ih, b_hh = _cell_inputs(
        refimpl, "lstm_cell", "float64", True, grad=True
    )
    assert refimpl.autograd.gradcheck(
        lambda x, h, c, b_hh: refimpl.lstm_cell(x, [h, c], w_ih, w_hh, b_ih, b_hh), (x, h, c, b_hh)
    )


# --- errors -------------------------------------------------------------------------------------


def _seq(op: str, **changes: Any) -> Callable[[Any], Any]:
    """A sequence-op call with one argument changed: input/hx/params shapes or flags."""

    def call(lib: Any) -> Any:
        case = Case(op, **{k: v for k, v in changes.items() if k in Case.__dataclass_fields__})
        data, hx, params = case.inputs(lib, "float64")
        if "data" in changes:
            data = _values(lib, changes["data"], 9, "float64")
        if "hx" in changes:
            hx = changes["hx"](lib, hx)
        if "params" in changes:
            params = changes["params"](params)
        if "sizes" in changes:
            return getattr(lib, op)(
                data, changes["sizes"](lib), hx, params, True, 1, 0.0, False, False
            )
        layers = changes.get("num_layers", case.layers)
        bidirectional = changes.get("bi", case.bidirectional)
        return getattr(lib, op)(
            data, hx, params, case.bias, layers, 0.0, False, bidirectional, False
        )

    return call


def _h(*shape: int) -> Callable[[Any, Any], Any]:
    return lambda lib, hx: _values(lib, shape, 8, "float64")


def _cell(name: str, index: int | tuple[int, int], shape: tuple[int, ...]) -> Callable[[Any], Any]:
    """A cell call with argument `index` (1.k: hx[k] of lstm_cell) replaced by a new shape."""

    def call(lib: Any) -> Any:
        args = _cell_inputs(lib, name, "float64", True)
        new = _values(lib, shape, 8, "float64")
        if isinstance(index, tuple):
            args[1] = [new if k == index[1] else h for k, h in enumerate(args[1])]
        else:
            args[index] = new
        return getattr(lib, name)(*args)

    return call


ERROR_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("lstm one hidden state", _seq("lstm", hx=lambda lib, hx: hx[:1])),
    ("lstm three hidden states", _seq("lstm", hx=lambda lib, hx: hx * 2 + hx[:1])),
    ("lstm 2-D h", _seq("lstm", hx=lambda lib, hx: [hx[0][0], hx[1]])),
    ("lstm params count", _seq("lstm", params=lambda p: p[:3])),
    ("lstm 5 params without projection", _seq("lstm", params=lambda p: p + p[:1])),
    (
        "lstm fewer weights than layers",
        _seq(
            "lstm",
            num_layers=2,
            hx=lambda lib, hx: [_values(lib, (2, BATCH, HIDDEN), 1, "float64")] * 2,
        ),
    ),
    ("gru fewer hiddens than layers", _seq("gru", num_layers=2, params=lambda p: p + p)),
    ("rnn_tanh bidirectional odd hiddens", _seq("rnn_tanh", bi=True, params=lambda p: p + p)),
    ("rnn_relu bidirectional odd params", _seq("rnn_relu", bi=True, hx=_h(2, BATCH, HIDDEN))),
    ("gru empty sequence", _seq("gru", data=(0, BATCH, INPUT))),
    ("rnn_tanh wrong input size", _seq("rnn_tanh", data=(STEPS, BATCH, INPUT + 1))),
    ("rnn_tanh wrong hidden batch", _seq("rnn_tanh", hx=_h(1, BATCH + 1, HIDDEN))),
    ("rnn_relu 4-D input", _seq("rnn_relu", data=(STEPS, BATCH, 1, INPUT))),
    ("gru hx on meta", _seq("gru", hx=lambda lib, hx: hx.to("meta"))),
    ("gru param on meta", _seq("gru", params=lambda p: [p[0].to("meta"), *p[1:]])),
    ("lstm mixed dtypes", _seq("lstm", params=lambda p: [p[0].float(), *p[1:]])),
    (
        "rnn_tanh packed int32 batch_sizes",
        _seq("rnn_tanh", packed=(3, 2), sizes=lambda lib: lib.tensor([3, 2], dtype=lib.int32)),
    ),
    (
        "lstm packed 2-D h",
        _seq(
            "lstm",
            packed=(3, 2),
            sizes=lambda lib: lib.tensor([3, 2]),
            hx=lambda lib, hx: [hx[0][0], hx[1]],
        ),
    ),
    (
        "gru hx list",
        lambda lib: lib.gru(
            *Case("lstm").inputs(lib, "float64"), True, 1, 0.0, False, False, False
        ),
    ),
]
for _name in CELLS:
    ERROR_CASES += [
        (f"{_name} 1-D input", _cell(_name, 0, (INPUT,))),
        (f"{_name} 3-D input", _cell(_name, 0, (1, BATCH, INPUT))),
        (f"{_name} input size", _cell(_name, 0, (BATCH, INPUT + 1))),
        (f"{_name} w_ih rows", _cell(_name, 2, (HIDDEN + 1, INPUT))),
        (f"{_name} w_hh rows", _cell(_name, 3, (HIDDEN + 1, HIDDEN))),
    ]
    hidden: int | tuple[int, int] = (1, 0) if _name == "lstm_cell" else 1
    ERROR_CASES += [
        (f"{_name} hidden batch", _cell(_name, hidden, (BATCH + 1, HIDDEN))),
        (f"{_name} hidden size", _cell(_name, hidden, (BATCH, HIDDEN + 1))),
        (f"{_name} 1-D hidden", _cell(_name, hidden, (HIDDEN,))),
    ]
ERROR_CASES += [
    ("lstm_cell c batch", _cell("lstm_cell", (1, 1), (BATCH + 1, HIDDEN))),
    ("lstm_cell c size", _cell("lstm_cell", (1, 1), (BATCH, HIDDEN + 1))),
    (
        "lstm_cell one hidden state",
        lambda lib: lib.lstm_cell(
            *[
                a if k != 1 else a[:1]
                for k, a in enumerate(_cell_inputs(lib, "lstm_cell", "float64", True))
            ]
        ),
    ),
]


@pytest.mark.parametrize(("name", "call"), ERROR_CASES, ids=[n for n, _ in ERROR_CASES])
def test_error_matches_torch(name: str, call: Callable[[Any], Any]) -> None:
    (_, expected), (_, actual) = outcome(call, torch), outcome(call, refimpl)
    assert expected is not None, name
    assert (type(actual), str(actual).split("\n")[0]) == (
        type(expected),
        str(expected).split("\n")[0],
    )


@pytest.mark.parametrize("name", ["_thnn_fused_lstm_cell", "_thnn_fused_gru_cell"])
def test_fused_cells_are_cuda_only(name: str) -> None:
    gates = 4 if "lstm" in name else 3

    def call(lib: Any) -> Any:
        args = [_values(lib, (BATCH, gates * HIDDEN), k, "float32") for k in range(2)]
        return getattr(lib.ops.aten, name)(*args, _values(lib, (BATCH, HIDDEN), 3, "float32"))

    (_, expected), (_, actual) = outcome(call, torch), outcome(call, refimpl)
    first = str(expected).split(".")[0]
    assert type(actual) is type(expected) is NotImplementedError
    assert str(actual).startswith(first)
    assert not hasattr(refimpl, name) and not hasattr(torch, name)


def test_keywords_and_tuples_bind_as_torch() -> None:
    # torch.lstm's first parameter is the schema's own `input` (not a renamed `self`), and a
    # tuple binds to Tensor[] as a list does.
    def call(lib: Any) -> Any:
        data, hx, params = Case("lstm").inputs(lib, "float64")
        flags = {"has_biases": True, "num_layers": 1, "dropout": 0.0, "train": False}
        return lib.lstm(
            input=data,
            hx=tuple(hx),
            params=tuple(params),
            bidirectional=False,
            batch_first=False,
            **flags,
        )

    _same(call(torch), call(refimpl), "float64")
    cell = {
        name: _values(torch, shape, k, "float64")
        for k, (name, shape) in enumerate(
            [
                ("input", (BATCH, INPUT)),
                ("hx", (BATCH, HIDDEN)),
                ("w_ih", (HIDDEN, INPUT)),
                ("w_hh", (HIDDEN, HIDDEN)),
            ]
        )
    }
    mine = {name: refimpl.tensor(t.tolist(), dtype=refimpl.float64) for name, t in cell.items()}
    _same(torch.rnn_relu_cell(**cell), refimpl.rnn_relu_cell(**mine), "float64")
