"""spaCy's English parse (ClearNLP dependency labels) → Universal Dependencies v2 CoNLL-U.

Rule-based coreference systems such as xrenner find mentions and antecedents from UD trees:
``nsubj`` vs ``nsubj:pass``, ``obj``, nominal modifiers ``nmod`` with their ``case`` marker,
``nmod:poss``, multi-word names as ``flat``. spaCy's English pipelines label in the ClearNLP
scheme, where prepositions head their objects (``prep`` → ``pobj``), copulas head their
predicates, compounds head-final and ``cc`` hangs on the first conjunct. Fed as they are, the
mention boundaries come out wrong (a preposition inside a mention, a name cut in two). This
module restructures the tree the way UD annotates it:

- a preposition (``prep``, ``agent``, a prepositional ``dative``) becomes ``case`` under its
  object; the object takes the preposition's place as ``obl`` (under a verb, adjective or
  adverb) or ``nmod`` (under a nominal); a preposition with a clausal complement (``pcomp``)
  becomes ``mark`` of that clause (``advcl``/``acl``);
- a copula ``be`` with a nominal or adjectival predicate (``attr``, ``acomp``) becomes ``cop``
  under the predicate, which takes its head and its other dependents (UD's predicate-headed
  copular clause); ``there is X`` keeps ``be`` as head and ``X`` becomes ``nsubj``;
- a run of adjacent proper-noun ``compound``s and their proper-noun head becomes a ``flat`` name
  headed by its first word (UD: "New ←flat Zealand" as ``New Zealand``);
- ``cc`` moves to the conjunct that follows it;
- labels are renamed: ``dobj``→``obj``, ``nsubjpass``→``nsubj:pass``, ``csubjpass``→
  ``csubj:pass``, ``auxpass`` (and a passive ``be`` labelled ``aux``) →``aux:pass``, ``poss``→
  ``nmod:poss``, ``relcl``→``acl:relcl``, ``neg``→``advmod``, ``npadvmod``→``obl:npmod``/
  ``nmod:npmod``, ``prt``→``compound:prt``, ``dative``→``iobj``, ``attr``/``acomp``/``oprd``
  (not copular) →``xcomp``, ``predet``→``det:predet``, ``preconj``→``cc:preconj``,
  ``quantmod``→``advmod``, ``intj``→``discourse``, ``meta``→``dep``, ``ROOT``→``root``.

Whitespace tokens are left out. :func:`to_conllu` returns the CoNLL-U text and the character
range of every token written, in order, so a system's token indices map back to the text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_NOMINAL = {"NOUN", "PROPN", "PRON", "NUM", "DET", "X", "SYM"}
_RENAME = {
    "dobj": "obj", "nsubjpass": "nsubj:pass", "csubjpass": "csubj:pass", "auxpass": "aux:pass",
    "poss": "nmod:poss", "relcl": "acl:relcl", "neg": "advmod", "prt": "compound:prt",
    "predet": "det:predet", "preconj": "cc:preconj", "quantmod": "advmod", "intj": "discourse",
    "meta": "dep", "oprd": "xcomp", "acomp": "xcomp", "attr": "xcomp", "dative": "iobj",
    "pobj": "obl", "pcomp": "xcomp", "agent": "obl", "prep": "case", "root": "root",
}


@dataclass(frozen=True)
class UDToken:
    """One token as written to CoNLL-U: 0-based index in the document, its sentence, its id
    within the sentence (1-based), head id within the sentence (0 = root) and UD relation."""

    index: int
    start: int
    end: int
    text: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int
    deprel: str
    sentence: int
    id: int
    space_after: bool


def convert(doc: Any) -> list[UDToken]:
    """The UD analysis of a parsed spaCy ``Doc``, whitespace tokens left out."""
    n = len(doc)
    keep = [not t.is_space for t in doc]
    head = [t.head.i if t.head.i != t.i else -1 for t in doc]
    dep = [t.dep_.lower() if t.head.i != t.i else "root" for t in doc]
    pos = [t.pos_ for t in doc]

    def children(h: int) -> list[int]:
        return [c for c in range(n) if head[c] == h]

    # A whitespace token's dependents hang on its head (spaCy rarely gives it any).
    for i in range(n):
        if not keep[i]:
            for c in children(i):
                head[c], dep[c] = head[i], dep[c]

    # 1. Copular clauses: the predicate heads, "be" is its cop.
    for b in range(n):
        if not keep[b] or doc[b].lemma_.lower() != "be" or dep[b] in ("aux", "auxpass"):
            continue
        kids = children(b)
        preds = [c for c in kids if dep[c] == "attr"] or [c for c in kids if dep[c] == "acomp"]
        if not preds:
            continue
        if any(dep[c] == "expl" for c in kids):       # "there is a dog": the dog is the subject
            for p in preds:
                if dep[p] == "attr":
                    dep[p] = "nsubj"
            continue
        p = preds[0]
        head[p], dep[p] = head[b], dep[b]
        for c in kids:
            if c != p:
                head[c] = p
        head[b], dep[b] = p, "cop"

    # 2. Prepositions become case markers of their objects (or marks of their clauses).
    for prep in range(n):
        if not keep[prep] or not (dep[prep] in ("prep", "agent")
                                  or (dep[prep] == "dative" and pos[prep] == "ADP")):
            continue
        kids = children(prep)
        objs = [c for c in kids if dep[c] == "pobj"]
        comps = [c for c in kids if dep[c] == "pcomp"]
        if objs:
            o = objs[0]
            h = head[prep]
            head[o] = h
            dep[o] = "nmod" if h >= 0 and pos[h] in _NOMINAL else "obl"
            for c in kids:
                if c != o:
                    head[c] = o
            head[prep], dep[prep] = o, "case"
        elif comps:
            c0 = comps[0]
            h = head[prep]
            head[c0] = h
            dep[c0] = "acl" if h >= 0 and pos[h] in _NOMINAL else "advcl"
            for c in kids:
                if c != c0:
                    head[c] = c0
            head[prep], dep[prep] = c0, "mark"
        else:  # stranded ("the house she lived in"): stays on its head as a case marker
            dep[prep] = "case"

    # 3. Proper-noun compounds → a flat name headed by its first word.
    in_run = [False] * n
    for h in range(n - 1, -1, -1):
        if in_run[h] or pos[h] != "PROPN" or not keep[h]:
            continue
        s = h
        while s - 1 >= 0 and keep[s - 1] and pos[s - 1] == "PROPN" and dep[s - 1] == "compound" \
                and s - 1 < head[s - 1] <= h:
            s -= 1
        if s == h:
            continue
        run = range(s, h + 1)
        for k in run:
            in_run[k] = True
        outer_head, outer_dep = head[h], dep[h]
        for k in run:
            for c in children(k):
                if c not in run:
                    head[c] = s
        head[s], dep[s] = outer_head, outer_dep
        for k in range(s + 1, h + 1):
            head[k], dep[k] = s, "flat"

    # 4. cc on the conjunct that follows it (UD), not on the first conjunct.
    for c in range(n):
        if keep[c] and dep[c] == "cc" and head[c] >= 0:
            later = [k for k in children(head[c]) if dep[k] == "conj" and k > c]
            if later:
                head[c] = min(later)

    # 5. Renames that depend on the (new) head.
    for i in range(n):
        d = dep[i]
        if d == "npadvmod":
            dep[i] = "nmod:npmod" if head[i] >= 0 and pos[head[i]] in _NOMINAL else "obl:npmod"
        elif d == "aux" and doc[i].lemma_.lower() == "be" and head[i] >= 0 \
                and doc[head[i]].tag_ == "VBN" \
                and any(dep[k] in ("nsubjpass", "nsubj:pass") for k in children(head[i])):
            dep[i] = "aux:pass"
        elif d == "dative" and pos[i] == "ADP":
            dep[i] = "case"
        elif d in _RENAME:
            dep[i] = _RENAME[d]

    # Sentences and ids: spaCy's sentence boundaries; heads never cross them.
    out: list[UDToken] = []
    index_of: dict[int, tuple[int, int]] = {}
    for s_num, sent in enumerate(doc.sents):
        k = 0
        for t in sent:
            if keep[t.i]:
                k += 1
                index_of[t.i] = (s_num, k)
    written = 0
    for t in doc:
        if not keep[t.i]:
            continue
        s_num, k = index_of[t.i]
        h = head[t.i]
        while h >= 0 and not keep[h]:
            h = head[h]
        hid = 0 if h < 0 or index_of.get(h, (-1, 0))[0] != s_num else index_of[h][1]
        rel = dep[t.i] if hid else "root"
        nxt = t.i + 1
        space_after = bool(t.whitespace_) or nxt >= len(doc) or doc[nxt].is_space
        out.append(UDToken(written, t.idx, t.idx + len(t.text), t.text, t.lemma_ or t.text,
                           t.pos_ or "X", t.tag_ or "_", str(t.morph) or "_", hid, rel, s_num, k,
                           space_after))
        written += 1
    return out


def _clean(field: str) -> str:
    return field.replace("\t", " ").replace("\n", " ").strip() or "_"


def to_conllu(tokens: list[UDToken]) -> str:
    """CoNLL-U text: one line per token, a blank line after each sentence."""
    lines: list[str] = []
    sent = None
    for t in tokens:
        if sent is not None and t.sentence != sent:
            lines.append("")
        sent = t.sentence
        misc = "_" if t.space_after else "SpaceAfter=No"
        lines.append("\t".join([str(t.id), _clean(t.text), _clean(t.lemma), t.upos, _clean(t.xpos),
                                _clean(t.feats), str(t.head), t.deprel, "_", misc]))
    return "\n".join(lines) + "\n\n"
