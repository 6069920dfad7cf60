"""execution.engine ray: the same cases as the local engine whatever the number of workers, a
worker killed mid-run loses and repeats nothing, --resume after the driver is killed, one request
budget for a remote system. One local Ray (2 CPUs) is started for the module."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import import_ray_or_skip  # noqa: E402
from remote_fixtures import SENTENCES  # noqa: E402
from wire_servers import AzureLanguageServer  # noqa: E402

from runner.engine import Engine  # noqa: E402
from runner.execution import apply_overrides, make_engine  # noqa: E402
from runner.suite import load_suite  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

ray = import_ray_or_skip()

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 1024 * 1024)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def _suite(path: Path | str, *, sources: int, batch: int, workers: int | None = None):
    suite = load_suite(path)
    suite.config["limits"]["max_sources"] = sources
    suite.config["limits"]["batch_size"] = batch
    if workers:
        apply_overrides(suite.config, workers=workers)
    return suite


def _cases(out: Path) -> list[str]:
    return (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()


# A light suite with the state that crosses batches (repair's corpus candidate pool and the
# pool entities' sentences, corpus_score: contexts), for the failure tests: the pool of batch k
# is built from batches 0..k, so a batch redone on another worker or after a restart must still
# see exactly that pool.
LIGHT = """name: light
task: ner
seed: 3
sut: {type: spacy}
corpus: {path: %s}
transformations:
  - type: structural_question
  - type: entity_shuffle
    follow_ups: 2
# names compared with their article: among the violations this suite repairs are names written
# with "the" in one sentence and without it in the other
relations: [{type: MR2, article: compare}]
repair:
  enabled: true
  candidates: corpus
  corpus_score: contexts
  encoder: sentence-transformers/all-MiniLM-L6-v2
  PThreshold: 1.0
  alpha: 1.0
limits: {max_sources: 40, batch_size: 5}
report: {formats: [json]}
"""


@pytest.fixture(scope="module")
def light(tmp_path_factory):
    folder = tmp_path_factory.mktemp("light")
    path = folder / "light.yaml"
    path.write_text(LIGHT % (ROOT / "suites" / "data" / "news.txt"), encoding="utf-8")
    out = folder / "local"
    results = Engine(load_suite(path), out).run()
    return path, _cases(out), results


def test_two_workers_write_the_local_engines_cases(tmp_path):
    """The default suite on the sample corpus, 60 sources in batches of 16: byte-identical
    cases.jsonl (same order too: batches are recorded in corpus order)."""
    suite_path = ROOT / "suites" / "ner_spacy.yaml"
    local = Engine(_suite(suite_path, sources=60, batch=16), tmp_path / "local").run()
    engine = make_engine(_suite(suite_path, sources=60, batch=16, workers=2), tmp_path / "ray")
    assert type(engine).__name__ == "RayEngine"
    results = engine.run()
    assert (tmp_path / "ray" / "cases.jsonl").read_bytes() == \
        (tmp_path / "local" / "cases.jsonl").read_bytes()
    # the repair stage ran on violations (the referee panel: no state across batches; the
    # light suite below has the candidate pool that grows from batch to batch)
    assert local["repair"]["backend"].startswith("referees:")
    assert local["repair"]["entities_relabelled"] > 0
    assert sum(1 for line in _cases(tmp_path / "ray") if '"repair"' in line) > 0
    for key in ("summary", "overall", "relations", "funnel", "repair", "categories"):
        assert results[key] == local[key], key
    assert results["components"] == local["components"]
    assert results["stats"]["per_transformation"] == local["stats"]["per_transformation"]
    progress = [json.loads(x) for x in (tmp_path / "ray" / "progress.jsonl").open()]
    assert [p["sources_done"] for p in progress if p["kind"] == "batch"] == [16, 32, 48, 60]


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(tmp_path, light):
    path, expected, local = light
    engine = make_engine(_suite(path, sources=40, batch=5, workers=2), tmp_path / "ray")
    killed = []

    def kill_once(done, total):
        if not killed:
            # worker 0 holds batches judged or queued beyond the one just recorded
            ray.kill(engine.workers[0])
            killed.append(done)

    engine.progress = kill_once
    results = engine.run()
    assert killed == [5] and engine.worker_deaths == 1
    cases = _cases(tmp_path / "ray")
    assert cases == expected
    ids = [json.loads(c)["id"] for c in cases]
    assert len(ids) == len(set(ids))
    assert results["overall"] == local["overall"] and results["repair"] == local["repair"]
    # the repaired violations voted with a pool (and its sentences) grown across batches
    assert local["repair"]["candidates"]["pool"] > 20 and local["repair"]["mutants_queried"] > 0


def _batches(out: Path) -> int:
    path = out / "progress.jsonl"
    return path.read_text().count('"kind": "batch"') if path.exists() else 0


def test_resume_after_the_driver_is_killed(tmp_path, light, local_ray):
    """A real mtrun process on the module's Ray cluster (--ray-address), SIGKILLed after two
    batches are recorded, then resumed with --resume: the cases of an uninterrupted run."""
    path, expected, _ = light
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "runner", str(path), "-o", str(out), "--workers", "2",
           "--ray-address", local_ray, "-q"]
    # run from the checkout: the cluster's workers import mtrun from the driver's folder
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while _batches(out) < 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-3000:]
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert 2 <= _batches(out) < 8
    resumed = subprocess.run(cmd + ["--resume"], env=env, cwd=ROOT, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode in (0, 1), resumed.stderr[-3000:]
    assert _cases(out) == expected
    results = json.loads((out / "results.json").read_text())
    assert results["run"]["resumed_at"] and results["run"]["status"] == "completed"


class CountingServer(AzureLanguageServer):
    """Records the most requests it was answering at once."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.in_flight = self.max_in_flight = 0
        self.count_lock = threading.Lock()

    def handle(self, *args):
        with self.count_lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(0.02)
            return super().handle(*args)
        finally:
            with self.count_lock:
                self.in_flight -= 1


def test_a_remote_system_keeps_one_request_budget_for_the_cluster(tmp_path, monkeypatch):
    """Two workers, a remote system with concurrency 2: never more than 2 requests at once (each
    worker with its own budget would send up to 4), the cases of the local engine, and the
    persistent cache written once, by the gateway."""
    key = "ray-gateway-SECRET"
    sut = ("  type: azure\n  endpoint_env: TEST_AZ_ENDPOINT\n  key_env: TEST_AZ_KEY\n"
           "  concurrency: 2\n  batch_size: 2\n")
    lines = [f"{t[:-1]} ({i})." for i, t in enumerate(SENTENCES * 3) if "[[" not in t]
    (tmp_path / "corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite_path = tmp_path / "suite.yaml"
    suite_path.write_text(
        f"name: gw\ntask: ner\nseed: 5\nsut:\n{sut}corpus: {{path: corpus.txt}}\n"
        "transformations:\n  - type: entity_shuffle\n    follow_ups: 2\n"
        f"limits: {{batch_size: 4}}\ncache: {{path: {tmp_path / 'cache.sqlite'}}}\n",
        encoding="utf-8")
    with CountingServer(key=key) as server:
        monkeypatch.setenv("TEST_AZ_ENDPOINT", server.url)
        monkeypatch.setenv("TEST_AZ_KEY", key)
        local = Engine(load_suite(suite_path), tmp_path / "local", use_cache=False).run()
        suite = load_suite(suite_path)
        apply_overrides(suite.config, workers=2)
        server.max_in_flight = 0
        results = make_engine(suite, tmp_path / "ray").run()
        sent = server.requests
    assert _cases(tmp_path / "ray") == _cases(tmp_path / "local")
    assert 1 <= server.max_in_flight <= 2
    stats = results["stats"]["sut"]
    assert stats["texts_sent"] == local["stats"]["sut"]["texts_sent"] > 0
    assert stats["calls"] == local["stats"]["sut"]["calls"]
    assert stats["cache"]["persistent_entries"] == stats["texts_sent"]
    assert sent == stats["calls"] + local["stats"]["sut"]["calls"]
    # the credentials never reach an output
    for name in ("cases.jsonl", "progress.jsonl"):
        assert key not in (tmp_path / "ray" / name).read_text()
    assert key not in json.dumps(results)


def test_command_line_overrides_choose_ray():
    cfg = {"execution": {"engine": "local", "workers": 2}}
    apply_overrides(cfg, workers=3)
    assert cfg["execution"] == {"engine": "ray", "workers": 3}
    cfg = {}
    apply_overrides(cfg, address="ray://head:10001")
    assert cfg["execution"] == {"engine": "ray", "address": "ray://head:10001"}
    cfg = {"execution": {"engine": "local"}}
    apply_overrides(cfg)
    assert cfg["execution"] == {"engine": "local"}


def test_counts_are_added_per_batch_and_dropped_labels_counted():
    from runner.execution.ray_engine import ClusterSUT
    from runner.execution.worker import add_stats, stats_delta

    before = {"calls": 2, "texts_sent": 5, "cache": {"hits": 1, "path": "a"},
              "dropped_labels": {"DATE": 2}}
    after = {"calls": 3, "texts_sent": 9, "cache": {"hits": 1, "path": "a"},
             "dropped_labels": {"DATE": 3, "TIME": 1}}
    delta = stats_delta(after, before)
    assert delta == {"calls": 1, "texts_sent": 4, "cache": {"path": "a"},
                     "dropped_labels": {"DATE": 1, "TIME": 1}}
    sut = ClusterSUT({"backend": "x"}, remote=False)
    sut.add(delta)
    sut.add(delta)
    assert sut.dropped_labels == Counter({"DATE": 2, "TIME": 2})
    assert sut.stats()["calls"] == 2 and sut.stats()["cache"]["path"] == "a"
    total: dict = {}
    add_stats(total, {"a": {"b": 1}})
    add_stats(total, {"a": {"b": 2}})
    assert total == {"a": {"b": 3}}


def test_ctrl_c_on_the_driver_stops_the_cluster_work_with_partial_results(tmp_path):
    """Ctrl-C in a terminal reaches the driver and every process it started (its own local Ray
    here): exit 2, the batches recorded so far in the reports, no Ray process left behind."""
    corpus = ROOT / "suites" / "data" / "news.txt"
    suite = tmp_path / "s.yaml"
    suite.write_text(f"name: s\ntask: ner\nsut: {{type: spacy}}\ncorpus: {{path: {corpus}}}\n"
                     "transformations: [{type: structural_question}]\n"
                     "limits: {batch_size: 4}\nreport: {formats: [json]}\n"
                     "execution: {engine: ray, workers: 2}\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "runner", str(suite), "-o", str(out)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 300
    while _batches(out) < 1 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-3000:]
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 2, err[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert results["run"]["status"] == "interrupted"
    done = results["run"]["sources_done"]
    assert 0 < done < results["run"]["sources_total"] and done % 4 == 0
    assert len(results["cases"]) == len(_cases(out)) > 0
    assert "Traceback" not in err
