"""torch's random streams, reproduced: after seeding refimpl and torch alike, every sampler
gives torch's values bit for bit (integers, permutations, uniform floats, and normals of
every dtype: float32 and half ones through the copy of torch's AVX2 log/sincos, which
assumes the machine's torch runs its AVX2 kernels).

Torch: CPUGeneratorImpl (mt19937) and the CPU distribution kernels.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from refimpl.core.backend import extension
from refimpl.core.config import config

SIZES = (1, 15, 16, 17, 1000, 10**5)
FLOATS = ("float16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")


def _np(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.tolist(), dtype=getattr(np, str(t.dtype).split(".")[-1]))


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    if a.dtype.kind != "f":
        return 0 if np.array_equal(a, b) else 1 << 60
    width = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(width).astype(np.int64), b.view(width).astype(np.int64)
    return int(np.abs(ia - ib).max()) if a.size else 0


def _exact_libm() -> bool:
    """Whether the backend computes float64 log/log1p as the C library does (NumPy: yes;
    array_api_strict: its own log, so float64 normals are within an ulp or two)."""
    try:
        extension(config.backends.resolve("cpu").xp, "libm_log")
    except NotImplementedError:
        return False
    return True


def _same(mine: Any, theirs: Any, ulps: int = 0) -> None:
    a, b = _np(mine), _np(theirs)
    assert a.shape == b.shape and a.dtype == b.dtype
    if a.dtype.kind == "c":  # compare the parts
        a, b = a.real.copy(), b.real.copy()
        a, b = np.concatenate([a, _np(mine).imag]), np.concatenate([b, _np(theirs).imag])
    if a.dtype == np.float64 and not _exact_libm():
        np.testing.assert_allclose(a, b, rtol=1e-15, atol=1e-15)
        return
    assert _ulps(a, b) <= ulps, (a[:8], b[:8])


def _r(name: str) -> Any:
    """refimpl's dtype `name`; skips the test where the backend cannot store it
    (array_api_strict has no float16)."""
    dtype = getattr(refimpl, name)
    try:
        refimpl.empty(1, dtype=dtype)
    except TypeError as error:
        pytest.skip(str(error))
    return dtype


def _seed(s: int) -> None:
    refimpl.manual_seed(s)
    torch.manual_seed(s)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand(n: int, dtype: str) -> None:
    _seed(n)
    _same(refimpl.rand(n, dtype=_r(dtype)), torch.rand(n, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_randn(n: int, dtype: str) -> None:
    _seed(n + 1)
    _same(refimpl.randn(n, dtype=_r(dtype)), torch.randn(n, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize(
    ("n", "mean", "std"),
    [(10**6, 0.0, 1.0), (10**5 + 7, 0.5, 2.0), (10**5, -3.25, 0.1), (10**5 + 15, 1.0, 1.0)],
)
def test_float32_normals_bit_for_bit(n: int, mean: float, std: float) -> None:
    """The AVX2 NormalFill16 copy over many blocks (the chunked path) and a tail block."""
    _seed(n)
    if mean == 0.0 and std == 1.0:
        _same(refimpl.randn(n), torch.randn(n))
    else:
        _same(refimpl.empty(n).normal_(mean, std), torch.empty(n).normal_(mean, std))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_randint(n: int, dtype: str) -> None:
    _seed(7)
    high = 100 if dtype in ("uint8", "int8") else 30000
    for low in (0, -5) if dtype != "uint8" else (0, 3):
        _same(
            refimpl.randint(low, high, (n,), dtype=_r(dtype)),
            torch.randint(low, high, (n,), dtype=getattr(torch, dtype)),
        )


def test_randint_wide_range_uses_random64() -> None:
    _seed(3)
    _same(refimpl.randint(0, 2**40, (50,)), torch.randint(0, 2**40, (50,)))
    _same(refimpl.randint(-(2**62), 2**62, (50,)), torch.randint(-(2**62), 2**62, (50,)))


@pytest.mark.parametrize("n", (0, 1, 2, 15, 16, 17, 1000, 10**5))
def test_randperm(n: int) -> None:
    _seed(n)
    _same(refimpl.randperm(n), torch.randperm(n))
    _same(refimpl.randperm(n, dtype=refimpl.float64), torch.randperm(n, dtype=torch.float64))


@pytest.mark.parametrize("n", SIZES)
def test_normal_overloads(n: int) -> None:
    _seed(11)
    mean_r, mean_t = refimpl.arange(n, dtype=refimpl.float64), torch.arange(n, dtype=torch.float64)
    std_r, std_t = (
        refimpl.ones(n, dtype=refimpl.float64) * 2,
        torch.ones(n, dtype=torch.float64) * 2,
    )
    _same(refimpl.normal(mean_r, 2.0), torch.normal(mean_t, 2.0))
    _same(refimpl.normal(1.5, std_r), torch.normal(1.5, std_t))
    _same(refimpl.normal(mean_r, std_r), torch.normal(mean_t, std_t))
    _same(
        refimpl.normal(0.5, 3.0, (n,), dtype=refimpl.float64),
        torch.normal(0.5, 3.0, (n,), dtype=torch.float64),
    )
    out_r, out_t = refimpl.empty(n, dtype=refimpl.float64), torch.empty(n, dtype=torch.float64)
    refimpl.normal(mean_r, std_r, out=out_r)
    torch.normal(mean_t, std_t, out=out_t)
    _same(out_r, out_t)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_inplace_samplers(n: int, dtype: str) -> None:
    _seed(5)
    r, t = (
        refimpl.empty(n, dtype=_r(dtype)),
        torch.empty(n, dtype=getattr(torch, dtype)),
    )
    _same(r.uniform_(-3.0, 7.3), t.uniform_(-3.0, 7.3))
    _same(r.normal_(0.5, 2.0), t.normal_(0.5, 2.0))
    _same(r.random_(), t.random_())
    _same(r.random_(10), t.random_(10))
    _same(r.random_(-5, 100), t.random_(-5, 100))


@pytest.mark.parametrize("dtype", INTS + ("bool",))
def test_random_integers(dtype: str) -> None:
    _seed(9)
    r, t = (
        refimpl.empty(1000, dtype=_r(dtype)),
        torch.empty(1000, dtype=getattr(torch, dtype)),
    )
    _same(r.random_(), t.random_())
    _same(r.random_(2), t.random_(2))
    if dtype != "bool":
        _same(r.random_(1, None), t.random_(1, None))
    if dtype == "int64":
        _same(r.random_(-(2**63), None), t.random_(-(2**63), None))


def test_non_contiguous_fills_in_memory_order() -> None:
    _seed(2)
    r = refimpl.empty(40, 30).t()
    t = torch.empty(40, 30).t()
    _same(r.normal_(), t.normal_(), 1)
    _same(r.uniform_(), t.uniform_())


def test_generators_and_interleaving() -> None:
    gr, gt = refimpl.Generator().manual_seed(123), torch.Generator().manual_seed(123)
    _seed(0)
    for n in (3, 17, 5):
        _same(refimpl.rand(n, generator=gr), torch.rand(n, generator=gt))
        _same(refimpl.randn(n), torch.randn(n), 1)
        _same(
            refimpl.randn(n, dtype=refimpl.float64, generator=gr),
            torch.randn(n, dtype=torch.float64, generator=gt),
        )
        _same(refimpl.randperm(n, generator=gr), torch.randperm(n, generator=gt))
        _same(refimpl.randint(0, 9, (n,)), torch.randint(0, 9, (n,)))
    assert bytes(gr.get_state().tolist()) == bytes(gt.get_state().tolist())
    assert bytes(refimpl.get_rng_state().tolist()) == bytes(torch.get_rng_state().tolist())


def test_state_round_trips_with_torch_bytes() -> None:
    torch.manual_seed(42)
    torch.randn(3, dtype=torch.float64)  # leaves a cached normal in the state
    state = torch.get_rng_state()
    refimpl.set_rng_state(refimpl.tensor(state.tolist(), dtype=refimpl.uint8))
    _same(refimpl.randn(5, dtype=refimpl.float64), torch.randn(5, dtype=torch.float64))
    _same(refimpl.rand(20), torch.rand(20))
    back = torch.tensor(refimpl.get_rng_state().tolist(), dtype=torch.uint8)
    assert torch.equal(back, torch.get_rng_state())
    torch.set_rng_state(back)
    _same(refimpl.rand(7), torch.rand(7))
    assert refimpl.initial_seed() == torch.initial_seed() == 42


def test_seed_errors_and_state_size() -> None:
    assert refimpl.Generator().manual_seed(-1).initial_seed() == 2**64 - 1
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        refimpl.manual_seed(2**64)
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        refimpl.set_rng_state(refimpl.zeros(10, dtype=refimpl.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        refimpl.set_rng_state(refimpl.zeros(5056, dtype=refimpl.uint8))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        refimpl.set_rng_state(refimpl.zeros(5056, dtype=refimpl.int8))


_ERROR_CASES: dict[str, Any] = {
    "rand_int": lambda L: L.rand(2, dtype=L.int64),
    "randn_bool": lambda L: L.randn(2, dtype=L.bool),
    "uniform_reversed": lambda L: L.empty(3).uniform_(2, 1),
    "uniform_long": lambda L: L.empty(3, dtype=L.int64).uniform_(),
    "normal_negative_std": lambda L: L.empty(3).normal_(0, -1),
    "normal_int": lambda L: L.empty(3, dtype=L.int32).normal_(),
    "random_reversed": lambda L: L.empty(3).random_(5, 2),
    "random_uint8_bound": lambda L: L.empty(3, dtype=L.uint8).random_(0, 300),
    "random_complex": lambda L: L.empty(3, dtype=L.complex64).random_(),
    "random_int8_from": lambda L: L.empty(3, dtype=L.int8).random_(200, None),
    "random_full_int32": lambda L: L.empty(3, dtype=L.int32).random_(-(2**63), None),
    "randperm_negative": lambda L: L.randperm(-1),
    "randperm_uint8": lambda L: L.randperm(300, dtype=L.uint8),
    "randperm_int16": lambda L: L.randperm(70000, dtype=L.int16),
    "randperm_bool": lambda L: L.randperm(3, dtype=L.bool),
    "normal_tensor_float_negative": lambda L: L.normal(L.zeros(3), -1.0),
    "normal_tensor_tensor_negative": lambda L: L.normal(L.zeros(3), L.tensor([1.0, -1, 1])),
    "normal_float_float_negative": lambda L: L.normal(0.0, -1.0, (3,)),
    "normal_shapes": lambda L: L.normal(L.zeros(3), L.ones(4)),
    "normal_complex_std": lambda L: L.normal(L.zeros(3), L.ones(3, dtype=L.complex64)),
    "randint_empty_range": lambda L: L.randint(5, 5, (2,)),
    "randint_uint8_bound": lambda L: L.randint(0, 300, (2,), dtype=L.uint8),
    "uniform_expanded": lambda L: L.zeros(1).expand(3).uniform_(),
    "normal_expanded": lambda L: L.zeros(1).expand(20).normal_(),
    "random_expanded": lambda L: L.zeros(1).expand(3).random_(0, 4),
}


@pytest.mark.parametrize("name", sorted(_ERROR_CASES))
def test_errors_are_torch_s(name: str) -> None:
    case = _ERROR_CASES[name]
    with pytest.raises(Exception) as theirs:
        case(torch)
    with pytest.raises(type(theirs.value), match=None) as mine:
        case(refimpl)
    assert str(mine.value).split("\n")[0] == str(theirs.value).split("\n")[0]


def test_meta_tensors_check_no_generator() -> None:
    t = refimpl.empty(3, device="meta").uniform_(generator=refimpl.Generator())
    assert t.shape == (3,) and t.device.type == "meta"


@pytest.mark.parametrize("n", (1, 17, 1000))
@pytest.mark.parametrize("dtype", ("complex64", "complex128"))
def test_complex_samplers_fill_the_real_view(n: int, dtype: str) -> None:
    _seed(21)
    _same(refimpl.randn(n, dtype=_r(dtype)), torch.randn(n, dtype=getattr(torch, dtype)))
    _same(refimpl.rand(n, dtype=_r(dtype)), torch.rand(n, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ("int32", "int64", "float32", "float64"))
def test_wide_ranges_draw_64_bits(dtype: str) -> None:
    # torch 2.13 draws random64() for a range of 2^28 or more (int32 included).
    _seed(4)
    for low, high in ((0, 2**28 - 1), (0, 2**28), (5, 2**30), (-(2**31) + 7, 2**31 - 3)):
        _same(
            refimpl.empty(200, dtype=_r(dtype)).random_(low, high),
            torch.empty(200, dtype=getattr(torch, dtype)).random_(low, high),
        )


def test_infinite_mean() -> None:
    for dtype, n in (("float64", 3), ("float64", 20), ("float32", 20)):
        _seed(0)
        _same(
            refimpl.zeros(n, dtype=_r(dtype)).normal_(float("inf"), 1.0),
            torch.zeros(n, dtype=getattr(torch, dtype)).normal_(float("inf"), 1.0),
        )


def _state_bytes(state: Any) -> bytes:
    return bytes(state.tolist())


def test_default_generator_is_the_cpu_default() -> None:
    assert refimpl.random.default_generator is refimpl.default_generator
    assert refimpl.manual_seed(4) is refimpl.default_generator  # torch: manual_seed returns it
    assert torch.manual_seed(4) is torch.default_generator
    assert refimpl.random.manual_seed(5) is refimpl.default_generator
    torch.random.manual_seed(5)
    assert str(refimpl.default_generator.device) == str(torch.default_generator.device) == "cpu"
    assert refimpl.default_generator.initial_seed() == torch.default_generator.initial_seed()
    _same(refimpl.randn(33), torch.randn(33))
    _same(
        refimpl.rand(9, generator=refimpl.default_generator),
        torch.rand(9, generator=torch.default_generator),
    )
    assert _state_bytes(refimpl.random.get_rng_state()) == _state_bytes(torch.random.get_rng_state())
    assert refimpl.random.initial_seed() == torch.random.initial_seed() == 5
    assert refimpl.random.thread_safe_generator() is torch.random.thread_safe_generator() is None
    assert sorted(refimpl.random.__all__) == sorted(torch.random.__all__)


def test_generator_attributes_match_torch_s() -> None:
    public = {n for n in dir(torch.Generator) if not n.startswith("_")}
    assert public <= set(dir(refimpl.Generator))
    g, t = refimpl.Generator().manual_seed(8), torch.Generator().manual_seed(8)
    for name in ("graphsafe_get_state", "get_offset"):
        with pytest.raises(NotImplementedError if name.startswith("graph") else RuntimeError):
            getattr(t, name)()
        with pytest.raises(NotImplementedError if name.startswith("graph") else RuntimeError):
            getattr(g, name)()
    with pytest.raises(TypeError, match="expected a Generator, but got int"):
        g.graphsafe_set_state(5)
    with pytest.raises(RuntimeError, match="META device type not an accelerator"):
        refimpl.Generator("meta")
    refimpl.randn(5, generator=g, dtype=refimpl.float64)
    torch.randn(5, generator=t, dtype=torch.float64)
    clone, clone_t = g.clone_state(), t.clone_state()
    assert clone is not g and _state_bytes(clone.get_state()) == _state_bytes(t.get_state())
    thawed = pickle.loads(pickle.dumps(g))
    _same(refimpl.randn(6, generator=thawed, dtype=refimpl.float64),
          torch.randn(6, generator=clone_t, dtype=torch.float64))


def test_fork_rng_restores_the_state() -> None:
    _seed(21)
    refimpl.rand(3), torch.rand(3)
    before = _state_bytes(refimpl.get_rng_state())
    with refimpl.random.fork_rng(), torch.random.fork_rng():
        _same(refimpl.randn(40), torch.randn(40))
        refimpl.manual_seed(99), torch.manual_seed(99)
        _same(refimpl.rand(5), torch.rand(5))
    assert _state_bytes(refimpl.get_rng_state()) == before
    assert _state_bytes(torch.get_rng_state()) == before
    _same(refimpl.randn(40), torch.randn(40))  # the same draws as inside the block
    # A failing block restores too; disabled and meta forks restore nothing.
    after = _state_bytes(refimpl.get_rng_state())
    with pytest.raises(ZeroDivisionError), refimpl.random.fork_rng(devices=[]):
        refimpl.rand(4)
        raise ZeroDivisionError
    assert _state_bytes(refimpl.get_rng_state()) == after
    for kwargs in ({"enabled": False}, {"device_type": "meta"}):
        with refimpl.random.fork_rng(**kwargs), torch.random.fork_rng(**kwargs):
            refimpl.rand(2), torch.rand(2)
        assert _state_bytes(refimpl.get_rng_state()) == _state_bytes(torch.get_rng_state())
        assert _state_bytes(refimpl.get_rng_state()) != after
        after = _state_bytes(refimpl.get_rng_state())
