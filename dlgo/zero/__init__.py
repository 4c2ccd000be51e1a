"""AlphaGo Zero (book chapter 14; Silver et al. 2017, Methods): the Zero agent's defaults and the training
pipeline. The PUCT search it plays with is the search wing's (``dlgo.search``).

- ``agent``: ``ZeroAgent`` (``dlgo.search.PUCTAgent`` on a Zero network), the agent the GTP
  engine and self-play use.
- ``selfplay``, ``experience``, ``trainer``, ``workers``, ``training_loop`` (with ``matches``,
  ``handover``, ``report``, ``loop_clock`` and ``loop_config``): the training loop; ``loop``: its
  command line (``python -m dlgo.zero.loop``).

Importing this package loads no Keras or TensorFlow; ``ZeroAgent.from_model`` does unless an ONNX
export of the model is cached (``dlgo.inference.onnx_cache``).
"""

from dlgo.zero.agent import ZeroAgent, default_temperature_moves

__all__ = ["ZeroAgent", "default_temperature_moves"]
