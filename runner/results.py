"""A run's results (results.json without its cases), assembled from the engine's counts and
components: what was run, with which versions and models, the counts per transformation,
relation and group, the thresholds' verdict, each stage's results and the task's analysis."""
from __future__ import annotations

import platform
import sys
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from runner import __version__
from runner.tally import Counts, group_counts

RESULTS_VERSION = 1


def model_components(engine: Any) -> list[dict[str, Any]]:
    """Every model and candidate source the run's transformations, filters and stages use
    (results.json ``components.models``)."""
    out: list[dict[str, Any]] = []
    for c in list(engine.transformations) + list(engine.filters) + list(engine.after_batch):
        for d in getattr(c, "models", lambda: [])():
            if d not in out:
                out.append(d)
    return out


def per_100_sources(violations: int, sources: int) -> float | None:
    """A check's yield: its violations per 100 sources read by the run (every source, whether or
    not the check applied to it), so that two suites or versions on the same corpus compare."""
    return round(100.0 * violations / sources, 2) if sources else None


def summary_rows(engine: Any) -> list[dict[str, Any]]:
    """One row per (transformation, relation): its group, type and counts."""
    transformations = engine.task.registries()["transformations"]
    rows = []
    for t in engine.cfg["transformations"]:
        name = t.get("name", t["type"])
        extra = transformations.get(t["type"]).extra
        for rel in engine.relations.get(name, []):
            rows.append({"transformation": name, "relation": rel.name,
                         "type": t["type"], "group": extra.get("group", "research"),
                         **({"violation": extra["violation"]} if extra.get("violation") else {}),
                         **engine.counts[(name, rel.name)].to_json()})
    for row in rows:
        row["violations_per_100_sources"] = per_100_sources(row["fail"], engine.sources_done)
    return rows


def per_transformation_stats(engine: Any) -> dict[str, Any]:
    """Per transformation: its sources and follow-ups, and the outcomes of its cases summed over
    the relations that judge it (the engine counts outcomes per (transformation, relation) only;
    a follow-up judged by two relations is two cases)."""
    out = {}
    for name, c in engine.per_transformation.items():
        summed = Counts(sources=c.sources, applicable=c.applicable, follow_ups=c.follow_ups)
        for (t, _), rc in engine.counts.items():
            if t == name:
                for k, v in rc.outcomes.items():
                    summed.outcomes[k] += v
        out[name] = summed.to_json()
        out[name]["violations_per_100_sources"] = per_100_sources(summed.outcomes["fail"],
                                                                  engine.sources_done)
    return out


def assemble(engine: Any) -> dict[str, Any]:
    from runner.report.thresholds import evaluate_thresholds

    cfg = engine.cfg
    summary = summary_rows(engine)
    totals = Counts()
    for c in engine.counts.values():
        for k, v in c.outcomes.items():
            totals.outcomes[k] += v
    per_relation: dict[str, Counts] = defaultdict(Counts)
    for (_, rel), c in engine.counts.items():
        for k, v in c.outcomes.items():
            per_relation[rel].outcomes[k] += v
    overall = totals.to_json()
    overall.update(sources=engine.sources_done,
                   follow_ups=sum(c.follow_ups for c in engine.per_transformation.values()),
                   violations_per_100_sources=per_100_sources(overall["fail"],
                                                              engine.sources_done))
    relations = {r: c.to_json() for r, c in sorted(per_relation.items())}
    groups = group_counts(summary)
    stage_results = {s.name: s.results(engine.out_dir / s.records_file)
                     for s in engine.after_batch}
    threshold_inputs: dict[str, Any] = {}
    for s in engine.after_batch:
        threshold_inputs.update(s.threshold_inputs(stage_results[s.name]))
    models = model_components(engine)
    return {
        "mtrun_results_version": RESULTS_VERSION,
        "task": engine.task.name,
        "suite": {"name": engine.suite.name, "path": str(engine.suite.path),
                  "description": cfg.get("description", ""), "filled": cfg},
        "run": {
            "status": engine.status,
            "started": _iso(engine.started), "finished": _iso(engine.finished),
            "duration_s": round(engine.finished - engine.started, 3),
            "seed": cfg["seed"], "device": engine.device,
            "sources_total": engine.total, "sources_done": engine.sources_done,
            **({"resumed_at": engine.resumed_at} if engine.resumed_at else {}),
            **({"stages": engine.stages.to_json()} if engine.stages.seconds else {}),
        },
        "versions": _versions(),
        "components": {
            "sut": {"type": cfg["sut"]["type"], **engine.sut.describe()},
            "parser": engine.parser.describe() if engine.parser else None,
            "transformations": [t.describe() for t in engine.transformations],
            "relations": [{**r.describe(), "applies_to": rc["applies_to"]}
                          for r, rc in zip(engine.relation_objects, cfg["relations"])],
            **({"filters": [f.describe() for f in engine.filters]} if engine.filters else {}),
            **({"models": models} if models else {}),
            **{s.name: s.describe() for s in engine.after_batch},
        },
        **({"funnel": engine.funnel} if engine.funnel and (engine.filters or models) else {}),
        "stats": {"sut": engine.sut.stats(),
                  "per_transformation": per_transformation_stats(engine)},
        "summary": summary,
        "relations": relations,
        "groups": groups,
        "overall": overall,
        "thresholds": evaluate_thresholds(cfg["report"]["fail_on"], overall, relations, groups,
                                          summary=summary,
                                          transformations=cfg["transformations"],
                                          **threshold_inputs),
        **stage_results,
        **(engine.analyzer.results() if getattr(engine, "analyzer", None) else {}),
    }


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
