"""The suite's ``execution`` section and the command line's --workers / --ray-address: checked
before anything starts, with a clear message and exit 4. No Ray needed."""
from __future__ import annotations

from runner.cli import main
from runner.errors import ExitCode
from runner.suite import load_suite

SUITE = """\
name: ex
task: ner
sut: {type: spacy}
corpus: {path: c.txt}
transformations:
  - type: entity_shuffle
execution:
  engine: %s
  workers: %s
"""


def _write(tmp_path, engine="ray", workers="2"):
    (tmp_path / "c.txt").write_text("Ann met Bob in Paris.\n", encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text(SUITE % (engine, workers), encoding="utf-8")
    return path


def test_defaults_are_the_local_engine(tmp_path):
    (tmp_path / "c.txt").write_text("Ann met Bob.\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SUITE.split("execution:")[0], encoding="utf-8")
    ex = load_suite(tmp_path / "s.yaml").config["execution"]
    assert ex == {"engine": "local", "address": None, "workers": 2, "cpus_per_worker": 1,
                  "gpus_per_worker": 0}


def test_an_unknown_engine_is_located(tmp_path, capsys):
    assert main(["validate", str(_write(tmp_path, engine="spark"))]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "s.yaml:8:11" in err and "execution.engine" in err and "ray" in err
    assert "Traceback" not in err


def test_zero_workers_is_refused(tmp_path, capsys):
    assert main(["validate", str(_write(tmp_path, workers="0"))]) == ExitCode.USAGE_ERROR
    assert "execution.workers" in capsys.readouterr().err
    path = _write(tmp_path, engine="local")
    assert main(["run", str(path), "--workers", "0"]) == ExitCode.USAGE_ERROR


def test_the_execution_section_is_not_part_of_the_resume_key(tmp_path):
    """A run may be resumed with another engine or number of workers."""
    from runner.engine import Engine

    a = Engine(load_suite(_write(tmp_path, engine="local")), tmp_path / "o").resume_key()
    b = Engine(load_suite(_write(tmp_path, engine="ray", workers="5")), tmp_path / "o").resume_key()
    assert a == b


def test_progress_shows_workers_and_recent_rate(tmp_path):
    from runner.execution.ray_engine import RayEngine

    engine = RayEngine(load_suite(_write(tmp_path, workers="3")), tmp_path / "o")
    engine.workers = [object(), None, object()]
    engine.worker_deaths = 1
    engine._rate.extend([(100.0, 0), (110.0, 40)])
    detail = engine.progress_detail()
    assert detail.startswith("ray: 2 worker(s), 1 restarted, ") and "4.0 sources/s" in detail
