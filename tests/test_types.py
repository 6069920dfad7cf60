"""The edit alignment: spans carried from a source to its follow-up without searching strings."""
import pytest

from runner.types import AlignmentError, Edit, FollowUp, Replacement

from runner.tasks.ner.types import Span


def _follow(src, reps):
    return FollowUp.from_replacements(src, reps, "t")


def test_insertion_moves_spans_after_it_and_not_before():
    f = _follow("He has faced floods.", [Replacement(0, 0, "Has "), Replacement(0, 2, "he"),
                                         Replacement(3, 7, ""), Replacement(19, 20, "?")])
    assert f.text == "Has he faced floods?"
    he = f.edit.map_span(Span(0, 2, "X"))
    floods = f.edit.map_span(Span(13, 19, "X"))
    assert f.text[he.start:he.end] == "he"          # same-length change maps one to one
    assert f.text[floods.start:floods.end] == "floods"


def test_replaced_region_maps_to_its_replacement():
    src = "Ann met Barbara in Rome."
    f = _follow(src, [Replacement(0, 3, "Barbara"), Replacement(8, 15, "Ann")])
    assert f.text == "Barbara met Ann in Rome."
    images = [f.edit.map_span(s) for s in (Span(0, 3, "P"), Span(8, 15, "P"), Span(19, 23, "L"))]
    assert [f.text[i.start:i.end] for i in images] == ["Barbara", "Ann", "Rome"]
    assert [i.label for i in images] == ["P", "P", "L"]


def test_span_cut_by_a_length_changing_edit_has_no_image():
    f = _follow("New York City is big.", [Replacement(4, 8, "Jersey")])
    assert f.edit.map_span(Span(0, 13, "L")) is not None  # contains the edit: boundaries map
    assert f.edit.map_span(Span(6, 13, "L")) is None      # starts inside the edit


def test_text_inserted_at_span_boundary_stays_outside():
    f = _follow("Paris is nice.", [Replacement(5, 5, " Hilton")])
    img = f.edit.map_span(Span(0, 5, "L"))
    assert f.text[img.start:img.end] == "Paris"
    f = _follow("I love Paris.", [Replacement(7, 7, "old ")])
    img = f.edit.map_span(Span(7, 12, "L"))
    assert f.text[img.start:img.end] == "Paris"


def test_overlapping_replacements_are_rejected():
    with pytest.raises(AlignmentError):
        Edit("abcdef", (Replacement(0, 3, "x"), Replacement(2, 4, "y")))


def test_changed_ranges():
    f = _follow("He cried.", [Replacement(0, 0, "Did "), Replacement(0, 2, "he"),
                              Replacement(3, 8, "cry"), Replacement(8, 9, "?")])
    assert f.text == "Did he cry?"
    assert f.edit.changed_source_ranges() == [(0, 0), (0, 2), (3, 8), (8, 9)]  # (0, 0): an insertion point
    assert f.edit.changed_target_ranges() == [(0, 4), (4, 6), (7, 10), (10, 11)]
