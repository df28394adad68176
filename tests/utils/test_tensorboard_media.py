"""SummaryWriter round trip for images, figures, hyperparameters, PR curves, audio and custom
scalar layouts, read back by TensorBoard's EventAccumulator; and their errors."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest
from PIL import Image
from tb_helpers import accumulate, summary_events

import glassgrad as gg
from glassgrad.utils.tensorboard import SummaryWriter


def _decode(encoded: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(encoded)))


# ----------------------------------------------------------------------------- images

RNG = np.random.default_rng(0)
CHW = RNG.random((3, 5, 7)).astype(np.float32)


@pytest.mark.parametrize(
    "value, dataformats, expected",
    [
        (CHW, "CHW", CHW.transpose(1, 2, 0)),
        (CHW.transpose(1, 2, 0), "HWC", CHW.transpose(1, 2, 0)),
        (CHW[0], "HW", np.stack([CHW[0]] * 3, 2)),
        (CHW[:1], "CHW", np.concatenate([CHW[:1]] * 3).transpose(1, 2, 0)),
        (CHW.transpose(2, 1, 0), "WHC", CHW.transpose(1, 2, 0)),
    ],
    ids=["CHW", "HWC", "HW", "grey CHW", "WHC"],
)
def test_add_image_layouts_read_back_as_png_of_the_right_size(
    tmp_path, value, dataformats, expected
):
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("img", gg.tensor(value), 2, walltime=5.0, dataformats=dataformats)
    (event,) = accumulate(tmp_path).Images("img")
    assert (event.step, event.wall_time, event.height, event.width) == (2, 5.0, 5, 7)
    pixels = _decode(event.encoded_image_string)
    assert pixels.shape == (5, 7, 3)
    np.testing.assert_array_equal(pixels, (expected * 255).clip(0, 255).astype(np.uint8))


def test_uint8_images_are_not_rescaled_and_rgba_keeps_four_channels(tmp_path):
    rgba = RNG.integers(0, 256, (4, 6, 4), dtype=np.uint8)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("rgba", rgba, 0, dataformats="HWC")
    (event,) = accumulate(tmp_path).Images("rgba")
    np.testing.assert_array_equal(_decode(event.encoded_image_string), rgba)


@pytest.mark.parametrize("dataformats", ["NCHW", "NHWC"])
def test_add_images_tiles_a_batch_into_a_grid(tmp_path, dataformats):
    batch = RNG.random((10, 1, 4, 3))  # 10 grey images: a grid of 8 columns, 2 rows
    value = batch if dataformats == "NCHW" else batch.transpose(0, 2, 3, 1)
    with SummaryWriter(tmp_path) as writer:
        writer.add_images("batch", gg.tensor(value), 1, dataformats=dataformats)
    (event,) = accumulate(tmp_path).Images("batch")
    assert (event.height, event.width) == (8, 24)
    pixels = _decode(event.encoded_image_string)
    np.testing.assert_array_equal(pixels[4:8, 3:6, 0], (batch[9, 0] * 255).astype(np.uint8))
    assert (pixels[4:8, 6:] == 0).all()  # the grid's empty cells


def test_add_figure_renders_matplotlib(tmp_path):
    from matplotlib.figure import Figure

    figures = []
    for colour in ("red", "blue"):
        figure = Figure(figsize=(2, 1), dpi=50)
        figure.add_subplot().plot([0, 1], [1, 0], color=colour)
        figures.append(figure)
    with SummaryWriter(tmp_path) as writer:
        writer.add_figure("one", figures[0], 0, close=False)
        writer.add_figure("two", figures, 0, close=False)
    acc = accumulate(tmp_path)
    (one,) = acc.Images("one")
    assert (one.width, one.height) == (100, 50)
    (two,) = acc.Images("two")
    assert (two.width, two.height) == (200, 50)  # side by side
    pixels = _decode(two.encoded_image_string).astype(int)
    assert (pixels[:, :100, 0] - pixels[:, :100, 2]).max() > 100  # red on the left
    assert (pixels[:, 100:, 2] - pixels[:, 100:, 0]).max() > 100  # blue on the right


def test_images_of_the_wrong_rank_or_channels_raise(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(
            AssertionError, match=r"add_image: .*'CHW' has 3 dimensions, got tensor shape \(5, 7\)"
        ):
            writer.add_image("img", gg.zeros(5, 7))
        with pytest.raises(
            AssertionError, match=r"add_images: .*'NCHW' has 4 dimensions.*\(3, 5, 7\)"
        ):
            writer.add_images("img", gg.zeros(3, 5, 7))
        with pytest.raises(ValueError, match="add_image: an image has 1, 3 or 4 channels, got 2"):
            writer.add_image("img", gg.zeros(2, 5, 7))
        with pytest.raises(ValueError, match="dataformats must use each of N, C, H, W"):
            writer.add_image("img", gg.zeros(3, 5, 7), dataformats="CCW")
        with pytest.raises(ValueError, match=r"expected images of shape \(N, 1 or 3, H, W\)"):
            writer.add_images("img", gg.zeros(2, 2, 5, 7))
        writer.add_image("img", gg.zeros(3, 5, 7))  # still usable
    assert len(summary_events(tmp_path)) == 1


# ----------------------------------------------------------------------------- hparams


def test_hparams_read_back_by_the_hparams_plugin(tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2

    with SummaryWriter(tmp_path) as writer:
        writer.add_hparams({"lr": 0.1, "batch": 32, "optim": "adam", "nesterov": True, "w": gg.tensor(0.5)},
                           {"hparam/accuracy": 0.9, "hparam/loss": gg.tensor(0.25)},
                           hparam_domain_discrete={"optim": ["adam", "sgd"]},
                           run_name="trial1")  # fmt: skip
    acc = accumulate(tmp_path / "trial1")
    content = acc.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"])
    values = start.session_start_info.hparams
    assert values["lr"].number_value == 0.1 and values["batch"].number_value == 32
    assert (
        values["optim"].string_value == "adam" and values["nesterov"].number_value == 1
    )  # as PyTorch logs a bool
    assert values["w"].number_value == 0.5
    experiment = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"])
    infos = {info.name: info for info in experiment.experiment.hparam_infos}
    assert [v.string_value for v in infos["optim"].domain_discrete.values] == ["adam", "sgd"]
    assert [m.name.tag for m in experiment.experiment.metric_infos] == [
        "hparam/accuracy",
        "hparam/loss",
    ]
    assert [e.value for e in acc.Scalars("hparam/loss")] == [0.25]


def test_hparams_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionaries"):
            writer.add_hparams([("lr", 0.1)], {})
        with pytest.raises(
            ValueError,
            match=r"hparam_dict\['layers'\] should be an int, float, str, bool or tensor, got list",
        ):
            writer.add_hparams({"layers": [1, 2]}, {"m": 1.0})
        with pytest.raises(
            TypeError, match=r"hparam_domain_discrete\['lr'\] should be a list of the same type"
        ):
            writer.add_hparams({"lr": 0.1}, {"m": 1.0}, hparam_domain_discrete={"lr": ["a"]})


# ----------------------------------------------------------------------------- PR curves


def test_pr_curve_counts_precision_and_recall(tmp_path):
    labels = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1])
    with SummaryWriter(tmp_path) as writer:
        writer.add_pr_curve("pr", gg.tensor(labels), gg.tensor(scores), 3, num_thresholds=11)
    (event,) = accumulate(tmp_path).Tensors("pr")
    from tensorboard.util import tensor_util

    data = tensor_util.make_ndarray(event.tensor_proto)
    assert data.shape == (6, 11) and event.step == 3
    tp, fp, tn, fn, precision, recall = data
    for k, threshold in enumerate(np.arange(11) / 10):
        chosen = np.floor(scores * 10) >= k  # the bucket of each score, as TensorBoard counts
        assert tp[k] == (chosen & (labels == 1)).sum() and fp[k] == (chosen & (labels == 0)).sum()
        assert tn[k] == (~chosen & (labels == 0)).sum() and fn[k] == (~chosen & (labels == 1)).sum()
        del threshold
    np.testing.assert_allclose(precision[0], 0.5) and np.testing.assert_allclose(recall[0], 1.0)


def test_pr_curve_raw_and_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_pr_curve_raw("raw", [4, 2], [4, 1], [0, 3], [0, 2], [0.5, 2 / 3], [1.0, 0.5], 1,
                                num_thresholds=2)  # fmt: skip
        with pytest.raises(ValueError, match=r"same shape, got \(3,\) and \(2,\)"):
            writer.add_pr_curve("pr", np.ones(3), np.ones(2))
        with pytest.raises(ValueError, match="must have the same length, got 2, 2, 2, 2, 2, 1"):
            writer.add_pr_curve_raw("raw", [4, 2], [4, 1], [0, 3], [0, 2], [0.5, 0.6], [1.0])
        with pytest.raises(ValueError, match="weights are not used"):
            writer.add_pr_curve_raw("raw", [1], [1], [1], [1], [1], [1], weights=np.ones(1))
    (event,) = accumulate(tmp_path).Tensors("raw")
    assert list(event.tensor_proto.tensor_shape.dim[i].size for i in range(2)) == [6, 2]


# ----------------------------------------------------------------------------- audio, layouts


def test_audio_round_trips_as_wav(tmp_path):
    samples = np.sin(np.linspace(0, 20, 800)) * 0.5
    with SummaryWriter(tmp_path) as writer:
        writer.add_audio("tone", gg.tensor(samples), 2, sample_rate=8000)
    (event,) = accumulate(tmp_path).Audio("tone")
    assert (
        event.sample_rate == 8000
        and event.length_frames == 800
        and event.content_type == "audio/wav"
    )
    with wave.open(io.BytesIO(event.encoded_audio_string)) as wav:
        pcm = np.frombuffer(wav.readframes(800), "<i2")
    np.testing.assert_array_equal(pcm, (samples * 32767).astype("<i2"))


def test_custom_scalars_layout(tmp_path):
    from tensorboard.plugins.custom_scalar import layout_pb2

    with SummaryWriter(tmp_path) as writer:
        writer.add_custom_scalars_multilinechart(["loss/train", "loss/test"], "losses", "both")
        writer.add_custom_scalars_marginchart(["a", "lo", "hi"], title="margin")
        with pytest.raises(ValueError, match="'Multiline' or 'Margin', got 'Pie'"):
            writer.add_custom_scalars({"c": {"t": ["Pie", ["a"]]}})
    (first, second) = summary_events(tmp_path)
    layout = layout_pb2.Layout.FromString(first.summary.value[0].tensor.string_val[0])
    assert layout.category[0].title == "losses"
    assert list(layout.category[0].chart[0].multiline.tag) == ["loss/train", "loss/test"]
    margin = layout_pb2.Layout.FromString(second.summary.value[0].tensor.string_val[0])
    assert margin.category[0].chart[0].margin.series[0].upper == "hi"


# ----------------------------------------------------------------------------- embeddings


def test_add_embedding_writes_the_projector_files(tmp_path):
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

    points = RNG.standard_normal((5, 3))
    images = RNG.random((5, 1, 4, 4))
    with SummaryWriter(tmp_path) as writer:
        writer.add_embedding(gg.tensor(points), metadata=["a", "b", "c", "d", "e"],
                             label_img=gg.tensor(images), global_step=7, tag="layer/out")  # fmt: skip
        writer.add_embedding(points[:, :2], metadata=[[1, "x"], [2, "y"], [3, "z"], [4, "u"],
                             [5, "v"]], metadata_header=["id", "name"])  # fmt: skip
    config = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), ProjectorConfig())
    first, second = config.embeddings
    assert first.tensor_name == "layer/out:00007"
    assert first.tensor_path == "00007/layer%2fout/tensors.tsv"
    assert first.metadata_path == "00007/layer%2fout/metadata.tsv"
    assert first.sprite.image_path == "00007/layer%2fout/sprite.png"
    assert list(first.sprite.single_image_dim) == [4, 4]
    assert second.tensor_name == "default:00000" and not second.sprite.image_path
    folder = tmp_path / "00007" / "layer%2fout"
    np.testing.assert_array_equal(np.loadtxt(folder / "tensors.tsv", ndmin=2), points)
    assert (folder / "metadata.tsv").read_text() == "a\nb\nc\nd\ne\n"
    sprite = np.asarray(Image.open(folder / "sprite.png"))
    assert sprite.shape == (12, 12, 3)  # 3 x 3 cells of 4 x 4 for 5 images
    np.testing.assert_array_equal(sprite[4:8, 0:4, 0], (images[3, 0] * 255).astype(np.uint8))
    header = (tmp_path / "00000" / "default" / "metadata.tsv").read_text().splitlines()
    assert header == ["id\tname", "1\tx", "2\ty", "3\tz", "4\tu", "5\tv"]


def test_add_embedding_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(AssertionError, match=r"mat should be 2-d.*\(2, 3, 4\)"):
            writer.add_embedding(gg.zeros(2, 3, 4))
        with pytest.raises(
            AssertionError, match="#labels should equal #data points: 2 labels for 3"
        ):
            writer.add_embedding(gg.zeros(3, 2), metadata=["a", "b"])
        with pytest.raises(
            AssertionError, match="#images should equal #data points: 2 images for 3"
        ):
            writer.add_embedding(gg.zeros(3, 2), label_img=gg.zeros(2, 3, 4, 4))
        with pytest.raises(
            ValueError, match=r"label_img must be images of shape \(N, 1 or 3, H, W\)"
        ):
            writer.add_embedding(gg.zeros(3, 2), label_img=gg.zeros(3, 4, 4))
        with pytest.raises(ValueError, match="metadata_header has 1 columns, the metadata rows 2"):
            writer.add_embedding(gg.zeros(1, 2), metadata=[[1, 2]], metadata_header=["a"])
        writer.add_embedding(gg.zeros(3, 2), tag="again")
        with pytest.warns(UserWarning, match="exists and is overwritten; did you set global_step"):
            writer.add_embedding(gg.ones(3, 2), tag="again")
    np.testing.assert_array_equal(
        np.loadtxt(tmp_path / "00000" / "again" / "tensors.tsv"), np.ones((3, 2))
    )
