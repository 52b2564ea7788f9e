"""Statistics as aten ops: quantile, nanquantile, cov, corrcoef.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
