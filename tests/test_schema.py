"""The committed schema, the registry, the shipped suites, the README and the docs agree."""
import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from runner.errors import SuiteError
from runner.schema import SCHEMA_PATH, build_schema, render
from runner.suite import load_suite
from runner.tasks import all_tasks, get_task

ROOT = Path(__file__).resolve().parent.parent
# the shipped suites and the gold-set suites of bench/ (whose figures the docs quote)
SUITES = sorted((ROOT / "suites").glob("*.yaml")) + sorted((ROOT / "bench").glob("*.yaml"))


def test_committed_schema_is_generated_from_the_registry():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), \
        "schema/suite.schema.json is stale: run `mtrun schema --write`"


def test_schema_is_valid_2020_12():
    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


@pytest.mark.parametrize("suite", SUITES, ids=[f"{s.parent.name}/{s.name}" for s in SUITES])
def test_shipped_suites_validate_and_reference_the_schema(suite):
    assert suite.read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../schema/suite.schema.json")
    loaded = load_suite(suite)
    Draft202012Validator(build_schema(loaded.config["task"])).validate(loaded.config)
    # what an editor checks as you type: the committed file, branch chosen by `task`
    import yaml

    editor = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    raw = yaml.safe_load(suite.read_text(encoding="utf-8"))
    editor.validate(raw)
    assert not editor.is_valid({**raw, "modle": 1})
    assert not editor.is_valid({**raw, "sut": {**raw["sut"], "modle": "x"}})
    assert not editor.is_valid({**raw, "task": "nre"})


def test_unknown_task_is_a_suite_error_with_did_you_mean():
    with pytest.raises(SuiteError, match="unknown task 'nerr'; available: coref, ner, re") as info:
        get_task("nerr")
    assert info.value.hint == "did you mean 'ner'?"


def test_the_docs_pages_document_every_component_and_key():
    """The hand-written pages (not only the generated reference) say what each component is."""
    pages = "\n".join(p.read_text(encoding="utf-8")
                      for p in sorted((ROOT / "docs" / "pages").glob("*.md")))
    for task in all_tasks():
        for registry in task.registries().values():
            for name in registry.names():
                assert f"`{name}`" in pages, f"docs/pages/ does not mention {registry.kind} {name!r}"
        for key in build_schema(task.name)["properties"]:
            assert f"`{key}`" in pages, f"docs/pages/ does not document the key {key!r}"


def test_readme_holds_the_two_commands_and_ci_runs_the_second():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    main = re.search(r"<!-- main-command -->\s*```bash\n(.+?)\n```", readme, re.S)
    test = re.search(r"<!-- test-command -->\s*```bash\n(.+?)\n```", readme, re.S)
    assert main and "mtrun suites/" in main.group(1)
    assert test and "pytest" in test.group(1)
    assert "test-command" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_results_schema_has_no_stray_keys_and_checks_a_cases_triage_mark():
    """A key that is no JSON Schema keyword is ignored by validators: a property placed beside
    ``properties`` instead of inside it checks nothing."""
    import json

    import jsonschema

    schema = json.loads((Path(__file__).resolve().parent.parent / "schema" /
                         "results.schema.json").read_text(encoding="utf-8"))
    keywords = {"properties", "required", "items", "allOf", "anyOf", "oneOf", "not", "type",
                "description", "$ref", "additionalProperties", "enum", "const", "if", "then",
                "else", "minimum", "maximum", "patternProperties", "minItems", "default"}
    for branch in schema["allOf"]:
        assert set(branch["then"]) <= keywords, set(branch["then"]) - keywords
    case = {"id": "s/t/0/MR1", "transformation": "t", "relation": "MR1", "source": {"text": "a"},
            "follow_up": {"text": "b", "edit": []}, "verdict": {"outcome": "fail"},
            "triage": {"mark": "confirmed"}}
    validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/case"})
    assert not list(validator.iter_errors(case))
    case["triage"]["mark"] = "maybe"
    assert list(validator.iter_errors(case))
