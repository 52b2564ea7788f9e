"""torch's public names on refimpl: each is there, or reading it says refimpl does not
implement it yet; a name torch does not have either gets Python's own error. The constants
torch takes from math are torch's."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

import refimpl

_TORCH_NAMES = sorted(name for name in dir(torch) if not name.startswith("_"))
_TENSOR_NAMES = sorted(name for name in dir(torch.Tensor) if not name.startswith("_"))


def _missing_says_so(owner: Any, name: str, qualified: str, torch_owner: Any) -> None:
    try:
        getattr(owner, name)
    except AttributeError as error:
        assert f"refimpl does not implement {qualified} yet" in str(error), str(error)
    except Exception as error:  # noqa: BLE001 - a property refusing this tensor, as torch's does
        with pytest.raises(type(error)):
            getattr(torch_owner, name)


@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis"])
def test_constants(name: str) -> None:
    expected, actual = getattr(torch, name), getattr(refimpl, name)
    assert type(actual) is type(expected)
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(actual)
    else:
        assert actual == expected


def test_disable_torch_function_at_top_level() -> None:
    assert refimpl.DisableTorchFunction is refimpl.overrides.DisableTorchFunction  # type: ignore[attr-defined]
    assert refimpl.DisableTorchFunctionSubclass is refimpl.overrides.DisableTorchFunctionSubclass  # type: ignore[attr-defined]


def test_every_torch_name_is_there_or_says_it_is_missing() -> None:
    for name in _TORCH_NAMES:
        _missing_says_so(refimpl, name, f"torch.{name}", torch)


def test_every_tensor_attribute_is_there_or_says_it_is_missing() -> None:
    t, expected = refimpl.ones(2), torch.ones(2)
    for name in _TENSOR_NAMES:
        _missing_says_so(t, name, f"torch.Tensor.{name}", expected)


def test_other_names_get_pythons_error() -> None:
    for lib in (torch, refimpl):
        with pytest.raises(AttributeError) as caught:
            lib.ones(2).no_such_attribute  # noqa: B018
        assert str(caught.value) == "'Tensor' object has no attribute 'no_such_attribute'"
    with pytest.raises(AttributeError, match="^module 'refimpl' has no attribute 'no_such_name'$"):
        refimpl.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def test_a_property_that_raises_keeps_its_error() -> None:
    messages = []
    for lib in (torch, refimpl):

        class Sub(lib.Tensor):  # type: ignore[misc, name-defined]
            @property
            def broken(self) -> Any:
                raise AttributeError("inner failure")

        with pytest.raises(AttributeError) as caught:
            lib.ones(2).as_subclass(Sub).broken  # noqa: B018
        messages.append(str(caught.value))
    assert messages[1] == messages[0] == "inner failure"
