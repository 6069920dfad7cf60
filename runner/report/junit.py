"""JUnit XML for CI servers: ``testsuites/testsuite/testcase/failure``.

Shows the run's verdict (runner/report/verdict.py), as every output does: ``errors`` > 0 exactly
when it is ERROR (the system under test could not answer: one ``system/answers`` test case with an
``error``); ``failures`` > 0 exactly when a threshold is exceeded (the verdict FAIL, unless the
system's errors come first). The verdict and its exit code are the properties ``verdict`` and
``verdict.exit_code`` and the suite's ``system-out``.

One ``testcase`` per transformation × relation (classname = the transformation, name = the
relation): failed when a threshold that covers it (overall, its relation's, its group's) failed and
its own rate is above that limit; ``skipped`` when no threshold covers it ("no threshold set") or
nothing was judged. The failure carries the first violations as examples. Then one test case per
threshold of ``report.fail_on`` (``thresholds/overall``, ``thresholds/<relation>``,
``groups/<group>``) and one per attack.
"""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from runner.report.display import visible_text
from runner.report.thresholds import per_transformation_rates
from runner.report.triage import is_false_alarm
from runner.report.writers import CaseSource, cases_of

EXAMPLES_PER_CASE = 5
# Characters XML 1.0 cannot carry at all (escaping does not help): replaced by U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: Any) -> str:
    return _NOT_XML.sub("\ufffd", str(value))


def describe_example(case: dict[str, Any], task: Any = None) -> str:
    """One violation as plain text; untrusted text with hidden characters shown as markers."""
    if task is None:
        from runner.tasks import DEFAULT_TASK, get_task

        task = get_task(DEFAULT_TASK)
    v = visible_text
    lines = [v(case["id"]), f"  source:    {v(case['source']['text'])}",
             f"  follow-up: {v(case['follow_up']['text'])}"]
    difference = task.difference_text(case)
    if difference:
        lines.append(f"  {v(difference)}")
    return "\n".join(lines)


def build_junit(results: dict[str, Any], cases: CaseSource) -> ET.Element:
    from runner.report.verdict import row_status, verdict_of
    from runner.tasks import task_of_results

    task = task_of_results(results)
    v = verdict_of(results)
    examples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    error_reasons: list[str] = []    # the first distinct reasons the system could not answer
    for case in cases_of(cases):
        if case["verdict"]["outcome"] == "error":
            reason = visible_text(case["verdict"].get("reason", ""))
            if reason not in error_reasons and len(error_reasons) < EXAMPLES_PER_CASE:
                error_reasons.append(reason)
        if case["verdict"]["outcome"] == "fail" and not is_false_alarm(case):
            bucket = examples.setdefault((case["transformation"], case["relation"]), [])
            if len(bucket) < EXAMPLES_PER_CASE:
                bucket.append(case)
    suite_name = results["suite"]["name"]
    duration = float(results["run"].get("duration_s") or 0.0)
    rows = results.get("summary", [])
    root = ET.Element("testsuites", name=xml_text(f"mtrun {suite_name}"))
    suite = ET.SubElement(root, "testsuite", name=xml_text(suite_name),
                          timestamp=str(results["run"].get("started", "")).replace("+00:00", ""),
                          hostname="localhost")
    props = ET.SubElement(suite, "properties")
    sut = results.get("components", {}).get("sut", {})
    for name, value in (("mtrun.version", results.get("versions", {}).get("mtrun", "")),
                        ("sut", f"{sut.get('type', '')} {sut.get('model', '')}".strip()),
                        ("seed", results["run"].get("seed")),
                        ("run.status", results["run"].get("status")),
                        ("overall.violation_rate", results["overall"].get("violation_rate")),
                        ("overall.violations_per_100_sources",
                         results["overall"].get("violations_per_100_sources")),
                        ("thresholds.status", results["thresholds"].get("status")),
                        ("verdict", v["label"]), ("verdict.exit_code", v["exit_code"])):
        ET.SubElement(props, "property", name=name, value=xml_text("" if value is None else value))
    n_tests = n_fail = n_skip = n_error = 0

    def testcase(classname: str, name: str, seconds: float = 0.0) -> ET.Element:
        nonlocal n_tests
        n_tests += 1
        return ET.SubElement(suite, "testcase", classname=xml_text(f"{suite_name}.{classname}"),
                             name=xml_text(name), time=f"{seconds:.3f}")

    def skipped(tc: ET.Element, message: str) -> None:
        nonlocal n_skip
        n_skip += 1
        ET.SubElement(tc, "skipped", message=xml_text(message))

    # The system under test: an error when it could not answer beyond report.fail_on's limits.
    o = results["overall"]
    e = v["errors"]
    if v["status"] == "error" or o.get("error"):
        tc = testcase("system", "answers")
        max_rate = "no limit" if e["max_error_rate"] is None else f"{e['max_error_rate']:.1%}"
        max_sources = "no limit" if e["max_source_errors"] is None else e["max_source_errors"]
        summary = (f"the system could not answer {e['sources']} source(s) and {e['follow_ups']} of "
                   f"{e['follow_up_cases']} follow-up case(s); limits: {max_sources} source(s), "
                   f"{max_rate} of the follow-ups (report.fail_on.max_source_errors, "
                   "max_error_rate)")
        if v["status"] == "error":
            n_error += 1
            ET.SubElement(tc, "error", message=xml_text("; ".join(v["reasons"])),
                          type="SystemUnderTestError").text = xml_text(
                v["headline"] + "\n" + "\n".join(v["reasons"]) + "\n" + summary + "\n"
                + "".join(f"\n{reason}" for reason in error_reasons) + "\n")
        ET.SubElement(tc, "system-out").text = xml_text(summary)
    # One test case per transformation × relation: failed when a threshold covering it failed
    # and its rate is above that threshold's limit (runner/report/verdict.py).
    for row in rows:
        t, rel = row["transformation"], row["relation"]
        judged = row["pass"] + row["fail"]
        tc = testcase(t, rel, duration * row["cases"] / max(o["cases"], 1))
        rate = row["violation_rate"]
        rs = row_status(results, row, v["checks"])
        limit = "none" if rs["max"] is None else f"{rs['max']:.1%}"
        if rs["status"] == "unjudged":
            skipped(tc, f"no judged case ({row['skip']} skipped, {row['error']} errors)")
        elif rs["status"] == "none":
            skipped(tc, "no threshold set for this row (report.fail_on): "
                        f"{row['fail']} violation(s) of {judged} reported, not judged")
        elif rs["status"] == "fail":
            n_fail += 1
            message = (f"{t} × {rel}: violation rate {rate:.1%} ({row['fail']} of {judged}); "
                       f"{rs['why']}")
            failure = ET.SubElement(tc, "failure", message=xml_text(message),
                                    type="MetamorphicRelationViolation")
            shown = examples.get((t, rel), [])
            failure.text = xml_text(
                message + f"\n\nFirst {len(shown)} of {row['fail']} violations:\n\n"
                + "\n\n".join(describe_example(c, task) for c in shown) + "\n")
        out = ET.SubElement(tc, "system-out")
        out.text = xml_text(f"sources {row['sources']}, applicable {row['applicable_sources']}, "
                            f"follow-ups {row['follow_ups']}, pass {row['pass']}, "
                            f"violations {row['fail']}, skip {row['skip']}, error {row['error']}, "
                            f"rate {'–' if rate is None else f'{rate:.1%}'}, limit {limit} "
                            f"({rs['why']})")
        shown = examples.get((t, rel), [])
        if shown and rs["status"] != "fail":   # violations not failed on: still shown
            out.text += xml_text(f"\n\nFirst {len(shown)} of {row['fail']} violations:\n\n"
                                 + "\n\n".join(describe_example(c, task) for c in shown) + "\n")
    # One test case per threshold of report.fail_on (overall, relations, groups, checks, bias
    # gaps); the attacks' have their own below.
    for group, counts in sorted((results.get("groups") or {}).items()):
        ET.SubElement(props, "property", name=f"group.{group}.violation_rate",
                      value=xml_text("" if counts.get("violation_rate") is None
                                     else counts["violation_rate"]))
    groups = results.get("groups") or {}
    per_check = per_transformation_rates(results.get("summary") or [])
    for check in v["checks"]:
        scope = check["scope"]
        if scope.startswith("attack "):
            continue
        rate = check["rate"]
        failure_type = "MetamorphicRelationViolation"
        if check.get("kind") == "gap":
            tc = testcase("bias", scope.removeprefix("bias gap "))
            members = ", ".join(f"{k} {r:.1%}" for k, r in sorted(check["members"].items()))
            summary = (f"{scope}: largest difference {'–' if rate is None else f'{rate:.1%}'} "
                       f"between {members or 'no judged check'}, limit {check['max']:.1%} "
                       "(report.fail_on.bias.max_gap)")
            failure_type = "BiasGap"
        elif scope.startswith("check "):
            name = scope.removeprefix("check ")
            tc = testcase("checks", name)
            counts = per_check.get(name) or {"pass": 0, "fail": 0}
            where = f"report.fail_on.transformations.{name}"
            summary = f"check {name}: "
        elif scope.startswith("group "):
            group = scope.removeprefix("group ")
            tc = testcase("groups", group)
            counts = groups.get(group) or {"pass": 0, "fail": 0, "transformations": []}
            where = f"report.fail_on.groups.{group}"
            summary = f"group {group} ({', '.join(counts['transformations'])}): "
        else:
            tc = testcase("thresholds", scope)
            counts = (o if scope == "overall" else
                      (results.get("relations") or {}).get(scope) or {"pass": 0, "fail": 0})
            where = ("report.fail_on.max_violation_rate" if scope == "overall"
                     else f"report.fail_on.relations.{scope}")
            summary = f"{scope}: "
        if check.get("kind") != "gap":
            summary += (f"violation rate {'–' if rate is None else f'{rate:.1%}'} "
                        f"({counts['fail']} of {counts['pass'] + counts['fail']}), "
                        f"limit {check['max']:.1%} ({where})")
        if rate is None:
            skipped(tc, summary)
        elif not check["passed"]:
            n_fail += 1
            ET.SubElement(tc, "failure", message=xml_text(summary),
                          type=failure_type).text = xml_text(summary)
        ET.SubElement(tc, "system-out").text = xml_text(summary)
    # the task's own test cases (NER: one per attack)
    added = task.junit_cases(results, suite, suite_name)
    n_tests, n_fail, n_skip = n_tests + added[0], n_fail + added[1], n_skip + added[2]
    ET.SubElement(suite, "system-out").text = xml_text(
        "\n".join([v["headline"], *v["reasons"]]) + "\n")
    for el in (root, suite):
        el.set("tests", str(n_tests))
        el.set("failures", str(n_fail))
        el.set("errors", str(n_error))
        el.set("time", f"{duration:.3f}")
    suite.set("skipped", str(n_skip))  # testsuites has no such attribute in the Jenkins schema
    return root


def write_junit(results: dict[str, Any], cases: CaseSource, out_path: Path) -> Path:
    root = build_junit(results, cases)
    ET.indent(root)
    tmp = out_path.with_name(out_path.name + ".tmp")
    ET.ElementTree(root).write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, out_path)
    return out_path
