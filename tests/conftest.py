"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gnugo import GnuGo, find_gnugo
from gtp_client import InProcessEngine


@pytest.fixture(scope="session")
def gnugo():
    """A GNU Go process in GTP mode (Chinese rules, level 1), shared by the session."""
    path = find_gnugo()
    if path is None:
        pytest.skip("GNU Go not found: install gnugo (apt-get install gnugo) or put it on PATH")
    engine = GnuGo(path)
    yield engine
    engine.close()


@pytest.fixture
def eng(request: pytest.FixtureRequest) -> Iterator[InProcessEngine]:
    """An in-process engine on 9x9 with the test module's ``FAST`` settings (``--set`` lines)."""
    e = InProcessEngine(*getattr(request.module, "FAST", ()))
    e.ok("boardsize 9")
    yield e
    e.close()
