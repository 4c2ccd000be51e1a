"""The dlgo GTP engine: ``python -m gtp_engine --config configs/default.toml`` (or ``dlgo-gtp``).

Modules: ``protocol`` (wire format), ``engine`` (state and dispatch), ``commands`` (the command
table and its handler groups), ``search_runner`` (search threads, budgets, pondering), ``game``
(position and history), ``time_control`` (time controls and budgets), ``decision`` (pass/resign
rules), ``analysis`` (output formats), ``scoring`` (dead stones and counting), ``config`` (TOML),
``agents`` (registry), ``channel`` (stdin reader thread and stdout writer). See gtp_engine/README.md.
"""

from dlgo import __version__

__all__ = ["__version__"]
