"""What every command group shares: the handler signature and the argument count check."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gtp_engine.protocol import SYNTAX_ERROR, Command, GtpError

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

__all__ = ["Handler", "expect_args"]

# A handler checks all its arguments before it changes anything and returns the answer's text,
# or None when it wrote a streamed answer itself (analysis, genmove_analyze).
Handler = Callable[["Engine", Command], "str | None"]


def expect_args(cmd: Command, count: int) -> tuple[str, ...]:
    """``cmd``'s arguments when there are exactly ``count``; GtpError(syntax error) otherwise."""
    if len(cmd.args) != count:
        raise GtpError(SYNTAX_ERROR)
    return cmd.args
