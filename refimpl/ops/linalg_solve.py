"""Linear algebra, solvers and factorizations: solve, inv, det, slogdet, cholesky, lu, ldl, triangular solves, matrix_power, matrix_exp.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
