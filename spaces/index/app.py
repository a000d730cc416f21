"""The index Space: every metric's Space in one app, a tab per metric of the registry whose
app this deployment holds (each tab is that metric's own app; metricore_hf.space.build_index)."""

from pathlib import Path

from metricore_hf.space import build_index, index_spaces, launch

demo = build_index(
    index_spaces(Path(__file__).resolve().parent),
    title="metricore: exact evaluation metrics",
    intro="# metricore metrics\n\nExact re-implementations of document-VQA, QA, captioning and OCR "
    "metrics, each pinned to a named reference implementation. Pick a metric: every tab is that "
    "metric's own Space (worked examples, your own data as a table, JSONL or a file, per-sample "
    "explanations, the metric card).",
)

if __name__ == "__main__":
    launch(demo)
