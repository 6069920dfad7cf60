"""NER systems under test (spacy, hf, azure, aws, http, flair, stanza) and their label maps."""
