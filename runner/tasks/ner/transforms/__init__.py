"""NER transformations: the TIN methods (structural_question, entity_shuffle, token_mlm,
phrase_np) and the everyday robustness and bias checks (case, typos, punctuation, contractions,
numbers, abbreviations, entity_swap; their word lists in data/)."""
