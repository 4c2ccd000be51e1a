"""dlgo: the library behind the engine (rules, scoring, SGF, agents, search, learning).

Importing ``dlgo`` or its rules modules never imports TensorFlow or Keras.
"""

__version__ = "0.1.0"
