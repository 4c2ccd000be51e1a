"""Shared fixtures."""

from __future__ import annotations

import pytest
from gnugo import GnuGo, find_gnugo


@pytest.fixture(scope="session")
def gnugo():
    """A GNU Go process in GTP mode (Chinese rules, level 1), shared by the session."""
    path = find_gnugo()
    if path is None:
        pytest.skip("GNU Go not found: install gnugo (apt-get install gnugo) or put it on PATH")
    engine = GnuGo(path)
    yield engine
    engine.close()
