"""The emulator's schema is a subset of GitHub's published schema, identical type by
type and field by field, and the committed file is what the derivation produces."""

from __future__ import annotations

import subprocess
import sys

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    assert_valid_schema,
)

from ghattempt.emulator import load_schema
from ghattempt.emulator.schema_subset import SELECTION, derive_subset_sdl

from .conftest import PUBLISHED, ROOT


def _field_sig(field) -> tuple:
    return (
        str(field.type),
        tuple(
            (name, str(arg.type), repr(arg.default_value))
            for name, arg in sorted(field.args.items())
        ),
        field.deprecation_reason,
    )


def test_subset_is_identical_to_published(published: GraphQLSchema) -> None:
    subset = load_schema()
    assert_valid_schema(subset)
    checked = 0
    for name, t in subset.type_map.items():
        if name.startswith("__"):
            continue
        p = published.type_map.get(name)
        assert p is not None, f"{name} is not in the published schema"
        assert type(p) is type(t), name
        if isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)):
            for fname, field in t.fields.items():
                assert fname in p.fields, f"{name}.{fname} not published"
                assert _field_sig(field) == _field_sig(p.fields[fname]), f"{name}.{fname}"
                checked += 1
            assert {i.name for i in t.interfaces} <= {i.name for i in p.interfaces}, name
        elif isinstance(t, GraphQLInputObjectType):
            assert set(t.fields) == set(p.fields), name
            for fname, field in t.fields.items():
                pf = p.fields[fname]
                assert (str(field.type), repr(field.default_value)) == (
                    str(pf.type),
                    repr(pf.default_value),
                ), f"{name}.{fname}"
                checked += 1
        elif isinstance(t, GraphQLEnumType):
            assert set(t.values) == set(p.values), name
        elif isinstance(t, GraphQLUnionType):
            assert {m.name for m in t.types} <= {m.name for m in p.types}, name
        else:
            assert isinstance(t, GraphQLScalarType)
    assert checked > 150


def test_subset_covers_what_ghattempt_needs() -> None:
    s = load_schema()
    need = {
        "Query": {"repository", "node", "viewer", "rateLimit"},
        "Repository": {
            "id",
            "databaseId",
            "name",
            "owner",
            "nameWithOwner",
            "url",
            "discussion",
            "discussions",
            "discussionCategories",
            "discussionCategory",
            "ref",
            "object",
            "defaultBranchRef",
            "pullRequest",
        },
        "Discussion": {
            "id",
            "number",
            "title",
            "body",
            "url",
            "author",
            "locked",
            "lastEditedAt",
            "includesCreatedEdit",
            "createdAt",
            "category",
            "repository",
            "comments",
        },
        "DiscussionComment": {
            "id",
            "body",
            "createdAt",
            "lastEditedAt",
            "includesCreatedEdit",
            "isMinimized",
            "deletedAt",
            "author",
            "url",
            "discussion",
            "replyTo",
            "replies",
            "databaseId",
        },
        "Ref": {"name", "prefix", "target"},
        "Commit": {"oid", "message", "committedDate"},
        "PullRequest": {
            "number",
            "headRefOid",
            "baseRefName",
            "baseRefOid",
            "headRefName",
            "merged",
            "state",
        },
        "RateLimit": {"cost", "limit", "remaining", "resetAt", "used"},
        "Mutation": {
            "createDiscussion",
            "addDiscussionComment",
            "updateDiscussionComment",
            "deleteDiscussionComment",
            "minimizeComment",
            "lockLockable",
            "createRef",
            "updateRefs",
            "deleteRef",
            "createCommitOnBranch",
        },
    }
    for type_name, fields in need.items():
        t = s.get_type(type_name)
        assert isinstance(t, GraphQLObjectType), type_name
        assert fields <= set(t.fields), (type_name, fields - set(t.fields))
    refupdate = s.get_type("RefUpdate")
    assert isinstance(refupdate, GraphQLInputObjectType)
    assert {"beforeOid", "afterOid", "force", "name"} <= set(refupdate.fields)


def test_committed_file_is_the_derivation(published: GraphQLSchema) -> None:
    """``scripts/derive-emulator-schema --check``: the committed SDL is what the
    derivation writes from the published schema today."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts/derive-emulator-schema"), "--check"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_derivation_refuses_unknown_names(published: GraphQLSchema) -> None:
    import pytest

    from ghattempt.emulator import schema_subset

    sdl = PUBLISHED.read_text(encoding="utf-8")
    saved = dict(schema_subset.SELECTION)
    try:
        schema_subset.SELECTION["Repository"] = (*saved["Repository"], "noSuchField")
        with pytest.raises(schema_subset.SubsetError, match="noSuchField"):
            derive_subset_sdl(sdl)
    finally:
        schema_subset.SELECTION.clear()
        schema_subset.SELECTION.update(saved)


def test_selection_names_only_published_fields(published: GraphQLSchema) -> None:
    for name, fields in SELECTION.items():
        t = published.get_type(name)
        assert isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)), name
        assert set(fields) <= set(t.fields), name
