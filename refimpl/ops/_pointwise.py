"""`pointwise`: one declaration registers an elementwise op's functional, in-place and out= forms.

Torch: a structured kernel family of native_functions.yaml (`add.Tensor`, `add_.Tensor`,
`add.out` sharing one meta function and one kernel), with its Scalar overloads. What an op
declares is only what differs between ops: its schema, its TensorIterator builder (how dtypes
promote), its Array API expression per dtype group, the checks its meta function makes, and
(from spec/kernel_dtypes.json, extracted from torch) which dtypes torch's CPU kernel accepts and
torch's error for the others. Everything shared (broadcasting, promotion, devices, layout,
`out=` resizing and casting, overlap checks) is TensorIterator's, in `_iterator.py`.

    add = pointwise("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                    Builder.BINARY_OP, scalar=("add.Scalar(...) -> Tensor",))

    @add.compute
    def add_compute(xp, self, other, *, alpha): ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, TypeVar, overload

from refimpl._base.dtypes import (
    DType,
    bfloat16,
    bool_,
    complex32,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from refimpl._base.keys import DispatchKey
from refimpl._base.spec import SpecOverload, kernel_dtype_facts, spec_overloads
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.schema import Argument, FunctionSchema, parse_schema
from refimpl.dispatch.table import OperatorEntry, specializable
from refimpl.ops._derivative import derivative
from refimpl.ops._iterator import CONFIGS, Builder, IterConfig, Plan, operands_key, plan
from refimpl.ops._iterator_run import Kernel, Runner, run, run_simple, simple_runner
from refimpl.ops._register import OpBlock, defop, defop_spec

F = TypeVar("F", bound=Callable[..., Any])

# A fast-path cache entry: the plan, its kernel (None where the dtype is refused) and, for a
# simple plan, its runner (see Note [Pointwise fast path]).
FastEntry = tuple[Plan, Kernel | None, Runner | None]

# Dtype groups for per-dtype kernels (`@op.compute(dtypes=COMPLEX)`). Torch: the AT_DISPATCH
# type groups (AT_DISPATCH_COMPLEX_TYPES, ...).
BOOL: Final = (bool_,)
INTEGRAL: Final = (uint8, int8, int16, int32, int64)
FLOATING: Final = (float16, bfloat16, float32, float64)
COMPLEX: Final = (complex32, complex64, complex128)
Check = Callable[..., Any]
Prepare = Callable[[Sequence[Any], TensorImpl | None, dict[str, Any]], Sequence[Any]]
"""Rewrites the operands before anything else (clamp drops absent bounds)."""
ConfigChoice = Callable[[dict[str, Any]], IterConfig]
"""Picks the iterator config from the non-operand arguments (div's rounding_mode)."""

# Note [Pointwise fast path]
# A call without out= whose iterator config is fixed caches, per op, the plan and kernel the
# general path chose for its operands' metadata (dtype, shape, strides, device, backend; the
# type of a Python number; the default dtype), and for a simple plan a runner
# (`_iterator_run.simple_runner`): run_simple with its per-operand decisions made. A repeated call
# looks the entry up and goes straight to the runner; errors are never cached, so a failing
# call fails the same way each time. Prechecks and checks still run on every call (they read
# argument values). The functional overload's registered kernel enters `functional` directly
# when the op has no prepares or prechecks, and then offers the dispatcher the runner with
# the call's checked arguments bound (`specialized`; Note [Specialized calls] in
# dispatch/overloads.py), so a Python operator's repeated call skips the dispatcher too.

# torch: structured kernels register per backend; one body serves CPU, CUDA and Meta here
# because TensorIterator answers Meta from metadata alone.
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)

# torch: the exception types of the TORCH_CHECK variants a dtype error may come from.
_ERRORS: Final[dict[str, type[Exception]]] = {
    "RuntimeError": RuntimeError,
    "NotImplementedError": NotImplementedError,
    "TypeError": TypeError,
    "ValueError": ValueError,
    "IndexError": IndexError,
}


def _signature(args: Iterable[Argument]) -> tuple[tuple[str, str], ...]:
    return tuple((a.name, str(a.type)) for a in args)


def _related(functional: FunctionSchema) -> tuple[SpecOverload | None, SpecOverload | None]:
    """The in-place (`name_`) and out= overloads torch pairs with a functional overload.

    Torch: structured kernel groups in native_functions.yaml; matched here by argument list,
    since names vary (pow.Tensor_Scalar pairs with pow_.Scalar and pow.Tensor_Scalar_out).
    """
    base = functional.name
    wanted = _signature(functional.arguments)
    inplace = out = None
    for item in spec_overloads().get(base + "_", ()):
        if _signature(parse_schema(item.schema).arguments) == wanted:
            inplace = item
    for item in spec_overloads().get(base, ()):
        schema = parse_schema(item.schema)
        args = schema.arguments
        outs = [a for a in args if a.kwarg_only and a.is_write]
        if outs and _signature(a for a in args if not (a.kwarg_only and a.is_write)) == wanted:
            out = item
    return inplace, out


class PointwiseOp:
    """An elementwise op family: its overloads, its iterator config and its kernels.

    Torch: one structured kernel group (functional, in-place, out) and its Scalar overloads.
    `operands` are the schema arguments TensorIterator iterates over (tensors and the Scalar
    of a Scalar overload); the other arguments reach checks and kernels by name.
    """

    def __init__(
        self,
        block: OpBlock,
        iter_config: IterConfig | ConfigChoice,
        operands: tuple[str, ...],
        opmath: bool = False,
    ) -> None:
        self.opmath = opmath
        self.scalar_first: frozenset[str] = frozenset()
        """Qualified overloads whose torch kernel hands the iterator its Scalar first:
        `mul_.Scalar` is `mul_out(self, wrapped_scalar_tensor(other), self)` (BinaryOps.cpp),
        so a float16 self is multiplied by the scalar as float16 holds it, not read in float32
        as the second operand of mul (IterConfig.reduced_scalar_opmath); measured."""
        self._opmath_kernels: dict[Kernel, Kernel] = {}
        self.block = block
        self.name = block.op._schema.name.partition("::")[2]
        self._config = iter_config
        self.operands = operands
        self.blocks: list[OpBlock] = []
        self._kernels: dict[DType, Kernel] = {}
        self._default_kernel: Kernel | None = None
        self._checks: list[Check] = []
        self._prechecks: list[Check] = []
        self._inplace_checks: list[Check] = []
        self._prepares: list[Prepare] = []
        facts = kernel_dtype_facts(block.op._schema.name, block.op._schema.overload_name)
        self._accepted = None if facts is None else facts.accepted
        self._errors = {} if facts is None else facts.errors
        self._fast: dict[tuple[object, ...], FastEntry] = {}
        # The functional kernels that offer specialized calls, with their entries.
        self._specializing: list[tuple[Kernel, OperatorEntry]] = []

    @property
    def op(self) -> Any:
        """The functional OpOverload (`refimpl.ops.aten.add.Tensor`)."""
        return self.block.op

    # --- declaration ---------------------------------------------------------------------

    @overload
    def compute(self, fn: F, *, dtypes: Iterable[DType] | None = None) -> F: ...

    @overload
    def compute(self, fn: None = None, *, dtypes: Iterable[DType]) -> Callable[[F], F]: ...

    def compute(self, fn: F | None = None, *, dtypes: Iterable[DType] | None = None) -> Any:
        """Register the Array API expression, for `dtypes` or for every other dtype.

        The kernel is called as `fn(xp, *operand_arrays, **other_arguments)`; arrays arrive
        cast to the common dtype (and permuted into the result's memory order, which an
        elementwise expression does not notice).
        """

        def register(kernel: F) -> F:
            if dtypes is None:
                self._default_kernel = kernel
            else:
                for dtype in dtypes:
                    self._kernels[dtype] = kernel
            return kernel

        return register(fn) if fn is not None else register

    def check(self, fn: Check) -> Check:
        """Register a check of the op's meta function, run after the iterator is built.

        Called as `fn(plan, **other_arguments)`, before any output is written. It may return
        a dict of arguments converted for the kernel (alpha as the common dtype holds it).
        """
        self._checks.append(fn)
        return fn

    @overload
    def precheck(self, fn: Check) -> Check: ...

    @overload
    def precheck(self, *, by_metadata: bool) -> Callable[[Check], Check]: ...

    def precheck(self, fn: Check | None = None, *, by_metadata: bool = False) -> Any:
        """Register a check that runs before the iterator is built (torch: the checks a meta
        function makes before calling its builder). Called as `fn(*operands, **other_arguments)`.

        `by_metadata`: the check reads the operands' metadata (dtypes, shapes, a number's type)
        and the other arguments, never an operand's value, so a call with the same call key
        and arguments passes it too and may be specialized (Note [Specialized calls] in
        dispatch/overloads.py); other prechecks run on every call.
        """

        def register(check: Check) -> Check:
            self._prechecks.append(check)
            if not by_metadata:
                self._withdraw_specializers()
            return check

        return register(fn) if fn is not None else register

    def prepare(self, fn: Prepare) -> Prepare:
        """Register a rewrite of the operand list, run first: `fn(operands, out, extra)`
        returns the operands the iterator sees and may add arguments to `extra` (torch: meta
        functions that add only the optional tensors given, as clamp's does).
        """
        self._prepares.append(fn)
        self._withdraw_specializers()
        return fn

    def _withdraw_specializers(self) -> None:
        """A prepare or precheck runs on every call, so no call specializes (Note
        [Specialized calls]): the registered kernels stop offering to."""
        for kernel, entry in self._specializing:
            specializable(kernel, None)
            entry.refresh_specializable()
        self._specializing.clear()

    def inplace_check(self, fn: Check) -> Check:
        """Register a check only the in-place overload makes, first: `fn(*operands)` (torch:
        abs_ refuses complex self, whose result would be real)."""
        self._inplace_checks.append(fn)
        return fn

    def derivative(self, *inputs: str, overload: str | None = None) -> Callable[[F], F]:
        """Declare the decorated function as the backward formula for `inputs` of the
        functional overload, or of the Scalar `overload` named (`"add.Scalar"`); the
        in-place form uses it too, as in torch. Torch: a line of the overload's
        derivatives.yaml entry. See ops/_derivative.py."""
        name = self.block.op.name() if overload is None else f"aten::{overload}"
        return derivative(name, *inputs)

    # --- calling -------------------------------------------------------------------------

    def kernel_for(self, p: Plan) -> Kernel:
        """The kernel for the plan's computation dtype, or torch's error for that dtype.

        Torch: the AT_DISPATCH_* switch in the CPU kernel (`"abs_cpu" not implemented for
        'Bool'`), whose accepted dtypes spec/kernel_dtypes.json records.
        """
        dtype = p.common_dtype
        error = self._errors.get(dtype.name)
        if error is not None or (self._accepted is not None and dtype.name not in self._accepted):
            kind, message = error or (
                "NotImplementedError",
                f"\"{self.name}_cpu\" not implemented for '{dtype.scalar_name}'",
            )
            raise _ERRORS.get(kind, RuntimeError)(message)
        kernel = self._kernels.get(dtype, self._default_kernel)
        if kernel is None:
            raise NotImplementedError(
                f"\"{self.name}_cpu\" not implemented for '{dtype.scalar_name}'"
            )
        if (self.opmath or p.scalar_opmath) and dtype in (float16, bfloat16):
            # Wrapped once per kernel, not per call.
            wrapped = self._opmath_kernels.get(kernel)
            if wrapped is None:
                wrapped = self._opmath_kernels[kernel] = in_float32(kernel)
            return wrapped
        return kernel

    def __call__(
        self, operands: Sequence[Any], out: TensorImpl | None, extra: dict[str, Any]
    ) -> Any:
        """Run the op: build (or reuse) the plan, check, compute, write."""
        for rewrite in self._prepares:
            operands = rewrite(operands, out, extra)
        for precheck in self._prechecks:
            precheck(*operands, **extra)
        chosen = self._config
        if out is None and type(chosen) is IterConfig:
            return self.functional(operands, extra)
        iter_config = chosen if isinstance(chosen, IterConfig) else chosen(extra)
        p = plan(iter_config, operands, out)
        return self._finish(p, self._kernel_or_none(p), operands, out, extra)

    def functional(self, operands: Sequence[Any], extra: dict[str, Any]) -> Any:
        """The functional call with a fixed iterator config, after prepares and prechecks:
        the plan, kernel and runner the general path chose for operands with this metadata
        (see Note [Pointwise fast path])."""
        key = operands_key(operands)
        found = self._fast.get(key)
        if found is None:
            found = self._remember(key, plan(self._config, operands, None))  # type: ignore[arg-type]  # fixed config
        p, kernel, runner = found
        if runner is None:
            return self._finish(p, kernel, operands, None, extra)
        for check in self._checks:  # _checked, inline
            converted = check(p, **extra)
            if converted:
                extra = {**extra, **converted}
        return runner(extra, *operands)

    def specialized(self, operands: Sequence[Any], extra: dict[str, Any]) -> Runner | None:
        """After a functional call with these operands and arguments succeeded: the runner
        with its checked arguments bound, which gives that call's answer for any operands
        with the same metadata (Note [Specialized calls] in dispatch/overloads.py); None
        where the plan has no runner. A check reads only the plan and the other arguments
        (torch: a meta function's checks), so its answer for them is fixed too."""
        found = self._fast.get(operands_key(operands))
        if found is None:
            return None
        p, kernel, runner = found
        if runner is None:
            return None
        extra = self._checked(p, extra)
        # An argument the kernel would default to the same object need not be passed (add's
        # alpha=1): the runner then calls the kernel without keywords.
        defaults = getattr(kernel, "__kwdefaults__", None)
        if defaults and extra:
            extra = {k: v for k, v in extra.items() if k not in defaults or defaults[k] is not v}
        return functools.partial(runner, extra)

    def _finish(
        self,
        p: Plan,
        kernel: Kernel | None,
        operands: Sequence[Any],
        out: TensorImpl | None,
        extra: dict[str, Any],
    ) -> Any:
        """Check, pick the kernel (or raise torch's dtype error), compute, write."""
        # torch: the meta function's checks come before the kernel's dtype switch.
        extra = self._checked(p, extra)
        if kernel is None:
            kernel = self.kernel_for(p)  # raises torch's error for this dtype
        if out is None and p.simple:
            return run_simple(p, kernel, operands, extra)
        return run(p, kernel, operands, out, extra)

    def _checked(self, p: Plan, extra: dict[str, Any]) -> dict[str, Any]:
        """Run the meta function's checks on the plan; the kernel's arguments, with those a
        check converted (alpha as the common dtype holds it)."""
        for check in self._checks:
            converted = check(p, **extra)
            if converted:
                extra = {**extra, **converted}
        return extra

    def _remember(self, key: tuple[object, ...], p: Plan) -> FastEntry:
        """Cache the general path's plan, kernel and (for simple plans) runner for `key`."""
        kernel = self._kernel_or_none(p)
        runner = simple_runner(p, kernel) if kernel is not None and p.simple else None
        if len(self._fast) > 1024:
            self._fast.clear()
        found = self._fast[key] = (p, kernel, runner)
        return found

    def _kernel_or_none(self, p: Plan) -> Kernel | None:
        """The plan's kernel, or None where `kernel_for` would raise (meta plans compute
        nothing and never raise: torch's Meta kernels have no dtype switch)."""
        if p.backend is None:
            return _no_kernel
        try:
            return self.kernel_for(p)
        except (RuntimeError, NotImplementedError, TypeError, ValueError, IndexError):
            return None

    def register(self, block: OpBlock, role: str) -> None:
        """Register this op's kernel for one overload; `role` is functional, inplace or out."""
        schema = block.op._schema
        positional = [a for a in schema.arguments if not a.kwarg_only]
        positions = {a.name: i for i, a in enumerate(positional)}
        operand_positions = tuple(positions[name] for name in self.operands)
        extra_positional = tuple(
            (a.name, i) for i, a in enumerate(positional) if a.name not in self.operands
        )
        extra_keywords = tuple(a.name for a in schema.arguments if a.kwarg_only and not a.is_write)
        out_name = next((a.name for a in schema.arguments if a.kwarg_only and a.is_write), None)
        call = self.__call__
        functional = self.functional
        prepares, prechecks = self._prepares, self._prechecks  # the lists: later hooks count
        fixed = type(self._config) is IterConfig
        inplace_checks = self._inplace_checks  # the list itself: later registrations count
        # See `scalar_first`: the iterator takes this overload's two operands swapped.
        swapped = schema.name + ("." + schema.overload_name if schema.overload_name else "") in (
            self.scalar_first
        )
        leading = operand_positions == tuple(range(len(operand_positions)))
        n_operands = len(operand_positions)

        # The bound kwargs hold exactly the keyword-only arguments; without other positional
        # arguments they are the kernel's extra arguments as they come (the binder made the
        # dict for this call).
        keywords_only = not extra_positional
        # The common functional call goes straight to the fast path.
        direct = role == "functional" and fixed and leading and keywords_only and out_name is None

        def kernel(*args: Any, **kwargs: Any) -> Any:
            if direct and not prepares and not prechecks:
                return functional(args[:n_operands], kwargs)
            operands = args[:n_operands] if leading else [args[i] for i in operand_positions]
            if out_name is not None:
                out = kwargs.pop(out_name)
            elif role == "inplace":
                out = operands[0]
                for inplace_check in inplace_checks:
                    inplace_check(*operands)
            else:
                out = None
            if swapped:
                operands = operands[::-1]
            if keywords_only:
                return call(operands, out, kwargs)
            extra = {name: args[i] for name, i in extra_positional}
            for name in extra_keywords:
                extra[name] = kwargs[name]
            return call(operands, out, extra)

        kernel.__name__ = f"{self.name}_{role}"
        kernel.__qualname__ = kernel.__name__
        if direct and not prepares and not prechecks:
            # Prechecks registered later withdraw this unless they read only metadata.

            def specialize(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Runner | None:
                return self.specialized(args, kwargs) if len(args) == n_operands else None

            specializable(kernel, specialize)
            self._specializing.append((kernel, block.entry))
        self.blocks.append(block)
        if block.spec.cea:
            block.kernel(DispatchKey.CompositeExplicitAutograd)(kernel)
            return
        for key in _BACKEND_KEYS:
            block.kernel(key)(kernel)
        if block.spec.ceanf:
            block.kernel(DispatchKey.CompositeExplicitAutogradNonFunctional)(kernel)


def in_float32(kernel: Kernel) -> Kernel:
    """`kernel` computing in float32 for float16/bfloat16 arrays, rounded once at the end.

    Torch: opmath_t (at::opmath_type<Half> is float): compound CPU kernels (addcmul, lerp)
    compute reduced-precision floats in float32 and round the result.
    """

    def computed_in_float32(xp: Any, *arrays: Any, **extra: Any) -> Any:
        dtype = arrays[0].dtype
        result = kernel(xp, *[xp.astype(a, xp.float32) for a in arrays], **extra)
        return xp.astype(result, dtype)

    return computed_in_float32


def _no_kernel(xp: Any, *arrays: Any, **extra: Any) -> Any:
    raise AssertionError("meta plans never compute")


def pointwise(
    schema_text: str,
    builder: Builder | IterConfig | ConfigChoice,
    *,
    operands: tuple[str, ...] | None = None,
    scalar: tuple[str, ...] = (),
    opmath: bool = False,
    scalar_first: tuple[str, ...] = (),
) -> PointwiseOp:
    """Declare an elementwise op: its functional overload, and with it the in-place and out=
    overloads torch pairs with it, and the Scalar overloads named in `scalar` (inline schemas,
    each with its own in-place and out= forms where torch has them).

    Torch: a structured kernel group; `builder` names the TensorIterator builder its meta
    function uses (or gives the config, or a function choosing it from the other arguments).
    `operands` defaults to the schema's Tensor
    arguments. `opmath` computes float16 in float32 and rounds once (torch's opmath_t), for
    kernels that compose several operations.
    """
    block = defop(schema_text)
    schema = block.op._schema
    if operands is None:
        operands = tuple(
            a.name for a in schema.arguments if not a.kwarg_only and str(a.type) == "Tensor"
        )
    iter_config = CONFIGS[builder] if isinstance(builder, Builder) else builder
    op = PointwiseOp(block, iter_config, operands, opmath)
    op.scalar_first = frozenset(f"aten::{name}" for name in scalar_first)
    for text in (schema_text, *scalar):
        functional = block if text == schema_text else defop(text)
        op.register(functional, "functional")
        inplace, out = _related(functional.op._schema)
        if inplace is not None:
            op.register(defop_spec(inplace), "inplace")
        if out is not None:
            op.register(defop_spec(out), "out")
    return op
