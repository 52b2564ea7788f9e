"""The matmul family: mm, bmm, addmm, addmv, addr, addbmm, baddbmm, matmul, dot, vdot, mv, outer, inner, einsum, tensordot, kron, cross, cdist, the trapezoid functions.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
