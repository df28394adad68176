"""``SummaryWriter``: PyTorch's ``torch.utils.tensorboard.SummaryWriter`` for glassgrad.

Values may be glassgrad tensors, NumPy arrays or Python numbers. Code written against
``torch.utils.tensorboard`` runs unchanged with ``glassgrad`` imported as ``torch``.
"""

from __future__ import annotations

import os
import socket
import time
import warnings
from datetime import datetime
from typing import Any

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.compat.proto.summary_pb2 import Summary

from . import summary as summaries
from ._convert import figure_to_image, make_np
from ._event_file import EventFileWriter

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes ``Event`` and ``Summary`` protocol buffers into one event file of ``log_dir``.

    Examples
    --------
    >>> raw = FileWriter("runs/raw")
    >>> raw.add_summary(summaries.scalar("loss", 0.5), global_step=1)
    >>> raw.close()
    """

    event_writer: EventFileWriter

    def __init__(
        self, log_dir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = ""
    ) -> None:
        self._arguments = (str(log_dir), max_queue, flush_secs, filename_suffix)
        self.event_writer = EventFileWriter(*self._arguments)

    def get_logdir(self) -> str:
        """The directory of the event file."""
        return self.event_writer.get_logdir()

    def add_event(
        self, event: Event, step: int | None = None, walltime: float | None = None
    ) -> None:
        """Stamp ``event`` with ``walltime`` (default now) and ``step``, and append it."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(
        self, summary: Summary, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Append a ``Summary`` wrapped in an ``Event``."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile: tuple[Any, Any], walltime: float | None = None) -> None:
        """Append a ``GraphDef`` and its ``RunMetadata`` (tagged ``step1``, as PyTorch does)."""
        from tensorboard.compat.proto.event_pb2 import TaggedRunMetadata

        graph, run_metadata = graph_profile
        self.add_event(Event(graph_def=graph.SerializeToString()), None, walltime)
        tagged = TaggedRunMetadata(tag="step1", run_metadata=run_metadata.SerializeToString())
        self.add_event(Event(tagged_run_metadata=tagged), None, walltime)

    def flush(self) -> None:
        """Write pending events to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self.event_writer.close()

    def reopen(self) -> None:
        """After ``close()``, continue in a new event file of the same directory."""
        if self.event_writer.closed:
            self.event_writer = EventFileWriter(*self._arguments)


class SummaryWriter:
    """Writes scalars, histograms, images, text, hyperparameters, PR curves, embeddings and
    graphs into event files of ``log_dir`` for TensorBoard (``tensorboard --logdir runs``).

    Parameters
    ----------
    log_dir : str, optional
        The run's directory; default ``runs/<Mon><DD>_<HH-MM-SS>_<host><comment>``.
    comment : str
        Appended to the default ``log_dir`` (ignored when ``log_dir`` is given).
    purge_step : int, optional
        Events of this step and later, left by a run that crashed, are hidden by TensorBoard.
    max_queue : int
        Events kept in memory before they are written to disk.
    flush_secs : float
        Pending events are written at the first call this many seconds after the last write.
    filename_suffix : str
        Appended to the event file's name.

    Examples
    --------
    >>> from glassgrad.utils.tensorboard import SummaryWriter
    >>> with SummaryWriter("runs/example") as run:
    ...     for step in range(100):
    ...         run.add_scalar("loss/train", 1 / (step + 1), step)
    """

    default_bins: list[float]
    log_dir: str

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = os.fspath(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.default_bins = summaries.default_bins()
        self._closed = False
        self._projector_config: Any = None
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()

    # ------------------------------------------------------------------------- plumbing

    def _get_file_writer(self, what: str = "SummaryWriter") -> FileWriter:
        if self._closed:
            raise RuntimeError(
                f"{what}: this SummaryWriter (log_dir {self.log_dir!r}) was closed; "
                "create a new SummaryWriter to write more"
            )
        if self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(
                    Event(step=self.purge_step, file_version="brain.Event:2")
                )
                self.file_writer.add_event(
                    Event(step=self.purge_step, session_log=SessionLog(status=SessionLog.START))
                )
                self.purge_step = None
        return self.file_writer

    def _sub_writer(self, log_dir: str) -> FileWriter:
        assert self.all_writers is not None
        writer = self.all_writers.get(log_dir)
        if writer is None:
            writer = FileWriter(log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers[log_dir] = writer
        return writer

    def get_logdir(self) -> str:
        """The directory event files are written to."""
        return self.log_dir

    def flush(self) -> None:
        """Write every pending event to disk."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file; writing afterwards raises ``RuntimeError``."""
        for writer in (self.all_writers or {}).values():
            writer.close()
        self.file_writer = self.all_writers = None
        self._closed = True

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------- scalars

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Log one number under ``tag`` at ``global_step``.

        ``scalar_value`` may be a one-element tensor or array or a Python number; anything
        with more than one element raises ``AssertionError``. ``new_style`` writes a tensor
        (float32, or float64 with ``double_precision``) instead of ``simple_value``.

        Examples
        --------
        >>> writer.add_scalar("loss", glassgrad.tensor(0.25), 3)
        """
        writer = self._get_file_writer("add_scalar")
        if new_style:
            summary = summaries.scalar(tag, scalar_value, new_style, double_precision)
            writer.add_summary(summary, global_step, walltime)
            return
        # The common case, once per training step: the event is built when it is written.
        value = summaries.scalar_value(tag, scalar_value)
        writer.event_writer.add_scalar(
            tag,
            value,
            None if global_step is None else int(global_step),
            time.time() if walltime is None else walltime,
        )

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log several numbers in one chart: each goes to the run ``<log_dir>/<main_tag>_<tag>``
        under the tag ``main_tag``.

        Examples
        --------
        >>> writer.add_scalars("loss", {"train": 0.3, "test": 0.4}, 3)
        """
        root = self._get_file_writer("add_scalars").get_logdir()
        if not isinstance(tag_scalar_dict, dict):
            raise TypeError(
                f"add_scalars: tag_scalar_dict must be a dict of tag -> value, "
                f"got {type(tag_scalar_dict).__name__}"
            )
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            summary = summaries.scalar(main_tag, value, what="add_scalars")
            run = root + "/" + main_tag.replace("/", "_") + "_" + tag
            self._sub_writer(run).add_summary(summary, global_step, walltime)

    def add_tensor(
        self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Log a whole tensor (read back by TensorBoard's tensor plugin)."""
        writer = self._get_file_writer("add_tensor")
        writer.add_summary(summaries.tensor_proto(tag, tensor), global_step, walltime)

    # ------------------------------------------------------------------------- histograms

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Log the histogram of ``values`` (any shape).

        ``bins`` is ``"tensorflow"`` (TensorBoard's exponential edges, the default) or anything
        ``numpy.histogram`` takes (``"auto"``, ``"fd"``, a count, edges); ``max_bins`` merges
        groups of ``len(buckets) // max_bins`` neighbouring buckets (PyTorch's rule, which may
        leave a few more than ``max_bins``).

        Examples
        --------
        >>> writer.add_histogram("fc.weight", model.weight, 1)
        """
        writer = self._get_file_writer("add_histogram")
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        writer.add_summary(summaries.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag: str,
        min: float,  # noqa: A002 - PyTorch's argument names
        max: float,  # noqa: A002
        num: int,
        sum: float,  # noqa: A002
        sum_squares: float,
        bucket_limits: Any,
        bucket_counts: Any,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a histogram given by its statistics and buckets (right edges and counts)."""
        writer = self._get_file_writer("add_histogram_raw")
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError(
                f"add_histogram_raw: len(bucket_limits) != len(bucket_counts) "
                f"({len(bucket_limits)} != {len(bucket_counts)})"
            )
        summary = summaries.histogram_raw(
            tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts
        )
        writer.add_summary(summary, global_step, walltime)

    # ------------------------------------------------------------------------- images

    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Log one image: ``CHW`` (default), ``HWC`` or ``HW``; floats in [0, 1] or uint8.

        Examples
        --------
        >>> writer.add_image("noise", glassgrad.rand(3, 8, 8), 1)
        """
        writer = self._get_file_writer("add_image")
        summary = summaries.image(tag, img_tensor, dataformats=dataformats, what="add_image")
        writer.add_summary(summary, global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Log a batch of images (``NCHW`` by default, or ``NHWC``), tiled into one grid."""
        writer = self._get_file_writer("add_images")
        summary = summaries.image(tag, img_tensor, dataformats=dataformats, what="add_images")
        writer.add_summary(summary, global_step, walltime)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Render a matplotlib figure (or a list of them, tiled) and log it as an image."""
        self._get_file_writer("add_figure")
        if isinstance(figure, list):
            self.add_image(tag, figure_to_image(figure, close), global_step, walltime, "NCHW")
        else:
            self.add_image(tag, figure_to_image(figure, close), global_step, walltime, "CHW")

    # ------------------------------------------------------------------------- text

    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a text (markdown is rendered by TensorBoard)."""
        writer = self._get_file_writer("add_text")
        writer.add_summary(summaries.text(tag, text_string), global_step, walltime)

    # ------------------------------------------------------------------------- hyperparameters

    def add_hparams(
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        hparam_domain_discrete: dict[str, list[Any]] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Log one trial's hyperparameters and metrics for the HParams dashboard.

        They go to the run ``<log_dir>/<run_name>`` (default: the current time), with each
        metric also logged as a scalar there, as PyTorch does.

        Examples
        --------
        >>> writer.add_hparams({"lr": 0.01, "batch": 32}, {"hparam/accuracy": 0.98})
        """
        root = self._get_file_writer("add_hparams").get_logdir()
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("add_hparams: hparam_dict and metric_dict should be dictionaries")
        experiment, start, end = summaries.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run = os.path.join(root, run_name or str(time.time()))
        with SummaryWriter(log_dir=run) as trial:
            assert trial.file_writer is not None
            for summary in (experiment, start, end):
                trial.file_writer.add_summary(summary, global_step)
            for tag, value in metric_dict.items():
                trial.add_scalar(tag, value, global_step)

    # ------------------------------------------------------------------------- curves, audio

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve of ``predictions`` (in [0, 1]) against 0/1 ``labels``.

        Examples
        --------
        >>> writer.add_pr_curve("positive", glassgrad.tensor([1, 0, 1]), glassgrad.tensor([0.9, 0.4, 0.3]), 1)
        """
        writer = self._get_file_writer("add_pr_curve")
        summary = summaries.pr_curve(tag, labels, predictions, num_thresholds, weights)
        writer.add_summary(summary, global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve given by its counts, precision and recall.

        ``weights`` must be None (PyTorch accepts and ignores it)."""
        writer = self._get_file_writer("add_pr_curve_raw")
        if weights is not None:
            raise ValueError(
                "add_pr_curve_raw: weights are not used by a curve given as counts; pass None"
            )
        summary = summaries.pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds,
        )
        writer.add_summary(summary, global_step, walltime)

    def add_custom_scalars(self, layout: dict[str, dict[str, list[Any]]]) -> None:
        """Lay out the Custom Scalars dashboard:
        ``{category: {chart title: ["Multiline", [tags]] or ["Margin", [value, lower, upper]]}}``."""
        self._get_file_writer("add_custom_scalars").add_summary(summaries.custom_scalars(layout))

    def add_custom_scalars_multilinechart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """One Custom Scalars chart with a line per tag."""
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """One Custom Scalars chart of a value between a lower and an upper tag."""
        if len(tags) != 3:
            raise AssertionError(
                f"add_custom_scalars_marginchart: expected 3 tags, got {len(tags)}"
            )
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Log a mono clip of samples in [-1, 1]."""
        writer = self._get_file_writer("add_audio")
        writer.add_summary(summaries.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    # ------------------------------------------------------------------------- graphs

    def add_graph(
        self,
        model: Any,
        input_to_model: Any = None,
        verbose: bool = False,
        use_strict_trace: bool = True,
    ) -> None:
        """Log the forward graph of ``model`` run once on ``input_to_model`` (a tensor, or a
        tuple of the forward's positional arguments) for TensorBoard's Graphs tab.

        One node per recorded op, wired input to output, with its output shapes and dtypes;
        node names are scoped by module path as PyTorch's are
        (``Net/Sequential[features]/Conv2d[0]/Convolution``), so TensorBoard folds each module
        into a group; parameters are input nodes inside their module. The model runs in eval
        mode with gradients enabled and nothing kept; its training mode and its parameters'
        ``requires_grad`` are restored. ``verbose`` prints the nodes; ``use_strict_trace``
        refuses lists and dicts among the outputs, as PyTorch's strict trace does.

        Examples
        --------
        >>> writer.add_graph(model, glassgrad.ones(1, 4))
        """
        from ._model_graph import model_graph

        writer = self._get_file_writer("add_graph")
        writer.add_graph(model_graph(model, input_to_model, verbose, use_strict_trace))

    def add_backward_graph(
        self,
        loss: Any,
        params: Any = None,
        *,
        forward_log: Any = None,
        trace: Any = None,
        run: str | None = "backward",
        walltime: float | None = None,
    ) -> None:
        """Log the autograd graph of ``loss`` (not in PyTorch): the ``grad_fn`` nodes backward
        runs, wired the way gradients flow, ``AccumulateGrad`` leaves named by parameter.

        Parameters
        ----------
        loss : Tensor
            The tensor whose backward graph to write.
        params : dict or iterable of (name, Tensor), optional
            Names of the leaves, e.g. ``model.named_parameters()``.
        forward_log : glassgrad.viz.ForwardLog, optional
            The record of the forward pass (``with viz.record_forward(model) as log``): nodes
            are then scoped by the module that created them (``Net/Linear[fc]/AddmmBackward0``)
            and parameters are named without ``params``.
        trace : glassgrad.viz.BackwardTrace, optional
            The record of a backward over this graph (``viz.trace_backward(loss)``): each node
            then carries the norms of the gradients it received and sent and its step in the
            backward order. Without it, once a backward ran, each leaf carries the norm of its
            ``.grad``.
        run : str or None
            The run (a sub-directory of ``log_dir``) to write into, so the forward graph of
            :meth:`add_graph` stays beside it; None writes into this writer's own run, where
            TensorBoard shows only the last graph written.

        Examples
        --------
        >>> from glassgrad import viz
        >>> with viz.record_forward(model) as log:
        ...     loss = model(glassgrad.ones(3, 4)).pow(2).mean()
        >>> trace = viz.trace_backward(loss)  # runs the backward
        >>> writer.add_backward_graph(loss, forward_log=log, trace=trace)
        """
        from ._backward_graph import backward_graph

        writer = self._get_file_writer("add_backward_graph")
        profile = backward_graph(loss, params, forward_log, trace)
        if run is not None:
            writer = self._sub_writer(os.path.join(writer.get_logdir(), run))
        writer.add_graph(profile, walltime)

    # ------------------------------------------------------------------------- embeddings

    def add_embedding(
        self,
        mat: Any,
        metadata: Any = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: Any = None,
    ) -> None:
        """Log points (the rows of ``mat``, shape ``(N, D)``) for TensorBoard's Projector, with
        optional labels (``metadata``: N labels, or N rows under ``metadata_header``) and
        images (``label_img``: ``(N, C, H, W)`` in [0, 1]).

        The files go to ``<log_dir>/<global_step:05d>/<tag>`` and ``projector_config.pbtxt``
        lists every embedding of this writer.

        Examples
        --------
        >>> writer.add_embedding(glassgrad.randn(10, 3), metadata=list(range(10)), tag="points")
        """
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        from . import _embedding

        root = self._get_file_writer("add_embedding").get_logdir()
        matrix = make_np(mat, "add_embedding")
        if matrix.ndim != 2:
            raise AssertionError(
                f"add_embedding: mat should be 2-d, one row per data point; got shape "
                f"{tuple(matrix.shape)}"
            )
        images = None if label_img is None else _embedding.label_images(label_img)
        if metadata is not None and len(metadata) != matrix.shape[0]:
            raise AssertionError(
                f"add_embedding: #labels should equal #data points: {len(metadata)} labels for "
                f"{matrix.shape[0]} points"
            )
        if images is not None and images.shape[0] != matrix.shape[0]:
            raise AssertionError(
                f"add_embedding: #images should equal #data points: {images.shape[0]} images "
                f"for {matrix.shape[0]} points"
            )
        step = 0 if global_step is None else global_step
        subdir = f"{str(step).zfill(5)}/{_embedding.encode_tag(tag)}"
        folder = os.path.join(root, subdir)
        if os.path.exists(folder):
            if not os.path.isdir(folder):
                raise NotADirectoryError(
                    f"add_embedding: {folder} exists, but is a file; cannot write there"
                )
            warnings.warn(
                f"add_embedding: {folder} exists and is overwritten; did you set global_step?",
                stacklevel=2,
            )
        else:
            os.makedirs(folder)
        if metadata is not None:
            _embedding.write_metadata(metadata, folder, metadata_header)
        if images is not None:
            _embedding.write_sprite(images, folder)
        _embedding.write_matrix(matrix, folder)
        if self._projector_config is None:
            self._projector_config = ProjectorConfig()
        info = _embedding.embedding_info(tag, step, subdir, metadata is not None, images)
        self._projector_config.embeddings.extend([info])
        config = text_format.MessageToString(self._projector_config)
        with open(os.path.join(root, "projector_config.pbtxt"), "wb") as file:
            file.write(config.encode("utf-8"))
