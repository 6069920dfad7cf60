"""The run loop: corpus → source predictions → follow-ups → follow-up predictions → verdicts.

The loop knows no task: inputs, predictions, expected answers and verdicts come from the suite's
task (:class:`runner.tasks.base.Task`), and what runs after a batch's cases (NER: attacks) from
the task's stages (:class:`runner.stages.BatchStage`).

Sources are streamed in batches (``limits.batch_size``). A batch goes through four steps, each
handing the next a frozen record (:mod:`runner.steps`): *generate* (the system's answers for the
sources, their parse, every transformation's follow-ups, the filters that use the shared
pipelines), *filter* (the model-based filters, on a second thread while the next batch is
generated), *ask* (the last filters, the per-source cap, the system's answers for the follow-ups)
and *judge* (the relations' verdicts); the analysis and the stages then *decide* it. Its cases
are appended to ``cases.jsonl``: memory does not grow and a crash loses nothing decided.
"""
from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from runner.building import Loader, build_sut, open_cache
from runner.checkpoint import CASES_FILE, PROGRESS_FILE, load_progress, resume_key
from runner.models.loading import resolve_device
from runner.seeding import case_rng
from runner.sut.base import SUTFailure
from runner.tally import (Counts, dump_counts, funnel_entry, merge_counts, merge_funnel,
                          prepend_own_checks, restore_counts)
from runner.tasks.base import Corpus, Suite
from runner.suite import follow_up_cap
from runner.steps import Asked, Decided, Filtered, Funnel, Generated, Judged, Made, Tally
from runner.timing import Stages, process_age
from runner.transforms.base import BatchItem
from runner.types import FollowUp, Outcome, TestCase, Verdict

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
        self.sut = self.parser = None
        self.transformations: list[Any] = []
        self.filters: list[Any] = []
        # The task's stages after each batch's cases (NER: attacks; runner/stages.py).
        self.after_batch: list[Any] = []
        self.funnel: Funnel = {}
        # Set by a signal handler: the run stops cleanly after the batch in progress.
        self.stop_requested = False
        # Seconds per stage of the work (results.json run.stages, `mtrun --timings`).
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
            if _uses_models(entry, t):
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
        if self.filters or any(_uses_models(TRANSFORMATIONS.get(t["type"]), t)
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
        # The task's stages after the metamorphic cases, built once everything else is.
        self.after_batch = self.task.stages(self.suite, self.sut, self.log)
        if self.after_batch:
            loader.wait()
            for stage in self.after_batch:
                stage.build()
            self.device = resolve_device(cfg["device"])
            if any(s.needs_parse for s in self.after_batch) and self.parser is None:
                p = cfg["parser"]
                self.parser = Parser(p["model"], batch_size=p["batch_size"])

    def _make_sut(self) -> Any:
        return build_sut(self.suite, log=self.log)

    def _open_cache(self) -> Any:
        return open_cache(self.cfg, self.sut, enabled=self.use_cache)

    def corpus(self) -> Corpus:
        return self.task.corpus(self.suite)

    def resume_key(self) -> str:
        return resume_key(self.cfg, self.suite.corpus_path)

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
        key = self.resume_key()
        state = load_progress(self.out_dir, key) if self.resume else None
        with self.stages("start-up: models"):
            self.build()
        for stage in self.after_batch:
            stage.prepare(lambda: iter(corpus), self.sut, sources_per_batch(self.cfg))
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.status = "running"
        cases_path = self.out_dir / CASES_FILE
        progress_path = self.out_dir / PROGRESS_FILE
        stage_paths = {s.name: self.out_dir / s.records_file for s in self.after_batch}
        skip = 0
        if state is not None:
            # Continue after the last batch recorded whole; cases written after it (a batch cut
            # short by a kill) are cut off and that batch is run again.
            skip = self.sources_done = state["sources_done"]
            restore_counts(self.counts, state["counts"])
            restore_counts(self.per_transformation, state["per_transformation"])
            merge_funnel(self.funnel, state.get("funnel", {}))
            self.sut.dropped_labels.update(state.get("dropped_labels", {}))
            self.resumed_at = state.get("resumed_at", []) + [skip]
            for path, at in [(cases_path, state["cases_bytes"])] + [
                    (p, state.get(f"{name}_bytes", 0)) for name, p in stage_paths.items()] + [
                    (progress_path, state["progress_bytes"])]:
                with path.open("ab") as handle:
                    handle.truncate(at)
            self.analyzer.restore_from_progress(progress_path)
            mode = "r+b"
            self.log(f"resuming after {skip} source(s) already done")
        else:
            mode = "wb"
            progress_path.write_text(json.dumps({"kind": "start", "key": key}) + "\n",
                                     encoding="utf-8")
        sinks = {name: p.open(mode) for name, p in stage_paths.items()}
        try:
            with cases_path.open(mode) as sink, progress_path.open("a", encoding="utf-8") as marks:
                for handle in [sink, *sinks.values()]:
                    handle.seek(0, os.SEEK_END)
                if state is not None:
                    marks.write(json.dumps({"kind": "resume", "at": skip}) + "\n")
                sources = islice(iter(corpus), skip, total)
                # Start-up: from the process's start to the first batch (models built).
                self.stages.add("start-up", process_age())
                for decided in self._execute(_batched(sources, sources_per_batch(self.cfg))):
                    self._record(decided, sink, sinks, marks)
                    self.progress(self.sources_done, total)
                    if self.stop_requested:
                        raise KeyboardInterrupt
                self.status = "completed"
        except KeyboardInterrupt:
            self.status = "interrupted"
            raise
        finally:
            for handle in sinks.values():
                handle.close()
            self.finished = time.time()
        return self.results()

    def _record(self, decided: Decided, sink: Any, sinks: dict[str, Any], marks: Any) -> None:
        """A batch is recorded whole: its cases in one write, each stage's records, then its
        counts in a progress mark."""
        _append(sink, "".join(json.dumps(self.task.case_to_json(c), ensure_ascii=False) + "\n"
                              for c in decided.cases))
        for name, handle in sinks.items():
            _append(handle, "".join(json.dumps(r, ensure_ascii=False) + "\n"
                                    for r in decided.stage_records.get(name, [])))
        merge_counts(self.counts, decided.tally.counts)
        merge_counts(self.per_transformation, decided.tally.per_transformation)
        merge_funnel(self.funnel, decided.funnel)
        self.sources_done += len(decided.batch)
        marks.write(json.dumps({
            "kind": "batch", "sources_done": self.sources_done, "cases_bytes": sink.tell(),
            **{f"{name}_bytes": handle.tell() for name, handle in sinks.items()},
            "counts": dump_counts(self.counts),
            "per_transformation": dump_counts(self.per_transformation),
            "funnel": self.funnel,
            "dropped_labels": dict(self.sut.dropped_labels),
            "analysis": self.analyzer.checkpoint()}) + "\n")
        marks.flush()
        os.fsync(marks.fileno())

    def _execute(self, batches: Iterator[list[Any]]) -> Iterator[Decided]:
        """Each batch decided, in corpus order; :meth:`run` records them. Another execution
        engine (``runner.execution``) overrides this (and :meth:`build`)."""
        a, b = self._split()
        if self.after_batch or a == b:
            for batch in batches:
                yield self._decide(batch, self.judge_batch(batch))
            return
        # Two steps in step: while the model-based filters judge batch k on a second thread,
        # this thread generates batch k+1 (the spaCy work), then asks and judges batch k (system
        # calls on its follow-ups, relations, analysis). Each batch's computations are those of
        # the one-thread loop above, so are its results.
        from concurrent.futures import ThreadPoolExecutor

        ahead = ThreadPoolExecutor(1, thread_name_prefix="mtrun-filters")
        pending: tuple[list[Any], Any] | None = None
        try:
            for batch in batches:
                generated = self._generate(batch)
                # Batch k+1's filters are queued before batch k is finished, so the model
                # threads have work while this thread runs batch k's system calls and analysis
                # (whose encoder passes queue behind them: the cores stay busy either way).
                future = ahead.submit(self._filter_on_thread, generated)
                if pending is not None:
                    yield self._decide(pending[0], self._judge(self._ask(pending[1].result())))
                pending = (batch, future)
            if pending is not None:
                yield self._decide(pending[0], self._judge(self._ask(pending[1].result())))
        finally:
            ahead.shutdown(wait=False, cancel_futures=True)

    def judge_batch(self, batch: list[Any]) -> Judged:
        """Everything of a batch that depends on the batch alone; the analyzer, which carries
        state from batch to batch, runs after it (:meth:`_decide`)."""
        return self._judge(self._ask(self._filter_on_thread(self._generate(batch))))

    def _decide(self, batch: list[Any], judged: Judged) -> Decided:
        """The task's analysis of the violations (NER: error categories, repair, gold metrics),
        then the stages on the batch's sources (NER: attacks; the parse is the parser's cached
        one)."""
        with self.stages("analysis (repair, categories)"):
            self.analyzer.observe(batch, judged.predictions)
            cases = self.analyzer.process(judged.cases)
        records: dict[str, list[dict[str, Any]]] = {}
        docs = None     # parsed once, within the first stage's time
        for stage in self.after_batch:
            with self.stages(stage.name):
                docs = docs or (self.parser.parse_many([s.text for s in batch]) if self.parser
                                else [None] * len(batch))
                records[stage.name] = stage.run_batch(batch, judged.predictions, docs)
        return Decided(batch, cases, judged.tally, judged.funnel, records)

    def _split(self) -> tuple[int, int]:
        """Which filters run where, in the suite's order: ``filters[:a]`` with the
        transformations (they use the shared pipelines), ``filters[a:b]`` on another thread
        (``Filter.thread_safe``: the model-based ones, the longest run of them after the first
        ones; a ``costly`` filter, a language model's, ends that run), ``filters[b:]`` on the
        engine's thread again, before the system sees the follow-ups, judging only what the
        per-source limits may still test (:meth:`_filter_up_to`). A filter judges every
        follow-up on its own, so which thread runs it does not change what it keeps."""
        a = 0
        while a < len(self.filters) and not getattr(self.filters[a], "thread_safe", False):
            a += 1
        b = a
        while (b < len(self.filters) and getattr(self.filters[b], "thread_safe", False)
               and not getattr(self.filters[b], "costly", False)):
            b += 1
        return a, b

    # -- the four steps of a batch -----------------------------------------------------------
    def _generate(self, batch: list[Any]) -> Generated:
        """The system's answers for the sources, their parse, every transformation's follow-ups
        and the filters that use the shared pipelines (all on the engine's thread)."""
        task, seed, stage = self.task, self.cfg["seed"], self.stages
        tally = Tally.empty()
        with stage("system: sources"):
            predictions = self.sut.predict_outcomes([task.sut_input(s) for s in batch])
        with stage("parse: sources"):
            docs = (self.parser.parse_many([s.text for s in batch]) if self.parser
                    else [None] * len(batch))
        answered = [n for n, p in enumerate(predictions) if not isinstance(p, SUTFailure)]
        position = {n: k for k, n in enumerate(answered)}
        # Each transformation sees the whole batch at once (one that combines sources needs it);
        # every source keeps its own generator, so per-source follow-ups do not depend on the
        # batch. The follow-ups are then laid out source by source, as they are sent and filtered.
        follow_ups: dict[str, list[list[FollowUp]]] = {}
        own_checks: dict[str, dict[str, Any]] = {}
        for t in self.transformations:
            items = [BatchItem(batch[n], predictions[n],
                               case_rng(seed, batch[n].id, batch[n].text, t.name), docs[n])
                     for n in answered]
            with stage(f"candidates: {t.name}"):
                follow_ups[t.name] = t.generate_batch(items)
            # A transformation that checks its own candidates (CREST) says what it dropped.
            if hasattr(t, "take_funnel"):
                own_checks[t.name] = t.take_funnel()
        made, error_cases = [], []
        for n, (source, prediction) in enumerate(zip(batch, predictions)):
            if isinstance(prediction, SUTFailure):  # the system could not be queried
                error_cases += self._error_cases(source, prediction.reason, tally)
                continue
            for t in self.transformations:
                made.append(Made(source, prediction, t, follow_ups[t.name][position[n]]))
        funnel = self._new_funnel(made)
        made = self._filter(made, self.filters[:self._split()[0]], funnel)
        return Generated(predictions, made, error_cases, funnel, own_checks, tally)

    def _filter_on_thread(self, generated: Generated) -> Filtered:
        """The filters that may run on another thread while the next batch is generated."""
        a, b = self._split()
        return Filtered(generated, self._filter(generated.made, self.filters[a:b],
                                                generated.funnel))

    def _ask(self, filtered: Filtered) -> Asked:
        """The last filters, the per-source cap, and the system's answers for the follow-ups
        kept."""
        generated = filtered.generated
        tally, funnel = generated.tally, generated.funnel
        kept = self._filter_up_to(filtered.made, self.filters[self._split()[1]:], funnel)
        for name, part in generated.own_checks.items():
            prepend_own_checks(funnel[name], part)
        groups = []
        for source, prediction, t, follow_ups in kept:
            funnel[t.name]["tested"] += len(follow_ups)
            for c in [tally.per_transformation[t.name]] + [tally.counts[(t.name, r.name)]
                                                           for r in self.relations[t.name]]:
                c.sources += 1
                c.applicable += bool(follow_ups)
                c.follow_ups += len(follow_ups)
            groups += [(source, prediction, f, k) for k, f in enumerate(follow_ups)]
        with self.stages("system: follow-ups"):
            answers = self.sut.predict_outcomes([g[2].input for g in groups])
        return Asked(generated, groups, answers, funnel)

    def _judge(self, asked: Asked) -> Judged:
        """Each relation's verdict on each follow-up tested."""
        task = self.task
        tally = asked.generated.tally
        cases = list(asked.generated.error_cases)
        started = time.perf_counter()
        for (source, prediction, follow_up, k), fp in zip(asked.groups, asked.answers):
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
                tally.counts[(follow_up.transformation, rel.name)].outcomes[
                    verdict.outcome.value] += 1
                cases.append(TestCase(
                    id=f"{source.id}/{follow_up.transformation}/{k}/{rel.name}", source=source,
                    follow_up=follow_up, relation=rel.name, source_prediction=prediction,
                    follow_up_prediction=fp, expected=expected, verdict=verdict))
        for (t, _), c in tally.counts.items():
            asked.funnel[t]["violations"] += c.outcomes["fail"]
        self.stages.add("relations", time.perf_counter() - started)
        return Judged(cases, tally, asked.generated.predictions, asked.funnel)

    # -- helpers of the steps ------------------------------------------------------------------
    def _new_funnel(self, made: list[Made]) -> Funnel:
        funnel = {t.name: funnel_entry() for t in self.transformations}
        for t in self.transformations:
            funnel[t.name]["dropped_by"] = {f.name: 0 for f in self.filters if f.applies(t.name)}
        for m in made:
            funnel[m.transformation.name]["generated"] += len(m.follow_ups)
        return funnel

    def _filter(self, made: list[Made], filters: list[Any], funnel: Funnel) -> list[Made]:
        """Run ``filters``, in the suite's order, over all the follow-ups of the batch at once
        (one batched model call per filter), before the system under test sees any of them;
        what each drops is counted in ``funnel``."""
        for flt in filters:
            todo = [(n, j) for n, m in enumerate(made) if flt.applies(m.transformation.name)
                    for j in range(len(m.follow_ups))]
            if not todo:
                continue
            with self.stages(f"filter: {flt.name}"):
                scores = flt.scores([(made[n].source.text, made[n].follow_ups[j])
                                     for n, j in todo])
            drop: dict[int, set[int]] = defaultdict(set)
            for (n, j), score in zip(todo, scores):
                f = made[n].follow_ups[j]
                if score is not None:
                    f.meta.setdefault("filters", {})[flt.name] = round(float(score), 4)
                if not flt.keep(score, f.transformation):
                    drop[n].add(j)
                    funnel[f.transformation]["dropped_by"][flt.name] += 1
            made = [m._replace(follow_ups=[f for j, f in enumerate(m.follow_ups)
                                           if j not in drop.get(n, ())])
                    for n, m in enumerate(made)]
        return made

    def _filter_up_to(self, made: list[Made], filters: list[Any], funnel: Funnel
                      ) -> list[Made]:
        """The last filters and the per-source cap together: only what may still be tested is
        judged. Each source's follow-ups of a transformation are taken in their order, as many
        as its cap still wants, through ``filters``; where some are dropped, the next ones are
        taken, in rounds (each round one batched call per filter), until the cap is filled or
        none are left. A filter judges each follow-up on its own, so the follow-ups kept are the
        first ``cap`` of those the filters would keep from all of them — the same tests — and a
        costly last filter (a language model's naturalness) scores a few per source instead of
        every candidate. The follow-ups never judged count as ``over_limit``."""
        caps = [follow_up_cap(self.cfg, m.transformation.name) for m in made]
        kept: list[list[FollowUp]] = [[] for _ in made]
        taken = [0] * len(made)
        while True:
            todo, where = [], []
            for n, m in enumerate(made):
                want = caps[n] - len(kept[n])
                if want > 0 and taken[n] < len(m.follow_ups):
                    todo.append(m._replace(follow_ups=m.follow_ups[taken[n]:taken[n] + want]))
                    where.append(n)
                    taken[n] += want
            if not todo:
                break
            for n, m in zip(where, self._filter(todo, filters, funnel)):
                kept[n] += m.follow_ups
        for n, m in enumerate(made):
            funnel[m.transformation.name]["over_limit"] += max(0, len(m.follow_ups) - taken[n])
        return [m._replace(follow_ups=k) for m, k in zip(made, kept)]

    def _error_cases(self, source: Any, reason: str, tally: Tally) -> list[TestCase]:
        """One ``error`` case per (transformation, relation) for a source the system could not
        be asked about: no follow-up can be made from it, and it is not silently dropped."""
        out = []
        for t in self.transformations:
            tally.per_transformation[t.name].sources += 1
            follow_up = FollowUp(self.task.sut_input(source), None, t.name,
                                 {"not_generated": "the source has no prediction"})
            for rel in self.relations[t.name]:
                c = tally.counts[(t.name, rel.name)]
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
        from runner.results import model_components

        return model_components(self)

    def results(self) -> dict[str, Any]:
        from runner.results import assemble

        return assemble(self)


def _append(handle: Any, text: str) -> None:
    handle.write(text.encode("utf-8"))
    handle.flush()
    os.fsync(handle.fileno())


def _batched(items: Iterable[Any], n: int) -> Iterator[list[Any]]:
    it = iter(items)
    while batch := list(islice(it, n)):
        yield batch


def sources_per_batch(cfg: dict[str, Any]) -> int:
    """``limits.batch_size``; by default 32 sources a batch, or 256 where the suite's device is a
    GPU: a GPU's passes cost little per sentence and much per call (a small model's 30 layers
    take milliseconds of Python to launch however few sentences they carry), and the rounds of
    the per-source limits make one call per filter each."""
    if cfg["limits"].get("batch_size"):
        return int(cfg["limits"]["batch_size"])
    from runner.models.loading import resolve_device

    return 256 if resolve_device(str(cfg.get("device", "auto"))).startswith("cuda") else 32


def _uses_models(entry: Any, params: dict[str, Any]) -> bool:
    """Whether a transformation loads models (its catalog entry's ``models``: a flag, or a
    function of its parameters: MR-R1 loads an LM only when given one)."""
    models = entry.extra.get("models")
    return bool(models(params) if callable(models) else models)
