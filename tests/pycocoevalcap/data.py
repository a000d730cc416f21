"""The captions the pycocoevalcap parity tests score: the generated caption sets of
``tests/gen_cider_captions.py`` (tokenizer-hostile text, empty candidates, repeated
references) and ``tests/gen_captions.py`` (every METEOR stage: synonyms, stems, reordering,
repeated words, empty references), interleaved, with non-contiguous image ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.gen_captions import caption_sets
from tests.gen_cider_captions import caption_corpus


def captions(n: int, seed: int) -> tuple[list[int], list[str], list[list[str]]]:
    """``n`` images: ids, one candidate each, five references each."""
    a_c, a_r = caption_corpus((n + 1) // 2, seed=seed)
    b_c, b_r = caption_sets(n // 2, seed=seed)
    cands: list[str] = []
    refs: list[list[str]] = []
    for k in range(n):
        source_c, source_r = (a_c, a_r) if k % 2 == 0 else (b_c, b_r)
        cands.append(source_c[k // 2])
        refs.append(source_r[k // 2])
    ids = [1000 + 7 * k + (k % 3) for k in range(n)]
    return ids, cands, refs


def coco_files(folder: Path, n: int, seed: int) -> tuple[Path, Path, list[int]]:
    """A COCO captions annotation file (plus one image without a result) and a results file
    (in another order): the layout of ``captions_val2014.json`` and a submission."""
    ids, cands, refs = captions(n, seed)
    images: list[dict[str, Any]] = [{"id": i, "file_name": f"{i:012d}.jpg"} for i in ids]
    images.append({"id": 5, "file_name": "000000000005.jpg"})
    anns = [
        {"image_id": i, "id": 10 * i + k, "caption": c} for i, rs in zip(ids, refs) for k, c in enumerate(rs)
    ]
    anns.append({"image_id": 5, "id": 50, "caption": "An image that has no result."})
    ann_file, res_file = folder / "captions_val.json", folder / "results.json"
    ann_file.write_text(json.dumps({"images": images, "annotations": anns}), encoding="utf-8")
    results = [{"image_id": i, "caption": c} for i, c in zip(ids, cands)]
    res_file.write_text(json.dumps(results[1::2] + results[0::2]), encoding="utf-8")
    return ann_file, res_file, ids
