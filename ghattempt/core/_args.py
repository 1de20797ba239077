"""The reader's arguments (docs/journal-format.md section 6): one parser for CLI and
library."""

from __future__ import annotations

import re

from ._codes import JournalInvalid
from ._records import is_key
from ._value import value

DEFAULT_SERVER = "https://github.com"
DEFAULT_MAX_RECORDS = 1000
DEFAULT_MAX_ATTEMPTS = 100

# Section 6: (http|https)://HOST(:PORT)?/? -- HOST a DNS name or IPv4 literal, or a
# bracketed IPv6 literal; PORT 1 to 5 digits.
_SERVER_URL = (r"(?:http|https)://(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9.])?"
               r"|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?/?")

FLAGS = ("--writer", "--writer-id", "--repository-id", "--request-key", "--server-url",
         "--max-records", "--max-attempts")
"""The flags that take a value (the next token)."""
SWITCHES = ("--require-witness",)
"""The flags that take none (``--help`` aside, which the caller handles)."""
REQUIRED = ("--writer", "--repository-id")


@value
class Options:
    """Checked reader options (section 6). ``server_url`` has its trailing ``/`` dropped."""

    writer: str
    repository_id: str
    writer_id: int | None = None
    request_key: str | None = None
    server_url: str = DEFAULT_SERVER
    max_records: int = DEFAULT_MAX_RECORDS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    require_witness: bool = False


def _bad(detail: str) -> JournalInvalid:
    return JournalInvalid("bad_arguments", detail)


def _positive(value: object, flag: str) -> int:
    if type(value) is not int or value < 1:
        raise _bad(f"{flag} must be an integer >= 1")
    return value


def make_options(writer: str, repository_id: str, *, writer_id: int | None = None,
                 request_key: str | None = None, server_url: str | None = None,
                 max_records: int = DEFAULT_MAX_RECORDS,
                 max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 require_witness: bool = False) -> Options:
    """Check option values (section 6) and return them as ``Options``.

    Raises:
        JournalInvalid: ``bad_arguments`` naming the wrong value.
    """
    if type(writer) is not str or type(repository_id) is not str:
        raise _bad("--writer and --repository-id must be strings")
    if writer_id is not None:
        _positive(writer_id, "--writer-id")
    _positive(max_records, "--max-records")
    _positive(max_attempts, "--max-attempts")
    if type(require_witness) is not bool:
        raise _bad("require_witness must be True or False")
    if request_key is not None and not is_key(request_key):
        raise _bad("--request-key must match [A-Za-z0-9._:/@+=-]{1,128}")
    server = DEFAULT_SERVER
    if server_url is not None:
        if type(server_url) is not str or re.fullmatch(_SERVER_URL, server_url) is None:
            raise _bad("--server-url must be (http|https)://HOST(:PORT) with at most a "
                       "trailing /")
        server = server_url[:-1] if server_url.endswith("/") else server_url
    return Options(writer, repository_id, writer_id, request_key, server, max_records,
                   max_attempts, require_witness)


def shown(number: int) -> str:
    """``number`` for a failure's detail: its digits when it has at most 40, else its
    size (``str()`` of an integer beyond 4300 digits raises ``ValueError``)."""
    return str(number) if -10**40 < number < 10**40 else f"a {number.bit_length()}-bit number"


def exact_int(digits: str) -> int:
    """The integer written by ``digits`` (ASCII decimal digits), exactly, however long.

    ``int()`` refuses more than 4300 digits (``sys.get_int_max_str_digits``); this
    converts 1000 digits at a time, so a flag is compared exactly whatever its length.
    """
    value = 0
    for start in range(0, len(digits), 1000):
        chunk = digits[start:start + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def parse_argv(argv: list[str]) -> Options:
    """Parse reader arguments (section 6). ``--help`` is handled by the caller.

    Flags are separate tokens; the token after a flag is always its value; any other
    token (``--flag=value``, a stray word) is an unknown flag.

    Raises:
        JournalInvalid: ``bad_arguments`` naming the first problem.
    """
    values: dict[str, str] = {}
    switches: set[str] = set()
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag in SWITCHES:
            if flag in switches:
                raise _bad(f"{flag} is given twice")
            switches.add(flag)
            i += 1
            continue
        if flag not in FLAGS:
            # Name the token only when it looks like a flag name: a stray token may be a
            # secret pasted in the wrong place, and the verdict is printed.
            name = flag.split("=", 1)[0]
            if "=" in flag and name in FLAGS:
                raise _bad(f"write {name} VALUE, not {name}=VALUE (the value is its own "
                           "argument)")
            shown = (repr(flag) if re.fullmatch(r"--[a-z][a-z-]{0,30}", flag)
                     else "an argument that is not a flag name (not shown: it may be a secret)")
            raise _bad(f"unknown flag: {shown} (flags are --writer --repository-id "
                       "--writer-id --request-key --server-url --max-records --max-attempts "
                       "--require-witness)")
        if flag in values:
            raise _bad(f"{flag} is given twice")
        if i + 1 >= len(argv):
            raise _bad(f"{flag} has no value")
        values[flag] = argv[i + 1]
        i += 2
    for flag in REQUIRED:
        if flag not in values:
            raise _bad(f"{flag} is required")
    def number(flag: str) -> int | None:
        text = values.get(flag)
        if text is None:
            return None
        if not text.isascii() or not text.isdigit():
            raise _bad(f"{flag} must be an integer >= 1 in plain decimal digits")
        return exact_int(text)

    records, attempts = number("--max-records"), number("--max-attempts")
    return make_options(
        values["--writer"], values["--repository-id"], writer_id=number("--writer-id"),
        request_key=values.get("--request-key"), server_url=values.get("--server-url"),
        max_records=DEFAULT_MAX_RECORDS if records is None else records,
        max_attempts=DEFAULT_MAX_ATTEMPTS if attempts is None else attempts,
        require_witness="--require-witness" in switches)


def request_key_of(argv: list[str]) -> str | None:
    """The ``--request-key`` value of ``argv`` when it is a valid key, else None.

    Used for the ``request_key`` of an invalid verdict (section 10), even when other
    arguments are wrong: the value after the first ``--request-key`` flag token.
    """
    i = 0
    while i < len(argv) - 1:
        if argv[i] == "--request-key":
            return argv[i + 1] if is_key(argv[i + 1]) else None
        i += 2 if argv[i] in FLAGS else 1
    return None
