"""Who last changed a tensor in place: the node of the in-place op and the user's line.

PyTorch's "modified by an inplace operation" error says which saved tensor is stale and its
versions, but not what changed it, and the change is often far from the backward call (an
optimizer step between forward and backward, an ``x += 1`` three lines down). Every in-place
write notes its version counter here with what wrote and from which line of user code; the
error and the graph explorer read it back. The record is bounded (the newest ``LIMIT`` counters)
and keyed by the counter object itself, so it never names the wrong tensor.
"""

from __future__ import annotations

import linecache
import os
import sys
from collections import OrderedDict
from types import CodeType
from typing import Any

__all__ = ["note_write", "last_write", "describe_last_write"]

LIMIT = 1024
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# id(counter) -> (counter, what wrote, (code, byte offset of its instruction) of the user's
# frame or None). The code object and offset, not file, function and line: a frame's f_lineno
# decodes the line table, which only reading the record needs.
_LAST: OrderedDict[int, tuple[list, str, tuple[CodeType, int] | None]] = OrderedDict()
_INSIDE: dict[str, bool] = {}  # a code file name: glassgrad's own (a str caches its hash)


def note_write(counter: list[Any], what: str) -> None:
    """Record that ``what`` (e.g. ``"AddBackward0"``) just bumped ``counter``; the caller is
    glassgrad code, the line recorded is the innermost frame outside glassgrad."""
    frame = sys._getframe(1)
    while True:
        filename = frame.f_code.co_filename
        inside = _INSIDE.get(filename)
        if inside is None:
            inside = _INSIDE[filename] = filename.startswith(_PACKAGE_DIR)
        if not inside:
            break
        frame = frame.f_back
        if frame is None:
            break
    where = None if frame is None else (frame.f_code, frame.f_lasti)
    key = id(counter)
    _LAST[key] = (counter, what, where)
    _LAST.move_to_end(key)
    if len(_LAST) > LIMIT:
        _LAST.popitem(last=False)


def _line(code: CodeType, offset: int) -> int | None:
    """The source line of the instruction at byte ``offset`` of ``code`` (a frame's
    f_lineno for that f_lasti)."""
    line = None
    for start, end, number in code.co_lines():
        if start <= offset < end:
            return number
        if number is not None and start <= offset:
            line = number
    return line


def last_write(counter: Any) -> tuple[str, tuple[str, int, str, str] | None] | None:
    """``(what, (file, line, function, code) or None)`` of the last recorded in-place write to
    ``counter``, or None if none is on record."""
    entry = _LAST.get(id(counter))
    if entry is None or entry[0] is not counter:
        return None
    _, what, where = entry
    if where is None:
        return what, None
    code, offset = where
    line = _line(code, offset)
    filename = code.co_filename
    return what, (filename, line, code.co_name, linecache.getline(filename, line or 0).strip())


def describe_last_write(counter: Any) -> str:
    """`` The last in-place change to it: ... at file:line in function: code.`` or ``""``."""
    found = last_write(counter)
    if found is None:
        return ""
    what, where = found
    text = f" The last in-place change to it was made by {what}"
    if where is not None:
        filename, line, function, code = where
        text += f", at {filename}:{line} in {function}" + (f": {code}" if code else "")
    return text + "."
