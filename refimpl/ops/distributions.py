"""The remaining random distributions as aten ops: bernoulli, exponential_, geometric_, log_normal_, cauchy_, multinomial, poisson, dropout masks.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
