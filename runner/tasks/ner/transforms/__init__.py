"""NER transformations: structural_question, entity_shuffle, token_mlm, phrase_np."""
