"""Backends: what an Array API library must offer refimpl, and how plugins are found.

Torch: a backend is what c10 calls a DeviceType with its allocator and kernels (CPU, CUDA,
PrivateUse1). Here a backend is a plugin that maps a device type to an Array API namespace
`xp` and says what that library can do. Plugins are found through the `refimpl.backends`
entry-point group, so a third-party package plugs in exactly as the built-in ones do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Final, Protocol, TypeAlias, runtime_checkable

from refimpl._base.dtypes import DType

# An array of the backend's library, and its Array API namespace. Kernels are written against
# these names; no backend type leaks into refimpl.
Array: TypeAlias = Any
ArrayNamespace: TypeAlias = Any

ENTRY_POINT_GROUP = "refimpl.backends"


@runtime_checkable
class RandomSource(Protocol):
    """A backend's stream of raw 32-bit random words, read in bulk.

    Torch: the engine behind torch.Generator: at::mt19937 on CPU (CPUGeneratorImpl's
    `random()`), Philox on CUDA. refimpl turns the words into each distribution itself
    (refimpl/core/random.py), as torch's kernels do. A backend serving the CPU device must
    give the mt19937 stream: its state bytes are `MT19937_STATE_BYTES` long, the 624 state
    words then the read position (0..624, 624: twist before the next word), each a
    little-endian uint32; `set_state` with such bytes continues torch's stream exactly.
    Other backends may give their own library's stream with opaque state bytes.
    """

    def random_raw(self, n: int) -> Array:
        """The next `n` words, in order, as a 1-D uint32 array."""
        ...

    def get_state(self) -> bytes: ...

    def set_state(self, state: bytes) -> None: ...


# The state layout of a CPU backend's mt19937 source: 624 words and the read position.
MT19937_STATE_BYTES: Final = 625 * 4


@runtime_checkable
class Backend(Protocol):
    """What refimpl needs from an array library to store tensors and run kernels on it.

    Torch: the per-device pieces of c10 (allocator, copy, DeviceType). Everything a kernel
    computes goes through `xp`, the library's Array API namespace; the methods below cover
    what the standard does not define (strided views, in-place strided writes, host
    conversion, random numbers).
    """

    name: str
    """The plugin's name, as used in `refimpl.config.backends` (`"numpy"`)."""
    device_type: str
    """The device type it serves (`"cpu"`, `"cuda"`)."""
    xp: ArrayNamespace
    """The Array API namespace kernels compute with."""
    array_dtypes: Mapping[DType, Any]
    """refimpl dtype -> the library's dtype object, for every dtype the library stores."""
    supports_strided_views: bool
    """`as_strided` gives a zero-copy view of a flat array."""
    supports_inplace: bool
    """`write_strided` writes into an existing array in place."""
    supports_bitcast: bool
    """`bitcast` reinterprets an array's bytes as another dtype (dtype views need it)."""
    extensions: Mapping[str, Callable[..., Array]]
    """Array functions outside the Array API standard, by name (`"erf"`, `"fmod"`, ...):
    see `EXTENSION_NAMES`. A backend lists only those it has."""

    def as_strided(
        self, flat: Array, size: Sequence[int], stride: Sequence[int], offset: int
    ) -> Array:
        """A zero-copy view of the 1-D `flat` (only if `supports_strided_views`)."""
        ...

    def write_strided(
        self, flat: Array, size: Sequence[int], stride: Sequence[int], offset: int, values: Array
    ) -> None:
        """Write `values` (of shape `size`) through a strided view of `flat`, in place."""
        ...

    def bitcast(self, flat: Array, dtype: Any) -> Array:
        """The 1-D contiguous `flat` with its bytes read as the library dtype `dtype`
        (only if `supports_bitcast`): a zero-copy view where the library has one, so that
        writes through it land in `flat` when `supports_inplace`.

        Torch: no counterpart; torch's storage is untyped bytes (Tensor.view(dtype)).
        """
        ...

    def flatten(self, array: Array) -> Array:
        """`array` as 1-D in row-major order: a view when it is contiguous, else a copy.

        The Array API's `reshape(array, (-1,))`; a plugin may answer faster than the
        standard wrapper (tensor creation calls this once per result).
        """
        ...

    def strided_source(self, array: Array) -> tuple[Array, tuple[int, ...]] | None:
        """Without a copy: a 1-D array over `array`'s memory from its first element, and the
        element strides of `array` inside it; None if the library cannot give one.

        `from_numpy` uses it to share memory with strided arrays as torch does.
        """
        ...

    def from_host(self, data: object) -> Array:
        """An array from host data: an array of this or another library, anything with
        `__array__` or `__dlpack__`, or a scalar of the library (e.g. `numpy.float32`)."""
        ...

    def to_host(self, array: Array) -> Any:
        """A host (NumPy) array with the array's values, sharing memory where it can."""
        ...

    def tolist(self, array: Array) -> Any:
        """Nested Python lists of Python scalars (a scalar for a 0-d array)."""
        ...

    def dtype_of(self, array_or_scalar: object) -> DType | None:
        """The refimpl dtype of an array or library scalar, or None if it is not one."""
        ...

    def random(self, seed: int) -> RandomSource:
        """A new random source seeded with `seed` (CPU backends: an mt19937 source, whose
        state refimpl sets with torch's seeding through `set_state`)."""
        ...


@dataclass(slots=True)
class BackendRegistry:
    """The backends that plugins provide, loaded on first use.

    Torch: the set of compiled-in DeviceTypes plus PrivateUse1 registrations.
    """

    factories: dict[str, Callable[[], Backend]] = field(default_factory=dict)
    loaded: dict[str, Backend] = field(default_factory=dict)
    _scanned: bool = False

    def register(self, name: str, factory: Callable[[], Backend]) -> None:
        """Add a backend by name; `factory` is called once, on first use."""
        self.factories[name] = factory
        self.loaded.pop(name, None)

    def names(self) -> list[str]:
        self._scan()
        return sorted(self.factories)

    def get(self, name: str) -> Backend:
        """The backend called `name`, importing its library on first use."""
        backend = self.loaded.get(name)
        if backend is not None:
            return backend
        self._scan()
        factory = self.factories.get(name)
        if factory is None:
            known = ", ".join(sorted(self.factories)) or "none"
            raise RuntimeError(
                f"refimpl: no backend named '{name}' is installed (known backends: {known}). "
                f"Backends are found through the '{ENTRY_POINT_GROUP}' entry-point group."
            )
        try:
            backend = factory()
        except ImportError as error:
            raise RuntimeError(
                f"refimpl: the '{name}' backend could not be loaded ({error}); install its "
                f"array library (for cupy: pip install 'refimpl[cuda12]' or 'refimpl[cuda13]')"
            ) from error
        self.loaded[name] = backend
        BY_NAMESPACE[id(backend.xp)] = backend
        return backend

    def _scan(self) -> None:
        if self._scanned:
            return
        self._scanned = True
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            # A plugin registered in code wins over an entry point of the same name.
            self.factories.setdefault(ep.name, _entry_point_factory(ep.value, ep.load))


def _entry_point_factory(value: str, load: Callable[[], Any]) -> Callable[[], Backend]:
    def factory() -> Backend:
        loaded = load()
        backend = loaded() if callable(loaded) and not isinstance(loaded, Backend) else loaded
        if not isinstance(backend, Backend):
            raise TypeError(f"refimpl: the entry point {value} did not give a Backend")
        return backend

    return factory


REGISTRY = BackendRegistry()

# The loaded backends by the identity of their namespace, so a kernel holding `xp` finds the
# extensions of the backend it runs on.
BY_NAMESPACE: dict[int, Backend] = {}


def extension(xp: ArrayNamespace, name: str) -> Callable[..., Array]:
    """The backend's function `name`, which the Array API standard lacks, or an error naming
    the backend and the function.

    Kernels call it for special functions (erf, lgamma, zeta, Bessel functions, ...) and the
    few elementwise functions outside the standard (fmod, frexp, ldexp, nextafter).
    """
    backend = BY_NAMESPACE.get(id(xp))
    found = None if backend is None else backend.extensions.get(name)
    if found is None:
        owner = "this" if backend is None else f"the '{backend.name}'"
        raise NotImplementedError(
            f"refimpl: {owner} backend has no '{name}' (a function outside the Array API "
            "standard that the backend must supply; see refimpl.core.backend.EXTENSION_NAMES)"
        )
    return found


# The extension functions refimpl's kernels may ask a backend for, with their meaning; each
# takes and returns arrays of the backend, elementwise, like scipy.special's functions.
EXTENSION_NAMES: Final[dict[str, str]] = {
    "fmod": "C fmod: remainder with the sign of the dividend",
    # Without it refimpl composes it from the standard (refimpl.ops._complex_parts).
    "complex": "the complex number real + i*imag, exact for infinite and NaN parts",
    "frexp": "mantissa and exponent (a pair of arrays), as C frexp",
    "ldexp": "x * 2**n, as C ldexp",
    "nextafter": "the next float after x towards y",
    # torch's scalar CPU code calls the C library; NumPy's vector loops round differently.
    "libm_log": "C log of float64 x as the platform's libm computes it",
    "libm_log1p": "C log1p of float64 x as the platform's libm computes it",
    "libm_pow": "C pow(x, y) of float64 x and y as the platform's libm computes it",
    "erf": "error function",
    "erfc": "complementary error function",
    "erfinv": "inverse error function",
    "erfcx": "scaled complementary error function",
    "lgamma": "log |Gamma(x)|",
    "digamma": "psi(x)",
    "polygamma": "polygamma(n, x)",
    "zeta": "Hurwitz zeta(x, q)",
    "gammainc": "regularized lower incomplete gamma",
    "gammaincc": "regularized upper incomplete gamma",
    "i0": "modified Bessel I0",
    "i0e": "exponentially scaled I0",
    "i1": "modified Bessel I1",
    "i1e": "exponentially scaled I1",
    "k0": "modified Bessel K0",
    "k0e": "scaled K0",
    "k1": "modified Bessel K1",
    "k1e": "scaled K1",
    "j0": "Bessel J0",
    "j1": "Bessel J1",
    "y0": "Bessel Y0",
    "y1": "Bessel Y1",
    "ndtr": "standard normal CDF",
    "ndtri": "inverse standard normal CDF",
    "log_ndtr": "log of the standard normal CDF",
    "airy_ai": "Airy Ai",
    "spherical_j0": "spherical Bessel j0",
    "multigammaln": "log multivariate gamma (x, p)",
    "sinc": "normalized sinc",
    "entr": "-x log x",
    "xlogy": "x log y",
    "xlog1py": "x log1p(y)",
    # Scatter (refimpl.ops._scatter): fn(target, positions, values) -> a new 1-D array with
    # values written or combined at int64 positions in index order; without one, refimpl
    # composes it from the standard.
    "scatter_set": "target with values written at positions (the last of duplicates wins)",
    "scatter_sum": "target with values added at positions",
    "scatter_prod": "target with values multiplied in at positions",
    "scatter_amax": "target with the NaN-propagating maximum taken at positions",
    "scatter_amin": "target with the NaN-propagating minimum taken at positions",
    # Linear algebra (refimpl.ops.linalg_solve): LAPACK's factorizations and solvers, each on
    # batches of matrices (..., m, n) in the input's dtype; pivots are LAPACK's (1-based,
    # int32) and info LAPACK's per matrix (int32, the batch's shape). Without lu_factor,
    # lu_solve, cholesky_ex or solve_triangular refimpl composes them from the standard
    # (refimpl.ops._linalg_standard: unblocked, slower).
    "lu_factor": "getrf: (packed LU, pivots, info) of A = P L U with partial pivoting",
    "lu_solve": "getrs: X with op(A) X = B from (LU, pivots), op A, A^T, A^H for trans 0, 1, 2",
    "cholesky_ex": "potrf: (factor, info); upper: A = U^H U, else A = L L^H; one triangle read",
    "solve_triangular": "trsm: X with op(A) X = B, A (upper) triangular, unit diagonal optional",
    "ldl_factor": "sytrf/hetrf (lower): (compact LD, Bunch-Kaufman pivots, info)",
    "ldl_solve": "sytrs/hetrs (lower): X with A X = B from (LD, pivots)",
    "lstsq": "gels/gelsy/gelsd/gelss: (overwritten B with max(m, n) rows, rank, singular values)",
    # Eigendecomposition of general matrices (refimpl.ops.linalg_spectral): complex results
    # whatever the input (real or complex), batched.
    "linalg_eig": "geev: (eigenvalues, right eigenvectors of norm 1), complex",
    "linalg_eigvals": "geev without vectors: the eigenvalues, complex",
    # More of the C library's double functions (see libm_log): torch's serial CPU
    # distribution kernels call them (cauchy_, log_normal_: refimpl/ops/_distributions_draw.py).
    "libm_exp": "C exp of float64 x as the platform's libm computes it",
    "libm_tan": "C tan of float64 x as the platform's libm computes it",
    "libm_sin": "C sin of float64 x as the platform's libm computes it",
    "libm_cos": "C cos of float64 x as the platform's libm computes it",
}


def missing_dtype(backend: Backend, dtype: DType) -> TypeError:
    """The error for a dtype the backend's library cannot store."""
    stored = ", ".join(d.name for d in backend.array_dtypes)
    return TypeError(
        f"refimpl: the '{backend.name}' backend ({backend.device_type}) has no dtype "
        f"{dtype.name}; it stores {stored}"
    )
