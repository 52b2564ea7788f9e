"""`python -m refimpl`: show the configured backends and a small traced example.

Torch: no counterpart; this is refimpl's smoke check after installing.
"""

from __future__ import annotations

import importlib.util

import refimpl
from refimpl.core.backend import REGISTRY


def _availability(device_type: str, name: str) -> str:
    """Why the backend configured for `device_type` cannot hold tensors, or "" if it can.

    A built-in backend is named after the array library it imports (numpy, cupy,
    array_api_strict); finding that module tells whether it is installed without importing
    it, so CuPy is not loaded (nor a GPU touched) just to print this line.
    """
    if name in REGISTRY.loaded:
        return ""
    if name not in REGISTRY.names():
        return f"  (no {device_type} backend available: no backend named '{name}' is installed)"
    if importlib.util.find_spec(name) is None:
        hint = "; pip install 'refimpl[cuda12]' or 'refimpl[cuda13]'" if name == "cupy" else ""
        return f"  (no {device_type} backend available: {name} is not installed{hint})"
    return ""


def main() -> None:
    """Print the backends in use and a few results a newcomer can compare with torch."""
    print(f"refimpl {refimpl.__version__}")
    for device_type, name in refimpl.config.backends.items():
        print(f"  {device_type:>5} -> {name}{_availability(device_type, name)}")
    x = refimpl.arange(6.0).reshape(2, 3)
    print("x =", x)
    print("x.t().stride() =", x.t().stride(), " x.t().is_contiguous() =", x.t().is_contiguous())
    print(
        "result_type(int32 tensor, 2.5) =",
        refimpl.result_type(refimpl.ones(2, dtype=refimpl.int32), 2.5),
    )
    # How `x + 1` is dispatched: the packet picks an overload, the tensor's key set picks a
    # table slot (autograd and ADInplaceOrView fall through here), the slot's kernel runs.
    overload = refimpl.ops.aten.add.resolve(x, 1)
    print("aten.add(x, 1) binds to", overload, "  schema:", overload._schema)
    print("x carries", refimpl._C._dispatch_keys(x))
    cpu_row = next(
        line
        for line in refimpl._C._dispatch_dump_table(overload.name()).splitlines()
        if line.startswith("CPU:")
    )
    print("dispatch table row that runs:", cpu_row)
    print("x + 1 =", x + 1)


if __name__ == "__main__":
    main()
