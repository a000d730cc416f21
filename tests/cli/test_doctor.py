"""``metricore doctor``, ``metricore prepare`` and ``metricore --version``."""

from __future__ import annotations

import json
import subprocess
import sys

from metricore.cli import main
from metricore.metrics.meteor15 import backend
from metricore.metrics.meteor15.status import data_status


def test_doctor_reports_what_this_install_can_do(capsys):
    assert main(["doctor", "--json"]) == 0  # WordNet is provisioned by the set-up
    report = json.loads(capsys.readouterr().out)
    assert (report["meteor_1_5"]["backend"], report["meteor_1_5"]["why"]) == backend()
    assert report["meteor_1_5"]["data"] == data_status().lines()
    assert report["wordnet"]["found"].endswith("corpora/wordnet")
    assert report["packages"]["numpy"] and "pycocoevalcap" in report["references"]
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    path, why = backend()
    assert f"METEOR 1.5 path: {path} ({why})" in text and "WordNet (METEOR): " in text


def test_doctor_says_why_the_python_path_runs(monkeypatch, capsys):
    monkeypatch.setenv("METRICORE_METEOR15_PURE_PYTHON", "1")
    main(["doctor"])
    assert "METEOR 1.5 path: python (METRICORE_METEOR15_PURE_PYTHON=1 is set)" in capsys.readouterr().out


def test_prepare_builds_or_finds_the_index(capsys):
    assert main(["prepare"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("METEOR 1.5 paraphrase index: ") and data_status().ready


def test_version_answers_without_importing_the_metrics():
    code = (
        "import sys; from metricore.cli import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'metricore')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("metricore ") and lines[1].startswith("METEOR 1.5 compiled extensions: ")
    assert eval(lines[2]) == ["metricore", "metricore._version", "metricore.cli"]
