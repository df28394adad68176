"""Checkpoints in the safetensors format: ``save(obj, f)`` and ``load(f)``, never pickle.

A safetensors file is three parts (https://huggingface.co/docs/safetensors):

1. 8 bytes: ``N``, the length of the header, an unsigned little-endian 64-bit integer;
2. ``N`` bytes: a UTF-8 JSON object, ``{"__metadata__": {str: str}, name: {"dtype": "F32",
   "shape": [2, 3], "data_offsets": [begin, end]}, ...}``, padded with spaces;
3. the body: every tensor's bytes, little-endian and row-major, at ``[begin, end)`` counted
   from the start of the body, with no overlap and no hole.

glassgrad stores each tensor of ``obj`` in the body under a flat key (its path in the nested
structure: ``"state.0.exp_avg"``; a flat dict of tensors keeps its own keys, so a model's
``state_dict()`` reads in PyTorch through ``safetensors.torch.load_file`` unchanged). Everything
that is not a tensor (ints, floats, strings, bools, None, lists, tuples, dicts with non-string
keys) goes into ``__metadata__["glassgrad.structure"]`` as a JSON string, with each tensor
replaced by a reference to its key. Loading rebuilds that structure from a fixed set of tags;
nothing in a file can name a class or a function, so a crafted file cannot run code.

Reading and writing are done here with NumPy and :mod:`json` rather than the ``safetensors``
package, so that every check of a file happens before anything is loaded and each error names
the file and what is wrong with it; the tests check the result against ``safetensors`` itself.
"""

from __future__ import annotations

import io
import json
import math
import os
import struct
import tempfile
from collections.abc import Iterator
from typing import IO, Any, Union

import numpy as np

__all__ = ["save", "load"]

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

# safetensors dtype code <-> NumPy dtype, for the dtypes glassgrad tensors can hold.
_NUMPY_BY_CODE = {
    "F16": np.dtype("<f2"),
    "F32": np.dtype("<f4"),
    "F64": np.dtype("<f8"),
    "I8": np.dtype("i1"),
    "I16": np.dtype("<i2"),
    "I32": np.dtype("<i4"),
    "I64": np.dtype("<i8"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}
_CODE_BY_NUMPY = {dtype.newbyteorder("="): code for code, dtype in _NUMPY_BY_CODE.items()}
# Codes the format defines that glassgrad has no dtype for: a clear error, not "unknown".
_KNOWN_UNSUPPORTED_CODES = {"BF16", "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "C64", "C128"}

_METADATA_KEY = "__metadata__"
_STRUCTURE_KEY = "glassgrad.structure"
_FORMAT_KEY = "glassgrad.format"
_FORMAT_VERSION = "1"
_MAX_HEADER_BYTES = 100_000_000  # the limit of the reference implementation
_HEADER_LENGTH_BYTES = 8

# Tags of the structure JSON. Every JSON object in it is a tagged node, {"tuple": [...]},
# {"dict": [[key, value], ...]}, {"float": "nan"}, {"ndarray": key}, or {"tensor": key} with
# an optional "requires_grad": true; JSON null/bool/int/float/str/list stand for themselves.
_TENSOR, _NDARRAY, _TUPLE, _DICT, _FLOAT = "tensor", "ndarray", "tuple", "dict", "float"
_ALLOWED_KEY_TYPES = (str, int, float, bool, type(None))
_NO_STRUCTURE = object()  # the file has no glassgrad structure (a JSON null is a structure)


# ----------------------------------------------------------------------------- save


def save(obj: Any, f: FileLike) -> None:
    """Write tensors, or nested containers of tensors and plain values, to a safetensors file.

    ``obj`` may be a Tensor, a NumPy array, ``None``, a bool, int, float or str, or a list,
    tuple or dict of these (nested to any depth; dict keys may be str, int, float, bool or
    None), which covers a model's and an optimizer's ``state_dict()``. The file is written to
    a temporary name and then renamed, so a crash never leaves half a checkpoint behind.

    Each tensor is stored in the safetensors body under its path of keys joined by dots
    (``"state.0.exp_avg"``); a flat ``dict`` of str to Tensor keeps its keys as they are, so
    ``safetensors.torch.load_file`` reads a glassgrad ``state_dict`` with the same names.
    ``requires_grad`` is kept; the identity of tensors (two entries holding one tensor) and
    the ``nn.Parameter`` class are not: each entry loads as its own plain tensor. NumPy
    scalars come back as Python numbers and named tuples as plain tuples.

    Parameters
    ----------
    obj : Tensor | dict | list | tuple | ndarray | int | float | str | bool | None
        What to save.
    f : str | os.PathLike | binary file object
        Where to save it.

    Raises
    ------
    TypeError
        If ``obj`` holds something else (a module, a function, a set...), a dict key of another
        type, or a tensor of a dtype the format cannot store; the message gives its path.

    Example
    -------
    >>> glassgrad.save({"weight": glassgrad.ones(2), "step": 10}, "ckpt.safetensors")
    >>> glassgrad.load("ckpt.safetensors")
    {'weight': tensor([1., 1.]), 'step': 10}
    """
    arrays: dict[str, np.ndarray] = {}
    structure = _encode(obj, path=(), arrays=arrays)
    # The structure is stored even for a flat dict of tensors: it keeps the dict's order and
    # requires_grad, and other readers (safetensors.torch.load_file) simply ignore it.
    metadata = {
        _FORMAT_KEY: _FORMAT_VERSION,
        _STRUCTURE_KEY: json.dumps(structure, allow_nan=False, separators=(",", ":")),
    }
    blobs = {key: _to_little_endian_contiguous(key, value) for key, value in arrays.items()}
    _write_file(f, _serialize(blobs, metadata))


def _encode(obj: Any, path: tuple, arrays: dict[str, np.ndarray]) -> Any:
    """The JSON structure of ``obj``; tensors and arrays go into ``arrays`` under fresh keys."""
    tensor_type = _tensor_type()
    if isinstance(obj, tensor_type):
        node = {_TENSOR: _store(arrays, path, _tensor_array(obj))}
        if _tensor_requires_grad(obj):
            node["requires_grad"] = True
        return node
    if isinstance(obj, np.ndarray):
        return {_NDARRAY: _store(arrays, path, obj)}
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else {_FLOAT: repr(value)}
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, list):
        return [_encode(item, (*path, i), arrays) for i, item in enumerate(obj)]
    if isinstance(obj, tuple):
        return {_TUPLE: [_encode(item, (*path, i), arrays) for i, item in enumerate(obj)]}
    if isinstance(obj, dict):
        items = []
        for key, value in obj.items():
            if not isinstance(key, _ALLOWED_KEY_TYPES):
                raise TypeError(
                    f"glassgrad.save: dict key {key!r} of type {type(key).__name__} at "
                    f"{_describe(path)} cannot be stored; keys must be str, int, float, bool "
                    "or None"
                )
            items.append([_encode(key, path, {}), _encode(value, (*path, key), arrays)])
        return {_DICT: items}
    raise TypeError(
        f"glassgrad.save: cannot store an object of type {type(obj).__name__} at "
        f"{_describe(path)}; a checkpoint holds tensors, NumPy arrays, None, bool, int, float, "
        "str, and lists, tuples and dicts of these (save a module's state_dict(), not the module)"
    )


def _store(arrays: dict[str, np.ndarray], path: tuple, array: np.ndarray) -> str:
    # The path of keys is the name, so a flat state dict keeps its own names.
    key = ".".join(str(part) for part in path) if path else "tensor"
    if key in arrays or key == _METADATA_KEY:
        suffix = 1
        while f"{key}~{suffix}" in arrays:
            suffix += 1
        key = f"{key}~{suffix}"
    arrays[key] = array
    return key


def _describe(path: tuple) -> str:
    return "the top level" if not path else "key path " + repr(list(path))


def _to_little_endian_contiguous(key: str, array: np.ndarray) -> np.ndarray:
    code = _CODE_BY_NUMPY.get(array.dtype.newbyteorder("="))
    if code is None:
        raise TypeError(
            f"glassgrad.save: tensor {key!r} has dtype {array.dtype}, which the checkpoint "
            "format cannot store; supported: float16, float32, float64, int8, int16, int32, "
            "int64, uint8, bool"
        )
    # np.ascontiguousarray would turn a 0-d array into shape (1,).
    return np.asarray(array, dtype=_NUMPY_BY_CODE[code], order="C")


def _serialize(blobs: dict[str, np.ndarray], metadata: dict[str, str]) -> Iterator[bytes]:
    # Largest items first keeps every tensor aligned to its item size inside the body, as the
    # reference writer does; the header is padded with spaces to a multiple of 8 bytes.
    order = sorted(blobs, key=lambda key: -blobs[key].dtype.itemsize)
    header: dict[str, Any] = {_METADATA_KEY: metadata}
    offset = 0
    for key in order:
        array = blobs[key]
        header[key] = {
            "dtype": _CODE_BY_NUMPY[array.dtype.newbyteorder("=")],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + array.nbytes],
        }
        offset += array.nbytes
    header_bytes = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    header_bytes += b" " * (-len(header_bytes) % 8)
    yield struct.pack("<Q", len(header_bytes))
    yield header_bytes
    for key in order:
        yield blobs[key].tobytes()


def _write_file(f: FileLike, chunks: Iterator[bytes]) -> None:
    if hasattr(f, "write"):
        for chunk in chunks:
            f.write(chunk)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(
        prefix=".glassgrad-save-", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(descriptor, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


# ----------------------------------------------------------------------------- load


def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = True,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Read what :func:`save` wrote, or any safetensors file of supported dtypes.

    Every part of the file is checked before anything is loaded: the header length, the JSON,
    each entry's dtype, shape and byte range (inside the body, no overlap, no gap), and the
    structure. A file written by another safetensors writer (``safetensors.torch.save_file``)
    loads as a flat ``dict`` of name to Tensor, in the order of the file's header.

    ``map_location``, ``pickle_module``, ``weights_only``, ``mmap`` and other keyword arguments
    exist so that PyTorch code runs unchanged; they are ignored, since loading never unpickles
    and tensors always live in host memory.

    Parameters
    ----------
    f : str | os.PathLike | binary file object
        The file to read.

    Returns
    -------
    The saved object: tensors come back as new glassgrad Tensors that own their memory.

    Raises
    ------
    ValueError
        If the file is not a well-formed safetensors file (truncated, corrupted, crafted);
        the message names the file and the problem.

    Example
    -------
    >>> glassgrad.save({"w": glassgrad.ones(2)}, "w.safetensors")
    >>> glassgrad.load("w.safetensors")
    {'w': tensor([1., 1.])}
    """
    if hasattr(f, "read"):
        name = getattr(f, "name", None) or f"<{type(f).__name__}>"
        return _load_from_stream(f, str(name))
    path = os.fspath(f)
    with open(path, "rb") as stream:
        return _load_from_stream(stream, path)


def _load_from_stream(stream: IO[bytes], name: str) -> Any:
    if not (hasattr(stream, "seekable") and stream.seekable()):
        stream = io.BytesIO(stream.read())
    start = stream.tell()
    file_size = stream.seek(0, io.SEEK_END) - start
    stream.seek(start)

    def fail(problem: str) -> ValueError:
        return ValueError(f"glassgrad.load: {name} is not a valid safetensors file: {problem}")

    entries, metadata, body_start = _read_header(stream, file_size, fail)
    structure = _decode_metadata_structure(metadata, fail)
    if structure is not _NO_STRUCTURE:
        _check_references(structure, entries, fail)

    arrays = {}
    for key, (dtype, shape, begin, end) in entries.items():
        stream.seek(start + body_start + begin)
        arrays[key] = _read_array(stream, key, dtype, shape, end - begin, fail)

    if structure is _NO_STRUCTURE:  # a file from another writer: a flat dict of tensors
        return {key: _make_tensor(array, requires_grad=False) for key, array in arrays.items()}
    try:
        return _decode(structure, arrays)
    except RecursionError:
        raise fail("the structure is nested too deeply") from None


def _read_array(stream: IO[bytes], key: str, dtype: np.dtype, shape, nbytes: int, fail):
    array = np.empty(shape, dtype=dtype)
    raw = memoryview(array.reshape(-1).view(np.uint8))
    filled = 0
    while filled < nbytes:
        count = stream.readinto(raw[filled:])
        if not count:
            raise fail(f"tensor {key!r}: the file ended while reading its {nbytes} bytes")
        filled += count
    if dtype == np.bool_ and raw.nbytes and np.asarray(raw).max() > 1:
        raise fail(f"tensor {key!r} has dtype BOOL but holds bytes other than 0 and 1")
    return array.astype(dtype.newbyteorder("="), copy=False)


def _read_header(stream: IO[bytes], file_size: int, fail) -> tuple[dict, dict, int]:
    """Parse and validate the header: (entries by key, metadata, body offset in the file)."""
    if file_size < _HEADER_LENGTH_BYTES:
        raise fail(
            f"the file is {file_size} bytes long, too short for the 8-byte header length "
            "(truncated or empty file)"
        )
    (header_length,) = struct.unpack("<Q", stream.read(_HEADER_LENGTH_BYTES))
    body_size = file_size - _HEADER_LENGTH_BYTES - header_length
    if header_length > _MAX_HEADER_BYTES:
        raise fail(
            f"header length {header_length} is larger than the limit of {_MAX_HEADER_BYTES} "
            "bytes (corrupted header length)"
        )
    if body_size < 0:
        raise fail(
            f"header length {header_length} runs past the end of the file "
            f"({file_size} bytes; truncated file or corrupted header length)"
        )
    try:
        text = stream.read(header_length).decode("utf-8")
    except UnicodeDecodeError as error:
        raise fail(f"the header is not valid UTF-8 ({error})") from None
    if not text.startswith("{"):
        raise fail("the header is not a JSON object (it must start with '{')")
    try:
        header = json.loads(
            text, object_pairs_hook=_no_duplicate_keys, parse_constant=_reject_constant
        )
    except ValueError as error:
        raise fail(f"the header is not valid JSON ({error})") from None
    except RecursionError:
        raise fail("the header JSON is nested too deeply") from None

    metadata = header.pop(_METADATA_KEY, None)
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict) or not all(
        isinstance(value, str) for value in metadata.values()
    ):
        raise fail("__metadata__ must be a JSON object of strings to strings")

    entries = {}
    for key, info in header.items():
        entries[key] = _check_entry(key, info, fail)
    _check_body_layout(entries, body_size, fail)
    return entries, metadata, _HEADER_LENGTH_BYTES + header_length


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed in JSON")


def _check_entry(key: str, info: Any, fail) -> tuple[np.dtype, tuple[int, ...], int, int]:
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise fail(
            f"entry {key!r} must be an object with exactly the fields dtype, shape and "
            f"data_offsets, got {info!r:.200}"
        )
    code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if code not in _NUMPY_BY_CODE:
        if code in _KNOWN_UNSUPPORTED_CODES:
            raise fail(f"tensor {key!r} has dtype {code}, which glassgrad does not support")
        raise fail(f"tensor {key!r} has unknown dtype {code!r:.50}")
    if not isinstance(shape, list) or not all(_is_natural(n) for n in shape):
        raise fail(f"tensor {key!r} has shape {shape!r:.200}; expected a list of integers >= 0")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_natural, offsets))):
        raise fail(
            f"tensor {key!r} has data_offsets {offsets!r:.200}; expected [begin, end], "
            "two integers >= 0"
        )
    begin, end = offsets
    dtype = _NUMPY_BY_CODE[code]
    expected = math.prod(shape) * dtype.itemsize
    if end < begin or end - begin != expected:
        raise fail(
            f"tensor {key!r}: dtype {code} and shape {shape} need {expected} bytes, but "
            f"data_offsets [{begin}, {end}] span {end - begin}"
        )
    return dtype, tuple(shape), begin, end


def _is_natural(value: Any) -> bool:
    return type(value) is int and value >= 0


def _check_body_layout(entries: dict, body_size: int, fail) -> None:
    # The body must be covered exactly: no overlap, no gap, nothing after the last tensor.
    position = 0
    ranges = sorted((begin, end, key) for key, (_, _, begin, end) in entries.items())
    for begin, end, key in ranges:
        if begin != position:
            problem = "overlaps the previous tensor" if begin < position else "leaves a gap"
            raise fail(f"tensor {key!r} at data_offsets [{begin}, {end}] {problem}")
        if end > body_size:
            raise fail(
                f"tensor {key!r} at data_offsets [{begin}, {end}] runs past the end of the "
                f"data ({body_size} bytes; truncated file?)"
            )
        position = end
    if position != body_size:
        raise fail(
            f"the data section is {body_size} bytes but the tensors cover {position} "
            "(trailing bytes after the last tensor)"
        )


def _decode_metadata_structure(metadata: dict[str, str], fail) -> Any:
    if _STRUCTURE_KEY not in metadata:
        return _NO_STRUCTURE
    version = metadata.get(_FORMAT_KEY)
    if version != _FORMAT_VERSION:
        raise fail(f"unsupported {_FORMAT_KEY} {version!r:.50}; this reader knows '1'")
    try:
        structure = json.loads(metadata[_STRUCTURE_KEY], parse_constant=_reject_constant)
    except ValueError as error:
        raise fail(f"{_STRUCTURE_KEY} in __metadata__ is not valid JSON ({error})") from None
    except RecursionError:
        raise fail(f"{_STRUCTURE_KEY} in __metadata__ is nested too deeply") from None
    _check_structure(structure, fail)
    return structure


def _check_structure(root: Any, fail) -> None:
    """Check every node of the structure before anything is built (iteratively: no depth limit)."""
    pending = [root]
    while pending:
        node = pending.pop()
        if node is None or isinstance(node, (bool, int, float, str)):
            continue
        if isinstance(node, list):
            pending.extend(node)
            continue
        if not (isinstance(node, dict) and _is_known_tag_node(node)):
            raise fail(
                f"structure node {node!r:.100} is not a known kind of value (the structure "
                "may only hold JSON values and tensor, ndarray, tuple, dict and float tags)"
            )
        tag = _tag_of(node)
        value = node[tag]
        if tag == _TUPLE:
            pending.extend(value)
        elif tag == _DICT:
            for item in value:
                if not (isinstance(item, list) and len(item) == 2):
                    raise fail(f"dict item {item!r:.100} is not a [key, value] pair")
                key, item_value = item
                is_float_tag = isinstance(key, dict) and len(key) == 1 and _FLOAT in key
                if not (is_float_tag or isinstance(key, _ALLOWED_KEY_TYPES)):
                    raise fail(f"dict key {key!r:.100} is not a str, int, float, bool or None")
                pending.append(key)
                pending.append(item_value)


def _tag_of(node: dict) -> str:
    return _TENSOR if _TENSOR in node else next(iter(node))


def _is_known_tag_node(node: dict) -> bool:
    if len(node) == 2:
        return node.keys() == {_TENSOR, "requires_grad"} and (
            isinstance(node[_TENSOR], str) and node["requires_grad"] is True
        )
    if len(node) != 1:
        return False
    tag, value = next(iter(node.items()))
    if tag in (_TENSOR, _NDARRAY):
        return isinstance(value, str)
    if tag == _FLOAT:
        return value in ("inf", "-inf", "nan")
    return tag in (_TUPLE, _DICT) and isinstance(value, list)


def _check_references(structure: Any, entries: dict, fail) -> None:
    referenced = set()
    pending = [structure]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            tag = _tag_of(node)
            value = node[tag]
            if tag in (_TENSOR, _NDARRAY):
                if value not in entries:
                    raise fail(f"the structure refers to tensor {value!r:.100}, which is missing")
                if value in referenced:
                    raise fail(f"the structure refers to tensor {value!r:.100} twice")
                referenced.add(value)
            elif tag in (_TUPLE, _DICT):
                pending.extend(value)
    unused = [key for key in entries if key not in referenced]
    if unused:
        raise fail(f"tensors {unused[:5]} are stored but the structure never uses them")


def _decode(node: Any, arrays: dict[str, np.ndarray]) -> Any:
    if isinstance(node, list):
        return [_decode(item, arrays) for item in node]
    if not isinstance(node, dict):
        return node
    tag = _tag_of(node)
    value = node[tag]
    if tag == _TENSOR:
        return _make_tensor(arrays[value], requires_grad=node.get("requires_grad", False))
    if tag == _NDARRAY:
        return arrays[value]
    if tag == _FLOAT:
        return float(value)
    if tag == _TUPLE:
        return tuple(_decode(item, arrays) for item in value)
    return {_decode(key, arrays): _decode(item, arrays) for key, item in value}


# ------------------------------------------------------------- the Tensor contract


def _tensor_type() -> type:
    from ._tensor import Tensor

    return Tensor


def _tensor_array(tensor: Any) -> np.ndarray:
    return tensor._data


def _tensor_requires_grad(tensor: Any) -> bool:
    return bool(tensor.requires_grad)


def _make_tensor(array: np.ndarray, requires_grad: bool) -> Any:
    import glassgrad

    tensor = glassgrad.from_numpy(array)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor
