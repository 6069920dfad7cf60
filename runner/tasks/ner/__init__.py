"""Named-entity recognition (TIN): the task (:mod:`runner.tasks.ner.task`), its value types,
corpus readers, systems under test, transformations, relations MR1/MR2, repair and error
categories, and its registrations (:mod:`runner.tasks.ner.catalog`)."""
