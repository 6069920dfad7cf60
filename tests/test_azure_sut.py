"""The azure system under test against a local wire-compatible server: limits, 429 + Retry-After,
500s, per-document errors, error outcomes, the persistent cache, and the key kept secret."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from remote_fixtures import SENTENCES, every_file_text, load_results, write_suite  # noqa: E402
from wire_servers import AzureLanguageServer  # noqa: E402

from runner.cli import main  # noqa: E402
from runner.errors import ExitCode  # noqa: E402

KEY = "azkey-0123456789abcdef-SECRET"
FAST = "  retry: {max_retries: 8, backoff_base: 0.001, backoff_max: 0.01, timeout: 10}\n"


def azure_sut(extra: str = "") -> str:
    return ("  type: azure\n  endpoint_env: TEST_AZ_ENDPOINT\n  key_env: TEST_AZ_KEY\n"
            "  concurrency: 3\n" + FAST + extra)


@pytest.fixture
def env(monkeypatch):
    def set_server(server):
        monkeypatch.setenv("TEST_AZ_ENDPOINT", server.url + "/")
        monkeypatch.setenv("TEST_AZ_KEY", KEY)
    return set_server


def run(suite: Path, out: Path, *args: str) -> int:
    return main([str(suite), "-o", str(out), "-q", *args])


def test_run_completes_through_429_and_500_and_marks_failures_error(tmp_path, env, capsys):
    cache = tmp_path / "cache.sqlite"
    suite = write_suite(tmp_path, azure_sut(), n_repeat=4,
                        extra=f"cache: {{path: {cache}}}\n")
    with AzureLanguageServer(key=KEY, p429=0.25, p500=0.1, seed=3) as server:
        env(server)
        code = main([str(suite), "-o", str(tmp_path / "out")])  # not quiet: console checked
    assert code == ExitCode.SYSTEM_ERRORS  # [[FAIL]], [[DOCERR]], the over-long text
    assert server.answered_429 > 0 and server.answered_500 > 0
    assert server.max_batch <= 5 and server.answered_400 == 0  # limits respected by the client
    assert all(len(t) <= 5120 for t in server.texts_seen)
    r = load_results(tmp_path / "out")
    n_sources = len(SENTENCES) * 4 + 1
    assert r["run"]["status"] == "completed" and r["run"]["sources_done"] == n_sources
    assert r["stats"]["per_transformation"]["entity_shuffle"]["sources"] == n_sources
    assert r["stats"]["sut"]["retries"] >= server.answered_429 + server.answered_500 - 4 * 9
    cases = r["cases"]
    outcomes = [c["verdict"]["outcome"] for c in cases]
    assert set(outcomes) <= {"pass", "fail", "error"}
    assert "fail" in outcomes  # the server's position bug is found
    errors = [c for c in cases if c["verdict"]["outcome"] == "error"]
    # [[FAIL]] (500 forever), [[DOCERR]] (document error) and the over-long text: 4 + 4 + 1
    assert {c["source_id"] for c in errors} == {c["source_id"] for c in cases
                                               if "[[FAIL]]" in c["source"]["text"]
                                               or "[[DOCERR]]" in c["source"]["text"]
                                               or len(c["source"]["text"]) > 5120}
    assert len({c["source_id"] for c in errors}) == 9
    assert all(c["verdict"]["reason"] for c in errors)
    assert any("5120" in c["verdict"]["reason"] for c in errors)
    assert any("InvalidDocument" in c["verdict"]["reason"] for c in errors)
    assert r["overall"]["error"] == len(errors)
    assert r["overall"]["cases"] == len(cases)
    # nothing lost: every source without an error that has two entities of a type was tested
    tested = {c["source_id"] for c in cases}
    assert len(tested) >= 9 * 4 // 2
    # the report lists the errors apart, and the calls and cache
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert f"Errors ({len(errors)})" in html
    assert "[[DOCERR]]" in html and "InvalidDocument" in html
    assert "Persistent cache" in html and str(cache) in html
    # the key is nowhere: not in outputs, cache, console
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err
    assert "could not be judged" in captured.out and "without a call" in captured.out
    assert KEY not in every_file_text(tmp_path / "out", cache)
    assert KEY.encode() not in cache.read_bytes()
    # the key only travelled in the header: no request body holds it
    assert not any(KEY.encode() in b for b in server.bodies)


def test_results_do_not_depend_on_retries(tmp_path, env):
    suite = write_suite(tmp_path, azure_sut(), extra="cache: {enabled: false}\n")
    runs = []
    for i, (p429, p500) in enumerate(((0.0, 0.0), (0.3, 0.2))):
        with AzureLanguageServer(key=KEY, p429=p429, p500=p500, seed=11) as server:
            env(server)
            run(suite, tmp_path / f"out{i}")
        runs.append(load_results(tmp_path / f"out{i}"))
    assert runs[0]["cases"] == runs[1]["cases"]
    assert runs[0]["summary"] == runs[1]["summary"]


def test_persistent_cache_answers_a_second_run_without_calls(tmp_path, env):
    cache = tmp_path / "c" / "p.sqlite"
    suite = write_suite(tmp_path, azure_sut(), extra=f"cache: {{path: {cache}}}\n")
    with AzureLanguageServer(key=KEY) as server:
        env(server)
        run(suite, tmp_path / "out1")
        first = server.requests
        run(suite, tmp_path / "out2")
        second = server.requests - first
    r1, r2 = load_results(tmp_path / "out1"), load_results(tmp_path / "out2")
    assert r1["cases"] == r2["cases"]
    # only the texts that failed (never cached) are asked again: the [[FAIL]] one, with retries
    assert r2["stats"]["sut"]["cache"]["persistent_hits"] > 0
    sent_again = r2["stats"]["sut"]["texts_sent"]
    assert sent_again == 3  # the [[FAIL]], [[DOCERR]] and over-long sources
    assert second <= 2 * 9
    c = r2["stats"]["sut"]["cache"]
    assert c["persistent_entries"] == r1["stats"]["sut"]["cache"]["persistent_entries"] > 0
    # --no-cache asks the service again
    with AzureLanguageServer(key=KEY) as server:
        env(server)
        run(suite, tmp_path / "out3", "--no-cache")
        assert server.requests >= r1["stats"]["sut"]["calls"] - 2
    assert "cache" in load_results(tmp_path / "out3")["stats"]["sut"]
    assert "persistent_hits" not in load_results(tmp_path / "out3")["stats"]["sut"]["cache"]


def test_retry_after_is_honoured(monkeypatch):
    from runner.sut.remote import RetryPolicy

    waits = []
    from runner.tasks.ner.sut.azure import AzureNER

    with AzureLanguageServer(key=KEY, p429=1.0, retry_after="2") as server:
        monkeypatch.setenv("E", server.url)
        monkeypatch.setenv("K", KEY)
        sut = AzureNER(endpoint_env="E", key_env="K", label_map={})
        sut.policy = RetryPolicy(max_retries=3, sleep=waits.append)
        out = sut.predict_outcomes(["Angela Merkel met Emmanuel Macron."])
    assert waits == [2.0, 2.0, 2.0]
    assert "429" in out[0].reason and "4 attempts" in out[0].reason


def test_utf16_offsets_are_converted(monkeypatch):
    from runner.tasks.ner.sut.azure import AzureNER

    text = "🎉🎉 Zoë Müller met Angela Merkel in Paris."
    with AzureLanguageServer(key=KEY) as server:
        monkeypatch.setenv("E", server.url)
        monkeypatch.setenv("K", KEY)
        for index_type in ("UnicodeCodePoint", "Utf16CodeUnit"):
            sut = AzureNER(endpoint_env="E", key_env="K", string_index_type=index_type,
                           label_map={"Person": "PERSON", "Location": "LOCATION"})
            (pred,) = sut.predict([text])
            assert [(text[s.start:s.end], s.label) for s in pred.spans] == [
                ("Zoë Müller", "PERSON"), ("Angela Merkel", "PERSON"), ("Paris", "LOCATION")]


def test_wrong_key_stops_the_run_with_exit_4_without_printing_it(tmp_path, env, capsys,
                                                                   monkeypatch):
    suite = write_suite(tmp_path, azure_sut(), extra="cache: {enabled: false}\n")
    with AzureLanguageServer(key="the-real-key") as server:
        env(server)
        code = run(suite, tmp_path / "out")
    assert code == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "refused the credentials" in err and "401" in err and KEY not in err
    assert "Traceback" not in err


def test_missing_credentials_exit_4_naming_the_variables(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TEST_AZ_ENDPOINT", raising=False)
    monkeypatch.delenv("TEST_AZ_KEY", raising=False)
    suite = write_suite(tmp_path, azure_sut())
    assert run(suite, tmp_path / "out") == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "TEST_AZ_ENDPOINT" in err and "TEST_AZ_KEY" in err and "Traceback" not in err
    # validate needs no credentials
    assert main(["validate", str(suite)]) == ExitCode.OK


def test_dry_run_counts_calls_and_sends_nothing(tmp_path, env, capsys):
    cache = tmp_path / "cache.sqlite"
    suite = write_suite(tmp_path, azure_sut(), with_long=False,
                        extra=f"cache: {{path: {cache}}}\n")
    with AzureLanguageServer(key=KEY) as server:
        env(server)
        assert run(suite, tmp_path / "out", "--dry-run") == ExitCode.OK
        assert server.requests == 0
        out = capsys.readouterr().out
        assert f"{len(SENTENCES)} sentence(s)" in out and "0 already cached" in out
        assert f"in {-(-len(SENTENCES) // 5)} call(s)" in out
        assert f"{sum(map(len, SENTENCES)):,} characters" in out
        run(suite, tmp_path / "out")
        before = server.requests
        assert run(suite, tmp_path / "out", "--dry-run") == ExitCode.OK
        assert server.requests == before
    out = capsys.readouterr().out
    assert f"{len(SENTENCES) - 2} already cached → 2 to send" in out  # the two failing ones


def test_a_throttled_batch_is_not_split_but_a_failing_one_is(monkeypatch):
    from runner.tasks.ner.sut.azure import AzureNER
    from runner.sut.base import SUTFailure
    from runner.sut.remote import RetryPolicy

    texts = [f"Ann Smith met Bob Jones ({i})." for i in range(5)]
    with AzureLanguageServer(key=KEY, p429=1.0) as server:
        monkeypatch.setenv("E", server.url)
        monkeypatch.setenv("K", KEY)
        sut = AzureNER(endpoint_env="E", key_env="K", label_map={})
        sut.policy = RetryPolicy(max_retries=2, sleep=lambda s: None)
        out = sut.predict_outcomes(texts)
    assert server.requests == 3  # one request, two retries: asking more often does not help
    assert all(isinstance(p, SUTFailure) and "429" in p.reason for p in out)
    with AzureLanguageServer(key=KEY) as server:
        monkeypatch.setenv("E", server.url)
        sut = AzureNER(endpoint_env="E", key_env="K", label_map={"Person": "PERSON"})
        sut.policy = RetryPolicy(max_retries=2, sleep=lambda s: None)
        out = sut.predict_outcomes(texts[:2] + ["Ann Smith [[FAIL]]."] + texts[2:4])
    assert [isinstance(p, SUTFailure) for p in out] == [False, False, True, False, False]
    assert all(len(p.spans) == 2 for p in out if not isinstance(p, SUTFailure))
