"""Our modules inside ``evaluate``'s own tools: ``evaluate.combine``, ``evaluate.save`` and
``evaluate.evaluator("question-answering")`` (token_f1 in SQuAD v1 and v2 modes), plus the
"did you mean" hints of ``compute``.

The evaluator runs a real, tiny ``BertForQuestionAnswering`` (built from a config, trained
for a few steps on the test's four questions so that some answers are right, nothing
downloaded) and a real ``BertTokenizerFast`` built from a vocabulary written in the test.
transformers 5 removed the ``question-answering`` pipeline (and with it the task from
``evaluate.evaluator``'s factory: :func:`qa_evaluator`), so the model is wrapped in a small
callable with that pipeline's interface and output (``task``, ``answer``/``score``/
``start``/``end`` per question, ``handle_impossible_answer``), which the evaluator accepts in
place of a pipeline. Its numbers are checked against the official SQuAD v1.1/v2.0 logic
(tests/oracles/squad_ref.py) on the answers the model gave.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import evaluate
import pytest

import metricore_hf
from metricore import compute_anls, compute_one_minus_ned, compute_token_f1
from tests.oracles import squad_ref

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
datasets = pytest.importorskip("datasets")

PREDICTIONS = ["CocaCola", "kitten", "the cat sat"]
REFERENCES = [["Coca Cola", "Coca Cola Company"], ["sitting"], ["a cat sat down", "cat sat"]]


def _load(name: str, config: str | None = None) -> evaluate.EvaluationModule:
    return evaluate.load(metricore_hf.module_path(name), config)


# ---------------------------------------------------------------- combine / save


def test_combine_gives_one_dict_with_evaluates_prefixes():
    modules = [_load("anls"), _load("one_minus_ned"), _load("token_f1")]
    combined = evaluate.combine(modules).compute(predictions=PREDICTIONS, references=REFERENCES)
    anls = compute_anls(PREDICTIONS, REFERENCES)
    ned = compute_one_minus_ned(PREDICTIONS, REFERENCES)  # best gold alternative per row
    f1 = compute_token_f1(PREDICTIONS, REFERENCES)
    # evaluate.combine documents one clash rule: a key several modules return is prefixed
    # with the module name; here `scores`, `columns` and `signature`, nothing else
    assert combined == {
        "anls": anls.anls,
        "anls_scores": anls.scores,
        "anls_signature": anls.signature,
        "one_minus_ned": ned.one_minus_ned,
        "cer": ned.cer,
        "one_minus_ned_scores": ned.scores,
        "one_minus_ned_columns": ned.as_dict()["columns"],
        "one_minus_ned_signature": ned.signature,
        "exact_match": f1.exact_match,
        "f1": f1.f1,
        "precision": f1.precision,
        "recall": f1.recall,
        "token_f1_scores": f1.scores,
        "token_f1_columns": f1.as_dict()["columns"],
        "token_f1_signature": f1.signature,
    }


def test_combine_by_name_and_streaming():
    combined = evaluate.combine({"docvqa": _load("anls"), "ocr": _load("one_minus_ned")})
    for p, r in zip(PREDICTIONS, REFERENCES):
        combined.add(prediction=p, reference=r)
    out = combined.compute()
    assert out["anls"] == compute_anls(PREDICTIONS, REFERENCES).anls
    assert set(out) == {
        "anls",
        "docvqa_scores",
        "docvqa_signature",
        "one_minus_ned",
        "cer",
        "ocr_scores",
        "columns",  # only 1-NED has per-item columns: no clash, no prefix
        "ocr_signature",
    }


def test_save_writes_the_result_and_intervals(tmp_path):
    result = _load("anls").compute(
        predictions=PREDICTIONS, references=REFERENCES, confidence=0.9, n_resamples=200
    )
    path = Path(evaluate.save(str(tmp_path), experiment="docvqa-val", **result))
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert {k: saved[k] for k in result} == result
    assert saved["experiment"] == "docvqa-val" and saved["_evaluate_version"] == evaluate.__version__


# ---------------------------------------------------------------- did you mean


@pytest.mark.parametrize(
    "kwargs,hint",
    [
        ({"prediction": ["a"], "references": ["a"]}, "'predictions'"),
        ({"predictions": ["a"], "reference": ["a"]}, "'references'"),
        ({"predictions": ["a"], "references": ["a"], "treshold": 0.4}, "'threshold'"),
        ({"predictions": ["a"], "references": ["a"], "confidance": 0.9}, "'confidence'"),
    ],
)
def test_misspelt_compute_keywords_get_a_hint(kwargs, hint):
    with pytest.raises(TypeError) as err:
        _load("anls").compute(**kwargs)
    message = str(err.value)
    assert f"(did you mean {hint}?)" in message
    assert (
        "allowed: confidence, interval_method, n_resamples, predictions, references, seed, threshold"
        in message
    )


def test_far_off_keyword_gets_no_hint_and_misspelt_config_gets_one():
    with pytest.raises(TypeError) as err:
        _load("anls").compute(predictions=["a"], references=["a"], zzz=1)
    assert "did you mean" not in str(err.value) and "unknown option(s) 'zzz'" in str(err.value)
    with pytest.raises(ValueError, match=r"unknown config 'squad_2' \(did you mean 'squad_v2'\?\)"):
        _load("token_f1", "squad_2")


def test_module_path_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = Path(metricore_hf.module_path("one_minus_ned"))
    assert path.is_absolute() and (path / "one_minus_ned.py").is_file()
    assert evaluate.load(str(path)).compute(predictions=["ab"], references=["ab"])["one_minus_ned"] == 1.0
    with pytest.raises(ValueError, match="did you mean 'anls'"):
        metricore_hf.module_path("anl")


# ---------------------------------------------------------------- evaluator("question-answering")

WORDS = (
    "[PAD] [UNK] [CLS] [SEP] [MASK] the a cat sat on mat who where what is capital of france "
    "paris color sky blue dog ran to park which city river seine flows through how many legs "
    "four has"
).split()
QA = [
    ("q1", "who sat on the mat", "the cat sat on the mat", "the cat"),
    ("q2", "what is the capital of france", "paris is the capital of france", "paris"),
    ("q3", "what color is the sky", "the sky is blue", "blue"),
    ("q4", "where the dog ran", "the dog ran to the park", "the park"),
]
UNANSWERABLE = ("q5", "how many legs has the cat", "the river seine flows through paris", None)


class QAPipeline:
    """The ``question-answering`` pipeline's interface over a span model: per question, the
    span ``start <= end < start + 15`` of the context with the highest start x end probability,
    mapped back to context characters; with ``handle_impossible_answer`` the empty answer wins
    when the [CLS] null span is likelier (as transformers 4's pipeline did)."""

    task = "question-answering"

    def __init__(self, model: Any, tokenizer: Any) -> None:
        self.model, self.tokenizer = model, tokenizer

    def __call__(self, question, context, handle_impossible_answer: bool = False, **_: Any) -> list[dict]:
        return [self._one(q, c, handle_impossible_answer) for q, c in zip(question, context)]

    @torch.no_grad()
    def _one(self, question: str, context: str, impossible: bool) -> dict:
        enc = self.tokenizer(question, context, return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")[0].tolist()
        out = self.model(**enc)
        p_start = out.start_logits[0].softmax(-1)
        p_end = out.end_logits[0].softmax(-1)
        in_context = [i for i, s in enumerate(enc.sequence_ids(0)) if s == 1]
        best, span = -1.0, (in_context[0], in_context[0])
        for i in in_context:
            for j in in_context:
                if i <= j < i + 15 and float(p_start[i] * p_end[j]) > best:
                    best, span = float(p_start[i] * p_end[j]), (i, j)
        null = float(p_start[0] * p_end[0])
        if impossible and null > best:
            return {"answer": "", "score": null, "start": 0, "end": 0}
        start, end = offsets[span[0]][0], offsets[span[1]][1]
        return {"answer": context[start:end], "score": best, "start": start, "end": end}


@pytest.fixture(scope="module")
def qa_pipeline(tmp_path_factory):
    vocab = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    vocab.write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(WORDS),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    model = transformers.BertForQuestionAnswering(config)
    # a few steps on the answerable questions, so that some answers are right and some not
    enc = tokenizer([q for _, q, _, _ in QA], [c for _, _, c, _ in QA], padding=True, return_tensors="pt")
    starts, ends = [], []
    for k, (_, _, context, answer) in enumerate(QA):
        char = context.index(answer)
        starts.append(enc.char_to_token(k, char, sequence_index=1))
        ends.append(enc.char_to_token(k, char + len(answer) - 1, sequence_index=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(15):
        loss = model(**enc, start_positions=torch.tensor(starts), end_positions=torch.tensor(ends)).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return QAPipeline(model.eval(), tokenizer)


def qa_evaluator() -> Any:
    """``evaluate.evaluator("question-answering")``. evaluate 0.4.6 predates transformers 5,
    which dropped the task from its pipeline registry (the factory then refuses it) and
    ``TFPreTrainedModel`` (which ``Evaluator.prepare_pipeline`` tests for): there, the same
    evaluator class is built directly, with ``prepare_pipeline`` reduced to its branch for a
    ready pipeline. Data preparation, the pipeline call, the predictions' format and the
    metric call are evaluate's own code either way."""
    try:
        return evaluate.evaluator("question-answering")
    except KeyError as err:
        assert int(transformers.__version__.split(".")[0]) >= 5, err
    from evaluate.evaluator import QuestionAnsweringEvaluator

    class Evaluator(QuestionAnsweringEvaluator):
        def prepare_pipeline(self, model_or_pipeline, tokenizer=None, feature_extractor=None, device=None):
            if model_or_pipeline.task != self.task:
                raise ValueError(f"Incompatible `model_or_pipeline` for the `{self.task}` task")
            return model_or_pipeline

    return Evaluator()


def _squad_data(rows) -> Any:
    return datasets.Dataset.from_dict(
        {
            "id": [r[0] for r in rows],
            "question": [r[1] for r in rows],
            "context": [r[2] for r in rows],
            "answers": [
                {"text": [r[3]], "answer_start": [r[2].index(r[3])]}
                if r[3]
                else {"text": [], "answer_start": []}
                for r in rows
            ],
        }
    )


def test_evaluator_question_answering_squad_v1(qa_pipeline):
    data = _squad_data(QA)
    out = qa_evaluator().compute(
        model_or_pipeline=qa_pipeline, data=data, metric=_load("token_f1"), squad_v2_format=False
    )
    answers = {r[0]: a["answer"] for r, a in zip(QA, qa_pipeline(data["question"], data["context"]))}
    official = squad_ref.evaluate_v1([{"id": r[0], "answers": [r[3]]} for r in QA], answers)
    assert out["exact_match"] == pytest.approx(official["exact_match"], abs=1e-9)
    assert out["f1"] == pytest.approx(official["f1"], abs=1e-9)
    assert 0 < out["f1"] < 100, "the tiny model should get some answers right and some wrong"
    assert out["total_time_in_seconds"] > 0 and out["samples_per_second"] > 0


def test_evaluator_question_answering_squad_v2(qa_pipeline):
    rows = [*QA, UNANSWERABLE]
    data = _squad_data(rows)
    evaluator = qa_evaluator()
    out = evaluator.compute(
        model_or_pipeline=qa_pipeline, data=data, metric=_load("token_f1", "squad_v2"), squad_v2_format=True
    )
    predicted = qa_pipeline(data["question"], data["context"], handle_impossible_answer=True)
    official = squad_ref.evaluate_v2(
        [{"id": r[0], "answers": [r[3]] if r[3] else []} for r in rows],
        {r[0]: a["answer"] for r, a in zip(rows, predicted)},
        # the evaluator passes the chosen answer's score as no_answer_probability
        {r[0]: a["score"] for r, a in zip(rows, predicted)},
    )
    for key in (
        "exact",
        "f1",
        "total",
        "HasAns_exact",
        "HasAns_f1",
        "NoAns_exact",
        "NoAns_f1",
        "best_exact",
        "best_f1",
    ):
        assert out[key] == pytest.approx(official[key], abs=1e-9), key
    assert out["total"] == 5 and out["HasAns_total"] == 4 and out["NoAns_total"] == 1
    # inferred from the data when not given: the empty answer list makes it v2
    inferred = evaluator.compute(
        model_or_pipeline=qa_pipeline, data=data, metric=_load("token_f1", "squad_v2")
    )
    assert inferred["f1"] == out["f1"]
