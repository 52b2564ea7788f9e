"""`python -m refimpl`: show the configured backends and a small traced example.

Torch: no counterpart; this is refimpl's smoke check after installing.
"""

from __future__ import annotations

import refimpl


def main() -> None:
    """Print the backends in use and a few results a newcomer can compare with torch."""
    print(f"refimpl {refimpl.__version__}")
    for device_type, name in refimpl.config.backends.items():
        print(f"  {device_type:>5} -> {name}")
    x = refimpl.arange(6.0).reshape(2, 3)
    print("x =", x)
    print("x.t().stride() =", x.t().stride(), " x.t().is_contiguous() =", x.t().is_contiguous())
    print(
        "result_type(int32 tensor, 2.5) =",
        refimpl.result_type(refimpl.ones(2, dtype=refimpl.int32), 2.5),
    )


if __name__ == "__main__":
    main()
