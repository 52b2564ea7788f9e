"""The Conjugate and Negative fallbacks: how an op meets a tensor with a math bit.

Torch: MathOpFallback in aten/src/ATen/native/MathBitsFallback.h, registered for Conjugate
by ConjugateFallback.cpp and for Negative by NegateFallback.cpp, with the ops each key lets
through (MathBitFallThroughLists.h and the two files). A tensor with a math bit reads as the
conjugate or negation of its storage (Note [Math bits] in core/tensor.py). An op that reaches
one of these keys gets, for each argument with the bit, a clone holding the values the
argument shows (clone applies the bit; its result has none), and runs below the key with
the clones:

- a view op (an argument aliased with the output, not written) runs as it is: its view keeps
  the bit with the key set;
- an argument the op writes (in-place, out=) is cloned too, the op writes the clone, and the
  clone is copied back into the argument with copy_ (which applies the bit), the argument
  resized first as out= arguments are;
- the ops torch lets through (copy_, clone, the views, mm, dot, ...: spec/dispatch_keys.json
  "fallthrough", torch's `m.impl(..., makeFallthrough())` lines of ConjugateFallback.cpp and
  NegateFallback.cpp) skip the fallback and read and write their arguments through the bit
  themselves.

Negative sits above Conjugate, so a tensor with both bits is resolved by the Negative
fallback (its clone has neither bit). Both sit above the Python key: a dispatch mode sees
the clones, the op on them, and the copy_ back, in this order, as in torch.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.keys import DispatchKey, DispatchKeySet, full_after_raw
from refimpl._base.spec import fallthrough_ops
from refimpl.core.tensor import CONJUGATE_BIT, NEGATIVE_BIT, TensorImpl
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.overloads import OpOverload, namespace
from refimpl.dispatch.table import BACKEND_FALLBACKS, KernelRecord
from refimpl.ops._outputs import resize_output

aten: Final = namespace("aten")

# --- the fallback ---------------------------------------------------------------------------


class _MathBit:
    """One math bit's fallback: its key, its bit in a key set, and the name torch's
    messages give it ("conjugate", "negation")."""

    __slots__ = ("below", "bit", "key", "name")

    def __init__(self, key: DispatchKey, bit: int, name: str) -> None:
        self.key = key
        self.bit = bit
        self.name = name
        self.below = full_after_raw(key)

    def fallback(self, keyset: DispatchKeySet, op: OpOverload, /, *args: Any, **kwargs: Any) -> Any:
        """Torch: MathOpFallback::fallback_impl."""
        schema = op._schema
        writes = self._writes(op)
        below = keyset.raw & self.below
        if writes is False:
            # A view op: its result keeps the bit with the key set.
            return op.redispatch_bound(below, args, kwargs)
        bit = self.bit
        new_args = list(args)
        new_kwargs = dict(kwargs)
        mutated: tuple[TensorImpl, TensorImpl] | None = None
        position = 0
        for argument in schema.arguments:
            if argument.kwarg_only:
                if argument.name not in new_kwargs:
                    continue
                value = new_kwargs[argument.name]
            else:
                if position >= len(new_args):
                    continue  # bound arguments hold every positional one; kept for safety
                value = new_args[position]
            replaced = value
            if isinstance(value, TensorImpl):
                if value._key_set & bit:
                    replaced = aten.clone.default(value)
                    if argument.is_write:
                        if mutated is not None:
                            raise RuntimeError(
                                f"{self.name} fallback does not support operators with more "
                                f"than one mutable tensors with {self.name}bit set to true."
                            )
                        mutated = (value, replaced)
            elif isinstance(value, (list, tuple)) and any(
                isinstance(item, TensorImpl) and item._key_set & bit for item in value
            ):
                items = []
                for item in value:
                    if isinstance(item, TensorImpl) and item._key_set & bit:
                        if argument.is_write:
                            raise RuntimeError(
                                f" fallback doesn't currently support mutable TensorLists "
                                f"with {self.name} inputs. Please materialize all the "
                                f"{self.name} input tensor(s) in the mutable TensorList inputs "
                                f"before calling {schema.name}"
                            )
                        item = aten.clone.default(item)
                    items.append(item)
                replaced = type(value)(items)
            if argument.kwarg_only:
                new_kwargs[argument.name] = replaced
            else:
                new_args[position] = replaced
                position += 1
        result = op.redispatch_bound(below, tuple(new_args), new_kwargs)
        if mutated is None:
            return result
        original, clone = mutated
        # torch: resize_output (for out=), then copy_ back; the op's return that was the
        # clone becomes the argument. Differs: torch takes the first return to be the
        # clone (an internal assert); refimpl looks for it among the returns.
        resize_output(original, clone._size)
        aten.copy_.default(original, clone)
        if result is clone:
            return original
        if isinstance(result, tuple):
            return type(result)(original if r is clone else r for r in result)
        return result

    def _writes(self, op: OpOverload) -> bool | None:
        """Whether the arguments aliased with outputs are written (in-place, out=) or only
        viewed; None where none is aliased. Torch: the is_write loop of fallback_impl."""
        found: bool | None = None
        for argument in op._schema.arguments:
            info = argument.alias_info
            if info is None:
                continue
            if found is not None and found != info.is_write:
                raise RuntimeError(
                    f"Unsupported operator for {self.name} fallback: {op._schema.name}"
                    f"{self.name} fallback doesn't work for operators with a mix mutable and "
                    "non-mutable inputs that alias with outputs, this must be implemented "
                    "manually.  If you got this error on a core op, please report a bug to "
                    "PyTorch."
                )
            found = info.is_write
        return found


CONJUGATE: Final = _MathBit(DispatchKey.Conjugate, CONJUGATE_BIT, "conjugate")
NEGATIVE: Final = _MathBit(DispatchKey.Negative, NEGATIVE_BIT, "negation")


def register_math_bit_fallbacks() -> None:
    """Install both fallbacks and the ops each key lets through (ops refimpl defines).

    Torch: TORCH_LIBRARY_IMPL(_, Conjugate / Negative, m) and (aten, Conjugate / Negative, m).
    """
    for bit in (CONJUGATE, NEGATIVE):
        BACKEND_FALLBACKS.register(
            bit.key,
            KernelRecord(
                bit.fallback,
                f"refimpl {bit.key.name} fallback (MathOpFallback)",
                with_keyset=True,
                boxed=True,
            ),
        )
        for name in sorted(fallthrough_ops(bit.key.name)):
            entry = DISPATCHER.find(name)
            if entry is not None:
                entry.register_kernel(
                    bit.key, KernelRecord.fallthrough(f"refimpl {bit.key.name} fallthrough")
                )


register_math_bit_fallbacks()
