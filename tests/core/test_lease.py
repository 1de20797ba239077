"""The lease record and scope key (docs/journal-format.md sections 1 and 4)."""

from __future__ import annotations

import json

import pytest

from ghattempt.core import (
    LEASE_HEADLINE,
    NO_WITNESS,
    JournalInvalid,
    Lease,
    Witness,
    build_lease,
    canonical,
    lease_ref_name,
    parse_lease,
    scope_key,
)
from ghattempt.core._c14n import canonical_text

INTENT = "sha256:" + "98ef2eba70c1f56eb39d48d80844bee97a4b514f944d17287e783346c2523a49"
REPO = "R_kgDOGYYNFfi8"
LAST = "sha256:" + "5" * 64


def _lease(**changes: object) -> dict[str, object]:
    obj: dict[str, object] = {
        "v": 1, "type": "lease", "scope": {"intent": INTENT, "repository": REPO},
        "holder": "actions:octo-org/widgets/release.yml:run/7503242847/1", "token": 3,
        "state": "held", "expires_at": "2026-03-19T15:18:22Z", "journal": 543,
        "head": {"records": 2, "last": LAST}}
    obj.update(changes)
    return obj


def _message(obj: object) -> str:
    return LEASE_HEADLINE + "\n\n" + canonical_text(obj)


def test_scope_key_is_the_sha256_prefix_of_the_canonical_scope() -> None:
    import hashlib
    expected = hashlib.sha256(
        canonical({"intent": INTENT, "repository": REPO})).hexdigest()[:40]
    assert scope_key(INTENT, REPO) == expected
    assert lease_ref_name(INTENT, REPO) == "refs/heads/ghattempt/lease/" + expected


def test_scope_key_agrees_with_the_exclusive_layer() -> None:
    from ghattempt.exclusive import Scope
    assert Scope(repository_id=REPO, intent_id=INTENT).key == scope_key(INTENT, REPO)


def test_round_trip() -> None:
    lease = parse_lease(_message(_lease()))
    assert lease == Lease(INTENT, REPO, "actions:octo-org/widgets/release.yml:run/7503242847/1",
                          3, "held", "2026-03-19T15:18:22Z", 543, Witness(2, LAST))
    assert lease.message() == _message(_lease())
    assert parse_lease(lease.message()) == lease
    assert lease.scope_key == scope_key(INTENT, REPO)


@pytest.mark.parametrize("suffix", ["\n", "\r\n"])
def test_one_trailing_newline_and_crlf_are_allowed(suffix: str) -> None:
    text = _message(_lease()).replace("\n", "\r\n" if suffix == "\r\n" else "\n") + suffix
    assert parse_lease(text).token == 3


def test_null_journal_and_empty_witness() -> None:
    lease = parse_lease(_message(_lease(journal=None, head={"records": 0, "last": None})))
    assert lease.journal is None
    assert lease.head == NO_WITNESS


BAD = {
    "not a string": None,
    "two trailing newlines": _message(_lease()) + "\n\n",
    "no empty line": LEASE_HEADLINE + "\n" + canonical_text(_lease()),
    "other headline": "ghattempt lease\n\n" + canonical_text(_lease()),
    "json over two lines": LEASE_HEADLINE + "\n\n" + json.dumps(_lease(), indent=1),
    "not canonical": LEASE_HEADLINE + "\n\n" + json.dumps(_lease()),
    "not json": LEASE_HEADLINE + "\n\n{",
    "float": _message(_lease()).replace('"token":3', '"token":3.0'),
    "v 2": _message(_lease(v=2)),
    "v true": _message(_lease(v=True)),
    "type event": _message(_lease(type="event")),
    "digest key": _message({**_lease(), "digest": LAST}),
    "missing head": _message({k: v for k, v in _lease().items() if k != "head"}),
    "scope intent not a digest": _message(_lease(scope={"intent": "x", "repository": REPO})),
    "scope extra key": _message(_lease(scope={"intent": INTENT, "repository": REPO, "x": 1})),
    "empty holder": _message(_lease(holder="")),
    "holder too long": _message(_lease(holder="h" * 257)),
    "token 0": _message(_lease(token=0)),
    "token bool": _message(_lease(token=True)),
    "state other": _message(_lease(state="free")),
    "expires_at not a time": _message(_lease(expires_at="2026-03-19 15:18:22Z")),
    "journal 0": _message(_lease(journal=0)),
    "journal string": _message(_lease(journal="543")),
    "records negative": _message(_lease(head={"records": -1, "last": LAST})),
    "records bool": _message(_lease(head={"records": True, "last": LAST})),
    "records 0 with last": _message(_lease(head={"records": 0, "last": LAST})),
    "records without last": _message(_lease(head={"records": 2, "last": None})),
    "last not a digest": _message(_lease(head={"records": 2, "last": "sha256:zz"})),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_malformed_lease_record_is_bad_witness(name: str) -> None:
    with pytest.raises(JournalInvalid) as caught:
        parse_lease(BAD[name])
    assert caught.value.code == "bad_witness"


def test_build_lease_refuses_a_bad_shape_with_value_error() -> None:
    good = dict(intent=INTENT, repository=REPO, holder="h", token=1, state="held",
                expires_at="2026-03-19T15:18:22Z", journal=None, head=NO_WITNESS)
    assert build_lease(**good).holder == "h"  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="head.records"):
        build_lease(**{**good, "head": Witness(0, LAST)})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="token"):
        build_lease(**{**good, "token": 0})  # type: ignore[arg-type]


def test_the_conformance_sample_message_parses() -> None:
    # The lease message of shared sample case bad_witness-foreign-scope (its scope is
    # another intent's, which is the reader's check, not the format's).
    text = ('ghattempt lease [skip ci]\n\n{"expires_at":"2026-03-19T15:18:22Z","head":'
            '{"last":"sha256:508960996ac4731f2c3c1e8b5edfa8f2caec8b90f0242b4ab047a77f543410ca",'
            '"records":2},"holder":"actions:octo-org/widgets/release.yml:run/7503242847/1",'
            '"journal":543,"scope":{"intent":"sha256:98ef2eba70c1f56eb39d48d80844bee97a4b514f'
            '944d17287e783346c2523a49","repository":"R_kgDOGYYNFfi8"},"state":"held",'
            '"token":1,"type":"lease","v":1}')
    lease = parse_lease(text)
    assert (lease.journal, lease.head.records, lease.token) == (543, 2, 1)
