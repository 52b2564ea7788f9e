"""refimpl.config: backends by name, environment variables, blocks, and mixing errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

import refimpl
from refimpl.core.backend import REGISTRY, Backend
from refimpl.core.config import Config


def test_defaults_and_environment() -> None:
    assert Config({}).backends["cpu"] == "numpy"
    assert Config({}).backends["cuda"] == "cupy"
    assert Config({"REFIMPL_BACKEND_CPU": "array_api_strict"}).backends["cpu"] == "array_api_strict"


def test_environment_variable_reaches_a_new_process() -> None:
    code = "import refimpl; print(refimpl.ones(2).backend.name)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"REFIMPL_BACKEND_CPU": "array_api_strict", "PATH": ""},
    )
    assert out.stdout.strip() == "array_api_strict"


def test_block_and_tensors_keep_their_backend() -> None:
    before = refimpl.config.backends["cpu"]
    other = "array_api_strict" if before == "numpy" else "numpy"
    with refimpl.config.using(cpu=other):
        inside = refimpl.ones(3)
    assert refimpl.config.backends["cpu"] == before
    assert inside.backend is not None and inside.backend.name == other
    assert refimpl.ones(3).backend.name == before  # type: ignore[union-attr]
    assert inside.tolist() == [1.0, 1.0, 1.0]


def test_entry_points_find_the_builtin_backends() -> None:
    assert {"numpy", "array_api_strict", "cupy"} <= set(REGISTRY.names())
    backend = REGISTRY.get("numpy")
    assert isinstance(backend, Backend)
    assert backend.device_type == "cpu"


def test_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="no backend named 'no_such_backend'"):
        refimpl.config.backends["cpu"] = "no_such_backend"
    with pytest.raises(RuntimeError, match="no backend named 'no_such_backend'"):
        with refimpl.config.using(cpu="no_such_backend"):
            pass
    assert refimpl.config.backends["cpu"] in ("numpy", "array_api_strict")


def test_unknown_or_meta_device_type_is_refused() -> None:
    with pytest.raises(RuntimeError, match="cannot configure a backend for device type 'tpu'"):
        refimpl.config.backends["tpu"] = "numpy"
    with pytest.raises(RuntimeError, match="meta tensors hold no data"):
        refimpl.config.backends["meta"] = "numpy"
    with pytest.raises(RuntimeError, match="device type 'tpu'"):
        with refimpl.config.using(tpu="numpy"):
            pass
    assert "tpu" not in refimpl.config.backends


def test_backend_for_the_wrong_device_type_is_refused() -> None:
    with refimpl.config.using(cuda="numpy"):
        with pytest.raises(RuntimeError, match="serves device type 'cpu', not 'cuda'"):
            refimpl.ones(2, device="cuda")


def test_missing_dtype_names_backend_and_dtype() -> None:
    with refimpl.config.using(cpu="array_api_strict"):
        with pytest.raises(TypeError, match="'array_api_strict' backend .* no dtype float16"):
            refimpl.zeros(2, dtype=refimpl.float16)


def test_copy_between_backends_transfers() -> None:
    a = refimpl.arange(4.0)
    with refimpl.config.using(cpu="array_api_strict"):
        b = refimpl.zeros(4)
    b.copy_(a)
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert b.backend.name == "array_api_strict"  # type: ignore[union-attr]


def test_meta_tensors_have_metadata_only() -> None:
    m = refimpl.zeros(2, 3, device="meta")
    assert m.is_meta and m.shape == (2, 3) and m.stride() == (3, 1)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.tolist()
    assert m.t().stride() == (1, 3)


def test_missing_array_library_is_a_clear_error() -> None:
    pytest.importorskip("refimpl")
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="the 'cupy' backend could not be loaded"):
            refimpl.ones(2, device="cuda")
    else:
        pytest.skip("CuPy is installed here")


def test_ops_refuse_tensors_of_two_backends() -> None:
    a = refimpl.ones(3)
    other = "array_api_strict" if a.backend.name == "numpy" else "numpy"  # type: ignore[union-attr]
    with refimpl.config.using(cpu=other):
        b = refimpl.ones(3)
    with pytest.raises(RuntimeError, match="two different backends"):
        a + b


def test_derived_tensors_keep_their_backend() -> None:
    x = refimpl.arange(6.0).reshape(2, 3)
    mine = x.backend.name  # type: ignore[union-attr]
    other = "array_api_strict" if mine == "numpy" else "numpy"
    with refimpl.config.using(cpu=other):
        derived = [
            refimpl.zeros_like(x), refimpl.ones_like(x.t()), refimpl.rand_like(x),
            x.to(refimpl.float64), x.double(), x.clone(), x + 1,
        ]
    assert [t.backend.name for t in derived] == [mine] * len(derived)
