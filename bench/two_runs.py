"""What the blind-reading scripts share (bench/re_r1_lm.py, bench/re_named_again.py,
bench/coref_gum_b_reads.py): the command line — ``draw A B [--n N] [--seed S] [--part P]`` draws
the violations of two runs into the files to read; with no command, the table of the readers'
marks — and the reading of those marks (:func:`read_marks`)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

READS = Path(__file__).resolve().parent / "reads"


def write_draw(stem: str, rule: str, blind: list[dict[str, Any]], runs: dict[str, dict[str, Any]],
               key: dict[str, Any]) -> None:
    """Write a draw: ``bench/reads/<stem>.blind.json`` (the rule and the items, for the readers)
    and ``<stem>.key.json`` (the command, both runs' counts without their cases, the key)."""
    READS.mkdir(exist_ok=True)
    (READS / f"{stem}.blind.json").write_text(json.dumps(
        {"rule": rule, "items": blind}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    counts = {k: {m: v for m, v in r.items() if m != "fails"} for k, r in runs.items()}
    (READS / f"{stem}.key.json").write_text(json.dumps(
        {"command": f"python bench/{Path(sys.argv[0]).name} draw " + " ".join(sys.argv[2:]),
         "runs": counts, "key": key}, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(counts, indent=1))
    print(f"drew {len(blind)} violations into {READS / f'{stem}.blind.json'}")


def read_marks(stem: str) -> tuple[dict[str, Any], dict[str, dict[str, bool]]]:
    """``bench/reads/<stem>.key.json`` and the two readers' marks of ``<stem>.first.json`` and
    ``<stem>.second.json``: ``{"first": {id: real}, "second": {id: real}}``."""
    key = json.loads((READS / f"{stem}.key.json").read_text(encoding="utf-8"))
    marks = {reader: {m["id"]: bool(m["real"]) for m in json.loads(
        (READS / f"{stem}.{reader}.json").read_text(encoding="utf-8"))["marks"]}
        for reader in ("first", "second")}
    return key, marks


def group_rows(key: dict[str, Any], marks: dict[str, dict[str, bool]], header: str,
               groups: Sequence[tuple[str, str, int]]
               ) -> tuple[list[str], dict[str, dict[str, float]]]:
    """The table of a draw of two groups (a rule's removals and what it keeps): per group
    ``(name, what, count)`` a row — the count found, how many read, real to each reader, the
    share real, agreement — and the shares ``{group: {reader: share}}``."""
    rows = [f"| {header} | count | read | real (first / second) | share real (first / second) "
            "| agreement |", "|---|--:|--:|--:|--:|--:|"]
    share = {}
    for group, what, count in groups:
        ids = [i for i, k in key["key"].items() if k["group"] == group]
        real = {rd: sum(marks[rd][i] for i in ids) for rd in marks}
        share[group] = {rd: real[rd] / len(ids) for rd in real}
        agree = sum(marks["first"][i] == marks["second"][i] for i in ids)
        rows.append(f"| {what} | {count} | {len(ids)} | {real['first']} / {real['second']} | "
                    f"{100 * share[group]['first']:.0f} % / {100 * share[group]['second']:.0f} % "
                    f"| {agree}/{len(ids)} |")
    return rows, share


def main(doc: str, draw: Callable[..., None], table: Callable[..., str], *,
         runs: tuple[str, str], n: int | None = None, parts: Sequence[str] = (),
         argv: Sequence[str] | None = None) -> int:
    """``runs``: the two run folders' names (``draw``'s first two arguments); ``n``: the default
    of ``--n`` (None: no such option); ``parts``: the choices of ``--part`` (the first the
    default), passed to ``draw`` and ``table`` when given."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    d = sub.add_parser("draw")
    for name in runs:
        d.add_argument(name, type=Path)
    if n is not None:
        d.add_argument("--n", type=int, default=n)
    d.add_argument("--seed", type=int, default=13)
    for a in ((ap, d) if parts else ()):
        a.add_argument("--part", choices=list(parts), default=parts[0])
    args = ap.parse_args(argv)
    part = {"part": args.part} if parts else {}
    if args.cmd == "draw":
        draw(*(getattr(args, name) for name in runs),
             **({"n": args.n} if n is not None else {}), seed=args.seed, **part)
    else:
        print(table(**part))
    return 0
