"""The Action's ``::warning::`` for ignored comments: the count and why, in the core's
kinds (edited, deleted, other author), over the HTTP emulator. Two copies of one record
(the emulator's ``duplicate`` fault: a mutation applied twice inside GitHub) let one copy
be edited while the journal stays valid."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import World
from .test_action_commands import TOKEN, _discussion_id, run


def _post(world: World, discussion: str, token: str, body: str,
          reply_to: str | None = None) -> str:
    """A comment (or a reply) by ``token``'s account; its node id."""
    import json
    import urllib.request

    query = ("mutation($d:ID!,$b:String!,$r:ID){addDiscussionComment(input:{discussionId:$d,"
             "body:$b,replyToId:$r}){comment{id}}}")
    req = urllib.request.Request(  # noqa: S310 -- the loopback emulator
        world.api_url + "graphql", method="POST",
        data=json.dumps({"query": query, "variables": {"d": discussion, "b": body,
                                                       "r": reply_to}}).encode(),
        headers={"authorization": f"bearer {token}", "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:  # noqa: S310
        answer = json.loads(r.read())
    assert "errors" not in answer, answer
    return str(answer["data"]["addDiscussionComment"]["comment"]["id"])


def _copies(world: World, body_part: str) -> list[str]:
    disc = world.emulator.snapshot()["repositories"][0]["discussions"][0]
    return [c["id"] for c in disc["comments"] if body_part in c["body"]]


def test_the_warning_counts_ignored_comments_by_the_cores_kinds(tmp_path: Path) -> None:
    (tmp_path / "world").mkdir()
    world = World(tmp_path / "world")
    try:
        admitted = run(world, tmp_path, "admit")
        assert admitted.rc == 0, admitted.stdout
        world.emulator.add_fault({"kind": "duplicate", "operation": "addDiscussionComment",
                                  "count": 1})
        step = run(world, tmp_path, "record", phase="admission", status="started",
                   key="admission-started")
        assert step.rc == 0, step.stdout
        copies = _copies(world, '"key":"admission-started"')
        assert len(copies) == 2, copies
        world.emulator.tamper("edit", copies[0], body="rewritten")  # edited; the copy counts
        number = int(admitted.outputs["journal-url"].rsplit("/", 1)[1])
        discussion = _discussion_id(world, number)
        # a note of the writer with a reply, then deleted: GitHub keeps a deleted comment
        # that has replies (wiped, deletedAt set); its reply is ignored with it
        note = _post(world, discussion, TOKEN, "a note")
        _post(world, discussion, "ghp_alice", "a reply", reply_to=note)
        world.emulator.tamper("delete", note)
        _post(world, discussion, "ghp_alice", "LGTM")  # another author
        status = run(world, tmp_path, "status")
        assert status.rc == 0, status.stdout
        assert status.outputs["ignored"] == "4"
        assert status.outputs["missing-phases"] == "admission build publication"
        assert status.outputs["status"] == "running"  # the unedited copy counts
        (warning,) = [x for x in status.stdout.splitlines() if x.startswith("::warning")]
        assert re.search(r"::4 comments of the journal ignored \(deleted: 1, edited: 1, "
                         r"other author: 1, reply of an ignored comment: 1\)", warning), warning
    finally:
        world.close()
