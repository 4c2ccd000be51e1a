"""The play layer: what turns a config, a clock and a position into a move, for every front end.

``PlaySession`` (``dlgo.play.session``) is the object the GTP engine and the web page drive:
the agents per board size (``agents``), the game (``game``), the clocks and the move budget
(``clock``), the move decision (``decision``), the resign history, the final count
(``counting``) and its one search thread (``worker``), where ``genmove``'s future (``move``) is
searched. Its refusals are ``dlgo.play.errors``; each front end words them in its own protocol.
"""
