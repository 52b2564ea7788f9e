"""The torch.* functions and Tensor methods of the matmul family (mm, bmm, matmul, addmm, addmv, addr, addbmm, baddbmm, dot, vdot, mv, outer, inner, einsum, tensordot, kron, cross, cdist, trapezoid).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `ProductMethods` is a base class of `refimpl.Tensor`.
einsum, tensordot and cdist are Python functions in torch (torch/functional.py), written out
below over the aten overloads they call.
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import method, torch_function
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace

_aten = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "bmm",
    "cdist",
    "cross",
    "cumulative_trapezoid",
    "dot",
    "einsum",
    "ger",
    "inner",
    "kron",
    "matmul",
    "mm",
    "mv",
    "outer",
    "tensordot",
    "trapezoid",
    "trapz",
    "vdot",
]

addbmm = torch_function("addbmm")
addmm = torch_function("addmm")
addmv = torch_function("addmv")
addr = torch_function("addr")
baddbmm = torch_function("baddbmm")
bmm = torch_function("bmm")
cross = torch_function("cross")
cumulative_trapezoid = torch_function("cumulative_trapezoid")
dot = torch_function("dot")
ger = torch_function("ger")
inner = torch_function("inner")
kron = torch_function("kron")
matmul = torch_function("matmul")
mm = torch_function("mm")
mv = torch_function("mv")
outer = torch_function("outer")
trapezoid = torch_function("trapezoid")
trapz = torch_function("trapz")
vdot = torch_function("vdot")


# torch: the compute_mode names of torch.cdist (torch/functional.py) and their aten ints.
_CDIST_MODES: dict[str, int] = {
    "use_mm_for_euclid_dist_if_necessary": 0,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def cdist(
    x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
) -> Any:
    """p-norm distances between each row of x1 and each row of x2 (batched).

    Torch: torch.cdist in torch/functional.py, which maps compute_mode's name to the int
    aten.cdist takes (None for the default).
    """
    if compute_mode == "use_mm_for_euclid_dist_if_necessary":
        return _aten.cdist.default(x1, x2, p, None)
    mode = _CDIST_MODES.get(compute_mode)
    if mode is None:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _aten.cdist.default(x1, x2, p, mode)


def einsum(*args: Any) -> Any:
    """Sum of products of the operands' elements over the labels of an equation.

    Torch: torch.einsum in torch/functional.py: `einsum(equation, *operands)`, the operands
    also as one list, or the sublist format `einsum(op1, [0, 1], op2, [1, 2], [0, 2])`
    (labels 0-51 for A-Z, a-z; Ellipsis for `...`), over aten.einsum. opt_einsum is not
    consulted (torch.backends.opt_einsum.is_available() is False where refimpl is tested).
    """
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least "
            "one operand and its subscripts list"
        )
    if isinstance(args[0], str):
        equation = args[0]
        operands = list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], list | tuple):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    return _aten.einsum.default(equation, operands)


def _sublist_equation(args: tuple[Any, ...]) -> tuple[str, list[Any]]:
    # torch: the sublist format of torch.einsum (parse_subscript in torch/functional.py).
    def subscripts(labels: Any) -> str:
        text = []
        for n in labels:
            if n is Ellipsis:
                text.append("...")
            elif 0 <= n < 26:
                text.append(chr(ord("A") + n))
            elif 26 <= n < 52:
                text.append(chr(ord("a") + n - 26))
            else:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
        return "".join(text)

    operands = list(args[0::2][: len(args) // 2])
    equation = ",".join(subscripts(labels) for labels in args[1::2])
    if len(args) % 2 == 1:
        equation += "->" + subscripts(args[-1])
    return equation, operands


def tensordot(a: Any, b: Any, dims: Any = 2, out: Any = None) -> Any:
    """Contract dims of `a` with dims of `b`: the last `dims` of a with the first of b (an
    int), or the two lists of a pair (or a 2-row tensor).

    Torch: torch.tensordot in torch/functional.py, over aten.tensordot (its out= overload
    with `out`), with its RuntimeErrors for dims it cannot read.
    """
    dims_a: Any
    dims_b: Any
    if not isinstance(dims, tuple | list | TensorImpl | int):
        raise RuntimeError(  # noqa: TRY004 - torch raises RuntimeError
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}"
        )
    if isinstance(dims, tuple | list):
        dims_a, dims_b = dims
    elif isinstance(dims, TensorImpl):
        if dims.numel() > 1:
            dims_a, dims_b = dims.tolist()
        else:
            dims_a, dims_b = _counted_dims(int(dims.item()), dims, a, b, check_rank=False)
    else:
        dims_a, dims_b = _counted_dims(dims, dims, a, b, check_rank=True)
    if out is None:
        return _aten.tensordot.default(a, b, dims_a, dims_b)
    return _aten.tensordot.out(a, b, dims_a, dims_b, out=out)


def _counted_dims(
    count: int, shown: object, a: Any, b: Any, *, check_rank: bool
) -> tuple[list[int], list[int]]:
    # torch: an int `dims` contracts the last `count` dims of a with the first of b.
    if count < 0:
        raise RuntimeError(f"tensordot expects dims >= 0, but got dims={shown}")
    if check_rank and count > min(a.dim(), b.dim()):
        raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={shown}")
    return list(range(-count, 0)), list(range(count))


class ProductMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    addbmm = method("addbmm")
    addbmm_ = method("addbmm_")
    addmm = method("addmm")
    addmm_ = method("addmm_")
    addmv = method("addmv")
    addmv_ = method("addmv_")
    addr = method("addr")
    addr_ = method("addr_")
    baddbmm = method("baddbmm")
    baddbmm_ = method("baddbmm_")
    bmm = method("bmm")
    cross = method("cross")
    dot = method("dot")
    ger = method("ger")
    inner = method("inner")
    kron = method("kron")
    matmul = method("matmul")
    mm = method("mm")
    mv = method("mv")
    outer = method("outer")
    vdot = method("vdot")
