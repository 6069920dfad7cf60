"""The line reading every task's corpus reader shares: a corpus streamed line by line (memory
does not grow with it), each line bounded before it is read whole (``max_line_bytes``: by default
64 bytes per character of ``limits.max_sentence_chars`` plus 64 KiB, room for any JSON escaping),
decoded as UTF-8 with a byte-order mark dropped, and every problem located (file, line, what was
expected). The NER and coreference readers build on :class:`LineCorpus`."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

from runner.errors import SuiteError

#: Tokens joined without a space before them, and after them, when a tokenised corpus (CoNLL)
#: becomes text.
NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", ")", "]", "}", "%", "'s", "n't", "'re", "'ve",
                   "'ll", "'d", "'m"}
NO_SPACE_AFTER = {"(", "[", "{", "$"}


def default_max_line_bytes(max_sentence_chars: int) -> int:
    return 64 * max_sentence_chars + 65536


class LineCorpus:
    """A corpus read line by line; subclasses give :meth:`_reader` for their formats."""

    #: what one source of this corpus is (the empty-corpus error names it)
    item = "sentence"

    def __init__(self, path: Path, fmt: str, *, max_sentence_chars: int,
                 max_line_bytes: int | None = None) -> None:
        self.path = Path(path)
        self.fmt = fmt
        self.max_sentence_chars = max_sentence_chars
        self.max_line_bytes = max_line_bytes or default_max_line_bytes(max_sentence_chars)

    def _reader(self) -> Callable[[], Iterator[Any]]:
        """The generator of sources for :attr:`fmt`."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        from runner.tasks.ids import unique_ids

        count = 0
        for source in unique_ids(self._reader()(), self.path):
            count += 1
            yield source
        if count == 0:
            raise SuiteError(f"the corpus has no {self.item} (the file is empty or only blank "
                             "lines)", file=str(self.path))

    def count(self) -> int:
        """Read the whole corpus once (validating it) without keeping it."""
        return sum(1 for _ in self)

    def _lines(self) -> Iterator[tuple[int, str]]:
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise SuiteError(f"cannot read the corpus: {exc.strerror}", file=str(self.path)) from None
        with handle:
            lineno = 0
            while True:
                # bounded read: a file of one huge line must not be read into memory whole
                raw = handle.readline(self.max_line_bytes + 1)
                if not raw:
                    break
                lineno += 1
                if len(raw) > self.max_line_bytes and not raw.endswith(b"\n"):
                    raise SuiteError(
                        f"line longer than {self.max_line_bytes:,} bytes (the limit follows "
                        "limits.max_sentence_chars). Is this file one sentence per line?",
                        file=str(self.path), line=lineno)
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise SuiteError(
                        f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                        "re-encode the corpus as UTF-8, e.g. `iconv -f latin1 -t utf-8`",
                        file=str(self.path), line=lineno) from None
                if lineno == 1:
                    line = line.lstrip("\ufeff")
                yield lineno, line.rstrip("\r\n")

    def _check_length(self, text: str, lineno: int) -> None:
        if len(text) > self.max_sentence_chars:
            raise SuiteError(
                f"sentence of {len(text):,} characters; the limit is {self.max_sentence_chars:,} "
                "(limits.max_sentence_chars). Is this file one sentence per line? Split long "
                "documents into sentences first.", file=str(self.path), line=lineno)
