"""AlphaGo Zero's training pipeline (book chapter 14; Silver et al. 2017, Methods). The agent it
trains and plays with, ``ZeroAgent``, is the search wing's (``dlgo.search.zero_agent``): the GTP
engine plays it without importing this package.

- ``selfplay``, ``experience``, ``trainer``, ``workers``, ``training_loop`` (its phases
  ``selfplay_phase``, ``train_phase`` and ``matches``, each given its context and a ``phase``
  runtime; with ``loop_state``, ``handover``, ``report``, ``loop_clock`` and ``loop_config``): the
  training loop; ``loop``: its command line (``python -m dlgo.zero.loop``).

Importing this package loads no Keras or TensorFlow.
"""
