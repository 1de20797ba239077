"""Every .graphql document is valid against GitHub's published schema, and the capture
queries are the spec's, byte for byte."""

from __future__ import annotations

import hashlib
import pathlib
from importlib import resources

import pytest
from graphql import parse, validate

import ghattempt.github as gh
from ghattempt.github import DOCUMENT_NAMES, document

SPEC_QUERIES = pathlib.Path("/work/shared/spec/queries")
# sha256 of spec/queries/*.graphql (journal-v1 section 5)
SPEC_SHA256 = {
    "JournalPage": "8452dc422c67cb212c1732e43ac980496c5f5dac8ba55ee2c100b6284af79085",
    "RepliesPage": "fe10b80506ededed25bd05214fc53be8231b28ae8c3d8a239a2e4a296303cfdf",
    "LeaseRef": "149c1211d526008164d0fb0bc183b48ca6b5f778eadde79b4c60e15289bc17ff",
}


def package_files() -> list[str]:
    folder = resources.files("ghattempt.github").joinpath("graphql")
    return sorted(p.name.removesuffix(".graphql") for p in folder.iterdir()
                  if p.name.endswith(".graphql"))


def test_every_file_is_a_known_document_and_back():
    assert package_files() == sorted(DOCUMENT_NAMES)


@pytest.mark.parametrize("name", DOCUMENT_NAMES)
def test_document_validates_against_github_schema(github_schema, name):
    doc = document(name)
    errors = validate(github_schema, parse(doc.text))
    assert errors == [], [e.message for e in errors]


def test_schema_validation_catches_a_wrong_field(github_schema):
    errors = validate(github_schema, parse("query { repository(owner: \"a\", name: \"b\") "
                                           "{ discussion(number: 1) { nope } } }"))
    assert errors and "nope" in errors[0].message


@pytest.mark.parametrize("name", sorted(SPEC_SHA256))
def test_capture_queries_are_the_spec_bytes(name):
    text = document(name).text.encode("utf-8")
    assert hashlib.sha256(text).hexdigest() == SPEC_SHA256[name]
    spec = SPEC_QUERIES / f"{name}.graphql"
    if spec.is_file():
        assert spec.read_bytes() == text


def test_mutations_and_queries_are_told_apart():
    kinds = {n: document(n).kind for n in DOCUMENT_NAMES}
    assert {n for n, k in kinds.items() if k == "mutation"} == {
        "CreateDiscussion", "AddDiscussionComment", "CreateRef",
        "UpdateRefs", "DeleteRef", "CreateCommitOnBranch",
        # ghattempt probe's edit and clean-up
        "UpdateDiscussionComment", "DeleteDiscussionComment", "DeleteDiscussion"}


def test_unknown_document_name():
    with pytest.raises(KeyError, match="no GraphQL document named"):
        document("Nope")


def test_public_namespace_is_curated():
    assert sorted(gh.__all__) == sorted(set(gh.__all__))
    for name in gh.__all__:
        assert hasattr(gh, name), name
    public = {n for n in dir(gh) if not n.startswith("_")}
    modules = {"capture", "config", "documents", "errors", "identity", "models", "provider",
               "retry", "transport", "usage"}
    assert public - modules == set(gh.__all__)


@pytest.mark.parametrize("name", DOCUMENT_NAMES)
def test_document_validates_against_the_emulator_subset(name):
    from ghattempt.emulator import load_schema

    errors = validate(load_schema(), parse(document(name).text))
    assert errors == [], [e.message for e in errors]


def test_missing_schema_fails_when_fixtures_are_required(monkeypatch):
    from .conftest import missing_fixture

    monkeypatch.setenv("GHATTEMPT_REQUIRE_FIXTURES", "1")
    with pytest.raises(pytest.fail.Exception, match="GHATTEMPT_REQUIRE_FIXTURES=1"):
        missing_fixture("schema.graphql")
    monkeypatch.delenv("GHATTEMPT_REQUIRE_FIXTURES")
    with pytest.warns(UserWarning, match="npm fixture missing"), \
            pytest.raises(pytest.skip.Exception):
        missing_fixture("schema.graphql")
