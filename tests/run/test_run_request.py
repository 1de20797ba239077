"""``ghattempt.commands.Run`` is checked when built: every input error is a
``RequestError`` (exit 2) before any request to GitHub."""

from __future__ import annotations

from typing import Any

import pytest

from ghattempt.commands import RequestError, Run, Target
from ghattempt.core import CliWriter
from ghattempt.work import Script

TARGET = Target("octo-org/widgets", 7)
WRITER = CliWriter("alice")


def run(**fields: Any) -> Run:
    base: dict[str, Any] = {"target": TARGET, "writer": WRITER, "phase": "build",
                            "work": ("make", "dist")}
    base.update(fields)
    return Run(**base)


def test_a_good_request_keeps_what_it_was_given() -> None:
    r = run(work=Script("make dist\n", "bash"), verify="github-release:v1.2.0",
            materials=("dist/*",), wait=30, takeover=True)
    assert (r.release_tag, r.materials, r.wait, r.takeover) == (
        "v1.2.0", ("dist/*",), 30, True)
    assert run(verify=Script("test -f x")).release_tag is None


@pytest.mark.parametrize(("fields", "says"), [
    ({"phase": "deploy"}, "--phase 'deploy' is not a phase"),
    ({"work": ()}, "a command and its arguments"),
    ({"work": Script("   ")}, "the script is empty"),
    ({"work": "make dist"}, "a command and its arguments"),
    ({"verify": "curl https://example.com"}, "github-release:TAG"),
    ({"verify": "github-release:"}, "github-release:TAG"),
    ({"verify": "github-release:v1 2"}, "github-release:TAG"),
    ({"materials": ("/etc/passwd",)}, "relative to the workspace"),
    ({"materials": ("dist/../../x",)}, "relative to the workspace"),
    ({"materials": ("",)}, "an empty glob"),
    ({"materials": "dist/*"}, "a tuple of glob patterns"),
    ({"wait": -1}, "--wait"),
    ({"wait": 21601}, "--wait"),
    ({"wait": True}, "--wait"),
    ({"head": "abc"}, "--head must be a commit SHA"),
    ({"artifact_url": "ftp://x"}, "http(s) URL"),
    ({"artifact_url": "https://x/ghp_" + "a" * 36}, "token"),
    ({"request_key": "bad key"}, "--request-key"),
])
def test_bad_input_is_refused_when_the_request_is_built(fields: dict[str, Any],
                                                         says: str) -> None:
    with pytest.raises(RequestError) as caught:
        run(**fields)
    assert says in str(caught.value)
    assert "ghp_" not in str(caught.value)
