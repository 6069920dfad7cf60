"""Repair of violations and their analysis (TIN §3.5, §4.4, §4.6); modules of this package:

- :mod:`.locate` — suspicious entities of a violation (present in both sentences,
  predicted differently; a missing prediction is the category NULL).
- :mod:`.relabel` — Algorithm 1 (candidate entities, filters, F(p, sim), argmax),
  range conflicts, the repaired prediction R(s); the referee panel; ``lm``'s rules.
- :mod:`.mutants` — candidate sources ``masked_lm``, ``corpus`` and ``lm`` (context mutants).
- :mod:`.categories` — omission, over-labeling, incorrect category, range error.
- :mod:`.gold` — gold spans projected through an edit; precision of testing and the
  TT/TF/FT/FF table with Err2Cor, Cor2Err and ErrorReduce.
- :mod:`.analyzer` — what the engine calls once per batch.

Importing this package imports no model library.
"""
