"""The NER task's parse checks (the ``parse_check`` filter): one module per kind of check, the
filter in :mod:`runner.tasks.ner.checks.filter`."""
