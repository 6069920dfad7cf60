"""`mtrun models` names every system and model a NER or coreference suite needs — flair (package and
tagger), stanza (package and model folder), hf, and for http/azure/aws the environment variables
(whether each is set, never its value) — and exits 4 when one is missing."""
from __future__ import annotations

import pytest

from runner.cli import main
from runner.errors import ExitCode
from runner.models.inventory import Need, check, suite_needs
from runner.suite import load_suite

AWS_VARS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
            "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for var in AWS_VARS + ("AZURE_LANGUAGE_ENDPOINT", "AZURE_LANGUAGE_KEY", "MY_URL", "MY_TOKEN",
                           "STANZA_RESOURCES_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("FLAIR_CACHE_ROOT", str(tmp_path / "flair"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def suite(tmp_path, sut: str, task: str = "ner") -> str:
    (tmp_path / "c.txt").write_text("Maria Lopez met Tom Brandt in Madrid.\n", encoding="utf-8")
    transformation = "{type: case, mode: lower}" if task == "ner" else "{type: crest}"
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\ntask: {task}\nsut: {sut}\ncorpus: {{path: c.txt}}\n"
                    f"transformations: [{transformation}]\n", encoding="utf-8")
    return str(path)


def needs(path):
    s = load_suite(path)
    return {(n.role, n.name): n for n in suite_needs(s.config, s.task)}


def test_flair_package_and_tagger(tmp_path):
    n = needs(suite(tmp_path, "{type: flair, model: flair/ner-english}"))
    assert ("sut", "flair") in n                                  # the package
    tagger = n[("sut", "flair/ner-english")]
    assert not tagger.available and "flair's cache" in tagger.where
    # in flair's cache (hub download layout) it is found
    cached = tmp_path / "flair" / "models" / "ner-english" / "models--flair--ner-english"
    cached.mkdir(parents=True)
    (cached / "pytorch_model.bin").write_bytes(b"x")
    assert check(Need("sut", "sut", "flair-model", "flair/ner-english")).available
    pt = tmp_path / "tagger.pt"
    assert not check(Need("sut", "sut", "flair-model", str(pt))).available
    pt.write_bytes(b"x")
    assert check(Need("sut", "sut", "flair-model", str(pt))).available


def test_stanza_package_and_model_folder(tmp_path, capsys):
    folder = tmp_path / "stanza"
    path = suite(tmp_path, f"{{type: stanza, model_dir: {folder}}}")
    n = needs(path)
    assert ("sut", "stanza") in n
    ner = n[("ner", str(folder / "en" / "ner"))]
    assert not ner.available and "resources.json" in ner.where
    assert main(["models", path]) == ExitCode.USAGE_ERROR
    (folder / "en" / "ner").mkdir(parents=True)
    (folder / "resources.json").write_text("{}")
    assert "no en tokenize model" in needs(path)[("tokenize", str(folder / "en" / "tokenize"))].where
    for processor in ("ner", "tokenize"):
        (folder / "en" / processor).mkdir(exist_ok=True)
        (folder / "en" / processor / "model.pt").write_bytes(b"x")
    assert all(x.available for x in needs(path).values() if x.kind == "stanza-models")
    # a NER model given by path: the file, and no NER folder
    n = needs(suite(tmp_path, f"{{type: stanza, model_dir: {folder}, "
                              f"ner_model: {tmp_path / 'ner.pt'}}}"))
    assert not n[("ner_model", str(tmp_path / "ner.pt"))].available
    assert ("ner", str(folder / "en" / "ner")) not in n


def test_hf_system(tmp_path):
    n = needs(suite(tmp_path, f"{{type: hf, model: {tmp_path / 'no-model'}}}"))
    assert not n[("sut", str(tmp_path / "no-model"))].available


def test_azure_variables_set_or_not_never_their_value(tmp_path, capsys, monkeypatch):
    path = suite(tmp_path, "{type: azure}")
    assert main(["models", path]) == ExitCode.USAGE_ERROR
    out = capsys.readouterr().out
    assert "MISSING endpoint   AZURE_LANGUAGE_ENDPOINT" in out and "AZURE_LANGUAGE_KEY" in out
    monkeypatch.setenv("AZURE_LANGUAGE_ENDPOINT", "https://secret-endpoint.example")
    monkeypatch.setenv("AZURE_LANGUAGE_KEY", "s3cr3t-key")
    assert main(["models", path]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "ok      key        AZURE_LANGUAGE_KEY" in out
    assert "s3cr3t" not in out and "secret-endpoint" not in out


def test_http_variables(tmp_path, capsys, monkeypatch):
    path = suite(tmp_path, "{type: http, url_env: MY_URL, headers: {Authorization: "
                           "'Bearer ${MY_TOKEN}'}, response: {}}")
    monkeypatch.setenv("MY_TOKEN", "tok-SECRET")
    n = needs(path)
    assert not n[("endpoint", "MY_URL")].available
    assert n[("secret", "MY_TOKEN")].available and n[("secret", "MY_TOKEN")].where == "set"
    assert main(["models", path]) == ExitCode.USAGE_ERROR
    assert "tok-SECRET" not in capsys.readouterr().out


def test_aws_credentials_and_region(tmp_path, monkeypatch):
    path = suite(tmp_path, "{type: aws}")
    n = needs(path)
    assert not n[("credentials", "default chain")].available
    assert not n[("region", "AWS region")].available
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA-v4lue")
    assert not needs(path)[("credentials", "default chain")].available   # half a key pair
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x-v4lue")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    n = needs(path)
    assert n[("credentials", "default chain")].available
    assert "v4lue" not in n[("credentials", "default chain")].where
    assert n[("region", "AWS region")].available
    assert needs(suite(tmp_path, "{type: aws, region: us-east-1}"))[
        ("region", "us-east-1")].available


def test_coref_http_and_python_systems(tmp_path):
    n = needs(suite(tmp_path, "{type: http, url_env: MY_URL}", task="coref"))
    assert not n[("endpoint", "MY_URL")].available
    n = needs(suite(tmp_path, "{type: python, callable: 'no_such_module_xyz:predict'}",
                    task="coref"))
    assert not n[("sut", "no_such_module_xyz:predict")].available


def test_coref_stanza_constituency_folder(tmp_path):
    folder = tmp_path / "stz"
    path = suite(tmp_path, "{type: xrenner}", task="coref")
    text = open(path).read().replace("{type: crest}", "{type: crest, constituency: {type: stanza, "
                                                      f"model_dir: {folder}}}}}")
    open(path, "w").write(text)
    n = needs(path)
    assert not n[("constituency", str(folder / "en" / "constituency"))].available
