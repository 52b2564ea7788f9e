"""Histograms as aten ops: histc, bincount, histogram, histogramdd.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
