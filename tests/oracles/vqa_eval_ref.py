"""Test oracle: the official VQA evaluation, ``vqaEval.py`` of GT-Vision-Lab/VQA
(``PythonEvaluationTools/vqaEvaluation/``), at master a013f00 (2021, "Fixed processing answers
bug") and at the v2.0 release a4f1afd (2017).

Written for the test suite from the script's logic, statement by statement, in the script's
own data layout (a question is ``{"question_id", "answers": [{"answer", "answer_id"}, ...],
"answer_type", "question_type"}``, a result ``{"question_id", "answer"}``) and with its
quirks: the answer dicts are modified in place (on a deep copy here), the leave-one-out
compares whole answer dicts, the per-answer ``re.search`` inside the punctuation loop, the
period pattern ``(?!<=\\d)(\\.)(?!\\d)`` with ``re.UNICODE`` passed as ``count``,
``manualMap.setdefault`` growing the map, and ``round(100 * float(sum(x)) / len(x), 2)``.
Nothing is shared with ``metricore``: the tables below are this file's own copy.

It is also the "official loop" of ``benchmarks/bench_vqa.py``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

__all__ = ["process_punctuation", "process_digit_article", "evaluate", "questions_from_lists"]

# the script's `contractions`, one "key value" pair per line
_CONTRACTIONS_TEXT = """
aint ain't
arent aren't
cant can't
couldve could've
couldnt couldn't
couldn'tve couldn't've
couldnt've couldn't've
didnt didn't
doesnt doesn't
dont don't
hadnt hadn't
hadnt've hadn't've
hadn'tve hadn't've
hasnt hasn't
havent haven't
hed he'd
hed've he'd've
he'dve he'd've
hes he's
howd how'd
howll how'll
hows how's
Id've I'd've
I'dve I'd've
Im I'm
Ive I've
isnt isn't
itd it'd
itd've it'd've
it'dve it'd've
itll it'll
let's let's
maam ma'am
mightnt mightn't
mightnt've mightn't've
mightn'tve mightn't've
mightve might've
mustnt mustn't
mustve must've
neednt needn't
notve not've
oclock o'clock
oughtnt oughtn't
ow's'at 'ow's'at
'ows'at 'ow's'at
'ow'sat 'ow's'at
shant shan't
shed've she'd've
she'dve she'd've
she's she's
shouldve should've
shouldnt shouldn't
shouldnt've shouldn't've
shouldn'tve shouldn't've
somebody'd somebodyd
somebodyd've somebody'd've
somebody'dve somebody'd've
somebodyll somebody'll
somebodys somebody's
someoned someone'd
someoned've someone'd've
someone'dve someone'd've
someonell someone'll
someones someone's
somethingd something'd
somethingd've something'd've
something'dve something'd've
somethingll something'll
thats that's
thered there'd
thered've there'd've
there'dve there'd've
therere there're
theres there's
theyd they'd
theyd've they'd've
they'dve they'd've
theyll they'll
theyre they're
theyve they've
twas 'twas
wasnt wasn't
wed've we'd've
we'dve we'd've
weve we've
werent weren't
whatll what'll
whatre what're
whats what's
whatve what've
whens when's
whered where'd
wheres where's
whereve where've
whod who'd
whod've who'd've
who'dve who'd've
wholl who'll
whos who's
whove who've
whyll why'll
whyre why're
whys why's
wont won't
wouldve would've
wouldnt wouldn't
wouldnt've wouldn't've
wouldn'tve wouldn't've
yall y'all
yall'll y'all'll
y'allll y'all'll
yall'd've y'all'd've
y'alld've y'all'd've
y'all'dve y'all'd've
youd you'd
youd've you'd've
you'dve you'd've
youll you'll
youre you're
youve you've
"""
CONTRACTIONS = dict(line.split(" ", 1) for line in _CONTRACTIONS_TEXT.strip().splitlines())
MANUAL_MAP = {
    "none": "0",
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
ARTICLES = ["a", "an", "the"]
PERIOD_STRIP = re.compile("(?!<=\\d)(\\.)(?!\\d)")
COMMA_STRIP = re.compile("(\\d)(\\,)(\\d)")
PUNCT = [
    ";",
    r"/",
    "[",
    "]",
    '"',
    "{",
    "}",
    "(",
    ")",
    "=",
    "+",
    "\\",
    "_",
    "-",
    ">",
    "<",
    "@",
    "`",
    ",",
    "?",
    "!",
]


class _Processor:
    """The two methods of ``VQAEval`` that process answers (one map per evaluator, as the
    script's ``self.manualMap``, which ``setdefault`` grows)."""

    def __init__(self) -> None:
        self.manual_map = dict(MANUAL_MAP)

    def process_punctuation(self, in_text: str) -> str:
        out_text = in_text
        for p in PUNCT:
            if (p + " " in in_text or " " + p in in_text) or (re.search(COMMA_STRIP, in_text) is not None):
                out_text = out_text.replace(p, "")
            else:
                out_text = out_text.replace(p, " ")
        out_text = PERIOD_STRIP.sub("", out_text, re.UNICODE)
        return out_text

    def process_digit_article(self, in_text: str) -> str:
        out_text = []
        temp_text = in_text.lower().split()
        for word in temp_text:
            word = self.manual_map.setdefault(word, word)
            if word not in ARTICLES:
                out_text.append(word)
        for word_id, word in enumerate(out_text):
            if word in CONTRACTIONS:
                out_text[word_id] = CONTRACTIONS[word]
        return " ".join(out_text)


def process_punctuation(text: str) -> str:
    return _Processor().process_punctuation(text)


def process_digit_article(text: str) -> str:
    return _Processor().process_digit_article(text)


def questions_from_lists(
    answers: list[list[str]], answer_types: list[str] | None = None, question_types: list[str] | None = None
) -> list[dict[str, Any]]:
    """Questions in the script's layout (answer ids 1..n, as in every VQA annotation file)."""
    out = []
    for i, given in enumerate(answers):
        out.append(
            {
                "question_id": i,
                "answers": [{"answer": a, "answer_id": j + 1} for j, a in enumerate(given)],
                "answer_type": answer_types[i] if answer_types else "",
                "question_type": question_types[i] if question_types else "",
            }
        )
    return out


def evaluate(
    questions: list[dict[str, Any]], results: list[str], *, release: str = "master"
) -> dict[str, Any]:
    """``VQAEval(vqa, vqaRes, n=2).evaluate()`` over ``questions`` and one result per question.

    ``release``: ``"master"`` (a013f00) or ``"v2.0"`` (a4f1afd). Returns ``per_question``
    (``avgGTAcc`` of each question, in order), ``overall``/``per_answer_type``/
    ``per_question_type`` (the unrounded means, ``float(sum(x)) / len(x)``) and ``accuracy``
    (the script's printed dict: ``overall``, ``perQuestionType``, ``perAnswerType``).
    """
    if release not in ("master", "v2.0"):
        raise ValueError(release)
    proc = _Processor()
    gts = {q["question_id"]: copy.deepcopy(q) for q in questions}
    res = {q["question_id"]: {"answer": r} for q, r in zip(questions, results)}
    acc_qa: list[float] = []
    acc_ques_type: dict[str, list[float]] = {}
    acc_ans_type: dict[str, list[float]] = {}
    for ques_id in [q["question_id"] for q in questions]:
        if release == "master":
            for ans_dic in gts[ques_id]["answers"]:
                ans_dic["answer"] = ans_dic["answer"].replace("\n", " ")
                ans_dic["answer"] = ans_dic["answer"].replace("\t", " ")
                ans_dic["answer"] = ans_dic["answer"].strip()
        res_ans = res[ques_id]["answer"]
        res_ans = res_ans.replace("\n", " ")
        res_ans = res_ans.replace("\t", " ")
        res_ans = res_ans.strip()
        if release == "v2.0":
            res_ans = proc.process_punctuation(res_ans)
            res_ans = proc.process_digit_article(res_ans)
        gt_acc = []
        gt_answers = [ans["answer"] for ans in gts[ques_id]["answers"]]
        if len(set(gt_answers)) > 1:
            for ans_dic in gts[ques_id]["answers"]:
                ans_dic["answer"] = proc.process_punctuation(ans_dic["answer"])
                if release == "master":
                    ans_dic["answer"] = proc.process_digit_article(ans_dic["answer"])
            if release == "master":
                res_ans = proc.process_punctuation(res_ans)
                res_ans = proc.process_digit_article(res_ans)
        for gt_ans_datum in gts[ques_id]["answers"]:
            other_gt_ans = [item for item in gts[ques_id]["answers"] if item != gt_ans_datum]
            matching_ans = [item for item in other_gt_ans if item["answer"] == res_ans]
            acc = min(1, float(len(matching_ans)) / 3)
            gt_acc.append(acc)
        ques_type = gts[ques_id]["question_type"]
        ans_type = gts[ques_id]["answer_type"]
        avg_gt_acc = float(sum(gt_acc)) / len(gt_acc)
        acc_qa.append(avg_gt_acc)
        acc_ques_type.setdefault(ques_type, []).append(avg_gt_acc)
        acc_ans_type.setdefault(ans_type, []).append(avg_gt_acc)

    def mean(xs: list[float]) -> float:
        return float(sum(xs)) / len(xs)

    def printed(xs: list[float]) -> float:
        return round(100 * float(sum(xs)) / len(xs), 2)

    return {
        "per_question": acc_qa,
        "overall": mean(acc_qa),
        "per_answer_type": {t: mean(v) for t, v in acc_ans_type.items()},
        "per_question_type": {t: mean(v) for t, v in acc_ques_type.items()},
        "accuracy": {
            "overall": printed(acc_qa),
            "perQuestionType": {t: printed(v) for t, v in acc_ques_type.items()},
            "perAnswerType": {t: printed(v) for t, v in acc_ans_type.items()},
        },
    }
