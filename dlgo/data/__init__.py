"""Game-archive pipeline (book chapter 7): archives -> samples -> chunk files -> training batches.

- ``archives``: ``.tar.gz`` archives of ``.sgf`` in the book's KGS layout, loose files, game ids;
  default sources ``../shared/data/kgs`` and ``../shared/data/tom9d``.
- ``split``: train/test split by game from a hash of the game id and a seed.
- ``results``: SGF results as value targets (time, forfeit, void: masked).
- ``samples``: one game -> planes, move labels (first move included), values.
- ``chunks``: compact compressed ``.npz`` chunks (0/1 planes packed to bits).
- ``processor``: ``GoDataProcessor``, parallel processing with a progress bar and a manifest.
- ``generator``: ``DataGenerator``, streaming shuffled batches with 8-fold symmetry augmentation.
- ``download``: ``KGSIndex``, the u-go.net index and archives with caching and resume.
- ``bench``: positions/s from archive to training batch (``python -m dlgo.data bench``).

Nothing in this package imports Keras.
"""

from __future__ import annotations

from dlgo.data.archives import default_sources, iter_records, list_game_ids
from dlgo.data.generator import Batch, DataGenerator, augment_batch
from dlgo.data.processor import GoDataProcessor, Manifest, load_manifest
from dlgo.data.results import RecordedResult, parse_result
from dlgo.data.samples import GameSamples, SkipGame, game_samples, samples_from_sgf
from dlgo.data.split import Split

__all__ = [
    "default_sources",
    "iter_records",
    "list_game_ids",
    "Batch",
    "DataGenerator",
    "augment_batch",
    "GoDataProcessor",
    "Manifest",
    "load_manifest",
    "RecordedResult",
    "parse_result",
    "GameSamples",
    "SkipGame",
    "game_samples",
    "samples_from_sgf",
    "Split",
]
