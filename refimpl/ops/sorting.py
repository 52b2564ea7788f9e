"""Sorting as aten ops: sort, argsort, msort, topk, searchsorted, bucketize.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
