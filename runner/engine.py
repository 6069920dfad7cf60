"""The run loop: corpus → source predictions → follow-ups → follow-up predictions → verdicts.

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
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from runner import __version__
from runner.corpus import CorpusReader
from runner.models.loading import resolve_device
from runner.suite import Suite
from runner.types import Edit, FollowUp, Outcome, Prediction, Sentence, TestCase, Verdict

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


def case_rng(seed: int, *parts: str) -> random.Random:
    """A generator for one (source, transformation), derived from the run's seed. Deriving it per
    case, rather than drawing from one stream, keeps every follow-up identical whatever the batch
    size, max_sources or order of transformations."""
    digest = hashlib.sha256("\x1f".join((str(seed),) + parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


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

    # -- building --------------------------------------------------------------------------
    def build(self) -> None:
        from runner.catalog import FILTERS, RELATIONS, SUTS, TRANSFORMATIONS
        from runner.nlp import Parser

        cfg = self.cfg
        sut_cfg = dict(cfg["sut"])
        sut_type = sut_cfg.pop("type")
        # spaCy pipelines run on the CPU here; only torch-based systems resolve `auto` (which
        # imports torch, so it is not done when nothing needs it).
        self.device = "cpu"
        if sut_type in ("hf", "flair", "stanza"):
            self.device = sut_cfg["device"] = resolve_device(cfg["device"])
        self.log(f"loading system under test: {sut_type} {sut_cfg.get('model', '')}")
        self.sut = SUTS.get(sut_type).factory(**sut_cfg)
        self.store = open_cache(cfg, self.sut, enabled=self.use_cache)
        if self.store is not None:
            self.sut.store = self.store
            self.log(f"prediction cache: {self.store.path}")
        self.transformations = []
        for t in cfg["transformations"]:
            params = {k: v for k, v in t.items() if k != "type"}
            entry = TRANSFORMATIONS.get(t["type"])
            if entry.extra.get("models"):
                params["device"] = cfg["device"]
                self.log(f"loading models for {t['type']}")
            self.transformations.append(entry.factory(**params))
        self.filters = []
        for f in cfg["filters"]:
            params = {k: v for k, v in f.items() if k != "type"}
            params["device"] = cfg["device"]
            self.log(f"loading models for the {f['type']} filter")
            self.filters.append(FILTERS.get(f["type"]).factory(**params))
        if self.filters or any(TRANSFORMATIONS.get(t["type"]).extra.get("models")
                               for t in cfg["transformations"]):
            self.device = resolve_device(cfg["device"])
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
        from runner.repair.analyzer import ViolationAnalyzer

        self.analyzer = ViolationAnalyzer.from_config(cfg, self.sut, self.log)
        # Adversarial attacks (runner/attacks): a stage of its own after the metamorphic cases.
        self.attacks = None
        if cfg.get("attacks"):
            from runner.attacks.stage import AttackStage

            self.attacks = AttackStage.from_config(cfg, self.sut, base_dir=self.suite.base_dir,
                                                   log=self.log)
            self.device = resolve_device(cfg["device"])
            if self.attacks.needs_parse and self.parser is None:
                p = cfg["parser"]
                self.parser = Parser(p["model"], batch_size=p["batch_size"])

    def corpus(self) -> CorpusReader:
        c = self.cfg["corpus"]
        return CorpusReader(self.suite.corpus_path, c["format"],
                            max_sentence_chars=self.cfg["limits"]["max_sentence_chars"],
                            gold_label_map=c["gold_label_map"])

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
                for batch in _batched(sources, limits["batch_size"]):
                    cases, counts, per_transformation = self._run_batch(batch)
                    # A batch is recorded whole: its cases in one write, then its counts.
                    sink.write("".join(json.dumps(c.to_json(), ensure_ascii=False) + "\n"
                                       for c in cases).encode("utf-8"))
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

    def resume_key(self) -> str:
        """What must not change between a run and its --resume: the suite as filled (except where
        the reports go, the source limit, the cache and how a remote system is called) and the
        corpus's bytes."""
        cfg = {k: v for k, v in self.cfg.items() if k not in ("report", "cache", "description")}
        cfg["limits"] = {k: v for k, v in cfg["limits"].items() if k != "max_sources"}
        cfg["sut"] = {k: v for k, v in cfg["sut"].items() if k not in ("retry", "concurrency")}
        digest = hashlib.sha256(json.dumps(cfg, sort_keys=True, default=str).encode())
        with self.suite.corpus_path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()

    def _run_batch(self, batch: list[Sentence]) -> tuple[list[TestCase], dict, dict]:
        seed = self.cfg["seed"]
        cap = self.cfg["limits"]["max_follow_ups_per_source"]
        counts: dict[tuple[str, str], Counts] = defaultdict(Counts)
        per_transformation: dict[str, Counts] = defaultdict(Counts)
        predictions = self.sut.predict_outcomes([s.text for s in batch])
        docs = self.parser.parse_many([s.text for s in batch]) if self.parser else [None] * len(batch)
        generated = []
        cases = []
        for source, prediction, doc in zip(batch, predictions, docs):
            if not isinstance(prediction, Prediction):  # the system could not be queried
                cases += self._error_cases(source, prediction.reason, counts, per_transformation)
                continue
            for t in self.transformations:
                rng = case_rng(seed, source.id, source.text, t.name)
                generated.append((source, prediction, t, t.generate(source, prediction, rng, doc)))
        kept, self._batch_funnel = self._filter(generated)
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
        follow_up_predictions = self.sut.predict_outcomes([g[2].text for g in groups])
        for (source, prediction, follow_up, k), fp in zip(groups, follow_up_predictions):
            expected = tuple(img for img in map(follow_up.edit.map_span, prediction.spans)
                             if img is not None)
            failure = None if isinstance(fp, Prediction) else fp.reason
            if failure is not None:
                fp = Prediction(())
            for rel in self.relations[follow_up.transformation]:
                if failure is not None:  # neither pass nor fail
                    verdict = Verdict(Outcome.ERROR, f"the system could not be queried about "
                                                     f"the follow-up: {failure}")
                else:
                    verdict = rel.check(source_text=source.text, follow_up=follow_up,
                                        source_prediction=prediction, follow_up_prediction=fp,
                                        expected=expected)
                counts[(follow_up.transformation, rel.name)].outcomes[verdict.outcome.value] += 1
                cases.append(TestCase(
                    id=f"{source.id}/{follow_up.transformation}/{k}/{rel.name}", source=source,
                    follow_up=follow_up, relation=rel.name, source_prediction=prediction,
                    follow_up_prediction=fp, expected=expected, verdict=verdict))
        for (t, _), c in counts.items():
            self._batch_funnel[t]["violations"] += c.outcomes["fail"]
        # Error categories for every violation; repair and gold metrics when configured.
        self.analyzer.observe(batch, predictions)
        cases = self.analyzer.process(cases)
        self._batch_attacks = (self.attacks.run_batch(batch, predictions, docs)
                               if self.attacks is not None else [])
        return cases, counts, per_transformation

    def _filter(self, generated: list[tuple]) -> tuple[list[tuple], dict[str, dict[str, Any]]]:
        """Run every filter, in the suite's order, over all the follow-ups of the batch at once
        (one batched model call per filter), before the system under test sees any of them."""
        funnel = {t.name: _funnel_entry() for t in self.transformations}
        for t in self.transformations:
            funnel[t.name]["dropped_by"] = {f.name: 0 for f in self.filters if f.applies(t.name)}
        for _, _, t, follow_ups in generated:
            funnel[t.name]["generated"] += len(follow_ups)
        for flt in self.filters:
            todo = [(n, j) for n, (_, _, t, fs) in enumerate(generated) if flt.applies(t.name)
                    for j in range(len(fs))]
            if not todo:
                continue
            scores = flt.scores([(generated[n][0].text, generated[n][3][j]) for n, j in todo])
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
        return generated, funnel

    def _error_cases(self, source: Sentence, reason: str, counts: dict,
                     per_transformation: dict) -> list[TestCase]:
        """One ``error`` case per (transformation, relation) for a source the system could not
        be asked about: no follow-up can be made from it, and it is not silently dropped."""
        out = []
        for t in self.transformations:
            per_transformation[t.name].sources += 1
            follow_up = FollowUp(source.text, Edit(source.text, ()), t.name,
                                 {"not_generated": "the source has no prediction"})
            for rel in self.relations[t.name]:
                c = counts[(t.name, rel.name)]
                c.sources += 1
                c.outcomes[Outcome.ERROR.value] += 1
                out.append(TestCase(
                    id=f"{source.id}/{t.name}/-/{rel.name}", source=source, follow_up=follow_up,
                    relation=rel.name, source_prediction=Prediction(()),
                    follow_up_prediction=Prediction(()), expected=(),
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
        rows = []
        for t in self.cfg["transformations"]:
            for rel in self.relations.get(t["type"], []):
                rows.append({"transformation": t["type"], "relation": rel.name,
                             **self.counts[(t["type"], rel.name)].to_json()})
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
        attacks = (self.attacks.results(self.out_dir / ATTACKS_FILE)
                   if getattr(self, "attacks", None) is not None else None)
        return {
            "mtrun_results_version": RESULTS_VERSION,
            "suite": {"name": self.suite.name, "path": str(self.suite.path),
                      "description": self.cfg.get("description", ""), "filled": self.cfg},
            "run": {
                "status": self.status,
                "started": _iso(self.started), "finished": _iso(self.finished),
                "duration_s": round(self.finished - self.started, 3),
                "seed": self.cfg["seed"], "device": self.device,
                "sources_total": self.total, "sources_done": self.sources_done,
                **({"resumed_at": self.resumed_at} if self.resumed_at else {}),
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
            "overall": overall,
            "thresholds": evaluate_thresholds(self.cfg["report"]["fail_on"], overall, relations,
                                              attacks=attacks["summary"] if attacks else None),
            **({"attacks": attacks} if attacks is not None else {}),
            **(self.analyzer.results() if getattr(self, "analyzer", None) else {}),
        }


def _funnel_entry() -> dict[str, Any]:
    return {"generated": 0, "dropped_by": {}, "over_limit": 0, "tested": 0, "violations": 0}


def _merge_funnel(into: dict[str, dict[str, Any]], part: dict[str, dict[str, Any]]) -> None:
    for t, c in part.items():
        total = into.setdefault(t, _funnel_entry())
        for k in ("generated", "over_limit", "tested", "violations"):
            total[k] += c[k]
        for f, n in c["dropped_by"].items():
            total["dropped_by"][f] = total["dropped_by"].get(f, 0) + n


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


def _batched(items: Iterable[Sentence], n: int) -> Iterator[list[Sentence]]:
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
                         ("jsonschema", "jsonschema"), ("jinja2", "jinja2"), ("yaml", "pyyaml")):
        if module in sys.modules:  # only what this run actually used
            try:
                out[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
    return out
