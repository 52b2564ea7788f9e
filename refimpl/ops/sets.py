"""Set operations as aten ops: unique, unique_consecutive, isin.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
