"""Check 3, ``verb_frames``: a replaced verb licenses the complements the original has (WordNet 3.0
verb frames, the closed classes of bare-infinitive verbs and verbs of telling, multi-word verbs)."""
from __future__ import annotations

from typing import Any

from runner.tasks.ner.checks.spans import head_of
from runner.types import Edit

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


class VerbFrameChecks:
    """The ``verb_frames`` checks of :class:`~runner.tasks.ner.checks.filter.ParseCheckFilter`
    (a mixin: it reads the filter's settings and WordNet)."""

    # -- 3. verb frames ------------------------------------------------------------------------
    def _verb_frames(self, sdoc: Any, fdoc: Any, edit: Edit) -> list[str]:
        reasons = []
        for (a, b), (c, d) in edit.replaced_pairs():
            old, new = head_of(sdoc, a, b), head_of(fdoc, c, d)
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
