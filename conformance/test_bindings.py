"""torch.* bindings that torch's overridable table leaves out by name (in-place forms such as
`torch.exp_`, underscore ops such as `torch._softmax`): refimpl has them (api/functions_inplace.py),
they write and return as torch's, and a TorchFunctionMode and a TorchDispatchMode see the same
calls; and the metadata queries (torch.is_complex, is_nonzero, numel, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import assert_same_outcome

Call = Callable[[Any], Any]


def _x(lib: Any) -> Any:
    return lib.tensor([[0.25, -1.5, 2.0], [0.5, 3.0, -0.75]], dtype=lib.float64)


_UNARY_INPLACE: Final = [
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "deg2rad_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "i0_", "log10_",
    "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_",
    "reciprocal_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_", "conj_physical_",
]  # fmt: skip

_CALLS: Final[dict[str, Call]] = {
    **{name: (lambda lib, name=name: getattr(lib, name)(_x(lib))) for name in _UNARY_INPLACE},
    "clamp_": lambda lib: lib.clamp_(_x(lib), -1, 1),
    "clamp_min_": lambda lib: lib.clamp_min_(_x(lib), 0.3),
    "clamp_max_": lambda lib: lib.clamp_max_(_x(lib), 0.3),
    "clip_": lambda lib: lib.clip_(_x(lib), max=1.0),
    "fill_": lambda lib: lib.fill_(_x(lib), 2.5),
    "xlogy_": lambda lib: lib.xlogy_(_x(lib), 2.0),
    "ldexp_": lambda lib: lib.ldexp_(_x(lib), lib.tensor([1, 2, 3])),
    "addmv_": lambda lib: lib.addmv_(lib.zeros(2, dtype=lib.float64), _x(lib), _x(lib)[0]),
    "gcd_": lambda lib: lib.gcd_(lib.tensor([12, 18]), lib.tensor([8, 27])),
    "lcm_": lambda lib: lib.lcm_(lib.tensor([12, 18]), lib.tensor([8, 27])),
    "exp_ on an integer tensor": lambda lib: lib.exp_(lib.tensor([1, 2])),
    "_softmax": lambda lib: lib._softmax(_x(lib), 1, False),
    "_log_softmax": lambda lib: lib._log_softmax(_x(lib), 0, False),
    "_stack": lambda lib: lib._stack([_x(lib), _x(lib)], 1),
    "_logcumsumexp": lambda lib: lib._logcumsumexp(_x(lib), 1),
    "_conj_physical": lambda lib: lib._conj_physical(_x(lib)),
    "_linalg_det": lambda lib: lib._linalg_det(_x(lib)[:, :2]),
}

# The metadata queries (api/tensor_queries.py): their values, errors and the calls a mode sees.
_QUERIES: Final[dict[str, Call]] = {
    "is_complex": lambda lib: lib.is_complex(lib.tensor([1j])),
    "is_floating_point": lambda lib: lib.is_floating_point(lib.tensor([1])),
    "is_signed uint8": lambda lib: lib.is_signed(lib.ones(1, dtype=lib.uint8)),
    "is_signed int8": lambda lib: lib.ones(1, dtype=lib.int8).is_signed(),
    "is_signed bool": lambda lib: lib.ones(1, dtype=lib.bool).is_signed(),
    "is_nonzero": lambda lib: lib.is_nonzero(lib.tensor([0.0])),
    "is_nonzero complex": lambda lib: lib.tensor(1j).is_nonzero(),
    "is_nonzero nan": lambda lib: lib.is_nonzero(lib.tensor(float("nan"))),
    "is_nonzero empty": lambda lib: lib.is_nonzero(lib.tensor([])),
    "is_nonzero two": lambda lib: lib.is_nonzero(lib.tensor([1, 2])),
    "is_nonzero meta": lambda lib: lib.is_nonzero(lib.ones(1, device="meta")),
    "is_same_size": lambda lib: lib.is_same_size(lib.ones(2, 3), lib.ones(2, 3)),
    "is_same_size method": lambda lib: lib.ones(2).is_same_size(lib.ones(3)),
    "is_same_size meta": lambda lib: lib.is_same_size(lib.ones(2, device="meta"), lib.ones(2)),
    "numel": lambda lib: lib.numel(lib.ones(2, 3)),
    "get_device": lambda lib: lib.get_device(lib.ones(2)),
    "is_inference": lambda lib: lib.is_inference(lib.ones(2)),
    "error: is_complex(int)": lambda lib: lib.is_complex(1),
    "error: is_same_size(t, int)": lambda lib: lib.is_same_size(lib.ones(2), 3),
}


@pytest.mark.parametrize("case", list(_QUERIES))
def test_query_matches_torch(case: str) -> None:
    make = _QUERIES[case]
    assert_same_outcome(lambda lib: aten_calls(lib, lambda: make(lib)), _equal)


def _equal(expected: object, actual: object) -> None:
    assert actual == expected


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    np.testing.assert_allclose(
        np.asarray(actual.tolist()), np.asarray(expected.tolist()), rtol=1e-12, equal_nan=True
    )


# The cases whose kernels need a function outside the Array API standard.
_EXTENSIONS: Final = {"i0_": "i0", "erf_": "erf", "erfc_": "erfc"}


@pytest.mark.parametrize("case", list(_CALLS))
def test_binding_matches_torch(case: str) -> None:
    needed = _EXTENSIONS.get(case)
    if needed is not None and needed not in refimpl.config.backends.resolve("cpu").extensions:
        pytest.skip(f"the backend has no {needed}")
    make = _CALLS[case]
    assert_same_outcome(lambda lib: aten_calls(lib, lambda: make(lib)), _same_calls)


def _same_calls(expected: Any, actual: Any) -> None:
    (expected_calls, expected_result), (actual_calls, actual_result) = expected, actual
    assert actual_calls == expected_calls
    _same(expected_result, actual_result)
