"""``compute_metrics`` hooks inside a real ``transformers`` Trainer, on CPU, offline.

A tiny T5 built from a config (randomly initialised, then trained for a second on eight
question/answer pairs so that its answers are words, not noise) and a WordLevel tokenizer
built in the test run ``Seq2SeqTrainer.evaluate()`` with ``predict_with_generate=True``, in
both Trainer modes (all at once, and ``batch_eval_metrics=True``: streamed ``add_batch``,
``compute_result`` on the last batch). The hook's numbers must equal the core's on the
decoded strings. A tiny span model (BERT for QA) covers the extractive recipe.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from tokenizers import Tokenizer, models, pre_tokenizers, processors  # noqa: E402
from transformers import (  # noqa: E402
    BertConfig,
    BertForQuestionAnswering,
    DataCollatorForSeq2Seq,
    EvalPrediction,
    PreTrainedTokenizerFast,
    Seq2SeqTrainer,
    Seq2SeqTrainingArguments,
    T5Config,
    T5ForConditionalGeneration,
    Trainer,
    TrainingArguments,
)

from metricore import compute_anls, compute_one_minus_ned, compute_token_f1  # noqa: E402
from metricore.registry import get, row_metrics  # noqa: E402
from metricore_hf.trainer import (  # noqa: E402
    MetricHook,
    captioning_hook,
    decode_ids,
    docvqa_hook,
    extractive_qa_hook,
    load_metric,
    ocr_hook,
    span_answers,
)
from tests.readme_examples import example  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

PAIRS = [
    ("what brand ? coca cola company", "coca cola"),
    ("what date ? 12 15 88 letter", "12 15 88"),
    ("who ? dear dr lobo", "dr lobo"),
    ("what city ? paris france", "paris"),
    ("what color ? dark blue car", "dark blue"),
    ("how many ? three cats", "three"),
    ("what year ? in 1990 it", "1990"),
    ("who wrote ? thomas moore", "thomas moore"),
]
# gold alternatives that differ from what the model learnt, so that scores are not all 1
GOLDS = [
    ["Coca Cola", "Coca Cola Company"],
    ["12/15/88"],
    ["Dr. Lobo", "Dear Dr. Lobo"],
    ["Paris, France"],
    ["dark blue"],
    ["3", "three"],
    ["in 1990"],
    ["Thomas More"],
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, Any]:
    words = sorted({w for q, a in PAIRS for w in f"{q} {a}".split()})
    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2, **{w: i + 3 for i, w in enumerate(words)}}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
    )
    torch.manual_seed(0)
    config = T5Config(
        vocab_size=len(vocab),
        d_model=32,
        d_ff=64,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        d_kv=16,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
        dropout_rate=0.0,
    )
    model = T5ForConditionalGeneration(config)
    dataset = [
        {"input_ids": tokenizer(q)["input_ids"], "labels": tokenizer(a)["input_ids"]} for q, a in PAIRS
    ]
    out = tmp_path_factory.mktemp("trainer")
    args = Seq2SeqTrainingArguments(
        output_dir=str(out),
        use_cpu=True,
        report_to="none",
        disable_tqdm=True,
        save_strategy="no",
        logging_strategy="no",
        per_device_train_batch_size=8,
        learning_rate=1e-2,
        max_steps=40,
        seed=0,
    )
    Seq2SeqTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
    ).train()
    model.eval()
    return {"tokenizer": tokenizer, "model": model, "dataset": dataset, "out": out}


class Spy:
    """Wraps a hook and keeps every EvalPrediction it is called with."""

    def __init__(self, hook: Any) -> None:
        self.hook = hook
        self.calls: list[tuple[Any, bool | None]] = []

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float]:
        self.calls.append((eval_pred, compute_result))
        return self.hook(eval_pred, compute_result) if compute_result is not None else self.hook(eval_pred)


def evaluate_with(tiny: dict[str, Any], hook: Any, *, batch: bool, batch_size: int = 3) -> dict[str, float]:
    args = Seq2SeqTrainingArguments(
        output_dir=str(tiny["out"]),
        use_cpu=True,
        report_to="none",
        disable_tqdm=True,
        save_strategy="no",
        predict_with_generate=True,
        generation_max_length=8,
        per_device_eval_batch_size=batch_size,
        batch_eval_metrics=batch,
    )
    # the Trainer inspects the signature for `compute_result` in batch mode
    if batch:

        def compute_metrics(eval_pred, compute_result):
            return hook(eval_pred, compute_result)
    else:

        def compute_metrics(eval_pred):
            return hook(eval_pred)

    trainer = Seq2SeqTrainer(
        model=tiny["model"],
        args=args,
        eval_dataset=tiny["dataset"],
        processing_class=tiny["tokenizer"],
        data_collator=DataCollatorForSeq2Seq(tiny["tokenizer"], model=tiny["model"]),
        compute_metrics=compute_metrics,
    )
    return trainer.evaluate()


def decoded(tokenizer: Any, arrays: list[Any]) -> list[str]:
    """Independent decoding in the test: -100 -> pad, skip special tokens, strip."""
    out: list[str] = []
    for arr in arrays:
        ids = np.asarray(arr.cpu() if hasattr(arr, "cpu") else arr)
        ids = np.where(ids == -100, tokenizer.pad_token_id, ids)
        out += [t.strip() for t in tokenizer.batch_decode(ids.tolist(), skip_special_tokens=True)]
    return out


def _decoded_string_metrics() -> list[str]:
    """Every row metric whose default config scores decoded strings against gold strings and
    needs no one-time data build (METEOR 1.5's index)."""
    out = []
    for name in row_metrics():
        spec = get(name)
        needs_data = spec.data is not None and spec.default_config in spec.data.configs
        if spec.configs[0].inputs[0] == ("text", "alternatives") and not needs_data:
            out.append(name)
    return out


ALL = _decoded_string_metrics()


@pytest.fixture(scope="module")
def modules():
    return {name: load_metric(name) for name in ALL}


@pytest.mark.parametrize("batch", [False, True], ids=["all-at-once", "batch_eval_metrics"])
def test_seq2seq_hook_equals_core_on_decoded_strings(tiny, modules, batch):
    spy = Spy(
        MetricHook(tiny["tokenizer"], modules, references=GOLDS, compute_kwargs={"anls": {"threshold": 0.4}})
    )
    metrics = evaluate_with(tiny, spy, batch=batch)
    assert [c[1] for c in spy.calls] == ([False, False, True] if batch else [None])  # 8 rows, batches of 3
    preds = decoded(tiny["tokenizer"], [c[0].predictions for c in spy.calls])
    assert len(preds) == len(PAIRS) and any(preds)
    anls = compute_anls(preds, GOLDS, threshold=0.4)
    f1 = compute_token_f1(preds, GOLDS)
    want = {}
    for name in ALL:
        options = {"threshold": 0.4} if name == "anls" else {}
        for key, value in get(name).bind(None, **options).run(preds, GOLDS).headline().items():
            want[f"eval_{key}"] = value
    assert {"eval_anls", "eval_f1", "eval_meteor", "eval_cider", "eval_one_minus_ned", "eval_cer"} <= set(
        want
    )
    got = {k: metrics[k] for k in want}
    assert got == pytest.approx(want, abs=1e-12)
    assert 0 < anls.anls < 1 and 0 < f1.f1 < 100  # not a degenerate corpus
    assert set(spy.hook.signatures) == set(ALL)
    assert spy.hook.signatures["anls"] == anls.signature


def test_labels_are_the_default_gold(tiny, modules):
    spy = Spy(
        MetricHook(tiny["tokenizer"], {"anls": modules["anls"], "one_minus_ned": modules["one_minus_ned"]})
    )
    metrics = evaluate_with(tiny, spy, batch=True, batch_size=5)
    preds = decoded(tiny["tokenizer"], [c[0].predictions for c in spy.calls])
    labels = decoded(tiny["tokenizer"], [c[0].label_ids for c in spy.calls])
    assert labels == [a for _, a in PAIRS]
    assert metrics["eval_anls"] == pytest.approx(compute_anls(preds, labels).anls, abs=1e-12)
    assert metrics["eval_one_minus_ned"] == pytest.approx(
        compute_one_minus_ned(preds, labels).one_minus_ned, abs=1e-12
    )


def test_streaming_hook_resets_between_evaluations(tiny, modules):
    hook = MetricHook(tiny["tokenizer"], {"cider": modules["cider"]}, references=GOLDS)
    first = evaluate_with(tiny, hook, batch=True)
    second = evaluate_with(tiny, hook, batch=True, batch_size=2)
    assert first["eval_cider"] == pytest.approx(second["eval_cider"], abs=1e-12)
    assert hook._seen == 0


def _span_model(vocab_size: int):
    torch.manual_seed(1)
    config = BertConfig(
        vocab_size=vocab_size,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    return BertForQuestionAnswering(config).eval()


@pytest.mark.parametrize("batch", [False, True], ids=["all-at-once", "batch_eval_metrics"])
def test_extractive_span_recipe(tiny, batch):
    tokenizer = tiny["tokenizer"]
    rows = []
    for q, a in PAIRS:
        ids = tokenizer(q)["input_ids"]
        answer = tokenizer(a, add_special_tokens=False)["input_ids"]
        start = next(i for i in range(len(ids)) if ids[i : i + len(answer)] == answer)
        rows.append(
            {
                "input_ids": ids,
                "attention_mask": [1] * len(ids),
                "start_positions": start,
                "end_positions": start + len(answer) - 1,
            }
        )
    model = _span_model(len(tokenizer))
    hook = Spy(extractive_qa_hook(tokenizer, spans=True))
    args = TrainingArguments(
        output_dir=str(tiny["out"]),
        use_cpu=True,
        report_to="none",
        disable_tqdm=True,
        per_device_eval_batch_size=3,
        include_for_metrics=["inputs"],
        batch_eval_metrics=batch,
        label_names=["start_positions", "end_positions"],
    )

    def collate(batch_rows):
        width = max(len(r["input_ids"]) for r in batch_rows)
        return {
            "input_ids": torch.tensor(
                [r["input_ids"] + [0] * (width - len(r["input_ids"])) for r in batch_rows]
            ),
            "attention_mask": torch.tensor(
                [r["attention_mask"] + [0] * (width - len(r["input_ids"])) for r in batch_rows]
            ),
            "start_positions": torch.tensor([r["start_positions"] for r in batch_rows]),
            "end_positions": torch.tensor([r["end_positions"] for r in batch_rows]),
        }

    if batch:

        def compute_metrics(eval_pred, compute_result):
            return hook(eval_pred, compute_result)
    else:

        def compute_metrics(eval_pred):
            return hook(eval_pred)

    metrics = Trainer(
        model=model, args=args, eval_dataset=rows, data_collator=collate, compute_metrics=compute_metrics
    ).evaluate()
    preds, golds = [], []
    for eval_pred, _ in hook.calls:
        inputs = eval_pred.inputs["input_ids"] if isinstance(eval_pred.inputs, dict) else eval_pred.inputs
        preds += span_answers(*eval_pred.predictions[:2], inputs, tokenizer)
        starts, ends = (np.asarray(x.cpu() if hasattr(x, "cpu") else x) for x in eval_pred.label_ids)
        golds += decoded(
            tokenizer,
            [
                np.asarray(inputs.cpu() if hasattr(inputs, "cpu") else inputs)[i : i + 1, s : e + 1]
                for i, (s, e) in enumerate(zip(starts, ends))
            ],
        )
    assert golds == [a for _, a in PAIRS]
    f1 = compute_token_f1(preds, golds)
    assert metrics["eval_f1"] == pytest.approx(f1.f1, abs=1e-12)
    assert metrics["eval_exact_match"] == pytest.approx(f1.exact_match, abs=1e-12)


# --------------------------------------------------------------------------------------------
# Helpers, recipes, README
# --------------------------------------------------------------------------------------------


def test_decode_ids_handles_padding_logits_and_tuples(tiny):
    tok = tiny["tokenizer"]
    ids = tok(["coca cola", "paris"], padding=True)["input_ids"]
    padded = np.array([row + [-100] * 2 for row in ids])
    assert decode_ids(padded, tok) == ["coca cola", "paris"]
    assert decode_ids(torch.tensor(padded), tok) == ["coca cola", "paris"]
    logits = np.eye(len(tok))[np.where(padded < 0, 0, padded)]
    assert decode_ids((logits, "other outputs"), tok) == ["coca cola", "paris"]
    with pytest.raises(TypeError, match="token ids"):
        decode_ids(np.zeros((2, 3), dtype=float), tok)


def test_span_answers_respects_order_and_length(tiny):
    tok = tiny["tokenizer"]
    ids = np.array([tok("what city ? paris france")["input_ids"]])
    start = np.full((1, ids.shape[1]), -5.0)
    end = np.full((1, ids.shape[1]), -5.0)
    start[0, 3], end[0, 4] = 5.0, 5.0  # "paris france"
    start[0, 1], end[0, 1] = -20.0, 9.0  # an end before the start is never chosen
    assert span_answers(start, end, ids, tok) == ["paris france"]
    assert span_answers(start, end, ids, tok, max_answer_tokens=1) == ["paris"]


def test_hook_keys_and_errors(tiny, modules):
    tok = tiny["tokenizer"]
    ids = np.array(tok(["paris", "three"], padding=True)["input_ids"])
    pred = EvalPrediction(predictions=ids, label_ids=ids)
    hook = MetricHook(tok, {"a": modules["anls"], "b": load_metric("anls", "stvqa_paper")})
    assert hook(pred) == {"a_anls": 1.0, "b_anls": 1.0}  # the same key twice: prefixed by name
    with pytest.raises(ValueError, match="2 references given, but the evaluation has more rows"):
        MetricHook(tok, {"anls": modules["anls"]}, references=[["x"], ["y"]])(
            EvalPrediction(predictions=np.vstack([ids, ids]), label_ids=np.vstack([ids, ids])), False
        )
    with pytest.raises(ValueError, match="compute_kwargs for unknown"):
        MetricHook(tok, {"anls": modules["anls"]}, compute_kwargs={"bleu": {}})
    with pytest.raises(ValueError, match="include_for_metrics"):
        MetricHook(tok, {"anls": modules["anls"]}, predictions_from="spans")(pred)


def test_recipes(tiny):
    tok = tiny["tokenizer"]
    ids = np.array(tok(["paris", "three"], padding=True)["input_ids"])
    pred = EvalPrediction(predictions=ids, label_ids=ids)
    assert set(extractive_qa_hook(tok)(pred)) == {"exact_match", "f1", "precision", "recall"}
    assert docvqa_hook(tok, threshold=0.3)(pred) == {"anls": 1.0}
    caps = captioning_hook(tok, references=[["paris", "in paris"], ["three", "three cats"]])(pred)
    assert set(caps) == {"meteor", "cider"}
    assert ocr_hook(tok, lowercase=True)(pred) == {"one_minus_ned": 1.0, "cer": 0.0}


def test_readme_trainer_example(tiny, tmp_path, monkeypatch):
    """The README's Trainer example runs as written, given a model, tokenizer and dataset."""
    (tmp_path / "metrics").symlink_to(ROOT / "metrics")
    monkeypatch.chdir(tmp_path)  # its output_dir lands here; "metrics/<name>" still resolves
    namespace = {"model": tiny["model"], "tokenizer": tiny["tokenizer"], "eval_dataset": tiny["dataset"]}
    exec(compile(example("trainer"), "README.md:trainer", "exec"), namespace)
    metrics = namespace["metrics"]
    assert {"eval_anls", "eval_f1", "eval_exact_match"} <= set(metrics)
    namespace.update(gold_answers=GOLDS, captions=[[a] for _, a in PAIRS])
    exec(compile(example("trainer-recipes"), "README.md:trainer-recipes", "exec"), namespace)
    assert os.path.isdir(tmp_path / "metrics")
