"""Shapes and joins: cat, stack and its h/v/d/column forms, the splits, flip, roll, rot90, repeat, tile, repeat_interleave, atleast_*, broadcast_*, ravel, unflatten.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
