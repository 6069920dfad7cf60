"""The command line: help speed, exit codes, subcommands (no model needed)."""
import subprocess
import sys

from runner.cli import main
from runner.errors import ExitCode


def test_help_does_not_import_heavy_libraries():
    code = ("import sys; from runner.cli import main\n"
            "try: main(['--help'])\nexcept SystemExit: pass\n"
            "heavy = [m for m in ('spacy', 'torch', 'transformers', 'jsonschema', 'jinja2') "
            "if m in sys.modules]\nprint(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("[]")


def test_help_and_version(capsys):
    assert main(["--help"]) == ExitCode.OK
    assert "exit codes" in capsys.readouterr().out


def test_no_arguments_is_a_usage_error(capsys):
    assert main([]) == ExitCode.USAGE_ERROR


def test_unknown_option_is_a_usage_error(capsys):
    assert main(["run", "x.yaml", "--frobnicate"]) == ExitCode.USAGE_ERROR


def test_missing_suite_file(capsys, tmp_path):
    assert main([str(tmp_path / "nope.yaml")]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "nope.yaml" in err and "no such suite file" in err and "Traceback" not in err


def test_list_names_every_component(capsys):
    assert main(["list"]) == ExitCode.OK
    out = capsys.readouterr().out
    for name in ("spacy", "hf", "structural_question", "entity_shuffle", "MR1", "MR2"):
        assert name in out


def test_schema_prints_json(capsys):
    assert main(["schema"]) == ExitCode.OK
    assert '"$schema": "https://json-schema.org/draft/2020-12/schema"' in capsys.readouterr().out
