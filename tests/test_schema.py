"""The committed schema, the registry, the shipped suites and the README agree."""
import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from runner.tasks.ner.catalog import REGISTRIES
from runner.schema import SCHEMA_PATH, build_schema, render
from runner.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
SUITES = sorted((ROOT / "suites").glob("*.yaml"))


def test_committed_schema_is_generated_from_the_registry():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), \
        "schema/suite.schema.json is stale: run `mtrun schema --write`"


def test_schema_is_valid_2020_12():
    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_shipped_suites_validate_and_reference_the_schema(suite):
    assert suite.read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../schema/suite.schema.json")
    loaded = load_suite(suite)
    Draft202012Validator(build_schema()).validate(loaded.config)  # filled config still valid


def test_readme_documents_every_component_and_key():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for registry in REGISTRIES.values():
        for name in registry.names():
            assert f"`{name}`" in readme, f"README.md does not mention {registry.kind} {name!r}"
    for key in build_schema()["properties"]:
        assert f"`{key}`" in readme, f"README.md does not document the key {key!r}"


def test_readme_holds_the_two_commands_and_ci_runs_the_second():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    main = re.search(r"<!-- main-command -->\s*```bash\n(.+?)\n```", readme, re.S)
    test = re.search(r"<!-- test-command -->\s*```bash\n(.+?)\n```", readme, re.S)
    assert main and "mtrun suites/" in main.group(1)
    assert test and "pytest" in test.group(1)
    assert "test-command" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
