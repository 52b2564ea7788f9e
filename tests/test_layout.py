"""The repository's own rules: module size budget, and which libraries refimpl may import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "refimpl").rglob("*.py")) + sorted((ROOT / "backends").rglob("*.py"))
LINE_BUDGET = 800


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_within_line_budget(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= LINE_BUDGET, f"{path.name} has {lines} lines; split it by responsibility"


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize(
    "path", sorted((ROOT / "refimpl").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_refimpl_imports_no_array_library_and_no_torch(path: Path) -> None:
    forbidden = _imported_roots(path) & {"torch", "numpy", "cupy", "scipy", "array_api_strict"}
    assert not forbidden, f"{path.name} imports {forbidden}"


@pytest.mark.parametrize(
    "path", sorted((ROOT / "backends").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_backends_never_import_torch(path: Path) -> None:
    assert "torch" not in _imported_roots(path)
