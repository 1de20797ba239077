from __future__ import annotations

import json

import pytest

from ghattempt.core import NO_WITNESS, Witness, parse_lease, scope_key
from ghattempt.exclusive import LEASE_HEADLINE, LeaseCorrupt, Scope, read_lease

from .conftest import INTENT, OTHER_SCOPE, SCOPE


def test_scope_key_is_40_hex_and_distinct_per_part():
    assert len(SCOPE.key) == 40
    assert int(SCOPE.key, 16) >= 0
    assert SCOPE.key != OTHER_SCOPE.key
    other_intent = Scope(SCOPE.repository_id, "sha256:" + "cd" * 32)
    assert other_intent.key != SCOPE.key
    assert Scope(SCOPE.repository_id, INTENT).key == SCOPE.key  # stable


def test_scope_key_cannot_be_forged_by_moving_characters_between_parts():
    # A concatenation "R_a" + "sha256:..." would collide with "R_" + "asha256..."; the key
    # hashes canonical JSON so it cannot.
    a = Scope("R_a", INTENT)
    b = Scope("R_ab", INTENT)
    assert a.key != b.key


def test_ref_name_uses_prefix_and_key():
    assert SCOPE.ref_name() == "refs/heads/ghattempt/lease/" + SCOPE.key
    assert SCOPE.ref_name("refs/heads/x/") == "refs/heads/x/" + SCOPE.key


@pytest.mark.parametrize(
    "repository_id, intent_id",
    [
        ("", INTENT),
        ("R kgDO", INTENT),
        ("R_kgDO\n", INTENT),
        ("R_kgDO", "sha256:" + "AB" * 32),
        ("R_kgDO", "ab" * 32),
        ("R_kgDO", "42"),
        ("x" * 257, INTENT),
    ],
)
def test_scope_rejects_malformed_parts(repository_id, intent_id):
    with pytest.raises(ValueError):
        Scope(repository_id, intent_id)


def test_legacy_base64_node_ids_are_accepted():
    Scope("MDEwOlJlcG9zaXRvcnkxMjk2MjY5", INTENT)


def _record(**kw):
    base = dict(holder="cli/0123", token=7, expires_at=1_800_000_120, state="held",
                journal=None, head=NO_WITNESS)
    base.update(kw)
    return SCOPE.lease(**base)


def test_the_record_is_the_cores_lease_record():
    record = _record(journal=12, head=Witness(3, "sha256:" + "cd" * 32))
    message = record.message()
    assert message.startswith(LEASE_HEADLINE + "\n\n")
    body = message.split("\n\n", 1)[1]
    obj = json.loads(body)
    assert obj["expires_at"] == "2027-01-15T08:02:00Z"
    assert obj["journal"] == 12 and obj["head"] == {"records": 3, "last": "sha256:" + "cd" * 32}
    # canonical JSON: sorted keys, no spaces
    assert body == json.dumps(obj, sort_keys=True, separators=(",", ":"))
    ref = SCOPE.ref_name()
    assert read_lease(message, ref=ref, scope=SCOPE) == record
    assert parse_lease(message) == record  # the reader reads the very same record
    # GitHub may hand the message back with CRLF line ends or a last newline
    assert read_lease(message.replace("\n", "\r\n"), ref=ref, scope=SCOPE) == record
    assert read_lease(message + "\n", ref=ref, scope=SCOPE) == record


def test_the_scope_key_is_the_cores():
    assert SCOPE.key == scope_key(INTENT, SCOPE.repository_id)


def _body(**changes):
    obj = _record().to_dict()
    obj.update(changes)
    return LEASE_HEADLINE + "\n\n" + json.dumps(obj, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize(
    "message",
    [
        "Initial commit",
        "ghattempt lease [skip ci]",
        LEASE_HEADLINE + "\n\nnot json",
        LEASE_HEADLINE + "\n\n" + json.dumps(_record().to_dict()),  # not canonical
        _body(token=0),
        _body(token=True),
        _body(token=2**53),
        _body(state="free"),
        _body(v=2),
        _body(type="other"),
        _body(holder=""),
        _body(expires_at="2027-01-15 08:02:00"),
        _body(expires_at=1_800_000_120),
        _body(extra=1),
        _body(journal=0),
        _body(head={"records": 1, "last": None}),
        _body(scope={"intent": INTENT}),
        _body(scope={"intent": INTENT, "repository": "R_kgDOLease2"}),
    ],
)
def test_anything_but_a_lease_of_this_scope_is_corrupt(message):
    with pytest.raises(LeaseCorrupt) as info:
        read_lease(message, ref="refs/heads/x", scope=SCOPE)
    assert "refs/heads/x" in str(info.value)


def test_a_ref_without_a_commit_message_is_corrupt():
    with pytest.raises(LeaseCorrupt, match="does not point to a commit"):
        read_lease(None, ref="refs/heads/x", scope=SCOPE)
