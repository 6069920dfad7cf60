"""Every RE transformation class by its name (the report reads their MRs)."""
from __future__ import annotations

from runner.tasks.re.same_type import SameTypeEntity
from runner.tasks.re.transforms import (AntisymmetricSwap, CoarserEntity, CoRelatedEntity,
                                        CoreferentMention, RETransformation,
                                        SharedHeadComposition, SharedTailComposition,
                                        SymmetricSwap)

TRANSFORMATIONS: dict[str, type[RETransformation]] = {
    t.name: t for t in (SameTypeEntity, CoarserEntity, CoRelatedEntity, CoreferentMention,
                        SymmetricSwap, AntisymmetricSwap, SharedHeadComposition,
                        SharedTailComposition)}
