import random
from collections import Counter

from runner.tasks.ner.transforms.entity_shuffle import EntityShuffle
from runner.tasks.ner.types import Prediction, Sentence, Span

TEXT = "Angela Merkel met Emmanuel Macron and Olaf Scholz in Paris and Berlin."


def _pred():
    return Prediction((Span(0, 13, "PERSON"), Span(18, 33, "PERSON"), Span(38, 49, "PERSON"),
                       Span(53, 58, "LOCATION"), Span(63, 69, "LOCATION")))


def test_shuffle_keeps_every_entity_type_and_offsets_right():
    src = Sentence("s", TEXT)
    for seed in range(20):
        for f in EntityShuffle(follow_ups=3).generate(src, _pred(), random.Random(seed)):
            assert f.text != TEXT
            images = [f.edit.map_span(s) for s in _pred().spans]
            assert all(i is not None for i in images)
            got = Counter((f.text[i.start:i.end], i.label) for i in images)
            want = Counter((s.text_in(TEXT), s.label) for s in _pred().spans)
            assert got == want  # same entities, same types, exact offsets in the follow-up
            # persons only where persons were, locations where locations were
            for img, orig in zip(images, _pred().spans):
                assert img.label == orig.label


def test_distinct_follow_ups_and_determinism():
    src = Sentence("s", TEXT)
    a = [f.text for f in EntityShuffle(follow_ups=4).generate(src, _pred(), random.Random(7))]
    b = [f.text for f in EntityShuffle(follow_ups=4).generate(src, _pred(), random.Random(7))]
    assert a == b
    assert len(a) == len(set(a)) == 4


def test_needs_two_different_entities_of_one_type():
    one_each = Prediction((Span(0, 13, "PERSON"), Span(53, 58, "LOCATION")))
    assert EntityShuffle().generate(Sentence("s", TEXT), one_each, random.Random(0)) == []
    same = "Paris is not Paris."
    twice = Prediction((Span(0, 5, "LOCATION"), Span(13, 18, "LOCATION")))
    assert EntityShuffle().generate(Sentence("s", same), twice, random.Random(0)) == []


def test_types_parameter_limits_what_is_shuffled():
    src = Sentence("s", TEXT)
    [f] = EntityShuffle(types=["LOCATION"]).generate(src, _pred(), random.Random(1))
    assert f.text == "Angela Merkel met Emmanuel Macron and Olaf Scholz in Berlin and Paris."


def test_a_leading_article_takes_the_case_of_where_the_name_lands():
    text = "The Fairfax Connector is a bus service operated by Veolia Transport."
    pred = Prediction((Span(0, 21, "ORGANIZATION"), Span(51, 67, "ORGANIZATION")))
    [f] = EntityShuffle().generate(Sentence("s", text), pred, random.Random(0))
    assert f.text == "Veolia Transport is a bus service operated by the Fairfax Connector."
    assert f.meta["order"] == {"ORGANIZATION": ["Veolia Transport", "The Fairfax Connector"]}
    text = "Veolia Transport runs the Fairfax Connector."
    pred = Prediction((Span(0, 16, "ORGANIZATION"), Span(22, 43, "ORGANIZATION")))
    [f] = EntityShuffle().generate(Sentence("s", text), pred, random.Random(0))
    assert f.text == "The Fairfax Connector runs Veolia Transport."


def test_a_the_inside_the_sentence_is_part_of_the_name_and_stays():
    text = "He played the music for Tyrone Power's hands in The Eddy Duchin Story (1956)."
    tp, ed = text.index("Tyrone Power's"), text.index("The Eddy Duchin Story")
    pred = Prediction((Span(tp, tp + 14, "ORGANIZATION"), Span(ed, ed + 21, "ORGANIZATION")))
    for seed in range(10):
        for f in EntityShuffle(follow_ups=3).generate(Sentence("s", text), pred,
                                                      random.Random(seed)):
            # no follow-up that only recases a name left in its place
            assert f.text != text and "the Eddy" not in f.text
            assert f.text.startswith("He played the music for The Eddy Duchin Story hands")


def test_pairs_mode_exchanges_two_names_of_one_label_and_leaves_the_rest():
    import pytest

    text = "Ann met Bob and Cid in Paris and at the Louvre while Dee stayed in Rome."
    at = lambda w: (text.index(w), text.index(w) + len(w))  # noqa: E731
    spans = [Span(*at(w), "PERSON", raw_label="PERSON") for w in ("Ann", "Bob", "Cid", "Dee")]
    spans += [Span(*at("Paris"), "LOCATION", raw_label="GPE"),
              Span(*at("the Louvre"), "LOCATION", raw_label="FAC"),
              Span(*at("Rome"), "LOCATION", raw_label="GPE")]
    shuffle = EntityShuffle(follow_ups=20, mode="pairs")
    out = shuffle.generate(Sentence("s", text), Prediction(tuple(spans)), random.Random(0), None)
    # six pairs of persons and one of cities: a city never lands in the museum's place
    assert len(out) == 7 and len({f.text for f in out}) == 7
    for f in out:
        changed = [r for r in f.edit.replacements if text[r.start:r.end] != r.new]
        assert len(changed) == 2
        assert {text[r.start:r.end] for r in changed} == {r.new for r in changed}
        assert "the Louvre" in f.text[f.text.index(" at ") - 9:]
    assert shuffle.describe()["mode"] == "pairs"
    assert "mode" not in EntityShuffle(follow_ups=2).describe()
    with pytest.raises(ValueError, match="permute"):
        EntityShuffle(mode="all")


def _spans(text, names):
    return Prediction(tuple(Span(text.index(n), text.index(n) + len(n), lab) for n, lab in names))


def test_subtypes_keep_a_city_out_of_a_country_s_place():
    text = "In the first game of Group G, Belgium faced Panama at the Fisht Stadium in Sochi."
    pred = _spans(text, [("Belgium", "LOCATION"), ("Panama", "LOCATION"),
                         ("the Fisht Stadium", "LOCATION"), ("Sochi", "LOCATION")])
    for mode in ("pairs", "permute"):
        plain = {f.text for f in EntityShuffle(follow_ups=6, mode=mode).generate(
            Sentence("s", text), pred, random.Random(0))}
        assert any(not t.endswith("in Sochi.") for t in plain)   # without: the city moves
        fine = [f.text for f in EntityShuffle(follow_ups=6, mode=mode, subtypes=True).generate(
            Sentence("s", text), pred, random.Random(0))]
        # only the two countries change places; the city and the venue stay
        assert fine == ["In the first game of Group G, Panama faced Belgium at the Fisht Stadium "
                        "in Sochi."]


def test_subtypes_leave_names_of_unknown_kind_and_ungendered_persons_free():
    text = "Alice Brown met John Smith at Zorblat Industries and Quux Holdings."
    pred = _spans(text, [("Alice Brown", "PERSON"), ("John Smith", "PERSON"),
                         ("Zorblat Industries", "ORGANIZATION"), ("Quux Holdings", "ORGANIZATION")])
    got = {f.text for f in EntityShuffle(follow_ups=4, mode="pairs", subtypes=True).generate(
        Sentence("s", text), pred, random.Random(0))}
    # no gendered word: a woman's and a man's name may change places; unknown companies too
    assert "John Smith met Alice Brown at Zorblat Industries and Quux Holdings." in got
    assert "Alice Brown met John Smith at Quux Holdings and Zorblat Industries." in got
    gendered = "Alice Brown met John Smith and his brother at the station."
    pred = _spans(gendered, [("Alice Brown", "PERSON"), ("John Smith", "PERSON")])
    assert EntityShuffle(mode="pairs", subtypes=True).generate(
        Sentence("s", gendered), pred, random.Random(0)) == []


def test_a_place_and_the_region_written_after_it_are_not_exchanged():
    """'Radnor, Pennsylvania': the town and its state do not change places ('in Pennsylvania,
    Radnor'); listed countries still do ('Gaul, Syria, Cilicia')."""
    text = "She left a bequest to a home in Radnor, Pennsylvania, and a park was named for her."
    pred = _spans(text, [("Radnor", "LOCATION"), ("Pennsylvania", "LOCATION")])
    assert EntityShuffle(mode="pairs").generate(Sentence("s", text), pred, random.Random(0))
    assert EntityShuffle(mode="pairs", subtypes=True).generate(
        Sentence("s", text), pred, random.Random(0)) == []
    listed = "The provinces included Gaul, Syria, Cilicia and Egypt."
    pred = _spans(listed, [("Gaul", "LOCATION"), ("Syria", "LOCATION")])
    assert [f.text for f in EntityShuffle(mode="pairs", subtypes=True).generate(
        Sentence("s", listed), pred, random.Random(0))] == [
        "The provinces included Syria, Gaul, Cilicia and Egypt."]
