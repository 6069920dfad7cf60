"""mtrun: metamorphic testing of NLP systems without labelled data."""
__version__ = "0.1.0"
