"""The README's custom-training-loop recipe: predictions gathered with
``Accelerator.gather_for_metrics`` and scored on the main process, run as written on two
CPU processes (gloo, started by ``torchrun``) and in one plain process. The seven
examples leave the last step of two processes with batches of two one row short, which the
sampler fills by repeating a row; the gathered lists must hold each example exactly once,
so both runs print the same line, and that line is the one the README shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.readme_examples import example, example_output

pytest.importorskip("torch")
pytest.importorskip("accelerate")

BIN = Path(sys.executable).parent


def _run(argv: list[str], cwd: Path) -> str:
    env = dict(os.environ)
    env["HF_HOME"] = str(cwd / "hf-home")  # no accelerate config file of this machine's user
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")])
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _two_processes(script: Path) -> str:
    """``torchrun`` (what ``accelerate launch`` runs for several processes): two CPU
    processes, gloo, a free port."""
    return _run([str(BIN / "torchrun"), "--standalone", "--nproc_per_node", "2", str(script)], script.parent)


def test_readme_accelerate_recipe_two_processes(tmp_path):
    script = tmp_path / "recipe.py"
    script.write_text(example("accelerate"), encoding="utf-8")
    shown = example_output("accelerate").strip()
    assert _run([sys.executable, str(script)], tmp_path).strip() == shown
    assert _two_processes(script).strip() == shown, "only the main process prints; it saw every row once"
    assert shown.split()[0] == "7"


def test_the_run_is_distributed_and_a_plain_gather_repeats_a_row(tmp_path):
    """The check above can fail: the run really has two gloo processes, and gathering without
    ``gather_for_metrics`` scores the row the sampler repeated twice."""
    text = example("accelerate")
    assert text.count("accelerator.gather_for_metrics(") == 2
    text = text.replace("accelerator.gather_for_metrics(", "gather_object(").replace(
        ", use_gather_object=True)", ")"
    )
    text = "from accelerate.utils import gather_object\n" + text.replace(
        "accelerator = Accelerator(cpu=True)\n",
        "accelerator = Accelerator(cpu=True)\nassert (accelerator.num_processes, accelerator.state.backend) == (2, 'gloo')\n",
    )
    script = tmp_path / "plain_gather.py"
    script.write_text(text, encoding="utf-8")
    assert _two_processes(script).split()[0] == "8"
