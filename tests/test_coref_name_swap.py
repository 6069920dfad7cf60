"""``name_swap`` for coreference: which names it swaps (a person's first name of one gender,
never a place, a film title or a common word opening a sentence), that every occurrence changes
together and the clusters come back through the edit, and a planted name-sensitive system."""
import json
import random
import textwrap
from types import SimpleNamespace

import pytest

from runner.cli import ExitCode, main
from runner.tasks.coref.oracle import inverse

pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def swap():
    from runner.tasks.coref.name_swap import NameSwap

    return NameSwap(max_follow_ups=20, names_per_person=2)


def _follow_ups(swap, text, seed=0):
    return swap.generate(SimpleNamespace(id="x", text=text), None, random.Random(seed))


def test_every_occurrence_changes_to_one_name_of_the_same_gender(swap):
    from runner.tasks.coref.name_swap import _genders

    text = ("Daniel Hartwell wrote a treatise. His father resented Daniel's fame, and "
            "Daniel left Basel.")
    fus = _follow_ups(swap, text)
    assert len(fus) == 2 and len({f.meta["new"] for f in fus}) == 2
    for f in fus:
        new = f.meta["new"]
        assert f.meta["old"] == "Daniel" and f.meta["occurrences"] == 3
        assert "Daniel" not in f.text and f.text.count(new) == 3
        assert f.text == text.replace("Daniel", new)
        assert _genders()[new] == "male" and new in swap.pool["male"]
        # every mention maps back: "Daniel's fame" keeps its image in the source
        start = f.text.index(new + "'s fame")
        assert inverse(f.edit).map_range(start, start + len(new) + 7) == (
            text.index("Daniel's fame"), text.index("Daniel's fame") + 13)


def test_the_same_source_and_seed_give_the_same_follow_ups(swap):
    text = "Allison Fischer is an American singer. Allison had her first role in 2004."
    a = [f.text for f in _follow_ups(swap, text, seed=3)]
    assert a == [f.text for f in _follow_ups(swap, text, seed=3)]
    assert all("Fischer" in t and "her first role" in t for t in a)


@pytest.mark.parametrize("text", [
    # a ruler or a saint keeps the name history gives him
    "Whilst training his army, King William camped under a chestnut tree. William won.",
    "Around 945, Louis IV was captured by Northmen. Later king Louis negotiated his freedom.",
    "The church of St. Francis was built in 1400. It honours Francis of Assisi.",
    # a place that is also a first name
    "Goode was born in Exeter, Devon. His father was a geologist.",
    # a film's title, not a person
    "She starred in Jules et Jim, directed by François Truffaut. She was praised.",
    # a common word opening a sentence
    "Grace is what she lacked. Her brother said so.",
])
def test_names_that_are_not_certainly_a_persons_are_left(swap, text):
    changed = {f.meta["old"] for f in _follow_ups(swap, text)}
    assert not changed & {"Devon", "Jules", "Grace", "William", "Francis", "Louis"}


def test_replacement_names_are_only_names():
    from runner.tasks.coref.name_swap import NameSwap, _unknown_to_wordnet

    swap = NameSwap(origin=["anglo", "german"])
    for names in swap.pool.values():
        assert len(names) > 100 and all(_unknown_to_wordnet(n) for n in names)
    assert "Grace" not in swap.pool["female"] and "Will" not in swap.pool["male"]
    assert "Jesus" not in swap.pool["male"] and "Louis" not in swap.pool["male"]
    with pytest.raises(ValueError, match="unknown origin 'martian'"):
        NameSwap(origin="martian")


SYSTEM = '''
import re
KNOWN = {"Susan", "Tom"}

def predict(texts):
    """Links a he/she/his/her to the first word only when it knows the name: a name-sensitive
    system, the kind of bug name_swap is for."""
    out = []
    for text in texts:
        first = re.match(r"\\w+", text)
        pronouns = [[m.start(), m.end()] for m in re.finditer(r"\\b(he|she|her|his)\\b", text)]
        if first and pronouns and first.group() in KNOWN:
            out.append([[[first.start(), first.end()], *pronouns]])
        else:
            out.append([])
    return out
'''


@pytest.mark.slow  # loads spaCy's pipeline for the person names
def test_a_name_sensitive_system_violates(tmp_path):
    (tmp_path / "names_fixture.py").write_text(SYSTEM, encoding="utf-8")
    docs = [{"id": "a", "text": "Susan Lopez won the seat, and she thanked her volunteers."},
            {"id": "b", "text": "The company said its profits rose."}]
    (tmp_path / "docs.jsonl").write_text("\n".join(map(json.dumps, docs)) + "\n",
                                         encoding="utf-8")
    suite = tmp_path / "names.yaml"
    suite.write_text(textwrap.dedent("""\
        name: names_test
        task: coref
        sut: {type: python, callable: "names_fixture:predict"}
        corpus: {path: docs.jsonl}
        transformations: [{type: name_swap, names_per_person: 3}]
        """), encoding="utf-8")
    out = tmp_path / "out"
    assert main([str(suite), "-o", str(out), "-q"]) == ExitCode.OK  # no fail_on: exit 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    cases = results["cases"]
    assert {c["source_id"] for c in cases} == {"a"} and len(cases) == 3
    assert all(c["verdict"]["outcome"] == "fail" for c in cases)
    assert all(c["follow_up"]["meta"]["old"] == "Susan" for c in cases)
    assert results["components"]["transformations"][0]["type"] == "name_swap"


def test_a_bare_apostrophe_takes_an_s_and_both_mentions_map_back(swap):
    text = "Dr. Phyllis Moore lost Phyllis' notes. She said Phyllis' bag was empty."
    fus = _follow_ups(swap, text)
    assert fus
    for f in fus:
        new = f.meta["new"]
        assert f.meta["occurrences"] == 3
        poss = new + "'" if new.endswith("s") else new + "'s"
        assert f.text == text.replace("Phyllis'", poss).replace("Phyllis", new)
        at = f.text.index(poss)
        back = inverse(f.edit)
        assert back.map_range(at, at + len(new)) == (23, 30)              # "Phyllis"
        assert back.map_range(at, at + len(poss)) == (23, 31)             # "Phyllis'"


def test_a_books_name_is_swapped_only_as_someones_full_name(swap):
    book = "These include major commentaries on Matthew in the Bible. He also wrote on prayer."
    assert not _follow_ups(swap, book)
    person = "Matthew Perry was an actor. Matthew said he loved the role."
    assert {f.meta["old"] for f in _follow_ups(swap, person)} == {"Matthew"}


def test_origin_decides_which_names_are_swapped_and_their_replacements():
    from runner.tasks.coref.name_swap import NameSwap

    text = "Libya's Prime Minister, Mahmoud Jibril, said he would resign. Later, Mahmoud left."
    assert not NameSwap().names(text)                   # an Anglo name list: not swapped
    german = NameSwap(origin="german", new_origin="anglo")
    assert german.names(text) == {"Mahmoud": "male"}
    assert all(n in NameSwap().pool["male"] for n in german.pool["male"])


def test_a_first_name_that_is_also_a_surname_needs_a_full_name(swap):
    alone = "In his second game, Thomas won a penalty. Later Thomas and Symes each scored."
    assert not _follow_ups(swap, alone)
    full = "Thomas Hartwell wrote novels. In 1910 Thomas said he would write poems."
    assert {f.meta["old"] for f in _follow_ups(swap, full)} == {"Thomas"}


def test_a_dash_of_hyphens_ends_a_name_but_a_hyphenated_name_is_left(swap):
    text = "He negotiates a pay raise with Brenda--up to $45,000. He tells Brenda he stays."
    for f in _follow_ups(swap, text):
        assert "Brenda" not in f.text and f.meta["occurrences"] == 2
    hyphenated = "Jean-Brenda Smith wrote a book. Later, Brenda-Lee Jones read it to her."
    assert all(f.meta["old"] != "Brenda" for f in _follow_ups(swap, hyphenated))


def test_passage_mode_exchanges_two_peoples_names_of_one_gender():
    from runner.tasks.coref.name_swap import NameSwap

    swap = NameSwap(new_names="passage")
    text = "Lisa Brown told Katie Smith that she had won. Later, Katie thanked Lisa."
    (f,) = _follow_ups(swap, text)
    assert f.text == "Katie Brown told Lisa Smith that she had won. Later, Lisa thanked Katie."
    assert f.meta["exchanged"] and f.meta["occurrences"] == 4
    back = inverse(f.edit)
    at = f.text.index("Lisa Smith")
    assert back.map_range(at, at + len("Lisa Smith")) == (16, 27)      # "Katie Smith"
    # one person of a gender alone: nothing to exchange with
    assert not _follow_ups(swap, "Lisa Brown said she had won. Later, Tom Smith thanked her.")
    with pytest.raises(ValueError, match="new_names: passage"):
        NameSwap(new_names="passage", lm="smollm2")


@pytest.mark.parametrize("text, year", [
    ("Susan Linn Sage (1866--1933) married James Cooper (1858--1938).", 1862.0),
    ("Gabriela Silang, an 18th-century Filipina, led a revolt.", 1700),
    ("In the nineteenth century she wrote novels.", 1800),
    ("Hagrold defended Bayeux in 944 and seized Louis.", 944),
    ("She ran in 300 seconds in 1990.", 1990),
    ("She ran 1500 metres in 300 seconds.", 1500),
    ("It seated 300 people in all.", None),
])
def test_a_passages_year_is_the_median_of_those_it_names(text, year):
    from runner.tasks.coref.name_swap import passage_year

    assert passage_year(text) == year


def test_new_names_fit_the_passages_time(swap):
    from runner.tasks.coref.name_swap import NameSwap

    old = "Catherine Parr married Henry in 1543. Catherine outlived him."
    assert not _follow_ups(swap, old)                      # before 1800: no list fits
    victorian = "Susan Sage (1866--1933) married in 1890. Susan had a son."
    modern = "Susan Sage is a detective. Susan has a son."   # no year: any time of the 1900s
    for text, pool in ((victorian, swap.classic), (modern, swap.timeless)):
        fus = _follow_ups(swap, text)
        assert fus and all(f.meta["new"] in pool["female"] for f in fus)
    assert "Kaitlyn" in swap.pool["female"] and "Kaitlyn" not in swap.timeless["female"]
    assert "Jillian" not in swap.classic["female"]
    assert NameSwap(fit_era=False).pools_for(old) is not None


@pytest.mark.parametrize("text", [
    "\"Drink it, M'rice,\" said Penrod. Maurice drank. He laughed.",
])
def test_a_name_also_written_elided_is_not_swapped(swap, text):
    assert not _follow_ups(swap, text)


def test_the_year_a_text_is_set_picks_names_of_then(swap):
    """A novel names no year: the document's year (or the suite's) picks names already in use
    when the counts began, and none on the rise then ("Dorothy") or of a later time ("Linda")."""
    from runner.tasks.coref.name_swap import NameSwap

    text = "Emma Woodhouse was handsome and clever. Emma had lived nearly twenty-one years."
    classic = swap.classic["female"]
    assert {"Linda", "Gloria", "Dorothy", "Eleanor"}.isdisjoint(classic)
    # names of America alone, or pet forms, are not England's registered names of then
    assert {"Kathryn", "Rosie"}.isdisjoint(classic)
    assert {"Alvin", "Dave", "Joe"}.isdisjoint(swap.classic["male"])
    assert {"Martha", "Harriet", "Jane"} <= set(classic)
    for fus in (swap.generate(SimpleNamespace(id="x", text=text, year=1815), None,
                              random.Random(0)),
                _follow_ups(NameSwap(max_follow_ups=20, year=1815), text)):
        assert fus and all(f.meta["new"] in classic for f in fus)
    assert not swap.generate(SimpleNamespace(id="x", text=text, year=1790), None,
                             random.Random(0))
    # the document's year comes before the years the passage names
    later = "In 1990 Emma Woodhouse became a detective. Emma had a son."
    fus = swap.generate(SimpleNamespace(id="x", text=later, year=1890), None, random.Random(0))
    assert fus and all(f.meta["new"] in classic for f in fus)


@pytest.mark.parametrize("text, name", [
    ("Joe's Pub hosted the show. Joe's Pub is in New York. He sang there.", "Joe"),
    ("Wes Thomas scored twice. Thomas and Symes each scored again.", "Thomas"),
])
def test_a_venue_or_a_surname_is_not_swapped(swap, text, name):
    assert name not in swap.names(text)


def test_names_of_either_gender_or_of_another_origin_are_left():
    from runner.tasks.coref.name_swap import NameSwap

    swap = NameSwap()
    for name in ("Jody", "Marion", "Jose", "Mario"):
        assert all(name not in v for v in (*swap.swapped.values(), *swap.pool.values()))
    assert "Jody" in NameSwap(min_gender_share=0.5).pool["female"]


@pytest.mark.parametrize("text", [
    "In 1985, he co-starred with Geena Davis in the TV show Sara, playing her neighbour.",
    "His films include A Fish Called Wanda. He liked it.",
    'Katherine Kiernan Maria "Kate" Mulgrew is an actress. Katherine said she was happy.',
    "She was the daughter of Charles Graham (Carl) Anderson. Carl was a banker.",
    "It was written by Lewis Carroll, who loved puzzles. Lewis was a don.",
    "This forced Alexander the Great to countermarch. Alexander won the battle.",
])
def test_a_title_a_nickname_an_epithet_or_a_famous_person_is_left(swap, text):
    assert not swap.names(text)


def test_a_passage_of_another_nation_swaps_no_name():
    from runner.tasks.coref.name_swap import NameSwap

    french = "Louis Chollet was a French organist. Louis played at Saint-Thomas."
    party = "William Armstrong was a Republican member of the House. William was a lawyer."
    swap = NameSwap()
    assert swap.nationality(french) == "French" and swap.pools_for(french) is None
    assert swap.nationality(party) is None and swap.pools_for(party) is not None
    assert NameSwap(fit_place=False).pools_for(french) is not None
    assert NameSwap(origin="french").pools_for(french) is not None


def test_a_kin_noun_that_gives_the_other_gender_keeps_the_name(swap):
    text = "He opposed a marriage between his nephew, Stacey, and her niece. Stacey refused."
    assert "Stacey" not in swap.names(text)


@pytest.mark.parametrize("text, name", [
    # a name after a title, with no other name after it, is someone's surname
    ('"I must tell Diana tonight," said Anne. "Miss Stacy never whipped any of us." Diana '
     "nodded.", "Stacy"),
    ('"Oh, Miss Shirley, ma\'am," said Charlotta. Anne laughed. Anne Shirley went out.',
     "Shirley"),
    # a later word of a full name ("Emma Jane") is not a first name to swap
    ("Emma Jane Perkins sold her cakes. Jane was sure Emma Jane would win.", "Jane"),
    # a use in capitals would stay ("name her ANNE")
    ('"I shall name her ANNE," sobbed Diana. Anne smiled at Diana.', "Anne"),
    # or in a hyphenated word ("the Sarah-cat")
    ('"Aunt Jimsie will bring the Sarah-cat," said Stella. "We love Sarah," said Phil.',
     "Sarah"),
    # a pet form of a name of each gender ("Tony": Anthony, Antonia)
    ("Tony wore gloves now, and she went downtown with Lena. Tony was the fairest.", "Tony"),
    # a pet name of it that would stay ("Bobbie" for Roberta; "Pris", a start of Priscilla)
    ('"I\'m not goody," said Roberta, "but I think Bobbie\'s right." Roberta smiled.',
     "Roberta"),
    ('"I\'ll walk with Priscilla," said Phil. "Pris and I will have sport." Priscilla laughed.',
     "Priscilla"),
    # a pet form of the same full name inside a sentence ("Tom" beside "Tommy": Thomas)
    ('"Can I learn it?" Tom meekly asked. "What will you give me?" said Tommy. Tommy grinned.',
     "Tommy"),
])
def test_a_surname_a_name_out_of_reach_or_with_a_pet_name_is_left(
        swap, text, name):
    assert name not in swap.names(text)


def test_a_first_name_after_a_title_with_the_surname_after_it_is_swapped(swap):
    text = ("Miss Sarah Copp was a small person. Sarah looked amazed. Diana smiled at "
            "Sarah.")
    assert swap.names(text).get("Sarah") == "female"
    assert "Roberta" in swap.names('"I\'m not goody," said Roberta. Roberta smiled.')
