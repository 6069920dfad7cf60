"""The contract between mtrun's task-agnostic shell and one task (NER, relation extraction,
coreference...).

The shell — suite loading and validation, the engine's loop, the prediction caches, retries,
``--resume``, ``--dry-run``, thresholds and exit codes, results.json, the HTML report's first
screen, JUnit, Markdown and ``mtrun diff`` — knows no span and no relation. It asks the task:

- **what a suite may say** (:meth:`Task.registries`, :meth:`Task.corpus_schema`,
  :meth:`Task.sections`, :meth:`Task.cross_check`): the components a ``task: X`` suite may name,
  its corpus section, the top-level sections the task owns (NER: ``repair``);
- **what the inputs are** (:meth:`Task.corpus`, :meth:`Task.sut_input`): sources with ``id``,
  ``text`` and ``origin``, and what the system under test is asked about each;
- **what a follow-up should get** (:meth:`Task.expected`) and **how a group is judged**
  (:meth:`Task.judge`, with the suite's relation objects);
- **how cases read** (:meth:`Task.case_to_json`, :meth:`Task.case_key`,
  :meth:`Task.difference_text`, :meth:`Task.case_view` + :attr:`Task.case_template`): JSON for
  results.json and cases.jsonl, one line of text for JUnit/Markdown/diff, the side-by-side view;
- **what else to do with violations** (:meth:`Task.analyzer`): e.g. NER's error categories and
  repair; a task without one gets :class:`NullAnalyzer`;
- **what the python system under test exchanges** (:meth:`Task.input_to_json`,
  :meth:`Task.prediction_from_json`, :meth:`Task.system_base`): the documented JSON-like shapes
  of an input and a prediction, and the class that turns the answer into a prediction.

A task package (``runner/tasks/<name>/``) holds its value types, corpus readers, systems under
test, transformations, relations, report partial and registrations; it is registered by name in
:data:`runner.tasks.TASKS` and imported only when a suite names it. Systems under test subclass
:class:`runner.sut.base.SystemUnderTest` (transport, caches, retries shared); transformations
:class:`runner.transforms.base.Transformation`; filters are shared (:mod:`runner.filters`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Mapping, Protocol

from runner.types import FollowUp, TestCase, Verdict

if TYPE_CHECKING:
    from markupsafe import Markup

    from runner.errors import SuiteError
    from runner.registry import Registry
    from runner.stages import BatchStage


class Suite(Protocol):
    """What a task sees of a loaded suite (:class:`runner.suite.Suite`): declared here, below the
    suite loader, so that a task does not import the loader (which imports the task registry)."""

    path: Path
    config: dict[str, Any]

    @property
    def base_dir(self) -> Path: ...

    @property
    def corpus_path(self) -> Path: ...

    def error(self, message: str, at: tuple, *, hint: str | None = None) -> "SuiteError": ...


class Source(Protocol):
    """What the shell needs of a source: a stable ``id`` (part of every case id and of the seed
    of its generators), its ``text`` (parsed, filtered, shown) and ``origin`` (``file:line``)."""

    id: str
    text: str
    origin: str


class Corpus(Protocol):
    """A task's corpus reader: every problem is a :class:`~runner.errors.SuiteError` naming file
    and line. :meth:`count` reads (and so validates) the whole corpus before any model loads."""

    def count(self) -> int: ...

    def __iter__(self) -> Iterator[Source]: ...


class Analyzer(Protocol):
    """A task's per-violation analysis, run by the engine after each batch's verdicts.

    ``observe`` sees the batch's sources and their predictions (``SUTFailure`` where the system
    could not answer); ``process`` returns the batch's cases, violations possibly enriched
    (``Verdict.categories``, ``TestCase.repair``/``gold``); ``checkpoint`` is called once the batch
    is recorded and its JSON goes to the progress file, ``restore_from_progress`` takes the
    recorded checkpoints back on ``--resume``; ``results`` gives the top-level keys it adds to
    results.json (e.g. ``categories``, ``repair``)."""

    def observe(self, batch: list[Any], predictions: list[Any]) -> None: ...

    def process(self, cases: list[TestCase]) -> list[TestCase]: ...

    def checkpoint(self) -> Any: ...

    def restore_from_progress(self, progress_path: Any) -> None: ...

    def results(self) -> dict[str, Any]: ...


class NullAnalyzer:
    """No analysis: the cases go through unchanged."""

    def observe(self, batch: list[Any], predictions: list[Any]) -> None:
        pass

    def process(self, cases: list[TestCase]) -> list[TestCase]:
        return cases

    def checkpoint(self) -> Any:
        return None

    def restore_from_progress(self, progress_path: Any) -> None:
        pass

    def results(self) -> dict[str, Any]:
        return {}


class Task:
    """One task. Subclasses set :attr:`name` and :attr:`description` and implement the methods
    that raise ``NotImplementedError``; the others have defaults that fit a task whose inputs are
    texts and whose predictions serialise with ``to_json``."""

    #: the value of ``task:`` in a suite
    name: ClassVar[str]
    #: one line for ``mtrun list`` and the schema
    description: ClassVar[str] = ""
    #: corpus.format "auto": file extension → format name (the formats of :meth:`corpus_schema`)
    corpus_extensions: ClassVar[Mapping[str, str]] = {}
    #: Jinja template (under ``templates/``) of one violation's opened row in report.html and of a
    #: case in diff.html; it reads the dict :meth:`case_view` returned as ``v`` (and, in the diff,
    #: ``key``: "new" or "fixed"). The default shows both texts and the predictions as JSON.
    case_template: ClassVar[str] = "case.html.j2"
    #: template of the legend above the report's violation table (reads ``labels``: the
    #: ``types`` shown), or "" for none
    legend_template: ClassVar[str] = ""
    #: templates the ``mtrun diff`` page includes after its table (they read the comparison ``d``)
    diff_partials: ClassVar[tuple[str, ...]] = ()
    #: top-level suite sections that configure stages after the cases (NER: ``attacks``); a
    #: suite may list no transformation when it lists one of these
    stage_sections: ClassVar[tuple[str, ...]] = ()
    #: templates included below the first screen of report.html (they read the results as ``r``)
    report_partials: ClassVar[tuple[str, ...]] = ()
    #: header of the report's column of labels (``case_view()["types"]``), e.g. "Entity types"
    types_column: ClassVar[str] = "Labels"

    # -- what a suite may say ------------------------------------------------------------------
    def registries(self) -> dict[str, "Registry"]:
        """The task's components: ``{"sut": ..., "transformations": ..., "relations": ...,
        "filters": ...}``. A transformation's entry names its default relation in
        ``extra["relation"]``, may bound the follow-ups one source gives for ``--dry-run``
        (``extra["max_per_source"]``: params → int), says it loads models
        (``extra["models"]``: it gets ``device``), puts it in a group reported apart and held to
        ``report.fail_on.groups`` (``extra["group"]``: ``research`` by default, ``robustness``,
        ``bias``) and says what a violation of it means (``extra["violation"]``, shown in the
        report); a system under test's ``extra["device"]`` says it runs on torch (it gets the
        resolved ``device``), ``extra["task"]`` that it is built with ``task=`` (the shared
        python system). Default: ``REGISTRIES`` of the task's ``catalog`` module
        (``runner.tasks.<name>.catalog``)."""
        from importlib import import_module

        return import_module(f"{type(self).__module__.rsplit('.', 1)[0]}.catalog").REGISTRIES

    def corpus_schema(self) -> dict[str, Any]:
        """JSON Schema of the suite's ``corpus`` section (at least ``path`` and ``format``, with
        ``auto`` resolved through :attr:`corpus_extensions`; :func:`corpus_section` writes
        those two)."""
        raise NotImplementedError

    def sections(self) -> dict[str, dict[str, Any]]:
        """Top-level suite sections this task owns, name → JSON Schema (NER: ``repair``). A
        suite of another task may not use them."""
        return {}

    def cross_check(self, suite: "Suite") -> None:
        """Checks of a ``task: X`` suite that JSON Schema cannot express (files named by
        parameters, parameter combinations); raise ``suite.error(message, path)``."""

    def model_needs(self, cfg: dict[str, Any]) -> list[Any]:
        """What a suite of this task (``cfg``, as filled) would load, without loading it
        (``mtrun models``: :class:`runner.models.inventory.Need` each): its system, its
        transformations' and own filters' models, its stages'. The shared filters' are added
        by the inventory."""
        return []

    def system_base(self) -> type:
        """The task's :class:`~runner.sut.base.SystemUnderTest` subclass that turns a raw answer
        into a prediction (``_convert``, ``_check_raw``); the shared ``python`` system is built
        on it (:func:`runner.sut.python_sut.build_python_system`)."""
        raise NotImplementedError

    # -- inputs --------------------------------------------------------------------------------
    def corpus(self, suite: "Suite") -> Corpus:
        raise NotImplementedError

    def transformation_params(self, suite: "Suite", spec: dict[str, Any],
                              params: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments a transformation of the suite is built with: its parameters as
        filled (``params``), plus what the task adds from the suite (RE: the relation tables and
        the corpus's entity pool). Default: the parameters unchanged."""
        return params

    def sut_input(self, source: Any) -> Any:
        """What the system under test is asked about a source (NER: its text). The input of a
        follow-up is ``FollowUp.input``."""
        return source.text

    # -- judging -------------------------------------------------------------------------------
    def empty_prediction(self) -> Any:
        """The prediction recorded in a case whose system call failed (an ``error`` case)."""
        raise NotImplementedError

    def expected(self, source: Any, prediction: Any, follow_up: FollowUp) -> Any:
        """What the follow-up is expected to get, derived from the source's prediction (e.g.
        through ``follow_up.edit``); recorded in the case, given to :meth:`judge`."""
        return None

    def judge(self, relation: Any, *, source: Any, source_prediction: Any, follow_up: FollowUp,
              follow_up_prediction: Any, expected: Any) -> Verdict:
        """The verdict of ``relation`` (an object the task's relation registry built) on one
        group. Pass, fail, or skip when the relation does not apply (never pass by default)."""
        return relation.check(source=source, source_prediction=source_prediction,
                              follow_up=follow_up, follow_up_prediction=follow_up_prediction,
                              expected=expected)

    def analyzer(self, cfg: dict[str, Any], sut: Any, log: Callable[[str], None]) -> Analyzer:
        """The per-violation analysis of a run with the suite ``cfg`` (as filled)."""
        return NullAnalyzer()

    # -- serialisation -------------------------------------------------------------------------
    def source_to_json(self, source: Any, prediction: Any) -> dict[str, Any]:
        """The case's ``source`` object; it must hold ``text``."""
        return {"text": source.text, "prediction": _to_json(prediction)}

    def follow_up_to_json(self, case: TestCase) -> dict[str, Any]:
        """The case's ``follow_up`` object; it must hold ``text``, ``edit`` and ``meta``."""
        f = case.follow_up
        return {"text": f.text, "prediction": _to_json(case.follow_up_prediction),
                "expected": _to_json(case.expected),
                "edit": f.edit.to_json() if f.edit is not None else [], "meta": f.meta}

    def case_to_json(self, case: TestCase) -> dict[str, Any]:
        """One line of cases.jsonl / one item of results.json ``cases``."""
        d: dict[str, Any] = {
            "id": case.id,
            "source_id": case.source.id,
            "origin": case.source.origin,
            "transformation": case.follow_up.transformation,
            "relation": case.relation,
            "source": self.source_to_json(case.source, case.source_prediction),
            "follow_up": self.follow_up_to_json(case),
            "verdict": case.verdict.to_json(),
        }
        if case.repair is not None:
            d["repair"] = case.repair
        if case.gold is not None:
            d["gold"] = case.gold
        return d

    def input_to_json(self, item: Any) -> Any:
        """An input as the python system under test receives it (documented per task)."""
        return item

    def prediction_from_json(self, data: Any, item: Any) -> Any:
        """The raw answer the python system under test returned about ``item``, checked: raise
        ``ValueError`` with a plain reason when it is not a valid answer. The result is what the
        system's ``_convert`` receives (and what the persistent cache stores: keep it JSON)."""
        raise NotImplementedError

    def input_key(self, item: Any) -> str:
        """What identifies an input in the prediction caches (NER: the text)."""
        if isinstance(item, str):
            return item
        import json

        return json.dumps(self.input_to_json(item), sort_keys=True, ensure_ascii=False)

    # -- reading saved cases (report, JUnit, Markdown, diff) -----------------------------------
    def case_key(self, case: dict[str, Any]) -> tuple[str, ...]:
        """What makes a saved case the same case in two runs (``mtrun diff``)."""
        return (case["source"]["text"], case["transformation"], case["follow_up"]["text"],
                case["relation"])

    def difference_text(self, case: dict[str, Any]) -> str:
        """One line saying what differs in a saved violation (JUnit, Markdown, diff)."""
        return case["verdict"].get("reason", "")

    def case_view(self, case: dict[str, Any]) -> dict[str, Any]:
        """What :attr:`case_template` reads for one saved case. The shell uses ``id``,
        ``origin``, ``transformation``, ``relation``, ``reason``, ``categories``, ``types``
        (labels the report can filter on), ``differences`` (their number is a sortable column),
        ``source_text`` and ``follow_up_text``."""
        from runner.text.changes import changed_ranges, segments

        verdict = case["verdict"]
        src_changed, tgt_changed = changed_ranges(case)
        src, fol = case["source"], case["follow_up"]
        return {"id": case["id"], "origin": case.get("origin", ""),
                "transformation": case["transformation"], "relation": case["relation"],
                "reason": verdict.get("reason", ""), "differences": verdict.get("differences", []),
                "categories": list(verdict.get("categories") or []),
                "categories_basis": verdict.get("categories_basis", ""), "types": [],
                "source_text": case["source"]["text"],
                "follow_up_text": case["follow_up"]["text"],
                "meta": case["follow_up"].get("meta", {}), "repair": case.get("repair"),
                "gold": case.get("gold"), "triage": case.get("triage"),
                # the texts with the edit marked, and the predictions, for the default template
                "source_parts": segments(src["text"], [], src_changed)[0]["parts"]
                if src["text"] else [],
                "follow_up_parts": segments(fol["text"], [], tgt_changed)[0]["parts"]
                if fol["text"] else [],
                "source_prediction": src.get("prediction"),
                "follow_up_prediction": fol.get("prediction")}

    def charts(self, results: dict[str, Any]) -> list[tuple[str, "Markup"]]:
        """Extra charts of the report's first screen: (title, inline SVG)."""
        return []

    def console_lines(self, results: dict[str, Any]) -> list[str]:
        """Lines printed below the console summary table."""
        return []

    # -- stages after a batch's cases, and their part of the outputs ----------------------------
    def stages(self, suite: "Suite", sut: Any, log: Callable[[str], None]) -> list["BatchStage"]:
        """The stages the suite asks for that run after each batch's cases (NER: attacks)."""
        return []

    def report_context(self, results: dict[str, Any], limit: int) -> dict[str, Any]:
        """Template variables :attr:`report_partials` read besides the results (``r``);
        ``limit``: the suite's ``max_violations_shown``."""
        return {}

    def threshold_rows(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        """Rows the first screen's threshold table adds after the relations' and groups'
        (``scope``, ``rate``, ``max``, ``fail``, ``judged``)."""
        return []

    def markdown_lines(self, results: dict[str, Any]) -> list[str]:
        """Lines summary.md adds after its tables of relations and groups."""
        return []

    def compare_runs(self, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        """What ``mtrun diff`` adds to its comparison of two runs' results (NER: the attacks);
        shown by :meth:`diff_lines` and :attr:`diff_partials`."""
        return {}

    def diff_lines(self, d: dict[str, Any], *, markdown: bool) -> list[str]:
        """Lines ``mtrun diff`` prints (console) or writes (Markdown) after its table."""
        return []

    def junit_cases(self, results: dict[str, Any], suite: Any, suite_name: str) -> tuple[int, int, int]:
        """JUnit test cases the task adds to ``suite`` (an ElementTree element): returns how many
        tests, failures and skipped it added."""
        return 0, 0, 0


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        return value
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return str(value)


def corpus_section(formats: list[str], auto: str, **properties: Any) -> dict[str, Any]:
    """The JSON Schema of a ``corpus`` section: ``path`` (relative to the suite file),
    ``format`` (``auto`` — described by ``auto``, how it chooses — or one of ``formats``) and
    the task's own keys ``properties``."""
    return {
        "type": "object", "additionalProperties": False, "required": ["path"],
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "Relative to the suite file."},
            "format": {"enum": ["auto", *formats], "default": "auto", "description": auto},
            **properties,
        },
    }


def category_chart(results: dict[str, Any], title: str, what: str) -> list[tuple[str, Any]]:
    """The report's chart of ``results["categories"]`` (violations per category, most first):
    ``[(title, chart)]``, the categories no violation has left out, or nothing when none has
    one."""
    from runner.report.charts import count_chart

    cats = {k: n for k, n in (results.get("categories") or {}).items() if n}
    if not cats:
        return []   # no violation has a category: no chart of zeros
    items = sorted(cats.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(title, count_chart(items, what, cls="cat"))]
