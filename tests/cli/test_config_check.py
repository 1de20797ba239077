"""``ghattempt config check [FILE]`` and ``ghattempt config schema``."""

from __future__ import annotations

import json
from pathlib import Path

from ghattempt.config import json_schema

from .conftest import run_cli


def check(tmp_path: Path, text: str) -> tuple[int, list[str], str]:
    (tmp_path / ".github").mkdir(exist_ok=True)
    (tmp_path / ".github" / "ghattempt.toml").write_text(text)
    done = run_cli("config", "check", cwd=tmp_path)
    return done.returncode, done.stdout.decode().splitlines(), done.stderr.decode()


def test_a_good_file_is_ok(tmp_path: Path) -> None:
    rc, out, _ = check(tmp_path, '[journal]\ncategory = "General"\n')
    assert (rc, out) == (0, [".github/ghattempt.toml: ok"])


def test_each_problem_gets_its_file_line_and_fix(tmp_path: Path) -> None:
    rc, out, err = check(tmp_path, "\n".join([
        "[journal]",
        'categroy = "General"',
        "[lease]",
        "length = 5",
        "[pacing]",
        "write_interval = -1",
        "[deploy]",
        "",
    ]))
    assert rc == 2
    assert out == [
        '.github/ghattempt.toml:2:1: journal.categroy: unknown key (did you mean "category"?); '
        "remove it; keys allowed in [journal]: category, title, max_comments",
        ".github/ghattempt.toml:4:1: lease.length: 5 s is not longer than request_timeout "
        "(30 s) + GitHub's 10 s server bound + clock_skew (5 s) + 2 x request_timeout (to "
        "acquire) + 1 s = 106 s; set lease.length above 106 or lower lease.request_timeout",
        ".github/ghattempt.toml:6:1: pacing.write_interval: -1 is not a duration; use a number "
        "of seconds 0 or more",
        ".github/ghattempt.toml:7:1: deploy: unknown key; remove it; keys allowed in the top "
        "level: journal, writer, attempt, channels, lease, pacing, run, app",
    ]
    assert err.strip() == "4 problems in .github/ghattempt.toml"


def test_a_syntax_error_and_a_missing_key(tmp_path: Path) -> None:
    rc, out, _ = check(tmp_path, '[journal]\ncategory = "x\n')
    assert rc == 2 and out[0].startswith(".github/ghattempt.toml:2:")
    rc, out, _ = check(tmp_path, '[writer]\nlogin = "my-app"\n')
    assert rc == 2
    assert out == [".github/ghattempt.toml:1:1: writer.database_id: missing for writer.login = "
                   '"my-app"; add database_id = <the account\'s numeric id> (the `id` field of '
                   "`gh api users/my-app` for a user, `gh api users/my-app%5Bbot%5D` for an App)"]


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    done = run_cli("config", "check", "nope.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert len(done.stderr.decode().strip().splitlines()) == 1


def test_schema_prints_the_generated_schema() -> None:
    done = run_cli("config", "schema")
    assert done.returncode == 0
    assert json.loads(done.stdout) == json.loads(json.dumps(json_schema()))
