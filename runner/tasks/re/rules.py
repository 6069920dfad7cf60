"""The rules that read textacy's triples as TACRED relations (the default of the textacy system
under test), and their JSON Schema. Standard library only: the suite schema imports this."""
from __future__ import annotations

from typing import Any, Sequence

_BORN = ("CITY", "STATE_OR_PROVINCE", "COUNTRY")


def _place_rules(predicates: Sequence[str], labels: Sequence[str], head_types: Sequence[str]
                 ) -> list[dict[str, Any]]:
    return [{"predicate": p, "head": "subject", "head_type": ht, "tail_type": tt, "label": lab}
            for p in predicates for ht in head_types for tt, lab in zip(_BORN, labels)]


# Verb (+ particle/preposition) → TACRED label. Order matters: the first match wins.
DEFAULT_RULES: list[dict[str, Any]] = [
    {"predicate": "marry", "head": "subject", "label": "per:spouse"},
    {"predicate": "marry", "head": "object", "label": "per:spouse"},
    {"predicate": "divorce", "head": "subject", "label": "per:spouse"},
    {"predicate": "divorce", "head": "object", "label": "per:spouse"},
    *[{"predicate": p, "head": "object", "head_type": "ORGANIZATION", "label": "org:founded_by"}
      for p in ("found", "co-found", "cofound", "establish", "start", "set up", "create")],
    *[{"predicate": p, "head": "subject", "head_type": "PERSON", "tail_type": "ORGANIZATION",
       "label": "per:employee_of"}
      for p in ("lead", "head", "run", "chair", "direct", "manage", "join", "work for",
                "work at", "serve", "coach", "captain")],
    *[{"predicate": p, "head": "object", "head_type": "ORGANIZATION", "tail_type": "PERSON",
       "label": "org:top_members/employees"}
      for p in ("lead", "head", "run", "chair", "direct", "manage", "coach", "captain")],
    *[{"predicate": p, "head": "subject", "head_type": "ORGANIZATION", "tail_type": "PERSON",
       "label": "org:top_members/employees"} for p in ("hire", "appoint", "name", "employ")],
    *[{"predicate": p, "head": "object", "head_type": "PERSON", "tail_type": "ORGANIZATION",
       "label": "per:employee_of"} for p in ("hire", "appoint", "name", "employ")],
    {"predicate": "join", "head": "subject", "head_type": "ORGANIZATION",
     "tail_type": "ORGANIZATION", "label": "org:member_of"},
    {"predicate": "join", "head": "object", "head_type": "ORGANIZATION",
     "tail_type": "ORGANIZATION", "label": "org:members"},
    {"predicate": "admit", "head": "subject", "head_type": "ORGANIZATION",
     "tail_type": "ORGANIZATION", "label": "org:members"},
    {"predicate": "admit", "head": "object", "head_type": "ORGANIZATION",
     "tail_type": "ORGANIZATION", "label": "org:member_of"},
    *[{"predicate": p, "head": "subject", "head_type": "ORGANIZATION",
       "tail_type": "ORGANIZATION", "label": "org:subsidiaries"}
      for p in ("acquire", "buy", "own", "control", "take over", "purchase")],
    *[{"predicate": p, "head": "object", "head_type": "ORGANIZATION",
       "tail_type": "ORGANIZATION", "label": "org:parents"}
      for p in ("acquire", "buy", "own", "control", "take over", "purchase")],
    *[{"predicate": p, "head": "subject", "head_type": "PERSON", "tail_type": "PERSON",
       "label": "per:children"} for p in ("adopt", "father", "raise")],
    *[{"predicate": p, "head": "object", "head_type": "PERSON", "tail_type": "PERSON",
       "label": "per:parents"} for p in ("adopt", "father", "raise")],
    *[{"predicate": p, "head": "subject", "head_type": "PERSON", "tail_type": "ORGANIZATION",
       "label": "per:schools_attended"} for p in ("attend", "graduate from", "study at")],
    *_place_rules(["bear in"], ["per:city_of_birth", "per:stateorprovince_of_birth",
                               "per:country_of_birth"], ["PERSON"]),
    *_place_rules(["die in"], ["per:city_of_death", "per:stateorprovince_of_death",
                              "per:country_of_death"], ["PERSON"]),
    *_place_rules(["live in", "reside in", "settle in", "move to", "grow up in"],
                  ["per:cities_of_residence", "per:stateorprovinces_of_residence",
                   "per:countries_of_residence"], ["PERSON"]),
    *_place_rules(["base in", "headquarter in"],
                  ["org:city_of_headquarters", "org:stateorprovince_of_headquarters",
                   "org:country_of_headquarters"], ["ORGANIZATION"]),
]

RULE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["predicate", "head", "label"],
    "properties": {
        "predicate": {"type": "string", "minLength": 1,
                      "description": "verb lemma (+ particle / preposition), e.g. 'bear in'"},
        "head": {"enum": ["subject", "object"],
                 "description": "which side of the triple the head argument is on"},
        "head_type": {"type": "string"}, "tail_type": {"type": "string"},
        "label": {"type": "string", "minLength": 1}},
}
