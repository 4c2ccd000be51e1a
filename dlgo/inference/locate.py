"""Which file plays a network: what ``dlgo-gtp --version`` and ``gomill-describe_engine`` report.

A config names a network (``x.keras``, or its export ``x.onnx``); what ONNX Runtime opens is its
int8 file or fp32 export, found by the same rules ``BatchEvaluator`` follows (a matching file
beside the network or in the user cache, ``dlgo.inference.onnx_cache`` and ``quantize``). This
reads metadata only: no session is opened and nothing is exported or quantized.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dlgo.inference.files import ModelFileError, is_onnx_network, network_file
from dlgo.inference.onnx_cache import DIGEST_KEY, cache_paths, network_digest
from dlgo.inference.onnx_meta import OnnxFormatError, read_metadata
from dlgo.inference.quantize import int8_paths

__all__ = ["NetworkOrigin", "locate_network"]


@dataclass(frozen=True)
class NetworkOrigin:
    """``network``: the file the config's path stands for; ``plays``: the file ONNX Runtime opens
    (None: none is made yet, the engine makes it at start-up, or plays Keras); ``runtime``:
    int8 or fp32; ``digest``: the network's SHA-256 (its ``.keras`` content)."""

    network: Path
    plays: Path | None
    runtime: str
    digest: str

    def describe(self) -> str:
        played = f"plays {self.plays} ({self.runtime})" if self.plays else f"no {self.runtime} ONNX file yet"
        return f"{self.network} (sha256 {self.digest[:12]}): {played}"


def _matching(paths: list[Path], digest: str) -> Path | None:
    for path in paths:
        try:
            if path.is_file() and read_metadata(path).get(DIGEST_KEY) == digest:
                return path.resolve()
        except (OSError, OnnxFormatError):
            continue
    return None


def locate_network(path: str | os.PathLike, runtime: str = "fp32") -> NetworkOrigin:
    """Where the network named ``path`` is played from; ``ModelFileError`` if it is absent."""
    network = network_file(path)
    if not network.is_file():
        raise ModelFileError(f"{network}: model file not found")
    try:
        digest = network_digest(network)
    except OSError as e:
        raise ModelFileError(f"{network}: cannot read it: {e}") from None
    plays = _matching(int8_paths(network, digest), digest) if runtime == "int8" else None
    if plays is None:
        runtime = "fp32"
        plays = network.resolve() if is_onnx_network(network) else _matching(cache_paths(network, digest), digest)
    return NetworkOrigin(network.resolve(), plays, runtime, digest)
