"""xrenner answers each document as if it were its first: its tables' writes are undone after a
document, an emptied chain does not stop it, and ties do not depend on memory addresses."""
from __future__ import annotations

import copy
import json
from collections import defaultdict
from pathlib import Path

import pytest

from runner.tasks.coref.xrenner_state import (TABLES, _FirstHashed, _journaled, _Journal,
                                              _max_or_none)

DATA = Path(__file__).resolve().parent.parent / "suites" / "data"


def _plain(value):
    """Nested dicts as plain dicts, to compare contents whatever the classes."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def test_journal_undoes_insertions_by_reading_and_increments():
    table = defaultdict(lambda: defaultdict(int))
    table["dog"]["tail"] = 3
    journal = _Journal()
    j = _journaled(table, journal)
    before = _plain(j)
    assert j["dog"]["tail"] == 3 and j["cat"]["ear"] == 0         # reading inserts, as before
    j["dog"]["tail"] += 2
    j["cow"]["horn"] += 1
    j.setdefault("owl", None)
    del j["dog"]
    assert "cat" in j and "ear" in j["cat"] and "dog" not in j
    journal.undo()
    assert _plain(j) == before
    assert "cat" not in j and "cow" not in j and "owl" not in j
    assert j["dog"]["tail"] == 3 and not journal.entries             # a hit writes nothing


def test_a_plain_dict_stays_without_default():
    j = _journaled({"a": {"b": 1}}, _Journal())
    with pytest.raises(KeyError):
        j["missing"]
    assert j["a"]["b"] == 1


def test_max_over_an_empty_chain_is_none_and_otherwise_max():
    counts = {"person": 2, "place": 5}
    assert _max_or_none(counts, key=counts.get) == "place"
    assert _max_or_none({}, key={}.get) is None
    assert _max_or_none(3, 7) == 7
    with pytest.raises(TypeError):
        _max_or_none()


def test_first_hashed_counts_per_document():
    class Thing:
        pass

    order = _FirstHashed()
    order.install(Thing)
    a, b = Thing(), Thing()
    assert (hash(b), hash(a), hash(b)) == (0, 1, 0)
    order.restart()
    c = Thing()
    assert hash(c) == 0 and hash(a) == 1                             # kept for the object's life


# -- the real xrenner ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xrenner():
    pytest.importorskip("xrenner")
    from runner.tasks.coref.systems import XrennerCoref

    return XrennerCoref()


def _passages(name, ids):
    rows = [json.loads(line) for line in (DATA / name).open(encoding="utf-8")]
    return [r["text"] for r in rows if r["id"] in ids]


@pytest.mark.slow
def test_a_passage_whose_chain_was_spliced_empty_is_answered(xrenner):
    """Unmended, xrenner raised ``ValueError: max() arg is an empty sequence`` on these."""
    texts = _passages("coref_gap_c.jsonl", {"gap-validation-1", "gap-validation-106"})
    assert len(texts) == 2
    for doc in xrenner._parse(texts):
        clusters = xrenner.analyze(doc)
        assert clusters and all(len(c) >= 2 for c in clusters)


@pytest.mark.slow
def test_answers_do_not_depend_on_what_was_read_before(xrenner):
    rows = [json.loads(line) for line in (DATA / "coref_gap_c.jsonl").open(encoding="utf-8")]
    texts = [r["text"] for r in rows[30:60]]
    docs = xrenner._parse(texts)
    lex = xrenner.xr.lex
    tables = {name: copy.deepcopy(_plain(getattr(lex, name))) for name in TABLES}
    forward = [xrenner.analyze(d) for d in docs]
    backward = [xrenner.analyze(d) for d in reversed(docs)][::-1]
    again = [xrenner.analyze(d) for d in docs]
    assert forward == backward == again
    assert {name: _plain(getattr(lex, name)) for name in TABLES} == tables
    assert lex.last == {}
    assert "mends" in xrenner.describe() and len(xrenner.describe()["mends"]) == 3


@pytest.mark.slow
def test_mends_false_runs_xrenner_as_shipped_and_says_so(xrenner):
    from xrenner.modules import xrenner_classes, xrenner_postprocess

    from runner.tasks.coref.systems import XrennerCoref

    try:
        shipped = XrennerCoref(mends=False)
        assert shipped.describe()["mends"] == []
        assert "max" not in vars(xrenner_postprocess)
        assert "__hash__" not in vars(xrenner_classes.Markable)
        text = _passages("coref_gap_c.jsonl", {"gap-validation-1"})
        with pytest.raises(ValueError, match="empty sequence"):
            shipped.analyze(shipped._parse(text)[0])
    finally:
        XrennerCoref()                     # the module's fixture instance relies on the mends


@pytest.mark.slow
def test_a_document_xrenner_exits_on_is_that_documents_error(xrenner):
    """xrenner calls sys.exit when it reads a cycle in a parse; the run goes on."""
    from runner.sut.remote import SUTCallError

    texts = _passages("coref_redocred.jsonl", {"redocred-dev-201"})
    answers = xrenner._predict_raw(texts + ["Anna Smith sang. She won."])
    assert isinstance(answers[0], SUTCallError) and "exit" in str(answers[0])
    assert not isinstance(answers[1], SUTCallError)
