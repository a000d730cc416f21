"""The index Space: every metric's Space in one app, a tab per metric (each tab is that
metric's own app; see metricore_hf.space.build_index)."""

from pathlib import Path

from metricore_hf.space import build_index, launch, load_spec

HERE = Path(__file__).resolve().parent
#: tab order; a Space missing from this deployment is left out
NAMES = ("anls", "token_f1", "meteor", "cider", "coco_caption", "one_minus_ned", "challenge_score")

# beside this file in a bundle (metricore_hf.bundle), the sibling Space folders in the repository
APPS = [
    next((f for f in (HERE / n / "app.py", HERE.parent / n / "app.py") if f.is_file()), None) for n in NAMES
]
SPECS = [load_spec(app) for app in APPS if app is not None]
demo = build_index(
    SPECS,
    title="metricore: exact evaluation metrics",
    intro="# metricore metrics\n\nExact re-implementations of document-VQA, QA, captioning and OCR "
    "metrics, each pinned to a named reference implementation. Pick a metric: every tab is that "
    "metric's own Space (worked examples, your own data as a table, JSONL or a file, per-sample "
    "explanations, the metric card).",
)

if __name__ == "__main__":
    launch(demo)
