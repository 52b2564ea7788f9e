"""The `refimpl` console script: `refimpl trace ...` (refimpl/utils/trace.py) and
`refimpl conformance ...` (conformance/cli.py).

`trace` needs only refimpl, so it is dispatched before the conformance tools (which load
torch's OpInfo database, several seconds) are imported.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "trace":
        from refimpl.utils.trace import main as trace_main

        return trace_main(args[1:])
    from conformance.cli import main as conformance_main

    return conformance_main(args)


if __name__ == "__main__":
    sys.exit(main())
