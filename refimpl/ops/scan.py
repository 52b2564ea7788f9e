"""Scans and order statistics: cumsum, cumprod, cummax, cummin, logcumsumexp, median, nanmedian, mode, diff, trace, sum_to_size.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
