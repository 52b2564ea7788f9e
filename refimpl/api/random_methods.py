"""The sampling Tensor methods: uniform_, normal_, random_.

Torch: the generated bindings in python_variable_methods.cpp. One line per name through
`api/_call.py`'s `method`; `RandomMethods` is a base class of `refimpl.Tensor` (kept apart
from refimpl/api/random.py, which builds on `Tensor`).
"""

from __future__ import annotations

from refimpl.api._call import method


class RandomMethods:
    """The sampling Tensor methods. Torch: torch._C.TensorBase.uniform_ etc."""

    __slots__ = ()

    uniform_ = method("uniform_")
    normal_ = method("normal_")
    random_ = method("random_")
