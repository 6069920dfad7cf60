"""Coreference resolution as an mtrun task (CREST, SPEC §4).

An input is a document's text; a prediction is a :class:`~runner.tasks.coref.types.
CorefPrediction` (clusters of character ranges, two mentions or more each); a follow-up is judged
by BLANC against the source's clusters carried through the edit; violations get issue types
and, when the corpus has gold clusters, a verdict on whether they are real errors.

Shapes the python system under test exchanges: an input is the text (a ``str``); a prediction is
a list of clusters, each a list of mentions ``[start, end]`` or ``{"start": s, "end": e}``
(character offsets, end exclusive, code points); one-mention clusters are ignored.
"""
from __future__ import annotations

from typing import Any, Callable

from runner.tasks.base import Task, category_chart, corpus_section
from runner.tasks.coref.types import CorefPrediction
from runner.types import FollowUp, TestCase, Verdict


class CorefTask(Task):
    name = "coref"
    description = "coreference resolution: clusters of mentions (CREST)"
    corpus_extensions = {".jsonl": "jsonl", ".json": "jsonl", ".txt": "text", ".text": "text",
                         ".conll": "conll2012",
                         ".gold_conll": "conll2012", ".v4_gold_conll": "conll2012",
                         ".conll2012": "conll2012"}
    case_template = "coref/case.html.j2"
    legend_template = "coref/legend.html.j2"
    report_partials = ("coref/summary.html.j2",)
    types_column = "Candidate"

    # -- what a suite may say ------------------------------------------------------------------
    def corpus_schema(self) -> dict[str, Any]:
        return corpus_section(
            ["jsonl", "text", "conll2012"],
            "auto: by extension (.jsonl; .txt; .conll, .gold_conll, .v4_gold_conll for "
            "CoNLL-2012). jsonl: one document a line, {\"text\", \"id\"?, \"clusters\"?}, each "
            "mention [start, end] (characters, end exclusive) or its text when that occurs once "
            "in the document ([[\"Maria Lopez\", \"she\"]]). text: one document a line, no "
            "gold (the system's clusters on the source are the oracle).",
            unit={"enum": ["document", "sentence"], "default": "document",
                  "description": "CoNLL-2012: one source per document part, or per sentence "
                                 "(CREST tested sentences)."})

    def model_needs(self, cfg: dict[str, Any]) -> list[Any]:
        from runner.tasks.coref.needs import model_needs

        return model_needs(cfg)

    def system_base(self) -> type:
        from runner.tasks.coref.systems import CorefSystem

        return CorefSystem

    # -- inputs --------------------------------------------------------------------------------
    def corpus(self, suite: Any) -> Any:
        from runner.tasks.coref.corpus import CorefCorpusReader

        cfg = suite.config
        c = cfg["corpus"]
        fmt = c["format"]
        if fmt == "auto":
            fmt = self.corpus_extensions.get(suite.corpus_path.suffix.lower(), "auto")
        return CorefCorpusReader(suite.corpus_path, fmt, unit=c["unit"],
                                 max_sentence_chars=cfg["limits"]["max_sentence_chars"])

    # -- judging -------------------------------------------------------------------------------
    def empty_prediction(self) -> CorefPrediction:
        return CorefPrediction(())

    def expected(self, source: Any, prediction: CorefPrediction, follow_up: FollowUp) -> Any:
        """The source's clusters as they read in the follow-up (None when the edit cut one)."""
        from runner.tasks.coref.oracle import to_follow_up

        if follow_up.edit is None:
            return None
        return to_follow_up(prediction, follow_up.edit)

    def judge(self, relation: Any, *, source: Any, source_prediction: Any, follow_up: FollowUp,
              follow_up_prediction: Any, expected: Any) -> Verdict:
        return relation.check(source_text=source.text, follow_up=follow_up,
                              source_prediction=source_prediction,
                              follow_up_prediction=follow_up_prediction, expected=expected)

    def analyzer(self, cfg: dict[str, Any], sut: Any, log: Callable[[str], None]) -> Any:
        from runner.tasks.coref.analysis import CorefAnalyzer

        return CorefAnalyzer()

    # -- serialisation -------------------------------------------------------------------------
    def source_to_json(self, source: Any, prediction: CorefPrediction) -> dict[str, Any]:
        d: dict[str, Any] = {"text": source.text, "clusters": prediction.to_json()}
        if getattr(source, "gold", None) is not None:
            d["gold"] = source.gold.to_json()
        return d

    def follow_up_to_json(self, case: TestCase) -> dict[str, Any]:
        from runner.tasks.coref.oracle import judge

        f = case.follow_up
        d: dict[str, Any] = {"text": f.text, "clusters": case.follow_up_prediction.to_json(),
                             "expected": case.expected.to_json() if case.expected is not None
                             else None,
                             "edit": f.edit.to_json() if f.edit is not None else [],
                             "meta": f.meta}
        if f.edit is not None and case.verdict.outcome.value in ("pass", "fail"):
            _, score = judge(case.source_prediction, case.follow_up_prediction, f.edit)
            d["blanc"] = score.to_json()
        return d

    def prediction_from_json(self, data: Any, item: Any) -> list[list[list[int]]]:
        from runner.tasks.coref.types import CorefInputError, prediction_from_json

        try:
            pred = prediction_from_json(data, item)
        except CorefInputError as exc:
            raise ValueError(str(exc)) from None
        return pred.to_json()

    # -- reading saved cases -------------------------------------------------------------------
    def difference_text(self, case: dict[str, Any]) -> str:
        verdict = case["verdict"]
        text = verdict.get("reason", "")
        if verdict.get("categories"):
            text += f" ({', '.join(verdict['categories'])})"
        return text

    def case_view(self, case: dict[str, Any]) -> dict[str, Any]:
        from runner.tasks.coref.oracle import to_source
        from runner.tasks.coref.view import events, follow_up_numbers
        from runner.types import Edit, Replacement

        view = super().case_view(case)
        src, fu = case["source"], case["follow_up"]
        edit = Edit(src["text"], tuple(Replacement(r["start"], r["end"], r["new"])
                                       for r in fu.get("edit", [])))
        src_changed = edit.changed_source_ranges()
        fu_changed = edit.changed_target_ranges()
        fu_pred = CorefPrediction.build([[tuple(m) for m in c] for c in fu["clusters"]])
        numbers = follow_up_numbers(src["clusters"], to_source(fu_pred, edit))
        view["source"] = events(src["text"], src["clusters"], list(range(len(src["clusters"]))),
                                src_changed)
        view["follow_up"] = events(fu["text"], [[m.to_json() for m in c] for c in fu_pred.clusters],
                                   numbers, fu_changed)
        if src.get("gold") is not None:
            view["gold_doc"] = events(src["text"], src["gold"], list(range(len(src["gold"]))), ())
        view["gold_check"] = case.get("gold")
        # the report's label column and filter: where the replacement word came from
        view["types"] = [fu.get("meta", {}).get("source", "")] if fu.get("meta", {}).get("source") else []
        view["blanc"] = fu.get("blanc")
        view["edit_source"] = fu.get("meta", {}).get("source", "")
        return view

    def charts(self, results: dict[str, Any]) -> list[tuple[str, Any]]:
        return category_chart(results, "Issue types", "Violations per issue type")

    def console_lines(self, results: dict[str, Any]) -> list[str]:
        lines = []
        cats = results.get("categories") or {}
        if cats:
            lines.append("issue types: " + ", ".join(f"{k} {v}" for k, v in cats.items()))
        gold = results.get("gold")
        if gold:
            lines.append(f"precision against gold: {gold['real_errors']} of "
                         f"{gold['violations_with_gold']} violations with gold clusters are real "
                         f"errors ({gold['precision']:.0%})")
        return lines
