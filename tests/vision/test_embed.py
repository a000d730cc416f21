"""The optional inference extra (metricore.vision.embed) with a tiny, randomly initialized CLIP model
built from a config and a word-level tokenizer built offline (nothing is downloaded)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from PIL import Image  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers, processors  # noqa: E402

from metricore.vision.clip_score import clip_cosine  # noqa: E402
from metricore.vision.embed import RUCLIP_TEMPLATES, ClipEncoder, ImageFeatureExtractor, fid_from_images  # noqa: E402
from metricore.vision.fid import fid_from_features  # noqa: E402

WORDS = ["a", "photo", "of", "cat", "dog", "red", "blue", "car", "the", "on", "with", "picture"]
DIM = 8


def _tokenizer():
    vocab = {"<bos>": 0, "<eos>": 1, "<unk>": 2}
    for word in WORDS:
        vocab[word] = len(vocab)
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(
        single="<bos> $A <eos>", special_tokens=[("<bos>", 0), ("<eos>", 1)]
    )
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<bos>",
        eos_token="<eos>",
        unk_token="<unk>",
        pad_token="<eos>",
        model_max_length=32,
    )


def _image_processor():
    cls = getattr(transformers, "CLIPImageProcessorPil", None) or transformers.CLIPImageProcessor
    return cls(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})


def _model():
    config = transformers.CLIPConfig(
        text_config={
            "vocab_size": len(WORDS) + 3,
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "max_position_embeddings": 32,
            "bos_token_id": 0,
            "eos_token_id": 1,
            "pad_token_id": 1,
        },
        vision_config={
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        projection_dim=DIM,
    )
    torch.manual_seed(0)
    return transformers.CLIPModel(config).eval()


@pytest.fixture(scope="module")
def parts():
    tok, ip = _tokenizer(), _image_processor()
    return _model(), tok, ip, transformers.CLIPProcessor(image_processor=ip, tokenizer=tok)


def _images(n: int, sizes=((40, 50), (32, 32), (64, 48))) -> list:
    rng = np.random.default_rng(7)
    return [
        Image.fromarray((rng.random((*sizes[i % len(sizes)], 3)) * 255).astype(np.uint8)) for i in range(n)
    ]


TEXTS = ["a photo of a cat", "the red car", "a blue dog on the car", "picture"]


def _torch_features(out):
    return out if isinstance(out, torch.Tensor) else out.pooler_output


def test_encode_shapes_and_determinism(parts):
    model, _, _, processor = parts
    encoder = ClipEncoder(model, processor, batch_size=2)
    images = encoder.encode_images(_images(5))
    assert images.shape == (5, DIM) and images.dtype == np.float64
    assert np.array_equal(images, encoder.encode_images(_images(5)))
    texts = encoder.encode_texts(TEXTS, templates=["{}", "a photo of {}", "{} picture"])
    assert texts.shape == (4, 3, DIM) and texts.dtype == np.float64
    assert np.array_equal(texts, encoder.encode_texts(TEXTS, templates=["{}", "a photo of {}", "{} picture"]))
    assert encoder.encode_texts(TEXTS).shape == (4, 1, DIM)
    assert encoder.encode_texts(["cat"], templates=RUCLIP_TEMPLATES).shape == (1, 6, DIM)
    # batching and padding do not change an item's embedding
    whole = ClipEncoder(model, processor, batch_size=32)
    assert np.allclose(whole.encode_images(_images(5)), images, atol=1e-5)
    alone = np.concatenate([whole.encode_texts([t]) for t in TEXTS])
    assert np.allclose(whole.encode_texts(TEXTS), alone, atol=1e-5)


def test_clip_cosine_on_encoder_outputs_equals_direct_torch(parts):
    model, tok, ip, processor = parts
    templates = ["{}", "a photo of {}"]
    images = _images(4)
    encoder = ClipEncoder(model, processor)
    got = clip_cosine(encoder.encode_images(images), encoder.encode_texts(TEXTS, templates=templates))

    with torch.no_grad():
        img = _torch_features(
            model.get_image_features(pixel_values=ip(images, return_tensors="pt")["pixel_values"])
        )
        per_template = []
        for form in templates:
            batch = tok([form.format(t) for t in TEXTS], padding=True, return_tensors="pt")
            per_template.append(
                _torch_features(
                    model.get_text_features(
                        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
                    )
                )
            )
        txt = torch.stack(per_template).mean(0)  # ruCLIP: mean of raw template embeddings
        img = img / img.norm(dim=-1, keepdim=True)
        txt = txt / txt.norm(dim=-1, keepdim=True)
        expected = (img * txt).sum(-1).numpy()
    assert got.shape == (4,)
    assert np.allclose(got, expected, atol=1e-6)
    assert len(set(np.round(got, 6))) > 1  # a real, non-degenerate model output


def test_separate_tokenizer_and_image_processor_and_lowercase(parts):
    model, tok, ip, processor = parts
    split = ClipEncoder(model, tokenizer=tok, image_processor=ip)
    joined = ClipEncoder(model, processor)
    assert np.allclose(split.encode_texts(TEXTS), joined.encode_texts(TEXTS), atol=1e-6)
    assert np.allclose(split.encode_images(_images(3)), joined.encode_images(_images(3)), atol=1e-6)
    # ruCLIP prepares text with .lower().strip(); the tiny vocabulary is lowercase only
    shouting = split.encode_texts(["  A Photo of a CAT "])
    assert not np.allclose(shouting, split.encode_texts(["a photo of a cat"]))
    assert np.allclose(
        split.encode_texts(["  A Photo of a CAT "], lowercase=True), split.encode_texts(["a photo of a cat"])
    )
    pixels = ip(_images(3), return_tensors="pt")["pixel_values"]
    assert np.allclose(split.encode_images(pixels), split.encode_images(_images(3)), atol=1e-6)


def test_model_and_processor_from_a_local_directory(parts, tmp_path):
    model, _, _, processor = parts
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    loaded = ClipEncoder(str(tmp_path))
    direct = ClipEncoder(model, processor)
    assert np.allclose(loaded.encode_texts(TEXTS), direct.encode_texts(TEXTS), atol=1e-6)
    assert np.allclose(loaded.encode_images(_images(2)), direct.encode_images(_images(2)), atol=1e-6)


class _TinyConvNet(torch.nn.Module):
    """Maps (N, 3, H, W) to a (N, 6, h, w) map, as a stand-in for pytorch-fid's InceptionV3."""

    def __init__(self, as_list: bool = False) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.conv = torch.nn.Conv2d(3, 6, kernel_size=3, stride=2)
        self.as_list = as_list

    def forward(self, x):
        out = torch.relu(self.conv(x))
        return [out] if self.as_list else out


def test_image_feature_extractor_pools_like_pytorch_fid():
    net = _TinyConvNet()
    images = _images(6, sizes=((24, 24),))
    feats = ImageFeatureExtractor(net, batch_size=4).encode(images)
    batch = torch.stack(
        [torch.from_numpy(np.asarray(im, dtype=np.float32).transpose(2, 0, 1) / 255.0) for im in images]
    )
    with torch.no_grad():
        expected = net(batch).mean(dim=(2, 3)).numpy()
    assert feats.shape == (6, 6) and feats.dtype == np.float64
    assert np.allclose(feats, expected, atol=1e-6)
    assert np.allclose(ImageFeatureExtractor(_TinyConvNet(as_list=True)).encode(images), feats, atol=1e-6)
    assert np.allclose(ImageFeatureExtractor(net).encode(batch), feats, atol=1e-6)
    arrays = [np.asarray(im) for im in images]
    assert np.allclose(ImageFeatureExtractor(net).encode(arrays), feats, atol=1e-6)


def test_fid_from_images_and_resizing():
    extractor = ImageFeatureExtractor(_TinyConvNet(), image_size=(20, 20))
    a, b = _images(8), _images(9)[::-1]
    value = fid_from_images(a, b, extractor)
    assert value == pytest.approx(fid_from_features(extractor.encode(a), extractor.encode(b)))
    assert value > 0
    with pytest.raises(ValueError, match="images of different sizes"):
        ImageFeatureExtractor(_TinyConvNet()).encode(_images(3))


def test_bad_input(parts):
    model, tok, ip, processor = parts
    encoder = ClipEncoder(model, processor)
    with pytest.raises(TypeError, match="has no get_image_features"):
        ClipEncoder(torch.nn.Linear(2, 2), processor)
    with pytest.raises(ValueError, match="give a `processor`"):
        ClipEncoder(model, tokenizer=tok)
    with pytest.raises(ValueError, match="`batch_size` must be a positive int"):
        ClipEncoder(model, processor, batch_size=0)
    with pytest.raises(TypeError, match="`texts` must be a list"):
        encoder.encode_texts("a cat")
    with pytest.raises(TypeError, match=r"`texts\[1\]` must be a str"):
        encoder.encode_texts(["a cat", 3])
    with pytest.raises(ValueError, match=r"`templates\[1\]` must be a str with exactly one \{\}"):
        encoder.encode_texts(["cat"], templates=["{}", "no slot"])
    with pytest.raises(ValueError, match="`templates` is empty"):
        encoder.encode_texts(["cat"], templates=[])
    with pytest.raises(ValueError, match=r"must be \(N, C, H, W\)"):
        encoder.encode_images(torch.zeros(3, 32, 32))
    extractor = ImageFeatureExtractor(_TinyConvNet())
    with pytest.raises(TypeError, match=r"`images\[0\]` must be a PIL image"):
        extractor.encode(["not an image"])
    with pytest.raises(ValueError, match=r"`images\[0\]` must be an \(H, W, 3\) uint8 array"):
        extractor.encode([np.zeros((4, 4, 3), dtype=np.float32)])
    with pytest.raises(ValueError, match="`image_size` must be"):
        ImageFeatureExtractor(_TinyConvNet(), image_size=(0, 3))
    with pytest.raises(ValueError, match=r"output must be \(N, d\)"):
        ImageFeatureExtractor(lambda x: x.sum()).encode(torch.zeros(2, 3, 4, 4))


def test_missing_torch_names_the_extra(monkeypatch, parts):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'metricore\[embed\]'"):
        ClipEncoder(parts[0], parts[3])
    with pytest.raises(ImportError, match="the `embed` extra"):
        ImageFeatureExtractor(lambda x: x)


def test_importing_metricore_does_not_import_torch():
    code = (
        "import sys, metricore, metricore.vision.fid, metricore.vision.clip_score, metricore.vision.embed; "
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, 'heavy import'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
