"""dlgo_web's place in the layout: it builds on dlgo and gtp_engine, which never import it, and
its modules are small rooms like theirs (tests/test_architecture.py checks those two packages)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WEB = sorted((ROOT / "dlgo_web").glob("*.py"))
LIBRARY = sorted([*ROOT.glob("dlgo/**/*.py"), *ROOT.glob("gtp_engine/**/*.py")])


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_neither_the_library_nor_the_engine_imports_the_web_package():
    offenders = [str(p.relative_to(ROOT)) for p in LIBRARY if any(n.split(".")[0] == "dlgo_web" for n in _imported(p))]
    assert offenders == []


@pytest.mark.parametrize("path", WEB, ids=lambda p: p.name)
def test_every_web_module_is_a_small_room(path: Path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500


def test_the_page_loads_nothing_from_the_network():
    static = ROOT / "dlgo_web" / "static"
    for name in ("index.html", "page.js", "page.css", "shudan/goban.css"):
        text = (static / name).read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, name
    bundle = sum(p.stat().st_size for p in (static / "shudan").iterdir())
    assert bundle < 1 << 20


def test_every_element_the_page_script_uses_is_in_the_page():
    static = ROOT / "dlgo_web" / "static"
    script = (static / "page.js").read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([\w-]+)"', (static / "index.html").read_text(encoding="utf-8")))
    used = set(re.findall(r"\$\('([\w-]+)'\)", script))
    assert used and used <= ids, sorted(used - ids)
