"""A small whole FusionBrain Challenge 2.0 submission, for the metric card, the Space and tests.

Two samples per open task in the challenge's own files (answers from its README), and the
inputs the files cannot carry: CLIP embeddings (4-dimensional stand-ins for the 768-d ruCLIP
vectors), the FID of the generated images (as pytorch-fid reports it on the whole test set)
and the six hidden task scores. ``score_submission(**WHOLE_SUBMISSION_EXAMPLE)`` scores it.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["WHOLE_SUBMISSION_EXAMPLE", "whole_submission_example"]


def _text(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "content": content}]


WHOLE_SUBMISSION_EXAMPLE: dict[str, Any] = {
    # predictions.json: sample id -> typed answer parts (the first text part is the answer)
    "predictions": {
        "0": _text("a) на 0,3 секунды"),
        "1": _text("улица Авиаконструктора Сухого"),
        "2": _text("d) -3"),
        "3": _text("ответ: b"),
        "4": [{"type": "image", "content": "images/00004.jpg"}],
        "5": [{"type": "image", "content": "images/00005.jpg"}],
        "6": _text("Торт с фигуркой медведя и воздушными шариками."),
        "7": _text("Мужчина едет на велосипеде по улице.")
        + [{"type": "image", "content": "images/ignored.jpg"}],  # an extra image part is ignored
        "8": _text("желтый"),
        "9": _text("три"),
        "10": _text("хор"),
        "11": _text("продукты 24"),
    },
    # ground_truth.json: sample id -> parts whose text content lists the gold answers
    "references": {
        "0": _text(["a", "на 0,3 секунды", "a на 0,3 секунды"]),
        "1": {"type": "text", "content": ["Авиаконструктора Сухого"]},  # the README's one-part form
        "2": _text(["d", "-3", "d -3"]),
        "3": _text(["c", "12", "c 12"]),
        "4": [{"type": "image", "content": "images/00004_gt.jpg"}],
        "5": [{"type": "image", "content": "images/00005_gt.jpg"}],
        "6": _text(
            [
                "Торт со светло-бежевой глазурью, украшенный фигуркой медведя, держащий связку воздушных шариков.",
                "Детский торт, покрытый светлой глазурью с украшением в виде медвежонка.",
            ]
        ),
        "7": _text(["Мужчина едет на велосипеде по городской улице."]),
        "8": _text(["желтого", "ярко-желтого"]),
        "9": _text(["5"]),
        "10": _text(["хор"]),
        "11": _text(["продукты 24 часа"]),
    },
    # sample_ids.json: sample id -> task number (0 TextQA, 1 MathQA, 2 ImageGeneration,
    # 3 ImageCaptioning, 4 VisualQA, 5 TRitW)
    "task_ids": {
        "0": 0,
        "1": 0,
        "2": 1,
        "3": 1,
        "4": 2,
        "5": 2,
        "6": 3,
        "7": 3,
        "8": 4,
        "9": 4,
        "10": 5,
        "11": 5,
    },
    # what the files cannot carry
    "extra": {
        "ImageGeneration": {
            # ruCLIP embeddings of the generated images and of their prompts
            "image_embeddings": {"4": [0.61, 0.22, 0.70, 0.30], "5": [0.15, 0.80, 0.35, 0.46]},
            "text_embeddings": {"4": [0.05, 0.62, -0.10, 0.78], "5": [0.80, 0.05, -0.30, 0.52]},
            "fid": 61.5,
        },
        "ImageCaptioning": {
            # embeddings of the input images and of the predicted captions
            "image_embeddings": {"6": [0.61, 0.22, 0.70, 0.30], "7": [0.20, 0.75, 0.40, 0.49]},
            "text_embeddings": {"6": [0.10, 0.35, -0.20, 0.91], "7": [0.80, -0.10, -0.10, 0.58]},
        },
        "Hidden1": 0.31,
        "Hidden2": 0.18,
        "Hidden3": 0.44,
        "Hidden4": 0.27,
        "Hidden5": 0.52,
        "Hidden6": 0.09,
    },
}


def whole_submission_example() -> dict[str, Any]:
    """A deep copy of :data:`WHOLE_SUBMISSION_EXAMPLE` (safe to modify)."""
    return copy.deepcopy(WHOLE_SUBMISSION_EXAMPLE)
