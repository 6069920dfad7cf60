"""Builds suites/data/coref_fiction.jsonl and coref_fiction_b.jsonl to coref_fiction_k.jsonl:
passages of public-domain English novels from Project Gutenberg, eleven in most parts (eight in
part g, six in h and k, nine in j), for the coreference task: text of another genre than the
shipped news documents, none of it in LitBank (whose first 2,000 words of a hundred novels are
kept apart for measuring from outside), and none of ``name_swap``'s rules written on it. Part a
(1811–1922) was built after the rules were last changed, to measure them; part b (1814–1922,
other books) after part a was read and the rules written on it; parts c (1853–1919) and d
(1849–1911), other books again, after part b was read and the rules written on it; parts e
(1839–1895), f (1858–1911) and g (eight books, 1877–1922) after parts c and d were read and the
rule written on them; part h (six books, 1867–1921) after parts e to g were read, with no rule
written on them, to measure the same code again; part i (1850–1917), after part h was read and
``fit_era`` was given the year a text is set, to measure that: each of its passages carries
``year``, the year its book is set (``YEARS``); part j (nine books, 1836–1909), after part i was
read and the rules written on it (names of England's lists too, a name also written elided), to
measure those, with years as part i; part k (six books, 1852–1896), after part j was read, with
no rule written on it, to measure the same code on other books.

Usage: python bench/make_coref_fiction.py [--part a|b|c|d|e|f|g|h|i|j|k] BOOK_DIR...
    each BOOK_DIR a checkout or git directory of one of the part's GITenberg repositories
    (github.com/GITenberg/<name>_<number>, the books in ``BOOKS``), e.g. from ``git clone``.

Of each book: its text between Project Gutenberg's start and end lines (the licence's header
and footer are dropped: the novels themselves are in the public domain in the United States);
paragraphs (blank-line separated, lines joined) that are not headings ("CHAPTER IV", a line in
capitals) or illustrations; consecutive paragraphs joined into passages of at most
``MAX_WORDS`` words (a longer paragraph stands alone when it has at most ``MAX_PARAGRAPH``
words, and is skipped otherwise); kept when they have ``MIN_WORDS`` words or more and a
third-person pronoun of a gender (he, she, him, her, his). Of a book's passages ``PER_BOOK``
are kept, evenly spaced from its start to its end. Typographic quotes become straight ones and
italics marks (``_word_``) are dropped. Ids ``<gutenberg number>-<passage number>``.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_coref_qed import PRONOUN, write_passages  # noqa: E402

#: Each part's books, by Gutenberg number (none of them in LitBank), and its file.
BOOKS = {"a": {"1342": "Pride and Prejudice", "158": "Emma", "161": "Sense and Sensibility",
               "1260": "Jane Eyre", "47": "Anne of Avonlea", "284": "The House of Mirth",
               "1450": "Pollyanna", "498": "Rebecca of Sunnybrook Farm",
               "863": "The Mysterious Affair at Styles", "1156": "Babbitt", "242": "My Antonia"},
         "b": {"121": "Northanger Abbey", "141": "Mansfield Park", "51": "Anne of the Island",
               "394": "Cranford", "767": "Agnes Grey", "507": "Adam Bede",
               "479": "Little Lord Fauntleroy", "1874": "The Railway Children",
               "157": "Daddy-Long-Legs", "16389": "The Enchanted April", "144": "The Voyage Out"},
         "c": {"2726": "Eight Cousins", "2787": "An Old-Fashioned Girl", "2788": "Little Men",
               "8994": "What Katy Did", "544": "Anne's House of Dreams", "5343": "Rainbow Valley",
               "4274": "Wives and Daughters", "9182": "Villette", "946": "Lady Susan",
               "3499": "Jo's Boys", "836": "The Phoenix and the Carpet"},
         "d": {"5342": "The Story Girl", "5341": "Kilmeny of the Orchard", "30486": "Shirley",
               "4275": "Ruth", "16": "Peter Pan", "1028": "The Professor",
               "6688": "The Mill on the Floss", "7469": "Daniel Deronda",
               "3409": "Barchester Towers", "619": "The Warden", "8954": "Lady Audley's Secret"},
         "e": {"963": "Little Dorrit", "883": "Our Mutual Friend", "821": "Dombey and Son",
               "786": "Hard Times", "967": "Nicholas Nickleby", "700": "The Old Curiosity Shop",
               "968": "Martin Chuzzlewit", "122": "The Return of the Native",
               "143": "The Mayor of Casterbridge", "153": "Jude the Obscure",
               "482": "The Woodlanders"},
         "f": {"2870": "Washington Square", "179": "The Europeans",
               "154": "The Rise of Silas Lapham", "4517": "Ethan Frome",
               "2948": "Where Angels Fear to Tread", "3166": "Doctor Thorne",
               "2860": "Framley Parsonage", "1438": "No Name", "1895": "Armadale",
               "24020": "Romola", "583": "The Woman in White"},
         "g": {"28948": "The Rainbow", "4240": "Women in Love", "5247": "The Old Wives' Tale",
               "5670": "Jacob's Room", "506": "The Shuttle", "2604": "The Longest Journey",
               "7118": "What Maisie Knew", "177": "The American"},
         "h": {"2770": "Five Little Peppers and How They Grew", "5347": "Understood Betsy",
               "125": "A Girl of the Limberlost", "6440": "Elsie Dinsmore",
               "3796": "Rilla of Ingleside", "2786": "Jack and Jill"},
         "i": {"7265": "The History of Pendennis", "4599": "The Small House at Allington",
               "3045": "The Last Chronicle of Barset", "1586": "Man and Wife",
               "7381": "The Eustace Diamonds", "5231": "The Way We Live Now",
               "1709": "New Grub Street", "4313": "The Odd Women", "283": "The Reef",
               "402": "Penrod", "166": "Summer"},
         "j": {"580": "The Pickwick Papers", "17780": "Scenes of Clerical Life",
               "23000": "Orley Farm", "19500": "Can You Forgive Her?", "3632": "Poor Miss Finch",
               "176": "Roderick Hudson", "1622": "The Law and the Lady",
               "2158": "The Prime Minister", "718": "Tono-Bungay"},
         "k": {"203": "Uncle Tom's Cabin", "3044": "Desperate Remedies",
               "224": "A Pair of Blue Eyes", "1026": "The Diary of a Nobody",
               "308": "Three Men in a Boat", "133": "The Damnation of Theron Ware"}}
#: Parts i to k: the year each book is set (its own time: all are stories of the years they
#: were written in, or of a decade or three before), written into its passages as ``year``.
YEARS = {"7265": 1830, "4599": 1862, "3045": 1866, "1586": 1868, "7381": 1872, "5231": 1873,
         "1709": 1885, "4313": 1888, "283": 1912, "402": 1914, "166": 1917,
         "580": 1827, "17780": 1832, "23000": 1860, "19500": 1863, "3632": 1870, "176": 1872,
         "1622": 1874, "2158": 1875, "718": 1900,
         "203": 1850, "3044": 1864, "224": 1870, "1026": 1888, "308": 1889, "133": 1895}
OUT = {"a": "coref_fiction.jsonl", **{p: f"coref_fiction_{p}.jsonl" for p in "bcdefghijk"}}
MIN_WORDS, MAX_WORDS, MAX_PARAGRAPH, PER_BOOK = 40, 150, 220, 200
START = re.compile(r"^\*\*\* ?START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.M)
END = re.compile(r"^\*\*\* ?END OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.M)
HEADING = re.compile(r"^(?:CHAPTER|Chapter|BOOK|VOLUME|PART)\b|^[^a-z]*$")


def read_book(book: Path, books: dict[str, str]) -> tuple[str, str]:
    """(Gutenberg number, text) of a GITenberg checkout or git directory of one of ``books``."""
    number = re.search(r"_(\d+)(?:/|\.git|/repo)*$", str(book.resolve()).rstrip("/"))
    if not number:
        number = re.search(r"_(\d+)", str(book))
    if not number or number.group(1) not in books:
        sys.exit(f"{book}: not one of the part's books {sorted(books)}")
    n = number.group(1)
    for name in (f"{n}-0.txt", f"{n}.txt", f"{n}-8.txt"):
        if (book / name).is_file():
            raw = (book / name).read_bytes()
        else:
            done = subprocess.run(["git", "--git-dir", str(book), "show", f"HEAD:{name}"],
                                  capture_output=True)
            if done.returncode:
                continue
            raw = done.stdout
        try:
            return n, raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return n, raw.decode("latin-1")
    sys.exit(f"{book}: no {n}-0.txt, {n}.txt or {n}-8.txt")


def paragraphs(text: str) -> list[str]:
    start, end = START.search(text), END.search(text)
    if not start or not end:
        sys.exit("no Project Gutenberg start or end line")
    body = text[start.end():end.start()].replace("\r\n", "\n")
    body = (body.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'")
            .replace("\u2019", "'").replace("_", ""))
    out = []
    for block in re.split(r"\n\s*\n", body):
        para = " ".join(line.strip() for line in block.strip().splitlines())
        if para and not HEADING.match(para) and not para.startswith("[Illustration"):
            out.append(re.sub(r"\s+", " ", para))
    return out


def passages(paras: list[str]) -> list[str]:
    out: list[str] = []
    current: list[str] = []

    def close() -> None:
        text = " ".join(current)
        if len(text.split()) >= MIN_WORDS and PRONOUN.search(text):
            out.append(text)
        current.clear()

    for para in paras:
        words = len(para.split())
        if words > MAX_WORDS:
            close()
            if words <= MAX_PARAGRAPH:
                current.append(para)
                close()
            continue
        if current and len(" ".join(current).split()) + words > MAX_WORDS:
            close()
        current.append(para)
    close()
    return out


def main(part: str, dirs: list[str]) -> None:
    books, rows = BOOKS[part], []
    for book in dirs:
        n, text = read_book(Path(book), books)
        found = passages(paragraphs(text))
        step = len(found) / PER_BOOK
        kept = sorted({int(i * step) for i in range(PER_BOOK)}) if step > 1 else range(len(found))
        rows += [{"id": f"{n}-{i}", "text": found[i], **({"year": YEARS[n]} if n in YEARS else {})}
                 for i in kept]
        print(f"{books[n]}: {len(found)} passages, {len(kept)} kept")
    write_passages(rows, OUT[part])


if __name__ == "__main__":
    args = sys.argv[1:]
    part = "a"
    if args[:1] == ["--part"] and len(args) > 1:
        part, args = args[1], args[2:]
    if not args or part not in BOOKS:
        sys.exit(__doc__)
    main(part, args)
