"""Corpora written by hand, without character offsets: RE arguments by text or marked inline
([E1 …], [E2 …]), coreference mentions by text and plain-text coreference corpora — every problem
an error with the file and line."""
from __future__ import annotations

import json

import pytest

from runner.cli import main
from runner.errors import SuiteError
from runner.tasks.coref.corpus import CorefCorpusReader
from runner.tasks.re.corpus import RECorpusReader
from runner.tasks.re.tables import TACRED_ENTITY_TYPES, TACRED_RELATIONS


def re_corpus(tmp_path, *objs):
    p = tmp_path / "pairs.jsonl"
    p.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs),
                 encoding="utf-8")
    return RECorpusReader(p, entity_types=TACRED_ENTITY_TYPES, relations=TACRED_RELATIONS)


def spans(src):
    return (src.text[src.head.start:src.head.end], src.head.type,
            src.text[src.tail.start:src.tail.end], src.tail.type)


def test_re_marked_inline(tmp_path):
    a, b, c = re_corpus(
        tmp_path,
        {"text": "[E1 Anna Keller] married [E2 Tom Brandt] in 2009.", "head": "PERSON",
         "tail": {"type": "PERSON"}, "relation": "per:spouse"},
        # the tail may come first; the markers' text may be repeated and is checked
        {"text": "[E2 Corvane] bought [E1 Helix Labs].", "head": {"type": "ORGANIZATION",
                                                               "text": "Helix Labs"},
         "tail": "ORGANIZATION"},
        # a marked head with a tail given by text; coref by text too
        {"text": "[E1 Anna Keller] said she married Tom Brandt.", "head": "PERSON",
         "tail": {"text": "Tom Brandt", "type": "PERSON"}, "coref": {"head": ["she"]}})
    assert a.text == "Anna Keller married Tom Brandt in 2009."
    assert spans(a) == ("Anna Keller", "PERSON", "Tom Brandt", "PERSON")
    assert a.gold == "per:spouse"
    assert b.text == "Corvane bought Helix Labs."
    assert spans(b) == ("Helix Labs", "ORGANIZATION", "Corvane", "ORGANIZATION")
    assert c.text == "Anna Keller said she married Tom Brandt."
    assert spans(c) == ("Anna Keller", "PERSON", "Tom Brandt", "PERSON")
    assert c.coref["head"][0].text_in(c.text) == "she"


def test_re_arguments_by_text(tmp_path):
    (a,) = re_corpus(tmp_path, {"text": "Lumen Health hired Priya Nair in March.",
                                "head": {"text": "Priya Nair", "type": "PERSON"},
                                "tail": {"text": "Lumen Health", "type": "ORGANIZATION"}})
    assert (a.head.start, a.head.end, a.tail.start, a.tail.end) == (19, 29, 0, 12)


@pytest.mark.parametrize("obj, message", [
    # ambiguous: the text occurs twice
    ({"text": "Tom met Tom Brandt and Tom.", "head": {"text": "Tom", "type": "PERSON"},
      "tail": {"text": "Tom Brandt", "type": "PERSON"}},
     "head: 'Tom' occurs 3 times .*give its start and end, or mark it inline"),
    # missing
    ({"text": "Anna Keller married Tom Brandt.", "head": {"text": "Anna", "type": "PERSON"},
      "tail": {"text": "Tom Brant", "type": "PERSON"}}, "tail: 'Tom Brant' does not occur"),
    # a part of a word is not a whole-word occurrence
    ({"text": "Annabel married Tom.", "head": {"text": "Anna", "type": "PERSON"},
      "tail": {"text": "Tom", "type": "PERSON"}}, "head: 'Anna' does not occur"),
    # a type alone needs a marker
    ({"text": "Anna Keller married Tom Brandt.", "head": "PERSON", "tail": "PERSON"},
     r"\"head\": 'PERSON' is only an entity type.*\[E1 …\]"),
    # marked and given offsets
    ({"text": "[E1 Anna] met [E2 Tom].", "head": {"start": 0, "end": 4, "type": "PERSON"},
      "tail": "PERSON"}, "marked .* gives offsets too"),
    # marked without a type
    ({"text": "[E1 Anna] met [E2 Tom].", "head": {}, "tail": "PERSON"},
     "must give its type"),
    # the repeated text disagrees with the marker
    ({"text": "[E1 Anna] met [E2 Tom].", "head": {"type": "PERSON", "text": "Ann"},
      "tail": "PERSON"}, "differs from the marked"),
    # an unclosed marker, a marker twice, a third marker
    ({"text": "[E1 Anna met [E2 Tom].", "head": "PERSON", "tail": "PERSON"},
     "unclosed or nested marker"),
    ({"text": "[E1 Anna] met [E1 Tom].", "head": "PERSON", "tail": "PERSON"},
     "appears twice"),
    ({"text": "[E1 Anna] met [E2 Tom] and [E3 Eva].", "head": "PERSON", "tail": "PERSON"},
     r"\[E3 …\] in the text"),
    # a marked type the tables do not know
    ({"text": "[E1 Anna] met [E2 Tom].", "head": "PERSN", "tail": "PERSON"},
     "not a known entity type"),
])
def test_re_errors_name_file_and_line(tmp_path, obj, message):
    ok = {"text": "Anna Keller married Tom Brandt.", "head": {"text": "Anna Keller",
                                                             "type": "PERSON"},
          "tail": {"text": "Tom Brandt", "type": "PERSON"}}
    with pytest.raises(SuiteError, match=message) as err:
        list(re_corpus(tmp_path, ok, "", obj))
    assert err.value.line == 3
    assert str(err.value).startswith(f"{tmp_path / 'pairs.jsonl'}:3: ")


def test_re_corpus_without_offsets_runs(tmp_path, capsys):
    """Before, a corpus naming its arguments by text passed `validate` and failed in the run."""
    (tmp_path / "pairs.jsonl").write_text("\n".join(json.dumps(o) for o in [
        {"text": "[E1 Anna Keller] married [E2 Tom Brandt] in 2009.", "head": "PERSON",
         "tail": "PERSON", "relation": "per:spouse"},
        {"text": "Maria Lopez married Daniel Reyes in Seville.",
         "head": {"text": "Maria Lopez", "type": "PERSON"},
         "tail": {"text": "Daniel Reyes", "type": "PERSON"}},
    ]) + "\n", encoding="utf-8")
    suite = tmp_path / "re.yaml"
    suite.write_text("name: re_no_offsets\ntask: re\nseed: 1\nsut: {type: textacy}\n"
                     "corpus: {path: pairs.jsonl}\n"
                     "transformations:\n  - {type: same_type_entity, follow_ups: 2}\n"
                     "  - {type: symmetric_swap}\n", encoding="utf-8")
    assert main(["validate", str(suite)]) == 0
    assert "2 source(s)" in capsys.readouterr().out
    out = tmp_path / "out"
    rc = main(["run", str(suite), "-o", str(out), "-q", "--no-cache"])
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert rc == results["verdict"]["exit_code"] == 0          # no threshold: exit 0
    assert results["run"]["sources_done"] == 2 and results["overall"]["follow_ups"] > 0
    cases = [json.loads(l) for l in (out / "cases.jsonl").read_text().splitlines()]
    texts = {c["source"]["text"] for c in cases}
    assert "Anna Keller married Tom Brandt in 2009." in texts     # markers removed
    swap = next(c for c in cases if c["transformation"] == "symmetric_swap"
                and c["source_id"] == "pairs:1")
    assert swap["source"]["head"]["text"] == "Anna Keller"


# -- coreference ------------------------------------------------------------------------------
def coref_corpus(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return CorefCorpusReader(p)


def test_coref_plain_text(tmp_path):
    docs = list(coref_corpus(tmp_path, "docs.txt", "Maria Lopez said she would come.\n\n"
                                                  "  The firm said it grew.  \n"))
    assert [(d.id, d.text, d.gold) for d in docs] == [
        ("docs:1", "Maria Lopez said she would come.", None),
        ("docs:3", "The firm said it grew.", None)]
    assert docs[1].origin == "docs.txt:3"


def test_coref_mentions_by_text_and_offsets(tmp_path):
    text = "Maria Lopez said she would come because she was free."
    lines = [{"text": "Maria Lopez said she would come.", "clusters": [["Maria Lopez", "she"]]},
             {"text": "Maria Lopez said she would come.", "clusters": [[[0, 11], "she"]]},
             {"text": text, "clusters": [["Maria Lopez", [17, 20], {"start": 40, "end": 43}]]}]
    a, b, c = coref_corpus(tmp_path, "g.jsonl", "".join(json.dumps(o) + "\n" for o in lines))
    assert a.gold == b.gold
    assert [[(m.start, m.end) for m in cl] for cl in a.gold.clusters] == [[(0, 11), (17, 20)]]
    assert [[(m.start, m.end) for m in cl] for cl in c.gold.clusters] == [[(0, 11), (17, 20),
                                                                         (40, 43)]]


@pytest.mark.parametrize("clusters, message", [
    ([["Maria Lopez", "she"]], r"clusters\[0\]\[1\]: 'she' occurs 2 times .*\[start, end\]"),
    ([["Maria", "Lopez", "Mary"]], r"clusters\[0\]\[2\]: 'Mary' does not occur"),
])
def test_coref_mention_errors_name_file_and_line(tmp_path, clusters, message):
    text = "Maria Lopez said she would come because she was free."
    body = json.dumps({"text": "Eva came."}) + "\n" + json.dumps({"text": text,
                                                                  "clusters": clusters}) + "\n"
    with pytest.raises(SuiteError, match=message) as err:
        list(coref_corpus(tmp_path, "g.jsonl", body))
    assert str(err.value).startswith(f"{tmp_path / 'g.jsonl'}:2: ")
