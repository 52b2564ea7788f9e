"""How a tensor prints (`repr(t)`, `str(t)`), and the print options that shape it.

Torch: torch/_tensor_str.py (`_str`, `set_printoptions`, `get_printoptions`, `printoptions`).
A printed tensor is a prefix (`tensor(`), the values laid out as nested brackets, and
suffixes (`device=`, `size=`, `dtype=`, `grad_fn=` or `requires_grad=`). See
Note [How values are formatted] and Note [What a summarised tensor shows].
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeAlias, cast

from refimpl._base import device as devices
from refimpl._base.dtypes import DType, bool_, complex64, complex128, float64, int64
from refimpl._base.promotion import get_default_dtype

# --- print options -----------------------------------------------------------------------


@dataclass(slots=True)
class PrintOptions:
    """The options every tensor print reads. Torch: torch._tensor_str.PRINT_OPTS.

    `threshold` is compared with the element count, so it may be `math.inf` ("full").
    `sci_mode` None lets each print choose fixed or scientific notation from its values.
    """

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


@dataclass(frozen=True, slots=True)
class _Profile:
    precision: int
    threshold: float
    edgeitems: int
    linewidth: int


# torch: set_printoptions in torch/_tensor_str.py. An unknown profile name changes nothing.
PROFILES: Final[dict[str, _Profile]] = {
    "default": _Profile(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": _Profile(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": _Profile(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}

# The one options object, mutated in place by set_printoptions (process-wide, as in torch).
PRINT_OPTIONS: Final = PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print: a profile first, then each option that is not None.

    Torch: torch.set_printoptions. `sci_mode` is always assigned, so any call without it
    returns to choosing the notation automatically.
    """
    options = PRINT_OPTIONS
    chosen = PROFILES.get(profile) if profile is not None else None
    if chosen is not None:
        options.precision = chosen.precision
        options.threshold = chosen.threshold
        options.edgeitems = chosen.edgeitems
        options.linewidth = chosen.linewidth
    if precision is not None:
        options.precision = precision
    if threshold is not None:
        options.threshold = threshold
    if edgeitems is not None:
        options.edgeitems = edgeitems
    if linewidth is not None:
        options.linewidth = linewidth
    options.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for `set_printoptions`.

    Torch: torch._tensor_str.get_printoptions.
    """
    return dataclasses.asdict(PRINT_OPTIONS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Set print options for the duration of a `with` block.

    Torch: torch._tensor_str.printoptions.
    """
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --- what a tensor must offer to be printed --------------------------------------------


class GradFn(Protocol):
    """An autograd node as printing sees it. Torch: torch.autograd.graph.Node.name()."""

    def name(self) -> str: ...


class PrintableTensor(Protocol):
    """The tensor attributes and methods printing reads. Torch: torch.Tensor."""

    @property
    def dtype(self) -> DType: ...

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def device(self) -> devices.device: ...

    @property
    def is_meta(self) -> bool: ...

    @property
    def requires_grad(self) -> bool: ...

    @property
    def grad_fn(self) -> GradFn | None: ...

    def dim(self) -> int: ...

    def numel(self) -> int: ...

    def tolist(self) -> object: ...

    def select(self, dim: int, index: int, /) -> PrintableTensor: ...

    def narrow(self, dim: int, start: int, length: int, /) -> PrintableTensor: ...


# Tensor classes printed as `tensor(...)`; a subclass prints its own class name instead.
# api/tensor.py registers refimpl.Tensor, nn registers Parameter.
_PLAIN_TENSOR_TYPES: Final[set[type]] = set()


def print_as_plain_tensor(cls: type) -> None:
    """Print instances of exactly `cls` with the prefix `tensor(`.

    Torch: `is_plain_tensor` in _str_intern (torch.Tensor and nn.Parameter).
    """
    _PLAIN_TENSOR_TYPES.add(cls)


# Tensor classes printed like meta tensors (`...` for values, `size=` always) whatever their
# device; refimpl._subclasses registers FakeTensor.
_VALUELESS_TENSOR_TYPES: Final[list[type]] = []


def print_without_values(cls: type) -> None:
    """Print instances of `cls` (and its subclasses) as meta tensors: no values, `size=`.

    Torch: `is_meta = self.is_meta or isinstance(self, FakeTensor)` in _str_intern.
    """
    _VALUELESS_TENSOR_TYPES.append(cls)


# --- which values are shown --------------------------------------------------------------

# Note [What a summarised tensor shows]
# A tensor with more than `threshold` elements is summarised: along every dimension longer
# than 2 * edgeitems only the first and last `edgeitems` slices are shown, with `...`
# between them (torch: _tensor_str_with_formatter and get_summarized_data). The formatter
# widths come from the shown values only. We read those values with select/narrow and
# `tolist` on the small pieces, so printing a 10^6-element tensor reads a few dozen values.
# With edgeitems == 0 a summarised tensor shows just `[...]`.

_Scalar: TypeAlias = bool | int | float | complex


@dataclass(frozen=True, slots=True)
class _Vector:
    """The shown part of a 1-d slice: `head`, then `...` and `tail` when it is cut."""

    head: list[_Scalar]
    tail: list[_Scalar] | None


@dataclass(frozen=True, slots=True)
class _Block:
    """The shown part of a slice with two or more dims: sub-slices, cut like `_Vector`."""

    head: list[_Vector | _Block]
    tail: list[_Vector | _Block] | None


_Shown: TypeAlias = _Vector | _Block


def _from_list(data: object, dim: int) -> _Shown:
    # `tolist` of a tensor with `dim` >= 1 dims: `dim` levels of lists, scalars innermost.
    rows = cast(list[object], data)
    if dim == 1:
        return _Vector(cast(list[_Scalar], rows), None)
    return _Block([_from_list(row, dim - 1) for row in rows], None)


def _gather(t: PrintableTensor, summarize: bool, edgeitems: int) -> _Shown:
    # `t` has at least one dim and at least one element.
    shape = t.shape
    if not summarize or all(size <= 2 * edgeitems for size in shape):
        return _from_list(t.tolist(), len(shape))
    length = shape[0]
    if len(shape) == 1:
        if edgeitems == 0:
            return _Vector([], [])
        head = cast(list[_Scalar], t.narrow(0, 0, edgeitems).tolist())
        tail = cast(list[_Scalar], t.narrow(0, length - edgeitems, edgeitems).tolist())
        return _Vector(head, tail)
    if length <= 2 * edgeitems:
        return _Block([_gather(t.select(0, i), summarize, edgeitems) for i in range(length)], None)
    return _Block(
        [_gather(t.select(0, i), summarize, edgeitems) for i in range(edgeitems)],
        [_gather(t.select(0, i), summarize, edgeitems) for i in range(length - edgeitems, length)],
    )


def _shown_values(shown: _Shown) -> Iterator[_Scalar]:
    if isinstance(shown, _Vector):
        yield from shown.head
        yield from shown.tail or ()
        return
    for part in shown.head + (shown.tail or []):
        yield from _shown_values(part)


# --- how values are formatted ------------------------------------------------------------

# Note [How values are formatted]
# torch: _Formatter in torch/_tensor_str.py. One formatter serves a whole tensor (complex
# tensors get one for the real parts and one for the imaginary parts), so that columns line
# up: every value is right-aligned to the widest shown value.
# - bool and integer values print as Python prints them.
# - Floating values pick a mode from the finite nonzero shown values (zeros, inf and nan
#   never influence it): scientific if the user asked for it, or, when `sci_mode` is None,
#   if max/min > 1000, max > 1e8 or min < 1e-4 (of absolute values); otherwise "integral"
#   (`3.`) if all of them are whole numbers, else fixed with `precision` decimals.
# - With no finite nonzero value at all the mode is integral even if `sci_mode` is True,
#   and the width is 1 (so `0.`, `-0.`, `inf` print unpadded).
# - Widths are measured on finite nonzero values only, so a wider `-inf`, `nan` or `-0.`
#   sticks out instead of widening the column.
# Values are the Python floats of the stored values (float16/float32 widened exactly).


class _Mode(enum.Enum):
    """How a formatter writes one value."""

    PLAIN = enum.auto()  # bool and integer dtypes: str(value)
    INTEGRAL = enum.auto()  # floats that are all whole: `3.`, `-0.`, `inf`
    FIXED = enum.auto()  # `{:.4f}`
    SCIENTIFIC = enum.auto()  # `{:.4e}`


def _write_integral(value: float, precision: int) -> str:
    text = f"{value:.0f}"
    return text + "." if math.isfinite(value) else text


_WRITERS: Final[dict[_Mode, Callable[[float, int], str]]] = {
    _Mode.PLAIN: lambda value, precision: f"{value}",
    _Mode.INTEGRAL: _write_integral,
    _Mode.FIXED: lambda value, precision: f"{value:.{precision}f}",
    _Mode.SCIENTIFIC: lambda value, precision: f"{value:.{precision}e}",
}


@dataclass(frozen=True, slots=True)
class _Formatter:
    """Writes the values of one tensor (or of its real or imaginary parts) in one column width.

    Torch: torch._tensor_str._Formatter.
    """

    mode: _Mode
    width: int
    precision: int

    def format(self, value: float) -> str:
        return _WRITERS[self.mode](value, self.precision).rjust(self.width)


def _make_formatter(values: list[float], floating: bool, options: PrintOptions) -> _Formatter:
    precision = options.precision
    if not floating:
        width = max((len(f"{value}") for value in values), default=1)
        return _Formatter(_Mode.PLAIN, max(width, 1), precision)
    finite = [value for value in values if value != 0 and math.isfinite(value)]
    if not finite:
        return _Formatter(_Mode.INTEGRAL, 1, precision)
    sci_mode = options.sci_mode
    if sci_mode is None:
        largest = max(abs(value) for value in finite)
        smallest = min(abs(value) for value in finite)
        sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
    if sci_mode:
        mode = _Mode.SCIENTIFIC
    elif all(value.is_integer() for value in finite):
        mode = _Mode.INTEGRAL
    else:
        mode = _Mode.FIXED
    write = _WRITERS[mode]
    width = max(len(write(value, precision)) for value in finite)
    return _Formatter(mode, max(width, 1), precision)


@dataclass(frozen=True, slots=True)
class _ValueWriter:
    """Writes one element: a real value with `real`, a complex one as `real+imagj`."""

    real: _Formatter
    imag: _Formatter | None

    @property
    def element_width(self) -> int:
        # The width one element takes on a line, with its ", " separator.
        width = self.real.width + 2
        return width if self.imag is None else width + self.imag.width + 1

    def write(self, value: _Scalar) -> str:
        if self.imag is None:
            return self.real.format(cast(float, value))
        number = complex(value)
        real = self.real.format(number.real)
        imag = (self.imag.format(number.imag) + "j").lstrip()
        # A negative (or -0.) imaginary part brings its own sign.
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _make_writer(values: list[_Scalar], dtype: DType, options: PrintOptions) -> _ValueWriter:
    if dtype.is_complex:
        numbers = [complex(value) for value in values]
        return _ValueWriter(
            _make_formatter([number.real for number in numbers], True, options),
            _make_formatter([number.imag for number in numbers], True, options),
        )
    reals = cast(list[float], values)
    return _ValueWriter(_make_formatter(reals, dtype.is_floating_point, options), None)


# --- layout --------------------------------------------------------------------------------


def _vector_str(shown: _Vector, indent: int, writer: _ValueWriter, options: PrintOptions) -> str:
    # torch: _vector_str in torch/_tensor_str.py
    items = [writer.write(value) for value in shown.head]
    if shown.tail is not None:
        # A vector cut to nothing (edgeitems == 0) is `[...]`; otherwise the ellipsis
        # takes an element's place with a leading space: `2,  ..., 7`.
        items = ["..."] if not items else items + [" ..."] + [writer.write(v) for v in shown.tail]
    per_line = max(1, math.floor((options.linewidth - indent) / writer.element_width))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _shown_str(
    shown: _Shown, dim: int, indent: int, writer: _ValueWriter, options: PrintOptions
) -> str:
    # torch: _tensor_str_with_formatter in torch/_tensor_str.py
    if isinstance(shown, _Vector):
        return _vector_str(shown, indent, writer, options)
    rows = [_shown_str(row, dim - 1, indent + 1, writer, options) for row in shown.head]
    if shown.tail is not None:
        rows.append("...")
        rows.extend(_shown_str(row, dim - 1, indent + 1, writer, options) for row in shown.tail)
    # Sub-blocks of a block with `dim` dims are separated by `dim - 2` blank lines.
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(rows) + "]"


def _values_str(t: PrintableTensor, indent: int, options: PrintOptions) -> str:
    # torch: _tensor_str in torch/_tensor_str.py; `t` has at least one element.
    if t.dim() == 0:
        value = cast(_Scalar, t.tolist())
        return _make_writer([value], t.dtype, options).write(value)
    shown = _gather(t, t.numel() > options.threshold, options.edgeitems)
    writer = _make_writer(list(_shown_values(shown)), t.dtype, options)
    return _shown_str(shown, t.dim(), indent, writer, options)


# --- prefix and suffixes -----------------------------------------------------------------

# torch: `torch._C._get_default_device()`, which is "cpu" unless a CUDA default tensor type
# is set; refimpl has no default tensor type, so tensors on any other device print it.
_DEFAULT_DEVICE_TYPE: Final = "cpu"


def _has_default_dtype(dtype: DType) -> bool:
    # torch: `has_default_dtype` in _str_intern. Values of these dtypes are what a literal
    # of their kind produces, so the dtype needs no mention.
    default = get_default_dtype()
    default_complex = complex128 if default is float64 else complex64
    return dtype is default or dtype is default_complex or dtype is int64 or dtype is bool_


def _add_suffixes(text: str, suffixes: list[str], indent: int, linewidth: int) -> str:
    # torch: _add_suffixes in torch/_tensor_str.py. A suffix that would pass the line width
    # starts a new line, indented to the values. The length bookkeeping is torch's (the last
    # line's length plus 2).
    parts = [text]
    last_line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_length + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_length += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_str(t: PrintableTensor) -> str:
    """The text of `repr(t)` and `str(t)`: `tensor(<values>, <suffixes>)`.

    Torch: torch._tensor_str._str (Tensor.__repr__). Suffixes, in order: `device=` when not
    on the CPU; for meta tensors `size=` and `dtype=` unless the default float dtype, with
    `...` for values; for empty tensors `size=` unless 1-d and `dtype=` unless the default
    float dtype; otherwise `size=` when edgeitems is 0 and `dtype=` unless the dtype is
    implied by the values (see `_has_default_dtype`); then `grad_fn=<Name>` or
    `requires_grad=True`.
    """
    options = PRINT_OPTIONS
    prefix = "tensor(" if type(t) in _PLAIN_TENSOR_TYPES else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes: list[str] = []
    if t.device.type != _DEFAULT_DEVICE_TYPE:
        suffixes.append(f"device='{t.device}'")
    dtype = t.dtype
    size_suffix = f"size={tuple(t.shape)}"
    dtype_suffix = f"dtype={dtype}"
    if t.is_meta or (_VALUELESS_TENSOR_TYPES and isinstance(t, tuple(_VALUELESS_TENSOR_TYPES))):
        suffixes.append(size_suffix)
        if dtype is not get_default_dtype():
            suffixes.append(dtype_suffix)
        values = "..."
    elif t.numel() == 0:
        # Like NumPy, an empty tensor shows its shape unless it is (0,), and its dtype
        # unless the default: there are no values to tell an integer tensor apart.
        if t.dim() != 1:
            suffixes.append(size_suffix)
        if dtype is not get_default_dtype():
            suffixes.append(dtype_suffix)
        values = "[]"
    else:
        if not options.edgeitems:
            suffixes.append(size_suffix)
        if not _has_default_dtype(dtype):
            suffixes.append(dtype_suffix)
        values = _values_str(t, indent, options)
    grad_fn = t.grad_fn
    if grad_fn is not None:
        # C++ nodes are named with their namespace (`torch::autograd::AddBackward0`).
        suffixes.append(f"grad_fn=<{grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + values, suffixes, indent, options.linewidth)
