"""The shipped suites for the papers' systems: valid without credentials, and a run without
credentials or models exits 4 naming what is missing (and prints no key)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITES = ["ner_azure", "ner_aws", "ner_flair_conll", "ner_flair_ontonotes", "attack_hf"]
SECRETS = {"AZURE_LANGUAGE_KEY", "AZURE_LANGUAGE_ENDPOINT", "AWS_ACCESS_KEY_ID",
           "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION",
           "AWS_DEFAULT_REGION", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
           "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRETS}
    env.update(PYTHONPATH=str(ROOT), AWS_CONFIG_FILE=str(tmp_path / "none"),
               AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_EC2_METADATA_DISABLED="true", FLAIR_CACHE_ROOT=str(tmp_path / "flair"),
               HF_HUB_OFFLINE="1", **extra)
    return env


def _run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("name", SUITES)
def test_validate_needs_no_credentials(name, tmp_path):
    proc = _run(["validate", f"suites/{name}.yaml"], _env(tmp_path))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name,needs", [
    ("ner_azure", ["AZURE_LANGUAGE_ENDPOINT", "AZURE_LANGUAGE_KEY"]),
    ("ner_aws", ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]),
    ("ner_flair_conll", ["flair"]),
    ("ner_flair_ontonotes", ["flair"]),
    ("attack_hf", ["dslim/bert-base-NER", "save_pretrained"]),
])
def test_run_without_credentials_exits_4_naming_them(name, needs, tmp_path):
    proc = _run([f"suites/{name}.yaml", "-o", str(tmp_path / "out"), "--max-sources", "3"],
                _env(tmp_path))
    assert proc.returncode == 4, proc.stderr
    for word in needs:
        assert word in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_half_configured_azure_never_prints_the_key(tmp_path):
    key = "only-the-key-is-set-SECRET"
    proc = _run(["suites/ner_azure.yaml", "-o", str(tmp_path / "out")],
                _env(tmp_path, AZURE_LANGUAGE_KEY=key))
    assert proc.returncode == 4
    assert "AZURE_LANGUAGE_ENDPOINT" in proc.stderr and "AZURE_LANGUAGE_KEY" not in proc.stderr
    assert key not in proc.stdout + proc.stderr


def test_help_and_validate_import_no_client_library(tmp_path):
    code = ("import sys; from runner.cli import main\n"
            "try: main(['--help'])\nexcept SystemExit: pass\n"
            "main(['validate', 'suites/ner_aws.yaml', 'suites/ner_azure.yaml', "
            "'suites/ner_flair_conll.yaml'])\n"
            "print([m for m in ('boto3', 'botocore', 'stanza', 'flair', 'torch', 'sqlite3', "
            "'urllib.request') if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(tmp_path), cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
