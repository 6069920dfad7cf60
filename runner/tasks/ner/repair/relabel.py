"""Relabeling of suspicious entities (TIN Algorithm 1) and range conflicts (TIN §3.5.2).

For a suspicious entity e_s in sentence s, a *candidate source* proposes mutant entities e_m with
a score p: the ``masked_lm`` source masks each word/sub-word w_a of e_s in turn (the masked LM's
own tokenisation) and takes its top-K fillers w_b with their raw logits, as in the paper; the
``corpus`` source (offline alternative) puts entities seen elsewhere in the corpus in e_s's place
and scores each with the masked LM's mean standardised logit of its pieces at e_s's position
(the sources are in :mod:`runner.tasks.ner.repair.mutants`). Then, exactly as Algorithm 1:

- skip a candidate whose first character's case (or kind) differs from w_a's, whose p is below
  ``PThreshold``, or whose cosine similarity cos(E(s, e_s), E(s_m, e_m)) is below ``SThreshold``;
- query the system on every surviving s_m (one batched call) and add F(p, sim) to
  score[N(s_m, e_m)], NULL included (:func:`evaluate`);
- the relabel is argmax score, its p_score the maximum.

Relabelled entities whose spans overlap keep only the higher p_score (:func:`repaired`).

Offline, without a BERT-quality masked LM, ``candidates: referees`` replaces the vote (not in the
paper): a panel of entity recognisers trained apart from the system reads the entity in both
sentences of the violation, and a relabel is made only when every one of them reads it the same
way in both and that reading is one of the two categories the sentences dispute
(:meth:`Relabeler._panel`).

``candidates: lm`` (not in the paper, offline) keeps the entity and changes its context: the
causal LM replaces the content words nearest the entity, one at a time, and the mutants no less
natural than ``PThreshold`` allows (per-token perplexity rise in percent) vote with the system's
labels of the entity in them; ``lm_rule`` combines that vote with the referee panel and the name
lists, and each relabel records the evidence that decided it (``basis``;
:meth:`Relabeler._combine`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from runner.tasks.ner.repair.locate import label_at
from runner.tasks.ner.repair.mutants import CandidateSource, Job, Mutant
from runner.tasks.ner.types import Span

NULL = "NULL"   # how the category "not an entity" is written in results


def evaluate(p: float, sim: float, *, null: bool, subword: bool, k: float = 2.5,
             alpha: float = 0.2, lam: float = 0.5) -> float:
    """TIN eq. 5: F(p, sim) = p·exp(k·sim), × α when N(s_m, e_m) is NULL, × λ when w_a is a
    sub-word."""
    value = p * math.exp(k * sim)
    if null:
        value *= alpha
    if subword:
        value *= lam
    return value


def same_format(a: str, b: str) -> bool:
    """Format consistency: the first characters are both upper-case letters, both lower-case,
    both digits, or both something else."""
    def kind(s: str) -> str:
        c = s[:1]
        if not c:
            return ""
        if c.isalpha():
            return "upper" if c.isupper() else ("lower" if c.islower() else "alpha")
        return "digit" if c.isdigit() else "other"
    return kind(a) == kind(b)


@dataclass
class Relabel:
    """The outcome of Algorithm 1 for one job."""
    job: Job
    label: str | None = None          # argmax (None = NULL); meaningless when not ``decided``
    p_score: float = 0.0
    scores: dict[str, float] = field(default_factory=dict)   # category ("NULL" included) → score
    proposed: int = 0                 # candidates proposed
    kept: int = 0                     # candidates that passed the three filters
    dropped: dict[str, int] = field(default_factory=lambda: {"format": 0, "p": 0, "sim": 0})
    examples: list[dict[str, Any]] = field(default_factory=list)
    abstained: str = ""               # why a vote was too thin to decide (min_votes, min_share)
    votes: int = 0                    # mutants whose label counted in ``scores``
    gazetteer: str | None = None      # the type a name list gave the entity (it decided)
    # referee panel: each referee's reading of the entity here and in the partner sentence
    readings: dict[str, list[str]] = field(default_factory=dict)
    agreed: bool = False              # the panel decided
    vetoed: bool = False              # the CRF referee overruled the panel: nothing decides
    # which evidence decided the relabel: "vote" (the mutants), "referees" (the panel),
    # "gazetteer" (the name lists), "vote+referee" (candidates lm: the vote, one referee reading
    # the entity the same way); "" when undecided
    basis: str = ""
    # candidates lm: the mutants' vote (its winner, None for NULL; "" when it abstained)
    vote: str | None = ""

    @property
    def decided(self) -> bool:
        return (bool(self.scores) or self.gazetteer is not None or self.agreed) \
            and not self.abstained

    def shares(self) -> dict[str, float]:
        total = sum(self.scores.values())
        return {k: v / total for k, v in self.scores.items()} if total > 0 else {}

    def to_json(self) -> dict[str, Any]:
        return {"label": (self.label or NULL) if self.decided else None,
                "p_score": round(self.p_score, 4) if self.decided else None,
                "scores": {k: round(v, 4) for k, v in sorted(self.scores.items())},
                "shares": {k: round(v, 4) for k, v in sorted(self.shares().items())},
                "candidates": {"proposed": self.proposed, "kept": self.kept,
                               "dropped": dict(self.dropped)},
                **({"abstained": self.abstained} if self.abstained else {}),
                **({"gazetteer": self.gazetteer} if self.gazetteer else {}),
                **({"readings": self.readings} if self.readings else {}),
                **({"basis": self.basis} if self.decided and self.basis else {}),
                **({"vote": self.vote or NULL} if self.vote != "" else {}),
                "examples": self.examples}


@dataclass
class Params:
    PThreshold: float = 5.5
    SThreshold: float = 0.45
    k: float = 2.5
    alpha: float = 0.2
    lam: float = 0.5
    # Not in the paper (whose votes come from BERT's top-K on every word of the entity, many and
    # mostly on topic): with the few votes an offline candidate source gets, a relabel decided by
    # one or two mutants, or by a narrow plurality, changed correct labels as often as wrong ones.
    # The defaults (1, 0) are the paper's: any vote decides.
    min_votes: int = 1
    min_share: float = 0.0
    # Not in the paper either, for the offline ``contexts`` score, whose votes carry the system's
    # systematic mistyping. ``disputed``: only votes for one of the two categories the violation's
    # sentences gave the entity count (the relabel settles the dispute; a third category is most
    # often the same mistake again). ``gazetteer``: a name found in the offline name lists
    # (:mod:`~runner.tasks.ner.repair.gazetteer`) takes that type, whatever the vote.
    vote_labels: str = "any"
    gazetteer: bool = False
    # Not in the paper: a relabel the vote decided (not the name lists) is applied only when a
    # second, independent entity recogniser (``referee``, a spaCy pipeline) reads the entity in
    # its sentence the same way; otherwise the system's label stays.
    referee: str | None = None
    # Not in the paper: with ``candidates: referees`` no mutants are made and these pipelines
    # decide (:meth:`Relabeler._panel`).
    referees: tuple[str, ...] = ()
    # Not in the paper: with ``candidates: lm``, how the mutants' vote, the referee panel and the
    # name lists combine (:meth:`Relabeler._combine`); "" for the other sources.
    lm_rule: str = ""
    # Not in the paper: whether a relabel may add a name whose span begins with the article
    # "the" where the system predicted no entity of exactly that span (:func:`repaired`).
    add_with_article: bool = False
    # Not in the paper: a recogniser of another lineage (Stanford NER's CRF,
    # :mod:`~runner.tasks.ner.repair.crf_referee`) joins the panel (:func:`panel_decision`).
    crf_referee: str | None = None
    # Not in the paper: where the spaCy referees do not agree, whether the CRF's name reading
    # decides alone (True) or only with all the spaCy readings but one (:func:`panel_decision`).
    crf_decides_splits: bool = True
    # Not in the paper: whether the CRF's reading may be a category neither sentence gave the
    # entity, where one spaCy referee reads it so in both sentences too (:func:`panel_decision`).
    crf_beyond_pair: bool = False

    @classmethod
    def from_config(cls, cfg: dict[str, Any]) -> "Params":
        panel = cfg.get("candidates") == "referees"
        lm = cfg.get("candidates") == "lm"
        rule = str(cfg.get("lm_rule", "vote_with_referee")) if lm else ""
        uses_panel = panel or (lm and rule != "vote")
        return cls(cfg["PThreshold"], cfg["SThreshold"], cfg["k"], cfg["alpha"], cfg["lambda"],
                   int(cfg.get("min_votes", 1)), float(cfg.get("min_share", 0.0)),
                   str(cfg.get("vote_labels", "any")), bool(cfg.get("gazetteer", False)),
                   None if (panel or lm) else cfg.get("referee"),
                   tuple(cfg.get("referees") or ()) if uses_panel else (), rule,
                   bool(cfg.get("add_with_article", False)),
                   (cfg.get("crf_referee") or None) if uses_panel else None,
                   bool(cfg.get("crf_decides_splits", True)),
                   bool(cfg.get("crf_beyond_pair", False)))

    def crf_rules(self) -> dict[str, bool]:
        """The CRF referee's rule settings, for the run's record (none without a CRF)."""
        return ({"crf_decides_splits": self.crf_decides_splits,
                 "crf_beyond_pair": self.crf_beyond_pair} if self.crf_referee else {})


class Relabeler:
    """Algorithm 1 for many suspicious entities at once: one candidate-source call, one encoder
    call (``span_similarity``) and one system call for all their mutants. Without a candidate
    source (``candidates: referees``) the referee panel decides instead: one pass of each of
    its pipelines over the sentences of all the jobs."""

    def __init__(self, source: CandidateSource | None, encoder: Any, sut: Any, params: Params,
                 max_examples: int = 5) -> None:
        from runner.nlp import NOT_FOR_ENTITIES, load_spacy

        self.source = source
        self.encoder = encoder
        self.sut = sut
        self.params = params
        self.max_examples = max_examples
        self.mutants_queried = 0
        self.referee_nlp = None
        if params.referee:
            self.referee_nlp = load_spacy(params.referee, exclude=NOT_FOR_ENTITIES)
        self.panel = {name: load_spacy(name, exclude=NOT_FOR_ENTITIES)
                      for name in params.referees}
        self.crf = None
        if params.crf_referee:
            from runner.tasks.ner.repair.crf_referee import crf_referee

            self.crf = crf_referee(params.crf_referee)

    def describe(self) -> dict[str, Any]:
        if self.source is not None and self.params.lm_rule:
            from runner.nlp import pipeline_info

            return {**self.source.describe(), "rule": self.params.lm_rule,
                    "referees": self._referees_info()}
        if self.source is not None:
            return self.source.describe()
        from runner.nlp import pipeline_info

        return {"candidates": "referees", "referees": self._referees_info(),
                "decision": PANEL_DECISION if self.crf is None
                else crf_decision(self.params.crf_decides_splits,
                                  self.params.crf_beyond_pair)}

    def _referees_info(self) -> list[dict[str, Any]]:
        from runner.nlp import pipeline_info

        return [{"model": name, **pipeline_info(nlp)} for name, nlp in self.panel.items()] + \
            ([self.crf.describe()] if self.crf is not None else [])

    def relabel(self, jobs: Sequence[Job]) -> dict[Job, Relabel]:
        jobs = list(dict.fromkeys(jobs))
        results = {j: Relabel(j) for j in jobs}
        if not jobs:
            return results
        if self.params.lm_rule:
            self._combine(jobs, results)
            return results
        if self.panel:
            self._panel(results.values())
        elif self.source is not None:
            self._vote(jobs, results)
        for r in results.values():
            if r.decided:
                r.basis = r.basis or ("referees" if r.agreed else "vote")
        if self.params.gazetteer:
            self._gazetteer([r for r in results.values() if not r.agreed and not r.vetoed],
                            p_score=1.0 if self.panel else None,
                            crf=self.crf.name if self.crf is not None else None)
        if self.referee_nlp is not None:
            self._referee(results.values())
        return results

    def _panel(self, results: Iterable[Relabel]) -> None:
        """Departure from TIN for offline use, in place of the vote: each referee (a spaCy
        pipeline trained apart from the system) reads the entity in the job's sentence and in
        its partner, the violation's other sentence (PERSON; GPE, LOC, FAC as LOCATION; ORG as
        ORGANIZATION; anything else, or no entity of exactly that extent, as NULL). The relabel
        is that reading when all the readings agree and it is one of the two categories the
        sentences dispute; otherwise the system's label stays. Both sentences of a violation
        thus get the same answer, and an entity the referees do not all read alike is left
        alone: on the gold sets, one referee's reading fixed about as many labels as it broke.
        Its p_score (for range conflicts) is 1."""
        from runner.nlp import doc_store

        results = list(results)
        texts = list(dict.fromkeys([r.job.text for r in results]
                                   + [r.job.partner[0] for r in results if r.job.partner]))
        for name, nlp in self.panel.items():
            docs = dict(zip(texts, doc_store(nlp).docs(texts, ["ner"])))
            for r in results:
                r.readings[name] = [referee_type(docs[t], a, b) or NULL for t, a, b in _where(r)]
        if self.crf is not None:
            from runner.tasks.ner.repair.crf_referee import reading

            found = dict(zip(texts, self.crf.read(texts)))
            for r in results:
                r.readings[self.crf.name] = [reading(found[t], a, b) or NULL
                                             for t, a, b in _where(r)]
        for r in results:
            crf = r.readings.get(self.crf.name) if self.crf is not None else None
            spacy = [x for name, xs in r.readings.items() if name in self.panel for x in xs]
            alike = [_both(xs) for name, xs in r.readings.items() if name in self.panel]
            label, how = panel_decision(spacy, crf, r.job.disputed,
                                         splits=self.params.crf_decides_splits,
                                         beyond=self.params.crf_beyond_pair, alike=alike)
            if label is not None:
                r.agreed, r.label, r.p_score = True, None if label == NULL else label, 1.0
                r.basis = how
            else:
                r.vetoed = how == "vetoed"
                r.abstained = ("the referees read it " if not r.vetoed else
                               "vetoed: the referees read it ") + "; ".join(
                    f"{name}: {' / '.join(xs)}" for name, xs in r.readings.items())

    def _referee(self, results: Iterable[Relabel]) -> None:
        """A relabel the vote decided stands only when the referee reads the entity, in its
        sentence, as the vote does (a name the lists typed is not asked)."""
        from runner.nlp import doc_store

        asked = [r for r in results if r.decided and r.gazetteer is None]
        texts = list(dict.fromkeys(r.job.text for r in asked))
        docs = dict(zip(texts, doc_store(self.referee_nlp).docs(texts, ["ner"])))
        for r in asked:
            kind = referee_type(docs[r.job.text], r.job.start, r.job.end)
            if kind != r.label:
                r.abstained = (f"the referee ({self.params.referee}) reads it as "
                               f"{kind or 'no name'}")

    def _vote(self, jobs: list[Job], results: dict[Job, Relabel]) -> None:
        # candidates lm: p is the mutant's perplexity rise in percent (lower is better), the
        # entity itself is unchanged, so no encoder similarity: sim counts as 0 (F = p' with
        # p' = 1 / (1 + rise/100) = exp(−ε), the perplexity ratio)
        context = getattr(self.source, "name", "") == "lm"
        survivors: list[Mutant] = []
        for job, mutants in zip(jobs, self.source.mutants(jobs)):
            r = results[job]
            for m in mutants:
                r.proposed += 1
                if not same_format(m.replaced, m.by):
                    r.dropped["format"] += 1
                elif (m.p > self.params.PThreshold) if context else \
                        (m.p < self.params.PThreshold):
                    r.dropped["p"] += 1
                else:
                    survivors.append(m)
        if not survivors:
            return
        if context:
            sims = [0.0] * len(survivors)
        else:
            sims = self.encoder.span_similarity([((m.job.text, m.job.start, m.job.end),
                                                  (m.text, m.start, m.end)) for m in survivors])
        kept = []
        for m, sim in zip(survivors, sims):
            if not context and not (sim >= self.params.SThreshold):   # NaN is dropped too
                results[m.job].dropped["sim"] += 1
            else:
                kept.append((m, sim))
        if not kept:
            return
        # A system that can fail per text (a remote service) gives a failure in place of a
        # prediction: that mutant has no vote, and the run goes on.
        predict = getattr(self.sut, "predict_outcomes", None) or self.sut.predict
        predictions = predict([m.text for m, _ in kept])
        self.mutants_queried += len(kept)
        P = self.params
        for (m, sim), pred in zip(kept, predictions):
            r = results[m.job]
            if not hasattr(pred, "spans"):
                r.dropped["system_error"] = r.dropped.get("system_error", 0) + 1
                continue
            label = label_at(pred.spans, m.start, m.end)
            r.kept += 1
            key = label if label is not None else NULL
            if P.vote_labels == "disputed" and m.job.disputed and key not in m.job.disputed:
                r.dropped["label"] = r.dropped.get("label", 0) + 1
                continue
            r.votes += 1
            p = 1.0 / (1.0 + m.p / 100.0) if context else m.p
            r.scores[key] = r.scores.get(key, 0.0) + evaluate(
                p, sim, null=label is None, subword=m.subword, k=P.k, alpha=P.alpha, lam=P.lam)
            if len(r.examples) < self.max_examples:
                r.examples.append({"entity": m.text[m.start:m.end], "replaced": m.replaced,
                                   "by": m.by, "p": round(m.p, 3), "sim": round(float(sim), 3),
                                   "label": key})
        for r in results.values():
            if r.scores:
                best = min(r.scores.items(), key=lambda kv: (-kv[1], kv[0]))
                r.label = None if best[0] == NULL else best[0]
                r.p_score = best[1]
                share = r.shares().get(best[0], 0.0)
                if r.votes < P.min_votes or share < P.min_share:
                    r.abstained = (f"{r.votes} vote(s), top share {share:.2f} (min_votes "
                                   f"{P.min_votes}, min_share {P.min_share})")

    def _combine(self, jobs: list[Job], results: dict[Job, Relabel]) -> None:
        """``candidates: lm`` (not in the paper): the mutants' vote (:meth:`_vote`, its
        ``min_votes``, ``min_share``, ``vote_labels``), the referee panel (:meth:`_panel`) and the
        name lists (``gazetteer``) combined by ``lm_rule``; the evidence that decided is recorded
        in ``basis``:

        - ``vote`` — the vote alone; a name the lists know takes their type (``gazetteer``);
        - ``referees_then_vote`` — the panel when it agrees (as ``candidates: referees``), else
          the name lists, else the vote;
        - ``vote_with_referee`` — the panel when it agrees, else the name lists, else the vote
          when at least one referee reads the entity, in this sentence, as the vote does;
        - ``referees_or_vote_agree`` — the panel when it agrees, else the name lists, else the
          vote when it names one of the two disputed categories and no referee reads the entity
          in either sentence as the other one."""
        # One vote per suspicious entity of a violation, on mutants of the first of its two
        # sentences asked (the source: the analyzer asks for it first), shared by its partner:
        # the entity's type is one in both sentences, and the LM's passes are the cost.
        voters: dict[frozenset, Job] = {}
        for j in jobs:
            voters.setdefault(_pair(j), j)
        votes = {j: Relabel(j) for j in voters.values()}
        self._vote(list(votes), votes)
        votes = {j: votes[voters[_pair(j)]] for j in jobs}
        rule = self.params.lm_rule
        if self.panel and rule != "vote":
            self._panel(results.values())
        for j in jobs:
            r, v = results[j], votes[j]
            r.scores, r.proposed, r.kept, r.dropped = v.scores, v.proposed, v.kept, v.dropped
            r.examples, r.votes = v.examples, v.votes
            r.vote = (v.label or NULL) if v.decided else ""
            if r.agreed:
                # outranks any vote in a range conflict (the name lists too)
                r.basis, r.p_score = r.basis or "referees", 1000.0
        if self.params.gazetteer:
            self._gazetteer([r for r in results.values() if not r.agreed and not r.vetoed],
                            p_score=1000.0, crf=self.crf.name if self.crf is not None else None)
        for j in jobs:
            r, v = results[j], votes[j]
            if r.agreed or r.gazetteer:
                continue
            panel_note = r.abstained
            r.abstained = ""
            if not v.decided:
                r.abstained = "; ".join(x for x in (panel_note, v.abstained or "no vote") if x)
                continue
            winner = v.label or NULL
            ok, basis = True, "vote"
            if rule == "vote_with_referee":
                here = [xs[0] for xs in r.readings.values()]
                ok, basis = winner in here, "vote+referee"
            elif rule == "referees_or_vote_agree":
                other = [d for d in j.disputed if d != winner]
                seen = {x for xs in r.readings.values() for x in xs}
                ok = (not j.disputed or winner in j.disputed) and not (set(other) & seen)
            if ok:
                r.label, r.p_score, r.basis = v.label, v.p_score, basis
            else:
                r.abstained = (f"the vote ({winner}) is not confirmed: "
                               + (panel_note or "no referee reading"))

    @staticmethod
    def _gazetteer(results: Iterable[Relabel], p_score: float | None = None,
                   crf: str | None = None) -> None:
        """A name the offline lists know takes their type, vote or no vote (with the referee
        panel: unless all the referees agreed, which the caller leaves out); its p_score (for
        range conflicts) is ``p_score``, else the whole vote's score, so it outranks any one
        category of a vote. With a CRF referee (``crf``, its name in the readings), not where
        it reads the entity otherwise in both sentences (no entity there included)."""
        from runner.tasks.ner.repair.gazetteer import name_type

        for r in results:
            typ = name_type(r.job.text[r.job.start:r.job.end])
            if typ is None:
                continue
            both = _both(r.readings.get(crf) if crf else None)
            if both is not None and both != typ:
                r.abstained = (f"the name lists say {typ}; {crf} reads it {both} in both "
                               f"sentences")
                continue
            r.gazetteer, r.label, r.abstained, r.basis = typ, typ, "", "gazetteer"
            r.p_score = sum(r.scores.values()) if p_score is None else p_score


PANEL_DECISION = ("no mutants: the relabel is the referees' reading when all of them read the "
                  "entity alike in both sentences and it is one of the two disputed categories")


def crf_decision(splits: bool, beyond: bool = False) -> str:
    """How the panel with a CRF referee decides, in words (the run's record)."""
    split = ("when it names a type; \"no entity\" when all the spaCy readings but at most one "
             "agree" if splits else "when all the spaCy readings but at most one agree")
    third = ("; or, when it is neither disputed category, where one spaCy referee reads it so "
             "in both sentences too" if beyond else "")
    return ("no mutants: the spaCy referees' reading when all of them read the entity alike in "
            "both sentences, it is one of the two disputed categories and the CRF referee does "
            "not read the other one in both; else the CRF's reading in both sentences, when it "
            f"is a disputed category, {split}{third}; else the name lists' type unless the CRF "
            "reads it otherwise in both")


def panel_decision(spacy: Sequence[str], crf: Sequence[str] | None,
                   disputed: Sequence[str], *, splits: bool = True, beyond: bool = False,
                   alike: Sequence[str | None] = ()) -> tuple[str | None, str]:
    """The panel's reading of an entity (NULL: no entity) and which evidence decided it:
    ``referees`` (every spaCy reading alike and a disputed category), ``referees+crf`` (the CRF
    referee's reading, alike in both sentences and a disputed category, where the spaCy readings
    do not agree on a disputed one: with ``splits`` a name's type decides alone and "no entity"
    needs every spaCy reading but at most one; without, either needs that), ``crf+referee``
    (with ``beyond``: the CRF's reading in both sentences is neither disputed category, and one
    spaCy referee reads it so in both sentences too); or None and ``vetoed`` (the spaCy readings
    agree, but the CRF reads the other disputed category in both sentences) or "" (no
    decision). ``spacy``: the spaCy referees' readings in both sentences; ``alike``: each spaCy
    referee's one reading in both sentences (None where its readings differ); ``crf``: the
    CRF's, or None without one. Chosen on the tuning sets (docs/pages/repair.md, `repair-crf`
    and `repair-crf-splits` figures), then frozen; ``beyond``, chosen there too, raised Cor2Err
    above a tenth on the measuring sets and is off by default (`repair-crf-beyond`)."""
    def fits(x: str) -> bool:
        return not disputed or x in disputed

    both = _both(crf)
    seen = set(spacy)
    if len(seen) == 1 and fits(agreed := next(iter(seen))):
        if both is not None and both != agreed and disputed and both in disputed:
            return None, "vetoed"
        return agreed, "referees"
    if both is not None and fits(both) and spacy and (
            (splits and both != NULL) or list(spacy).count(both) >= len(spacy) - 1):
        return both, "referees+crf"
    if beyond and both is not None and not fits(both) and both in alike:
        return both, "crf+referee"
    return None, ""


def _both(readings: Sequence[str] | None) -> str | None:
    """The one reading a referee gives in every sentence, or None."""
    return readings[0] if readings and len(set(readings)) == 1 else None


def _where(r: Relabel) -> list[tuple[str, int, int]]:
    """The entity's place in the job's sentence and in its partner."""
    return [(r.job.text, r.job.start, r.job.end)] + ([r.job.partner] if r.job.partner else [])


def _pair(job: Job) -> frozenset:
    """A job and its partner's job have one key (the entity's two occurrences)."""
    return frozenset([(job.text, job.start, job.end), job.partner or (job.text, job.start,
                                                                        job.end)])


def referee_type(doc: Any, start: int, end: int) -> str | None:
    """The common type a referee's entity exactly at ``start:end`` has (a leading "the" aside),
    or None: no entity there, one of another extent, or of another type than the three."""
    from runner.nlp import ONTONOTES_TYPES, entity_readings

    for a, b, label in entity_readings(doc):
        if (a, b) == (start, end):
            return ONTONOTES_TYPES.get(label)
    return None


def repaired(prediction: Sequence[Span], relabels: Sequence[Relabel], *,
             add_with_article: bool = False) -> tuple[tuple[Span, ...], list[dict[str, Any]]]:
    """R(s): the prediction with each decided relabel applied, range conflicts resolved.

    Not in the paper: unless ``add_with_article``, a relabel that would add a name whose span
    begins with the article "the" ("the University of Toronto"), where the system predicted no
    entity of exactly that span in this sentence, is not applied. Such a span comes from the
    system's reading of the violation's other sentence, with the article the system put in;
    names leave it out (CoNLL, OntoNotes), so adding it put a wrong range in place of a right
    "no entity here". On the ten gold sets it was read off, it kept 19 correct occurrences of
    981 from being broken and changed no fix (bench/repair_article.py).

    Relabelled entities (not NULL) whose spans overlap: the one with the lower p_score is
    deprecated (TIN Fig. 6), except that of two with the same type the one whose span the
    system predicted in this sentence is kept (not in the paper: the type is agreed, and the
    other range came from the violation's other sentence; on the measured gold sets this took
    Cor2Err from 27.6 to 23.8 % and 21.8 to 18.2 %, and "Destiny Allison" is no longer cut to
    "Allison"). A kept relabelled entity replaces every predicted span it overlaps;
    a NULL relabel removes the span predicted exactly there. Returns R(s) and, per relabel, what
    happened to it."""
    whole = {(s.start, s.end) for s in prediction}
    held = set() if add_with_article else {
        id(r) for r in relabels if r.decided and r.label is not None
        and r.job.text.startswith("the ", r.job.start) and (r.job.start, r.job.end) not in whole}
    decided = [r for r in relabels if r.decided and id(r) not in held]
    entities = sorted((r for r in decided if r.label is not None),
                      key=lambda r: (-r.p_score, r.job.start, r.job.end))
    kept: list[Relabel] = []
    deprecated: dict[int, Relabel] = {}
    own = {(s.start, s.end, s.label) for s in prediction}
    for r in entities:
        rival = next((k for k in kept if r.job.start < k.job.end and k.job.start < r.job.end), None)
        if rival is None:
            kept.append(r)
        elif (rival.label == r.label and (r.job.start, r.job.end, r.label) in own
              and (rival.job.start, rival.job.end, rival.label) not in own):
            kept[kept.index(rival)] = r
            deprecated[id(rival)] = r
        else:
            deprecated[id(r)] = rival
    nulls = [r for r in decided if r.label is None]
    spans = [s for s in prediction
             if not any(s.start < k.job.end and k.job.start < s.end for k in kept)
             and not any((s.start, s.end) == (n.job.start, n.job.end) for n in nulls)]
    spans += [Span(r.job.start, r.job.end, r.label, "", r.p_score) for r in kept]
    final = tuple(sorted(set(spans)))
    notes = []
    for r in relabels:
        note = {"text": r.job.text[r.job.start:r.job.end], "start": r.job.start, "end": r.job.end,
                "before": label_at(prediction, r.job.start, r.job.end) or NULL,
                "after": label_at(final, r.job.start, r.job.end) or NULL, **r.to_json()}
        if id(r) in held:
            note["not_added"] = "the span begins with the article 'the', which names leave out"
        if id(r) in deprecated:
            winner = deprecated[id(r)]
            note["deprecated_by"] = {"text": winner.job.text[winner.job.start:winner.job.end],
                                     "p_score": round(winner.p_score, 4)}
        notes.append(note)
    return final, notes
