"""The random distributions beyond rand/randn/randint/randperm/normal/uniform, against torch's numbers: bernoulli, exponential_, geometric_, cauchy_, log_normal_, poisson, binomial, multinomial, _standard_gamma, _sample_dirichlet and the dropout masks.

Each case seeds torch and refimpl alike (torch.manual_seed / refimpl.manual_seed, or a
torch.Generator and a refimpl.Generator seeded alike and passed as `generator=`), runs the
same call in both, and compares the values and then the generators' states (torch's
get_state bytes), so a distribution that draws one word too many or too few fails even where
its values agree. Sizes 1, 15, 16, 17, 1000 and 10^5; every dtype each kernel accepts;
interleaved calls with rand, randn and normal_ so that the cached Box-Muller sample is
shared as in torch.

Integers, booleans, masks, indices, uniform comparisons and every value that does not pass
through a transcendental function are compared bit for bit. Values through log, log1p, tan or
exp (exponential_, cauchy_, log_normal_) are compared within one ulp of their dtype: torch
calls glibc's scalar functions, refimpl the library's (see Note [Transcendental functions of
the library] in refimpl/ops/_distributions_draw.py). The errors are compared by type and
message, for the parameter checks and for the dtypes each kernel refuses.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

SIZES = [1, 15, 16, 17, 1000, 100_000]
FLOATS = [d for d in ("float16", "bfloat16", "float32", "float64") if d in STORED_DTYPES]
INTEGERS = ["uint8", "int8", "int16", "int32", "int64"]


def _np(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy() if t.dtype is not torch.bfloat16 else t.float().numpy()
    return np.asarray(t.numpy())


def _state(lib: Any, generator: Any = None) -> bytes:
    state = lib.get_rng_state() if generator is None else generator.get_state()
    return bytes(_np(state).tobytes())


# The backend under test: NumPy supplies the C library's log/log1p/tan/exp (bit-exact
# transforms); array_api_strict has only the standard's (the last bits may differ).
_C_FUNCTIONS = os.environ.get("REFIMPL_BACKEND_CPU", "numpy") == "numpy"
# How many ulps a float through a transcendental transform may differ: one (the normal
# samples under log_normal_ come from the library's log1p/cos/sin), two without the C
# functions (a one-ulp log1p error grows in exponential_'s product).
_ULPS = 1 if _C_FUNCTIONS else 2


def _ulp_equal(expected: np.ndarray, actual: np.ndarray, ulps: int = _ULPS) -> bool:
    """Equal, or at most `ulps` ulps apart in the arrays' dtype (NaNs equal); without the C
    functions, float64 values within 1e-14 (relative, or absolute where a sum cancels: tan
    near its poles, exp of a perturbed argument, and `median + sigma * tan` magnify a
    last-bit difference)."""
    if expected.dtype != actual.dtype or expected.shape != actual.shape:
        return False
    if np.array_equal(expected, actual, equal_nan=True):
        return True
    if not _C_FUNCTIONS and expected.dtype == np.float64:
        return bool(np.allclose(actual, expected, rtol=1e-14, atol=1e-14, equal_nan=True))
    close = (actual == expected) | (np.isnan(expected) & np.isnan(actual))
    up = down = expected
    for _ in range(ulps):
        up = np.nextafter(up, np.asarray(np.inf, dtype=expected.dtype))
        down = np.nextafter(down, np.asarray(-np.inf, dtype=expected.dtype))
        close |= (actual == up) | (actual == down)
    return bool(np.all(close))


@pytest.fixture(autouse=True)
def _stored_dtypes_only(request: pytest.FixtureRequest) -> None:
    """Skip a case whose dtype the backend under test cannot store (array_api_strict has no
    float16)."""
    params = getattr(request.node, "callspec", None)
    for value in params.params.values() if params is not None else ():
        if isinstance(value, str) and value in ("float16", "bfloat16"):
            try:
                refimpl.empty(1, dtype=getattr(refimpl, value))
            except TypeError:
                pytest.skip(f"the backend stores no {value}")


def _run_both(
    call: Callable[[Any, Any], Any], seed: int = 0, explicit: bool = False
) -> tuple[Any, Any, bytes, bytes]:
    """`call(lib, generator)` in torch and refimpl after the same seeding; both results and
    both generator states after the call."""
    results, states = [], []
    for lib in (torch, refimpl):
        generator = lib.Generator().manual_seed(seed) if explicit else None
        if not explicit:
            lib.manual_seed(seed)
        results.append(call(lib, generator))
        states.append(_state(lib, generator))
    return results[0], results[1], states[0], states[1]


def _check(
    call: Callable[[Any, Any], Any],
    *,
    seed: int = 0,
    explicit: bool = False,
    ulp: bool = False,
) -> None:
    expected, actual, expected_state, actual_state = _run_both(call, seed, explicit)
    pairs = zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]
    for e, a in pairs:
        assert str(a.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(e.shape)
        e_np, a_np = _np(e), _np(a)
        if ulp:
            assert _ulp_equal(e_np, a_np), _first_difference(e_np, a_np)
        else:
            assert np.array_equal(e_np, a_np, equal_nan=True), _first_difference(e_np, a_np)
    assert actual_state == expected_state, "the generators' states differ after the call"


def _first_difference(expected: np.ndarray, actual: np.ndarray) -> str:
    if expected.shape != actual.shape:
        return f"shapes {expected.shape} != {actual.shape}"
    where = np.flatnonzero(~((expected == actual) | (np.isnan(expected) & np.isnan(actual))))
    if where.size == 0:
        return "equal"
    i = where[0]
    return (
        f"{where.size} of {expected.size} differ; first at {i}: "
        f"torch {expected.flat[i]!r}, refimpl {actual.flat[i]!r}"
    )


def _empty(lib: Any, n: int | tuple[int, ...], dtype: str) -> Any:
    return lib.empty(n, dtype=getattr(lib, dtype))


# --- bernoulli -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", *FLOATS])
def test_bernoulli_scalar_p(n: int, dtype: str) -> None:
    _check(lambda lib, g: _empty(lib, n, dtype).bernoulli_(0.3, generator=g), seed=n)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("p_dtype", FLOATS)
def test_bernoulli_tensor_p(n: int, p_dtype: str) -> None:
    def call(lib: Any, g: Any) -> Any:
        p = lib.linspace(0, 1, n, dtype=lib.float64).to(getattr(lib, p_dtype))
        return lib.bernoulli(p, generator=g)

    _check(call, seed=7)


@pytest.mark.parametrize("explicit", [False, True])
def test_bernoulli_forms(explicit: bool) -> None:
    def call(lib: Any, g: Any) -> Any:
        p = lib.linspace(0.05, 0.95, 12, dtype=lib.float32).reshape(3, 4)
        out = lib.empty(0, dtype=lib.int64)
        lib.bernoulli(p, generator=g, out=out)
        return (
            lib.bernoulli(p, 0.25, generator=g),
            out,
            _empty(lib, (4, 3), "float64").t().bernoulli_(p, generator=g),  # memory order
            _empty(lib, (2, 3, 4), "int32").bernoulli_(p[0], generator=g),  # broadcast p
            p.bernoulli(generator=g),
            p.bernoulli(0.75, generator=g),
        )

    _check(call, seed=3, explicit=explicit)


# --- exponential_, geometric_, cauchy_, log_normal_ -----------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential(n: int, dtype: str) -> None:
    _check(
        lambda lib, g: _empty(lib, n, dtype).exponential_(2.5, generator=g),
        seed=n,
        ulp=not _C_FUNCTIONS,
    )


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [*INTEGERS, *FLOATS])
def test_geometric(n: int, dtype: str) -> None:
    p = 0.2 if dtype in ("uint8", "int8") else 0.01
    _check(lambda lib, g: _empty(lib, n, dtype).geometric_(p, generator=g), seed=n)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_cauchy(n: int, dtype: str) -> None:
    _check(
        lambda lib, g: _empty(lib, n, dtype).cauchy_(1 / 3, 0.1, generator=g),
        seed=n,
        ulp=not _C_FUNCTIONS,
    )


@pytest.mark.parametrize("n", [1, 2, 3, 15, 16, 17, 1000, 100_000])
@pytest.mark.parametrize("dtype", FLOATS)
def test_log_normal(n: int, dtype: str) -> None:
    _check(
        lambda lib, g: _empty(lib, n, dtype).log_normal_(0.25, 0.5, generator=g),
        seed=n,
        ulp=True,
    )


def test_transposed_and_sliced_fill_memory_order() -> None:
    def call(lib: Any, g: Any) -> Any:
        base = _empty(lib, (3, 8), "float64")
        return (
            _empty(lib, (2, 3, 4), "float64").permute(2, 0, 1).exponential_(generator=g),
            base[:, ::2].cauchy_(generator=g),
            _empty(lib, (5, 4), "int64").t().geometric_(0.3, generator=g),
            _empty(lib, (5, 3), "float64").t().log_normal_(generator=g),
        )

    _check(call, seed=11, explicit=True, ulp=True)


# --- poisson, multinomial ----------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_poisson(n: int, dtype: str) -> None:
    def call(lib: Any, g: Any) -> Any:
        # Rates below 10 (products of uniforms), 0, and above 10 (transformed rejection).
        rates = lib.linspace(0, 40, n, dtype=lib.float64).to(getattr(lib, dtype))
        return lib.poisson(rates, g)

    _check(call, seed=n, explicit=n % 2 == 1)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize(
    ("shape", "samples", "replacement"),
    [
        ((7,), 1, False),
        ((7,), 5, False),
        ((4, 9), 9, False),
        ((4, 9), 1, True),
        ((4, 9), 20, True),
        ((3, 1000), 17, False),
        ((2, 1000), 50_000, True),
    ],
)
def test_multinomial(dtype: str, shape: tuple[int, ...], samples: int, replacement: bool) -> None:
    def call(lib: Any, g: Any) -> Any:
        n = int(np.prod(shape))
        weights = (lib.arange(n, dtype=lib.float64) % 7 + 0.5).reshape(shape)
        return lib.multinomial(weights.to(getattr(lib, dtype)), samples, replacement, generator=g)

    _check(call, seed=samples, explicit=replacement)


def test_multinomial_zero_weights_and_out() -> None:
    def call(lib: Any, g: Any) -> Any:
        weights = lib.tensor([[0.0, 1.0, 0.0, 3.0, 2.0], [5.0, 0.0, 0.0, 0.0, 1.0]])
        out = lib.empty(3, dtype=lib.int64)
        lib.multinomial(weights, 2, generator=g, out=out)
        return out, weights.multinomial(8, True, generator=g)

    _check(call, seed=5)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("n", SIZES[:-1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial(n: int, dtype: str) -> None:
    def call(lib: Any, g: Any) -> Any:
        # Counts and probabilities on both sides of 0.5 and of count * p = 10 (inversion and
        # BTRS), with 0 and 1 among them; prob broadcast against the counts.
        counts = (lib.arange(n, dtype=lib.float64) % 11 * 13).to(getattr(lib, dtype))
        probs = (lib.arange(n, dtype=lib.float64) % 7 / 6).to(getattr(lib, dtype))
        wide = lib.binomial(counts.reshape(1, n), probs[:1].reshape(1, 1).expand(3, 1), g)
        return lib.binomial(counts, probs, g), wide

    _check(call, seed=n, explicit=n % 2 == 1)


# --- _standard_gamma, _sample_dirichlet ----------------------------------------------------------


@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma(n: int, dtype: str) -> None:
    def call(lib: Any, g: Any) -> Any:
        # Rates of 0, below 1 (boosted by a uniform), and above; a normal_ after the call
        # takes the Box-Muller sample the sampler left cached.
        alpha = (lib.arange(n, dtype=lib.float64) % 13 * 0.37).to(getattr(lib, dtype))
        return lib._standard_gamma(alpha, g), lib.empty(3, dtype=lib.float64).normal_(generator=g)

    _check(call, seed=n, explicit=n % 2 == 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sample_dirichlet_and_gamma_gradient(dtype: str) -> None:
    def call(lib: Any, g: Any) -> Any:
        alpha = lib.tensor(
            [[1.0, 2.0, 0.5], [0.0, 0.0, 0.0], [3.0, 0.1, 7.0]], dtype=getattr(lib, dtype)
        )
        x = lib.tensor([0.5, 1.5, 20.0, 3.0, 9.0, 0.01], dtype=lib.float64, requires_grad=True)
        (grad,) = lib.autograd.grad(lib._standard_gamma(x, g).sum(), [x])
        rates = lib.tensor([0.5, 1.5, 20.0, 3.0, 9.0, 0.01], dtype=getattr(lib, dtype))
        samples = lib.tensor([0.3, 2.0, 19.0, 0.5, 20.0, 1e-5], dtype=getattr(lib, dtype))
        return (
            lib._sample_dirichlet(alpha, g),
            grad,
            lib._standard_gamma_grad(rates, samples),
        )

    _check(call, seed=6)


# --- dropout -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(
    "op", ["dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"]
)
def test_dropout(op: str, n: int) -> None:
    def call(lib: Any, g: Any) -> Any:
        x = lib.linspace(-3, 3, 2 * n, dtype=lib.float32).reshape(2, n)
        functional = getattr(lib, op)
        inplace = getattr(lib, op + "_")
        return functional(x, 0.3, True), inplace(x.clone(), 0.6, True), functional(x, 0.3, False)

    _check(call, seed=n)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("train", [True, None, False])
def test_native_dropout(dtype: str, train: bool | None) -> None:
    def call(lib: Any, g: Any) -> Any:
        x = lib.linspace(-3, 3, 1000, dtype=getattr(lib, dtype)).reshape(10, 100)
        output, mask = lib.native_dropout(x.t(), 0.4, train)
        return output, mask, *lib.native_dropout(x, 1.0, train)

    _check(call, seed=2)


def test_dropout_gradients() -> None:
    def call(lib: Any, g: Any) -> Any:
        x = lib.linspace(-1, 1, 60, dtype=lib.float64).reshape(3, 4, 5).requires_grad_()
        grads = []
        for fn in (lib.dropout, lib.feature_dropout, lib.alpha_dropout):
            (grad,) = lib.autograd.grad(fn(x, 0.5, True).sum(), [x])
            grads.append(grad)
        for train in (True, None):
            output, _ = lib.native_dropout(x, 0.25, train)
            (grad,) = lib.autograd.grad((output * output).sum(), [x])
            grads.append(grad)
        return tuple(grads)

    _check(call, seed=9)


# --- interleaving, generators --------------------------------------------------------------------


@pytest.mark.parametrize("explicit", [False, True])
def test_interleaved_calls(explicit: bool) -> None:
    """Distributions between rand/randn/normal_ calls: each draws where torch's does, and
    the cached second Box-Muller sample passes between normal_ (serial) and log_normal_."""

    def call(lib: Any, g: Any) -> Any:
        f64 = lib.float64
        return (
            lib.rand(5, generator=g),
            lib.empty(3, dtype=f64).log_normal_(generator=g),  # leaves a cached sample
            lib.empty(1, dtype=f64).normal_(generator=g),  # takes it
            lib.empty(17).exponential_(generator=g),
            lib.randn(3, dtype=f64, generator=g),
            lib.empty(5, dtype=f64).log_normal_(generator=g),
            lib.bernoulli(lib.full((9,), 0.5), generator=g),
            lib.poisson(lib.full((6,), 12.0), g),
            lib.empty(4, dtype=lib.int64).geometric_(0.5, generator=g),
            lib.multinomial(lib.ones(10), 4, generator=g),
            lib.dropout(lib.ones(2, 8), 0.5, True) if g is None else lib.rand(1, generator=g),
            lib.rand(16, dtype=f64, generator=g),
            lib.empty(7, dtype=f64).cauchy_(generator=g),
            lib.randn(20, generator=g),
        )

    _check(call, seed=1234, explicit=explicit, ulp=True)


def test_generator_state_roundtrip() -> None:
    """A state taken mid-stream (with a cached normal sample) and restored replays torch."""

    def call(lib: Any, g: Any) -> Any:
        lib.empty(3, dtype=lib.float64).log_normal_()
        state = lib.get_rng_state()
        first = lib.empty(9, dtype=lib.float64).log_normal_()
        lib.set_rng_state(state)
        return first, lib.empty(9, dtype=lib.float64).log_normal_()

    _check(call, seed=21, ulp=True)


# --- meta tensors, autograd --------------------------------------------------------------------


def test_meta_tensors_draw_nothing() -> None:
    def call(lib: Any, g: Any) -> Any:
        meta = lib.empty(4, 5, device="meta")
        meta.exponential_()
        meta.bernoulli_(0.5)
        lib.bernoulli(meta)
        lib.poisson(meta)
        lib.multinomial(meta, 2)
        return lib.rand(3)

    _check(call, seed=4)


def test_derivatives_are_zero() -> None:
    def call(lib: Any, g: Any) -> Any:
        x = lib.full((3, 4), 0.5, dtype=lib.float64, requires_grad=True)
        rates = lib.full((3,), 4.0, dtype=lib.float64, requires_grad=True)
        outputs = [
            lib.bernoulli(x),
            x.clone().exponential_(),
            x.clone().cauchy_(),
            x.clone().log_normal_(),
            x.clone().geometric_(0.5),
            x.clone().bernoulli_(0.5),
            x.clone().bernoulli_(x),
        ]
        grads = lib.autograd.grad(sum(o.sum() for o in outputs), [x])
        (rate_grad,) = lib.autograd.grad(lib.poisson(rates).sum(), [rates])
        return (*grads, rate_grad)

    _check(call, seed=8)


# --- errors -------------------------------------------------------------------------------------

_ERRORS: dict[str, Callable[[Any], Any]] = {
    "bernoulli_ p > 1": lambda lib: lib.empty(3).bernoulli_(1.5),
    "bernoulli_ p < 0": lambda lib: lib.empty(3).bernoulli_(-0.1),
    "bernoulli_ p nan": lambda lib: lib.empty(3).bernoulli_(float("nan")),
    "bernoulli_ complex": lambda lib: lib.empty(3, dtype=lib.complex64).bernoulli_(0.5),
    "bernoulli_ tensor p out of range": lambda lib: lib.bernoulli(lib.tensor([0.5, 1.5])),
    "bernoulli_ tensor p nan": lambda lib: lib.bernoulli(lib.tensor([float("nan")])),
    "bernoulli_ integer p": lambda lib: lib.bernoulli(lib.tensor([1, 0])),
    "bernoulli_ p not broadcastable": lambda lib: lib.empty(3).bernoulli_(lib.rand(2, 3)),
    "bernoulli_ overlap": lambda lib: lib.empty(1).expand(3).bernoulli_(0.5),
    "exponential_ lambda 0": lambda lib: lib.empty(3).exponential_(0),
    "exponential_ lambda nan": lambda lib: lib.empty(3).exponential_(float("nan")),
    "exponential_ integer": lambda lib: lib.empty(3, dtype=lib.int64).exponential_(),
    "exponential_ bool": lambda lib: lib.empty(3, dtype=lib.bool).exponential_(),
    "exponential_ overlap": lambda lib: lib.empty(1).expand(3).exponential_(),
    "geometric_ p 0": lambda lib: lib.empty(3).geometric_(0),
    "geometric_ p 1": lambda lib: lib.empty(3).geometric_(1),
    "geometric_ bool": lambda lib: lib.empty(3, dtype=lib.bool).geometric_(0.5),
    "geometric_ complex": lambda lib: lib.empty(3, dtype=lib.complex64).geometric_(0.5),
    "cauchy_ sigma 0": lambda lib: lib.empty(3).cauchy_(0, 0),
    "cauchy_ integer": lambda lib: lib.empty(3, dtype=lib.int64).cauchy_(),
    "cauchy_ empty integer": lambda lib: lib.empty(0, dtype=lib.uint8).cauchy_(),
    "cauchy_ complex": lambda lib: lib.empty(3, dtype=lib.complex128).cauchy_(),
    "log_normal_ std 0": lambda lib: lib.empty(3).log_normal_(0, 0),
    "log_normal_ integer": lambda lib: lib.empty(3, dtype=lib.int32).log_normal_(),
    "poisson negative": lambda lib: lib.poisson(lib.tensor([1.0, -1.0])),
    "poisson nan": lambda lib: lib.poisson(lib.tensor([float("nan")])),
    "poisson integer": lambda lib: lib.poisson(lib.tensor([1, 2])),
    "multinomial 0-dim": lambda lib: lib.multinomial(lib.tensor(0.5), 1),
    "multinomial 3-dim": lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1),
    "multinomial integer": lambda lib: lib.multinomial(lib.ones(3, dtype=lib.int64), 1),
    "multinomial no samples": lambda lib: lib.multinomial(lib.ones(3), 0),
    "multinomial too many": lambda lib: lib.multinomial(lib.ones(3), 4),
    "multinomial negative": lambda lib: lib.multinomial(lib.tensor([0.5, -0.1]), 1),
    "multinomial inf": lambda lib: lib.multinomial(lib.tensor([0.5, float("inf")]), 1),
    "multinomial zero row": lambda lib: lib.multinomial(lib.tensor([[0.0, 0.0], [1.0, 1.0]]), 1),
    "multinomial rep negative": lambda lib: lib.multinomial(lib.tensor([0.5, -0.1]), 2, True),
    "multinomial rep nan": lambda lib: lib.multinomial(lib.tensor([0.5, float("nan")]), 2, True),
    "multinomial rep inf": lambda lib: lib.multinomial(lib.tensor([0.5, float("inf")]), 2, True),
    "multinomial rep zero": lambda lib: lib.multinomial(lib.zeros(2), 2, True),
    "multinomial rep no categories": lambda lib: lib.multinomial(lib.ones(3, 0), 2, True),
    "multinomial no categories": lambda lib: lib.multinomial(lib.ones(3, 0), 2),
    "multinomial out dtype": lambda lib: lib.multinomial(
        lib.ones(3), 2, out=lib.empty(0, dtype=lib.int32)
    ),
    "binomial integer count": lambda lib: lib.binomial(lib.ones(3, dtype=lib.int64), lib.ones(3)),
    "binomial integer prob": lambda lib: lib.binomial(lib.ones(3), lib.ones(3, dtype=lib.int64)),
    "binomial dtypes differ": lambda lib: lib.binomial(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    "binomial shapes": lambda lib: lib.binomial(lib.ones(3), lib.ones(4)),
    "_standard_gamma integer": lambda lib: lib._standard_gamma(lib.ones(3, dtype=lib.int64)),
    "_sample_dirichlet integer": lambda lib: lib._sample_dirichlet(lib.ones(3, dtype=lib.int32)),
    "dropout p > 1": lambda lib: lib.dropout(lib.ones(3), 1.5, True),
    "dropout p < 0": lambda lib: lib.dropout(lib.ones(3), -0.5, False),
    "feature_dropout 1-d": lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True),
    "dropout integer": lambda lib: lib.dropout(lib.ones(3, dtype=lib.int64), 0.5, True),
    "native_dropout p > 1": lambda lib: lib.native_dropout(lib.ones(3), 1.5, True),
}


@pytest.mark.parametrize("name", list(_ERRORS))
def test_errors(name: str) -> None:
    expected = outcome(_ERRORS[name], torch)[1]
    actual = outcome(_ERRORS[name], refimpl)[1]
    assert expected is not None
    assert type(actual) is type(expected), f"{actual!r} != {expected!r}"
    assert str(actual) == str(expected)
