"""Consumer configuration (.github/ghattempt.toml): every key valid and invalid."""

from __future__ import annotations

import hashlib
import itertools
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ghattempt.config import (
    DEFAULT_CONFIG_PATH,
    PHASES,
    SCHEMA,
    AttemptSettings,
    Channel,
    ConfigError,
    JobPhase,
    JournalSettings,
    LeaseSettings,
    PacingSettings,
    PhaseMap,
    Settings,
    WriterSettings,
    blob_oid,
    content_digest,
    key_position,
    load_config,
    parse_config,
)
from ghattempt.core import build_intent

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ghattempt.toml"
DOC = ROOT / "docs" / "configuration.md"
PATH = DEFAULT_CONFIG_PATH
KEY = re.compile(r"[A-Za-z0-9._:/@+=-]{1,128}\Z")


def parse(text: str) -> Settings:
    return parse_config(text.encode(), path=PATH).settings


def error(text: str | bytes) -> ConfigError:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(ConfigError) as info:
        parse_config(data, path=PATH)
    return info.value


# ----------------------------------------------------------------------------- defaults


def test_empty_file_gives_every_default():
    s = parse("")
    assert s == Settings()
    assert s.journal == JournalSettings("General", s.journal.title)
    # no github.com id is assumed: the Actions bot's id is learned from the host
    assert s.writer == WriterSettings("github-actions", None)
    assert s.channels == (Channel("release", PHASES),)
    assert s.attempt.default_channel == "release"
    assert s.attempt.expires_after == 86400
    assert s.lease == LeaseSettings(lease_seconds=120, request_timeout=30.0, clock_skew=5.0,
                                   acquire_timeout=300.0)
    assert s.pacing == PacingSettings(1.0)
    assert s.app == PhaseMap(())


def test_phase_order_is_the_spec_order():
    assert PHASES == (
        "admission",
        "build",
        "review",
        "warrant",
        "merge",
        "publication",
        "distribution",
        "next-development",
    )


def test_example_file_sets_every_key_and_loads():
    cfg = load_config("examples/ghattempt.toml", root=ROOT)
    s = cfg.settings
    assert s.journal.category == "release-journal"
    assert [c.name for c in s.channels] == ["stable", "preview"]
    assert s.channel_named("preview") == Channel("preview", ("admission", "build", "publication"))
    assert s.attempt.default_channel == "stable"
    assert s.app.phase_for("release.yml", "publish") == "publication"
    assert s.app.phase_for("release.yml", "nope") is None
    assert s.app.phase_for("other.yml", "build") is None
    text = EXAMPLE.read_text()
    for table, keys in SCHEMA.items():
        for key in keys:
            if table in ("", "app", "channels.*"):
                continue  # tables themselves, written as [name] / [[app.jobs]]
            assert re.search(rf"^{re.escape(key)} = ", text, re.M), (table, key)
    assert "[[app.jobs]]" in text and "[channels." in text


def test_docs_describe_every_key():
    doc = DOC.read_text()
    for table, keys in SCHEMA.items():
        if table == "":
            continue
        prefix = {"channels.*": "channels.NAME", "app.jobs[]": "app.jobs[]"}.get(table, table)
        for key in keys:
            assert f"`{prefix}.{key}`" in doc, f"{prefix}.{key} is not documented"


# ----------------------------------------------------------------------------- hashing


def git_hash_object(path: Path, object_format: str = "sha1") -> str:
    if object_format == "sha1":
        cmd = ["git", "hash-object", "--no-filters", str(path)]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    repo = path.parent / "repo256"
    subprocess.run(
        ["git", "init", "-q", "--object-format=sha256", str(repo)], check=True, capture_output=True
    )
    cmd = ["git", "-C", str(repo), "hash-object", "--no-filters", str(path)]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize(
    "content",
    [b"", EXAMPLE.read_bytes(), "[journal]\r\ntitle = 'Journal \u00e9 \u2603'\r\n".encode()],
    ids=["empty", "example", "crlf-non-ascii"],
)
def test_blob_oid_equals_git_hash_object(tmp_path, content):
    f = tmp_path / "ghattempt.toml"
    f.write_bytes(content)
    cfg = load_config("ghattempt.toml", root=tmp_path)
    assert cfg.blob == git_hash_object(f)
    assert cfg.blob == blob_oid(content)
    assert blob_oid(content, object_format="sha256") == git_hash_object(f, "sha256")
    assert cfg.digest == "sha256:" + hashlib.sha256(content).hexdigest()
    assert cfg.path == "ghattempt.toml"
    assert cfg.generation_config() == {"path": cfg.path, "blob": cfg.blob, "digest": cfg.digest}


def test_digest_is_of_raw_bytes_not_of_parsed_toml():
    a = parse_config(b"[pacing]\nwrite_interval = 2\n", path=PATH)
    b = parse_config(b"[pacing]\nwrite_interval   =   2  # spaced\n", path=PATH)
    assert a.settings == b.settings
    assert a.digest != b.digest and a.blob != b.blob
    assert content_digest(b"") == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_unknown_object_format_is_refused():
    with pytest.raises(ValueError, match="sha1"):
        blob_oid(b"", object_format="md5")


def test_given_blob_oid_must_match_content():
    data = b"[writer]\n"
    assert parse_config(data, path=PATH, blob_oid=blob_oid(data)).blob == blob_oid(data)
    sha256 = blob_oid(data, object_format="sha256")
    assert parse_config(data, path=PATH, blob_oid=sha256).blob == sha256
    e = _raises(lambda: parse_config(data, path=PATH, blob_oid="0" * 40))
    assert str(e) == (
        f"{PATH}: content has blob oid {blob_oid(data)}, not the expected {'0' * 40}; "
        "read the file at the same commit the oid came from"
    )
    e = _raises(lambda: parse_config(data, path=PATH, blob_oid="ABC"))
    assert "is not 40 or 64 lowercase hex digits" in str(e)


def _raises(fn) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        fn()
    return info.value


# ----------------------------------------------------------------------------- paths


def test_load_missing_file_names_path_and_fix(tmp_path):
    e = _raises(lambda: load_config(PATH, root=tmp_path))
    assert e.path == PATH and e.key is None
    assert str(e).startswith(f"{PATH}: file not found (looked in {tmp_path / PATH}); create it")
    assert "docs/configuration.md" in str(e)


def test_load_unreadable_path(tmp_path):
    (tmp_path / "dir.toml").mkdir()
    e = _raises(lambda: load_config("dir.toml", root=tmp_path))
    assert str(e).startswith("dir.toml: is a directory, not a regular file")


def test_load_relative_to_current_directory(tmp_path, monkeypatch):
    (tmp_path / ".github").mkdir()
    (tmp_path / PATH).write_bytes(b"[journal]\ncategory = 'Releases'\n")
    monkeypatch.chdir(tmp_path)
    assert load_config().settings.journal.category == "Releases"
    assert load_config(Path(PATH)).path == PATH


@pytest.mark.parametrize("bad", ["", "/etc/ghattempt.toml", "../x.toml", "a//b.toml", "a/./b"])
def test_path_must_be_repository_relative(bad):
    e = _raises(lambda: parse_config(b"", path=bad))
    assert "is not a normalized repository-relative path" in str(e)


def test_path_spellings_are_normalized():
    assert parse_config(b"", path="./.github/ghattempt.toml").path == PATH
    assert parse_config(b"", path=".github\\ghattempt.toml").path == PATH


def test_oversized_file_is_refused():
    e = error(b"#" * (1 << 20) + b"\n")
    assert "is larger than" in str(e)


# ----------------------------------------------------------------------------- syntax


@pytest.mark.parametrize(
    "text, line, column, problem",
    [
        ("[journal]\ncategory = \n", 2, 12, "invalid TOML: Invalid value"),
        ("[lease]\nlength = 1\nlength = 2\n", 3, 11, "invalid TOML: Cannot overwrite a value"),
        ("title = 'x", 1, 11, 'invalid TOML: Expected "\'" at end of document'),
        ("a = ", 1, 5, "invalid TOML: Invalid value at end of document"),
        ("[journal]\n\xff\n", 2, 1, "is not UTF-8 (byte 0xff)"),
    ],
)
def test_syntax_errors_give_line_and_column(text, line, column, problem):
    data = text.encode("latin-1") if "\xff" in text else text.encode()
    e = error(data)
    assert (e.line, e.column) == (line, column)
    assert e.key is None
    assert str(e).startswith(f"{PATH}: line {line}, column {column}: {problem}")
    assert "\n" not in str(e)


# ----------------------------------------------------------------------------- every key valid

FULL = """
[journal]
category = "Release journals"
title = "{repository}#{pull_request}->{base_ref} ({repository_id})"

[writer]
login = "release-bot"
database_id = 123456

[attempt]
request_key = "{repository_id}/{pull_request}@{base_ref}+{channel}"
default_channel = "v1.x"
expires_after = 3600

[channels."v1.x"]
plan = ["admission", "merge"]

[channels.nightly]
plan = ["next-development"]

[lease]
length = 72
request_timeout = 20
clock_skew = 0
acquire_timeout = 0

[pacing]
write_interval = 0

[[app.jobs]]
workflow = "release.yaml"
job = "Merge it (linux)"
phase = "merge"
"""


def test_every_key_valid():
    s = parse(FULL)
    assert s.journal == JournalSettings(
        "Release journals", "{repository}#{pull_request}->{base_ref} ({repository_id})"
    )
    assert s.writer == WriterSettings("release-bot", 123456)
    assert s.attempt == AttemptSettings(
        "{repository_id}/{pull_request}@{base_ref}+{channel}", "v1.x", 3600
    )
    assert s.channels == (
        Channel("v1.x", ("admission", "merge")),
        Channel("nightly", ("next-development",)),
    )
    assert s.lease == LeaseSettings(lease_seconds=72, request_timeout=20.0, clock_skew=0.0,
                                   acquire_timeout=0.0)
    assert s.lease.margin == 30.0
    assert s.lease.minimum_lease == 71.0  # 20 + 10 + 0 + 2 x 20 + 1
    assert s.pacing == PacingSettings(0.0)
    assert s.app == PhaseMap((JobPhase("release.yaml", "Merge it (linux)", "merge"),))


def test_single_channel_is_the_default_channel():
    s = parse('[channels.only]\nplan = ["build"]\n')
    assert s.attempt.default_channel == "only"


def test_other_writer_login_with_database_id():
    assert parse('[writer]\nlogin = "my-app"\ndatabase_id = 7\n').writer == WriterSettings(
        "my-app", 7
    )
    # the Actions bot's id differs per host: without one it is learned from the host
    assert parse('[writer]\nlogin = "github-actions"\n').writer.database_id is None
    assert parse('[writer]\nlogin = "github-actions"\ndatabase_id = 9\n').writer.database_id == 9


def test_rendering_request_key_and_title():
    cfg = parse_config(FULL.encode(), path=PATH)
    assert (
        cfg.request_key(repository_id="R_kgDOx", pull_request=7, base_ref="release/1.x")
        == "R_kgDOx/7@release/1.x+v1.x"
    )
    assert (
        cfg.request_key(
            repository_id="MDEwOlJlcG9zaXRvcnkx=", pull_request=7, base_ref="m", channel="nightly"
        )
        == "MDEwOlJlcG9zaXRvcnkx=/7@m+nightly"
    )
    assert (
        cfg.journal_title(repository="o/r", repository_id="R_1", pull_request=3, base_ref="main")
        == "o/r#3->main (R_1)"
    )
    intent = build_intent(repository_id="R_1", repository_name="o/r", pull_request=3,
                          base_ref="main")
    assert cfg.journal_title_of(intent) == "o/r#3->main (R_1)"
    assert cfg.channel() == Channel("v1.x", ("admission", "merge"))


def test_request_key_refuses_a_runtime_value_outside_the_key_alphabet():
    cfg = parse_config(b"", path=PATH)
    e = _raises(lambda: cfg.request_key(repository_id="R", pull_request=1, base_ref="feat#1"))
    assert e.key == "attempt.request_key"
    assert str(e).startswith(
        f'{PATH}: attempt.request_key: renders to "pr-1:feat#1:release" for this request'
    )
    e = _raises(lambda: cfg.request_key(repository_id="R", pull_request=1, base_ref="b" * 130))
    assert e.key == "attempt.request_key"


def test_unknown_channel_at_runtime():
    cfg = parse_config(FULL.encode(), path=PATH)
    e = _raises(lambda: cfg.channel("nigthly"))
    assert str(e) == (
        f'{PATH}: channels: no channel named "nigthly" (did you mean "nightly"?); use one of: '
        "v1.x, nightly, or add [channels.nigthly] with its plan"
    )
    e = _raises(
        lambda: cfg.request_key(repository_id="R", pull_request=1, base_ref="m", channel="x")
    )
    assert e.key == "channels"


# ----------------------------------------------------------------------------- every key invalid

ORDER = ", ".join(PHASES)

INVALID = [
    # top level and tables
    ("jornal = 1", "jornal", 'unknown key (did you mean "journal"?)'),
    ("journal = 3", "journal", "expected a table, got integer 3"),
    ("lease = 'x'", "lease", 'expected a table, got string "x"'),
    ("channels = []", "channels", "expected a table, got an array"),
    # journal
    ("[journal]\ncategroy = 'x'", "journal.categroy", 'unknown key (did you mean "category"?)'),
    ("[journal]\ncategory = 1", "journal.category", "expected a string, got integer 1"),
    ("[journal]\ncategory = ''", "journal.category", "is empty"),
    ("[journal]\ncategory = ' x'", "journal.category", '" x" has surrounding spaces'),
    ("[journal]\ncategory = '" + "c" * 101 + "'", "journal.category", "has 101 characters"),
    ("[journal]\ntitle = true", "journal.title", "expected a string, got boolean true"),
    ("[journal]\ntitle = 'PR {pr}'", "journal.title", "placeholder {pr} is not allowed"),
    (
        "[journal]\ntitle = '{base_ref!r}'",
        "journal.title",
        "placeholder {base_ref!r} is not allowed",
    ),
    ("[journal]\ntitle = '{0}'", "journal.title", "placeholder {0} is not allowed"),
    ("[journal]\ntitle = 'a {'", "journal.title", "is not a valid template"),
    ("[journal]\ntitle = '   '", "journal.title", "renders to 3 characters"),
    ("[journal]\ntitle = '" + "t" * 257 + "'", "journal.title", "has 257 characters"),
    (
        "[journal]\ntitle = '" + "t" * 230 + "{repository}{repository}'",
        "journal.title",
        "renders to 266 characters for a sample pull request; keep the title between 1 and 256",
    ),
    # writer
    ("[writer]\nlogni = 'x'", "writer.logni", 'unknown key (did you mean "login"?)'),
    ("[writer]\nlogin = 5", "writer.login", "expected a string, got integer 5"),
    ("[writer]\nlogin = {a = 1}", "writer.login", "expected a string, got a table"),
    (
        "[writer]\nlogin = 'github-actions[bot]'",
        "writer.login",
        '"github-actions[bot]" carries the REST suffix [bot]; use the bare GraphQL login '
        '"github-actions"',
    ),
    ("[writer]\nlogin = 'a--b'", "writer.login", '"a--b" is not a GitHub login'),
    ("[writer]\nlogin = '-ab'", "writer.login", "is not a GitHub login"),
    ("[writer]\nlogin = '" + "a" * 40 + "'", "writer.login", "is not a GitHub login"),
    ("[writer]\nlogin = 'app'", "writer.database_id", 'missing for writer.login = "app"'),
    ("[writer]\ndatabase_id = 0", "writer.database_id", "0 is less than 1"),
    ("[writer]\ndatabase_id = '41898282'", "writer.database_id", "expected an integer"),
    ("[writer]\ndatabase_id = true", "writer.database_id", "expected an integer, got boolean"),
    ("[writer]\ndatabase_id = 1.5", "writer.database_id", "expected an integer, got float 1.5"),
    # channels
    ("[channels]", "channels", "has no channel"),
    ("[channels]\nstable = 1", "channels.stable", "expected a table, got integer 1"),
    ('[channels."a b"]\nplan = ["build"]', 'channels."a b"', '"a b" is not a valid channel name'),
    (
        "[channels.s]",
        "channels.s.plan",
        f"missing; add plan = [...] with phases, in this order, from: {ORDER}",
    ),
    ("[channels.s]\nplna = []", "channels.s.plna", 'unknown key (did you mean "plan"?)'),
    (
        "[channels.s]\nplan = 'build'",
        "channels.s.plan",
        'expected an array of phases, got string "build"',
    ),
    ("[channels.s]\nplan = []", "channels.s.plan", "is empty"),
    ("[channels.s]\nplan = [1]", "channels.s.plan", "expected phase names, got integer 1"),
    (
        "[channels.stable]\nplan = ['admission', 'deploy']",
        "channels.stable.plan",
        f'"deploy" is not a phase; use phases from: {ORDER}',
    ),
    (
        "[channels.s]\nplan = ['biuld']",
        "channels.s.plan",
        '"biuld" is not a phase (did you mean "build"?)',
    ),
    ("[channels.s]\nplan = ['rollback']", "channels.s.plan", '"rollback" is not a phase'),
    ("[channels.s]\nplan = ['build', 'build']", "channels.s.plan", '"build" appears twice'),
    (
        "[channels.s]\nplan = ['merge', 'review']",
        "channels.s.plan",
        f'"review" comes after "merge"; list phases in the admitted order: {ORDER}',
    ),
    # attempt
    ("[attempt]\nrequest_keys = ''", "attempt.request_keys", 'did you mean "request_key"?'),
    ("[attempt]\nrequest_key = 7", "attempt.request_key", "expected a string"),
    ("[attempt]\nrequest_key = '{pr}'", "attempt.request_key", "placeholder {pr} is not allowed"),
    ("[attempt]\nrequest_key = '{channel:>9}'", "attempt.request_key", "placeholder {channel:>9}"),
    ("[attempt]\nrequest_key = '{repository}'", "attempt.request_key", "placeholder {repository}"),
    (
        "[attempt]\nrequest_key = 'release {channel}'",
        "attempt.request_key",
        '"release {channel}" holds characters outside a journal key',
    ),
    ("[attempt]\nrequest_key = '" + "k" * 129 + "'", "attempt.request_key", "which is not a key"),
    (
        "[attempt]\ndefault_channel = 'stabel'\n[channels.stable]\nplan = ['build']",
        "attempt.default_channel",
        '"stabel" is not a channel (did you mean "stable"?); use one of: stable',
    ),
    (
        "[channels.a]\nplan = ['build']\n[channels.b]\nplan = ['build']",
        "attempt.default_channel",
        "missing while there are 2 channels; add default_channel = one of: a, b",
    ),
    ("[attempt]\nexpires_after = 0", "attempt.expires_after", "0 is less than 1"),
    ("[attempt]\nexpires_after = 1.5", "attempt.expires_after", "expected an integer"),
    # lease
    ("[lease]\nlenght = 1", "lease.lenght", 'unknown key (did you mean "length"?)'),
    ("[lease]\nlength = '2m'", "lease.length", 'expected an integer, got string "2m"'),
    ("[lease]\nlength = 120.5", "lease.length", "expected an integer, got float 120.5"),
    ("[lease]\nlength = 0", "lease.length", "0 is less than 1; use 1 or more"),
    ("[lease]\nrequest_timeout = inf", "lease.request_timeout", "inf is not a duration"),
    ("[lease]\nrequest_timeout = nan", "lease.request_timeout", "nan is not a duration"),
    (
        "[lease]\nrequest_timeout = 0",
        "lease.request_timeout",
        "use a number of seconds more than 0",
    ),
    ("[lease]\nrequest_timeout = -1", "lease.request_timeout", "-1 is not a duration"),
    ("[lease]\nclock_skew = -0.5", "lease.clock_skew", "use a number of seconds 0 or more"),
    ("[lease]\nacquire_timeout = -1", "lease.acquire_timeout", "-1 is not a duration"),
    ("[lease]\nacquire_timeout = false", "lease.acquire_timeout", "got boolean false"),
    (
        "[lease]\nlength = 106",
        "lease.length",
        "106 s is not longer than request_timeout (30 s) + GitHub's 10 s server bound + "
        "clock_skew (5 s) + 2 x request_timeout (to acquire) + 1 s = 106 s; set lease.length "
        "above 106 or lower lease.request_timeout",
    ),
    ("[lease]\nlength = 286\nrequest_timeout = 90", "lease.length", "= 286 s"),
    ("[lease]\nlength = 73\nrequest_timeout = 20\nclock_skew = 2.5", "lease.length", "= 73.5 s"),
    # pacing
    ("[pacing]\ninterval = 1", "pacing.interval", 'unknown key (did you mean "write_interval"?)'),
    ("[pacing]\nwrite_interval = -1", "pacing.write_interval", "-1 is not a duration"),
    ("[pacing]\nwrite_interval = 1979-05-27", "pacing.write_interval", "got date"),
    # app
    ("[app]\njob = []", "app.job", 'unknown key (did you mean "jobs"?)'),
    ("[app]\njobs = 'x'", "app.jobs", 'expected an array of tables, got string "x"'),
    ("[app]\njobs = [1]", "app.jobs[0]", "expected a table, got integer 1"),
    ("[[app.jobs]]\nworkflow = 'r.yml'\njob = 'b'", "app.jobs[0].phase", "missing"),
    ("[[app.jobs]]\njob = 'b'\nphase = 'build'", "app.jobs[0].workflow", "missing"),
    ("[[app.jobs]]\nworkflow = 'r.yml'\nphase = 'build'", "app.jobs[0].job", "missing"),
    (
        "[[app.jobs]]\nworkflow = 'r.yml'\njob = 'b'\nphase = 'build'\nstep = 1",
        "app.jobs[0].step",
        "unknown key",
    ),
    (
        "[[app.jobs]]\nworkflow = '.github/workflows/r.yml'\njob = 'b'\nphase = 'build'",
        "app.jobs[0].workflow",
        '".github/workflows/r.yml" is not a workflow file name',
    ),
    ("[[app.jobs]]\nworkflow = 'r.yml'\njob = ''\nphase = 'build'", "app.jobs[0].job", "is empty"),
    (
        "[[app.jobs]]\nworkflow = 'r.yml'\njob = 'b'\nphase = 'deploy'",
        "app.jobs[0].phase",
        '"deploy" is not a phase',
    ),
    (
        "[channels.s]\nplan = ['build']\n"
        "[[app.jobs]]\nworkflow = 'r.yml'\njob = 'm'\nphase = 'merge'",
        "app.jobs[0].phase",
        '"merge" is in no channel\'s plan',
    ),
    (
        "[[app.jobs]]\nworkflow = 'r.yml'\njob = 'b'\nphase = 'build'\n"
        "[[app.jobs]]\nworkflow = 'r.yml'\njob = 'b'\nphase = 'review'",
        "app.jobs[1]",
        'workflow "r.yml" job "b" is already mapped by app.jobs[0]',
    ),
]


@pytest.mark.parametrize(
    "text, key, problem", INVALID, ids=[i[1] + ":" + i[2][:30] for i in INVALID]
)
def test_every_key_invalid(text, key, problem):
    e = error(text)
    assert e.path == PATH
    assert e.key == key
    # the position of the key (or of its table's header) in the file, when it is there
    assert (e.line, e.column) == (key_position(text, key) or (None, None))
    message = str(e)
    assert message.startswith(f"{PATH}: {key}: ")
    assert problem in message
    assert "\n" not in message
    # every message ends with a fix after the problem
    assert message.count("; ") >= 1 and e.fix and message.endswith(e.fix)


def test_brief_example_error_text_exactly():
    e = error('[channels.stable]\nplan = ["admission", "deploy"]\n')
    assert str(e) == (
        '.github/ghattempt.toml: channels.stable.plan: "deploy" is not a phase; use phases '
        "from: admission, build, review, warrant, merge, publication, distribution, "
        "next-development"
    )


def test_unknown_top_level_key_lists_allowed_keys():
    e = error("[chanels.x]\nplan = ['build']\n")
    assert str(e) == (
        f'{PATH}: chanels: unknown key (did you mean "channels"?); remove it; keys allowed in '
        "the top level: journal, writer, attempt, channels, lease, pacing, run, app"
    )


def test_odd_key_names_are_quoted_in_the_dotted_path():
    e = error('[journal]\n"odd key" = 1\n')
    assert e.key == 'journal."odd key"'


# ----------------------------------------------------------------------------- properties

subsequences = st.lists(st.booleans(), min_size=len(PHASES), max_size=len(PHASES)).map(
    lambda mask: [p for p, keep in zip(PHASES, mask, strict=True) if keep]
)


@given(subsequences)
def test_every_nonempty_subsequence_of_the_phase_order_is_a_plan(plan):
    text = "[channels.c]\nplan = [" + ", ".join(f'"{p}"' for p in plan) + "]\n"
    if plan:
        assert parse(text).channels == (Channel("c", tuple(plan)),)
    else:
        assert error(text).problem == "is empty"


@given(st.lists(st.sampled_from(PHASES), min_size=1, max_size=10))
def test_a_list_is_a_plan_exactly_when_it_is_strictly_increasing_in_phase_order(plan):
    text = "[channels.c]\nplan = [" + ", ".join(f'"{p}"' for p in plan) + "]\n"
    indices = [PHASES.index(p) for p in plan]
    if all(a < b for a, b in itertools.pairwise(indices)):
        assert parse(text).channels[0].plan == tuple(plan)
    else:
        assert error(text).key == "channels.c.plan"


@given(
    st.sampled_from(["repository_id", "pull_request", "base_ref", "channel"]),
    st.text(alphabet="abc-._:/@+=", max_size=20),
)
def test_templates_that_render_keys_are_accepted(field, literal):
    s = parse(f'[attempt]\nrequest_key = "{literal}{{{field}}}"\n')
    rendered = s.attempt.request_key.format(
        repository_id="R_kgDOAbCdEf", pull_request=1, base_ref="main", channel="release"
    )
    assert KEY.match(rendered)


def test_the_documented_example_is_the_example_file():
    doc = DOC.read_text()
    block = doc.split("## Example", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    documented = parse_config(block.encode(), path=PATH).settings
    assert documented == load_config("examples/ghattempt.toml", root=ROOT).settings
