"""Relation extraction: metamorphic testing of a system that, given a sentence with a head and a
tail entity, answers the relation between them (Sun et al., "Metamorphic Testing of Relation
Extraction Models", Algorithms 2023: MR-R1..R4, MR-S1/S2, MR-C1/C2).

Value types (:mod:`.types`), corpus readers (:mod:`.corpus`), the relation tables with their
TACRED defaults (:mod:`.tables`), the offline gazetteer of MR-R2 (:mod:`.gazetteer`), the eight
transformations (:mod:`.transforms`), their oracles (:mod:`.relations`) and the systems under test
(:mod:`.sut`).
"""
