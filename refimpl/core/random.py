"""Random number generators (`refimpl.Generator`, one default per device type) and torch's
transforms from raw 32-bit words to uniform and normal samples.

Torch: torch.Generator over c10::GeneratorImpl; on CPU, CPUGeneratorImpl
(aten/src/ATen/CPUGeneratorImpl.cpp) around at::mt19937 (aten/src/ATen/core/MT19937RNGEngine.h);
the transforms are aten/src/ATen/core/DistributionsHelper.h and TransformationHelper.h.
The CPU generator is torch's: the same seeding, the same word stream, the same
`get_state` bytes, so a seeded program draws torch's numbers. The words come in bulk from
the backend's `RandomSource` (an mt19937 whose state refimpl sets); seeding and the state
layout live here.
Differs: on other devices (CuPy) the words are the backend library's own stream, not
torch's Philox, so only the distributions (not the values) match torch's CUDA generator.
"""

from __future__ import annotations

import pickle
import secrets
import struct
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType, uint8
from refimpl.core.backend import (
    MT19937_STATE_BYTES,
    REGISTRY,
    Array,
    Backend,
    RandomSource,
    extension,
)
from refimpl.core.config import config
from refimpl.core.random_avx2 import normal_fill_16_avx2
from refimpl.core.tensor import TensorImpl, backend_dtype, from_array

# torch: default_rng_seed_val in c10/core/GeneratorImpl.h.
DEFAULT_SEED: Final = 67280421310721

# torch: MERSENNE_STATE_N and the seeding multiplier of init_with_uint32 (MT19937RNGEngine.h).
MT_N: Final = 624
_MT_MULTIPLIER: Final = 1812433253
_WORD: Final = 0xFFFFFFFF

# torch: CPUGeneratorImplState = {CPUGeneratorImplStateLegacy legacy_pod; float
# next_float_normal_sample; bool is_next_float_normal_sample_valid;} as x86-64 lays it out:
# the_initial_seed u64, left i32, seeded i32, next u64, state u64[624], normal_x f64,
# normal_y f64, normal_rho f64, normal_is_valid i32, 4 pad bytes, the float cache f32, its
# valid flag, 3 pad bytes: 5056 bytes (len(torch.get_rng_state())).
_CPU_STATE: Final = struct.Struct(f"<QiiQ{MT_N}QdddixxxxfB3x")
CPU_STATE_SIZE: Final = _CPU_STATE.size


def mt19937_seed_words(seed: int) -> list[int]:
    """The 624 state words torch's mt19937 starts from. Torch: init_with_uint32 (only the
    low 32 bits of the 64-bit seed are used)."""
    words = [seed & _WORD]
    for j in range(1, MT_N):
        previous = words[-1]
        words.append((_MT_MULTIPLIER * (previous ^ (previous >> 30)) + j) & _WORD)
    return words


def _temper(word: int) -> int:
    """mt19937's output tempering of one state word. Torch: mt19937_engine::operator()."""
    word ^= word >> 11
    word ^= (word << 7) & 0x9D2C5680
    word ^= (word << 15) & 0xEFC60000
    return word ^ (word >> 18)


def _check_seed(seed: object) -> int:
    """`seed` as torch's uint64 seed (negative seeds wrap). Torch: THPGenerator_manualSeed
    unpacks a Python int as uint64, or as int64 when negative."""
    value: int = int(seed)  # type: ignore[call-overload]  # torch: int(seed) in torch.random
    if value < -(1 << 63) or value >= (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return value % (1 << 64)


class Generator:
    """A seeded random state for one device. Torch: torch.Generator.

    On CPU the state is torch's mt19937 (seed, `left`, `next`, 624 words) plus the cached
    second Box-Muller samples; the words live in a backend `RandomSource` once drawn from.
    """

    __slots__ = (
        "_device",
        "_fresh_next",
        "_pending",
        "_prefix",
        "_prefix_next",
        "_seed",
        "_source",
        "_source_backend",
        "next_double_normal_sample",
        "next_float_normal_sample",
    )

    def __init__(self, device: device | str = "cpu") -> None:
        self._device = as_device(device)
        if self._device.type == "meta":
            # torch: at::globalContext().getAcceleratorHooksInterface(device_type).
            raise RuntimeError("META device type not an accelerator.")
        self._source: RandomSource | None = None
        self._source_backend: str | None = None
        # The torch state (left, next, words) not yet moved into a source.
        self._pending: tuple[int, int, list[int]] | None = None
        # Words owed before the source's own: a state whose `left` and `next` disagree.
        self._prefix: list[int] = []
        self._prefix_next = 0
        # torch's `next` while the source has read nothing since the state was set.
        self._fresh_next: int | None = None
        # torch: CPUGeneratorImpl::next_{double,float}_normal_sample_ (None: not valid).
        self.next_double_normal_sample: float | None = None
        self.next_float_normal_sample: float | None = None
        self._seed = DEFAULT_SEED
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self) -> device:
        return self._device

    @property
    def _is_cpu(self) -> bool:
        return self._device.type == "cpu"

    def manual_seed(self, seed: int) -> Generator:
        """Reset the state from `seed`. Torch: CPUGeneratorImpl::set_current_seed."""
        self._seed = _check_seed(seed)
        self.next_double_normal_sample = None
        self.next_float_normal_sample = None
        self._source = None
        self._source_backend = None
        self._prefix = []
        self._pending = (1, 0, mt19937_seed_words(self._seed)) if self._is_cpu else None
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the seed. Torch: Generator.seed
        (c10::detail::getNonDeterministicRandom: 64 bits from /dev/urandom)."""
        self.manual_seed(secrets.randbits(64))
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_offset(self) -> int:
        if self._is_cpu:
            raise RuntimeError("CPU Generator does not use offset")
        raise NotImplementedError(f"refimpl: Generator.get_offset on {self._device.type}")

    def set_offset(self, offset: int) -> Generator:
        if self._is_cpu:
            raise RuntimeError("CPU Generator does not use offset")
        raise NotImplementedError(f"refimpl: Generator.set_offset on {self._device.type}")

    def clone_state(self) -> Generator:
        """A new generator with this one's state. Torch: Generator.clone_state."""
        other = Generator(self._device)
        other.set_state(self.get_state())
        return other

    def graphsafe_get_state(self) -> Generator:
        """Torch: Generator.graphsafe_get_state (CUDA graphs); CPU generators refuse it."""
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state: object) -> Generator:
        """Torch: Generator.graphsafe_set_state (CUDA graphs); CPU generators refuse it."""
        if not isinstance(state, Generator):
            raise TypeError(f"expected a Generator, but got {type(state).__name__}")
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling. Torch: THPGenerator_reduce: (Generator, (device,), (initial_seed,
        offset (None on CPU), state))."""
        return (Generator, (self._device,), (self._seed, None, self.get_state()))

    def __setstate__(self, state: tuple[int, int | None, Any]) -> None:
        """Torch: THPGenerator_setState: manual_seed, set_offset where given, set_state."""
        seed, offset, new_state = state
        self.manual_seed(seed)
        if offset is not None:
            self.set_offset(offset)
        self.set_state(new_state)

    # -- the word stream ---------------------------------------------------------------------

    def _source_for(self, backend: Backend) -> RandomSource:
        """The random source for `backend`, holding this generator's stream from now on."""
        if self._source is not None and self._source_backend == backend.name:
            return self._source
        if not self._is_cpu:
            if self._source is None:
                self._source = backend.random(self._seed)
                self._source_backend = backend.name
            return self._source
        left, next_, words = self._torch_state()
        source = backend.random(self._seed)
        if left == 1:
            position, self._prefix = MT_N, []
        elif left + next_ == MT_N + 1:
            position, self._prefix = next_, []
        else:
            # torch reads state[next], state[next + 1], ... for `left - 1` words, then twists.
            owed = words[next_ : next_ + left - 1]
            position, self._prefix, self._prefix_next = MT_N, [_temper(w) for w in owed], next_
        source.set_state(struct.pack(f"<{MT_N + 1}I", *words, position))
        self._fresh_next = next_ + left - 1 if left > 1 else next_
        self._source, self._source_backend, self._pending = source, backend.name, None
        return source

    def _torch_state(self) -> tuple[int, int, list[int]]:
        """torch's (left, next, words) of the CPU engine now."""
        if self._pending is not None:
            return self._pending
        assert self._source is not None
        raw = self._source.get_state()
        *words, position = struct.unpack(f"<{MT_N + 1}I", raw[:MT19937_STATE_BYTES])
        if self._prefix:
            return len(self._prefix) + 1, self._prefix_next, words
        if position == MT_N and self._fresh_next is not None:
            return 1, self._fresh_next, words
        return MT_N + 1 - position, position, words

    def _random_raw(self, backend: Backend, n: int) -> Array:
        """The next `n` words as a uint32 array of `backend`. Torch: `random()` n times."""
        source = self._source_for(backend)
        if n <= 0:
            return source.random_raw(0)
        self._fresh_next = None
        if not self._prefix:
            return source.random_raw(n)
        xp = backend.xp
        owed, self._prefix = self._prefix[:n], self._prefix[n:]
        self._prefix_next += len(owed)
        head = xp.asarray(owed, dtype=xp.uint32)
        if len(owed) == n:
            if not self._prefix:
                self._fresh_next = self._prefix_next
            return head
        return xp.concat([head, source.random_raw(n - len(owed))])

    # -- state bytes -------------------------------------------------------------------------

    def get_state(self) -> Any:
        """The whole state as a uint8 CPU tensor. Torch: Generator.get_state (CPU: the
        CPUGeneratorImplState bytes, `CPU_STATE_SIZE` of them)."""
        if self._is_cpu:
            left, next_, words = self._torch_state()
            double_cache = self.next_double_normal_sample
            float_cache = self.next_float_normal_sample
            state = _CPU_STATE.pack(
                self._seed,
                left,
                1,
                next_,
                *words,
                0.0,
                0.0 if double_cache is None else double_cache,
                0.0,
                int(double_cache is not None),
                0.0 if float_cache is None else float_cache,
                int(float_cache is not None),
            )
        else:
            sources = {} if self._source is None else {self._source_backend: self._source}
            state = pickle.dumps((self._seed, {name: s.get_state() for name, s in sources.items()}))
        backend = config.backends.resolve("cpu")
        array = backend.xp.asarray(list(state), dtype=backend_dtype(backend, uint8))
        return from_array(array, uint8, backend, device("cpu"))

    def set_state(self, new_state: object) -> Generator:
        """Restore a state from `get_state` (torch's bytes on CPU). Torch: Generator.set_state,
        CPUGeneratorImpl::set_state and check_rng_state."""
        if not isinstance(new_state, TensorImpl):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not uint8 or new_state.device.type != "cpu":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if not new_state.is_contiguous():
            raise RuntimeError("RNG state must be contiguous")
        raw = bytes(new_state.tolist()) if new_state.dim() else bytes([new_state.item()])
        if not self._is_cpu:
            seed, sources = pickle.loads(raw)
            self._seed, self._source, self._source_backend = seed, None, None
            for name, source_state in sources.items():
                self._source = REGISTRY.get(name).random(seed)
                self._source.set_state(source_state)
                self._source_backend = name
            return self
        if len(raw) != CPU_STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {CPU_STATE_SIZE} but found the input "
                f"RNG state size to be {len(raw)}"
            )
        seed, left, seeded, next_, *rest = _CPU_STATE.unpack(raw)
        words = [w & _WORD for w in rest[:MT_N]]
        normal_y, normal_is_valid, float_cache, float_valid = (
            rest[MT_N + 1],
            rest[MT_N + 3],
            rest[MT_N + 4],
            rest[MT_N + 5],
        )
        # torch: seeded_ is a bool and next_ a uint32 in mt19937_data_pod; is_valid().
        next_ &= _WORD
        if not (seeded != 0 and 0 < left <= MT_N and next_ <= MT_N):
            raise RuntimeError("Invalid mt19937 state")
        self._seed = seed
        self._source, self._source_backend, self._prefix = None, None, []
        self._pending = (left, next_, words)
        self.next_float_normal_sample = float_cache if float_valid else None
        self.next_double_normal_sample = normal_y if normal_is_valid else None
        return self

    def __repr__(self) -> str:
        return f"<refimpl.Generator object on {self._device}>"


class DefaultGenerators:
    """One default generator per device type. Torch: at::detail::getDefaultCPUGenerator etc.

    Differs: torch seeds its default CPU generator from /dev/urandom at startup; refimpl's
    start from `DEFAULT_SEED` (torch.Generator()'s seed), so an unseeded program repeats.
    """

    __slots__ = ("_by_device", "_seed")

    def __init__(self) -> None:
        self._by_device: dict[str, Generator] = {}
        self._seed = DEFAULT_SEED

    def get(self, device_type: str) -> Generator:
        generator = self._by_device.get(device_type)
        if generator is None:
            generator = Generator(device_type).manual_seed(self._seed)
            self._by_device[device_type] = generator
        return generator

    def manual_seed(self, seed: int) -> None:
        """Seed every default generator, current and future. Torch: torch.manual_seed."""
        self._seed = _check_seed(seed)
        self.get("cpu")
        for generator in self._by_device.values():
            generator.manual_seed(self._seed)

    def reseed_all(self) -> int:
        seed = secrets.randbits(64)
        self.manual_seed(seed)
        return seed


DEFAULT_GENERATORS: Final = DefaultGenerators()


# -- torch's transforms from words to samples, whole arrays at a time -------------------------

# torch: std::numeric_limits<T>::digits of the type uniform_real_distribution runs in: the
# bits of a word it keeps. Half and bfloat16 run in float (their opmath type), as measured:
# torch.rand(dtype=torch.half) is the float32 sample rounded to half.
_DIGITS: Final[dict[str, int]] = {"float16": 24, "bfloat16": 24, "float32": 24, "float64": 53}


def random32(gen: Generator, backend: Backend, n: int) -> Array:
    """The next `n` raw words, torch's `generator->random()`, as a 1-D uint32 array."""
    return gen._random_raw(backend, n)


def random64(gen: Generator, backend: Backend, n: int) -> Array:
    """The next `n` 64-bit draws as a 1-D uint64 array. Torch: CPUGeneratorImpl::random64,
    make64BitsFrom32Bits(first word, second word): the first word is the high half."""
    xp = backend.xp
    words = xp.reshape(xp.astype(gen._random_raw(backend, 2 * n), xp.uint64), (n, 2))
    return (words[:, 0] << xp.asarray(32, dtype=xp.uint64)) | words[:, 1]


def unit_uniform(gen: Generator, backend: Backend, n: int, dtype: DType) -> Array:
    """`n` samples of uniform_real_distribution<dtype>(0, 1) before any scaling, in its
    accumulation type (float64 for float64, else float32): exact multiples of 2^-digits.

    Torch: transformation::uniform_real (TransformationHelper.h): the low `digits` bits of
    `random()` (of `random64()` for double) times 2^-digits.
    """
    xp = backend.xp
    if dtype is dt.float64:
        words = random64(gen, backend, n) & xp.asarray((1 << 53) - 1, dtype=xp.uint64)
        return xp.astype(words, xp.float64) * xp.asarray(2.0**-53, dtype=xp.float64)
    digits = _DIGITS[dtype.name]
    words = random32(gen, backend, n) & xp.asarray((1 << digits) - 1, dtype=xp.uint32)
    return xp.astype(words, xp.float32) * xp.asarray(2.0**-digits, dtype=xp.float32)


def _fma(xp: Any, a: Array, b: float, c: float) -> Array:
    """a * b + c rounded once, for float64 `a` (x86's vfmadd, which torch's AVX2 kernels are
    compiled to use). An error-free product (Dekker's split) and sum (Knuth's TwoSum)."""
    split = 134217729.0  # 2^27 + 1
    product = a * b
    t = a * split
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = b * split
    b_hi = t - (t - b)
    b_lo = b - b_hi
    product_err = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    sum_err = (product - (total - back)) + (c - back)
    # Non-finite sums (an infinite mean) have no error terms: keep the plain sum.
    return xp.where(xp.isfinite(total), total + (sum_err + product_err), total)


def uniform_real(
    gen: Generator, backend: Backend, n: int, dtype: DType, low: float = 0.0, high: float = 1.0
) -> Array:
    """`n` samples of torch's uniform_ kernel on [low, high), in `dtype`.

    Torch: uniform_kernel (native/cpu/DistributionTemplates.h) over uniform_real_distribution
    in the opmath type: `fma(x, to - from, from)` with `from`/`to` in that type, cast to
    `dtype`; a value equal to `to` in `dtype` (rounded up by that cast) becomes `from`.
    """
    xp = backend.xp
    x = unit_uniform(gen, backend, n, dtype)
    if low == 0.0 and high == 1.0 and dtype in (dt.float32, dt.float64):
        return x
    if dtype is dt.float64:
        values = _fma(xp, x, float(high) - float(low), float(low))
        return xp.where(values == high, xp.asarray(float(low), dtype=xp.float64), values)
    low32, high32 = _scalar_as(dt.float32, low), _scalar_as(dt.float32, high)
    span = _scalar_as(dt.float32, high32 - low32)
    # float32 * float32 is exact in float64: one rounding to float32 after the sum.
    values = xp.astype(xp.astype(x, xp.float64) * span + low32, xp.float32)
    values = _round_to(backend, values, dt.float32, dtype)
    bound = xp.asarray(_scalar_as(dtype, high), dtype=values.dtype)
    return xp.where(values == bound, xp.asarray(_scalar_as(dtype, low), dtype=values.dtype), values)


def _libm(xp: Any, name: str) -> Any:
    """The C library's `name` (log, log1p) for float64, which torch's scalar code calls; the
    standard's function where the backend has none (then within an ulp of torch's)."""
    try:
        return extension(xp, f"libm_{name}")
    except NotImplementedError:
        return getattr(xp, name)


def _round_to(backend: Backend, array: Array, source: DType, target: DType) -> Array:
    """`array` (of dtype `source`) rounded to `target` as static_cast does (nearest even)."""
    if source is target:
        return array
    return backend.xp.astype(array, backend_dtype(backend, target))


def _scalar_as(dtype: DType, value: float) -> float:
    """`value` rounded to `dtype` (a Python float holding it), as static_cast<dtype> does."""
    if dtype is dt.float64:
        return float(value)
    if dtype is dt.float32:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    if dtype is dt.float16:
        return float(struct.unpack("<e", struct.pack("<e", value))[0])
    # bfloat16: the high 16 bits of the float32, rounded to nearest even.
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    if (bits & 0x7F800000) != 0x7F800000:
        bits += 0x7FFF + ((bits >> 16) & 1)
    return float(struct.unpack("<f", struct.pack("<I", ((bits >> 16) << 16) & _WORD))[0])


def normal_real(
    gen: Generator, backend: Backend, n: int, dtype: DType, mean: float = 0.0, std: float = 1.0
) -> Array:
    """`n` samples of torch's scalar normal_distribution<double>(mean, std), cast to `dtype`.

    Torch: normal_distribution::operator() (DistributionsHelper.h), the serial path of
    normal_kernel: a cached sample first if valid; else u1, u2 from
    uniform_real_distribution<double> (each one random64()), r = sqrt(-2 log1p(-u2)),
    theta = 2 pi u1, returns r cos(theta) and caches r sin(theta). Each call is one sample,
    so a pair of draws feeds two consecutive samples.
    """
    xp = backend.xp
    f64 = backend_dtype(backend, dt.float64)
    head: list[float] = []
    if n > 0 and gen.next_double_normal_sample is not None:
        head = [gen.next_double_normal_sample]
        gen.next_double_normal_sample = None
    pairs = (n - len(head) + 1) // 2
    u = xp.reshape(uniform_real(gen, backend, 2 * pairs, dt.float64), (pairs, 2))
    u1, u2 = u[:, 0], u[:, 1]
    r = xp.sqrt(xp.asarray(-2.0, dtype=f64) * _libm(xp, "log1p")(-u2))
    theta = xp.asarray(2.0 * 3.141592653589793, dtype=f64) * u1
    cos, sin = r * xp.cos(theta), r * xp.sin(theta)
    body = xp.reshape(xp.stack([cos, sin], axis=1), (-1,))
    if (n - len(head)) % 2:
        gen.next_double_normal_sample = float(sin[-1])
        body = body[:-1]
    values = xp.concat([xp.asarray(head, dtype=f64), body]) if head else body
    if mean != 0.0 or std != 1.0:
        values = _fma(xp, values, float(std), float(mean))
    if dtype is not dt.float64 and dtype is not dt.float32:
        # static_cast<Half>(double) goes through float.
        values = _round_to(backend, values, dt.float64, dt.float32)
        return _round_to(backend, values, dt.float32, dtype)
    return _round_to(backend, values, dt.float64, dtype)


def normal_fill(
    gen: Generator, backend: Backend, n: int, dtype: DType, mean: float = 0.0, std: float = 1.0
) -> Array:
    """`n >= 16` normal samples as torch's contiguous fill makes them, in `dtype`.

    Torch: normal_fill / normal_fill_AVX2 (native/cpu/DistributionTemplates.h): n uniform
    samples, then in each block of 16 the pairs (j, j + 8) become, with u1 = 1 - data[j] and
    u2 = data[j + 8], r = sqrt(-2 log u1), theta = 2 pi u2: data[j] = r cos(theta) * std +
    mean, data[j + 8] = r sin(theta) * std + mean; if n % 16, 16 more uniform samples
    overwrite the last 16 slots and are transformed as one more block. Half and bfloat16
    run in float (their opmath type: uniform floats, the float transform, one rounding at
    the end); float32 is torch's AVX2 path (log256_ps, sincos256_ps, then a fused
    multiply-add), float64 the scalar path with std::fma.
    """
    xp = backend.xp
    whole = n - n % 16
    if dtype is dt.float64:
        uniforms = unit_uniform(gen, backend, n, dtype)
        tail = unit_uniform(gen, backend, 16, dtype) if n % 16 else None
        blocks = _box_muller_16(backend, xp.reshape(uniforms[:whole], (-1, 16)), dtype, mean, std)
    else:
        # float32 draws all n samples into the output first (the last n % 16 are then
        # overwritten); half and bfloat16 draw 16 per block into a float buffer. The
        # uniform samples are made from the words inside the AVX2 transform.
        words = random32(gen, backend, n if dtype is dt.float32 else whole)
        tail = random32(gen, backend, 16) if n % 16 else None
        blocks = _box_muller_16(backend, xp.reshape(words[:whole], (-1, 16)), dtype, mean, std)
    if tail is None:
        return xp.reshape(blocks, (-1,))
    last = _box_muller_16(backend, xp.reshape(tail, (1, 16)), dtype, mean, std)
    return xp.concat([xp.reshape(blocks, (-1,))[: n - 16], xp.reshape(last, (-1,))])


def _box_muller_16(backend: Backend, blocks: Array, dtype: DType, mean: float, std: float) -> Array:
    """torch's NormalFill16 on each row of `blocks`, rounded to `dtype`: for float64 k x 16
    uniform samples, for the other dtypes k x 16 raw words (their uniform samples are
    float32, made inside the AVX2 transform)."""
    xp = backend.xp
    if dtype is dt.float64:
        u1, u2 = blocks[:, :8], blocks[:, 8:]
        radius = xp.sqrt(-2.0 * _libm(xp, "log")(1.0 - u1))
        theta = (2.0 * 3.141592653589793) * u2
        first, second = radius * xp.cos(theta), radius * xp.sin(theta)
        if std != 1.0 or mean != 0.0:
            first, second = _fma(xp, first, std, mean), _fma(xp, second, std, mean)
        return xp.concat([first, second], axis=1)
    # float32 and the half types: torch's AVX2 NormalFill16<float>, then one rounding.
    values = normal_fill_16_avx2(xp, blocks, mean, std)
    return _round_to(backend, values, dt.float32, dtype)
