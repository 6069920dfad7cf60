"""Check 4b, ``entity_types``: a shuffled name has a sense of the type the system gave it (WordNet
3.0, name lists, the referee pipeline)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.tasks.ner.checks.spans import LABEL_TYPES, moved_names, typed_names
from runner.text.articles import without_the
from runner.types import Edit, FollowUp

# The WordNet lexicographer files a name of each type can belong to (entity_types): a person is
# noun.person; a place noun.location, noun.object (a mountain, a river, a continent) or
# noun.artifact (a building, a bridge: spaCy's FAC); an organisation noun.group or noun.artifact
# (an institution: "school", "church"). Labels of other types are not judged.
TYPE_LEXNAMES: dict[str, frozenset[str]] = {
    "PERSON": frozenset({"noun.person"}),
    "LOCATION": frozenset({"noun.location", "noun.object", "noun.artifact"}),
    "ORGANIZATION": frozenset({"noun.group", "noun.artifact"}),
}


def _fits_anyway(name: str, kind: str, senses: frozenset[str]) -> bool:
    """A name whose head noun's senses do not fit its type but whose shape does: a person's
    name that starts with a first name, whatever its surname means ("Johnny Winter", "Archie
    Roach"), and a group of people named by a plural of persons ("Backstreet Boys", "The Avett
    Brothers")."""
    from runner.tasks.ner.repair.gazetteer import name_type

    words = _words_after_the(name)
    if len(words) < 2:
        return False
    if kind == "PERSON":
        return name_type(words[0]) == "PERSON"
    return (kind == "ORGANIZATION" and "noun.person" in senses
            and words[-1].endswith("s") and not words[-1].endswith("'s"))


#: places of this many people or more confirm a one-word LOCATION (GeoNames, as in repair's lists)
_CONFIRMING_CITY_POPULATION = 15_000


def _unconfirmed_word(name: str, kind: str) -> bool:
    """A one-word name (no leading article) that no list made without the system gives the
    type ``kind``: GeoNames places, the shipped first names, WordNet's proper names
    (:func:`runner.tasks.ner.repair.gazetteer.name_type`). The system and the referee, both
    small spaCy pipelines trained on the same corpus, type such bare words alike and wrongly
    ("Hurston contacted …" as an organisation, "the epic Buddenbrooks" as a person, "Cilicia"
    as a person), and moving one swaps unlike things ("with whom she had worked at Hurston");
    a name of several words has its own shape to go by, a bare word has none."""
    from runner.tasks.ner.repair.gazetteer import name_type

    words = _words_after_the(name)
    if len(words) != 1:
        return False
    return name_type(words[0], _CONFIRMING_CITY_POPULATION) != kind


def _words_after_the(name: str) -> list[str]:
    """The words of a name without a leading "the"."""
    words = name.split()
    return words[1:] if words and words[0].lower() == "the" else words


class EntityTypeChecks:
    """The ``entity_types`` checks of :class:`~runner.tasks.ner.checks.filter.ParseCheckFilter`
    (a mixin: it reads the filter's settings and WordNet)."""

    # -- 4b. the type the system gave a shuffled entity --------------------------------------
    def _entity_types(self, sdoc: Any, follow_up: FollowUp,
                      referee_names: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
        """A shuffle moves names the system gave one type; when it typed one of them wrongly the
        follow-up swaps unlike things ("Monaco was signed" for "the Franco-Monegasque Treaty was
        signed") and the violation only repeats the source's error. WordNet 3.0 knows the type
        of many names and of the common nouns that head them: a name that is a WordNet instance
        ("El Greco": noun.person; "Monaco": noun.location), or a name of several words headed
        by a common noun ("Treaty": noun.communication; "Association": noun.group), must have
        a sense of the system's type (``TYPE_LEXNAMES``). Names WordNet does not know, and
        one-word names that are common words ("Apple", "Twitter"), are not judged."""
        order = follow_up.meta.get("order")
        if not isinstance(order, Mapping):
            return []
        reasons = []
        # A surname said alone after the full name ("Cameron Kasky … at Kasky's house") is the
        # same person: typed otherwise, it is mistyped, and moving it swaps unlike things.
        surnames = {n.split()[-1]: n for n in typed_names(order, "PERSON") if len(n.split()) > 1}
        moved = moved_names(follow_up.edit)
        for label, names in order.items():
            if LABEL_TYPES.get(str(label).upper()) == "PERSON":
                continue
            for name in dict.fromkeys(names):
                if name in surnames and name in moved:
                    reasons.append(f"entity_types: {name!r} was typed {label}, but it is the "
                                   f"surname of {surnames[name]!r}, typed as a person in the "
                                   f"same text")
        for label, names in order.items():
            kind = LABEL_TYPES.get(str(label).upper())
            if kind is None:
                continue
            for name in dict.fromkeys(names):
                if name not in moved:           # a name left in place swaps nothing
                    continue
                senses = self.name_senses(sdoc, name)
                if senses and not senses & TYPE_LEXNAMES[kind] and not _fits_anyway(name, kind,
                                                                                   senses):
                    reasons.append(f"entity_types: {name!r} was typed {label}; WordNet knows it "
                                   f"only as {', '.join(sorted(senses))}")
                elif not senses and _unconfirmed_word(name, kind):
                    reasons.append(f"entity_types: {name!r} was typed {label}, but a name of "
                                   f"one word that no list knows has nothing to confirm it")
        if self.referee_nlp is not None:
            names = (referee_names or {}).get(sdoc.text)
            if names is None:
                names = self._referee_read([sdoc.text])[sdoc.text]
            reasons += self._referee_kinds(sdoc.text, names, follow_up.edit, order)
        return reasons

    def _referee_read(self, texts: Sequence[str]) -> dict[str, dict[str, str]]:
        """Per source text, the referee's names: text → kind (its common type, or its own label
        for the other OntoNotes types); a name with and without a leading "the"."""
        if self.referee_nlp is None or not texts:
            return {}
        from runner.nlp import ONTONOTES_TYPES, doc_store, entity_readings

        texts = list(dict.fromkeys(texts))
        out: dict[str, dict[str, str]] = {}
        for text, doc in zip(texts, doc_store(self.referee_nlp).docs(texts, ["ner"])):
            names: dict[str, str] = {}
            for start, end, label in entity_readings(doc):
                names.setdefault(text[start:end], ONTONOTES_TYPES.get(label, label))
            out[text] = names
        return out

    def _referee_kinds(self, source: str, names: Mapping[str, str], edit: Edit,
                       order: Mapping) -> list[str]:
        """A shuffle swaps names the system gave one type; when it typed some of them wrongly
        the follow-up puts unlike things in each other's places ("Wren succeeded Kenora as the
        MPP for Robert Gibson": a riding typed as a person). A second, independent recogniser
        (the referee) must read all the names a type's shuffle moves as one kind — all persons,
        all places (GPE, LOC and FAC alike), all organisations, …, or all no name at all."""
        moved = moved_names(edit)
        reasons = []
        for label, group in order.items():
            kinds: dict[str, list[str]] = {}
            for name in dict.fromkeys(group):
                if name in moved:
                    kind = names.get(name, names.get(without_the(name), "no name"))
                    kinds.setdefault(kind, []).append(name)
            if len(kinds) > 1:
                read = "; ".join(f"{', '.join(repr(n) for n in ns)} as {k}"
                                 for k, ns in sorted(kinds.items()))
                reasons.append(f"entity_types: names typed {label} are not one kind to the "
                               f"referee ({self.referee}): {read}")
        return reasons

    def name_senses(self, sdoc: Any, name: str) -> frozenset[str]:
        """The lexicographer files of what WordNet says a name is (empty when it cannot say)."""
        wordnet = self._load_wordnet()
        words = name.split()
        if words and words[0].lower() in ("the", "a", "an"):
            words = words[1:]
        if not words:
            return frozenset()
        lemma = "_".join(words)
        instances = frozenset(s.lexname() for s in wordnet.synsets(lemma, pos="n")
                              if s.instance_hypernyms()
                              and any(lm.name() == lemma for lm in s.lemmas()))
        if instances or len(words) == 1:
            return instances
        start = sdoc.text.find(name)
        span = sdoc.char_span(start, start + len(name)) if start >= 0 else None
        if span is None:
            return frozenset()
        head = span.root
        if head.pos_ not in ("NOUN", "PROPN") or not head.text[:1].isupper():
            return frozenset()
        synsets = wordnet.synsets(head.text.lower(), pos="n")
        # A head that is itself a name ("Sony Australia") says nothing of the whole.
        if any(s.instance_hypernyms() for s in synsets):
            return frozenset()
        return frozenset(s.lexname() for s in synsets)
