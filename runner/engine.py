"""The run loop: corpus → source predictions → follow-ups → follow-up predictions → verdicts.

The loop knows no task: what an input, a prediction, an expected answer and a verdict are comes
from the suite's task (:class:`runner.tasks.base.Task`).

Sources are streamed in batches (``limits.batch_size``): each batch is predicted in one call, parsed
in one ``nlp.pipe``, and all its follow-ups are predicted in one call. Test cases are appended to
``cases.jsonl`` as they are decided and flushed per batch, so memory does not grow with the corpus
and an interrupted or crashed run loses nothing already decided.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from runner import __version__
from runner.models.loading import resolve_device
from runner.seeding import case_rng
from runner.suite import Suite
from runner.sut.base import SUTFailure
from runner.tasks.base import Corpus
from runner.timing import Stages, process_age
from runner.transforms.base import BatchItem
from runner.types import FollowUp, Outcome, TestCase, Verdict

CASES_FILE = "cases.jsonl"
ATTACKS_FILE = "attacks.jsonl"  # one record per attacked entity (runner/attacks)
PROGRESS_FILE = "progress.jsonl"  # one line per recorded batch: what --resume continues from
RESULTS_VERSION = 1


@dataclass
class Counts:
    sources: int = 0        # sources seen by the transformation
    applicable: int = 0     # sources that gave at least one follow-up
    follow_ups: int = 0
    outcomes: dict[str, int] = field(default_factory=lambda: {o.value: 0 for o in Outcome})

    def to_json(self, relation: str | None = None) -> dict[str, Any]:
        judged = self.outcomes["pass"] + self.outcomes["fail"]
        return {"sources": self.sources, "applicable_sources": self.applicable,
                "follow_ups": self.follow_ups, "cases": sum(self.outcomes.values()),
                **self.outcomes, "violations": self.outcomes["fail"],
                "violation_rate": (self.outcomes["fail"] / judged) if judged else None}


class Engine:
    def __init__(self, suite: Suite, out_dir: Path, *,
                 progress: Callable[[int, int | None], None] | None = None,
                 log: Callable[[str], None] = lambda msg: None,
                 resume: bool = False, use_cache: bool = True) -> None:
        self.resume = resume
        self.use_cache = use_cache
        self.store = None
        self.resumed_at: list[int] = []
        self.suite = suite
        self.task = suite.task
        self.cfg = suite.config
        self.out_dir = Path(out_dir)
        self.progress = progress or (lambda done, total: None)
        self.log = log
        self.counts: dict[tuple[str, str], Counts] = defaultdict(Counts)
        self.per_transformation: dict[str, Counts] = defaultdict(Counts)
        self.sources_done = 0
        self.total: int | None = None
        self.status = "not started"
        self.started = self.finished = time.time()
        self.sut = self.parser = self.attacks = None
        self._batch_attacks: list[dict[str, Any]] = []
        self.filters: list[Any] = []
        self.funnel: dict[str, dict[str, Any]] = {}
        self._batch_funnel: dict[str, dict[str, Any]] = {}
        # Set by a signal handler: the run stops cleanly after the batch in progress.
        self.stop_requested = False
        # Seconds per stage (results.json run.stages, `mtrun --timings`).
        self.stages = Stages()

    # -- building --------------------------------------------------------------------------
    def build(self, background: bool = True) -> None:
        """Build every component. With ``background`` the models of the filters and the
        analyzer load on a thread while the run begins (see :class:`Loader`)."""
        from runner.models import runtime
        from runner.nlp import Parser

        # Notices of the model layer (an ONNX Runtime copy being made, a model left on torch).
        runtime.set_notify(self.log)
        cfg = self.cfg
        registries = self.task.registries()
        SUTS, TRANSFORMATIONS = registries["sut"], registries["transformations"]
        RELATIONS, FILTERS = registries["relations"], registries["filters"]
        self.sut = self._make_sut()
        # spaCy pipelines run on the CPU here; only torch-based systems resolve `auto` (which
        # imports torch, so it is not done when nothing needs it).
        self.device = "cpu"
        if SUTS.get(cfg["sut"]["type"]).extra.get("device"):
            self.device = resolve_device(cfg["device"])
        self.store = self._open_cache()
        if self.store is not None:
            self.sut.store = self.store
            self.log(f"prediction cache: {self.store.path}")
        self.transformations = []
        for t in cfg["transformations"]:
            params = {k: v for k, v in t.items() if k not in ("type", "name")}
            params = self.task.transformation_params(self.suite, t, params)
            entry = TRANSFORMATIONS.get(t["type"])
            if entry.extra.get("models"):
                params["device"] = cfg["device"]
                self.log(f"loading models for {t['type']}")
            transformation = entry.factory(**params)
            # The suite's name for it (default: its type) is what follow-ups, counts and
            # reports carry.
            transformation.name = t.get("name", t["type"])
            self.transformations.append(transformation)
        # The filters' models (and the analyzer's, below) load on a background thread while
        # the first batch is read, run through the system and transformed; the first use of
        # one waits for it (a model that cannot be loaded raises there, before any batch is
        # recorded).
        loader = self._loader = Loader(background)
        self.filters = []
        for f in cfg["filters"]:
            params = {k: v for k, v in f.items() if k != "type"}
            params["device"] = cfg["device"]

            def make_filter(kind: str = f["type"], params: dict = params) -> Any:
                self.log(f"loading models for the {kind} filter")
                return FILTERS.get(kind).factory(**params)

            cls = FILTERS.get(f["type"]).component_class()
            known = cls.known_before_built(params) if hasattr(cls, "known_before_built") else {}
            self.filters.append(loader.defer(make_filter, known))
        if self.filters or any(TRANSFORMATIONS.get(t["type"]).extra.get("models")
                               for t in cfg["transformations"]):
            def device() -> None:
                self.device = resolve_device(cfg["device"])

            loader.defer(device)
        self.relations: dict[str, list[Any]] = defaultdict(list)
        self.relation_objects = []
        for r in cfg["relations"]:
            params = {k: v for k, v in r.items() if k not in ("type", "applies_to")}
            rel = RELATIONS.get(r["type"]).factory(**params)
            self.relation_objects.append(rel)
            for t in r["applies_to"]:
                self.relations[t].append(rel)
        self.parser = None
        if any(t.needs_parse for t in self.transformations):
            p = cfg["parser"]
            self.log(f"loading parser: {p['type']} {p['model']}")
            self.parser = Parser(p["model"], batch_size=p["batch_size"])
        self.analyzer = loader.defer(lambda: self.task.analyzer(cfg, self.sut, self.log))

        # Adversarial attacks (runner/attacks): a stage of its own after the metamorphic cases.
        self.attacks = None
        if cfg.get("attacks"):
            loader.wait()
            from runner.attacks.stage import AttackStage

            self.attacks = AttackStage.from_config(cfg, self.sut, base_dir=self.suite.base_dir,
                                                   log=self.log)
            self.device = resolve_device(cfg["device"])
            if self.attacks.needs_parse and self.parser is None:
                p = cfg["parser"]
                self.parser = Parser(p["model"], batch_size=p["batch_size"])

    def _make_sut(self) -> Any:
        return build_sut(self.suite, log=self.log)

    def _open_cache(self) -> Any:
        return open_cache(self.cfg, self.sut, enabled=self.use_cache)

    def corpus(self) -> Corpus:
        return self.task.corpus(self.suite)

    # -- running ---------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Run to the end (or until interrupted: KeyboardInterrupt propagates after the partial
        results are recorded in ``self.status``). Returns the run's results without cases."""
        limits = self.cfg["limits"]
        self.started = time.time()
        corpus = self.corpus()
        total = corpus.count()  # validates the whole corpus before any model is loaded
        if limits["max_sources"]:
            total = min(total, limits["max_sources"])
        self.total = total
        resume_key = self.resume_key()
        state = load_progress(self.out_dir, resume_key) if self.resume else None
        with self.stages("start-up: models"):
            self.build()
        if self.attacks is not None:
            self.attacks.prepare(lambda: iter(corpus), self.sut, limits["batch_size"])
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.status = "running"
        cases_path = self.out_dir / CASES_FILE
        progress_path = self.out_dir / PROGRESS_FILE
        attacks_path = self.out_dir / ATTACKS_FILE
        skip = 0
        if state is not None:
            # Continue after the last batch recorded whole; cases written after it (a batch cut
            # short by a kill) are cut off and that batch is run again.
            skip = self.sources_done = state["sources_done"]
            _restore(self.counts, state["counts"])
            _restore(self.per_transformation, state["per_transformation"])
            _merge_funnel(self.funnel, state.get("funnel", {}))
            self.sut.dropped_labels.update(state.get("dropped_labels", {}))
            self.resumed_at = state.get("resumed_at", []) + [skip]
            with cases_path.open("ab") as handle:
                handle.truncate(state["cases_bytes"])
            with attacks_path.open("ab") as handle:
                handle.truncate(state.get("attacks_bytes", 0))
            with progress_path.open("ab") as handle:
                handle.truncate(state["progress_bytes"])
            self.analyzer.restore_from_progress(progress_path)
            mode = "r+b"
            self.log(f"resuming after {skip} source(s) already done")
        else:
            mode = "wb"
            progress_path.write_text(json.dumps({"kind": "start", "key": resume_key}) + "\n",
                                     encoding="utf-8")
        with cases_path.open(mode) as sink, progress_path.open("a", encoding="utf-8") as marks, \
                attacks_path.open(mode) as attack_sink:
            sink.seek(0, os.SEEK_END)
            attack_sink.seek(0, os.SEEK_END)
            if state is not None:
                marks.write(json.dumps({"kind": "resume", "at": skip}) + "\n")
            try:
                sources = islice(iter(corpus), skip, total)
                batches = _batched(sources, limits["batch_size"])
                # Start-up: from the process's start to the first batch (models built).
                self.stages.add("start-up", process_age())
                for batch, (cases, counts, per_transformation) in self._execute(batches):
                    # A batch is recorded whole: its cases in one write, then its counts.
                    sink.write("".join(json.dumps(self.task.case_to_json(c), ensure_ascii=False)
                                       + "\n" for c in cases).encode("utf-8"))
                    sink.flush()
                    os.fsync(sink.fileno())
                    # The batch's attack records, likewise, before its progress mark.
                    attack_sink.write("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                              for r in self._batch_attacks).encode("utf-8"))
                    attack_sink.flush()
                    os.fsync(attack_sink.fileno())
                    _merge(self.counts, counts)
                    _merge(self.per_transformation, per_transformation)
                    _merge_funnel(self.funnel, self._batch_funnel)
                    self.sources_done += len(batch)
                    marks.write(json.dumps({
                        "kind": "batch", "sources_done": self.sources_done,
                        "cases_bytes": sink.tell(), "attacks_bytes": attack_sink.tell(),
                        "counts": _dump(self.counts),
                        "per_transformation": _dump(self.per_transformation),
                        "funnel": self.funnel,
                        "dropped_labels": dict(self.sut.dropped_labels),
                        "analysis": self.analyzer.checkpoint()}) + "\n")
                    marks.flush()
                    os.fsync(marks.fileno())
                    self.progress(self.sources_done, total)
                    if self.stop_requested:
                        raise KeyboardInterrupt
                self.status = "completed"
            except KeyboardInterrupt:
                self.status = "interrupted"
                raise
            finally:
                self.finished = time.time()
        return self.results()

    def _execute(self, batches: Iterator[list[Any]]
                 ) -> Iterator[tuple[list[Any], tuple[list[TestCase], dict, dict]]]:
        """Each batch with its cases and counts, in corpus order; the recording loop in
        :meth:`run` writes them. Another execution engine (``runner.execution``) overrides this
        (and :meth:`build`): it must leave ``self._batch_funnel`` and the analyzer's batch state
        as :meth:`_run_batch` would before yielding a batch."""
        a, b = self._split()
        if self.attacks is not None or a == b:
            for batch in batches:
                yield batch, self._run_batch(batch)
            return
        # Two stages in step: while the model-based filters judge batch k on a second thread,
        # this thread reads, runs through the system and transforms batch k+1 (the spaCy work),
        # then finishes batch k (system calls on its follow-ups, relations, analysis). Each
        # batch's computations are those of the one-thread loop above, so are its results.
        from concurrent.futures import ThreadPoolExecutor

        ahead = ThreadPoolExecutor(1, thread_name_prefix="mtrun-filters")
        pending: tuple[list[Any], dict[str, Any], Any] | None = None
        try:
            for batch in batches:
                state = self._front(batch)
                # Batch k+1's filters are queued before batch k is finished, so the model
                # threads have work while this thread runs batch k's system calls and analysis
                # (whose encoder passes queue behind them: the cores stay busy either way).
                future = ahead.submit(self._middle, state)
                if pending is not None:
                    yield pending[0], self._finish(pending)
                pending = (batch, state, future)
            if pending is not None:
                yield pending[0], self._finish(pending)
        finally:
            ahead.shutdown(wait=False, cancel_futures=True)

    def _finish(self, pending: tuple[list[Any], dict[str, Any], Any]
                ) -> tuple[list[TestCase], dict, dict]:
        batch, state, future = pending
        future.result()
        return self._after_judging(batch, self._back(state))

    def resume_key(self) -> str:
        """What must not change between a run and its --resume: the suite as filled (except where
        the reports go, the source limit, the cache and how a remote system is called) and the
        corpus's bytes."""
        cfg = {k: v for k, v in self.cfg.items()
               if k not in ("report", "cache", "description", "execution")}
        cfg["limits"] = {k: v for k, v in cfg["limits"].items() if k != "max_sources"}
        cfg["sut"] = {k: v for k, v in cfg["sut"].items() if k not in ("retry", "concurrency")}
        digest = hashlib.sha256(json.dumps(cfg, sort_keys=True, default=str).encode())
        with self.suite.corpus_path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()

    def _run_batch(self, batch: list[Any]) -> tuple[list[TestCase], dict, dict]:
        return self._after_judging(batch, self._judge_batch(batch))

    def _after_judging(self, batch: list[Any], judged: tuple[list[TestCase], dict, dict, list]
                       ) -> tuple[list[TestCase], dict, dict]:
        cases, counts, per_transformation, predictions = judged
        # The task's analysis of the violations (NER: error categories, repair, gold metrics).
        with self.stages("analysis (repair, categories)"):
            self.analyzer.observe(batch, predictions)
            cases = self.analyzer.process(cases)
        # Adversarial attacks on the batch's entities (NER): a stage of their own, recorded in
        # attacks.jsonl with the batch. The parse is the parser's cached one.
        if self.attacks is not None:
            with self.stages("attacks"):
                docs = (self.parser.parse_many([s.text for s in batch]) if self.parser
                        else [None] * len(batch))
                self._batch_attacks = self.attacks.run_batch(batch, predictions, docs)
        return cases, counts, per_transformation

    def _judge_batch(self, batch: list[Any]) -> tuple[list[TestCase], dict, dict, list]:
        """Everything of a batch that depends on the batch alone (sets ``self._batch_funnel``);
        the analyzer, which carries state from batch to batch, runs after it."""
        state = self._front(batch)
        self._middle(state)
        return self._back(state)

    def _split(self) -> tuple[int, int]:
        """Which filters run where, in the suite's order: ``filters[:a]`` with the
        transformations (they use the shared pipelines), ``filters[a:b]`` on another thread
        (``Filter.thread_safe``: the model-based ones, the longest run of them after the first
        ones), ``filters[b:]`` on the engine's thread again, before the system sees the
        follow-ups. A filter judges every follow-up on its own, so which thread runs it does not
        change what it keeps."""
        a = 0
        while a < len(self.filters) and not getattr(self.filters[a], "thread_safe", False):
            a += 1
        b = a
        while b < len(self.filters) and getattr(self.filters[b], "thread_safe", False):
            b += 1
        return a, b

    def _front(self, batch: list[Any]) -> dict[str, Any]:
        """The system's answers for the sources, their parse, every transformation's candidates
        and the filters that use the shared pipelines (all on the engine's thread)."""
        task = self.task
        seed = self.cfg["seed"]
        counts: dict[tuple[str, str], Counts] = defaultdict(Counts)
        per_transformation: dict[str, Counts] = defaultdict(Counts)
        stage = self.stages
        with stage("system: sources"):
            predictions = self.sut.predict_outcomes([task.sut_input(s) for s in batch])
        with stage("parse: sources"):
            docs = (self.parser.parse_many([s.text for s in batch]) if self.parser
                    else [None] * len(batch))
        answered = [n for n, p in enumerate(predictions) if not isinstance(p, SUTFailure)]
        position = {n: k for k, n in enumerate(answered)}
        # Each transformation sees the whole batch at once (one that combines sources needs it);
        # every source keeps its own generator, so per-source follow-ups do not depend on the
        # batch. The groups are then laid out source by source, as they are sent and filtered.
        made: dict[str, list[list[FollowUp]]] = {}
        own_checks: dict[str, dict[str, Any]] = {}
        for t in self.transformations:
            items = [BatchItem(batch[n], predictions[n],
                               case_rng(seed, batch[n].id, batch[n].text, t.name), docs[n])
                     for n in answered]
            with stage(f"candidates: {t.name}"):
                made[t.name] = t.generate_batch(items)
            # A transformation that checks its own candidates (CREST) says what it dropped.
            if hasattr(t, "take_funnel"):
                own_checks[t.name] = t.take_funnel()
        generated = []
        cases = []
        for n, (source, prediction) in enumerate(zip(batch, predictions)):
            if isinstance(prediction, SUTFailure):  # the system could not be queried
                cases += self._error_cases(source, prediction.reason, counts, per_transformation)
                continue
            k = position[n]
            for t in self.transformations:
                generated.append((source, prediction, t, made[t.name][k]))
        funnel = self._new_funnel(generated)
        generated = self._filter(generated, self.filters[:self._split()[0]], funnel)
        return {"predictions": predictions, "generated": generated, "funnel": funnel,
                "own_checks": own_checks, "cases": cases, "counts": counts,
                "per_transformation": per_transformation}

    def _middle(self, state: dict[str, Any]) -> None:
        """The filters that may run on another thread while the next batch's front runs."""
        a, b = self._split()
        state["generated"] = self._filter(state["generated"], self.filters[a:b], state["funnel"])

    def _back(self, state: dict[str, Any]) -> tuple[list[TestCase], dict, dict, list]:
        """The follow-ups kept, the system's answers for them, and the relations' verdicts."""
        task = self.task
        cap = self.cfg["limits"]["max_follow_ups_per_source"]
        stage = self.stages
        counts, per_transformation = state["counts"], state["per_transformation"]
        predictions, cases = state["predictions"], state["cases"]
        kept = self._filter(state["generated"], self.filters[self._split()[1]:], state["funnel"])
        self._batch_funnel = state["funnel"]
        for name, part in state["own_checks"].items():
            _prepend_own_checks(self._batch_funnel[name], part)
        groups = []
        for source, prediction, t, follow_ups in kept:
            over = len(follow_ups) - cap
            if over > 0:
                self._batch_funnel[t.name]["over_limit"] += over
            follow_ups = follow_ups[:cap]
            self._batch_funnel[t.name]["tested"] += len(follow_ups)
            for c in [per_transformation[t.name]] + [counts[(t.name, r.name)]
                                                     for r in self.relations[t.name]]:
                c.sources += 1
                c.applicable += bool(follow_ups)
                c.follow_ups += len(follow_ups)
            groups += [(source, prediction, f, k) for k, f in enumerate(follow_ups)]
        with stage("system: follow-ups"):
            follow_up_predictions = self.sut.predict_outcomes([g[2].input for g in groups])
        relations_started = time.perf_counter()
        for (source, prediction, follow_up, k), fp in zip(groups, follow_up_predictions):
            expected = task.expected(source, prediction, follow_up)
            failure = fp.reason if isinstance(fp, SUTFailure) else None
            if failure is not None:
                fp = task.empty_prediction()
            for rel in self.relations[follow_up.transformation]:
                if failure is not None:  # neither pass nor fail
                    verdict = Verdict(Outcome.ERROR, f"the system could not be queried about "
                                                     f"the follow-up: {failure}")
                else:
                    verdict = task.judge(rel, source=source, source_prediction=prediction,
                                         follow_up=follow_up, follow_up_prediction=fp,
                                         expected=expected)
                counts[(follow_up.transformation, rel.name)].outcomes[verdict.outcome.value] += 1
                cases.append(TestCase(
                    id=f"{source.id}/{follow_up.transformation}/{k}/{rel.name}", source=source,
                    follow_up=follow_up, relation=rel.name, source_prediction=prediction,
                    follow_up_prediction=fp, expected=expected, verdict=verdict))
        for (t, _), c in counts.items():
            self._batch_funnel[t]["violations"] += c.outcomes["fail"]
        stage.add("relations", time.perf_counter() - relations_started)
        return cases, counts, per_transformation, predictions

    def _new_funnel(self, generated: list[tuple]) -> dict[str, dict[str, Any]]:
        funnel = {t.name: _funnel_entry() for t in self.transformations}
        for t in self.transformations:
            funnel[t.name]["dropped_by"] = {f.name: 0 for f in self.filters if f.applies(t.name)}
        for _, _, t, follow_ups in generated:
            funnel[t.name]["generated"] += len(follow_ups)
        return funnel

    def _filter(self, generated: list[tuple], filters: list[Any],
                funnel: dict[str, dict[str, Any]]) -> list[tuple]:
        """Run ``filters``, in the suite's order, over all the follow-ups of the batch at once
        (one batched model call per filter), before the system under test sees any of them;
        what each drops is counted in ``funnel``."""
        for flt in filters:
            todo = [(n, j) for n, (_, _, t, fs) in enumerate(generated) if flt.applies(t.name)
                    for j in range(len(fs))]
            if not todo:
                continue
            with self.stages(f"filter: {flt.name}"):
                scores = flt.scores([(generated[n][0].text, generated[n][3][j])
                                     for n, j in todo])
            drop: dict[int, set[int]] = defaultdict(set)
            for (n, j), score in zip(todo, scores):
                f = generated[n][3][j]
                if score is not None:
                    f.meta.setdefault("filters", {})[flt.name] = round(float(score), 4)
                if not flt.keep(score, f.transformation):
                    drop[n].add(j)
                    funnel[f.transformation]["dropped_by"][flt.name] += 1
            generated = [(s, p, t, [f for j, f in enumerate(fs) if j not in drop.get(n, ())])
                         for n, (s, p, t, fs) in enumerate(generated)]
        return generated

    def _error_cases(self, source: Any, reason: str, counts: dict,
                     per_transformation: dict) -> list[TestCase]:
        """One ``error`` case per (transformation, relation) for a source the system could not
        be asked about: no follow-up can be made from it, and it is not silently dropped."""
        out = []
        for t in self.transformations:
            per_transformation[t.name].sources += 1
            follow_up = FollowUp(self.task.sut_input(source), None, t.name,
                                 {"not_generated": "the source has no prediction"})
            for rel in self.relations[t.name]:
                c = counts[(t.name, rel.name)]
                c.sources += 1
                c.outcomes[Outcome.ERROR.value] += 1
                out.append(TestCase(
                    id=f"{source.id}/{t.name}/-/{rel.name}", source=source, follow_up=follow_up,
                    relation=rel.name, source_prediction=self.task.empty_prediction(),
                    follow_up_prediction=self.task.empty_prediction(), expected=None,
                    verdict=Verdict(Outcome.ERROR, "the system could not be queried about the "
                                                   f"source: {reason}")))
        return out

    # -- results ---------------------------------------------------------------------------
    def model_components(self) -> list[dict[str, Any]]:
        """Every model and candidate source the run's transformations and filters use
        (results.json ``components.models``)."""
        out: list[dict[str, Any]] = []
        stages = [self.attacks] if getattr(self, "attacks", None) is not None else []
        for c in list(self.transformations) + list(self.filters) + stages:
            for d in getattr(c, "models", lambda: [])():
                if d not in out:
                    out.append(d)
        return out

    def summary(self) -> list[dict[str, Any]]:
        transformations = self.task.registries()["transformations"]
        rows = []
        for t in self.cfg["transformations"]:
            name = t.get("name", t["type"])
            extra = transformations.get(t["type"]).extra
            for rel in self.relations.get(name, []):
                rows.append({"transformation": name, "relation": rel.name,
                             "type": t["type"], "group": extra.get("group", "research"),
                             **({"violation": extra["violation"]} if extra.get("violation") else {}),
                             **self.counts[(name, rel.name)].to_json()})
        return rows

    def results(self) -> dict[str, Any]:
        from runner.report.thresholds import evaluate_thresholds

        summary = self.summary()
        totals = Counts()
        for c in self.counts.values():
            for k, v in c.outcomes.items():
                totals.outcomes[k] += v
        per_relation: dict[str, Counts] = defaultdict(Counts)
        for (_, rel), c in self.counts.items():
            for k, v in c.outcomes.items():
                per_relation[rel].outcomes[k] += v
        overall = totals.to_json()
        overall.update(sources=self.sources_done,
                       follow_ups=sum(c.follow_ups for c in self.per_transformation.values()))
        relations = {r: c.to_json() for r, c in sorted(per_relation.items())}
        groups = group_counts(summary)
        attacks = (self.attacks.results(self.out_dir / ATTACKS_FILE)
                   if getattr(self, "attacks", None) is not None else None)
        return {
            "mtrun_results_version": RESULTS_VERSION,
            "task": self.task.name,
            "suite": {"name": self.suite.name, "path": str(self.suite.path),
                      "description": self.cfg.get("description", ""), "filled": self.cfg},
            "run": {
                "status": self.status,
                "started": _iso(self.started), "finished": _iso(self.finished),
                "duration_s": round(self.finished - self.started, 3),
                "seed": self.cfg["seed"], "device": self.device,
                "sources_total": self.total, "sources_done": self.sources_done,
                **({"resumed_at": self.resumed_at} if self.resumed_at else {}),
                **({"stages": self.stages.to_json()} if self.stages.seconds else {}),
            },
            "versions": _versions(),
            "components": {
                "sut": {"type": self.cfg["sut"]["type"], **self.sut.describe()},
                "parser": self.parser.describe() if self.parser else None,
                "transformations": [t.describe() for t in self.transformations],
                "relations": [{**r.describe(), "applies_to": rc["applies_to"]}
                              for r, rc in zip(self.relation_objects, self.cfg["relations"])],
                **({"filters": [f.describe() for f in self.filters]} if self.filters else {}),
                **({"models": self.model_components()} if self.model_components() else {}),
                **({"attacks": self.attacks.describe()} if self.attacks is not None else {}),
            },
            **({"funnel": self.funnel} if self.funnel and (self.filters or self.model_components())
               else {}),
            "stats": {"sut": self.sut.stats(),
                      "per_transformation": {k: v.to_json() for k, v in self.per_transformation.items()}},
            "summary": summary,
            "relations": relations,
            "groups": groups,
            "overall": overall,
            "thresholds": evaluate_thresholds(self.cfg["report"]["fail_on"], overall, relations,
                                              groups,
                                              attacks=attacks["summary"] if attacks else None),
            **({"attacks": attacks} if attacks is not None else {}),
            **(self.analyzer.results() if getattr(self, "analyzer", None) else {}),
        }


class Loader:
    """Builds components on one background thread, in the order asked (so two components
    naming one model share it), while the engine goes on. :meth:`defer` returns a stand-in
    whose first use waits for the component; an error raised while building is raised there."""

    def __init__(self, background: bool = True) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(1, thread_name_prefix="mtrun-load") if background else None
        self._futures: list[Any] = []

    def defer(self, build: Callable[[], Any], known: dict[str, Any] | None = None) -> Any:
        """A stand-in for ``build()`` (without a background thread: ``build()`` itself).
        ``known``: attributes the stand-in answers without waiting (the component's class
        attributes, say), so that planning the first batch does not wait for a model."""
        if self._pool is None:
            return build()
        future = self._pool.submit(build)
        self._futures.append(future)
        return Deferred(future, known)

    def wait(self) -> None:
        """Every component built (the first error raised)."""
        for future in self._futures:
            future.result()
        if self._pool is not None:
            self._pool.shutdown(wait=False)


class Deferred:
    """Stands in for a component being built on a :class:`Loader`'s thread."""

    __slots__ = ("_future", "_known")

    def __init__(self, future: Any, known: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_future", future)
        object.__setattr__(self, "_known", known or {})

    def __getattr__(self, name: str) -> Any:
        if name in self._known and not self._future.done():
            return self._known[name]
        return getattr(self._future.result(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._future.result(), name, value)


def group_counts(summary: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per group of transformations (research, robustness, bias): the counts of its rows and
    which transformations it holds (results.json ``groups``)."""
    out: dict[str, dict[str, Any]] = {}
    for row in summary:
        g = out.setdefault(row.get("group", "research"),
                           {"transformations": [], "follow_ups": 0, "cases": 0, "pass": 0,
                            "fail": 0, "skip": 0, "error": 0})
        if row["transformation"] not in g["transformations"]:
            g["transformations"].append(row["transformation"])
            g["follow_ups"] += row["follow_ups"]
        for k in ("cases", "pass", "fail", "skip", "error"):
            g[k] += row[k]
    for g in out.values():
        judged = g["pass"] + g["fail"]
        g["violations"] = g["fail"]
        g["violation_rate"] = g["fail"] / judged if judged else None
    return out


def _funnel_entry() -> dict[str, Any]:
    return {"generated": 0, "dropped_by": {}, "over_limit": 0, "tested": 0, "violations": 0}


def _prepend_own_checks(entry: dict[str, Any], part: dict[str, Any]) -> None:
    """A transformation's own funnel (``take_funnel()``: ``candidates`` made, ``dropped_by`` its
    checks, ``not_tried`` once its per-source limit was reached) goes before the filters':
    generated = its candidates, its checks first among the drops, the untried over the limit."""
    entry["generated"] = max(entry["generated"], int(part.get("candidates", 0)))
    entry["dropped_by"] = {**part.get("dropped_by", {}), **entry["dropped_by"]}
    entry["over_limit"] += int(part.get("not_tried", 0))
    if "seconds" in part:
        entry["seconds"] = round(entry.get("seconds", 0.0) + float(part["seconds"]), 3)


def _merge_funnel(into: dict[str, dict[str, Any]], part: dict[str, dict[str, Any]]) -> None:
    for t, c in part.items():
        total = into.setdefault(t, _funnel_entry())
        for k in ("generated", "over_limit", "tested", "violations"):
            total[k] += c[k]
        for f, n in c["dropped_by"].items():
            total["dropped_by"][f] = total["dropped_by"].get(f, 0) + n
        if "seconds" in c:
            total["seconds"] = round(total.get("seconds", 0.0) + c["seconds"], 3)


def _merge(into: dict, part: dict) -> None:
    for key, c in part.items():
        t = into[key]
        t.sources += c.sources
        t.applicable += c.applicable
        t.follow_ups += c.follow_ups
        for k, v in c.outcomes.items():
            t.outcomes[k] += v


def _dump(counts: dict) -> list[list[Any]]:
    return [[list(k) if isinstance(k, tuple) else k, c.sources, c.applicable, c.follow_ups,
             c.outcomes] for k, c in counts.items()]


def _restore(into: dict, dumped: list[list[Any]]) -> None:
    for key, sources, applicable, follow_ups, outcomes in dumped:
        c = into[tuple(key) if isinstance(key, list) else key]
        c.sources, c.applicable, c.follow_ups = sources, applicable, follow_ups
        c.outcomes.update(outcomes)


def load_progress(out_dir: Path, key: str) -> dict[str, Any]:
    """The last batch recorded whole in ``out_dir``; refuses a folder made by another suite,
    seed or corpus (its cases could not be continued into the same results)."""
    from runner.errors import MtrunError

    path = Path(out_dir) / PROGRESS_FILE
    if not path.exists():
        raise MtrunError(f"--resume: nothing to resume in {out_dir} (no {PROGRESS_FILE}); run "
                         "without --resume to start")
    lines, good_bytes = [], 0
    for raw in path.read_bytes().splitlines(keepends=True):
        try:
            if not raw.endswith(b"\n"):
                raise ValueError("no line end")
            lines.append(json.loads(raw))
        except ValueError:
            break  # a line cut short by a kill: everything after it is not recorded
        good_bytes += len(raw)
    if not lines or lines[0].get("kind") != "start":
        raise MtrunError(f"--resume: {path} is not an mtrun progress file")
    if lines[0].get("key") != key:
        raise MtrunError(f"--resume: the run in {out_dir} was made with another suite "
                         "configuration, seed or corpus; resume it with the same ones, or run "
                         "without --resume (or with another -o folder) to start again")
    batches = [ln for ln in lines if ln.get("kind") == "batch"]
    resumes = [ln["at"] for ln in lines if ln.get("kind") == "resume"]
    state = batches[-1] if batches else {"sources_done": 0, "cases_bytes": 0, "counts": [],
                                         "per_transformation": []}
    state["resumed_at"] = resumes
    state["progress_bytes"] = good_bytes
    return state


def build_sut(suite: Suite, *, log: Callable[[str], None] = lambda msg: None) -> Any:
    """The suite's system under test, built from its task's registry (not yet connected to the
    persistent cache)."""
    cfg = suite.config
    sut_cfg = dict(cfg["sut"])
    sut_type = sut_cfg.pop("type")
    entry = suite.task.registries()["sut"].get(sut_type)
    if entry.extra.get("device"):
        sut_cfg["device"] = resolve_device(cfg["device"])
    if entry.extra.get("task"):
        sut_cfg.update(task=suite.task, base_dir=suite.base_dir)
    log(f"loading system under test: {sut_type} {sut_cfg.get('model', '')}")
    return entry.factory(**sut_cfg)


def open_cache(cfg: dict[str, Any], sut: Any, *, enabled: bool = True) -> Any:
    """The persistent prediction cache the suite asks for (``cache.enabled``: ``auto`` = for
    remote, paid systems only), or None."""
    c = cfg.get("cache") or {}
    wanted = c.get("enabled", "auto")
    if wanted == "auto":
        wanted = bool(getattr(sut, "remote", False))
    if not enabled or not wanted:
        return None
    from runner.sut.cache import PersistentCache

    return PersistentCache(Path(c.get("path") or ".mtrun-cache/predictions.sqlite"))


def _batched(items: Iterable[Any], n: int) -> Iterator[list[Any]]:
    it = iter(items)
    while batch := list(islice(it, n)):
        yield batch


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds")


def _versions() -> dict[str, str]:
    out = {"mtrun": __version__, "python": platform.python_version(),
           "platform": platform.platform(terse=True)}
    from importlib import metadata

    for module, dist in (("spacy", "spacy"), ("transformers", "transformers"), ("torch", "torch"),
                         ("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers"),
                         ("jsonschema", "jsonschema"), ("jinja2", "jinja2"), ("yaml", "pyyaml")):
        if module in sys.modules:  # only what this run actually used
            try:
                out[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
    return out
