"""`mtrun init`: the starter suite of each task validates, runs offline on its sample corpus and
exits with its verdict's code; existing files are not overwritten."""
from __future__ import annotations

import json

import pytest

from runner.cli import main
from runner.init import STARTERS, write_starter

STARTER_SUITES = [("ner", "ner_spacy.yaml"), ("re", "re_textacy.yaml"),
                  ("coref", "coref_xrenner.yaml")]


@pytest.mark.parametrize("task,suite_file", STARTER_SUITES)
def test_init_validate_run(tmp_path, capsys, task, suite_file):
    assert main(["init", "--task", task, "-o", str(tmp_path / "s")]) == 0
    suite = tmp_path / "s" / suite_file
    assert suite.is_file()
    text = suite.read_text(encoding="utf-8")
    # every top-level key is explained by a comment just above it
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line and not line[0].isspace() and not line.startswith("#"):
            assert lines[i - 1].startswith("#"), f"{line!r} has no comment above it"
    assert "max_violation_rate" in text
    assert main(["validate", str(suite)]) == 0
    out = tmp_path / "out"
    rc = main(["run", str(suite), "--max-sources", "3", "-o", str(out), "-q", "--no-cache"])
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["run"]["sources_done"] == 3
    assert results["overall"]["follow_ups"] > 0, "the starter made no test case"
    assert rc == results["verdict"]["exit_code"]
    assert rc in (0, 1)


def test_re_starter_corpus_has_no_offsets(tmp_path):
    write_starter("re", tmp_path)
    for line in (tmp_path / "data" / "re_sample.jsonl").read_text().splitlines():
        obj = json.loads(line)
        for role in ("head", "tail"):
            assert not (isinstance(obj[role], dict) and "start" in obj[role])


def test_init_refuses_to_overwrite(tmp_path, capsys):
    assert main(["init", "--task", "ner", "-o", str(tmp_path)]) == 0
    suite = tmp_path / "ner_spacy.yaml"
    suite.write_text("mine", encoding="utf-8")
    capsys.readouterr()
    assert main(["init", "--task", "ner", "-o", str(tmp_path)]) == 4
    err = capsys.readouterr().err
    assert "already exist" in err and "--force" in err and "Traceback" not in err
    assert suite.read_text(encoding="utf-8") == "mine"
    assert main(["init", "--task", "ner", "-o", str(tmp_path), "--force"]) == 0
    assert suite.read_text(encoding="utf-8") != "mine"


def test_init_refuses_when_only_the_corpus_exists(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "coref_sample.txt").write_text("mine\n", encoding="utf-8")
    assert main(["init", "--task", "coref", "-o", str(tmp_path)]) == 4
    assert not (tmp_path / "coref_xrenner.yaml").exists()
    assert (tmp_path / "data" / "coref_sample.txt").read_text() == "mine\n"


def test_init_systems_come_from_the_registry(tmp_path, capsys):
    assert main(["init", "--task", "ner", "--system", "flair", "-o", str(tmp_path)]) == 4
    err = capsys.readouterr().err
    assert "no starter suite for the ner system 'flair'" in err
    assert "stanza" in err and "spacy" in err           # the registry's systems are listed
    assert main(["init", "--task", "re", "--system", "nope", "-o", str(tmp_path)]) == 4
    assert "its systems: hf, http, luke, python, textacy" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
    assert main(["init", "--task", "nope"]) == 4


def test_every_starter_system_is_registered():
    from runner.init import systems_of

    for task, system in STARTERS:
        assert system in systems_of(task)
