"""What every NER system under test shares: the label maps to the suite's common types, raw
character spans mapped through them, offsets checked."""
from __future__ import annotations

from typing import Any, Sequence

from runner.sut.base import SystemUnderTest
from runner.tasks.ner.types import Prediction, Span

# Labels of the suite's common types. A label map sends a system's own labels to these (or to
# None: "not an entity for this suite"); labels absent from the map are dropped unless
# ``keep_unmapped`` is set, and every dropped label is counted for the report.
ONTONOTES_TO_COMMON: dict[str, str | None] = {
    "PERSON": "PERSON",
    "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
    "ORG": "ORGANIZATION",
    "NORP": "MISC", "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC", "LAW": "MISC",
    "LANGUAGE": "MISC",
    "DATE": None, "TIME": None, "PERCENT": None, "MONEY": None, "QUANTITY": None,
    "ORDINAL": None, "CARDINAL": None,
}
CONLL_TO_COMMON: dict[str, str | None] = {
    "PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION", "MISC": "MISC",
}

# Azure AI Language NER categories (the subcategory, e.g. Location/GPE, is not used for the map).
AZURE_TO_COMMON: dict[str, str | None] = {
    "Person": "PERSON", "Location": "LOCATION", "Organization": "ORGANIZATION",
    "Event": "MISC", "Product": "MISC",
    "PersonType": None, "Skill": None, "Address": None, "PhoneNumber": None, "Email": None,
    "URL": None, "IP": None, "DateTime": None, "Quantity": None,
}
# AWS Comprehend DetectEntities types.
AWS_TO_COMMON: dict[str, str | None] = {
    "PERSON": "PERSON", "LOCATION": "LOCATION", "ORGANIZATION": "ORGANIZATION",
    "COMMERCIAL_ITEM": "MISC", "EVENT": "MISC", "TITLE": "MISC", "OTHER": "MISC",
    "DATE": None, "QUANTITY": None,
}
# A JSON endpoint's labels: both the CoNLL and the spelled-out names.
HTTP_TO_COMMON: dict[str, str | None] = {
    "PER": "PERSON", "PERSON": "PERSON", "LOC": "LOCATION", "LOCATION": "LOCATION",
    "ORG": "ORGANIZATION", "ORGANIZATION": "ORGANIZATION", "MISC": "MISC",
}

RawSpan = tuple[int, int, str, "float | None"]  # start, end (character offsets), raw label, score


class NERSystem(SystemUnderTest):
    """A NER system under test: an input is a text, a raw answer a list of
    ``(start, end, raw label, score)`` character spans, a prediction a :class:`Prediction` in the
    suite's common types."""

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        raise NotImplementedError

    def _convert(self, raw: Any) -> Prediction:
        return self._map(raw)

    def _check_raw(self, item: str, raw: Any) -> None:
        _check_offsets(self.name, item, raw)

    def common_type(self, label: str) -> str | None:
        """The suite's type for a raw label (``label_map``; an unmapped label is kept as it is
        with ``keep_unmapped``), or None: dropped."""
        return self.label_map.get(label, label if self.keep_unmapped else None)

    def _map(self, raw: list[RawSpan]) -> Prediction:
        spans = []
        for start, end, label, score in raw:
            common = self.common_type(label)
            if common is None:
                self.dropped_labels[label] += 1
                continue
            spans.append(Span(start, end, common, label, score))
        return Prediction(tuple(sorted(spans)))


def _check_offsets(name: str, text: str, raw: list[RawSpan]) -> None:
    for start, end, label, _ in raw:
        if not (0 <= start < end <= len(text)):
            raise RuntimeError(f"{name} returned span {start}..{end} ({label}) outside a text of "
                               f"{len(text)} characters: {text[:80]!r}")
