"""Candidate source ``lm``: replacement words from the language-model layer
(:mod:`runner.models.lm`), for NER's ``token_mlm`` and ``phrase_np`` (``source: lm``).

A causal LM (default the embedded SmolLM2) proposes from the left context and re-scores each
candidate on the whole sentence; a masked LM fills the mask as in TIN. All the tokens of a
sentence go to the model in one call (its passes batched).

``wordnet`` optionally lets WordNet 3.0 constrain the words:

- ``none`` — the model's words as they are (a causal LM is not asked for the pipeline's stop
  words in place of a word that is not one);
- ``pos`` — only words WordNet knows in the token's part of speech (its Penn tag: verb,
  adjective, noun, adverb; tags WordNet has no part of speech for are not constrained); the
  model is asked for three times as many words first;
- ``synonyms`` — WordNet's synonyms of the token's common senses (or the sense the sentence
  means, ``senses: context``), ranked in context by the model (``rescore``) instead of by
  WordNet's sense order.

``rescore`` (default on): a causal LM grows and re-scores every candidate on the whole sentence
(``CausalLM.propose``: a pass per candidate sentence and growth step). Off: one-token words from
the left context alone, one pass per sentence for all its slots (``CausalLM.propose_left``) —
the whole sentence is then judged by the suite's syntactic filter on what the cheaper checks
keep, so the LM's time goes to the follow-ups that may be tested.
"""
from __future__ import annotations

import functools
from typing import Any, Sequence

from runner.text import candidates as _candidates
from runner.text.candidates import _WN_POS, CandidateSource, WordNetCandidates

WORDNET_MODES = ("none", "pos", "synonyms")


@functools.lru_cache(maxsize=4)
def _stop_words(lang: str) -> frozenset[str]:
    """spaCy's stop words of the language, lower case."""
    from spacy.util import get_lang_class

    return frozenset(w.lower() for w in get_lang_class(lang).Defaults.stop_words)


def fits_case(word: str, sentence_start: bool) -> bool:
    """A word proposed in place of a lower-case one is lower case (capitalised only where it
    begins the sentence): a capital there is a name's."""
    return word.islower() or (sentence_start and word[1:].islower())


def wordnet_knows(wn: Any, word: str, pos: str) -> bool:
    """WordNet has the word (any inflection) in the part of speech (``n``, ``v``, ``a`` with its
    satellites, ``r``)."""
    poses = ("a", "s") if pos == "a" else (pos,)
    return any(wn.morphy(word.lower(), p) is not None for p in poses)


class LMCandidates(CandidateSource):
    def __init__(self, model: str | None = None, *, wordnet: str = "none", device: str = "auto",
                 fp16: bool = False, batch_size: int = 32, lm: Any = None,
                 synonyms: WordNetCandidates | None = None, rescore: bool = True) -> None:
        if wordnet not in WORDNET_MODES:
            raise ValueError(f"wordnet must be one of {', '.join(WORDNET_MODES)}, not {wordnet!r}")
        if lm is None:
            from runner.models import OFFLINE_LM, get_lm

            model = model or OFFLINE_LM
            lm = get_lm(model, device=device, fp16=fp16, batch_size=batch_size)
        self.lm = lm
        self.wordnet = wordnet
        self.rescore = rescore or getattr(lm, "kind", "") != "causal" or wordnet == "synonyms"
        self.name = (f"lm:{model or lm.name}" + ("" if wordnet == "none" else f"+wordnet_{wordnet}")
                     + ("" if self.rescore else "+left_context"))
        self._wn = None
        self._synonyms = synonyms
        # left-context proposals of the batch being planned (prime), taken by candidates()
        self._primed: dict[tuple[str, tuple[int, ...], int], list[list[tuple[str, float]]]] = {}
        if wordnet == "pos":
            from runner.models.wordnet import load_wordnet

            self._wn = load_wordnet()
        elif wordnet == "synonyms" and synonyms is None:
            self._synonyms = WordNetCandidates()

    def describe(self) -> dict[str, Any]:
        d = {**self.lm.describe(), "role": "candidates"}
        if self.wordnet != "none":
            d["wordnet"] = self.wordnet
        return d

    def models(self) -> list[dict[str, Any]]:
        out = [self.describe()]
        if self._synonyms is not None:
            out += self._synonyms.models()
        return out

    def prime(self, asks: Sequence[tuple[Any, Sequence[int]]], k: int | None = None) -> None:
        """Before a batch's candidates are asked for one source at a time: WordNet's senses of
        every word at once (synonyms), and — from the left context, given ``k`` — every slot of
        every sentence in one call to the model, its passes batched across the sentences."""
        if self._synonyms is not None:
            self._synonyms.prime(asks)
        if not self.rescore and k is not None:
            self._primed = self._left(asks, k)

    def _left(self, asks: Sequence[tuple[Any, Sequence[int]]], k: int
              ) -> dict[tuple[str, tuple[int, ...], int], list[list[tuple[str, float]]]]:
        """Proposals from the left context for every slot of every sentence, one call to the
        model: ``(text, tokens, k)`` → per token, its words."""
        asks = [(doc, list(tokens)) for doc, tokens in asks if tokens]
        slots, keeps, excl = [], [], []
        for doc, tokens in asks:
            slots += [(doc.text, doc[i].idx, doc[i].idx + len(doc[i].text)) for i in tokens]
            keeps += [(doc, i) for i in tokens]
            excl += self._exclusions(doc, tokens).get("exclude", [None] * len(tokens))
        got = self.lm.propose_left(slots, k, exclude=excl,
                                   keep=lambda n, w: self._keep(*keeps[n], w))
        out, at = {}, 0
        for doc, tokens in asks:
            out[(doc.text, tuple(tokens), k)] = got[at:at + len(tokens)]
            at += len(tokens)
        return out

    def _keep(self, doc: Any, i: int, word: str) -> bool:
        """A word proposed from the left context for ``doc[i]``: lower case for a lower-case word
        — a capital proposed there is a name's ("the new deal" → "the EU deal", "the German
        deal"), which would add an entity the source does not have — and, with ``wordnet: pos``,
        one WordNet knows in the word's part of speech."""
        tok = doc[i]
        if not fits_case(word, bool(tok.is_sent_start)):
            return False
        return self.wordnet != "pos" or self._known(word, tok.tag_)

    def _known(self, word: str, tag: str) -> bool:
        """WordNet has the word (any inflection) in the part of speech of the Penn tag."""
        pos = _WN_POS.get(tag[:2])
        return pos is None or wordnet_knows(self._wn, word, pos)

    def _exclusions(self, doc: Any, tokens: Sequence[int]) -> dict[str, Any]:
        """A causal LM is not asked for function words (the pipeline's stop words) in place of a
        word that is not one: its left context proposes them first ("Merkel ___ the summit" →
        at, during, and), and they would crowd out the words of the replaced word's kind."""
        if getattr(self.lm, "kind", "") != "causal":
            return {}
        stop = _stop_words(doc.lang_)
        return {"exclude": [None if doc[i].is_stop else stop for i in tokens]}

    def candidates(self, doc: Any, tokens: Sequence[int], k: int) -> list[list[tuple[str, float]]]:
        if not tokens:
            return []
        slots = [(doc.text, doc[i].idx, doc[i].idx + len(doc[i].text)) for i in tokens]
        if self.wordnet == "synonyms":
            listed = self._synonyms.candidates(doc, tokens, max(3 * k, 20))
            ranked = self.lm.rescore(slots, [[w for w, _ in c] for c in listed])
            return [r[:k] for r in ranked]
        if not self.rescore:
            key = (doc.text, tuple(tokens), k)
            primed = self._primed.pop(key, None)
            return primed if primed is not None else self._left([(doc, tokens)], k)[key]
        ask = 3 * k if self.wordnet == "pos" else k
        ranked = self.lm.propose(slots, ask, **self._exclusions(doc, tokens))
        out = []
        for i, cands in zip(tokens, ranked):
            words = [(w, s) for w, s in cands if w.isalpha()]
            if self.wordnet == "pos":
                words = [(w, s) for w, s in words if self._known(w, doc[i].tag_)]
            out.append(words[:k])
        return out


def make_source(source: str, *, lm: str | None = None, lm_wordnet: str = "none",
                lm_rescore: bool = True, **kwargs: Any) -> CandidateSource:
    """:func:`runner.text.candidates.make_source` with the source ``lm`` too (``lm``: the model,
    ``lm_wordnet``: how WordNet constrains it; ``senses`` and ``sense_encoder`` as for
    ``wordnet`` when it gives the synonyms)."""
    if source != "lm":
        return _candidates.make_source(source, **kwargs)
    synonyms = (_candidates.make_source("wordnet", **kwargs) if lm_wordnet == "synonyms"
                else None)
    return LMCandidates(lm, wordnet=lm_wordnet, device=kwargs["device"], fp16=kwargs["fp16"],
                        batch_size=kwargs["batch_size"], synonyms=synonyms, rescore=lm_rescore)
