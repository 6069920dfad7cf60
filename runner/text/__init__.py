"""Text-level helpers any task's transformations share (candidate words for a position: WordNet,
a masked LM, static vectors). Edits and their alignment are :class:`runner.types.Edit`."""
