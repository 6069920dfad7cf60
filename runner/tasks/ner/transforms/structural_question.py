"""`structural_question` (TIN §3.3, SPEC §1.3): a declarative sentence becomes a yes/no question.

TIN finds S → NP VP with a constituency parser and looks at the first verb of the VP. mtrun reads
the same structure off the dependency parse, which the embedded spaCy pipeline provides offline:
the subject NP is the subtree of the root's ``nsubj``/``nsubjpass``/``expl``/``csubj`` child and
the first verb of the VP is the root's first auxiliary after the subject, or the root itself.
The three cases of the paper:

(a) a main-verb "be" moves before the subject: "Twitter was the obvious solution." →
    "Was Twitter the obvious solution?"
(b) a normal verb: do/does/did (by tense and number: VBD → did, VBZ → does, VBP → do) goes before
    the subject and the verb returns to its base form: "He cried." → "Did he cry?" (verbs
    coordinated with it under the same subject too: "opened … and left" → "open … and leave");
(c) an auxiliary moves before the subject: "He has faced floods." → "Has he faced floods?"
    (a contracted negation moves with it: "hasn't he").

The final "." becomes "?". The subject's first word loses its capital unless it may be a name
(``question_names``: a proper noun, inside an entity, a nationality, a listed name, one the
corpus writes with a capital, or the start of words the sentence writes again further on).
Headlines, section labels and datelines ("Cricket - Pakistan beat …") give no question, nor a
statement whose modal would ask something else fronted ("may", "might", "must", "shall"); an
"a"/"an" before a changed word agrees with it. Every change is
an :class:`~runner.types.Replacement`, so entity spans are carried into the question by the
edit's alignment. A sentence the rules cannot turn into a question (no final
period, several sentences, no subject before the verb, a verb form that needs an auxiliary that is
missing) gives no follow-up: the transformation does not apply to it. Nor do forms whose question
would read as broken: coordinated clauses ("X had frozen, and Y had been conquered": only the
first would become a question), a second verb phrase the moved verb cannot reach ("is in the
temperate zone and enjoys …"), an imperative clause inside ("… so get in touch with Canon": the
question would ask an order), a subject starting with "not", in quotation marks or inside
brackets ("[The Spitfire Tournament in Canada] was …"), a subject holding a semicolon (a fragment
run into a clause), a place phrase in front of its verb that the parser took for the subject
("Northeast of Temescal … lies Rockridge"), words before the subject that a comma does not set
off ("Earlier this year was Seagal given …?"), a quotation left open (the "?" would end
the quoted words). Words set off by a comma stay in front ("In 2019, did Siemens open …?",
"When he died, did we …?"); a contracted auxiliary is spelled out ("It's …" → "Is it …?"). With
``negative``, the negative question ("Didn't he cry?") is a second follow-up of a sentence without
a negation.
"""
from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any, Sequence

from runner.text.articles import agree_articles
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement
from runner.tasks.ner.types import Prediction, Sentence
from runner.tasks.ner.transforms.question_names import headline, may_be_name

_SUBJECT_DEPS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
_AUX_DEPS = {"aux", "auxpass"}
_AUX_LEMMAS = {"be", "have", "do", "will", "shall", "can", "may", "must", "might", "could",
               "would", "should", "ought"}
_DO_BY_TAG = {"VBD": "did", "VBZ": "does", "VBP": "do"}
# What may stand before the subject of a question when set off by a comma: adverbial clauses and
# phrases of the root ("When he died, …", "In 2019, …", "Meanwhile, …").
_FRONTED_DEPS = {"advcl", "prep", "advmod", "npadvmod", "intj", "cc", "mark", "punct"}


# The negative of each fronted auxiliary that has a natural contracted one ("may", "might",
# "must", "shall", "am" have none that reads well in a question).
_NEGATIVE = {"did": "didn't", "does": "doesn't", "do": "don't", "is": "isn't", "are": "aren't",
             "was": "wasn't", "were": "weren't", "has": "hasn't", "have": "haven't",
             "had": "hadn't", "will": "won't", "would": "wouldn't", "can": "can't",
             "could": "couldn't", "should": "shouldn't"}


# Modals whose question asks something else than the statement says (see _question_edit).
_NOT_FRONTED = frozenset({"may", "might", "must", "shall"})

_NEGATIVE_WORDS = {"not", "n't", "n’t", "never", "no", "nothing", "nobody", "none", "neither",
                   "nor", "nowhere", "hardly", "scarcely", "barely", "seldom", "rarely"}


class StructuralQuestion(Transformation):
    """With ``negative``, a second follow-up: the same question with the auxiliary negated
    ("Did Trump's wife make …?" and "Didn't Trump's wife make …?"), for sentences with no
    negation of their own; the entities and their types are the statement's in both."""
    name = "structural_question"
    needs_parse = True

    def __init__(self, *, negative: bool = False,
                 corpus_names: frozenset[str] = frozenset()) -> None:
        super().__init__(**({"negative": True} if negative else {}))
        self.negative = negative
        # the words the corpus writes with a capital inside sentences (given by the task)
        self.corpus_names = corpus_names

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        if doc is None:
            raise ValueError("structural_question needs the parse of the source")
        # A word of a predicted entity keeps its capital ("Spotify is …" → "Is Spotify …"),
        # except a determiner ("The Beatles were …" → "Were the Beatles …").
        in_entities = {i for span in prediction.spans for i in range(span.start, span.end)}
        made = question_edit(source.text, doc, keep_case_at=in_entities,
                             names=self.corpus_names,
                             entities=[(s.start, s.end) for s in prediction.spans])
        if made is None:
            return []
        replacements, meta = made
        out = [FollowUp.from_replacements(source.text, replacements, self.name, **meta)]
        if self.negative:
            negated = negative_question(source.text, doc, replacements, meta)
            if negated is not None:
                out.append(FollowUp.from_replacements(source.text, negated, self.name,
                                                      **{**meta, "negative": True}))
        return out


def negative_question(text: str, doc: Any, replacements: list[Replacement],
                      meta: dict[str, str]) -> list[Replacement] | None:
    """The question's replacements with the fronted auxiliary negated, or None when the sentence
    has a negation already (or the auxiliary has no natural negative)."""
    if any(t.dep_ == "neg" or t.lower_ in _NEGATIVE_WORDS for t in doc):
        return None     # "was there nothing else …" → "wasn't there nothing else …?"
    fronted = meta["fronted"]
    negative = _NEGATIVE.get(fronted.lower())
    if negative is None:
        return None
    if "’" in text and "'" not in text:
        negative = negative.replace("'", "’")
    if fronted[:1].isupper():
        negative = negative[:1].upper() + negative[1:]
    out, found = [], False
    for r in replacements:
        if not found and r.start == r.end and r.new == fronted + " ":
            out.append(Replacement(r.start, r.end, negative + " "))
            found = True
        else:
            out.append(r)
    return out if found else None


def question_edit(text: str, doc: Any, keep_case_at: frozenset[int] | set[int] = frozenset(),
                  names: frozenset[str] | set[str] = frozenset(),
                  entities: Sequence[tuple[int, int]] = ()
                  ) -> tuple[list[Replacement], dict[str, str]] | None:
    """The replacements that turn ``text`` (parsed as ``doc``) into a question, and how (the case
    of TIN §3.3), or None when the sentence is not a declarative the rules cover. A word starting
    at an offset in ``keep_case_at`` (inside an entity the system found), or one of ``names``
    (the corpus writes it with a capital), keeps its capital when the subject moves;
    ``entities`` (character ranges of the system's entities) tell a dash inside a name from a
    label's."""
    try:
        return _question_edit(text, doc, keep_case_at, names, entities)
    except _NoQuestion:
        return None


def _question_edit(text: str, doc: Any, keep_case_at: frozenset[int] | set[int],
                   names: frozenset[str] | set[str], entities: Sequence[tuple[int, int]]
                   ) -> tuple[list[Replacement], dict[str, str]] | None:
    sents = list(doc.sents)
    tokens = [t for t in doc if not t.is_space]
    if len(sents) != 1 or len(tokens) < 3:
        return None
    final = tokens[-1]
    if final.text != "." or final.idx + 1 != len(text.rstrip()):
        return None
    root = sents[0].root
    if root.pos_ not in ("VERB", "AUX"):
        return None
    subjects = [c for c in root.children if c.dep_ in _SUBJECT_DEPS and c.i < root.i]
    if not subjects:
        return None
    if len(subjects) > 1 and doc[subjects[0].right_edge.i + 1].text == "," and not any(
            t.dep_ == "cc" for t in doc[subjects[0].right_edge.i:root.i]):
        # a phrase set off in front that the parser took for a second subject ("Time
        # permitting, journalists … will be able …" → "Will Time permitting, journalists …?");
        # a list the parser split ("Reform BC, the … Party, and the … Party joined") has its "and"
        return None
    if _open_quote(text):
        # a quotation the sentence never closes ("… said, "We were playing …."): the "?" would
        # land inside it and ask the quoted words, not the sentence
        return None
    if _dateline(tokens):
        # a dateline in front ("BAGHDAD - Combined Joint Task Force … provided …") is no part of
        # the sentence a question can be made of ("Did BAGHDAD - Combined … provide …?")
        return None
    if headline(doc, root, entities) is not None:
        # a section label, a dateline or a title-case line: "Did Cricket - Pakistan beat …?"
        return None
    subject = subjects[0]
    subj_first = subject.left_edge
    subj_end = subject.right_edge.i
    if not _front_is_set_off(doc, root, subj_first):
        return None
    if (subj_first.lower_ == "not" or subj_first.tag_ == "MD"
            or any(_is_quote(t.text) for t in doc[:subj_first.i])):
        # "Not everyone can …" → "Can not everyone …?"; a subject the tagger read as a modal
        # ("May has received …" → "Has may received …?"); a subject in quotation marks is a
        # title the question would break ('"Loving" opens …' → '"Does loving" open …?')
        return None
    if (sum(t.text in ("(", "[") for t in doc[:subj_first.i + 1])
            > sum(t.text in (")", "]") for t in doc[:subj_first.i])):
        # a subject inside brackets, an editor's insertion ("[The Spitfire Tournament in
        # Canada] was a really good tournament"): the auxiliary would go inside them
        return None
    if any(t.text == ";" for t in doc[subj_first.i:subj_end + 1]):
        # a subject that holds a semicolon: two parts run together, the parser taking the
        # first for the subject of the second ("Another of … foodie spots, home to …; cafes
        # … complete the vision …" → "Do another of … complete …?")
        return None
    if (any(c.dep_ == "conj" and c.pos_ == "ADP" for c in subject.children)
            or subject.lower_ in _COMPASS and any(c.lower_ == "of" for c in subject.rights)
            and not any(c.dep_ == "det" for c in subject.children)):
        # a place phrase fronted before the verb, its subject after it (locative inversion:
        # "Northeast of Temescal and near the Berkeley border lies Rockridge" → "Does Northeast
        # of Temescal … lie Rockridge …?"): the parser took the phrase for the subject
        return None
    if any(c.dep_ == "conj" and any(g.dep_ in _SUBJECT_DEPS for g in c.children)
           for c in root.children):
        # coordinated clauses ("X had frozen, and Y had been conquered"): a question made of
        # the first alone leaves the second a statement inside it
        return None
    nominal = [c.i for c in root.children
               if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN", "PRON")]
    if nominal and any(t.i > nominal[0] and t.head.i == root.i and _subjectless_finite(t)
                       for t in doc):
        # a noun coordinated with the verb, then a finite verb with no subject: the second
        # clause of two, which the parser did not see ("it uses a … setting, and the Arabian
        # Nights, like …, are known to …")
        return None
    if any(t.i > 0 and t.is_title and (t.tag_ == "IN" or t.lower_ in ("the", "a", "an"))
           and t.i + 1 < len(doc) and doc[t.i + 1].is_lower
           and (doc[t.i - 1].text == "," or doc[t.i - 1].text[-1].isdigit()) for t in doc):
        # an article or preposition written with a capital after a comma or a number, before
        # a lowercase word: two sentences run together or a fragment before one ("…, pp.159
        # In his Books column …", "…, the Dreyfus affair, The film stars …"), which no
        # question can be made of (inside a title it follows a word: "Gone With the Wind")
        return None
    if any(t.tag_ == "VB" and t.dep_ in ("conj", "dep", "parataxis") and t.head.tag_ != "VB"
           and not any(c.dep_ in _SUBJECT_DEPS or c.dep_ in _AUX_DEPS or c.dep_ == "mark"
                       for c in t.children) for t in doc):
        # an imperative clause inside ("I agree it's under warranty so get in touch with
        # Canon."): the question would ask an order
        return None
    if any(t.tag_ in ("VBD", "VBZ", "VBP") and t.dep_ in ("advcl", "dep", "parataxis")
           and t.i > 0 and doc[t.i - 1].text == "," and t.head.pos_ in ("VERB", "AUX")
           and not any(c.dep_ in _SUBJECT_DEPS or c.dep_ in _AUX_DEPS or c.dep_ == "mark"
                       for c in t.children) for t in doc):
        # a finite verb after a comma with no subject or marker of its own: one of a list of
        # verbs the parser did not read as coordinated ("won the prize, served as president,
        # and joined …"), which the question would leave in its tense ("did Ginsberg …, win
        # …, served …?")
        return None
    auxiliaries = [c for c in root.children
                   if c.dep_ in _AUX_DEPS and subj_end < c.i < root.i
                   and c.lemma_.lower() in _AUX_LEMMAS and c.tag_ in ("MD", "VBD", "VBZ", "VBP")]

    reps: list[Replacement] = []
    if auxiliaries or root.lemma_.lower() == "be" and root.tag_ in ("VBD", "VBZ", "VBP"):
        if any(_finite_or_own_aux(v) for v in _coordinated_verbs(root, finite_only=False)):
            # "Northern Algeria is in the temperate zone and enjoys …": the moved verb does not
            # govern the second verb phrase ("Is Northern Algeria … and enjoys …?"), nor one with
            # its own auxiliary ("Is the decision … and would appear …?")
            return None
    if auxiliaries and auxiliaries[0].lower_ in _NOT_FRONTED:
        # "Parma may field …" says what is possible; "May Parma field …?" asks leave or
        # wishes; "must" fronted asks about a duty ("X must have known" ↛ "Must X have
        # known?"), "shall" offers: the question would not ask what the statement says
        return None
    if (auxiliaries[0] if auxiliaries else root).lower_ == "am" and not any(
            t.lower_ == "i" and t.dep_ in _SUBJECT_DEPS for t in doc):
        # "am" goes with "I" alone: without it, the parser took a time ("from 7 am to 9 pm")
        # for the verb, and the question would read "Am CBBC broadcasts from 7 to 9 pm …?"
        return None
    if auxiliaries:                                   # (c) an auxiliary moves
        case, verb = "auxiliary moved", auxiliaries[0]
        moved = _take_out(doc, text, verb, reps)
    elif root.lemma_.lower() == "be" and root.tag_ in ("VBD", "VBZ", "VBP"):   # (a) be moves
        case, verb = "be-verb moved", root
        moved = _take_out(doc, text, verb, reps)
    elif root.tag_ in _DO_BY_TAG:                     # (b) do-support, base form restored
        if any(c.dep_ in _AUX_DEPS for c in root.children):
            return None  # an auxiliary we did not recognise (or before the subject): leave it
        if any(v.lemma_.lower() == "be" and v.tag_ in _DO_BY_TAG
               or any(c.dep_ in _AUX_DEPS for c in v.children)
               for v in _coordinated_verbs(root, finite_only=False)):
            # "He left and was happy", "Bowling Green finished 8-5 and has finished 4-2 in the
            # MAC East": do-support cannot reach "was" or a verb with an auxiliary of its own
            return None
        case, verb = "do inserted", root
        moved = _DO_BY_TAG[root.tag_]
        for v in [root] + _coordinated_verbs(root):
            base = _base_form(v)
            if base is None:
                return None
            if base != v.text:
                reps.append(Replacement(v.idx, v.idx + len(v.text), base))
    else:
        return None

    # (an opening bracket before the subject never gets here: see the bracket rule above)
    at_start = all(t.is_space or t.is_punct and t.text in "\"'“‘" for t in doc[:subj_first.i])
    if at_start:
        moved = moved[:1].upper() + moved[1:]
        if subj_first.text[:1].isupper() and not may_be_name(
                subj_first, subj_first.idx in keep_case_at, names, _capitalised_words()):
            word = subj_first.text
            reps.append(Replacement(subj_first.idx, subj_first.idx + len(word),
                                    word[:1].lower() + word[1:]))
    else:
        moved = moved[:1].lower() + moved[1:]
    reps.append(Replacement(subj_first.idx, subj_first.idx, moved + " "))
    reps.append(Replacement(final.idx, final.idx + 1, "?"))
    reps = agree_articles(text, reps)
    # "fronted": the word now before the subject ("Won't" for the tokens "wo" + "n't")
    return reps, {"case": case, "verb": verb.text, "fronted": moved}


_DASHES = frozenset({"-", "–", "—", "--"})
#: the points of the compass, which head a place phrase ("North of the river lies …")
_COMPASS = frozenset({"north", "south", "east", "west", "northeast", "northwest", "southeast",
                      "southwest", "north-east", "north-west", "south-east", "south-west"})


def _dateline(tokens: Sequence[Any]) -> bool:
    """Whether the text opens with a news dateline: a place in capitals (a word of four letters
    or more with a vowel, not an acronym such as "CJTF"; a comma and a word after it allowed:
    "SAN FRANCISCO, Calif."), then a dash with a space on each side and a capitalised word
    ("US-led" and "US - led forces" are none)."""
    for k, tok in enumerate(tokens[:6]):
        if tok.text in _DASHES:
            return (k > 0 and bool(tokens[k - 1].whitespace_) and bool(tok.whitespace_)
                    and k + 1 < len(tokens) and tokens[k + 1].text[:1].isupper()
                    and any(t.is_alpha and t.is_upper and len(t) >= 4
                            and any(v in t.text for v in "AEIOU") for t in tokens[:k]))
        if not (tok.is_upper and len(tok) > 1 or tok.text in (",", ".")
                or tok.text.rstrip(".").isalpha() and k > 0 and tokens[k - 1].text == ","):
            return False
    return False


def _subjectless_finite(verb: Any) -> bool:
    """A clause's verb with a tense (its own or its auxiliary's) and no subject of its own."""
    if verb.pos_ not in ("VERB", "AUX") or verb.dep_ not in ("ccomp", "conj", "dep", "parataxis"):
        return False
    if any(c.dep_ in _SUBJECT_DEPS for c in verb.children):
        return False
    return verb.tag_ in _DO_BY_TAG or any(c.dep_ in _AUX_DEPS and c.tag_ in _DO_BY_TAG
                                          for c in verb.children)


def _front_is_set_off(doc: Any, root: Any, subj_first: Any) -> bool:
    """Whether the words before the subject (if any) can stay in front of a question: opening
    punctuation and a coordinating conjunction always can ("But did …?"); any other phrase must
    be set off by a comma right before the subject ("In 2019, did Siemens …?"; without it the
    question reads as broken: "Earlier this year was Seagal given …?"), and a verb in it must
    belong to an adverbial clause or phrase of the root ("When Millican died, did we …?"), not to
    a clause the root reports ("X should act, the report argued." has no S → NP VP)."""
    before = [t for t in doc[:subj_first.i] if not t.is_space]
    words = [t for t in before if not t.is_punct and t.pos_ != "CCONJ"]
    if not words:
        return True
    if before[-1].text != ",":
        return False
    for t in words:
        if t.pos_ not in ("VERB", "AUX"):
            continue
        top = t
        while top.head.i != top.i and top.head.i != root.i:
            top = top.head
        if top.head.i != root.i or top.dep_ not in _FRONTED_DEPS:
            return False
    return True


def _open_quote(text: str) -> bool:
    """Whether a double quotation mark is left open (or closed without opening)."""
    return text.count('"') % 2 == 1 or text.count("“") != text.count("”")


def _is_quote(text: str) -> bool:
    return text in ('"', "'", "“", "”", "‘", "’", "``", "''")


def _finite_or_own_aux(verb: Any) -> bool:
    return verb.tag_ in _DO_BY_TAG or verb.tag_ == "MD" or any(
        c.dep_ in _AUX_DEPS for c in verb.children)


# Contracted auxiliaries spelled out when they move to the front ("it's" → "Is it …?", not
# "'s it …?"): by lemma and tag; "'d" is "had" or "would", told apart by the tag.
_CONTRACTED = {("be", "VBZ"): "is", ("be", "VBP"): "are", ("be", "VBD"): "was",
               ("have", "VBZ"): "has", ("have", "VBP"): "have", ("have", "VBD"): "had",
               ("will", "MD"): "will", ("would", "MD"): "would", ("shall", "MD"): "shall"}


def _take_out(doc: Any, text: str, verb: Any, reps: list[Replacement]) -> str:
    """Remove ``verb`` (and a contracted "n't" glued to it) with the space before it; return the
    text to put before the subject. A contracted auxiliary ("'s", "'re", "'ll") is spelled out:
    "'s" cannot start a question."""
    end_tok = verb
    nxt = doc[verb.i + 1] if verb.i + 1 < len(doc) else None
    if nxt is not None and nxt.lower_ in ("n't", "n’t") and not verb.whitespace_:
        end_tok = nxt
    start = verb.idx
    while start > 0 and text[start - 1].isspace():
        start -= 1
    end = end_tok.idx + len(end_tok.text)
    word = text[verb.idx:verb.idx + len(verb.text)]
    moved = text[verb.idx:end]
    if word[:1] in ("'", "’"):
        lemma = verb.lemma_.lower()
        if word.lower() in ("'s", "’s") and verb.head.tag_ == "VBN" and (
                verb.dep_ == "aux" or any(c.dep_ == "dobj" for c in verb.head.children)):
            lemma = "have"      # "it's also fuelled the emergence …" is "it has", not "it is"
        moved = _CONTRACTED.get((lemma, verb.tag_))
        if moved is None or end_tok is not verb:
            raise _NoQuestion(f"contracted {word!r}")
    # the space before goes too, glued or not: "it 's" → "it", "he has" → "he"
    reps.append(Replacement(start, end, ""))
    return moved


class _NoQuestion(Exception):
    """The sentence has a form the rules cannot turn into a question."""


def _coordinated_verbs(root: Any, finite_only: bool = True) -> list[Any]:
    """Finite verbs coordinated with the root that share its subject ("opened the door and
    left"): they take the base form after do-support too. With ``finite_only`` false, every
    verb coordinated so (to tell the forms a question cannot reach)."""
    out = []
    for c in root.children:
        if c.dep_ == "conj" and (c.tag_ in _DO_BY_TAG or not finite_only and c.pos_ in (
                "VERB", "AUX")) and not any(g.dep_ in _SUBJECT_DEPS for g in c.children):
            out.append(c)
            out += _coordinated_verbs(c, finite_only)
    return out


def _base_form(verb: Any) -> str | None:
    """The verb's base form: the parser's lemma, unless that lemma cannot be the base of a regular
    form (the rule lemmatizer reads "fined" as "fin"; "fin" would make "finned"), in which case
    the other regular reading is taken ("fine")."""
    lemma = verb.lemma_
    if not lemma or not (lemma.isascii() and lemma.isalpha()):
        # no English verb: a word of another script the tagger took for one ("ب")
        return None
    word = verb.text.lower()
    lemma = lemma.lower()
    if not word.startswith(lemma):
        pass  # an irregular form the lemmatizer knows (has → have, met → meet)
    elif verb.tag_ == "VBD" and word.endswith("ed") and word not in _regular_past(lemma):
        lemma = next((b for b in (word[:-1], word[:-2], word[:-3], word[:-3] + "y")
                      if len(b) > 1 and word in _regular_past(b)), lemma)
    elif verb.tag_ == "VBZ" and word.endswith("s") and word != _third_singular(lemma):
        lemma = next((b for b in (word[:-1], word[:-2], word[:-3] + "y")
                      if len(b) > 1 and word == _third_singular(b)), lemma)
    if verb.text[:1].isupper() and verb.i > 0:
        lemma = lemma[:1].upper() + lemma[1:]
    return lemma


_VOWELS = "aeiou"


def _regular_past(base: str) -> set[str]:
    """The regular past forms of ``base``: a one-syllable consonant-vowel-consonant verb doubles
    its consonant (stop → stopped, fin → finned); longer ones may or may not (travelled/traveled)."""
    if base.endswith("e"):
        return {base + "d"}
    if len(base) > 1 and base.endswith("y") and base[-2] not in _VOWELS:
        return {base[:-1] + "ied"}
    cvc = (len(base) >= 3 and base[-1] not in _VOWELS + "wxy" and base[-2] in _VOWELS
           and base[-3] not in _VOWELS)
    if cvc and _syllables(base) == 1:
        return {base + base[-1] + "ed"}
    return {base + "ed", base + base[-1] + "ed"} if cvc else {base + "ed"}


def _third_singular(base: str) -> str:
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        return base + "es"
    if len(base) > 1 and base.endswith("y") and base[-2] not in _VOWELS:
        return base[:-1] + "ies"
    return base + "s"


def _syllables(word: str) -> int:
    groups, prev = 0, False
    for ch in word:
        vowel = ch in _VOWELS + "y"
        groups += vowel and not prev
        prev = vowel
    return groups


@functools.lru_cache(maxsize=1)
def _capitalised_words() -> frozenset[str]:
    """The adjectives WordNet 3.0 writes only with a capital ("Dominican priest Heinrich Kramer
    was …" → "Was Dominican priest …?", not "dominican"), shipped in
    ``data/capitalised_words.txt`` (made by ``data/build_capitalised_words.py``), so questions
    need no WordNet."""
    path = Path(__file__).with_name("data") / "capitalised_words.txt"
    return frozenset(line for line in path.read_text(encoding="utf-8").splitlines()
                     if line and not line.startswith("#"))
