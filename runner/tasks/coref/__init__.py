"""Coreference testing as in CREST (Xie et al., "Coreference resolution testing"): follow-ups
made by replacing tokens that are not related to any predicted mention, kept only when the
constituency around the mentions is unchanged, judged by BLANC between the two predictions, and
each violation sorted into issue types.

Modules: :mod:`.task` (the task as the shell sees it), :mod:`.catalog` (its components),
:mod:`.types` (documents, mentions, clusters), :mod:`.corpus` (readers), :mod:`.ud` (spaCy parse →
Universal Dependencies CoNLL-U), :mod:`.systems` (systems under test), :mod:`.constituency`
(phrase trees and depths), :mod:`.crest` (follow-up generation and selection) and
:mod:`.transform` (it as a transformation), :mod:`.blanc` (the metric), :mod:`.oracle`
(alignment, verdicts, issue types), :mod:`.relations` (the ``blanc`` relation),
:mod:`.analysis` (issue types and gold precision per run), :mod:`.view` (the report's view of a
case). Nothing here imports a model library at import time.
"""
