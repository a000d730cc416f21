"""Optional model inference: images and texts to the arrays :mod:`metricore.vision.clip_score` and
:mod:`metricore.vision.fid` score.

Needs the ``embed`` extra (``pip install 'metricore[embed]'``: torch, transformers, Pillow).
Nothing is downloaded: every model is supplied by the user, as an object or a local path.
``import metricore`` never imports this module or torch; importing this module does not import
torch either (that happens when an encoder is built).

- :class:`ClipEncoder` wraps a CLIP-style model with ``get_image_features`` and
  ``get_text_features`` (a transformers ``CLIPModel``, or any model with those methods) and
  its processor (or a tokenizer plus an image processor).
  :meth:`ClipEncoder.encode_texts` returns raw ``(n, templates, d)`` embeddings, which
  :func:`metricore.vision.clip_score.clip_cosine` averages over templates the way ruCLIP's
  ``Predictor.get_text_latents`` does; :data:`RUCLIP_TEMPLATES` are that predictor's default
  templates and ``lowercase=True`` its text preparation (``text.lower().strip()``).
- :class:`ImageFeatureExtractor` runs any torch module mapping an image batch to feature
  vectors, for :func:`metricore.vision.fid.fid_from_features`. The official FID number needs
  pytorch-fid's ``InceptionV3`` with its ``pt_inception-2015-12-05`` weights (pool3, 2048-d;
  ``pytorch_fid.inception.InceptionV3([3])``), which cannot be downloaded here: install
  ``pytorch-fid``, put the weights file in torch's hub cache yourself and pass the module.
  Like pytorch-fid, a 4-D output is average-pooled to 1x1 and a list output's first element
  is used. The FusionBrain Challenge resized every image to 256x256 first
  (``image_size=(256, 256)``; PIL bilinear, as torchvision's ``Resize`` on PIL images).

Reproducing the FusionBrain CLIP score needs ruCLIP (``ruclip-vit-large-patch14-336``), which is
not a transformers model: encode with the ``ruclip`` package and pass its raw embeddings to
:func:`metricore.vision.clip_score.clip_cosine`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from metricore.vision.fid import fid_from_features

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from torch import Tensor  # for functions where ``torch`` is the local module from _torch()

__all__ = [
    "RUCLIP_TEMPLATES",
    "ClipEncoder",
    "ImageFeatureExtractor",
    "fid_from_images",
]

RUCLIP_TEMPLATES: tuple[str, ...] = (
    "{}",
    "фото, на котором изображено {}",
    "изображение с {}",
    "картинка с {}",
    "фото с {}",
    "на фото видно {}",
)
"""ruCLIP ``Predictor``'s default prompt templates (ai-forever/ru-clip ``ruclip/predictor.py``)."""

_INSTALL = "pip install 'metricore[embed]'"


def _torch() -> Any:
    try:
        import torch
    except ImportError as err:
        raise ImportError(
            f"metricore.vision.embed needs torch (the `embed` extra), which is not installed: {_INSTALL}"
        ) from err
    return torch


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as err:
        raise ImportError(
            f"metricore.vision.embed needs transformers to load a model from a path (the `embed` extra), "
            f"which is not installed: {_INSTALL}"
        ) from err
    return transformers


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError(
            f"metricore.vision.embed needs Pillow to read images (the `embed` extra), which is not installed: {_INSTALL}"
        ) from err
    return Image


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _batch_size(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where}: `batch_size` must be a positive int, got {value!r}")
    return value


def _items(value: Any, where: str, name: str) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{where}: `{name}` must be a list, got {type(value).__name__}")
    return list(value)


def _model_device(model: Any, device: Any) -> Any:
    torch = _torch()
    if device is not None:
        return torch.device(device)
    try:
        return next(model.parameters()).device
    except (AttributeError, StopIteration):
        return torch.device("cpu")


def _feature_tensor(out: Any) -> torch.Tensor:
    """The projected embeddings from ``get_*_features``: a tensor (transformers 4) or the
    ``pooler_output`` of a model output (transformers 5)."""
    torch = _torch()
    if isinstance(out, torch.Tensor):
        return out
    pooled = getattr(out, "pooler_output", None)
    if isinstance(pooled, torch.Tensor):
        return pooled
    raise TypeError(f"ClipEncoder: the model returned {type(out).__name__}, not a feature tensor")


class ClipEncoder:
    """Image and text embeddings from a user-supplied CLIP model.

    ``model``: a model object with ``get_image_features(pixel_values=...)`` and
    ``get_text_features(input_ids=..., attention_mask=...)`` (transformers ``CLIPModel``), or a
    local directory loaded with ``AutoModel.from_pretrained(path, local_files_only=True)``.
    ``processor``: a callable like ``CLIPProcessor`` (``processor(text=...)`` and
    ``processor(images=...)``) or a local directory (default: the model's directory); or give
    ``tokenizer`` and ``image_processor`` separately (they take precedence). ``device``: where
    inputs go (default: the model's device); the model is moved there only when given.
    """

    def __init__(
        self,
        model: Any,
        processor: Any = None,
        *,
        tokenizer: Any = None,
        image_processor: Any = None,
        device: Any = None,
        batch_size: int = 32,
    ) -> None:
        _torch()
        if isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            model = _transformers().AutoModel.from_pretrained(path, local_files_only=True)
            if processor is None and (tokenizer is None or image_processor is None):
                processor = path
        if isinstance(processor, (str, os.PathLike)):
            processor = _transformers().AutoProcessor.from_pretrained(
                os.fspath(processor), local_files_only=True
            )
        for method in ("get_image_features", "get_text_features"):
            if not callable(getattr(model, method, None)):
                raise TypeError(f"ClipEncoder: `model` ({type(model).__name__}) has no {method}() method")
        self.tokenizer = tokenizer if tokenizer is not None else processor
        self.image_processor = image_processor if image_processor is not None else processor
        if self.tokenizer is None or self.image_processor is None:
            raise ValueError("ClipEncoder: give a `processor`, or a `tokenizer` and an `image_processor`")
        self.batch_size = _batch_size(batch_size, "ClipEncoder")
        self.device = _model_device(model, device)
        if device is not None:
            model = model.to(self.device)
        self.model = model.eval()

    def _pixels(self, images: list[Any]) -> torch.Tensor:
        torch = _torch()
        if self.image_processor is self.tokenizer:
            inputs = self.image_processor(images=images, return_tensors="pt")
        else:
            inputs = self.image_processor(images, return_tensors="pt")
        pixels = inputs["pixel_values"]
        return pixels if isinstance(pixels, torch.Tensor) else torch.as_tensor(np.asarray(pixels))

    def encode_images(self, images: Any) -> np.ndarray:
        """``(n, d)`` raw image embeddings (float64) of PIL images or HWC arrays.

        A 4-D torch tensor is taken as already preprocessed ``pixel_values``.
        """
        torch = _torch()
        if isinstance(images, torch.Tensor):
            if images.ndim != 4:
                raise ValueError(
                    f"ClipEncoder: a pixel tensor must be (N, C, H, W), got {tuple(images.shape)}"
                )
            batches: Iterator[Tensor] = iter(images.split(self.batch_size))
        else:
            items = _items(images, "ClipEncoder", "images")
            batches = (self._pixels(list(chunk)) for chunk in _chunks(items, self.batch_size))
        out = []
        with torch.inference_mode():
            for pixels in batches:
                feats = self.model.get_image_features(pixel_values=pixels.to(self.device))
                out.append(_feature_tensor(feats).float().cpu().numpy())
        return _stack(out)

    def _tokens(self, texts: list[str]) -> dict[str, torch.Tensor]:
        if self.tokenizer is self.image_processor:
            inputs = self.tokenizer(text=texts, padding=True, truncation=True, return_tensors="pt")
        else:
            inputs = self.tokenizer(texts, padding=True, truncation=True, return_tensors="pt")
        keep = {"input_ids", "attention_mask"}
        return {k: v.to(self.device) for k, v in inputs.items() if k in keep}

    def encode_texts(
        self, texts: Any, templates: Sequence[str] | None = None, *, lowercase: bool = False
    ) -> np.ndarray:
        """``(n, len(templates), d)`` raw text embeddings (float64), one per text and template.

        Each template holds one ``{}`` that the text replaces (default: the text alone). The
        embeddings are not normalized: :func:`metricore.vision.clip_score.clip_cosine` takes their
        template mean and normalizes it, as ruCLIP does. ``lowercase``: lowercase and strip each
        text first, as ruCLIP's ``Predictor`` does.
        """
        torch = _torch()
        items = _items(texts, "ClipEncoder", "texts")
        for i, text in enumerate(items):
            if not isinstance(text, str):
                raise TypeError(f"ClipEncoder: `texts[{i}]` must be a str, got {type(text).__name__}")
        forms = ("{}",) if templates is None else tuple(_items(templates, "ClipEncoder", "templates"))
        if not forms:
            raise ValueError("ClipEncoder: `templates` is empty")
        for j, form in enumerate(forms):
            if not isinstance(form, str) or form.count("{}") != 1:
                raise ValueError(
                    f"ClipEncoder: `templates[{j}]` must be a str with exactly one {{}}, got {form!r}"
                )
        prepared = [t.lower().strip() for t in items] if lowercase else items
        per_template = []
        with torch.inference_mode():
            for form in forms:
                filled = [form.replace("{}", t) for t in prepared]
                chunks = [
                    _feature_tensor(self.model.get_text_features(**self._tokens(list(chunk))))
                    .float()
                    .cpu()
                    .numpy()
                    for chunk in _chunks(filled, self.batch_size)
                ]
                per_template.append(_stack(chunks))
        if not items:
            return np.zeros((0, len(forms), 0))
        return np.stack(per_template, axis=1)


def _stack(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros((0, 0))
    return np.concatenate(parts, axis=0).astype(np.float64)


class ImageFeatureExtractor:
    """Feature vectors ``(n, d)`` of images from a user-supplied torch module (for FID).

    ``module`` maps a float batch ``(N, 3, H, W)`` with values in [0, 1] to features: a
    ``(N, d)`` tensor, a ``(N, d, h, w)`` map (average-pooled to 1x1, as pytorch-fid does), or
    a list/tuple whose first element is one of those (pytorch-fid's ``InceptionV3`` returns a
    list of blocks). Images are PIL images or ``(H, W, 3)`` uint8 arrays (converted to RGB,
    resized to ``image_size`` = ``(width, height)`` with PIL bilinear when given, scaled to
    [0, 1]); a 4-D torch tensor is used as the batch as it is. Images in a batch must share a
    size unless ``image_size`` is given.
    """

    def __init__(
        self,
        module: Any,
        *,
        image_size: tuple[int, int] | None = None,
        batch_size: int = 50,
        device: Any = None,
    ) -> None:
        torch = _torch()
        if not callable(module):
            raise TypeError(
                f"ImageFeatureExtractor: `module` must be a torch module, got {type(module).__name__}"
            )
        if image_size is not None and (
            len(image_size) != 2 or not all(isinstance(s, int) and s > 0 for s in image_size)
        ):
            raise ValueError(
                f"ImageFeatureExtractor: `image_size` must be (width, height), got {image_size!r}"
            )
        self.image_size = None if image_size is None else (int(image_size[0]), int(image_size[1]))
        self.batch_size = _batch_size(batch_size, "ImageFeatureExtractor")
        self.device = _model_device(module, device)
        if device is not None and isinstance(module, torch.nn.Module):
            module = module.to(self.device)
        if isinstance(module, torch.nn.Module):
            module = module.eval()
        self.module = module

    def _tensor(self, image: Any, index: int) -> torch.Tensor:
        torch = _torch()
        pil = _pil()  # the PIL.Image module
        if isinstance(image, np.ndarray):
            if image.dtype != np.uint8 or image.ndim not in (2, 3):
                raise ValueError(
                    f"ImageFeatureExtractor: `images[{index}]` must be an (H, W, 3) uint8 array, "
                    f"got {image.dtype} {image.shape}"
                )
            image = pil.fromarray(image)
        if not isinstance(image, pil.Image):
            raise TypeError(
                f"ImageFeatureExtractor: `images[{index}]` must be a PIL image or a uint8 array, "
                f"got {type(image).__name__}"
            )
        image = image.convert("RGB")
        if self.image_size is not None:
            image = image.resize(self.image_size, pil.Resampling.BILINEAR)
        array = np.asarray(image, dtype=np.float32) / 255.0
        return torch.from_numpy(array.transpose(2, 0, 1).copy())

    def _batch(self, images: Sequence[Any], start: int) -> torch.Tensor:
        torch = _torch()
        tensors = [self._tensor(img, start + i) for i, img in enumerate(images)]
        shapes = {tuple(t.shape) for t in tensors}
        if len(shapes) > 1:
            raise ValueError(
                f"ImageFeatureExtractor: images of different sizes {sorted(shapes)[:3]}; give `image_size`"
            )
        return torch.stack(tensors)

    def _features(self, out: Any) -> np.ndarray:
        torch = _torch()
        if isinstance(out, (list, tuple)):
            out = out[0]
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"ImageFeatureExtractor: the module returned {type(out).__name__}, not a tensor")
        if out.ndim == 4:
            if out.shape[2] != 1 or out.shape[3] != 1:
                out = torch.nn.functional.adaptive_avg_pool2d(out, output_size=(1, 1))
            out = out.reshape(out.shape[0], out.shape[1])
        if out.ndim != 2:
            raise ValueError(
                f"ImageFeatureExtractor: the module's output must be (N, d) or (N, d, h, w), got {tuple(out.shape)}"
            )
        return out.float().cpu().numpy()

    def encode(self, images: Any) -> np.ndarray:
        """``(n, d)`` feature matrix (float64), rows in image order."""
        torch = _torch()
        if isinstance(images, torch.Tensor):
            if images.ndim != 4:
                raise ValueError(
                    f"ImageFeatureExtractor: an image tensor must be (N, C, H, W), got {tuple(images.shape)}"
                )
            batches: Iterator[Tensor] = iter(images.split(self.batch_size))
        else:
            items = _items(images, "ImageFeatureExtractor", "images")
            batches = (
                self._batch(items[s : s + self.batch_size], s) for s in range(0, len(items), self.batch_size)
            )
        out = []
        with torch.inference_mode():
            for batch in batches:
                out.append(self._features(self.module(batch.to(self.device))))
        return _stack(out)


def fid_from_images(images_a: Any, images_b: Any, extractor: ImageFeatureExtractor) -> float:
    """FID between two image sets through ``extractor`` (see :func:`metricore.vision.fid.fid_from_features`)."""
    return fid_from_features(extractor.encode(images_a), extractor.encode(images_b))
