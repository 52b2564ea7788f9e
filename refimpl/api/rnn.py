"""The torch.* functions of the recurrent ops: lstm, gru, rnn_tanh, rnn_relu and their cells.

Torch: the generated bindings in python_torch_functions.cpp (torch.lstm, torch.gru,
torch.rnn_tanh, torch.rnn_relu, each with its padded `.input` and packed `.data` overload;
torch.lstm_cell, torch.gru_cell, torch.rnn_tanh_cell, torch.rnn_relu_cell; torch has no
Tensor methods for these). Each function passes through `api/_call.py` (`torch_function`),
which picks the overload from the arguments as torch's parser does; one line per name.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
]

lstm = torch_function("lstm")
gru = torch_function("gru")
rnn_tanh = torch_function("rnn_tanh")
rnn_relu = torch_function("rnn_relu")
lstm_cell = torch_function("lstm_cell")
gru_cell = torch_function("gru_cell")
rnn_tanh_cell = torch_function("rnn_tanh_cell")
rnn_relu_cell = torch_function("rnn_relu_cell")
