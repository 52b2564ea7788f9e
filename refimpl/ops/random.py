"""Random sampling as aten ops: rand, randn, randint, randperm, normal, uniform_, random_, with torch's generator and transforms.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
