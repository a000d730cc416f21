"""``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer`` (1.2) without Java: the Stanford
CoreNLP 3.4.1 ``PTBTokenizer -preserveLines -lowerCase`` run and the toolkit's punctuation
filter, reproduced by :func:`metricore.text.ptb_tokenize.coco_tokenize` (the same strings).

>>> PTBTokenizer().tokenize({7: [{"caption": "A dog's toy (red)."}, {"caption": "It's 5:30 p.m."}],
...                          "x": [{"caption": "A man, \\"Big Red\\"..."}]})
{7: ["a dog 's toy -lrb- red -rrb-", "it 's 5:30 p.m."], 'x': ['a man big red']}
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from metricore.text.ptb_tokenize import coco_tokenize

__all__ = ["PTBTokenizer"]


def _what(value: Any) -> str:
    return f"{type(value).__name__} ({value!r:.60})"


class PTBTokenizer:
    """``PTBTokenizer().tokenize(captions_for_image)``: image id -> list of ``{"caption": str}``
    dicts (such as ``pycocotools``' ``COCO.imgToAnns``) in, image id -> list of tokenized
    strings out.

    As in the toolkit, every caption of the call is tokenized as one text, one caption per
    line (so a caption's last token can depend on the next caption's first word), the images
    come out in their input order, and an image with no caption is left out of the result.
    The tokens of the last four distinct caption lists are kept (per process), so tokenizing
    the same captions again, as per-metric harnesses do, costs a lookup.
    """

    def tokenize(self, captions_for_image: Any) -> dict[Any, list[str]]:
        if not isinstance(captions_for_image, Mapping):
            raise TypeError(
                "PTBTokenizer: `captions_for_image` must be a dict of image id -> list of "
                f"{{'caption': str}} dicts, got {_what(captions_for_image)}"
            )
        image_ids: list[Any] = []
        captions: list[str] = []
        for img, anns in captions_for_image.items():
            texts = _captions_of(img, anns)
            image_ids.extend([img] * len(texts))
            captions.extend(texts)
        out: dict[Any, list[str]] = {}
        for img, tokens in zip(image_ids, _tokenized(tuple(captions))):
            out.setdefault(img, []).append(tokens)
        return out


def _captions_of(img: Any, anns: Any) -> list[str]:
    """The ``"caption"`` strs of one image's annotations; errors name the image and position."""
    if type(anns) is list and all(type(a) is dict for a in anns):  # pycocotools' imgToAnns
        texts = [a.get("caption") for a in anns]
        if all(type(t) is str for t in texts):
            return texts
    if isinstance(anns, (str, bytes, Mapping)) or not isinstance(anns, Sequence):
        raise TypeError(
            f"PTBTokenizer: captions_for_image[{img!r}] must be a list of {{'caption': str}} dicts, got {_what(anns)}"
        )
    out: list[str] = []
    for j, ann in enumerate(anns):
        if not isinstance(ann, Mapping):
            raise TypeError(
                f"PTBTokenizer: captions_for_image[{img!r}][{j}] must be a dict with a 'caption', got {_what(ann)}"
            )
        if "caption" not in ann:
            raise ValueError(
                f"PTBTokenizer: captions_for_image[{img!r}][{j}] has no 'caption' (its keys: "
                f"{', '.join(map(repr, ann)) or 'none'})"
            )
        caption = ann["caption"]
        if not isinstance(caption, str):
            raise TypeError(
                f"PTBTokenizer: captions_for_image[{img!r}][{j}]['caption'] must be a str, got {_what(caption)}"
            )
        out.append(caption)
    return out


@functools.lru_cache(maxsize=4)
def _tokenized(captions: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`coco_tokenize` of one call's captions, remembered for the last few distinct
    caption lists: harnesses tokenize the same references and candidates once per metric
    (lmms-eval: seven times), and the output depends on the list alone."""
    return tuple(coco_tokenize(captions))
