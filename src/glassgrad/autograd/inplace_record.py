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
# id(counter) -> (counter, what wrote, (code, line) of the user's frame or None). The code
# object, not its file and function names: the write costs two attribute reads less.
_LAST: OrderedDict[int, tuple[list, str, tuple[CodeType, int] | None]] = OrderedDict()


def note_write(counter: list[Any], what: str) -> None:
    """Record that ``what`` (e.g. ``"AddBackward0"``) just bumped ``counter``; the caller is
    glassgrad code, the line recorded is the innermost frame outside glassgrad."""
    frame = sys._getframe(1)
    code = frame.f_code
    while code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        if frame is None:
            break
        code = frame.f_code
    where = None if frame is None else (code, frame.f_lineno)
    key = id(counter)
    _LAST[key] = (counter, what, where)
    _LAST.move_to_end(key)
    if len(_LAST) > LIMIT:
        _LAST.popitem(last=False)


def last_write(counter: Any) -> tuple[str, tuple[str, int, str, str] | None] | None:
    """``(what, (file, line, function, code) or None)`` of the last recorded in-place write to
    ``counter``, or None if none is on record."""
    entry = _LAST.get(id(counter))
    if entry is None or entry[0] is not counter:
        return None
    _, what, where = entry
    if where is None:
        return what, None
    code, line = where
    filename = code.co_filename
    return what, (filename, line, code.co_name, linecache.getline(filename, line).strip())


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
