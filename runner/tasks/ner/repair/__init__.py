"""Repair of violations and their analysis (TIN §3.5, §4.4, §4.6).

- :mod:`runner.tasks.ner.repair.locate` — suspicious entities of a violation (present in both sentences,
  predicted differently; a missing prediction is the category NULL).
- :mod:`runner.tasks.ner.repair.relabel` — Algorithm 1 (candidate entities, filters, F(p, sim), argmax),
  range conflicts, the repaired prediction R(s); candidate sources ``masked_lm`` and ``corpus``.
- :mod:`runner.tasks.ner.repair.categories` — omission, over-labeling, incorrect category, range error.
- :mod:`runner.tasks.ner.repair.gold` — gold spans projected through an edit; precision of testing and the
  TT/TF/FT/FF table with Err2Cor, Cor2Err and ErrorReduce.
- :mod:`runner.tasks.ner.repair.analyzer` — what the engine calls once per batch.

Importing this package imports no model library.
"""
