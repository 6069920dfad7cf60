"""Coreference task components on hand-made data (no model loaded): types and corpus errors,
issue types, the oracle's alignment, mention depths, xrenner's output format."""
import json

import pytest

from runner.errors import SuiteError
from runner.tasks.coref.constituency import Node, PhraseTree
from runner.tasks.coref.corpus import CorefCorpusReader
from runner.tasks.coref.crest import same_depths
from runner.tasks.coref.oracle import classify, gold_check, inverse, issue_types, judge, to_source
from runner.tasks.coref.systems import parse_xrenner_conll
from runner.tasks.coref.types import (CorefInputError, CorefPrediction, Mention,
                                      prediction_from_json)
from runner.types import Edit, FollowUp, Replacement


def M(a, b):
    return Mention(a, b)


# -- types and corpus --------------------------------------------------------------------------
def test_prediction_drops_singletons_and_sorts():
    p = CorefPrediction.build([[(10, 12), (0, 4)], [(20, 22)]])
    assert p.clusters == ((M(0, 4), M(10, 12)),)
    assert p.mentions == (M(0, 4), M(10, 12))


@pytest.mark.parametrize("bad, message", [
    ({"a": 1}, "list of clusters"),
    ([[[0, "3"], [4, 6]]], "integers"),
    ([[[5, 3], [6, 8]]], "0 ≤ start < end"),
    ([[[0, 99], [1, 2]]], "outside the text"),
    ([[[0, 2], [3, 5]], [[0, 2], [6, 8]]], "in clusters 0 and 1"),
    ([[[0, 2, 3]]], "[start, end]"),
])
def test_malformed_clusters_say_what_is_wrong(bad, message):
    with pytest.raises(CorefInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        prediction_from_json(bad, "Some text here.")


def test_mentions_as_objects_or_pairs():
    text = "Ann said she left."
    a = prediction_from_json([[[0, 3], {"start": 9, "end": 12}]], text)
    assert a.describe(text) == "{Ann, she}"


def _write(tmp_path, lines, name="c.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_jsonl_reader_reads_text_and_gold(tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "d1", "text": "Ann said she left.",
                                      "clusters": [[[0, 3], [9, 12]]]}),
                          "", json.dumps({"text": "No gold here."})])
    docs = list(CorefCorpusReader(p))
    assert [d.id for d in docs] == ["d1", "c:3"]
    assert docs[0].gold.describe(docs[0].text) == "{Ann, she}"
    assert docs[1].gold is None and docs[1].origin == "c.jsonl:3"


@pytest.mark.parametrize("line, message", [
    ("{not json", "invalid JSON"),
    ('["a list"]', "JSON object"),
    ('{"text": ""}', "non-empty string"),
    ('{"text": "Ann left.", "entities": []}', "unknown key"),
    ('{"text": "Ann left.", "year": "1811"}', "whole year from 1000 to 2099"),
    ('{"text": "Ann left.", "year": 18110}', "whole year"),
    ('{"text": "Ann left.", "year": true}', "whole year"),
    ('{"text": "Ann left.", "clusters": [[[0, 3], [4, 40]]]}', "outside the text"),
    ('{"text": "Ann left.", "clusters": [[[0, 3], [3]]]}', "clusters\\[0\\]\\[1\\]"),
])
def test_jsonl_reader_errors_name_file_and_line(tmp_path, line, message):
    p = _write(tmp_path, ['{"text": "A fine first line."}', line])
    with pytest.raises(SuiteError, match=message) as exc:
        list(CorefCorpusReader(p))
    assert f"{p}:2:" in str(exc.value)


def test_a_documents_year_is_read_and_written(tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "d", "text": "Emma left.", "year": 1811})])
    (doc,) = CorefCorpusReader(p)
    assert doc.year == 1811 and doc.to_json()["year"] == 1811


def test_duplicate_ids_are_an_error(tmp_path):
    p = _write(tmp_path, ['{"id": "x", "text": "One."}', '{"id": "x", "text": "Two."}'])
    with pytest.raises(SuiteError, match="used again"):
        list(CorefCorpusReader(p))


CONLL = """#begin document (test); part 000
test 0 0 John NNP - - - - - - (1)
test 0 1 said VBD - - - - - - -
test 0 2 he PRP - - - - - - (1)
test 0 3 saw VBD - - - - - - -
test 0 4 the DT - - - - - - (2
test 0 5 old JJ - - - - - - -
test 0 6 car NN - - - - - - 2)
test 0 7 . . - - - - - - -

test 0 0 It PRP - - - - - - (2)
test 0 1 was VBD - - - - - - -
test 0 2 red JJ - - - - - - -
test 0 3 . . - - - - - - -

#end document
"""


def test_conll2012_documents_and_sentences(tmp_path):
    p = tmp_path / "x.v4_gold_conll"
    p.write_text(CONLL)
    [doc] = CorefCorpusReader(p)
    assert doc.text == "John said he saw the old car. It was red."
    assert doc.gold.describe(doc.text) == "{John, he} {the old car, It}"
    sents = list(CorefCorpusReader(p, unit="sentence"))
    assert [s.gold.describe(s.text) for s in sents] == ["{John, he}", "(no cluster)"]


def test_conll2012_errors(tmp_path):
    p = tmp_path / "x.conll"
    p.write_text(CONLL.replace("(2\n", "(2x\n"))
    with pytest.raises(SuiteError, match="coreference column"):
        list(CorefCorpusReader(p))
    p.write_text(CONLL.replace("#end document\n", ""))
    with pytest.raises(SuiteError, match="no '#end document'"):
        list(CorefCorpusReader(p))


# -- issue types: one hand-made pair each -------------------------------------------------------
A, B, C, D, E = M(0, 3), M(10, 13), M(20, 23), M(30, 33), M(40, 43)


@pytest.mark.parametrize("reference, response, expected", [
    ([[A, B]], [[A, B], [C, D]], ["extra entity"]),
    ([[A, B], [C, D]], [[A, B]], ["missing entity"]),
    ([[A, B], [C, D]], [[A, B, C, D]], ["conflated entity"]),
    ([[A, B, C, D]], [[A, B], [C, D]], ["divided entity"]),
    ([[A, B]], [[A, B, C]], ["extra mention"]),
    ([[A, B, C]], [[A, B]], ["missing mention"]),
    ([[M(0, 8), B]], [[M(4, 8), B]], ["span error"]),
    ([[A, B]], [[A, B]], []),
], ids=["extra entity", "missing entity", "conflated entity", "divided entity", "extra mention",
        "missing mention", "span error", "none"])
def test_issue_types(reference, response, expected):
    found, details = issue_types(reference, response)
    assert found == expected
    assert [d["type"] for d in details] == expected


def test_span_error_is_not_also_a_missing_and_extra_mention():
    found, _ = issue_types([[M(0, 8), B, C]], [[M(4, 8), B, C]])
    assert found == ["span error"]


# -- oracle: alignment through the edit ---------------------------------------------------------
SRC = "The fish in the clean lake ate the worm because it is tasty."


def _edit(old, new):
    start = SRC.index(old)
    return Edit(SRC, (Replacement(start, start + len(old), new),))


def test_inverse_edit_maps_follow_up_offsets_back():
    e = _edit("clean", "spotless")
    back = inverse(e)
    assert back.source == e.target and back.target == SRC


def test_same_clusters_after_a_shift_pass():
    e = _edit("clean", "spotless")
    src = CorefPrediction.build([[(32, 40), (49, 51)]], SRC)
    shift = len("spotless") - len("clean")
    fu = CorefPrediction.build([[(32 + shift, 40 + shift), (49 + shift, 51 + shift)]], e.target)
    violated, score = judge(src, fu, e)
    assert not violated and score.precision == score.recall == 1.0


def test_lost_cluster_is_a_violation_typed_missing_entity():
    e = _edit("clean", "spotless")
    src = CorefPrediction.build([[(32, 40), (49, 51)]], SRC)
    fu = CorefPrediction.build([], e.target)
    violated, score = judge(src, fu, e)
    assert violated and score.recall == 0.0
    types, basis, _ = classify(src, fu, e)
    assert types == ("missing entity",) and basis == "predictions"


def test_mention_containing_the_edit_maps_back_by_its_boundaries():
    e = _edit("clean", "spotless")
    # "the spotless lake" in the follow-up is "the clean lake" in the source
    fu = CorefPrediction.build([[(12, 29), (49 + 3, 51 + 3)]], e.target)
    assert to_source(fu, e) == [[M(12, 26), M(49, 51)]]


def test_gold_decides_whether_a_violation_is_real():
    e = _edit("clean", "spotless")
    gold = CorefPrediction.build([[(32, 40), (49, 51)]], SRC)
    shift = 3
    right = CorefPrediction.build([[(32 + shift, 40 + shift), (49 + shift, 51 + shift)]], e.target)
    wrong = CorefPrediction.build([[(0, 8), (49 + shift, 51 + shift)]], e.target)
    assert gold_check(gold, right, e, gold)["real_error"] is False
    check = gold_check(gold, wrong, e, gold)
    assert check == {"source_correct": True, "follow_up_correct": False, "real_error": True}
    types, basis, details = classify(gold, wrong, e, source_gold=gold)
    assert basis == "gold" and "extra mention" in types and "missing mention" in types
    assert {d["side"] for d in details} == {"follow_up"}


# -- depth selection on hand-built trees --------------------------------------------------------
def _tree(spec):
    """A tree from nested tuples (label, children...) with leaves (tag, start, end)."""
    counter = iter(range(100))

    def build(t):
        if isinstance(t[1], int):
            return Node(t[0], t[1], t[2], leaf=next(counter))
        kids = [build(c) for c in t[1:]]
        return Node(t[0], min(k.start for k in kids), max(k.end for k in kids), kids)

    return PhraseTree.build([build(spec)], "test")


TEXT = "Ann saw Bob"
FLAT = ("S", ("NP", ("NNP", 0, 3)), ("VBD", 4, 7), ("NP", ("NNP", 8, 11)))
DEEPER = ("S", ("NP", ("NNP", 0, 3)), ("VP", ("VBD", 4, 7), ("NP", ("NNP", 8, 11))))


def test_mention_depth_counts_root_and_preterminal():
    t = _tree(FLAT)
    assert t.mention_depth(0, 3) == 3          # S - NP - NNP
    assert t.mention_depth(0, 7) == 1          # smallest phrase covering "Ann saw" is S
    assert t.token_label(4, 7) == ("VBD", "S")


def test_depth_change_drops_the_follow_up():
    fu = FollowUp.from_replacements(TEXT, [Replacement(4, 7, "met")], "crest")
    mentions = [M(0, 3), M(8, 11)]
    assert same_depths(_tree(FLAT), _tree(FLAT), fu, mentions)
    assert not same_depths(_tree(FLAT), _tree(DEEPER), fu, mentions)   # "Bob" moved down
    assert same_depths(_tree(FLAT), _tree(DEEPER), fu, [M(0, 3)])      # "Ann" did not


# -- xrenner's conll output -----------------------------------------------------------------
def test_parse_xrenner_conll_brackets():
    out = ("# begin document x\n0\tMaria\t(2)\n1\tgave\t_\n2\ther\t(4(2)\n3\tbrother\t4)\n"
           "4\tbook\t\n5\the\t(4)\n6\ther\t(2)\n7\tand\t(9)\n# end document\n")
    clusters = parse_xrenner_conll(out, 8)
    assert sorted(clusters) == [[(0, 0), (2, 2), (6, 6)], [(2, 3), (5, 5)], [(7, 7)]]
    with pytest.raises(ValueError, match="tokens"):
        parse_xrenner_conll(out, 9)


# -- systems that cannot load here fail with the clear exit-4 error -----------------------------
def test_missing_xrenner_package_names_the_install_command(monkeypatch):
    import sys

    from runner.errors import ModelNotAvailable
    from runner.tasks.coref.systems import XrennerCoref

    monkeypatch.setitem(sys.modules, "xrenner", None)
    with pytest.raises(ModelNotAvailable, match="pip install --no-deps xrenner==2.2.1.1"):
        XrennerCoref()


def test_neural_models_missing_offline_say_how_to_provide_them(monkeypatch, tmp_path):
    from runner.errors import ModelNotAvailable
    from runner.tasks.coref.systems import _local_model

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotAvailable, match="(?s)HF_HUB_OFFLINE is set.*To use it, download"):
        _local_model("biu-nlp/f-coref", "fastcoref", "download it")
    with pytest.raises(ModelNotAvailable, match="not a local folder with a config.json"):
        _local_model(str(tmp_path / "nowhere"), "fastcoref", "download it")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    assert _local_model(str(tmp_path / "m"), "fastcoref", "x") == str(tmp_path / "m")
    ckpt = tmp_path / "weights.ckpt"
    ckpt.write_bytes(b"")
    assert _local_model(str(ckpt), "maverick", "x", file_ok=True) == str(ckpt)


@pytest.mark.parametrize("cls_name, package", [("FastCoref", "fastcoref"),
                                               ("MaverickCoref", "maverick")])
def test_neural_packages_missing_name_their_pip_command(monkeypatch, cls_name, package):
    import sys

    from runner.errors import ModelNotAvailable
    from runner.tasks.coref import systems

    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(ModelNotAvailable, match="pip install"):
        getattr(systems, cls_name)()


# -- report view -----------------------------------------------------------------------------
def _render(evts):
    out = []
    for e in evts:
        if "open" in e:
            out.append(f"[{e['open']}:")
        elif "close" in e:
            out.append("]")
        else:
            out.append(f"<{e['text']}>" if e["changed"] else e["text"])
    return "".join(out)


def test_view_nests_mentions_and_marks_the_edit():
    from runner.tasks.coref.view import events

    text = "Maria gave her brother a book."
    evts = events(text, [[[0, 5], [11, 14]], [[11, 22]]], [0, 1], changed=[[25, 29]])
    assert _render(evts) == "[0:Maria] gave [1:[0:her] brother] a <book>."


def test_view_closes_and_reopens_crossing_mentions():
    from runner.tasks.coref.view import events

    evts = events("abcdef", [[[0, 4]], [[2, 6]]], [0, 1])
    assert _render(evts) == "[0:ab[1:cd]][1:ef]"
    assert sum("open" in e for e in evts) == sum("close" in e for e in evts)


def test_follow_up_clusters_take_the_colour_of_their_source_cluster():
    from runner.tasks.coref.view import follow_up_numbers

    src = [[[0, 5], [20, 23]], [[30, 33], [40, 42]]]
    fu = [[M(40, 42), M(30, 33)], [M(50, 52), M(60, 62)], [M(0, 5), M(20, 23)]]
    assert follow_up_numbers(src, fu) == [1, 2, 0]
