"""An ONNX file's ``metadata_props`` read straight from its bytes, without ONNX Runtime or ``onnx``.

An ONNX file is one protobuf ``ModelProto``; its metadata is the repeated field 14 of
``StringStringEntryProto`` (key 1, value 2). Walking the top-level fields and skipping the others
by their lengths (the graph is one length-delimited field) reads it in microseconds, where opening
a session on a 12 MB network costs a fraction of a second: enough to ask which ``.keras`` file an
export came from before deciding to open it.
"""

from __future__ import annotations

import os

__all__ = ["OnnxFormatError", "read_metadata"]

_METADATA_FIELD = 14
_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5


class OnnxFormatError(ValueError):
    """Bytes that are not a well-formed ONNX (protobuf) file."""


def _varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise OnnxFormatError("truncated or malformed varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(data: bytes | memoryview):
    """(field number, wire type, value) of each field of one message; a length-delimited value
    is a memoryview of its bytes."""
    pos = 0
    while pos < len(data):
        tag, pos = _varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == _VARINT:
            value, pos = _varint(data, pos)
        elif wire == _LENGTH:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise OnnxFormatError("a field runs past the end of the file")
            value, pos = data[pos : pos + length], pos + length
        elif wire in (_FIXED64, _FIXED32):
            width = 8 if wire == _FIXED64 else 4
            if pos + width > len(data):
                raise OnnxFormatError("a field runs past the end of the file")
            value, pos = data[pos : pos + width], pos + width
        else:
            raise OnnxFormatError(f"unknown protobuf wire type {wire}")
        yield number, wire, value


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The ``metadata_props`` of an ONNX file; ``OnnxFormatError`` for bytes that are not one,
    ``OSError`` for a file that cannot be read."""
    with open(path, "rb") as f:
        data = memoryview(f.read())
    out: dict[str, str] = {}
    for number, wire, value in _fields(data):
        if number != _METADATA_FIELD:
            continue
        if wire != _LENGTH:
            raise OnnxFormatError("metadata_props is not a message")
        entry = {n: bytes(v).decode("utf-8", "replace") for n, w, v in _fields(value) if w == _LENGTH}
        out[entry.get(1, "")] = entry.get(2, "")
    return out
