"""The READMEs name files that exist, and gtp_engine/README.md's module table is the package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "gtp_engine/README.md", "docs/ogs.md", "docs/zero-training.md", "docs/clients.md"]
REPO_PATH = re.compile(r"`((?:gtp_engine|dlgo|scripts|configs|tests|docs|weights)/[^`\s]+)`")


@pytest.mark.parametrize("doc", DOCS)
def test_files_named_in_the_docs_exist(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    missing = [p for p in sorted(set(REPO_PATH.findall(text))) if not any(ROOT.glob(p.rstrip("/")))]
    assert not missing, f"{doc} names files that do not exist: {missing}"


def test_module_table_lists_every_module_of_gtp_engine():
    text = (ROOT / "gtp_engine" / "README.md").read_text(encoding="utf-8")
    table = text.split("## Modules", 1)[1].split("\n\n", 2)[1]
    listed = set()
    for row in table.splitlines()[2:]:
        listed |= set(re.findall(r"`([a-z_/]+\.py)`", row.split("|")[1]))
    package = ROOT / "gtp_engine"
    modules = {p.relative_to(package).as_posix() for p in package.rglob("*.py")} - {"__init__.py"}
    assert listed == modules, f"only in the table: {listed - modules}; not in it: {modules - listed}"
