"""execution.engine ray under faults: a node lost (its raylet exits) ends in a finished run (its
batches rescheduled on a node that can hold them) or, when no node can, in a clear error within
the documented bound (runner/execution/liveness.py), never a silent wait; a worker killed while
it builds its models is replaced; `--resume` after the error gives the cases of an uninterrupted
run. Each test starts its own Ray (a subprocess's local one, or a two-node cluster)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import CAPITALISED_TAGGER, import_ray_or_skip

ROOT = Path(__file__).resolve().parent.parent

ray = import_ray_or_skip()

psutil = pytest.importorskip("psutil")

from runner.engine import Engine  # noqa: E402
from runner.execution import apply_overrides, make_engine  # noqa: E402
from runner.execution.liveness import NO_NODE_GRACE_S, POLL_S  # noqa: E402
from runner.suite import load_suite  # noqa: E402

pytestmark = pytest.mark.slow

NAMES = ["Ann", "Bob", "Carl", "Dana", "Eve", "Finn", "Gil", "Hal", "Ida", "Jon"]
SYSTEM = '''import time
from pathlib import Path

DIE_ONCE = {die_once!r}
if DIE_ONCE:
    import os, signal
    marker = Path(__file__).with_name("died_once")
    if not marker.exists():
        marker.write_text("x")
        os.kill(os.getpid(), signal.SIGKILL)   # the worker dies while it builds its models


{tagger}

def predict(texts):
    time.sleep({delay})
    return [tag_capitalised(text) for text in texts]
'''


def _folder(tmp_path: Path, *, delay: float = 0.3, die_once: bool = False, workers: int = 2,
            sources: int = 40) -> Path:
    lines = [f"{a} met {b} in the park number {i}." for i, (a, b) in
             enumerate((a, b) for a in NAMES for b in NAMES if a != b)][:sources]
    (tmp_path / "corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    system = SYSTEM.format(delay=delay, die_once=die_once, tagger=CAPITALISED_TAGGER)
    (tmp_path / "fault_system.py").write_text(system, encoding="utf-8")
    body = ("name: fault\ntask: ner\n"
            "sut: {type: python, callable: 'fault_system:predict', label_map: {PER: PERSON}}\n"
            "corpus: {path: corpus.txt}\ntransformations: [{type: entity_shuffle}]\n"
            "limits: {batch_size: 2}\nreport: {formats: [json, junit, markdown, html]}\n")
    (tmp_path / "local.yaml").write_text(body, encoding="utf-8")
    (tmp_path / "ray.yaml").write_text(
        body + f"execution: {{engine: ray, workers: {workers}}}\n", encoding="utf-8")
    return tmp_path


def _local_cases(folder: Path) -> list[str]:
    out = folder / "local-out"
    Engine(load_suite(folder / "local.yaml"), out).run()
    return (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()


def _mtrun(folder: Path, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "runner", str(folder / "ray.yaml"), *args],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kw)


def _batches(out: Path) -> int:
    path = out / "progress.jsonl"
    return path.read_text().count('"kind": "batch"') if path.exists() else 0


def test_a_lost_node_ends_with_a_clear_error_in_bounded_time_and_resume_is_exact(tmp_path):
    """The run's own local Ray loses its only node (kill -9 of its ray::DashboardAgent: the
    raylet exits with it). No node can hold a new worker: the run ends with the error within
    the bound instead of waiting; what was decided is written; --resume finishes the run with the
    cases of an uninterrupted one."""
    folder = _folder(tmp_path)
    out = folder / "out"
    proc = _mtrun(folder, "-o", str(out))
    deadline = time.time() + 300
    while _batches(out) < 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-3000:]
    agents = [p for p in psutil.Process(proc.pid).children(recursive=True)
              if "DashboardAgent" in " ".join(p.cmdline()[:2])]
    assert agents, "no ray::DashboardAgent under the run"
    killed = time.time()
    agents[0].send_signal(signal.SIGKILL)
    try:
        _, err = proc.communicate(timeout=NO_NODE_GRACE_S + 4 * POLL_S + 60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the run went on waiting after its node was lost")
    took = time.time() - killed
    assert proc.returncode == 3, err[-3000:]
    assert "no live node that can hold a worker" in err and "--resume" in err
    assert "Traceback" not in err
    assert took < NO_NODE_GRACE_S + 4 * POLL_S + 60
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["run"]["status"].startswith("failed: ClusterLost")
    assert 0 < results["run"]["sources_done"] < 40

    resumed = _mtrun(folder, "-o", str(out), "--resume", "-q")
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err[-3000:]
    cases = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert cases == _local_cases(folder)


def test_a_worker_killed_while_building_its_models_is_replaced(tmp_path):
    folder = _folder(tmp_path, delay=0.0, die_once=True, sources=12)
    out = folder / "out"
    proc = _mtrun(folder, "-o", str(out))
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    assert (folder / "died_once").exists()
    assert "a Ray worker died while starting; a new worker takes its place" in err
    assert "could not start" not in err and "Traceback" not in err
    cases = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert cases == _local_cases(folder)
    assert json.loads((out / "results.json").read_text())["run"]["status"] == "completed"


def test_a_lost_nodes_batches_are_rescheduled(tmp_path):
    """A two-node cluster: the node of one worker is lost mid-run (its raylet killed); a node
    that can hold a worker joins (as an autoscaler or an operator would add one); the lost
    worker's batches run again there and the run finishes with the local engine's cases."""
    from ray.cluster_utils import Cluster

    folder = _folder(tmp_path, delay=0.2)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    doomed = cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        suite = load_suite(folder / "local.yaml")
        apply_overrides(suite.config, workers=2)
        engine = make_engine(suite, folder / "out")
        events = []

        def lose_a_node(done, total):
            if not events:
                events.append(done)
                cluster.remove_node(doomed, allow_graceful=False)
                cluster.add_node(num_cpus=1)

        engine.progress = lose_a_node
        results = engine.run()
        assert events and engine.worker_deaths >= 1
        assert results["run"]["status"] == "completed"
        cases = (folder / "out" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
        ids = [json.loads(c)["id"] for c in cases]
        assert len(ids) == len(set(ids))
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert cases == _local_cases(folder)
