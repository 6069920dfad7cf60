"""Adversarial attacks on NER systems (Breaking BERT, SPEC §5): the entity-context attack
(synonyms of the words around an entity, most important first) and the entity attack (the entity
replaced by others of its type). ``stage`` runs them per batch for the engine; ``metrics`` gives
the paper's rates; ``oracle`` is their batched, cached, counted access to the system under test.
"""
