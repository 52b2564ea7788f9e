"""Linear algebra, norms and products: vector_norm, matrix_norm, norm, cond, multi_dot, vander, vecdot, diagonal.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
