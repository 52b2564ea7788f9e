"""`refimpl.special`: torch.special's elementwise functions, each calling its aten.special_* op.

Torch: torch/special/__init__.py, whose functions are the generated bindings of the
`special_*` entries of native_functions.yaml (`torch.special.ndtr(x)` calls
`aten::special_ndtr`). Arguments bind as torch's Python signatures say (`input` is the
schema's `self`); those the aten ops decompose (expit is sigmoid, gammaln is lgamma) are
resolved by the dispatcher, in refimpl/ops/special.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refimpl.api._call import torch_function


def _special(name: str) -> Callable[..., Any]:
    """`refimpl.special.<name>`: the aten packet `aten.special_<name>`.

    Torch: torch.special.<name>.
    """
    return torch_function(name, f"special_{name}", module="torch.special")


airy_ai = _special("airy_ai")
bessel_j0 = _special("bessel_j0")
bessel_j1 = _special("bessel_j1")
bessel_y0 = _special("bessel_y0")
bessel_y1 = _special("bessel_y1")
chebyshev_polynomial_t = _special("chebyshev_polynomial_t")
chebyshev_polynomial_u = _special("chebyshev_polynomial_u")
chebyshev_polynomial_v = _special("chebyshev_polynomial_v")
chebyshev_polynomial_w = _special("chebyshev_polynomial_w")
digamma = _special("digamma")
entr = _special("entr")
erf = _special("erf")
erfc = _special("erfc")
erfcx = _special("erfcx")
erfinv = _special("erfinv")
exp2 = _special("exp2")
expit = _special("expit")
expm1 = _special("expm1")
gammainc = _special("gammainc")
gammaincc = _special("gammaincc")
gammaln = _special("gammaln")
hermite_polynomial_h = _special("hermite_polynomial_h")
hermite_polynomial_he = _special("hermite_polynomial_he")
i0 = _special("i0")
i0e = _special("i0e")
i1 = _special("i1")
i1e = _special("i1e")
laguerre_polynomial_l = _special("laguerre_polynomial_l")
legendre_polynomial_p = _special("legendre_polynomial_p")
log1p = _special("log1p")
log_ndtr = _special("log_ndtr")
logit = _special("logit")
log_softmax = _special("log_softmax")
logsumexp = _special("logsumexp")
modified_bessel_i0 = _special("modified_bessel_i0")
modified_bessel_i1 = _special("modified_bessel_i1")
modified_bessel_k0 = _special("modified_bessel_k0")
modified_bessel_k1 = _special("modified_bessel_k1")
multigammaln = _special("multigammaln")
ndtr = _special("ndtr")
ndtri = _special("ndtri")
polygamma = _special("polygamma")
psi = _special("psi")
round = _special("round")
scaled_modified_bessel_k0 = _special("scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _special("scaled_modified_bessel_k1")
shifted_chebyshev_polynomial_t = _special("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _special("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _special("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _special("shifted_chebyshev_polynomial_w")
sinc = _special("sinc")
softmax = _special("softmax")
spherical_bessel_j0 = _special("spherical_bessel_j0")
xlog1py = _special("xlog1py")
xlogy = _special("xlogy")
zeta = _special("zeta")
