"""``Summary`` protocol buffers for each kind of value, as ``torch.utils.tensorboard.summary``
builds them, so TensorBoard's dashboards read glassgrad's files as PyTorch's.

Examples
--------
>>> summary = scalar("loss", glassgrad.tensor(0.25))
>>> summary.value[0].tag, summary.value[0].simple_value
('loss', 0.25)
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._convert import convert_to_HWC, make_np

__all__ = [
    "scalar",
    "scalar_value",
    "histogram",
    "histogram_raw",
    "make_histogram",
    "default_bins",
    "image",
    "make_image",
    "text",
    "tensor_proto",
    "hparams",
    "pr_curve",
    "pr_curve_raw",
    "compute_curve",
    "custom_scalars",
    "audio",
]

# TensorBoard's pr_curve plugin reads at most this many thresholds.
MAX_PR_THRESHOLDS = 127


def scalar(
    name: str,
    value: Any,
    new_style: bool = False,
    double_precision: bool = False,
    what: str = "add_scalar",
) -> Summary:
    """A one-number summary: ``simple_value``, or with ``new_style`` a float (or double) tensor
    read by the scalars plugin."""
    number = scalar_value(name, value, what)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    if double_precision:
        proto = TensorProto(double_val=[number], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[number], dtype="DT_FLOAT")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def scalar_value(name: str, value: Any, what: str = "add_scalar") -> float:
    """``value`` (a one-element tensor or array, or a number) as a Python float."""
    if type(value) is float:  # what loss.item() gives: the common case, at no cost
        return value
    array = make_np(value, what).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            f"{what}: tag {name!r}: the value should contain one element (0 dimensions); was "
            f"given size: {array.size} and {array.ndim} dimensions (shape {tuple(array.shape)})"
        )
    return float(array)


def default_bins() -> list[float]:
    """TensorBoard's histogram edges: +-1e-12 growing by 10% to 1e20, and 0."""
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    return [-e for e in reversed(positive)] + [0] + positive


def histogram(name: str, values: Any, bins: Any, max_bins: int | None = None) -> Summary:
    """A histogram of ``values`` with NumPy's ``bins`` (a count, edges or a method name)."""
    array = make_np(values, "add_histogram")
    return Summary(
        value=[Summary.Value(tag=name, histo=make_histogram(array.astype(float), bins, max_bins))]
    )


def make_histogram(values: np.ndarray, bins: Any, max_bins: int | None = None) -> HistogramProto:
    """A ``HistogramProto`` of ``values``: the right edges of the buckets from the first to the
    last non-empty one, with one empty bucket in front (TensorBoard keeps only right edges)."""
    if values.size == 0:
        raise ValueError("add_histogram: the input has no element")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # Merge neighbouring buckets, padding the count list to a whole number of groups.
        group = len(counts) // max_bins
        remainder = len(counts) % group
        if remainder:
            counts = np.pad(counts, [[0, group - remainder]])
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    nonzero = np.flatnonzero(counts)
    first, last = int(nonzero[0]), int(nonzero[-1]) + 1
    if first > 0:
        counts = counts[first - 1 : last]
    else:
        counts = np.concatenate([[0], counts[:last]])
    limits = limits[first : last + 1]
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def histogram_raw(
    name: str,
    min: float,  # noqa: A002 - PyTorch's argument names
    max: float,  # noqa: A002
    num: int,
    sum: float,  # noqa: A002
    sum_squares: float,
    bucket_limits: Sequence[float],
    bucket_counts: Sequence[float],
) -> Summary:
    """A histogram given by its statistics and buckets."""
    histo = HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=list(bucket_limits),
        bucket=list(bucket_counts),
    )
    return Summary(value=[Summary.Value(tag=name, histo=histo)])


def image(
    tag: str, value: Any, rescale: float = 1, dataformats: str = "NCHW", what: str = "add_image"
) -> Summary:
    """A PNG image: floats are taken in [0, 1], uint8 in [0, 255]; a batch is tiled."""
    array = make_np(value, what)
    hwc = convert_to_HWC(array, dataformats, what)
    scale = 1 if hwc.dtype == np.uint8 else 255
    pixels = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(pixels, rescale))])


def make_image(pixels: np.ndarray, rescale: float = 1) -> Summary.Image:
    """PNG-encode an ``HWC`` uint8 array (resized by ``rescale``)."""
    from PIL import Image

    height, width, channels = pixels.shape
    picture = Image.fromarray(pixels)
    if rescale != 1:
        size = (int(width * rescale), int(height * rescale))
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue()
    )


def text(tag: str, text_string: str) -> Summary:
    """A text summary (markdown), tagged ``<tag>/text_summary`` as PyTorch tags it."""
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    if not isinstance(text_string, str):
        raise TypeError(f"add_text: text_string must be a str, got {type(text_string).__name__}")
    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=TextPluginData(version=0).SerializeToString()
        )
    )
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[text_string.encode("utf-8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(
        value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=proto)]
    )


# NumPy dtype -> (TensorProto dtype, value field); float16 values go as their bit patterns.
_TENSOR_FIELDS = {
    np.dtype(np.float16): ("DT_HALF", "half_val"),
    np.dtype(np.float32): ("DT_FLOAT", "float_val"),
    np.dtype(np.float64): ("DT_DOUBLE", "double_val"),
    np.dtype(np.int8): ("DT_INT8", "int_val"),
    np.dtype(np.uint8): ("DT_UINT8", "int_val"),
    np.dtype(np.int16): ("DT_INT16", "int_val"),
    np.dtype(np.int32): ("DT_INT32", "int_val"),
    np.dtype(np.int64): ("DT_INT64", "int64_val"),
    np.dtype(np.bool_): ("DT_BOOL", "bool_val"),
    np.dtype(np.complex64): ("DT_COMPLEX64", "scomplex_val"),
    np.dtype(np.complex128): ("DT_COMPLEX128", "dcomplex_val"),
}


def tensor_proto(tag: str, value: Any) -> Summary:
    """A whole tensor, read back by the ``tensor`` plugin."""
    array = make_np(value, "add_tensor")
    if array.nbytes >= 1 << 31:
        raise ValueError("add_tensor: the tensor is bigger than protocol buffers' 2 GB limit")
    if array.dtype not in _TENSOR_FIELDS:
        raise ValueError(f"add_tensor: {tag} has unsupported tensor dtype {array.dtype}")
    dtype, field = _TENSOR_FIELDS[array.dtype]
    flat = array.reshape(-1)
    if dtype == "DT_HALF":
        items = flat.view(np.uint16).tolist()
    elif np.iscomplexobj(flat):
        items = flat.view(flat.real.dtype).tolist()
    else:
        items = flat.tolist()
    proto = TensorProto(
        dtype=dtype,
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in array.shape]),
        **{field: items},
    )
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=proto)])


def hparams(
    hparam_dict: Mapping[str, Any],
    metric_dict: Mapping[str, Any],
    hparam_domain_discrete: Mapping[str, list[Any]] | None = None,
) -> tuple[Summary, Summary, Summary]:
    """The three summaries of the hparams plugin: the experiment (hyperparameters and metric
    tags), the session's start (the values) and its end."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import (
        DataType,
        Experiment,
        HParamInfo,
        MetricInfo,
        MetricName,
        Status,
    )
    from tensorboard.plugins.hparams.metadata import (
        EXPERIMENT_TAG,
        PLUGIN_DATA_VERSION,
        PLUGIN_NAME,
        SESSION_END_INFO_TAG,
        SESSION_START_INFO_TAG,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import (
        HParamsPluginData,
        SessionEndInfo,
        SessionStartInfo,
    )

    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("add_hparams: hparam_dict and metric_dict should be dictionaries")
    discrete = hparam_domain_discrete or {}
    if not isinstance(discrete, dict):
        raise TypeError("add_hparams: hparam_domain_discrete should be a dictionary")
    for name, values in discrete.items():
        if (
            name not in hparam_dict
            or not isinstance(values, list)
            or not all(isinstance(v, type(hparam_dict[name])) for v in values)
        ):
            raise TypeError(
                f"add_hparams: hparam_domain_discrete[{name!r}] should be a list of the same "
                f"type as hparam_dict[{name!r}]"
            )

    start = SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        # A bool is an int, so it is logged as the number 0 or 1, as PyTorch logs it.
        if isinstance(value, (int, float)):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(value, str):
            field, kind = "string_value", "DATA_TYPE_STRING"
        elif isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "numpy"):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
            value = float(make_np(value, "add_hparams").reshape(-1)[0])
        else:
            raise ValueError(
                f"add_hparams: hparam_dict[{name!r}] should be an int, float, str, bool or "
                f"tensor, got {type(value).__name__}"
            )
        setattr(start.hparams[name], field, value)
        domain = None
        if name in discrete:
            domain = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: v}) for v in discrete[name]]
            )
        infos.append(HParamInfo(name=name, type=DataType.Value(kind), domain_discrete=domain))

    def plugin_summary(tag: str, **content: Any) -> Summary:
        data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
        metadata = SummaryMetadata(
            plugin_data=SummaryMetadata.PluginData(
                plugin_name=PLUGIN_NAME, content=data.SerializeToString()
            )
        )
        return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])

    metrics = [MetricInfo(name=MetricName(tag=tag)) for tag in metric_dict]
    experiment = plugin_summary(
        EXPERIMENT_TAG, experiment=Experiment(hparam_infos=infos, metric_infos=metrics)
    )
    session_start = plugin_summary(SESSION_START_INFO_TAG, session_start_info=start)
    session_end = plugin_summary(
        SESSION_END_INFO_TAG,
        session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS")),
    )
    return experiment, session_start, session_end


def _pr_curve_summary(tag: str, data: np.ndarray, num_thresholds: int) -> Summary:
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="pr_curves", content=content)
    )
    proto = TensorProto(
        dtype="DT_FLOAT",
        float_val=data.reshape(-1).tolist(),
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in data.shape]),
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=proto)])


def pr_curve(
    tag: str,
    labels: Any,
    predictions: Any,
    num_thresholds: int = MAX_PR_THRESHOLDS,
    weights: Any = None,
) -> Summary:
    """A precision-recall curve of ``predictions`` (probabilities in [0, 1]) against binary
    ``labels``, at ``num_thresholds`` (at most 127) evenly spaced thresholds."""
    num_thresholds = min(int(num_thresholds), MAX_PR_THRESHOLDS)
    labels = make_np(labels, "add_pr_curve")
    predictions = make_np(predictions, "add_pr_curve")
    if labels.shape != predictions.shape:
        raise ValueError(
            f"add_pr_curve: labels and predictions must have the same shape, got "
            f"{tuple(labels.shape)} and {tuple(predictions.shape)}"
        )
    if num_thresholds < 2:
        raise ValueError(f"add_pr_curve: num_thresholds must be at least 2, got {num_thresholds}")
    data = compute_curve(labels, predictions, num_thresholds, weights)
    return _pr_curve_summary(tag, data, num_thresholds)


def pr_curve_raw(
    tag: str,
    tp: Any,
    fp: Any,
    tn: Any,
    fn: Any,
    precision: Any,
    recall: Any,
    num_thresholds: int = MAX_PR_THRESHOLDS,
) -> Summary:
    """A precision-recall curve given by its counts, precision and recall per threshold."""
    num_thresholds = min(int(num_thresholds), MAX_PR_THRESHOLDS)
    # Lists are taken too, as PyTorch stacks the rows with NumPy.
    rows = [
        (
            np.asarray(row) if isinstance(row, (list, tuple)) else make_np(row, "add_pr_curve_raw")
        ).reshape(-1)
        for row in (tp, fp, tn, fn, precision, recall)
    ]
    if len({row.shape for row in rows}) != 1:
        raise ValueError(
            "add_pr_curve_raw: the counts, precision and recall must have the same length, got "
            + ", ".join(str(len(row)) for row in rows)
        )
    return _pr_curve_summary(tag, np.stack(rows), num_thresholds)


def compute_curve(
    labels: np.ndarray, predictions: np.ndarray, num_thresholds: int, weights: Any = None
) -> np.ndarray:
    """Rows TP, FP, TN, FN, precision, recall per threshold ``i / (num_thresholds - 1)``."""
    minimum_count = 1e-7
    weights = 1.0 if weights is None else make_np(weights, "add_pr_curve")
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets, _ = np.histogram(
        buckets, bins=num_thresholds, range=span, weights=positive * weights
    )
    fp_buckets, _ = np.histogram(
        buckets, bins=num_thresholds, range=span, weights=(1.0 - positive) * weights
    )
    # Counts at or above each threshold: reversed cumulative sums.
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(minimum_count, tp + fp)
    recall = tp / np.maximum(minimum_count, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def custom_scalars(layout: Mapping[str, Mapping[str, list[Any]]]) -> Summary:
    """The custom-scalars plugin's layout: ``{category: {chart: ["Multiline", tags] or
    ["Margin", [value, lower, upper]]}}``."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        protos = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise ValueError(
                        f"add_custom_scalars: a Margin chart takes 3 tags (value, lower, upper), "
                        f"got {len(tags)}"
                    )
                series = layout_pb2.MarginChartContent.Series(
                    value=tags[0], lower=tags[1], upper=tags[2]
                )
                content = layout_pb2.MarginChartContent(series=[series])
                protos.append(layout_pb2.Chart(title=title, margin=content))
            elif kind == "Multiline":
                content = layout_pb2.MultilineChartContent(tag=tags)
                protos.append(layout_pb2.Chart(title=title, multiline=content))
            else:
                raise ValueError(
                    f"add_custom_scalars: a chart is 'Multiline' or 'Margin', got {kind!r}"
                )
        categories.append(layout_pb2.Category(title=category, chart=protos))
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
        tensor_shape=TensorShapeProto(),
    )
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    return Summary(
        value=[Summary.Value(tag="custom_scalars__config__", tensor=proto, metadata=metadata)]
    )


def audio(tag: str, value: Any, sample_rate: int = 44100) -> Summary:
    """A mono WAV clip of samples in [-1, 1] (louder ones are clipped, with a warning)."""
    import warnings
    import wave

    samples = make_np(value, "add_audio").squeeze()
    if samples.ndim != 1:
        raise ValueError(
            f"add_audio: expected a one-channel clip (one dimension after squeezing), got shape "
            f"{tuple(samples.shape)}"
        )
    if np.abs(samples).max() > 1:
        warnings.warn("add_audio: amplitude out of [-1, 1], clipped", stacklevel=3)
        samples = samples.clip(-1, 1)
    pcm = (samples * np.iinfo(np.int16).max).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(pcm.tobytes())
    clip = Summary.Audio(
        sample_rate=sample_rate,
        num_channels=1,
        length_frames=len(pcm),
        encoded_audio_string=buffer.getvalue(),
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=clip)])
