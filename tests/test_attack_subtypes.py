"""The entity attack's fine types: how an entity's sub-type is decided, which pool it draws from."""
from __future__ import annotations

import random

import pytest

from runner.tasks.ner.attacks.subtypes import (BUILTIN, Gazetteer, framed, norm, read_gazetteer,
                                               read_rows)
from runner.tasks.ner.types import Sentence, Span

ROWS = [
    ("LOCATION:country", "France", "pool"), ("LOCATION:country", "Chile", "pool"),
    ("LOCATION:country", "U.S.", "name"), ("LOCATION:city", "Zürich", "pool"),
    ("LOCATION:city", "Lyon", "pool"), ("LOCATION:river", "Danube", "pool"),
    ("LOCATION:river", "Thames", "pool"), ("LOCATION:venue", "Anfield", "pool"),
    ("ORGANIZATION:sports_team", "Liverpool", "pool"),
    ("ORGANIZATION:company.industrial", "Siemens", "pool"),
    ("ORGANIZATION:company.industrial", "Alstom", "pool"),
    ("ORGANIZATION:company.car", "BMW", "pool"),
    ("LOCATION:country_the", "Netherlands", "pool"),
    ("ORGANIZATION:university", "Leiden University", "pool"),
    ("MISC:demonym", "Greek", "pool"), ("MISC:demonym", "Chilean", "pool"),
    ("MISC:cultural_event", "Cannes Film Festival", "pool"),
    ("PERSON:male", "Olaf", "first"), ("PERSON:female", "Élise", "first"),
    ("PERSON:male", "Arturo Blanco", "pool"), ("PERSON:female", "Aurore Rémy", "pool"),
    ("PER_ONLY_COARSE", "Somebody", "pool"),
]


class _Syn:
    def __init__(self, name, lemmas, up=()):
        self._name, self._lemmas, self._up = name, lemmas, list(up)

    def name(self):
        return self._name

    def lemmas(self):
        return [type("L", (), {"name": (lambda self, n=n: n)})() for n in self._lemmas]

    def closure(self, _f):
        return self._up


class _WordNet:
    river = _Syn("river.n.01", ["river"])
    entries = {"severn": [_Syn("severn.n.01", ["Severn"], [river])],
               "amazon": [_Syn("amazon.n.01", ["amazon"], [river])]}

    def synsets(self, key, pos):        # WordNet's look-up ignores case
        return self.entries.get(key.casefold(), [])


def gaz():
    return Gazetteer(ROWS, wordnet=_WordNet())


def test_names_are_looked_up_without_accents_case_or_article():
    assert norm("the  Zurich") == norm("Zürich") == "zurich"
    g = gaz()
    assert g.subtype("LOCATION", "ZURICH") == ("city", "gazetteer")
    assert g.subtype("LOCATION", "U.S.") == ("country", "gazetteer")
    assert g.subtype("LOCATION", "the Danube") == ("river", "gazetteer")
    assert g.subtype("LOCATION", "Lyon, France") == ("city", "gazetteer")


def test_the_label_tells_a_club_from_its_city():
    g = gaz()
    assert g.subtype("ORGANIZATION", "Liverpool") == ("sports_team", "gazetteer")
    assert g.subtype("LOCATION", "Liverpool") == (None, None)


def test_wordnet_then_clues_when_the_gazetteer_does_not_know():
    g = gaz()
    assert g.subtype("LOCATION", "Severn") == ("river", "wordnet")
    assert g.subtype("LOCATION", "Amazon") == (None, None)      # a common noun's sense only
    assert g.subtype("LOCATION", "River Wye") == ("river", "clue")
    assert g.subtype("ORGANIZATION", "University of Tartu") == ("university", "clue")
    assert g.subtype("MISC", "Sziget Festival") == ("cultural_event", "clue")
    assert g.subtype("MISC", "Estonian") == ("demonym", "clue")
    assert g.subtype("LOCATION", "Tartu", "He was elected mayor of ") == ("city", "clue")
    # a sub-type without drawn names is never given: nothing to draw
    assert g.subtype("ORGANIZATION", "Leeds Times") == (None, None)


def test_a_person_by_first_name_title_or_a_sentence_without_gendered_words():
    g = gaz()
    assert g.subtype("PERSON", "Olaf Brandt") == ("male", "gazetteer")
    assert g.subtype("PERSON", "Elise Moreau") == ("female", "gazetteer")
    text = "Jo Evans and his son Sam Evans rebuilt the chapel."
    assert g.subtype("PERSON", "Sam Evans", text[:text.index("Sam")], text) == ("male", "clue")
    assert g.subtype("PERSON", "Jo Evans", "", text) == (None, None)
    assert g.subtype("PERSON", "Mrs. Jones", "", "Mrs. Jones said her piece.") == ("female", "clue")
    assert g.subtype("PERSON", "Olaf", "", "Olaf said he would.") == ("male", "gazetteer")
    plain = "Kim Lee mapped the reefs."
    assert g.subtype("PERSON", "Kim Lee", "", plain) == ("person", "clue")
    assert g.pool("PERSON", "person") == ["Arturo Blanco", "Aurore Rémy"]


def test_pools_by_sub_type_and_the_coarse_union():
    g = gaz()
    assert g.pool("LOCATION", "country") == ["Chile", "France"]       # "U.S.": recognised only
    assert set(g.pool("LOCATION", None)) == {"Chile", "France", "Zürich", "Lyon", "Danube",
                                             "Thames", "Anfield"}
    assert g.fine_labels == {"LOCATION", "ORGANIZATION", "MISC", "PERSON"}
    assert g.sizes()["MISC:demonym"] == 2


def test_a_company_draws_from_its_kind_a_clue_from_every_kind():
    g = gaz()
    assert g.subtype("ORGANIZATION", "Siemens") == ("company.industrial", "gazetteer")
    assert g.pool("ORGANIZATION", "company.industrial") == ["Alstom", "Siemens"]
    assert g.subtype("ORGANIZATION", "Acme Airlines") == ("company", "clue")
    assert g.pool("ORGANIZATION", "company") == ["Alstom", "BMW", "Siemens"]


def test_after_the_a_country_that_reads_with_the():
    g = gaz()
    assert g.pool_in_place("LOCATION", "country", "U.K.", "The U.S. and the ") == ["Netherlands"]
    assert g.pool_in_place("LOCATION", "country", "Chile", "ministers of ") == ["Chile", "France"]
    assert "Netherlands" not in g.pool("LOCATION", None)


def test_a_drawn_name_takes_the_original_frame():
    assert framed("River Severn", "river", ["Thames", "River Wye"]) == ["River Thames",
                                                                        "River Wye"]
    assert framed("Hudson River", "river", ["Thames"]) == ["Thames River"]
    assert framed("Danube", "river", ["Thames"]) == ["Thames"]
    assert framed("Paris", "city", ["Lyon"]) == ["Lyon"]


def _attack(unknown="skip"):
    from runner.tasks.ner.attacks.base import EntityAttack

    a = EntityAttack.__new__(EntityAttack)
    a.unknown_subtype = unknown
    g = gaz()
    a.set_pool({"LOCATION": g.pool("LOCATION", None), "PER_ONLY_COARSE": ["Somebody"]}, "file", g)
    return a


def test_the_attack_draws_from_the_sub_type_and_skips_or_falls_back_when_unknown():
    text = "Ministers from France met in Tartu near Kõrvemaa."
    s = Sentence("s1", text)
    france = Span(text.index("France"), text.index("France") + 6, "LOCATION")
    unknown = Span(text.index("Kõrvemaa"), text.index("Kõrvemaa") + 8, "LOCATION")
    pool, info = _attack().pool_for(s, france)
    assert pool == ["Chile", "France"] and info == {"subtype": "country",
                                                    "subtype_from": "gazetteer",
                                                    "pool_level": "fine"}
    pool, info = _attack().pool_for(s, unknown)
    assert pool == [] and info["pool_level"] is None and info["subtype"] is None
    pool, info = _attack("coarse").pool_for(s, unknown)
    assert "Danube" in pool and info["pool_level"] == "coarse"
    other = Sentence("s2", "Somebody Else")
    pool, info = _attack().pool_for(other, Span(0, 13, "PER_ONLY_COARSE"))
    assert pool == ["Somebody"] and info["pool_level"] == "coarse"


def test_a_skipped_entity_is_in_no_rate():
    from runner.tasks.ner.attacks.metrics import summarise

    def rec(outcome, sub, level):
        return {"attack": "entity", "entity": {"label": "LOCATION"}, "outcome": outcome,
                "queries": 3, "wrong": int(outcome == "success"), "subtype": sub,
                "subtype_from": sub and "gazetteer", "pool_level": level}

    s = summarise([rec("success", "country", "fine"), rec("failed", "country", "fine"),
                   rec("skipped", None, None)])["entity"]
    assert (s["attacked"], s["skipped"], s["success_rate"]) == (2, 1, 0.5)
    assert s["per_subtype"]["LOCATION:unknown"]["skipped"] == 1
    assert s["subtype_from"] == {"gazetteer": 2, "unknown": 1}
    assert s["per_pool"]["fine"]["attacked"] == 2


def test_pool_file_roles_are_checked(tmp_path):
    from runner.errors import MtrunError

    bad = tmp_path / "p.tsv"
    bad.write_text("LOCATION:city\tLyon\tmaybe\n", encoding="utf-8")
    with pytest.raises(MtrunError, match="p.tsv:1: role 'maybe'"):
        read_rows(bad)


def test_the_shipped_gazetteer():
    g = read_gazetteer("builtin")
    assert BUILTIN.is_file()
    for label, name, sub in [("LOCATION", "Germany", "country"), ("LOCATION", "U.K.", "country"),
                             ("LOCATION", "Budapest", "city"), ("LOCATION", "Rhine", "river"),
                             ("LOCATION", "Texas", "state"), ("MISC", "Greek", "demonym"),
                             ("ORGANIZATION", "Juventus", "sports_team"),
                             ("ORGANIZATION", "Nature", "journal"),
                             ("ORGANIZATION", "Airbus", "company.aircraft"),
                             ("MISC", "Olympic Games", "sports_event")]:
        assert g.subtype(label, name) == (sub, "gazetteer"), name
    assert g.subtype("PERSON", "Karen Whitfield") == ("female", "gazetteer")
    for label, sub in [("LOCATION", "country"), ("LOCATION", "city"), ("MISC", "demonym"),
                       ("PERSON", "male"), ("ORGANIZATION", "company")]:
        assert len(g.pool(label, sub)) >= 50, sub
    # a drawn name belongs to one sub-type of its label
    seen: dict[tuple[str, str], str] = {}
    for (label, sub), names in g.pools.items():
        for n in names:
            assert seen.setdefault((label, norm(n)), sub) == sub, (label, n)
    rng = random.Random(1)
    assert all(" " in n for n in rng.sample(g.pool("PERSON", "female"), 20))
