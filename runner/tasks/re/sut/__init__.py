"""Relation-extraction systems under test: ``textacy`` (embedded, offline), ``hf`` (sequence
classification with entity markers), ``luke`` (entity-pair classification) and ``http``."""
