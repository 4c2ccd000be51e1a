"""The dlgo GTP engine: ``python -m gtp_engine --config configs/engine/default.toml`` (or ``dlgo-gtp``).

Modules: ``protocol`` (wire format), ``engine`` (commands), ``game`` (position and history),
``clock`` (time controls and budgets), ``decision`` (pass/resign rules), ``analysis`` (output
formats), ``config`` (TOML; agents from ``dlgo.agent.registry``), ``channel`` (stdin reader
thread and stdout writer). Dead stones and the final count come from :mod:`dlgo.deadstones`.
See gtp_engine/README.md.
"""

from dlgo import __version__

__all__ = ["__version__"]
