"""The relation tables the MRs read: which relations are symmetric, which have an inverse, how a
relation moves when a city becomes its state or country, which pairs compose, which entity types
are co-related. Defaults are for TACRED's 41 relations and 17 entity types; a suite overrides
any table in its ``re_tables`` section (a table given replaces the default one; ``extends: true``
merges it into the default instead).

The paper classified TACRED's relations by hand (§3.2.2) and does not publish its lists; the
defaults below are ours, kept to the cases where the property holds by the relation's meaning.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from runner.tasks.re.types import NO_RELATION

TACRED_ENTITY_TYPES: tuple[str, ...] = (
    "PERSON", "ORGANIZATION", "DATE", "NUMBER", "TITLE", "COUNTRY", "LOCATION", "CITY", "MISC",
    "STATE_OR_PROVINCE", "DURATION", "NATIONALITY", "CAUSE_OF_DEATH", "CRIMINAL_CHARGE",
    "RELIGION", "URL", "IDEOLOGY")

TACRED_RELATIONS: tuple[str, ...] = (
    NO_RELATION,
    "org:alternate_names", "org:city_of_headquarters", "org:country_of_headquarters",
    "org:dissolved", "org:founded", "org:founded_by", "org:member_of", "org:members",
    "org:number_of_employees/members", "org:parents", "org:political/religious_affiliation",
    "org:shareholders", "org:stateorprovince_of_headquarters", "org:subsidiaries",
    "org:top_members/employees", "org:website",
    "per:age", "per:alternate_names", "per:cause_of_death", "per:charges", "per:children",
    "per:cities_of_residence", "per:city_of_birth", "per:city_of_death",
    "per:countries_of_residence", "per:country_of_birth", "per:country_of_death",
    "per:date_of_birth", "per:date_of_death", "per:employee_of", "per:origin",
    "per:other_family", "per:parents", "per:religion", "per:schools_attended", "per:siblings",
    "per:spouse", "per:stateorprovince_of_birth", "per:stateorprovince_of_death",
    "per:stateorprovinces_of_residence", "per:title")

# MR-S1: swapping head and tail keeps the relation.
TACRED_SYMMETRIC: tuple[str, ...] = (
    "per:spouse", "per:siblings", "per:other_family", "per:alternate_names",
    "org:alternate_names")

# MR-S2: swapping head and tail gives the inverse. TACRED has few true inverse pairs; a
# relation whose swap has no TACRED label (per:city_of_birth → "city born-in of person") is
# left out rather than mapped to no_relation, which a suite may add (e.g. per:title: no_relation).
# org:top_members/employees → per:employee_of holds (a top member is employed), the reverse does
# not (an employee need not be a top member), so the table is directed.
TACRED_INVERSE: dict[str, str] = {
    "per:children": "per:parents", "per:parents": "per:children",
    "org:parents": "org:subsidiaries", "org:subsidiaries": "org:parents",
    "org:member_of": "org:members", "org:members": "org:member_of",
    "org:top_members/employees": "per:employee_of",
}

# MR-R2: a city argument replaced by its state/province or country → the coarser relation.
# source relation → {type of the replacement → follow-up relation}.
TACRED_GRANULARITY: dict[str, dict[str, str]] = {
    "per:city_of_birth": {"STATE_OR_PROVINCE": "per:stateorprovince_of_birth",
                          "COUNTRY": "per:country_of_birth"},
    "per:city_of_death": {"STATE_OR_PROVINCE": "per:stateorprovince_of_death",
                          "COUNTRY": "per:country_of_death"},
    "per:cities_of_residence": {"STATE_OR_PROVINCE": "per:stateorprovinces_of_residence",
                                "COUNTRY": "per:countries_of_residence"},
    "org:city_of_headquarters": {"STATE_OR_PROVINCE": "org:stateorprovince_of_headquarters",
                                 "COUNTRY": "org:country_of_headquarters"},
    "per:stateorprovince_of_birth": {"COUNTRY": "per:country_of_birth"},
    "per:stateorprovince_of_death": {"COUNTRY": "per:country_of_death"},
    "per:stateorprovinces_of_residence": {"COUNTRY": "per:countries_of_residence"},
    "org:stateorprovince_of_headquarters": {"COUNTRY": "org:country_of_headquarters"},
}

# MR-C1/C2 (paper §3.2.3: "a relation set {R1, R2} with the conditions for combination, where R1
# has symmetry"): first (symmetric) relation → the second relations it composes with, per MR.
# C1 (shared head h): R1(h, a) and R2(h, b) → R2(a, b). C2 (shared tail t): R1(a, t) and
# R2(b, t) → R2(b, a). "*" = any relation except no_relation. An alias composes with anything;
# siblings share parents and siblings; spouses share children (the paper's own example).
TACRED_COMPOSITION: dict[str, dict[str, tuple[str, ...]]] = {
    "C1": {"per:alternate_names": ("*",), "org:alternate_names": ("*",),
           "per:siblings": ("per:siblings", "per:parents", "per:other_family"),
           "per:spouse": ("per:children",)},
    "C2": {"per:alternate_names": ("*",), "org:alternate_names": ("*",),
           "per:siblings": ("per:siblings", "per:children", "per:other_family"),
           "per:spouse": ("per:parents",)},
}

# MR-R3: co-related entities of another type (paper §3.2.1: "46" NUMBER → "46-years-old"
# DURATION; "US" NATIONALITY ↔ COUNTRY). ``template`` rewrites the mention ({text} = the mention),
# ``pattern`` (a regular expression, full match) says which mentions it fits.
TACRED_CO_RELATED: tuple[dict[str, Any], ...] = (
    {"from": "NUMBER", "to": "DURATION", "pattern": r"\d{1,3}", "template": "{text} years old"},
    {"from": "NATIONALITY", "to": "COUNTRY", "pattern": r"(US|U\.S\.|UK|U\.K\.)",
     "template": "{text}"},
    {"from": "COUNTRY", "to": "NATIONALITY", "pattern": r"(US|U\.S\.|UK|U\.K\.)",
     "template": "{text}"},
    # A LOCATION the corpus also has as a CITY (the paper's mining of co-related types). Not the
    # reverse: TACRED's city-level relations take CITY arguments, so a city retyped LOCATION
    # has no TACRED relation to keep.
    {"from": "LOCATION", "to": "CITY", "template": "{text}", "from_corpus": True},
)


@dataclass(frozen=True)
class RelationTables:
    entity_types: tuple[str, ...] = TACRED_ENTITY_TYPES
    relations: tuple[str, ...] = TACRED_RELATIONS
    symmetric: frozenset[str] = frozenset(TACRED_SYMMETRIC)
    inverse: Mapping[str, str] = field(default_factory=lambda: dict(TACRED_INVERSE))
    granularity: Mapping[str, Mapping[str, str]] = field(
        default_factory=lambda: {k: dict(v) for k, v in TACRED_GRANULARITY.items()})
    composition: Mapping[str, Mapping[str, tuple[str, ...]]] = field(
        default_factory=lambda: {k: dict(v) for k, v in TACRED_COMPOSITION.items()})
    co_related: tuple[dict[str, Any], ...] = TACRED_CO_RELATED

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | None) -> "RelationTables":
        """Tables from a suite's ``re_tables`` section (already schema-checked)."""
        cfg = dict(cfg or {})
        extend = bool(cfg.pop("extends", False))
        base = cls()

        def pick(key: str, default: Any, merge: Any) -> Any:
            if key not in cfg:
                return default
            return merge(default, cfg[key]) if extend else cfg[key]

        entity_types = tuple(pick("entity_types", base.entity_types,
                                  lambda d, v: tuple(dict.fromkeys([*d, *v]))))
        relations = tuple(pick("relations", base.relations,
                               lambda d, v: tuple(dict.fromkeys([*d, *v]))))
        if NO_RELATION not in relations:
            relations = (NO_RELATION, *relations)
        symmetric = frozenset(pick("symmetric", base.symmetric, lambda d, v: d | set(v)))
        inverse = dict(pick("inverse", base.inverse, lambda d, v: {**d, **v}))
        granularity = {k: dict(v) for k, v in
                       pick("granularity", base.granularity, lambda d, v: {**d, **v}).items()}
        composition = {mr: {r1: tuple(r2s) for r1, r2s in table.items()} for mr, table in
                       pick("composition", base.composition,
                            lambda d, v: {mr: {**d.get(mr, {}), **v.get(mr, {})}
                                          for mr in ("C1", "C2")}).items()}
        co_related = tuple(dict(x) for x in pick("co_related", base.co_related,
                                                 lambda d, v: (*d, *v)))
        return cls(entity_types, relations, symmetric, inverse, granularity, composition,
                   co_related)

    def composes(self, mr: str, first: str, second: str) -> bool:
        allowed = self.composition.get(mr, {}).get(first)
        if not allowed or second == NO_RELATION:
            return False
        return "*" in allowed or second in allowed

    def to_json(self) -> dict[str, Any]:
        return {"entity_types": list(self.entity_types), "relations": list(self.relations),
                "symmetric": sorted(self.symmetric), "inverse": dict(self.inverse),
                "granularity": {k: dict(v) for k, v in self.granularity.items()},
                "composition": {k: {r: list(v) for r, v in t.items()}
                                for k, t in self.composition.items()},
                "co_related": [dict(x) for x in self.co_related]}


_LABEL = {"type": "string", "minLength": 1}
TABLES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Relation tables of the RE metamorphic relations (defaults: TACRED). A table "
                   "given replaces the default one, or is merged into it with extends: true.",
    "additionalProperties": False,
    "properties": {
        "extends": {"type": "boolean", "default": False,
                    "description": "merge the tables given into the TACRED defaults"},
        "entity_types": {"type": "array", "items": _LABEL,
                         "description": "entity types an input may have"},
        "relations": {"type": "array", "items": _LABEL,
                      "description": "relation labels (no_relation is always one)"},
        "symmetric": {"type": "array", "items": _LABEL,
                      "description": "MR-S1: relations that hold both ways"},
        "inverse": {"type": "object", "additionalProperties": _LABEL,
                    "description": "MR-S2: relation → the relation of the swapped pair"},
        "granularity": {"type": "object",
                        "additionalProperties": {"type": "object",
                                                 "additionalProperties": _LABEL},
                        "description": "MR-R2: relation → {coarser entity type → relation}"},
        "composition": {"type": "object", "additionalProperties": False,
                        "properties": {mr: {"type": "object", "additionalProperties": {
                            "type": "array", "items": _LABEL}} for mr in ("C1", "C2")},
                        "description": "MR-C1/C2: symmetric first relation → second relations "
                                       "it composes with ('*' = any)"},
        "co_related": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["from", "to"],
            "properties": {"from": _LABEL, "to": _LABEL,
                           "pattern": {"type": "string"},
                           "template": {"type": "string", "default": "{text}"},
                           "from_corpus": {"type": "boolean", "default": False}}},
            "description": "MR-R3: co-related entity types and how a mention is rewritten"},
    },
}
