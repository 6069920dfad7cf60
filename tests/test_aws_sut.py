"""The aws system under test through real botocore (SigV4-signed requests, JSON protocol) against a
local wire-compatible Comprehend on 127.0.0.1: 25-text batches, byte limits, throttling with
Retry-After, 500s, per-text errors; the secret key never appears anywhere."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("boto3", reason="boto3 is not installed: pip install -e \".[aws]\"")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from remote_fixtures import SENTENCES, every_file_text, load_results, write_suite  # noqa: E402
from wire_servers import ComprehendServer  # noqa: E402

from runner.cli import main  # noqa: E402
from runner.errors import ExitCode  # noqa: E402

ACCESS_KEY = "AKIDTESTMTRUN00000001"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY0"


@pytest.fixture
def aws_env(monkeypatch, tmp_path):
    for var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")


def sut_yaml(url: str) -> str:
    return (f"  type: aws\n  endpoint_url: {url}\n  batch_size: 25\n  concurrency: 3\n"
            "  retry: {max_retries: 8, backoff_base: 0.001, backoff_max: 0.01, timeout: 10}\n")


def test_run_through_throttling_and_errors(tmp_path, aws_env, capsys):
    cache = tmp_path / "cache.sqlite"
    with ComprehendServer(key=ACCESS_KEY, p429=0.25, p500=0.15, seed=5) as server:
        suite = write_suite(tmp_path, sut_yaml(server.url), n_repeat=8,
                            extra=f"cache: {{path: {cache}}}\n", batch_size=40)
        code = main([str(suite), "-o", str(tmp_path / "out"), "-q"])
    assert code == ExitCode.SYSTEM_ERRORS  # the sentences the server never answers
    assert server.answered_429 > 0 and server.answered_500 > 0
    assert server.max_batch == 25 and server.answered_400 == 0
    r = load_results(tmp_path / "out")
    n = len(SENTENCES) * 8 + 1
    assert r["run"]["status"] == "completed" and r["run"]["sources_done"] == n
    assert r["components"]["sut"]["backend"] == "aws-comprehend"
    cases = r["cases"]
    errors = {c["source_id"] for c in cases if c["verdict"]["outcome"] == "error"}
    expected = {c["source_id"] for c in cases if "[[FAIL]]" in c["source"]["text"]
                or "[[DOCERR]]" in c["source"]["text"] or len(c["source"]["text"]) > 5000}
    assert errors == expected and len(errors) == 17
    assert any("5000" in c["verdict"]["reason"] for c in cases if c["verdict"]["outcome"] == "error")
    assert "fail" in {c["verdict"]["outcome"] for c in cases}
    assert r["overall"]["error"] == sum(c["verdict"]["outcome"] == "error" for c in cases)
    # offsets of "🎉 Zoë Müller" are code points: the entity texts read right
    for c in cases:
        for side in ("source", "follow_up"):
            for e in c[side]["entities"]:
                assert c[side]["text"][e["start"]:e["end"]] in (
                    "Angela Merkel", "Emmanuel Macron", "Joe Biden", "Ann Smith", "Bob Jones",
                    "Zoë Müller", "Paris", "Berlin", "New York", "Tokyo", "Siemens", "Google",
                    "United Nations")
    printed = capsys.readouterr()
    assert SECRET not in printed.out + printed.err
    assert SECRET not in every_file_text(tmp_path / "out", cache)
    assert not any(SECRET.encode() in b for b in server.bodies)


def test_offsets_counted_otherwise_are_repaired():
    from runner.sut.remote import realign

    text = "🎉 Zoë Müller met Ann."
    # UTF-16 units: the emoji counts 2
    assert realign(text, 3, 13, "Zoë Müller") == (2, 12)
    # UTF-8 bytes: 🎉 is 4 bytes, ë and ü 2 each
    assert realign(text, 5, 17, "Zoë Müller") == (2, 12)
    assert realign(text, 2, 12, "Zoë Müller") == (2, 12)
    assert realign(text, 0, 3, "Nobody") is None


def test_missing_credentials_exit_4(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN",
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    suite = write_suite(tmp_path, "  type: aws\n")
    assert main([str(suite), "-o", str(tmp_path / "out"), "-q"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "AWS_ACCESS_KEY_ID" in err and "Traceback" not in err
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    assert main([str(suite), "-o", str(tmp_path / "out"), "-q"]) == ExitCode.USAGE_ERROR
    assert "AWS_REGION" in capsys.readouterr().err


def test_refused_credentials_stop_the_run(tmp_path, aws_env, capsys):
    with ComprehendServer(key="AKIDSOMEONEELSE") as server:
        suite = write_suite(tmp_path, sut_yaml(server.url), extra="cache: {enabled: false}\n")
        code = main([str(suite), "-o", str(tmp_path / "out"), "-q"])
    assert code == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "refused the credentials" in err and SECRET not in err
