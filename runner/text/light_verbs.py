"""The light verbs (have, get, make, do): WordNet lists 13–49 senses for each, and its synonyms
of them come from senses the sentence does not use ("has an optimization background" →
"features …"; "making sacrifices" → "creating sacrifices"); in the senses of other verbs it
lists them too ("went bankrupt" → "got bankrupt"). The WordNet candidate sources of
``token_mlm`` and CREST neither replace them nor propose them."""
from __future__ import annotations

import functools

LIGHT_VERBS = frozenset({"have", "get", "make", "do"})


@functools.lru_cache(maxsize=1)
def light_verb_forms() -> frozenset[str]:
    """Every form of the light verbs (lemminflect, which the WordNet source inflects with)."""
    import lemminflect

    return LIGHT_VERBS | {form for verb in LIGHT_VERBS
                          for forms in lemminflect.getAllInflections(verb, "VERB").values()
                          for form in forms}
