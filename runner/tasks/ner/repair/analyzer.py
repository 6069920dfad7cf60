"""What the engine calls after each batch's verdicts: error categories for every violation,
repair of both sentences when ``repair.enabled``, and gold metrics when the corpus has gold spans.

All the batch's suspicious entities are relabelled together
(:class:`~runner.tasks.ner.repair.relabel.Relabeler`): one masked-LM pass per chunk, one encoder
call and one system call for every mutant sentence of the batch.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Callable, Sequence

from runner.tasks.ner.repair.categories import (CATEGORIES, against_reference,
                                                between_predictions, ordered)
from runner.tasks.ner.repair.gold import GoldTally, project_gold, same_entities
from runner.tasks.ner.repair.locate import locate
from runner.tasks.ner.repair.mutants import CorpusEntityCandidates, Job, MaskedLMCandidates
from runner.tasks.ner.repair.relabel import NULL, Params, Relabeler, repaired
from runner.tasks.ner.types import Prediction, Sentence
from runner.types import Outcome, TestCase


class Stats:
    """What the analyzer counts; one for the batch in progress, one for the batches recorded."""

    def __init__(self) -> None:
        self.categories: Counter[str] = Counter()
        self.basis: Counter[str] = Counter()
        self.gold = GoldTally()
        self.has_gold = False
        self.repairs = 0                 # sentences with R(x) ≠ N(x)
        self.entities_relabelled = 0     # suspicious entity occurrences whose type changed
        self.suspicious = 0              # suspicious entity occurrences (one in s, one in s′)
        self.mutants_queried = 0

    _INTS = ("repairs", "entities_relabelled", "suspicious", "mutants_queried")

    def merge(self, other: "Stats") -> None:
        self.categories.update(other.categories)
        self.basis.update(other.basis)
        self.gold.merge(other.gold)
        self.has_gold = self.has_gold or other.has_gold
        for k in self._INTS:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def state(self) -> dict[str, Any]:
        return {"categories": dict(self.categories), "basis": dict(self.basis),
                "gold": self.gold.state(), "has_gold": self.has_gold,
                **{k: getattr(self, k) for k in self._INTS}}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "Stats":
        st = cls()
        st.categories.update(state.get("categories", {}))
        st.basis.update(state.get("basis", {}))
        st.gold = GoldTally.from_state(state.get("gold", {}))
        st.has_gold = bool(state.get("has_gold"))
        for k in cls._INTS:
            setattr(st, k, int(state.get(k, 0)))
        return st


class ViolationAnalyzer:
    """Per batch: ``observe`` the sources, ``process`` the cases, then ``checkpoint`` once the
    batch is recorded (only recorded batches count in :meth:`results`; the checkpoint goes into
    the run's progress file, and :meth:`restore_from_progress` takes it back on ``--resume``)."""

    def __init__(self, relabeler: Relabeler | None = None, backend: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        self.relabeler = relabeler
        self.backend = backend
        self.params = params or {}
        self.done = Stats()
        self.pending = Stats()
        self._pool_added: list[str] = []

    @classmethod
    def from_config(cls, cfg: dict[str, Any], sut: Any,
                    log: Callable[[str], None] = lambda m: None) -> "ViolationAnalyzer":
        rc = cfg["repair"]
        if not rc["enabled"]:
            return cls()
        from runner.models import get_encoder, get_masked_lm

        device = cfg["device"]
        if rc["candidates"] == "lm":
            return cls._lm_from_config(rc, device, sut, log)
        panel = rc["candidates"] == "referees"
        by_name = rc["candidates"] == "corpus" and rc["corpus_score"] in ("similarity", "contexts")
        params = Params.from_config(rc)
        if panel:
            # No mutants, so no masked LM, no encoder and no system calls: the panel decides.
            log(f"loading repair referees: {', '.join(rc['referees'])}"
                + (f", CRF {params.crf_referee}" if params.crf_referee else ""))
        else:
            log(f"loading repair models: {'' if by_name else 'masked LM ' + rc['masked_lm'] + ', '}"
                f"encoder {rc['encoder']}")
            # The name-similarity score needs no masked LM: none is loaded.
            mlm = None if by_name else get_masked_lm(rc["masked_lm"], device=device)
            encoder = get_encoder(rc["encoder"], device=device)
        if rc.get("gazetteer"):
            from runner.tasks.ner.repair import gazetteer

            log("loading repair name lists: GeoNames, first names, WordNet 3.0")
            gazetteer.load()
        if panel:
            return cls(Relabeler(None, None, sut, params),
                       "referees:" + "+".join(rc["referees"])
                       + (f"+crf:{params.crf_referee}" if params.crf_referee else ""),
                       {**{k: rc[k] for k in ("candidates", "referees", "gazetteer")},
                        "crf_referee": params.crf_referee,
                        **params.crf_rules(),
                        "add_with_article": params.add_with_article})
        if rc["candidates"] == "corpus":
            source: Any = CorpusEntityCandidates(mlm, rc["top_k"], score=rc["corpus_score"],
                                                 encoder=encoder)
        else:
            source = MaskedLMCandidates(mlm, rc["top_k"])
        backend = (f"corpus:{rc['corpus_score']}:{rc['encoder']}" if by_name
                   else f"{rc['candidates']}:{rc['masked_lm']}")
        recorded = {k: rc[k] for k in ("candidates", "corpus_score", "masked_lm", "encoder",
                                       "top_k", "PThreshold", "SThreshold", "k", "alpha",
                                       "lambda", "min_votes", "min_share", "vote_labels",
                                       "gazetteer", "referee")}
        recorded["add_with_article"] = params.add_with_article
        return cls(Relabeler(source, encoder, sut, params), backend, recorded)

    @classmethod
    def _lm_from_config(cls, rc: dict[str, Any], device: str, sut: Any,
                        log: Callable[[str], None]) -> "ViolationAnalyzer":
        """``candidates: lm``: context mutants from the causal LM (no masked LM, no encoder),
        with the referee panel unless ``lm_rule`` is ``vote``."""
        from runner.models import get_lm
        from runner.tasks.ner.repair.mutants import LMContextCandidates

        params = Params.from_config(rc)
        log(f"loading repair LM {rc.get('lm', 'smollm2')}"
            + (f", referees {', '.join(params.referees)}" if params.referees else ""))
        lm = get_lm(rc.get("lm", "smollm2"), device=device, fp16=True)
        if rc.get("gazetteer"):
            from runner.tasks.ner.repair import gazetteer

            log("loading repair name lists: GeoNames, first names, WordNet 3.0")
            gazetteer.load()
        source = LMContextCandidates(lm, rc["top_k"], int(rc.get("context_words", 2)))
        keys = ("candidates", "lm", "context_words", "top_k", "PThreshold", "alpha", "min_votes",
                "min_share", "vote_labels", "gazetteer", "lm_rule")
        out = {k: rc.get(k) for k in keys}
        out["add_with_article"] = params.add_with_article
        if params.referees:
            out["referees"] = list(params.referees)
        if params.crf_referee:
            out["crf_referee"] = params.crf_referee
        out.update(params.crf_rules())
        return cls(Relabeler(source, None, sut, params),
                   f"lm:{rc.get('lm', 'smollm2')}:{params.lm_rule}", out)

    # -- per batch -------------------------------------------------------------------------
    def observe(self, batch: Sequence[Sentence], predictions: Sequence[Prediction]) -> None:
        """The batch's sources and their predictions (the corpus candidate pool grows here)."""
        src = self.relabeler.source if self.relabeler else None
        if isinstance(src, CorpusEntityCandidates):
            ok = [(s.text, p) for s, p in zip(batch, predictions) if hasattr(p, "spans")]
            self._pool_added += src.observe([t for t, _ in ok], [p for _, p in ok])

    def checkpoint(self) -> dict[str, Any]:
        """The batch just processed is recorded: count it. Returns what a resumed run needs
        (the totals so far and the entities this batch added to the candidate pool)."""
        self.done.merge(self.pending)
        self.pending = Stats()
        added, self._pool_added = self._pool_added, []
        return {"stats": self.done.state(), "pool_added": added}

    def restore_from_progress(self, path: Any) -> None:
        """Take back the totals and the candidate pool of the batches recorded in a progress
        file (``--resume``): the last batch line's totals, every batch line's pool entries."""
        from runner.checkpoint import batch_analyses

        last = None
        src = self.relabeler.source if self.relabeler else None
        for last in batch_analyses(path):
            if isinstance(src, CorpusEntityCandidates):
                for e in last.get("pool_added", []):
                    src.restore(e)
        self.done = Stats.from_state(last["stats"]) if last else Stats()
        self.pending = Stats()

    def process(self, cases: list[TestCase]) -> list[TestCase]:
        self.pending.gold._seen.clear()      # an entity occurrence counts once per batch
        failing = [i for i, c in enumerate(cases) if c.verdict.outcome is Outcome.FAIL]
        if not failing:
            return cases
        queried = self.relabeler.mutants_queried if self.relabeler else 0
        located = {i: locate(cases[i].source.text, cases[i].source_prediction.spans,
                             cases[i].follow_up.text, cases[i].follow_up_prediction.spans)
                   for i in failing}
        relabels: dict[Job, Any] = {}
        if self.relabeler is not None:
            jobs = []
            for i, found in located.items():
                c = cases[i]
                for e in found:
                    jobs += _jobs(c, e)
            relabels = self.relabeler.relabel(jobs)
        if self.relabeler is not None:
            self.pending.mutants_queried += self.relabeler.mutants_queried - queried
        out = list(cases)
        for i in failing:
            out[i] = self._analyse(cases[i], located[i], relabels)
        return out

    def _analyse(self, c: TestCase, found: list, relabels: dict[Job, Any]) -> TestCase:
        s_text, f_text = c.source.text, c.follow_up.text
        n_s, n_f = c.source_prediction.spans, c.follow_up_prediction.spans
        self.pending.suspicious += 2 * len(found)      # each located entity, in s and in s′
        repair = None
        r_s, r_f = n_s, n_f
        if self.relabeler is not None:
            art = self.relabeler.params.add_with_article
            r_s, notes_s = repaired(n_s, [relabels[_jobs(c, e)[0]] for e in found],
                                    add_with_article=art)
            r_f, notes_f = repaired(n_f, [relabels[_jobs(c, e)[1]] for e in found],
                                    add_with_article=art)
            changed_s, changed_f = not same_entities(r_s, n_s), not same_entities(r_f, n_f)
            self.pending.repairs += changed_s + changed_f
            self.pending.entities_relabelled += sum(n["before"] != n["after"] for n in notes_s + notes_f)
            repair = {
                "suspicious": [e.text for e in found],
                "source": {"repaired": changed_s, "before": _spans(n_s, s_text),
                           "after": _spans(r_s, s_text), "entities": notes_s},
                "follow_up": {"repaired": changed_f, "before": _spans(n_f, f_text),
                              "after": _spans(r_f, f_text), "entities": notes_f},
            }
        gold_s = c.source.gold
        gold_f = project_gold(gold_s, c.follow_up.edit) if gold_s is not None else None
        gold_info = None
        if gold_s is not None:
            self.pending.has_gold = True
            ok_s = same_entities(n_s, gold_s)
            ok_f = None if gold_f is None else same_entities(n_f, gold_f)
            error = self.pending.gold.add_violation(ok_s, ok_f)
            gold_info = {"follow_up": None if gold_f is None else [s.to_json() for s in gold_f],
                         "source_correct": ok_s, "follow_up_correct": ok_f, "error": error}
            if self.relabeler is not None:
                outcomes = []
                for e in found:
                    outcomes.append(self.pending.gold.add_entity(s_text, e.source.start, e.source.end,
                                                         gold_s, n_s, r_s))
                    if gold_f is not None:
                        outcomes.append(self.pending.gold.add_entity(f_text, e.follow_up.start,
                                                             e.follow_up.end, gold_f, n_f, r_f))
                gold_info["repair_outcomes"] = [o for o in outcomes if o]
        # Categories: against gold when known for both sentences, else against the repair when it
        # changed something, else between the two predictions.
        if gold_s is not None and gold_f is not None:
            cats, basis = against_reference(n_s, gold_s) | against_reference(n_f, gold_f), "gold"
        elif repair and (repair["source"]["repaired"] or repair["follow_up"]["repaired"]):
            cats, basis = against_reference(n_s, r_s) | against_reference(n_f, r_f), "repair"
        else:
            cats, basis = set(), ""
        if not cats:
            cats = between_predictions(s_text, n_s, f_text, n_f, c.follow_up.edit)
            basis = "predictions"
        cats_list = ordered(cats)
        self.pending.basis[basis] += 1
        self.pending.categories.update(cats_list)
        verdict = dataclasses.replace(c.verdict, categories=tuple(cats_list), categories_basis=basis)
        extra: dict[str, Any] = {}
        if repair is not None:
            extra["repair"] = repair
        if gold_info is not None:
            extra["gold"] = gold_info
        return dataclasses.replace(c, verdict=verdict, **extra)

    # -- results ---------------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        """Top-level results over the recorded batches."""
        d = self.done
        out: dict[str, Any] = {"categories": {k: d.categories[k] for k in CATEGORIES},
                               "categories_basis": dict(d.basis)}
        if self.relabeler is not None or d.has_gold:
            rep: dict[str, Any] = {"enabled": self.relabeler is not None, "backend": self.backend}
            if self.relabeler is not None:
                rep.update(repairs=d.repairs, suspicious_entities=d.suspicious,
                           entities_relabelled=d.entities_relabelled,
                           mutants_queried=d.mutants_queried,
                           candidates=self.relabeler.describe(), params=self.params)
            if d.has_gold:
                g = d.gold.to_json()
                if self.relabeler is None:
                    g = {k: g[k] for k in ("violations", "judged", "erroneous", "precision",
                                           "follow_up_gold_unknown")}
                rep["gold"] = g
            out["repair"] = rep
        return out


def _jobs(c: TestCase, e: Any) -> tuple[Job, Job]:
    """The relabel jobs of a suspicious entity: its occurrence in s and in s′, each with the two
    categories the sentences dispute."""
    disputed = tuple(sorted({e.source.label or NULL, e.follow_up.label or NULL}))
    s = (c.source.text, e.source.start, e.source.end)
    f = (c.follow_up.text, e.follow_up.start, e.follow_up.end)
    return Job(*s, disputed, f), Job(*f, disputed, s)


def _spans(spans: Sequence[Any], text: str) -> list[dict[str, Any]]:
    return [{**s.to_json(), "text": s.text_in(text)} for s in spans]
