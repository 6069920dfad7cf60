"""``name_swap`` on the embedded xrenner, read: draws of its violations on Wikipedia passages of
GAP, each read by two readers, the second blind; beside CREST's defaults on the same passages
(xrenner mended, ``bench/coref_mended_reads.py``).

- part ``bc``: GAP's parts b and c, which none of name_swap's rules was written on (they were
  written on GUM's parts b and c and GAP's part a); ``bench/reads/coref_names.*``;
- the two rules written on reading part bc's draw (a ruler's or a saint's name is not swapped;
  new names unknown to WordNet), counted on the same violations (``rules``);
- part ``d``: GAP's part d, built after those rules, with them; ``bench/reads/coref_names_d.*``;
- part ``e``: GAP's part e, built after part d was read and the rules written on it (a first
  name that is also a surname needs a full name; a regnal number; a dash of hyphens), run twice:
  the defaults and the new names ranked by the embedded LM (``lm: smollm2``); a draw of each
  run's violations (one read once when both runs have it); ``bench/reads/coref_names_e.*``;
- part ``f``: GAP's parts f and g, built after part e was read: two people's first names of
  one gender exchanged (``new_names: passage``), read; the defaults run on part f for their
  count only; ``bench/reads/coref_names_f.*``;
- part ``h``: GAP's parts h and i, built after parts b to g were read and the rules written on
  them (``fit_era``, the gender share, venues, a surname's later word): the defaults, read;
  beside, the same passages with ``fit_era`` off and no gender share
  (``bench/coref_names_gap_h_before.yaml``, ``_i_before.yaml``), counted, and those of their
  violations the defaults would not make read blind with the others;
  ``bench/reads/coref_names_h.*``;
- part ``j``: QED's paragraphs and GAP's part j, built after part h was read, drawn and read as
  part h (``bench/coref_names_qed*.yaml``, ``_gap_j*.yaml``); ``bench/reads/coref_names_j.*``;
- part ``k``: the openings of Re-DocRED's Wikipedia articles, built after part j was read and
  the rules written on it, the defaults, every violation read; ``bench/reads/coref_names_k.*``;
- part ``l``: passages of eleven novels, fiction (``bench/make_coref_fiction.py``), built after
  every rule was written: every violation of the exchanges (``new_names: passage``) and a draw
  of the defaults' (names from the lists), read together; ``bench/reads/coref_names_l.*``;
- part ``m``: passages of eleven other novels (``make_coref_fiction.py --part b``), built
  after part l was read and the rules written on it, drawn and read as part l;
  ``bench/reads/coref_names_m.*``;
- part ``n``: passages of twice eleven more novels (``--part c``, ``--part d``), built after
  part m was read and the rules written on it, drawn and read as part l (every violation of
  both parts' exchanges, ``--n`` of both parts' lists); ``bench/reads/coref_names_n.*``;
- part ``o``: passages of twenty-nine more novels (``--part e``, ``f``, ``g``), built after
  part n was read and the rule written on it: every violation of the exchanges, read as part
  l (the lists' form was not run); ``bench/reads/coref_names_o.*``;
- part ``p``: passages of six more novels (``--part h``), built after part o was read, with no
  rule written on it: the same code measured again, read as part o;
  ``bench/reads/coref_names_p.*``;
- part ``q``: passages of eleven more novels (``--part i``), each with the year its book is set,
  built after part p was read and ``fit_era`` was given that year: a draw of the defaults'
  violations (names from the lists, of that year), read as part l; ``rules --part q`` counts the
  read violations of the lists in parts l to n that the year would not make;
- part ``r``: passages of nine more novels (``--part j``), with years, built after part q was
  read and the rules written on it (England's lists too, a name also written elided): drawn
  and read as part q;
- part ``s``: passages of six more novels (``--part k``), with years, built after part r was
  read, with no rule written on it: the same code measured on other books, read as part q.

    python bench/coref_names_reads.py draw --part bc GAP_B_RUN GAP_C_RUN [--n 50] [--seed 13]
    python bench/coref_names_reads.py draw --part d GAP_D_RUN [--n 50] [--seed 13]
    python bench/coref_names_reads.py draw --part e GAP_E_RUN GAP_E_LM_RUN [--n 30] [--seed 13]
    python bench/coref_names_reads.py draw --part f F_PASSAGE_RUN G_PASSAGE_RUN F_RUN [--n 60]
        runs (``-o RUN``) of bench/coref_names_gap_b.yaml, _gap_c.yaml, _gap_d.yaml,
        _gap_e.yaml, _gap_e_lm.yaml, _gap_f_passage.yaml, _gap_g_passage.yaml, _gap_f.yaml
    python bench/coref_names_reads.py draw --part h H_RUN I_RUN H_BEFORE_RUN I_BEFORE_RUN
    python bench/coref_names_reads.py draw --part j QED_RUN J_RUN QED_BEFORE_RUN J_BEFORE_RUN
        (``--n``: per run for part e; parts f and h draw from their first two runs)
    python bench/coref_names_reads.py rules GAP_B_RUN GAP_C_RUN
        which read violations of part bc the rules would not have made, and the counts of
        runs of the same suites with them
    python bench/coref_names_reads.py draw --part k REDOCRED_RUN
    python bench/coref_names_reads.py draw --part l|m PASSAGE_RUN LISTS_RUN [--n 40]
    python bench/coref_names_reads.py draw --part n C_PASSAGE_RUN C_RUN D_PASSAGE_RUN D_RUN
    python bench/coref_names_reads.py draw --part o E_PASSAGE_RUN F_PASSAGE_RUN G_PASSAGE_RUN
    python bench/coref_names_reads.py draw --part p H_PASSAGE_RUN
    python bench/coref_names_reads.py draw --part q|r|s I_RUN|J_RUN|K_RUN [--n 50]
        (every violation of the exchanges' runs, ``--n`` drawn from the lists' runs)
    python bench/coref_names_reads.py rules --part q
    python bench/coref_names_reads.py [--part bc|d|e|f|h|j|k|l|m|n|o|p|q|r|s]
        a part's table, once its draw's .first.json and .second.json hold the marks
"""
from __future__ import annotations

import argparse
import functools
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from coref_gum_b_reads import _clusters, _run  # noqa: E402
from coref_mended_reads import part_figures  # noqa: E402
from coref_names_sets import (BUILT, EXPECTATION, FICTION, HEAD, LABELS,  # noqa: E402
                              RULE, RULES_AFTER, SETS)
from speed import commit  # noqa: E402
from two_runs import READS, read_marks, write_draw  # noqa: E402


def _suite(part: str) -> str:
    return f"bench/coref_names_{part}.yaml"


def draw(which: str, runs_dirs: list[Path], n: int, seed: int) -> None:
    stem, parts = SETS[which]
    if len(runs_dirs) != len(parts):
        sys.exit(f"part {which} takes the runs of {', '.join(map(_suite, parts))}")
    runs = {part: _run(d) for part, d in zip(parts, runs_dirs)}
    rng = random.Random(seed)
    if which == "e":              # two runs of one part: n of each, one read once if in both
        made = {part: {(c["source_id"], c["follow_up"]["text"]) for c in r["fails"]}
                for part, r in runs.items()}
        picked, seen = [], set()
        for part, r in runs.items():
            for c in rng.sample(r["fails"], min(n, len(r["fails"]))):
                k = (c["source_id"], c["follow_up"]["text"])
                if k not in seen:
                    seen.add(k)
                    picked.append((part, c))
        rng.shuffle(picked)
    elif which in FICTION:      # every exchange's violation, n of the lists'
        lists = [(p, c) for p in parts if not p.endswith("_passage") for c in runs[p]["fails"]]
        picked = [(p, c) for p in parts if p.endswith("_passage") for c in runs[p]["fails"]]
        picked += rng.sample(lists, min(n, len(lists)))
        rng.shuffle(picked)
    else:
        read = parts[:2] if which in ("f", "h", "j") else parts
        pool = [(part, c) for part, r in runs.items() if part in read for c in r["fails"]]
        picked = rng.sample(pool, min(n, len(pool)))
        if which in ("h", "j"):   # with them, the violations the rules removed, read blind too
            gone = [(part, c) for part in parts[2:] for c in runs[part]["fails"]
                    if _removed(c["source"]["text"], c["follow_up"]["meta"])]
            picked = rng.sample(picked + gone, len(picked) + len(gone))
    blind, key = [], {}
    prefix = {"bc": "n"}.get(which, which)
    for k, (part, c) in enumerate(picked, 1):
        fu, item_id = c["follow_up"], f"{prefix}-{k:02d}"
        blind.append({"id": item_id, "source": c["source"]["text"], "follow_up": fu["text"],
                      "changed": (f"{fu['meta']['old']} <-> {fu['meta']['new']} (the two names "
                                  f"exchanged, every occurrence of each)"
                                  if fu["meta"].get("exchanged") else
                                  f"{fu['meta']['old']} -> {fu['meta']['new']} (every occurrence)"),
                      "source_clusters": _clusters(c["source"]["text"], c["source"]["clusters"]),
                      "follow_up_clusters": _clusters(fu["text"], fu["clusters"]),
                      "expectation": EXPECTATION})
        key[item_id] = {"case": c["id"], "part": part, "source_id": c["source_id"]}
        if which in ("h", "j") and part in parts[2:]:
            key[item_id]["removed"] = _removed(c["source"]["text"], fu["meta"])
        if which == "e":
            key[item_id]["in"] = [p for p in parts
                                  if (c["source_id"], fu["text"]) in made[p]]
    write_draw(stem, RULE, blind, runs, key)


@functools.lru_cache(maxsize=1)
def _swap() -> object:
    from runner.tasks.coref.name_swap import NameSwap

    return NameSwap()


def _removed(source: str, meta: dict) -> str | None:
    """Why name_swap's defaults would not make a follow-up made with ``fit_era`` off and no
    gender share: ``name`` (the name is not swapped), ``old`` (the passage swaps no name: its
    median year is before 1800, or with ``fit_place`` it is of another nation), ``era`` (the
    new name is not among those the passage's time takes) or
    ``pool`` (nor among any); None where they would."""
    swap = _swap()
    gender = swap.names(source).get(meta["old"])
    if gender is None:
        return "name"
    pools = swap.pools_for(source)
    if pools is None:
        return "old"
    if meta["new"] in pools[gender]:
        return None
    return "era" if meta["new"] in swap.pool[gender] else "pool"


def later_rules(which: str) -> None:
    """Parts h, j, k and l: which of the read violations the rules written after the part
    was read would not make (the name is no longer swapped there, or the new name is not among
    those the passage may take), kept in the key."""
    stem = SETS[which][0]
    path = READS / f"{stem}.key.json"
    key = json.loads(path.read_text(encoding="utf-8"))
    blind = json.loads((READS / f"{stem}.blind.json").read_text(encoding="utf-8"))["items"]
    gone: dict[str, list[str]] = {"name": [], "renamed": []}
    for it in blind:
        if "removed" in key["key"][it["id"]]:
            continue
        changed = it["changed"].split(" (")[0]
        if " <-> " in changed:        # an exchange: gone when either name is no longer swapped
            names = _swap().names(it["source"])
            why = None if all(n in names for n in changed.split(" <-> ")) else "name"
        else:
            old, new = changed.split(" -> ")
            why = _removed(it["source"], {"old": old, "new": new})
        if why:
            gone["name" if why in ("name", "old") else "renamed"].append(it["id"])
    code = commit()
    key["later_rules"] = {"command": f"python bench/coref_names_reads.py rules --part {which}",
                          "code": code, **gone}
    path.write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    print(f"part {which}: not swapped {gone['name']}; another new name {gone['renamed']}")


def year_rule() -> None:
    """Part q's rule counted on the lists' read violations of parts l to n: those whose name is
    still swapped but whose new name is not one the year would give, had each passage carried
    a year of 1800–1939 (every one gives the same names), kept in part q's key."""
    path = READS / f"{SETS['q'][0]}.key.json"
    key = json.loads(path.read_text(encoding="utf-8"))
    counted = {}
    for part in ("l", "m", "n"):
        stem = SETS[part][0]
        keys = json.loads((READS / f"{stem}.key.json").read_text(encoding="utf-8"))["key"]
        blind = json.loads((READS / f"{stem}.blind.json").read_text(encoding="utf-8"))["items"]
        lists = [it for it in blind if not keys[it["id"]]["part"].endswith("_passage")]
        renamed = []
        for it in lists:
            old, new = it["changed"].split(" (")[0].split(" -> ")
            gender = _swap().names(it["source"]).get(old)
            pools = _swap().pools_for(it["source"], 1900) if gender else None
            if pools is not None and new not in pools[gender]:
                renamed.append(it["id"])
        counted[part] = {"read": len(lists), "renamed": renamed}
    code = commit()
    key["year_rule"] = {"command": "python bench/coref_names_reads.py rules --part q",
                        "code": code, "parts": counted}
    path.write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    print({p: len(c["renamed"]) for p, c in counted.items()})


def _year_rule(key: dict) -> str:
    """Part q: the sentence on :func:`year_rule`'s count."""
    if "year_rule" not in key:
        return ""
    parts = key["year_rule"]["parts"]
    ids = [i for c in parts.values() for i in c["renamed"]]
    marks: dict[str, dict[str, bool]] = {"first": {}, "second": {}}
    for part in parts:                   # ids are the part's letter and a number: none shared
        for reader, read in read_marks(SETS[part][0])[1].items():
            marks[reader].update(read)
    return (f"\n\nThe names of a year before 1940 as they are after part q was read (both "
            f"lists), counted on the lists' reads of parts l to n, on which the rule's first "
            f"step was written: had those passages "
            f"carried a year of 1800–1939, as their books are set (three of Austen's are set "
            f"in the 1790s, where no name would be swapped at all), "
            f"{len(ids)} of the lists' {sum(c['read'] for c in parts.values())}"
            f" read violations there would have been given a name of that time instead, "
            f"{_false_alarms(marks, ids)} of them false alarms to the two readers "
            f"(`{key['year_rule']['command']}` at commit {key['year_rule']['code']}).")


def rules(runs_dirs: list[Path]) -> None:
    """Which read violations of part bc the two rules would not have made: the name replaced is
    no longer one name_swap swaps in that passage, or the new name is no longer in its pool
    (the rules change nothing else); and the counts of runs of the same suites with them."""
    from runner.tasks.coref.name_swap import NameSwap

    stem = SETS["bc"][0]
    path = READS / f"{stem}.key.json"
    key = json.loads(path.read_text(encoding="utf-8"))
    blind = json.loads((READS / f"{stem}.blind.json").read_text(encoding="utf-8"))["items"]
    swap = NameSwap()
    removed = []
    for it in blind:
        old, new = it["changed"].split(" (")[0].split(" -> ")
        if old not in swap.names(it["source"]) or new not in set().union(*swap.pool.values()):
            removed.append(it["id"])
    runs = {part: _run(d) for part, d in zip(SETS["bc"][1], runs_dirs)}
    key["rules"] = {"command": "python bench/coref_names_reads.py rules "
                               + " ".join(map(str, runs_dirs)),
                    "runs": {p: {m: v for m, v in r.items() if m != "fails"}
                             for p, r in runs.items()},
                    "removed": removed}
    path.write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    print(f"the rules would not have made {len(removed)} of the {len(blind)} read: {removed}")


def _row(what: str, n_src: int, follow_ups: int, n: int, read: int, r1: int, r2: int,
         agree: int | None, read2: int | None = None) -> str:
    """``read2``: how many the second reader read, where that is fewer than the first."""
    read2 = read if read2 is None else read2
    v1, v2 = r1 / read, r2 / read2
    per = 100 * n / n_src
    shown = str(read) if read2 == read else f"{read} (second: {read2})"
    return (f"| {what} | {n_src} | {follow_ups:,} | {n} | {per:.1f} | {shown} | {r1} / {r2} | "
            f"{100 * v1:.0f} % / {100 * v2:.0f} % | {per * v1:.1f} / {per * v2:.1f} | "
            f"{'–' if agree is None else f'{agree}/{read2}'} |")


def _vals(key: dict, marks: dict, part: str) -> list[int]:
    """A read run's row: passages, follow-ups, violations, read, real to each reader, agreement,
    read by the second reader."""
    r = key["runs"][part]
    ids = [i for i, k in key["key"].items()
           if part in k.get("in", [k["part"]]) and "removed" not in k]
    both = [i for i in ids if i in marks["second"]]
    return [r["sources"], r["follow_ups"], r["violations"], len(ids),
            sum(marks["first"][i] for i in ids), sum(marks["second"][i] for i in both),
            sum(marks["first"][i] == marks["second"][i] for i in both), len(both)]


def _part_rows(which: str) -> tuple[list[str], list[int], dict]:
    stem, parts = SETS[which]
    key, marks = read_marks(stem)
    rows, tot = [], [0] * 8           # the row's seven numbers, then read by the second
    for part in parts:
        vals = _vals(key, marks, part)
        if not vals[3]:                              # a run counted, not read
            n_src, follow_ups, n = vals[:3]
            rows.append(f"| {LABELS[part]} | {n_src} | {follow_ups:,} | {n} | "
                        f"{100 * n / n_src:.1f} | – | – | – | – | – |")
            continue
        rows.append(_row(LABELS[part], *vals[:7], read2=vals[7]))
        tot = [a + b for a, b in zip(tot, vals)]
    return rows, tot, key


def _two_runs(key: dict, marks: dict, parts: tuple[str, ...]) -> list[int]:
    """The :func:`_vals` of two read runs, summed."""
    return [a + b for a, b in zip(*(_vals(key, marks, p) for p in parts[:2]))]


def _before_and_after(which: str, rows: list[str], key: dict, marks: dict) -> str:
    """Parts h and j: the defaults' violations read; the runs without the time and gender rules
    counted, and those of their violations the defaults would not make read among them."""
    stem, parts = SETS[which]
    both = _two_runs(key, marks, parts)
    gone = [i for i, k in key["key"].items() if "removed" in k]
    g1, g2 = (sum(marks[rd][i] for i in gone) for rd in ("first", "second"))
    agree = sum(marks["first"][i] == marks["second"][i] for i in gone)
    before = [key["runs"][p] for p in parts[2:]]
    n_src = sum(r["sources"] for r in before)
    rows = rows[:2] + [_row("both, the defaults", *both[:7], read2=both[7])] + rows[2:] + [
        _row("of those, the violations the defaults would not make", n_src,
             sum(r["follow_ups"] for r in before), len(gone), len(gone), g1, g2, agree)]
    built = {"h": "GAP's parts h and i, built after parts b to g were read and the rules "
                  "written on them (the time of the passage, the gender share, venues, a "
                  "surname's later word)",
             "j": "QED's Wikipedia paragraphs and GAP's part j, built after parts h and i were "
                  "read and the rules written on them (names in use through the twentieth "
                  "century, no Anglo name of another origin, a year before 1000)"}[which]
    read = (f"every one of the defaults' {both[2]} violations read as above"
            if both[3] == both[2] else
            f"{both[3]} of the defaults' {both[2]} violations drawn at random and read as above")
    return "\n".join(HEAD + rows) + (
        f"\n\nOn {built} (`{_suite(parts[0])}`, `{_suite(parts[1])}`, then `draw --part "
        f"{which}` with their runs and those of `{_suite(parts[2])}`, `{_suite(parts[3])}`): "
        f"{read}, and with them, mixed in and read blind alike, the {len(gone)} violations of "
        f"the runs without the rules on time and gender (`fit_era: false`, "
        f"`min_gender_share: 0.5`) that the defaults would not make (`bench/reads/{stem}.*`). "
        f"Real per 100 passages in the last row: those it removes. xrenner could not answer "
        f"{', '.join(str(r['errors']) for r in key['runs'].values())} cases (it put one mention "
        f"in two clusters)." + (f" As for the code, {key['code']}." if "code" in key else "")
        + _later(key, marks))


def _false_alarms(marks: dict, ids: list[str]) -> str:
    """How many of ``ids`` each reader read as false alarms: "first / second"."""
    return " / ".join(str(sum(not marks[rd][i] for i in ids)) for rd in ("first", "second"))


def _later(key: dict, marks: dict) -> str:
    """The sentence on the rules written after a part was read, counted on its read violations
    (``rules --part h|j|k``)."""
    if "later_rules" not in key:
        return ""
    rules, read = key["later_rules"], sum("removed" not in k for k in key["key"].values())
    renamed = (f", and would give {len(rules['renamed'])} another new name (their old one is "
               f"not among those the passage's time now takes; "
               f"{_false_alarms(marks, rules['renamed'])} false alarms)"
               if rules["renamed"] else "")
    return (f"\n\nOf the defaults' {read} read violations, the rules written after this part "
            f"was read would not make {len(rules['name'])} (the name is no longer swapped there; "
            f"{_false_alarms(marks, rules['name'])} of them false alarms to the two readers)"
            f"{renamed} (`{rules['command']}`).")


def _later_by_run(key: dict, marks: dict, which: str) -> str:
    """Parts l to p: the read violations of each form that the rules written after the part was
    read would not make (``rules --part l|m|n``)."""
    if "later_rules" not in key:
        return ""
    gone = key["later_rules"]["name"] + key["later_rules"]["renamed"]
    said = []
    for form, exchange in (("exchanges'", True), ("lists'", False)):  # over the part's runs
        ids = [i for i in gone if key["key"][i]["part"].endswith("_passage") == exchange]
        said.append(f"{len(ids)} of the {form} read violations ({_false_alarms(marks, ids)} of "
                    f"them false alarms to the two readers)")
    return (f"\n\nThe rules written after this part was read ({RULES_AFTER[which]}) would not "
            f"make {' and '.join(said)} (`{key['later_rules']['command']}` at commit "
            f"{key['later_rules']['code']}; counted on the part they were written on).")


def _errors(key: dict) -> int:
    return sum(r["errors"] for r in key["runs"].values())


def table(which: str = "bc") -> str:
    rows, tot, key = _part_rows(which)
    _, marks = read_marks(SETS[which][0])
    if which == "bc":
        rows.append(_row("both parts", *tot[:7], read2=tot[7]))
        crest = [0] * 5
        for part in SETS["bc"][1]:
            crest = [a + b for a, b in zip(crest, part_figures(part)[1])]
        fu, v, c1, c2, n_src = crest
        rows.append(_row("`crest` (the defaults, xrenner mended) on both parts", n_src, fu, v, v,
                         c1, c2, None).replace("| `crest`", "| `crest`", 1))
        out = "\n".join(HEAD + rows) + (
            f"\n\nOn GAP's parts b and c (`{_suite('gap_b')}`, `{_suite('gap_c')}`: `-o RUN`, "
            f"then `python bench/coref_names_reads.py draw --part bc RUN_B RUN_C`), "
            f"{len(key['key'])} of the {tot[2]} violations drawn at random and read by two "
            f"readers, the second blind and given only the passages, the clusters and the rule "
            f"(`bench/reads/{SETS['bc'][0]}.*`). Real per 100 passages: violations per 100 "
            f"passages times the share read real. xrenner could not answer {_errors(key)} cases. "
            f"The last row is CREST's defaults on the same passages, every violation read "
            f"(`bench/coref_mended_reads.py`).")
        if "rules" in key:
            gone = key["rules"]["removed"]
            g1, g2 = (sum(marks[rd][i] for i in gone) for rd in ("first", "second"))
            rr = key["rules"]["runs"]
            out += (f"\n\nThe two rules written on reading them (a ruler's or a saint's name is "
                    f"not swapped; new names unknown to WordNet) would not have made {len(gone)} "
                    f"of the {len(key['key'])} read, {len(gone) - g1} / {len(gone) - g2} of them "
                    f"false alarms to the two readers; run on the same passages with them, "
                    f"{sum(r['violations'] for r in rr.values())} violations in "
                    f"{sum(r['follow_ups'] for r in rr.values()):,} follow-ups (the new names "
                    f"are drawn again; `python bench/coref_names_reads.py rules RUN_B RUN_C`).")
        return out
    if which == "k":
        return "\n".join(HEAD + rows) + (
            f"\n\nOn the openings of Re-DocRED's Wikipedia articles, built after QED's paragraphs "
            f"and GAP's part j were read and the rules written on them (a work's title, a "
            f"nickname, an epithet, a person WordNet knows by the full name; "
            f"`{_suite('redocred')}`, then `draw --part k RUN`): every one of its {tot[2]} "
            f"violations read as above (`bench/reads/{SETS['k'][0]}.*`); xrenner could not "
            f"answer {_errors(key)} cases (it put one mention in two clusters, or gave up on a "
            f"parse). As for the code, {key['code']}." + _later(key, marks))
    if which in FICTION:
        parts = SETS[which][1]
        exchanges = [p for p in parts if p.endswith("_passage")]
        lists = [p for p in parts if p not in exchanges]
        if len(exchanges) > 1:    # several parts: a row for each form over them
            rows += [_row(f"all {len(exchanges)} parts, {what}" if len(exchanges) > 2 else
                          f"both parts, {what}", *[sum(v) for v in zip(
                *(_vals(key, marks, p) for p in group))][:7],
                read2=sum(_vals(key, marks, p)[7] for p in group))
                for what, group in (("exchanges", exchanges), ("lists", lists)) if group]
        drawn = (f" and {sum(_vals(key, marks, p)[3] for p in lists)} of the lists' drawn at "
                 f"random, read together" if lists else ", read")
        if not exchanges:
            drawn = (f": {sum(_vals(key, marks, p)[3] for p in lists)} of the lists' "
                     f"violations drawn at random, read")
        suites = " and ".join(f"`{_suite(p)}`" for p in parts)
        runs = " ".join(f"RUN_{p.upper()}" for p in parts)
        return "\n".join(HEAD + rows) + (
            f"\n\nOn {BUILT[which]} ({suites}, then `draw --part {which} {runs}`)"
            f"{'' if not exchanges else ': every violation of the exchanges'}{drawn} as above "
            f"(`bench/reads/{SETS[which][0]}.*`); xrenner could not answer "
            f"{', '.join(str(r['errors']) for r in key['runs'].values())} cases. As for the "
            f"code, {key['code']}." + _later_by_run(key, marks, which) + _year_rule(key))
    if which == "d":
        return "\n".join(HEAD + rows) + (
            f"\n\nOn GAP's part d, built after those two rules (`{_suite('gap_d')}`; `draw "
            f"--part d RUN`): every one of its {tot[2]} violations read as above "
            f"(`bench/reads/{SETS['d'][0]}.*`); xrenner could not answer {_errors(key)} cases.")
    if which in ("h", "j"):
        return _before_and_after(which, rows, key, marks)
    if which == "f":
        read = sum(key["runs"][p]["violations"] for p in SETS["f"][1][:2])
        both = _two_runs(key, marks, SETS["f"][1])
        rows = rows[:2] + [_row("both parts, exchanges", *both[:7], read2=both[7])] + rows[2:]
        second = (f"the second, blind and given only the passages, the clusters and the rule, "
                  f"{both[7]} of them" if both[7] < both[3] else "the second blind")
        return "\n".join(HEAD + rows) + (
            f"\n\nOn GAP's parts f and g, built after part e was read "
            f"(`{_suite('gap_f_passage')}`, `{_suite('gap_g_passage')}` and `{_suite('gap_f')}`, "
            f"then `draw --part f RUN_F RUN_G RUN_F_LISTS`): every one of the {read} violations "
            f"of the exchanges read by the first reader, {second} "
            f"(`bench/reads/{SETS['f'][0]}.*`); xrenner could not answer "
            f"{', '.join(str(r['errors']) for r in key['runs'].values())} cases.")
    shared = sum(len(k["in"]) == 2 for k in key["key"].values())
    return "\n".join(HEAD + rows) + (
        f"\n\nOn GAP's part e, built after part d was read and three more rules written on it "
        f"(a first name that is also a surname only in a full name; never before a regnal "
        f"number; a dash of hyphens ends a name): `{_suite('gap_e')}` and "
        f"`{_suite('gap_e_lm')}`, then `draw --part e RUN RUN_LM`: up to 30 violations of each "
        f"run drawn at random, {len(key['key'])} read as above ({shared} in both runs, read "
        f"once; `bench/reads/{SETS['e'][0]}.*`); xrenner could not answer "
        f"{', '.join(str(r['errors']) for r in key['runs'].values())} cases. The runs took "
        f"{key['runs']['gap_e']['seconds']:.0f} s and {key['runs']['gap_e_lm']['seconds']:.0f} s "
        f"on two CPU cores, side by side.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    d = sub.add_parser("draw")
    d.add_argument("runs", type=Path, nargs="+")
    d.add_argument("--part", choices=list(SETS), required=True)
    d.add_argument("--n", type=int, default=50)
    d.add_argument("--seed", type=int, default=13)
    r = sub.add_parser("rules")
    r.add_argument("runs", type=Path, nargs="*")
    r.add_argument("--part", choices=["bc", "h", "j", "k", "l", "m", "n", "q"], default="bc")
    ap.add_argument("--part", choices=list(SETS), default="bc")
    args = ap.parse_args()
    if args.cmd == "draw":
        draw(args.part, args.runs, args.n, args.seed)
    elif args.cmd == "rules" and args.part == "q":
        year_rule()
    elif args.cmd == "rules" and args.part != "bc":
        later_rules(args.part)
    elif args.cmd == "rules":
        if len(args.runs) != 2:
            sys.exit("rules --part bc takes the runs of bench/coref_names_gap_b.yaml, _gap_c.yaml")
        rules(args.runs)
    else:
        print(table(args.part))
    return 0


if __name__ == "__main__":
    sys.exit(main())
