"""Linear algebra, spectral and orthogonal decompositions: eig, eigh, svd, qr, pinv, lstsq, matrix_rank, geqrf, ormqr, householder_product.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
