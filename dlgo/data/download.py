"""Downloading the KGS archives from u-go.net like the book's ``KGSIndex`` (7.1.2), with a cache
and resumable downloads.

    index = KGSIndex(data_directory="data/kgs")      # url defaults to KGS_INDEX_URL
    index.download_files(jobs=4)

- The index page is fetched once and kept as ``kgs_index.html`` in the data folder (``refresh``
  fetches it again); every ``.tar.gz`` link on it is an archive (``KGS-2017_12-19-1488-.tar.gz``:
  the second-to-last dash field is the number of games, the second the year).
- An archive already in the folder is skipped. A download goes to ``<name>.part`` and is renamed
  when complete; an interrupted one resumes from the bytes it has (HTTP ``Range``), or starts
  over when the server does not resume. ``Content-Length`` is checked.
- Without network (as in this project's sandbox) every failure is a ``DownloadError`` that says
  what could not be reached and where to put archives by hand; nothing half-written is left
  under the final name.

Only the standard library (``urllib``) is used, so ``file://`` URLs work too (tests use them).
"""

from __future__ import annotations

import os
import re
import shutil
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlparse

__all__ = ["KGS_INDEX_URL", "KGSIndex", "ArchiveLink", "DownloadError", "download_file", "parse_index"]

KGS_INDEX_URL = "https://u-go.net/gamerecords/"
INDEX_FILE = "kgs_index.html"
_LINK = re.compile(r"""href\s*=\s*["']([^"']+?\.tar\.gz)["']""", re.IGNORECASE)
_BLOCK = 1 << 16


class DownloadError(RuntimeError):
    """The index or an archive could not be fetched."""


@dataclass(frozen=True)
class ArchiveLink:
    url: str
    filename: str
    num_games: int | None
    year: int | None


def _archive_info(url: str) -> ArchiveLink:
    filename = os.path.basename(urlparse(url).path)
    fields = filename.split("-")
    num_games = int(fields[-2]) if len(fields) >= 3 and fields[-2].isdigit() else None
    year_text = fields[1].split("_")[0] if len(fields) >= 2 else ""
    year = int(year_text) if year_text.isdigit() else None
    return ArchiveLink(url, filename, num_games, year)


def parse_index(html: str, base_url: str) -> list[ArchiveLink]:
    """Archive links of an index page, in page order, without duplicates."""
    urls = dict.fromkeys(urljoin(base_url, m.group(1)) for m in _LINK.finditer(html))
    return [_archive_info(u) for u in urls]


def _open(url: str, timeout: float, start: int = 0):
    request = urllib.request.Request(url, headers={"User-Agent": "dlgo-data/1"})
    if start:
        request.add_header("Range", f"bytes={start}-")
    try:
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (user-given URL)
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise DownloadError(f"cannot fetch {url}: {reason}") from e


def download_file(url: str, target: str | os.PathLike, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``target`` through ``target.part``, resuming a partial download."""
    target = Path(target)
    if target.exists():
        return target
    part = target.with_name(target.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    response = _open(url, timeout, have)
    with response:
        status = getattr(response, "status", None) or 200
        resumed = have > 0 and status == 206
        if not resumed:
            have = 0
        length = response.headers.get("Content-Length")
        expected = have + int(length) if length and length.isdigit() else None
        try:
            with open(part, "ab" if resumed else "wb") as f:
                shutil.copyfileobj(response, f, _BLOCK)
        except OSError as e:
            raise DownloadError(f"download of {url} interrupted: {e} (run again to resume)") from e
    size = part.stat().st_size
    if expected is not None and size != expected:
        raise DownloadError(f"download of {url} incomplete: {size} of {expected} bytes (run again to resume)")
    os.replace(part, target)
    return target


class KGSIndex:
    """The u-go.net index of KGS archives and their download (the book's ``KGSIndex``)."""

    def __init__(
        self,
        url: str = KGS_INDEX_URL,
        data_directory: str | os.PathLike = "data",
        index_page: str = INDEX_FILE,
        timeout: float = 60.0,
    ) -> None:
        self.url = url
        self.data_directory = Path(data_directory)
        self.index_page = self.data_directory / index_page
        self.timeout = timeout

    def load_index(self, refresh: bool = False) -> list[ArchiveLink]:
        """The archive links, from the cached page when there is one."""
        if refresh or not self.index_page.exists():
            response = _open(self.url, self.timeout)
            with response:
                html = response.read()
            self.data_directory.mkdir(parents=True, exist_ok=True)
            tmp = self.index_page.with_name(self.index_page.name + ".tmp")
            tmp.write_bytes(html)
            os.replace(tmp, self.index_page)
        text = self.index_page.read_bytes().decode("utf-8", errors="replace")
        links = parse_index(text, self.url)
        if not links:
            raise DownloadError(f"{self.url}: no .tar.gz links on the index page (cached in {self.index_page})")
        return links

    def download_files(self, jobs: int = 4, max_archives: int | None = None, refresh: bool = False) -> list[Path]:
        """Download every archive not yet in the folder (``jobs`` at a time); returns their paths."""
        try:
            links = self.load_index(refresh)
        except DownloadError as e:
            raise DownloadError(
                f"{e}. Without network, copy the archives (*.tar.gz) into {self.data_directory} "
                "or point the tools at a folder that has them"
            ) from e
        if max_archives is not None:
            links = links[:max_archives]
        self.data_directory.mkdir(parents=True, exist_ok=True)

        def fetch(link: ArchiveLink) -> Path:
            return download_file(link.url, self.data_directory / link.filename, self.timeout)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(fetch, links))
