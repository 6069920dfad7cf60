"""Filters: drop follow-ups that are not meaning-preserving (semantic) or not natural (syntactic)
before the system under test sees them (TIN §3.3)."""
