"""The `python` system under test: a function called with a batch of the task's inputs."""
import json
import textwrap

import pytest

from runner.cli import ExitCode, main
from runner.errors import ModelNotAvailable
from runner.sut.base import SUTFailure
from runner.sut.python_sut import build_python_system
from runner.tasks import get_task

MODEL = '''
CALLS = []

def predict(texts):
    """Capitalised words are PER (a scripted system); 'BOOM' raises; 'BAD' gets a bad span."""
    CALLS.append(list(texts))
    out = []
    for text in texts:
        if "BOOM" in text:
            raise RuntimeError("model exploded on " + text[:10])
        if "BAD" in text:
            out.append([{"start": 0, "end": len(text) + 5, "label": "PER"}])
            continue
        spans, pos = [], 0
        for word in text.split(" "):
            if word[:1].isupper() and word.strip(".?") not in ("The", "BAD"):
                w = word.strip(".?")
                spans.append({"start": pos, "end": pos + len(w), "label": "PER"})
            pos += len(word) + 1
        out.append(spans)
    return out

def short(texts):
    return [[] for _ in texts[1:]]

def not_a_list(texts):
    return 42

def loud(texts):
    raise ValueError("no weights loaded")
'''


@pytest.fixture()
def model_dir(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "scripted_ner.py").write_text(MODEL, encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))  # removed again after the test
    yield folder
    import sys

    sys.modules.pop("scripted_ner", None)


def _system(folder, fn="predict", **params):
    params.setdefault("label_map", {"PER": "PERSON"})
    return build_python_system(task=get_task("ner"), callable=f"scripted_ner:{fn}",
                               base_dir=folder, **params)


def test_predictions_come_back_in_the_task_shape_with_the_label_map(model_dir):
    sut = _system(model_dir, batch_size=2)
    out = sut.predict_outcomes(["Ann met Bob.", "the dog", "Ann met Bob."])
    assert [[(s.start, s.end, s.label, s.raw_label) for s in p.spans] for p in out] == [
        [(0, 3, "PERSON", "PER"), (8, 11, "PERSON", "PER")], [],
        [(0, 3, "PERSON", "PER"), (8, 11, "PERSON", "PER")]]
    import scripted_ner

    assert scripted_ner.CALLS == [["Ann met Bob.", "the dog"]]  # a text is asked once
    assert sut.describe()["callable"] == "scripted_ner:predict"


def test_an_exception_isolates_the_input_that_raised(model_dir):
    sut = _system(model_dir, batch_size=4)
    out = sut.predict_outcomes(["Ann ran.", "BOOM now", "Bob sat.", "Eve left."])
    assert [isinstance(p, SUTFailure) for p in out] == [False, True, False, False]
    assert "RuntimeError: model exploded on BOOM now" in out[1].reason
    assert [len(p.spans) for p in out if not isinstance(p, SUTFailure)] == [1, 1, 1]


@pytest.mark.parametrize("fn, reason", [
    ("short", "returned 0 prediction(s) for 1 input(s)"),
    ("not_a_list", "returned int, expected a list"),
    ("loud", "raised ValueError: no weights loaded"),
])
def test_bad_returns_are_errors_with_a_reason(model_dir, fn, reason):
    out = _system(model_dir, fn).predict_outcomes(["Ann ran.", "Bob sat."])
    assert all(isinstance(p, SUTFailure) and reason in p.reason for p in out)


def test_bad_offsets_are_an_error_of_that_input_only(model_dir):
    out = _system(model_dir).predict_outcomes(["BAD one", "Ann ran."])
    assert isinstance(out[0], SUTFailure) and "offsets 0..12 are outside a text of 7" in out[0].reason
    assert [s.label for s in out[1].spans] == ["PERSON"]


@pytest.mark.parametrize("answer, reason", [
    ([{"start": 0, "end": 3}], "label must be a non-empty string"),
    ([{"start": "0", "end": 3, "label": "PER"}], "start and end must be integers"),
    (["PER"], "expected an object"),
    ({"start": 0}, "expected a list"),
    ([{"start": 2, "end": 2, "label": "PER"}], "outside a text"),
])
def test_ner_shape_is_checked(answer, reason):
    with pytest.raises(ValueError, match=reason):
        get_task("ner").prediction_from_json(answer, "Ann ran.")


def test_missing_module_or_function_is_a_clear_error(model_dir, tmp_path):
    with pytest.raises(ModelNotAvailable, match="no module 'nowhere_model'"):
        build_python_system(task=get_task("ner"), callable="nowhere_model:predict",
                            base_dir=tmp_path, label_map={})
    with pytest.raises(ModelNotAvailable, match="has no 'absent'"):
        _system(model_dir, "absent")


def _suite(tmp_path, callable_="scripted_ner:predict"):
    (tmp_path / "corpus.txt").write_text(
        "Ann met Bob in the park.\nThe BOOM came from Carl and Dana.\nEve and Finn went home.\n",
        encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(textwrap.dedent(f"""\
        name: python_sut
        task: ner
        sut: {{type: python, callable: "{callable_}", batch_size: 8, label_map: {{PER: PERSON}}}}
        corpus: {{path: corpus.txt}}
        transformations: [{{type: entity_shuffle}}]
        report: {{formats: [json]}}
        """), encoding="utf-8")
    return suite


def test_a_run_with_a_python_system_from_the_suite_folder(tmp_path, capsys):
    """The module sits beside the suite (not on sys.path); the source that makes it raise gives
    error cases with the message, the others are tested."""
    (tmp_path / "scripted_ner.py").write_text(MODEL, encoding="utf-8")
    try:
        code = main([str(_suite(tmp_path)), "-o", str(tmp_path / "out"), "-q"])
    finally:
        import sys

        sys.modules.pop("scripted_ner", None)
    # one source the system could not answer: above the default limit (any source), exit 6
    assert code == ExitCode.SYSTEM_ERRORS
    assert "the system could not answer 1 of 3 source(s)" in capsys.readouterr().err
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["verdict"]["status"] == "error"
    assert results["components"]["sut"]["type"] == "python"
    errors = [c for c in results["cases"] if c["verdict"]["outcome"] == "error"]
    assert len(errors) == 1 and "raised RuntimeError: model exploded" in errors[0]["verdict"]["reason"]
    judged = [c for c in results["cases"] if c["verdict"]["outcome"] in ("pass", "fail")]
    assert len(judged) == 2  # Ann/Bob and Eve/Finn swapped


def test_validate_rejects_a_malformed_callable(tmp_path, capsys):
    assert main(["validate", str(_suite(tmp_path, "scripted_ner.predict"))]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "sut.callable: expected module:function, e.g. mymodel.api:predict" in err
