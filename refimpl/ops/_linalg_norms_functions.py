"""Functions of a square matrix: linalg_matrix_power, matrix_power, linalg_matrix_exp, matrix_exp, matrix_exp_backward.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (linalg_matrix_power_impl, mexp, mexp_impl,
compute_T1 ... compute_T18, compute_T18_scale_square, linalg_matrix_exp, matrix_exp,
matrix_exp_backward) and linalg_matrix_exp_differential in
torch/csrc/autograd/FunctionsManual.cpp. matrix_power is CompositeImplicitAutograd (matmul,
linalg_inv); linalg_matrix_exp has a kernel, a Meta kernel and its own derivative.

Note [Matrix exponential]
torch computes exp(A) with the optimized Taylor polynomials of Bader, Blanes and Casas
("Computing the Matrix Exponential with an Optimized Taylor Polynomial Approximation",
Mathematics 2019, 7, 1174): degree 1, 2, 4, 8, 12 or 18, evaluated with 0 to 5 matrix
products, chosen by the 1-norm (largest column sum of |A|) against thresholds of the dtype's
precision; past the degree-12 threshold, A is scaled by 2^-s so its norm is under the
degree-18 threshold, and the degree-18 result squared s times. A batch of more than one
matrix always takes the scaled degree-18 path (torch: `compute_highest_degree_approx`). The
coefficients are rounded to the input's real dtype, as torch's `from_blob` tables are, and
every product runs in the input's dtype, so float32 results match torch's to rounding.
For float16 and bfloat16 torch takes its double-precision branch (`mexp_impl<double>`) but
reads each table with `from_blob(..., Half)`: the bytes of the doubles read as 16-bit values
(so {1/2, 1/6, 1/24} becomes {0, 0, 0}), with thresholds and arithmetic in the 16-bit dtype.
Its results are meaningless (NaN or huge for most inputs), but they are torch's: refimpl
reads the same bytes (`_as_16_bit`) and computes as torch does, so they agree.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import DType, float32, float64
from refimpl._base.memory_format import contiguous_format
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, empty_tensor, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_linalg_compatible_dtype,
    check_same_device,
    square_check_inputs,
)
from refimpl.ops._outputs import warn_resize
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import not_implemented, registered

aten: Final = namespace("aten")


# --- linalg_matrix_power, matrix_power -------------------------------------------------------


def _resize_out(out: TensorImpl, size: tuple[int, ...]) -> None:
    """Torch: at::native::resize_output (aten::resize_ only where the shape differs)."""
    if out._size != size:
        warn_resize(out, size)
        aten.resize_.default(out, list(size))


def _matmul(a: TensorImpl, b: TensorImpl, out: TensorImpl | None = None) -> Any:
    return aten.matmul.default(a, b) if out is None else aten.matmul.out(a, b, out=out)


def matrix_power_impl(self: TensorImpl, n: int, out: TensorImpl | None) -> Any:
    """`self` to the integer power `n` (negative: of its inverse), by repeated squaring.

    Torch: linalg_matrix_power_impl in LinearAlgebra.cpp: n = 0 is the identity (written
    into a contiguous clone, so the result stays in the graph), 1 a clone, -1 linalg_inv;
    2 and 3 direct products; larger powers multiply the squares a, a^2, a^4, ... selected by
    the bits of n from the lowest, the last product written into `out`.
    """
    square_check_inputs(self, "linalg.matrix_power")
    if out is not None:
        check_same_device("matrix_power", out, self)
        check_linalg_compatible_dtype("matrix_power", out, self)
        _resize_out(out, self._size)
    if n == 0:
        target = aten.clone.default(self, memory_format=contiguous_format) if out is None else out
        identity = aten.eye.default(self._size[-2], dtype=self._dtype, device=self._storage.device)
        return aten.copy_.default(target, identity)
    if n == 1:
        if out is not None:
            return aten.copy_.default(out, self)
        return aten.clone.default(self, memory_format=contiguous_format)
    if n == -1:
        return aten.linalg_inv.default(self) if out is None else aten.linalg_inv.out(self, out=out)
    a = aten.linalg_inv.default(self) if n < 0 else self
    n = abs(n)
    if n == 2:
        return _matmul(a, a, out)
    if n == 3:
        return _matmul(_matmul(a, a), a, out)
    z: Any = None
    result: Any = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else _matmul(z, z)
        if bit == 1:
            if out is not None and n <= 0:
                return aten.copy_.default(out, z) if result is None else _matmul(result, z, out)
            result = z if result is None else _matmul(result, z)
    return result


linalg_matrix_power = defop("linalg_matrix_power(Tensor self, int n) -> Tensor")


@linalg_matrix_power.decomposition
def linalg_matrix_power_decomposition(self: TensorImpl, n: int) -> Any:
    """Torch: linalg_matrix_power (linalg_matrix_power_impl without out)."""
    return matrix_power_impl(self, n, None)


linalg_matrix_power_out = defop(
    "linalg_matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_matrix_power_out.decomposition
def linalg_matrix_power_out_decomposition(self: TensorImpl, n: int, *, out: TensorImpl) -> Any:
    """Torch: linalg_matrix_power_out."""
    matrix_power_impl(self, n, out)
    return out


matrix_power = defop("matrix_power(Tensor self, int n) -> Tensor")


@matrix_power.decomposition
def matrix_power_decomposition(self: TensorImpl, n: int) -> Any:
    """Torch: matrix_power (at::native::linalg_matrix_power, called without the dispatcher)."""
    return matrix_power_impl(self, n, None)


matrix_power_out = defop("matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)")


@matrix_power_out.decomposition
def matrix_power_out_decomposition(self: TensorImpl, n: int, *, out: TensorImpl) -> Any:
    """Torch: matrix_power_out (at::native::linalg_matrix_power_out)."""
    matrix_power_impl(self, n, out)
    return out


# --- linalg_matrix_exp: the Taylor polynomials -----------------------------------------------
# See Note [Matrix exponential].

# The 1-norm bounds up to which each degree (1, 2, 4, 8, 12, 18) is accurate, by precision.
# torch: thetas_float / thetas_double in mexp.
_THETAS: Final[dict[str, tuple[float, ...]]] = {
    "float32": (
        1.192092800768788e-07,
        5.978858893805233e-04,
        5.116619363445086e-02,
        5.800524627688768e-01,
        1.461661507209034e00,
        3.010066362817634e00,
    ),
    "float64": (
        2.220446049250313e-16,
        2.580956802971767e-08,
        3.397168839976962e-04,
        4.991228871115323e-02,
        2.996158913811580e-01,
        1.090863719290036e00,
    ),
}


# torch: the constants of compute_T8, declared `constexpr scalar_t`: sqrt(177) and x3 are
# rounded to the dtype first, and the others computed in double from those rounded values.
def _t8_coefficients(round_to: Any) -> dict[str, float]:
    sqrt_177 = round_to(0.1330413469565007072504e2)
    x3 = round_to(2.0 / 3.0)
    return {
        "x1": round_to(x3 * ((1.0 + sqrt_177) / 88.0)),
        "x2": round_to(x3 * ((1.0 + sqrt_177) / 352.0)),
        "x3": x3,
        "x4": round_to((-271.0 + 29.0 * sqrt_177) / (315.0 * x3)),
        "x5": round_to((-11.0 + 11.0 * sqrt_177) / (1260.0 * x3)),
        "x6": round_to((-99.0 + 11.0 * sqrt_177) / (5040.0 * x3)),
        "x7": round_to((89.0 - sqrt_177) / (5040.0 * x3)),
        "y2": round_to((857.0 - 58.0 * sqrt_177) / 630.0),
    }


# torch: the `b` tables of compute_T12 (over I, A, A^2, A^3) and compute_T18 (over I, A, A^2,
# A^3, A^6): row i gives the coefficients of B_i.
_T12_B: Final = (
    (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
    (
        5.31597895759871264183,
        1.19926790417132231573,
        0.01179296240992997031,
        0.01108844528519167989,
    ),
    (
        0.18188869982170434744,
        0.05502798439925399070,
        0.09351590770535414968,
        0.00610700528898058230,
    ),
    (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359),
)
_T18_B: Final = (
    (
        0.0,
        -1.00365581030144618291e-01,
        -8.02924648241156932449e-03,
        -8.92138498045729985177e-04,
        0.0,
    ),
    (
        0.0,
        3.97849749499645077844e-01,
        1.36783778460411720168e00,
        4.98289622525382669416e-01,
        -6.37898194594723280150e-04,
    ),
    (
        -1.09676396052962061844e01,
        1.68015813878906206114e00,
        5.71779846478865511061e-02,
        -6.98210122488052056106e-03,
        3.34975017086070470649e-05,
    ),
    (
        -9.04316832390810593223e-02,
        -6.76404519071381882256e-02,
        6.75961301770459654925e-02,
        2.95552570429315521194e-02,
        -1.39180257516060693404e-05,
    ),
    (
        0.0,
        0.0,
        -9.23364619367118555360e-02,
        -1.69364939002081722752e-02,
        -1.40086798182036094347e-05,
    ),
)


# torch: bmm_out_or_baddbmm_ in LinearAlgebra.cpp multiplies batches whose k * m * n is below
# this with a plain loop (baddbmm_cpu_kernel), each sum over k in order, in the dtype's
# opmath type (float for float32 and the 16-bit floats); larger ones go to BLAS.
_SMALL_BMM: Final = 400


@dataclass(frozen=True, slots=True)
class _Precision:
    """How torch's mexp computes for one dtype.

    Torch: mexp picks `mexp_impl<float>` for float32 and complex64 and `mexp_impl<double>`
    for every other dtype: `scalar_t` is the type of its thresholds and constants, and its
    coefficient tables are read with `from_blob` in the input's real dtype. For float16 and
    bfloat16 that reads the bytes of `double` tables as 16-bit values (see Note [Matrix
    exponential]).
    """

    thresholds: str  # the table of thetas: "float32" or "float64"
    constants: DType  # scalar_t, the dtype the constants are declared in
    opmath: DType | None  # where sums of products accumulate, if wider than the dtype
    reinterpreted: bool  # whether the tables are the bytes of doubles read as 16-bit values


_PRECISION: Final[dict[str, _Precision]] = {
    "float16": _Precision("float64", float64, float32, True),
    "bfloat16": _Precision("float64", float64, float32, True),
    "float32": _Precision("float32", float32, None, False),
    "complex64": _Precision("float32", float32, None, False),
    "float64": _Precision("float64", float64, None, False),
    "complex128": _Precision("float64", float64, None, False),
}


def _as_16_bit(values: Sequence[float], count: int, dtype_name: str) -> tuple[float, ...]:
    """The first `count` 16-bit values in the bytes of `values` stored as doubles.

    Torch: from_blob(double data, count, Half or BFloat16) in mexp's helpers (little-endian
    storage; bfloat16 is the high half of a float32).
    """
    raw = struct.pack(f"<{len(values)}d", *values)[: 2 * count]
    if dtype_name == "float16":
        return struct.unpack(f"<{count}e", raw)
    return tuple(struct.unpack("<f", b"\0\0" + raw[2 * i : 2 * i + 2])[0] for i in range(count))


class _Taylor:
    """What the polynomials share: the namespace, the dtypes, and torch's coefficient tables
    and batched matrix product for them.

    Torch: the `scalar_t` of mexp_impl's templates, _blob_to_Tensor / from_blob for the
    tables, and _matmul_impl on (batch, n, n) tensors (bmm).
    """

    def __init__(
        self, xp: Any, dtype: Any, real: DType, precision: _Precision, backend: Any
    ) -> None:
        self.xp = xp
        self.dtype = dtype
        self.real_name = real.name
        self.real = backend_dtype(backend, real)
        self.precision = precision
        self.constant_dtype = backend_dtype(backend, precision.constants)
        self.opmath = None if precision.opmath is None else backend_dtype(backend, precision.opmath)

    def constant(self, value: float) -> float:
        """`value` as a `scalar_t` constant of torch's."""
        return float(self.xp.asarray(value, dtype=self.constant_dtype))

    def threshold(self, value: float) -> float:
        """A threshold as torch compares it with the norm: rounded to the norm's dtype."""
        return float(self.xp.asarray(self.constant(value), dtype=self.real))

    def table(self, rows: Sequence[Sequence[float]]) -> list[tuple[float, ...]]:
        """The coefficients torch reads from a table of `scalar_t` constants: rounded to the
        real dtype, or (16-bit floats) the table's bytes read as 16-bit values."""
        if not self.precision.reinterpreted:
            return [tuple(float(v) for v in self.xp.asarray(row, dtype=self.real)) for row in rows]
        width = len(rows[0])
        flat = [self.constant(v) for row in rows for v in row]
        values = _as_16_bit(flat, width * len(rows), self.real_name)
        return [values[i * width : (i + 1) * width] for i in range(len(rows))]

    def coefficients(self, *values: float) -> tuple[float, ...]:
        """A list of coefficients (a one-row table). Torch: _blob_to_Tensor."""
        return self.table([values])[0]

    def _wide(self, a: Array) -> Array:
        return a if self.opmath is None else self.xp.astype(a, self.opmath)

    def _narrow(self, a: Array) -> Array:
        return a if self.opmath is None else self.xp.astype(a, self.dtype)

    def matmul(self, a: Array, b: Array) -> Array:
        """a @ b over the batch. Torch: bmm on CPU: small products (see _SMALL_BMM) sum over
        k in order in the opmath dtype, rounding once per product and per addition, which
        refimpl reproduces exactly; larger ones call the library's matmul (BLAS, as torch's
        MKL: the same to rounding)."""
        xp = self.xp
        a, b = self._wide(a), self._wide(b)
        n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
        if k == 0 or n * k * m >= _SMALL_BMM:
            return self._narrow(xp.matmul(a, b))
        total = a[..., :, 0:1] * b[..., 0:1, :]
        for i in range(1, k):
            total = total + a[..., :, i : i + 1] * b[..., i : i + 1, :]
        return self._narrow(total)

    def total(self, matrices: Sequence[Array]) -> Array:
        """The sum of `matrices`, in order, in the opmath dtype. Torch: As.sum(0)."""
        result = self._wide(matrices[0])
        for m in matrices[1:]:
            result = result + self._wide(m)
        return self._narrow(result)

    def one_norm(self, a: Array) -> Array:
        """The largest column sum of |A| per matrix. Torch: operator_1_norm
        (abs().sum(-2).max(-1), the sum accumulated in the opmath dtype)."""
        xp = self.xp
        magnitude = xp.abs(a)
        column_sums = xp.sum(self._wide(magnitude), axis=-2)
        if self.opmath is not None:
            column_sums = xp.astype(column_sums, magnitude.dtype)
        return xp.max(column_sums, axis=-1)

    def powers(self, a: Array, count: int) -> list[Array]:
        """The first `count` of I, A, A^2, A^3 (A A^2), A^6 (A^3 A^3).

        Torch: _fill_matrix_powers.
        """
        xp = self.xp
        powers = [xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape), a]
        if count > 2:
            powers.append(self.matmul(a, a))
        if count > 3:
            powers.append(self.matmul(a, powers[2]))
        if count > 4:
            powers.append(self.matmul(powers[3], powers[3]))
        return powers

    def combination(self, coefficients: Sequence[float], matrices: Sequence[Array]) -> Array:
        """sum_j c_j M_j, added in order in the matrices' dtype.

        Torch: _compute_linear_combination (one accumulation per element, from zero).
        """
        xp = self.xp
        total: Array | None = None
        for c, m in zip(coefficients, matrices, strict=True):
            term = xp.asarray(c, dtype=m.dtype) * m
            total = term if total is None else total + term
        assert total is not None
        return total


def _t1(t: _Taylor, a: Array) -> Array:
    """I + A. Torch: compute_T1."""
    return t.total(t.powers(a, 2))


def _t2(t: _Taylor, a: Array) -> Array:
    """I + A + A^2 / 2. Torch: compute_T2."""
    identity, a1, a2 = t.powers(a, 3)
    return t.total([identity, a1, a2 / t.xp.asarray(2.0, dtype=a.dtype)])


def _t4(t: _Taylor, a: Array) -> Array:
    """I + A + A^2 (I/2 + A/6 + A^2/24). Torch: compute_T4."""
    p = t.powers(a, 3)
    tail = t.matmul(p[2], t.combination(t.coefficients(1 / 2.0, 1 / 6.0, 1 / 24.0), p))
    return t.combination(t.coefficients(1.0, 1.0, 0.0, 1.0), [*p, tail])


def _t8(t: _Taylor, a: Array) -> Array:
    """The degree-8 polynomial with three products. Torch: compute_T8."""
    c = _t8_coefficients(t.constant)
    identity, a1, a2 = t.powers(a, 3)
    a4 = t.matmul(a2, t.combination(t.coefficients(c["x1"], c["x2"]), [a1, a2]))
    a8 = t.matmul(
        t.combination(t.coefficients(c["x3"], 1.0), [a2, a4]),
        t.combination(t.coefficients(c["x4"], c["x5"], c["x6"], c["x7"]), [identity, a1, a2, a4]),
    )
    return t.combination(t.coefficients(1.0, 1.0, c["y2"], 0.0, 1.0), [identity, a1, a2, a4, a8])


def _t12(t: _Taylor, a: Array) -> Array:
    """The degree-12 polynomial with four products: B_0 + (B_1 + B_2 + B_3^2)(B_2 + B_3^2).
    Torch: compute_T12."""
    p = t.powers(a, 4)
    b = [t.combination(row, p) for row in t.table(_T12_B)]
    b2 = b[2] + t.matmul(b[3], b[3])
    return b[0] + t.matmul(b[1] + b2, b2)


def _t18(t: _Taylor, a: Array) -> Array:
    """The degree-18 polynomial with five products: with A9 = B_0 B_4,
    B_1 + (B_2 + B_3 + A9)(B_3 + A9). Torch: compute_T18."""
    p = t.powers(a, 5)
    b = [t.combination(row, p) for row in t.table(_T18_B)]
    b3 = b[3] + t.matmul(b[0], b[4])
    return b[1] + t.matmul(b[2] + b3, b3)


# The polynomials below degree 18, in the order of the thresholds.
_TAYLOR: Final = (_t1, _t2, _t4, _t8, _t12)


def _t18_scale_square(t: _Taylor, a: Array, norm: Array, theta: float) -> Array:
    """exp of each matrix of `a` (batch, n, n): scaled by 2^-s with s = max(0,
    ceil(log2(norm / theta))), the degree-18 polynomial, then squared s times.

    Torch: compute_T18_scale_square (which sorts the batch by s to square matrices together;
    each matrix gets the same products). norm / theta and log2 compute in the opmath dtype.
    """
    xp = t.xp
    wide = t.opmath if t.opmath is not None else norm.dtype
    quotient = xp.astype(
        xp.astype(norm, wide) / xp.asarray(t.constant(theta), dtype=wide), norm.dtype
    )
    exponent = xp.astype(xp.log2(xp.astype(quotient, wide)), norm.dtype)
    s = xp.clip(xp.ceil(exponent), min=0)
    scale = xp.astype(xp.pow(xp.asarray(2.0, dtype=wide), -xp.astype(s, wide)), norm.dtype)
    result = _t18(t, a * xp.astype(xp.reshape(scale, (-1, 1, 1)), a.dtype))
    # torch converts s to int64 to count the squarings: a NaN or infinite s (a norm that is)
    # becomes INT64_MIN there, so that matrix (NaN already) is not squared.
    squarings = xp.where(xp.isfinite(s), s, xp.zeros_like(s))
    count = int(xp.max(squarings)) if s.shape[0] else 0
    squarings = xp.reshape(squarings, (-1, 1, 1))
    for k in range(count):
        result = xp.where(squarings > k, t.matmul(result, result), result)
    return result


def matrix_exp_array(t: _Taylor, a: Array) -> Array:
    """exp of the matrices of `a` (batch, n, n), n >= 2, by torch's algorithm.

    Torch: mexp_impl. See Note [Matrix exponential].
    """
    xp = t.xp
    thetas = _THETAS[t.precision.thresholds]
    norm = t.one_norm(a)
    if a.shape[0] != 1:
        return _t18_scale_square(t, a, norm, thetas[-1])
    value = float(norm[0])
    bounds = [t.threshold(theta) for theta in thetas]
    # torch: the interval (thetas[i - 1], thetas[i]] takes degree i; a NaN norm falls in none
    # and gives NaN everywhere.
    result = xp.full_like(a, math.nan)
    lower = -1.0
    for taylor, upper in zip(_TAYLOR, bounds[:-1], strict=True):
        if lower < value <= upper:
            result = taylor(t, a)
        lower = upper
    if value >= bounds[-2]:
        result = _t18_scale_square(t, a, norm, thetas[-1])
    return result


# --- linalg_matrix_exp -----------------------------------------------------------------------


def _check_matrix_exp(self: TensorImpl) -> None:
    square_check_inputs(self, "linalg.matrix_exp")
    check_floating_or_complex(self, "linalg.matrix_exp")


linalg_matrix_exp = defop("linalg_matrix_exp(Tensor self) -> Tensor")


@registered(linalg_matrix_exp)
def linalg_matrix_exp_kernel(self: TensorImpl) -> Any:
    """exp(A) for each square matrix A of `self`: a clone for 0x0 matrices, the elementwise
    exp for 1x1, torch's Taylor polynomials otherwise (see Note [Matrix exponential]).

    Torch: linalg_matrix_exp in LinearAlgebra.cpp; its Meta kernel gives a contiguous result.
    """
    _check_matrix_exp(self)
    device, backend = self._storage.device, self._storage.backend
    if not has_data(self):
        return empty_tensor(self._size, self._dtype, device, backend)
    n = self._size[-1]
    if n == 0:
        return aten.clone.default(self)
    if n == 1:
        return aten.exp.default(self)
    assert backend is not None  # has_data
    xp = backend.xp
    precision = _PRECISION.get(self._dtype.name)
    if precision is None:
        # torch: complex32 reaches the products, which have no case for it.
        raise not_implemented("bmm", self._dtype)
    a = xp.reshape(array_of(self), (geometry.numel(self._size[:-2]), n, n))
    t = _Taylor(xp, a.dtype, self._dtype.to_real(), precision, backend)
    result = empty_tensor(self._size, self._dtype, device, backend)
    write_array(result, xp.reshape(matrix_exp_array(t, a), self._size))
    return result


def _adjoint(t: Any) -> Any:
    """The conjugate transpose of the last two dims. Torch: Tensor.mH (transpose, then conj
    for complex tensors)."""
    transposed = aten.transpose.int(t, -2, -1)
    return aten.conj.default(transposed) if t._dtype.is_complex else transposed


def matrix_exp_differential(self: Tensor, grad: Tensor, adjoint: bool) -> Tensor:
    """The differential of exp at `self` applied to `grad` (its adjoint for the backward):
    the top-right block of exp([[A, G], [0, A]]).

    Torch: linalg_matrix_exp_differential in FunctionsManual.cpp (A = self.mH() for the
    adjoint).
    """
    n = self._size[-1]
    a = _adjoint(self) if adjoint else self
    top = aten.cat.default([a, grad], -1)
    bottom = aten.cat.default([aten.zeros_like.default(a), a], -1)
    block = aten.linalg_matrix_exp.default(aten.cat.default([top, bottom], -2))
    return aten.slice.Tensor(aten.slice.Tensor(block, -2, 0, n), -1, n, 2 * n)


@linalg_matrix_exp.derivative("self")
def linalg_matrix_exp_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: linalg_matrix_exp_differential(self, grad, /*adjoint*/ true)
    return matrix_exp_differential(self, grad, adjoint=True)


linalg_matrix_exp_out = defop("linalg_matrix_exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@registered(linalg_matrix_exp_out)
def linalg_matrix_exp_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: linalg_matrix_exp.out, generated for CompositeExplicitAutograd (the functional
    result, out resized, its dtype checked, then copied)."""
    result = aten.linalg_matrix_exp.default(self)
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {result._dtype.name}, but got {out._dtype.name} "
            "instead"
        )
    _resize_out(out, result._size)
    return aten.copy_.default(out, result)


matrix_exp = defop("matrix_exp(Tensor self) -> Tensor")


@matrix_exp.decomposition
def matrix_exp_decomposition(self: TensorImpl) -> Any:
    """Torch: matrix_exp, the alias of linalg_matrix_exp."""
    return aten.linalg_matrix_exp.default(self)


matrix_exp_backward = defop("matrix_exp_backward(Tensor self, Tensor grad) -> Tensor")


@matrix_exp_backward.decomposition
def matrix_exp_backward_decomposition(self: TensorImpl, grad: TensorImpl) -> Any:
    """The top-right block of exp([[A^H, G], [0, A^H]]), built by copies into zeros.

    Torch: matrix_exp_backward (backward_analytic_function_of_a_matrix) in LinearAlgebra.cpp.
    """
    square_check_inputs(self, "matrix_exp_backward")
    transposed = _adjoint(self)
    n = transposed._size[-1]
    size = list(transposed._size)
    size[-2] *= 2
    size[-1] *= 2
    block = aten.zeros.default(size, dtype=grad._dtype, device=grad._storage.device)
    for rows, columns, source in ((0, 0, transposed), (n, n, transposed), (0, n, grad)):
        window = aten.slice.Tensor(
            aten.slice.Tensor(block, -2, rows, rows + n), -1, columns, columns + n
        )
        aten.copy_.default(window, source)
    result = aten.linalg_matrix_exp.default(block)
    return aten.slice.Tensor(aten.slice.Tensor(result, -2, 0, n), -1, n, 2 * n)
