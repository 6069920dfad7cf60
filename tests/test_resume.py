"""--resume: a real mtrun process killed with a real signal mid-run, then resumed, gives the same
results as an uninterrupted run — no case lost, none repeated."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from remote_fixtures import every_file_text, load_results, write_suite  # noqa: E402
from wire_servers import AzureLanguageServer  # noqa: E402

from runner.cli import main  # noqa: E402
from runner.errors import ExitCode  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
KEY = "resume-key-SECRET-4242"
SUT = ("  type: azure\n  endpoint_env: TEST_AZ_ENDPOINT\n  key_env: TEST_AZ_KEY\n"
       "  concurrency: 2\n  retry: {max_retries: 8, backoff_base: 0.001, backoff_max: 0.01}\n")


def _env(server) -> dict[str, str]:
    return {**os.environ, "TEST_AZ_ENDPOINT": server.url, "TEST_AZ_KEY": KEY,
            "PYTHONPATH": str(ROOT)}


def _mtrun(suite: Path, out: Path, *args: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "runner", str(suite), "-o", str(out), *args],
                            env=env, cwd=suite.parent, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _batches_recorded(out: Path) -> int:
    path = out / "progress.jsonl"
    if not path.exists():
        return 0
    return sum('"kind": "batch"' in line for line in path.read_text().splitlines())


def _comparable(results: dict) -> dict:
    return {"cases": results["cases"], "summary": results["summary"],
            "overall": results["overall"], "relations": results["relations"],
            "per_transformation": results["stats"]["per_transformation"],
            "dropped": results["stats"]["sut"]["dropped_labels"]}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ref")
    suite = write_suite(folder, SUT, n_repeat=6, batch_size=3,
                        extra="cache: {enabled: false}\n")
    with AzureLanguageServer(key=KEY, p429=0.1, p500=0.05) as server:
        proc = _mtrun(suite, folder / "out", "-q", env=_env(server))
        proc.communicate(timeout=300)
    # the corpus holds a sentence the server never answers: exit 6 (the system could not answer)
    assert proc.returncode == ExitCode.SYSTEM_ERRORS
    return load_results(folder / "out")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_run_resumes_to_the_same_results(tmp_path, reference, signum):
    suite = write_suite(tmp_path, SUT, n_repeat=6, batch_size=3,
                        extra=f"cache: {{path: {tmp_path / 'cache.sqlite'}}}\n")
    out = tmp_path / "out"
    with AzureLanguageServer(key=KEY, p429=0.1, p500=0.05, delay=0.03) as server:
        env = _env(server)
        proc = _mtrun(suite, out, env=env)
        deadline = time.time() + 120
        while _batches_recorded(out) < 3 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signum)
        stdout1, stderr1 = proc.communicate(timeout=120)
        done_before = _batches_recorded(out)
        assert 3 <= done_before < 21  # 61 sources in batches of 3: stopped mid-way
        if signum == signal.SIGTERM:
            assert proc.returncode == ExitCode.INTERRUPTED
            assert load_results(out)["run"]["status"] == "interrupted"
        else:
            assert proc.returncode == -signal.SIGKILL
        sent_before = len(server.texts_seen)
        proc = _mtrun(suite, out, "--resume", env=env)
        stdout2, stderr2 = proc.communicate(timeout=300)
    assert proc.returncode == ExitCode.SYSTEM_ERRORS, stderr2
    assert "resuming after" in stderr2
    resumed = load_results(out)
    assert resumed["run"]["status"] == "completed"
    assert resumed["run"]["sources_done"] == reference["run"]["sources_done"] == 61
    assert resumed["run"]["resumed_at"] and resumed["run"]["resumed_at"][0] >= 9
    assert _comparable(resumed) == _comparable(reference)
    ids = [c["id"] for c in resumed["cases"]]
    assert len(ids) == len(set(ids))  # nothing twice
    # finished sources were not asked again (the cache answers any text of a batch cut short)
    assert len(server.texts_seen) - sent_before < sent_before + 200
    assert resumed["stats"]["sut"]["cache"]["persistent_hits"] >= 0
    everything = stdout1 + stderr1 + stdout2 + stderr2 + every_file_text(out, tmp_path / "cache.sqlite")
    assert KEY not in everything


def test_resume_cuts_a_batch_written_in_part(tmp_path, monkeypatch):
    """A kill between a batch's cases and its progress line: those cases are cut and redone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.txt").write_text(
        "Ann met Bob.\nBob met Ann.\nCarl saw Dora.\nEve and Fay left.\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: r\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\nlimits: {batch_size: 1}\n", encoding="utf-8")
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    def scripted(self, texts):
        out = []
        for t in texts:
            words = t.rstrip(".").split()
            spans, pos = [], 0
            for w in words:
                pos = t.index(w, pos)
                if w[0].isupper() and w not in ("Ann",) or w == "Ann" and pos == 0:
                    spans.append((pos, pos + len(w), "PERSON", None))
                pos += len(w)
            out.append(spans)
        return out

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    assert main([str(tmp_path / "s.yaml"), "-o", "ref", "-q"]) in (0, 1)
    reference = load_results(tmp_path / "ref")
    assert main([str(tmp_path / "s.yaml"), "-o", "cut", "-q"]) in (0, 1)
    # pretend the run was killed after batch 2 had written cases but no progress line, and in
    # the middle of writing the next progress line
    progress = (tmp_path / "cut" / "progress.jsonl").read_text().splitlines()
    assert len(progress) == 5  # start + 4 batches
    (tmp_path / "cut" / "progress.jsonl").write_text(
        "\n".join(progress[:3]) + "\n" + progress[3][:25], encoding="utf-8")
    with open(tmp_path / "cut" / "cases.jsonl", "a", encoding="utf-8") as f:
        f.write('{"id": "half a line')
    assert main([str(tmp_path / "s.yaml"), "-o", "cut", "-q", "--resume"]) in (0, 1)
    resumed = load_results(tmp_path / "cut")
    assert _comparable(resumed) == _comparable(reference)
    assert resumed["run"]["resumed_at"] == [2]


def test_resume_refuses_another_configuration(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.txt").write_text("Ann met Bob.\n", encoding="utf-8")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: r\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
                     "transformations:\n  - type: entity_shuffle\n", encoding="utf-8")
    assert main([str(suite), "-o", "empty", "-q", "--resume"]) == ExitCode.USAGE_ERROR
    assert "nothing to resume" in capsys.readouterr().err
    out = tmp_path / "o"
    out.mkdir()
    (out / "progress.jsonl").write_text(json.dumps({"kind": "start", "key": "other"}) + "\n")
    assert main([str(suite), "-o", str(out), "-q", "--resume"]) == ExitCode.USAGE_ERROR
    assert "another suite configuration" in capsys.readouterr().err
