"""Reductions over dimensions: sum, nansum, mean, nanmean, prod, amax, amin, aminmax, max/min (full and .dim), argmax, argmin, var, std, var_mean, std_mean, any, all, count_nonzero, logsumexp, norm, dist, renorm.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
