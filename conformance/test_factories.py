"""Factories against torch: dtype inference, shapes, values, devices, errors.

Random factories cannot match torch's bit stream (refimpl's generator is its own), so they are
checked for torch's dtype, shape, support and determinism under a seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import outcome

Make = Callable[[Any], Any]


def _describe(t: Any) -> tuple[str, tuple[int, ...], tuple[int, ...], Any]:
    return (str(t.dtype).split(".")[-1], tuple(t.shape), tuple(t.stride()), t.tolist())


CASES: Final[list[tuple[str, Make]]] = [
    ("tensor_int_list", lambda lib: lib.tensor([[1, 2], [3, 4]])),
    ("tensor_float_list", lambda lib: lib.tensor([1.5, -2.0])),
    ("tensor_mixed_int_float", lambda lib: lib.tensor([1, 2.0])),
    ("tensor_bool_int", lambda lib: lib.tensor([True, 2])),
    ("tensor_bool", lambda lib: lib.tensor([True, False])),
    ("tensor_complex", lambda lib: lib.tensor([1, 1j])),
    ("tensor_scalar_int", lambda lib: lib.tensor(3)),
    ("tensor_scalar_float", lambda lib: lib.tensor(2.5)),
    ("tensor_scalar_bool", lambda lib: lib.tensor(True)),
    ("tensor_scalar_complex", lambda lib: lib.tensor(1 + 2j)),
    ("tensor_empty", lambda lib: lib.tensor([])),
    ("tensor_empty_2d", lambda lib: lib.tensor([[], []])),
    ("tensor_tuple", lambda lib: lib.tensor(((1, 2), (3, 4)))),
    ("tensor_dtype_int32", lambda lib: lib.tensor([1, 2], dtype=lib.int32)),
    ("tensor_dtype_float64_from_int", lambda lib: lib.tensor([1, 2], dtype=lib.float64)),
    ("tensor_dtype_bool_from_float", lambda lib: lib.tensor([0.0, 2.5], dtype=lib.bool)),
    ("tensor_dtype_int_from_float", lambda lib: lib.tensor([1.7, -1.7], dtype=lib.int64)),
    ("tensor_numpy_int32", lambda lib: lib.tensor(np.arange(3, dtype=np.int32))),
    ("tensor_numpy_float64", lambda lib: lib.tensor(np.linspace(0, 1, 4))),
    ("tensor_numpy_scalars", lambda lib: lib.tensor([np.float32(1.0), np.float32(2.5)])),
    ("tensor_numpy_int_scalar", lambda lib: lib.tensor([np.int32(1)])),
    ("tensor_of_0d_tensors", lambda lib: lib.tensor([lib.tensor(1.5), lib.tensor(2.5)])),
    ("as_tensor_list", lambda lib: lib.as_tensor([1, 2, 3])),
    ("as_tensor_numpy", lambda lib: lib.as_tensor(np.arange(4.0))),
    ("as_tensor_dtype", lambda lib: lib.as_tensor([1, 2], dtype=lib.float64)),
    ("from_numpy_f32", lambda lib: lib.from_numpy(np.ones((2, 3), dtype=np.float32))),
    ("from_numpy_bool", lambda lib: lib.from_numpy(np.array([True, False]))),
    ("zeros", lambda lib: lib.zeros(2, 3)),
    ("zeros_tuple", lambda lib: lib.zeros((2, 3), dtype=lib.int16)),
    ("zeros_empty", lambda lib: lib.zeros(0, 4)),
    ("zeros_scalar", lambda lib: lib.zeros(())),
    ("ones", lambda lib: lib.ones(3, dtype=lib.uint8)),
    ("ones_complex", lambda lib: lib.ones(2, dtype=lib.complex128)),
    ("empty_shape", lambda lib: lib.empty(2, 3).zero_()),
    ("full_int", lambda lib: lib.full((2,), 2)),
    ("full_bool", lambda lib: lib.full((2,), True)),
    ("full_float", lambda lib: lib.full((2, 2), 2.5)),
    ("full_complex", lambda lib: lib.full((2,), 1 + 1j)),
    ("full_dtype", lambda lib: lib.full((3,), 7, dtype=lib.float64)),
    ("full_neg_uint8", lambda lib: lib.full((2,), -1, dtype=lib.uint8)),
    ("arange_end", lambda lib: lib.arange(5)),
    ("arange_float", lambda lib: lib.arange(1.5)),
    ("arange_start_end_step", lambda lib: lib.arange(0.0, 1.0, 0.3)),
    ("arange_neg_step", lambda lib: lib.arange(10, 0, -3)),
    ("arange_dtype", lambda lib: lib.arange(0, 5, dtype=lib.float64)),
    ("arange_float_dtype_int", lambda lib: lib.arange(0.5, 4.5, dtype=lib.int32)),
    ("arange_empty", lambda lib: lib.arange(3, 3)),
    ("arange_fractional", lambda lib: lib.arange(-1.0, 1.0, 0.1)),
    ("linspace", lambda lib: lib.linspace(0, 1, 5)),
    ("linspace_odd", lambda lib: lib.linspace(-3.5, 10.25, 7)),
    ("linspace_one", lambda lib: lib.linspace(2, 3, 1)),
    ("linspace_zero", lambda lib: lib.linspace(2, 3, 0)),
    ("linspace_int", lambda lib: lib.linspace(0, 10, 4, dtype=lib.int64)),
    ("linspace_f64", lambda lib: lib.linspace(0, 1, 11, dtype=lib.float64)),
    ("logspace", lambda lib: lib.logspace(0, 2, 3)),
    ("logspace_base2", lambda lib: lib.logspace(0, 4, 5, base=2)),
    ("eye", lambda lib: lib.eye(3)),
    ("eye_rect", lambda lib: lib.eye(2, 3, dtype=lib.int32)),
    ("zeros_like", lambda lib: lib.zeros_like(lib.ones(2, 2, dtype=lib.int8))),
    ("ones_like_dtype", lambda lib: lib.ones_like(lib.zeros(3), dtype=lib.float64)),
    ("full_like", lambda lib: lib.full_like(lib.zeros(2, dtype=lib.int32), 7)),
    ("empty_like", lambda lib: lib.empty_like(lib.zeros(2, 3)).zero_()),
    ("zeros_like_transposed", lambda lib: lib.zeros_like(lib.ones(2, 3).t())),
    ("ones_like_permuted", lambda lib: lib.ones_like(lib.ones(2, 3, 4).permute(2, 0, 1))),
    ("full_like_sliced", lambda lib: lib.full_like(lib.ones(4, 6)[:, ::2], 3.0)),
    ("empty_like_expanded", lambda lib: lib.empty_like(lib.ones(3, 1).expand(3, 4)).zero_()),
    ("zeros_like_strided_t", lambda lib: lib.zeros_like(lib.ones(3, 3)[::2, ::2].t())),
    ("new_tensor", lambda lib: lib.zeros(2, dtype=lib.float64).new_tensor([1, 2])),
    ("new_zeros", lambda lib: lib.zeros(2, dtype=lib.int32).new_zeros(3)),
    ("new_ones", lambda lib: lib.zeros(2, dtype=lib.int16).new_ones((2, 2))),
    ("new_full", lambda lib: lib.zeros(2).new_full((2,), 3)),
    ("new_empty", lambda lib: lib.zeros(2, dtype=lib.int64).new_empty(2).zero_()),
    ("to_dtype", lambda lib: lib.arange(4).to(lib.float32)),
    ("to_float_to_int", lambda lib: lib.tensor([1.7, -1.7]).to(lib.int32)),
    ("to_int_to_bool", lambda lib: lib.tensor([0, 3]).to(lib.bool)),
    ("double", lambda lib: lib.arange(3).double()),
    ("clone_transposed_values", lambda lib: lib.arange(6).reshape(2, 3).t().contiguous()),
]


@pytest.mark.parametrize(("name", "make"), CASES, ids=[c[0] for c in CASES])
def test_factory_matches_torch(name: str, make: Make) -> None:
    expected, actual = make(torch), make(refimpl)
    exp = _describe(expected)
    act = _describe(actual)
    assert act[:3] == exp[:3]
    # torch.testing's default float32 tolerances: range factories round differently in the
    # last bit (torch's vectorised arange accumulates in float32).
    np.testing.assert_allclose(
        np.asarray(act[3], dtype=complex),
        np.asarray(exp[3], dtype=complex),
        rtol=1.3e-6,
        atol=1e-5,
    )


@pytest.mark.parametrize(("name", "make"), CASES[:30], ids=[c[0] for c in CASES[:30]])
def test_factory_matches_torch_default_dtype(name: str, make: Make, default_dtype: str) -> None:
    assert _describe(make(refimpl))[:3] == _describe(make(torch))[:3]


ERROR_CASES: Final[list[tuple[str, Make]]] = [
    ("tensor_ragged", lambda lib: lib.tensor([[1], [2, 3]])),
    ("tensor_not_sequence", lambda lib: lib.tensor([[1, 2], 3])),
    ("tensor_str", lambda lib: lib.tensor("a")),
    ("tensor_none", lambda lib: lib.tensor([None])),
    ("empty_negative", lambda lib: lib.empty(-1)),
    ("arange_zero_step", lambda lib: lib.arange(0, 10, 0)),
    ("arange_bad_sign", lambda lib: lib.arange(0, 10, -1)),
    ("linspace_negative", lambda lib: lib.linspace(0, 1, -1)),
    ("randint_empty_range", lambda lib: lib.randint(5, 5, (2,))),
    ("rand_int_dtype", lambda lib: lib.rand(2, dtype=lib.int64)),
    ("randn_int_dtype", lambda lib: lib.randn(2, dtype=lib.int64)),
    ("fill_overflow_int8", lambda lib: lib.zeros(2, dtype=lib.int8).fill_(-129)),
    ("fill_overflow_uint8", lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(256)),
    ("fill_nan_int", lambda lib: lib.zeros(2, dtype=lib.int64).fill_(float("nan"))),
    ("fill_complex_into_float", lambda lib: lib.zeros(2).fill_(1j)),
    ("fill_non_0d_tensor", lambda lib: lib.zeros(2).fill_(lib.zeros(2))),
    ("copy_bad_shape", lambda lib: lib.zeros(3).copy_(lib.ones(2))),
    ("requires_grad_int", lambda lib: lib.zeros(2, dtype=lib.int64).requires_grad_()),
    ("from_numpy_list", lambda lib: lib.from_numpy([1, 2])),
    ("device_bad_type", lambda lib: lib.device("CPU")),
    ("device_bad_index", lambda lib: lib.device("cuda:x")),
    ("device_negative_index", lambda lib: lib.device("cuda", -1)),
]


def _raised(make: Make, lib: Any) -> tuple[type[BaseException], str] | None:
    try:
        make(lib)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize(("name", "make"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_factory_errors_match_torch(name: str, make: Make) -> None:
    expected = _raised(make, torch)
    assert expected is not None
    assert _raised(make, refimpl) == expected


RANDOM: Final[list[tuple[str, Make]]] = [
    ("rand", lambda lib: lib.rand(3, 4)),
    ("rand_f64", lambda lib: lib.rand(5, dtype=lib.float64)),
    ("rand_c64", lambda lib: lib.rand(5, dtype=lib.complex64)),
    ("randn", lambda lib: lib.randn(2, 3)),
    ("randn_c128", lambda lib: lib.randn(4, dtype=lib.complex128)),
    ("randint", lambda lib: lib.randint(3, 10, (100,))),
    ("randint_high_only", lambda lib: lib.randint(5, (2, 2))),
    ("randint_dtype", lambda lib: lib.randint(0, 2, (3,), dtype=lib.float32)),
    ("randperm", lambda lib: lib.randperm(10)),
    ("rand_like", lambda lib: lib.rand_like(lib.zeros(2, 2, dtype=lib.float64))),
    ("randn_like", lambda lib: lib.randn_like(lib.zeros(3))),
    ("randint_like", lambda lib: lib.randint_like(lib.zeros(3, dtype=lib.int32), 4)),
    ("rand_like_transposed", lambda lib: lib.rand_like(lib.ones(2, 3).t())),
    ("randn_like_permuted", lambda lib: lib.randn_like(lib.ones(2, 3, 4).permute(2, 0, 1))),
]


@pytest.mark.parametrize(("name", "make"), RANDOM, ids=[c[0] for c in RANDOM])
def test_random_factory_dtype_shape_like_torch(name: str, make: Make) -> None:
    expected, actual = make(torch), make(refimpl)
    assert _describe(actual)[:3] == _describe(expected)[:3]


def test_random_support_and_statistics() -> None:
    refimpl.manual_seed(0)
    u = np.asarray(refimpl.rand(100_000).tolist())
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01
    n = np.asarray(refimpl.randn(100_000, dtype=refimpl.float64).tolist())
    assert abs(n.mean()) < 0.02 and abs(n.std() - 1.0) < 0.02
    c = np.asarray(refimpl.randn(100_000, dtype=refimpl.complex64).tolist())
    # torch: complex normal samples have total variance 1 (each part 1/2).
    assert abs(np.mean(np.abs(c) ** 2) - 1.0) < 0.02
    i = np.asarray(refimpl.randint(-3, 4, (100_000,)).tolist())
    assert set(np.unique(i).tolist()) == set(range(-3, 4))
    assert sorted(refimpl.randperm(50).tolist()) == list(range(50))


def test_seeding_is_deterministic() -> None:
    refimpl.manual_seed(1234)
    first = refimpl.rand(8).tolist(), refimpl.randn(3).tolist()
    refimpl.manual_seed(1234)
    assert (refimpl.rand(8).tolist(), refimpl.randn(3).tolist()) == first
    g = refimpl.Generator().manual_seed(7)
    a = refimpl.rand(4, generator=g).tolist()
    g.manual_seed(7)
    assert refimpl.rand(4, generator=g).tolist() == a
    assert g.initial_seed() == 7 == torch.Generator().manual_seed(7).initial_seed()


def test_from_numpy_shares_memory_on_numpy_backend() -> None:
    a = np.arange(4.0)
    t = refimpl.from_numpy(a)
    a[0] = 9.0
    if refimpl.config.backends["cpu"] == "numpy":
        assert t.tolist() == torch.from_numpy(a).tolist()
        t[1] = 7.0
        assert a[1] == 7.0
    else:
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_scalar_conversions_match_torch() -> None:
    for lib in (torch, refimpl):
        assert float(lib.tensor([2.5])) == 2.5
        assert int(lib.tensor(3)) == 3
        assert lib.tensor([7]).__index__() == 7
        assert complex(lib.tensor(1 + 2j)) == 1 + 2j
        assert bool(lib.tensor([0.0])) is False
        assert lib.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
        assert lib.tensor(True).item() is True
        assert len(lib.zeros(5, 2)) == 5
        assert [t.tolist() for t in lib.arange(4).view(2, 2)] == [[0, 1], [2, 3]]
        assert lib.zeros(2, 3).element_size() == 4 and lib.zeros(2, 3).numel() == 6


def test_numpy_round_trip() -> None:
    t = refimpl.arange(6.0).reshape(2, 3).t()
    assert t.numpy().tolist() == torch.arange(6.0).reshape(2, 3).t().numpy().tolist()


STRIDED_ARRAYS: Final[list[tuple[str, Callable[[], Any]]]] = [
    ("step2", lambda: np.arange(6.0)[::2]),
    ("transposed", lambda: np.arange(6.0).reshape(2, 3).T),
    ("sliced_2d", lambda: np.arange(24.0).reshape(4, 6)[1:, ::3]),
    ("broadcast", lambda: np.broadcast_to(np.arange(3.0), (2, 3))),
]


@pytest.mark.parametrize(("name", "make"), STRIDED_ARRAYS, ids=[c[0] for c in STRIDED_ARRAYS])
def test_from_numpy_of_strided_arrays_matches_torch(name: str, make: Callable[[], Any]) -> None:
    expected = torch.from_numpy(make())
    actual = refimpl.from_numpy(make())
    assert actual.tolist() == expected.tolist()
    if refimpl.config.backends["cpu"] == "numpy":
        assert (tuple(actual.stride()), actual.storage_offset()) == (
            tuple(expected.stride()),
            expected.storage_offset(),
        )


def test_from_numpy_writes_reach_only_the_array_elements() -> None:
    if refimpl.config.backends["cpu"] != "numpy":
        pytest.skip("only the NumPy backend shares memory with NumPy arrays")
    results = []
    for lib in (torch, refimpl):
        base = np.arange(6.0)
        t = lib.from_numpy(base[::2])
        t[1:].fill_(-1.0)
        base2 = np.arange(6.0).reshape(2, 3)
        u = lib.from_numpy(base2.T)
        base2[0, 1] = 42.0
        results.append((base.tolist(), u.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(4.0)[::-1],
        lambda: np.lib.stride_tricks.as_strided(np.zeros(8, dtype=np.float32), (3,), (6,)),
    ],
    ids=["negative_stride", "misaligned_stride"],
)
def test_from_numpy_stride_errors_match_torch(make: Callable[[], Any]) -> None:
    assert _raised(lambda lib: lib.from_numpy(make()), refimpl) == _raised(
        lambda lib: lib.from_numpy(make()), torch
    )


def test_layout_matches_torch() -> None:
    for lib in (torch, refimpl):
        t = lib.ones(2, 3).t()
        assert t.layout is lib.strided
        assert repr(t.layout) == f"{lib.__name__}.strided"


def test_generator_state_round_trip_like_torch() -> None:
    for lib in (torch, refimpl):
        g = lib.Generator().manual_seed(3)
        state = g.get_state()
        assert str(state.dtype).split(".")[-1] == "uint8" and state.dim() == 1
        first = lib.rand(4, generator=g).tolist()
        assert g.set_state(state) is g
        assert lib.rand(4, generator=g).tolist() == first
        saved = lib.get_rng_state()
        drawn = lib.randn(3).tolist()
        lib.set_rng_state(saved)
        assert lib.randn(3).tolist() == drawn


@pytest.mark.parametrize("bad", ["float_tensor", "list"])
def test_generator_set_state_errors_match_torch(bad: str) -> None:
    def call(lib: Any) -> None:
        value = lib.zeros(3) if bad == "float_tensor" else [1, 2]
        lib.Generator().set_state(value)

    assert _raised(call, refimpl) == _raised(call, torch)


# --- linspace and logspace as aten ops: overloads, out=, autograd, meta, errors ------------------

_SPACE_CASES: Final[dict[str, Make]] = {
    "tensor start": lambda lib: lib.linspace(lib.tensor(0.0), 1, 3),
    "tensor bounds, int": lambda lib: lib.linspace(lib.tensor(0), lib.tensor(4), 3),
    "scalar start, tensor end": lambda lib: lib.linspace(0, lib.tensor(2.5), 4),
    "tensor complex start": lambda lib: lib.linspace(lib.tensor(0j), 1, 3),
    "complex bounds": lambda lib: lib.linspace(0, 1j, 3),
    "logspace tensors": lambda lib: lib.logspace(lib.tensor(0.0), lib.tensor(2.0), 3, 2.0),
    "logspace one step": lambda lib: lib.logspace(2, 5, 1, base=3),
    "out": lambda lib: lib.linspace(0, 1, 3, out=lib.empty(3)),
    "out resized": lambda lib: lib.linspace(0, 1, 3, out=lib.empty(5)),
    "out int64": lambda lib: lib.linspace(0, 1, 3, out=lib.empty(3, dtype=lib.int64)),
    "out, tensor start": lambda lib: lib.logspace(lib.tensor(0.0), 1, 3, out=lib.empty(3)),
    "out, requires_grad": lambda lib: lib.linspace(0, 1, 3, out=lib.empty(3), requires_grad=True),
    "requires_grad": lambda lib: lib.linspace(0, 1, 3, requires_grad=True),
    "start requires grad": lambda lib: lib.linspace(lib.tensor(0.0, requires_grad=True), 1, 3),
    "meta": lambda lib: lib.linspace(0, 1, 3, device="meta"),
    "meta start": lambda lib: lib.linspace(lib.tensor(0.0, device="meta"), 1, 3),
    "bool, one step": lambda lib: lib.linspace(0, 1, 1, dtype=lib.bool),
    "uint8 from negative": lambda lib: lib.linspace(-3, 3, 4, dtype=lib.uint8),
    "error: bool": lambda lib: lib.linspace(0, 1, 3, dtype=lib.bool),
    "error: int8 overflow": lambda lib: lib.linspace(-3, 300, 4, dtype=lib.int8),
    "error: 1-d start": lambda lib: lib.linspace(lib.tensor([0.0]), 1, 3),
    "error: 1-d end": lambda lib: lib.logspace(0, lib.tensor([1.0]), 3),
    "error: both dims": lambda lib: lib.linspace(lib.tensor([0.0]), lib.tensor([[1.0]]), 3),
    "error: out dtype": lambda lib: lib.linspace(0, 1, 3, out=lib.empty(3), dtype=lib.float64),
    "error: float steps": lambda lib: lib.linspace(0, 1, 2.5),
    "error: dtype int": lambda lib: lib.linspace(0, 1, 3, dtype=5),
    "out, start requires grad": lambda lib: lib.linspace(
        lib.tensor(0.0, requires_grad=True), 1, 3, out=lib.empty(3)
    ),
}


@pytest.mark.parametrize("case", list(_SPACE_CASES))
def test_space_matches_torch(case: str) -> None:
    """The outcome (the error's type and first line, or the result's dtype, device, shape,
    values and autograd state) and the aten overloads a TorchDispatchMode sees."""
    make = _SPACE_CASES[case]
    expected, expected_error = outcome(lambda lib: aten_calls(lib, lambda: make(lib)), torch)
    actual, actual_error = outcome(lambda lib: aten_calls(lib, lambda: make(lib)), refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert type(actual_error) is type(expected_error)
        # refimpl lists the stubs' signatures under the parser's first line.
        assert str(actual_error).splitlines()[0] == str(expected_error).splitlines()[0]
        return
    if actual_error is not None:
        raise actual_error
    (expected_calls, expected_result), (actual_calls, actual_result) = expected, actual
    # torch.tensor's lift_fresh belongs to making the test's inputs.
    assert [c for c in actual_calls if "lift_fresh" not in c] == [
        c for c in expected_calls if "lift_fresh" not in c
    ]
    assert str(actual_result.dtype).split(".")[-1] == str(expected_result.dtype).split(".")[-1]
    assert actual_result.device.type == expected_result.device.type
    assert tuple(actual_result.shape) == tuple(expected_result.shape)
    assert actual_result.requires_grad == expected_result.requires_grad
    assert (actual_result.grad_fn is None) == (expected_result.grad_fn is None)
    if expected_result.device.type != "meta":
        assert actual_result.tolist() == expected_result.tolist()
