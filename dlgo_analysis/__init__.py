"""The analysis engine: KataGo's JSON analysis protocol on stdin/stdout (docs/analysis.md).

``python -m dlgo_analysis`` (``dlgo-analysis``). The front end only: the protocol's parsing
(``protocol``, ``fields``), the JSON lines out (``output``) and the main loop (``engine``); the
analysis itself is the library's ``dlgo.analysis``.
"""
