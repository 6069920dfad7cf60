"""`entity_shuffle` (TIN §3.3, SPEC §1.4): put each predicted entity where another entity of the
same type was, shuffling within each type. Sentences without two distinct entities of one type
make no follow-up.

With ``subtypes``, two names are exchanged only when the fine types of the entity attack's
gazetteer (``runner.tasks.ner.attacks.subtypes``, GeoNames, WordNet and clues) do not set them
apart: a city is not put in a country's place ("Belgium faced Sochi at the Fisht Stadium in
Panama"), a company not in a sports team's, a man's name not in a woman's where the sentence has
a gendered word. Names whose sub-type nothing tells move as before. In mode ``pairs`` a place and
the country or state written right after it as its region ("Radnor, Pennsylvania") are not
exchanged either ("in Pennsylvania, Radnor")."""
from __future__ import annotations

import functools
import itertools
import random
import re
from collections import defaultdict
from typing import Any, Sequence

from runner.text.articles import agree_articles, without_the
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement
from runner.tasks.ner.types import Prediction, Sentence, Span

# Random permutations tried per wanted follow-up before giving up on finding a new one.
_ATTEMPTS_PER_FOLLOW_UP = 20
# The kinds of place that, written after another place and a comma, say where it lies
_REGIONS = frozenset({"country", "state"})
# what follows a region written after its place: a stop, a comma, a bracket or the end ...
_AFTER_REGION = re.compile(r"\s*(?:[,.;:)]|$)")
# ... unless it is the next item of a list: ", Cilicia", ", and Egypt"
_LIST_GOES_ON = re.compile(r",\s+(?:and\s+|or\s+)?[A-Z]")


class EntityShuffle(Transformation):
    name = "entity_shuffle"

    def __init__(self, *, follow_ups: int = 1, types: Sequence[str] | None = None,
                 mode: str = "permute", subtypes: bool = False) -> None:
        if mode not in ("permute", "pairs"):
            raise ValueError(f"entity_shuffle mode must be 'permute' or 'pairs', not {mode!r}")
        super().__init__(follow_ups=follow_ups, types=list(types) if types else None,
                         **({"mode": mode} if mode != "permute" else {}),
                         **({"subtypes": True} if subtypes else {}))
        self.follow_ups = follow_ups
        self.types = set(types) if types else None
        self.mode = mode
        self.subtypes = subtypes

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        groups: dict[str, list[Span]] = defaultdict(list)
        kept = [s for s in _non_overlapping(prediction.spans)
                if self.types is None or s.label in self.types]
        for span in kept:
            groups[span.label].append(span)
        # each name's kind, read once, at the last place it stands
        last = {s.text_in(text): s for s in kept} if self.subtypes else {}
        kinds: dict[str, str | None] = {
            name: subtype_kind(s.label, name, text[:s.start], text) for name, s in last.items()}
        if self.subtypes and self.mode == "permute":
            # a permutation moves names only among those of one kind (unknown: among themselves)
            split: dict[str, list[Span]] = defaultdict(list)
            for label, spans in groups.items():
                for s in spans:
                    kind = kinds[s.text_in(text)]
                    split[f"{label}:{kind}" if kind else label].append(s)
            groups = split
        # Shuffling identical strings changes nothing: a type needs two different entity texts.
        groups = {t: ss for t, ss in groups.items() if len({s.text_in(text) for s in ss}) >= 2}
        if not groups:
            return []
        # where each name first stands (a leading "The" there is recased where it lands)
        origin = {t: {s.text_in(text): s.start for s in reversed(ss)} for t, ss in groups.items()}
        if self.mode == "pairs":
            return self._pairs(text, groups, origin, rng, kinds)
        out: list[FollowUp] = []
        seen = {text}
        for _ in range(self.follow_ups * _ATTEMPTS_PER_FOLLOW_UP):
            if len(out) == self.follow_ups:
                break
            replacements, moved = [], {}
            for label in sorted(groups):
                spans = groups[label]
                texts = [s.text_in(text) for s in spans]
                perm = texts[:]
                rng.shuffle(perm)
                replacements += [Replacement(s.start, s.end,
                                             _article_case(text, s.start, new, origin[label][new]))
                                 for s, new in zip(spans, perm)]
                moved[label] = perm
            follow_up = FollowUp.from_replacements(text, agree_articles(text, replacements),
                                                   self.name, order=moved)
            if follow_up.text not in seen:
                seen.add(follow_up.text)
                out.append(follow_up)
        return out

    def _pairs(self, text: str, groups: dict[str, list[Span]], origin: dict[str, dict[str, int]],
               rng: random.Random, kinds: dict[str, str | None]) -> list[FollowUp]:
        """``mode: pairs``: each follow-up exchanges two different names of one type (every
        mention of each) and leaves the others where they stand; the pairs are drawn at random
        without repeating one. In a list of a dozen names a whole permutation moves them all,
        and one the system typed wrongly makes it a swap of unlike things; two at a time, the
        other pairs stay testable, and a violation points at the two names moved."""
        # the system's own label where it reports one (OntoNotes GPE, FAC, LOC): a city is not
        # put in a concert hall's place ("at Liverpool's London, … Drury Lane in Philharmonic
        # Hall") though both are places to the suite
        raw = {s.text_in(text): s.raw_label for ss in groups.values() for s in ss}
        pairs = [(label, a, b) for label in sorted(groups)
                 for a, b in itertools.combinations(
                     list(dict.fromkeys(s.text_in(text) for s in groups[label])), 2)
                 if not (raw[a] and raw[b] and raw[a] != raw[b])
                 and not (kinds.get(a) and kinds.get(b) and kinds[a] != kinds[b])
                 and not _qualifies(text, a, b, kinds) and not _qualifies(text, b, a, kinds)]
        out: list[FollowUp] = []
        for label, a, b in rng.sample(pairs, min(self.follow_ups, len(pairs))):
            spans = groups[label]
            texts = [s.text_in(text) for s in spans]
            swapped = [b if t == a else a if t == b else t for t in texts]
            replacements = [Replacement(s.start, s.end,
                                        _article_case(text, s.start, new, origin[label][new]))
                            for s, old, new in zip(spans, texts, swapped) if new != old]
            # "an Iraqi official" with "European Union" in its place: "a European Union …"
            out.append(FollowUp.from_replacements(text, agree_articles(text, replacements),
                                                  self.name, order={label: swapped}))
        return out


def subtype_kind(label: str, name: str, before: str, sentence: str) -> str | None:
    """The kind of an entity the gazetteer tells (``company`` for ``company.tech``, ``country``
    for a country read with "the"), or ``None`` when nothing tells it or, for a person, when the
    sentence has no gendered word (either gender reads the same there)."""
    from runner.tasks.ner.attacks.subtypes import ARTICLE_COUNTRY, GENDERED, PERSON_ANY

    if label == "PERSON" and not GENDERED.search(sentence):
        return None
    sub, _how = _gazetteer().subtype(label, name, before, sentence)
    if sub is None or sub == PERSON_ANY:
        return None
    if sub == ARTICLE_COUNTRY:
        return "country"
    return sub.split(".")[0]


@functools.lru_cache(maxsize=1)
def _gazetteer() -> Any:
    from runner.tasks.ner.attacks.subtypes import read_gazetteer

    return read_gazetteer("builtin")


def _article_case(text: str, start: int, name: str, origin: int) -> str:
    """A name's leading article takes the case of where the name lands: "The Fairfax Connector"
    moved from the sentence's start (``origin``) reads "operated by the Fairfax Connector", and
    "the BBC" moved to the start "The BBC …". A "The" written inside the sentence is part of the
    name ("in The Eddy Duchin Story") and stays."""
    def first(at: int) -> bool:
        return not text[:at].strip(" \"'“‘(")

    if name[:4] == "the " and first(start):
        return "The " + name[4:]
    if name[:4] == "The " and first(origin) and not first(start):
        return "the " + name[4:]
    return name


def _qualifies(text: str, place: str, region: str, kinds: dict[str, str | None]) -> bool:
    """Whether ``region`` (a country or a state to the gazetteer) is written right after
    ``place`` as the region it lies in ("Radnor, Pennsylvania, and …", "Antakya, Turkey"), not
    as the next item of a list ("Gaul, Syria, Cilicia", "Gaul, Syria and Egypt") or the start
    of the next clause ("… and the Ottoman Empire, Britain declared …")."""
    if (kinds.get(region) not in _REGIONS or kinds.get(place) == kinds.get(region)
            or without_the(region) != region):
        return False
    return any(_AFTER_REGION.match(text, m.end()) and not _LIST_GOES_ON.match(text, m.end())
               for m in re.finditer(re.escape(f"{place}, {region}"), text))


def _non_overlapping(spans: Sequence[Span]) -> list[Span]:
    """Entities in text order; of overlapping ones (some systems nest), the first/longest wins."""
    kept: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end)):
        if not kept or s.start >= kept[-1].end:
            kept.append(s)
    return kept
