"""The dlgo GTP engine: ``python -m gtp_engine --config configs/engine/default.toml`` (or ``dlgo-gtp``).

Modules: ``protocol`` (wire format), ``engine`` (state and dispatch), ``commands`` (the command
table and its handler groups), ``search_runner`` (search threads, budgets, pondering), ``game``
(position and history), ``time_control`` (time controls and budgets), ``decision`` (the engine's
glue over the pass/resign rules of :mod:`dlgo.agent.termination`), ``analysis`` (output
formats), ``config`` (TOML; agents from :mod:`dlgo.agent_registry`), ``channel`` (stdin reader
thread and stdout writer). Dead stones and the final count come from :mod:`dlgo.deadstones`.
See gtp_engine/README.md.
"""

from dlgo import __version__

__all__ = ["__version__"]
