"""Phrase-structure trees for CREST's two syntactic checks: a replaced token must keep its
constituent label, and every mention must keep its depth.

Two parsers give the same :class:`PhraseTree` (nodes over character ranges):

- ``stanza``: stanza's constituency parser (Penn Treebank labels), from a local stanza resources
  folder (``model_dir``); nothing is downloaded. This is what the paper used (a constituency
  parser; theirs was CoreNLP's).
- ``dependency`` (offline default): a phrase structure read off spaCy's dependency parse. Every
  token that heads dependents — and every noun, proper noun, pronoun and verb, which project a
  phrase even alone, as in Penn trees (not a bare compound modifier or a possessive determiner
  like "its") — makes a phrase covering its subtree; phrases nest as the dependencies do, and
  each token is a preterminal labelled with its Penn tag. A phrase is labelled from its head's
  part of speech: NOUN/PROPN/PRON (and a NUM or DET used as an argument) → NP; a verb or
  auxiliary → S when it has a subject or is the root, VP otherwise, inside an SBAR when it has a
  subordinating ``mark``; ADJ → ADJP; ADV → ADVP; ADP → PP; SCONJ → SBAR; INTJ → INTJ; else FRAG.
  Two Penn levels are rebuilt so that attachment changes show in depths: a clause with a subject
  is ``(S subject (VP verb ...))`` (what precedes the subject stays under S, and so does the
  final punctuation), and a noun phrase with post-modifiers is ``(NP (NP det adj noun) (PP ...))``
  — "nabbed [a man] near the station" vs "nabbed [a man near the station]" then puts "a man" at
  different depths, as a constituency parser would. The checks compare a follow-up with its
  source under the same parser, so only changes matter.

Depth (CREST §3.2) counts nodes from the sentence's root to the node, both included: a one-token
mention's depth is its preterminal's, a longer mention's is that of the smallest phrase covering
it ("the closest nested phrase"). A token's *constituent label* is its preterminal label with the
label of the phrase directly above it (e.g. ``NN`` in ``NP``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

_SUBJECTS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
_NP_ARGS = {"nsubj", "nsubjpass", "dobj", "pobj", "attr", "dative", "appos", "conj", "oprd",
            "npadvmod", "ROOT"}


@dataclass
class Node:
    label: str
    start: int
    end: int
    children: list["Node"] = field(default_factory=list)
    leaf: int | None = None          # index of the token, for a preterminal
    depth: int = 0
    parent: "Node | None" = field(default=None, repr=False)


@dataclass
class PhraseTree:
    """One tree per sentence; ``leaves`` are the preterminals of the whole text in order."""

    roots: list[Node]
    leaves: list[Node]
    parser: str

    @classmethod
    def build(cls, roots: list[Node], parser: str) -> "PhraseTree":
        leaves: list[Node] = []

        def walk(node: Node, depth: int, parent: Node | None) -> None:
            node.depth, node.parent = depth, parent
            if node.leaf is not None:
                leaves.append(node)
            for c in node.children:
                walk(c, depth + 1, node)

        for r in roots:
            walk(r, 1, None)
        leaves.sort(key=lambda n: n.start)
        return cls(roots, leaves, parser)

    # -- queries ---------------------------------------------------------------------------
    def leaves_in(self, start: int, end: int) -> list[Node]:
        return [lf for lf in self.leaves if lf.start < end and start < lf.end]

    def leaf_at(self, start: int, end: int) -> Node | None:
        """The preterminal covering exactly ``start..end``, if the tokenisation has one."""
        for lf in self.leaves:
            if lf.start == start and lf.end == end:
                return lf
        return None

    def token_label(self, start: int, end: int) -> tuple[str, str] | None:
        """(preterminal label, label of the phrase above it) of the token at ``start..end``."""
        lf = self.leaf_at(start, end)
        if lf is None:
            return None
        return lf.label, lf.parent.label if lf.parent is not None else ""

    def mention_depth(self, start: int, end: int) -> int | None:
        """Depth of a mention: its token's for a one-token mention, else that of the smallest
        phrase covering it; None when no token falls inside it."""
        inside = self.leaves_in(start, end)
        if not inside:
            return None
        if len(inside) == 1:
            return inside[0].depth
        lo, hi = inside[0].start, max(lf.end for lf in inside)
        best: Node | None = None
        for root in self.roots:
            node = root if root.start <= lo and hi <= root.end else None
            while node is not None:
                best = node
                node = next((c for c in node.children if c.leaf is None
                             and c.start <= lo and hi <= c.end), None)
        if best is None:   # the mention crosses sentences: the deepest common ancestor of its ends
            return min(lf.depth for lf in inside) - 1
        return best.depth

    def bracketed(self, text: str) -> str:
        """Penn-style bracketing, for messages and tests."""
        def fmt(n: Node) -> str:
            if n.leaf is not None:
                return f"({n.label} {text[n.start:n.end]})"
            return f"({n.label} " + " ".join(fmt(c) for c in n.children) + ")"
        return " ".join(fmt(r) for r in self.roots)


# -- from a dependency parse ---------------------------------------------------------------
def phrase_label(tok: Any) -> str:
    pos = tok.pos_
    kids = [c.dep_ for c in tok.children]
    if pos in ("NOUN", "PROPN", "PRON"):
        return "NP"
    if pos in ("NUM", "DET") and tok.dep_ in _NP_ARGS:
        return "NP"
    if pos in ("VERB", "AUX"):
        if "mark" in kids:
            return "SBAR"
        if tok.dep_ == "ROOT" or any(k in _SUBJECTS for k in kids):
            return "S"
        return "VP"
    return {"ADJ": "ADJP", "ADV": "ADVP", "ADP": "PP", "SCONJ": "SBAR", "INTJ": "INTJ"}.get(pos, "FRAG")


def _projects(tok: Any) -> bool:
    if tok.dep_ == "poss" and tok.pos_ == "PRON":     # "its", "her": a determiner-like PRP$
        return False
    if any(not c.is_space for c in tok.children):
        return True
    if tok.dep_ == "compound":                         # "the [clean] lake": a bare modifier
        return False
    return tok.pos_ in ("NOUN", "PROPN", "PRON", "VERB") or \
        (tok.pos_ in ("NUM", "DET") and tok.dep_ in _NP_ARGS)


def _span_node(label: str, children: list[Node]) -> Node:
    return Node(label, min(c.start for c in children), max(c.end for c in children), children)


def tree_from_dependencies(doc: Any) -> PhraseTree:
    """The dependency-derived phrase structure of a parsed spaCy ``Doc`` (see the module)."""
    def build(tok: Any) -> Node:
        leaf = Node(tok.tag_ or tok.pos_ or "X", tok.idx, tok.idx + len(tok.text), leaf=tok.i)
        if not _projects(tok):
            return leaf
        deps = sorted((c for c in tok.children if not c.is_space), key=lambda t: t.i)
        label = phrase_label(tok)
        if label == "NP":
            # Penn nests a noun phrase with post-modifiers: (NP (NP the man) (PP near the station))
            left = [build(c) for c in deps if c.i < tok.i]
            right = [c for c in deps if c.i > tok.i and c.dep_ != "punct"]
            core = _span_node("NP", left + [leaf])
            if not right:
                return core if len(core.children) > 1 or left else _span_node("NP", [leaf])
            trailing = [build(c) for c in deps if c.i > tok.i]
            return _span_node("NP", [core] + trailing)
        if label in ("S", "SBAR"):
            # A clause: (SBAR mark (S subject (VP verb ...))), final punctuation under S
            subjects = [c for c in deps if c.dep_ in _SUBJECTS]
            marks = [c for c in deps if c.dep_ == "mark" and c.i < tok.i]
            if subjects:
                last_subj = max(c.i for c in subjects)
                final = [c for c in deps if c.dep_ == "punct" and c.i == tok.right_edge.i]
                pre = [c for c in deps if c.i <= last_subj and c not in marks]
                vp = [c for c in deps if c.i > last_subj and c not in marks and c not in final]
                members = [build(c) for c in pre]
                members.append(_span_node("VP", sorted([leaf] + [build(c) for c in vp],
                                                       key=lambda n: n.start)))
                members += [build(c) for c in final]
                clause = _span_node("S", members)
            else:
                clause = _span_node("S" if tok.dep_ == "ROOT" else "VP",
                                    sorted([leaf] + [build(c) for c in deps if c not in marks],
                                           key=lambda n: n.start))
            if marks:
                return _span_node("SBAR", [build(c) for c in marks] + [clause])
            return clause
        return _span_node(label, sorted([leaf] + [build(c) for c in deps], key=lambda n: n.start))

    roots = [build(sent.root) for sent in doc.sents if not sent.root.is_space]
    return PhraseTree.build(roots, "dependency")


class DependencyConstituency:
    """Trees derived from the spaCy parse that the run already has (no second model)."""

    name = "dependency"

    def __init__(self, parse: Callable[[Sequence[str]], list[Any]]) -> None:
        self._parse = parse

    def describe(self) -> dict[str, Any]:
        return {"type": "dependency", "note": "phrase structure derived from the spaCy "
                "dependency parse (one phrase per head, labelled from its part of speech)"}

    def trees(self, texts: Sequence[str], docs: Sequence[Any] | None = None) -> list[PhraseTree]:
        docs = list(docs) if docs is not None else self._parse(list(texts))
        return [tree_from_dependencies(d) for d in docs]


# -- stanza ------------------------------------------------------------------------------------
class StanzaConstituency:
    """stanza's constituency parser from a local resources folder (``tokenize,pos,constituency``).
    Fails with exit 4 when the folder has no such models; never downloads."""

    name = "stanza"

    def __init__(self, *, model_dir: str | None = None, lang: str = "en",
                 package: str | None = None, device: str = "cpu") -> None:
        from runner.models.stanza_pipeline import load_stanza

        processors = {p: package or "default" for p in ("tokenize", "pos", "constituency")}
        self.nlp, folder, self.version = load_stanza(
            lang=lang, model_dir=model_dir, processors=processors, what="constituency parser",
            setting="constituency.model_dir", device=device)
        self.folder, self.lang, self.package = folder, lang, package

    def describe(self) -> dict[str, Any]:
        return {"type": "stanza", "version": self.version, "model_dir": str(self.folder),
                "lang": self.lang, "package": self.package}

    def trees(self, texts: Sequence[str], docs: Sequence[Any] | None = None) -> list[PhraseTree]:
        return [tree_from_stanza(d) for d in self.nlp.bulk_process(list(texts))]


def tree_from_stanza(doc: Any) -> PhraseTree:
    """A stanza ``Document`` with constituency trees → :class:`PhraseTree`. The tree's leaves are
    matched in order to the sentence's words (which carry character offsets); a ``ROOT`` node
    with a single child is dropped so that depths count from the clause, as the paper does."""
    roots: list[Node] = []
    index = 0
    for sent in doc.sentences:
        words = list(sent.words)
        pos = 0

        def build(t: Any) -> Node:
            nonlocal pos, index
            kids = list(t.children)
            if len(kids) == 1 and not list(kids[0].children):      # preterminal
                w = words[pos]
                start = w.start_char if w.start_char is not None else w.parent.start_char
                end = w.end_char if w.end_char is not None else w.parent.end_char
                pos += 1
                index += 1
                return Node(str(t.label), start, end, leaf=index - 1)
            children = [build(c) for c in kids]
            return Node(str(t.label), min(c.start for c in children),
                        max(c.end for c in children), children)

        tree = sent.constituency
        while str(tree.label) == "ROOT" and len(tree.children) == 1 and list(tree.children[0].children):
            tree = tree.children[0]
        roots.append(build(tree))
    return PhraseTree.build(roots, "stanza")
