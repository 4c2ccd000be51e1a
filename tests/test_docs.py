"""The READMEs name files that exist, gtp_engine/README.md's module table is the package, and
nothing cites documents that are not in the repository."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [
    "README.md",
    "gtp_engine/README.md",
    "docs/ogs.md",
    "docs/zero-training.md",
    "docs/clients.md",
    "docs/book-differences.md",
    "docs/performance.md",
    "docs/training.md",
    "docs/web.md",
    "docs/rl.md",
    "docs/game-tree-search.md",
    "docs/strength.md",
    "docs/architecture.md",
    "experiments/README.md",
]
REPO_PATH = re.compile(r"`((?:gtp_engine|dlgo_web|dlgo|scripts|experiments|configs|tests|docs|weights)/[^`\s]+)`")


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


# Citations of a private specification that readers of the repository cannot open: its item and
# section numbers, its file names, and the thesis sections as it numbered them. Cite the book's
# chapter and section, the papers, or docs/book-differences.md instead. Written so that this
# file does not match itself.
PRIVATE_CITATION = re.compile(
    r"book[-]spec|design[.]md|shared/docs[/]"
    r"|\bA1[0] items?\b"  # its list of the book's defects
    r"|\bA[0-9]{1,2}\.[0-9]{1,2}\b"  # its sections
    r"|\bB[0-9]{1,2}-B[0-9]{1,2}\b|thesis[^\n]{0,60}\bB[0-9]{1,2}\b"  # its thesis part
)


def test_no_citations_of_documents_outside_the_repository():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    hits = []
    for name in listed.decode("utf-8").split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images, model files
        for number, line in enumerate(text.splitlines(), 1):
            if PRIVATE_CITATION.search(line):
                hits.append(f"{name}:{number}: {line.strip()}")
    assert not hits, "private citations (cite the book or docs/book-differences.md):\n" + "\n".join(hits)
