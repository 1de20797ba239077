"""The slice of GitHub's published GraphQL schema that the emulator serves.

``SELECTION`` names, for each object and interface type, the fields kept; every kept
field is copied from the published schema unchanged (arguments, defaults, types,
descriptions, directives). Input objects, enums and scalars reached from a kept field
are kept whole, so any input GitHub accepts for a kept field is accepted here too.
Interfaces and union members outside the subset are dropped from ``implements`` lists
and unions. ``scripts/derive-emulator-schema`` writes the result to ``schema.graphql``
next to this module; ``tests/emulator/test_schema.py`` proves it identical to the
published schema type by type and field by field.

Source: ``@octokit/graphql-schema`` (npm), GitHub's public schema.
"""

from __future__ import annotations

from collections.abc import Iterable

from graphql import (
    DocumentNode,
    EnumTypeDefinitionNode,
    FieldDefinitionNode,
    InputObjectTypeDefinitionNode,
    InputValueDefinitionNode,
    InterfaceTypeDefinitionNode,
    ListTypeNode,
    NamedTypeNode,
    NonNullTypeNode,
    ObjectTypeDefinitionNode,
    ScalarTypeDefinitionNode,
    TypeNode,
    UnionTypeDefinitionNode,
    assert_valid_schema,
    build_schema,
    parse,
    print_ast,
)

CONNECTION = ("edges", "nodes", "pageInfo", "totalCount")
EDGE = ("cursor", "node")
ACTOR = ("avatarUrl", "login", "resourcePath", "url")
GIT_OBJECT = ("abbreviatedOid", "commitResourcePath", "commitUrl", "id", "oid", "repository")

SELECTION: dict[str, tuple[str, ...]] = {
    "Query": ("id", "node", "nodes", "rateLimit", "repository", "viewer"),
    "Mutation": (
        "addDiscussionComment",
        "createCommitOnBranch",
        "createDiscussion",
        "createRef",
        "deleteDiscussion",
        "deleteDiscussionComment",
        "deleteRef",
        "lockLockable",
        "minimizeComment",
        "unlockLockable",
        "unminimizeComment",
        "updateDiscussionComment",
        "updateRefs",
    ),
    # interfaces
    "Node": ("id",),
    "Actor": ACTOR,
    "RepositoryOwner": ("avatarUrl", "id", "login", "resourcePath", "url"),
    "RepositoryNode": ("repository",),
    "Lockable": ("activeLockReason", "locked"),
    "Minimizable": ("isMinimized", "minimizedReason"),
    "Comment": (
        "author",
        "body",
        "createdAt",
        "id",
        "includesCreatedEdit",
        "lastEditedAt",
        "updatedAt",
    ),
    "GitObject": GIT_OBJECT,
    # objects
    "Repository": (
        "branchProtectionRules",
        "databaseId",
        "defaultBranchRef",
        "discussion",
        "discussionCategories",
        "discussionCategory",
        "discussions",
        "hasDiscussionsEnabled",
        "id",
        "isPrivate",
        "name",
        "nameWithOwner",
        "object",
        "owner",
        "pullRequest",
        "ref",
        "url",
        "viewerPermission",
    ),
    "User": ("avatarUrl", "databaseId", "id", "login", "name", "resourcePath", "url"),
    "Bot": ("avatarUrl", "databaseId", "id", "login", "resourcePath", "url"),
    "Organization": ("avatarUrl", "databaseId", "id", "login", "name", "resourcePath", "url"),
    "Discussion": (
        "activeLockReason",
        "author",
        "body",
        "category",
        "comments",
        "createdAt",
        "databaseId",
        "id",
        "includesCreatedEdit",
        "lastEditedAt",
        "locked",
        "number",
        "repository",
        "resourcePath",
        "title",
        "updatedAt",
        "url",
    ),
    "DiscussionComment": (
        "author",
        "body",
        "createdAt",
        "databaseId",
        "deletedAt",
        "discussion",
        "id",
        "includesCreatedEdit",
        "isMinimized",
        "lastEditedAt",
        "minimizedReason",
        "replies",
        "replyTo",
        "resourcePath",
        "updatedAt",
        "url",
    ),
    "DiscussionCategory": (
        "createdAt",
        "description",
        "emoji",
        "id",
        "isAnswerable",
        "name",
        "repository",
        "slug",
        "updatedAt",
    ),
    "BranchProtectionRule": (
        "allowsDeletions",
        "allowsForcePushes",
        "blocksCreations",
        "databaseId",
        "id",
        "isAdminEnforced",
        "lockBranch",
        "pattern",
        "requiredApprovingReviewCount",
        "requiredStatusCheckContexts",
        "requiresApprovingReviews",
        "requiresCommitSignatures",
        "requiresStatusChecks",
        "restrictsPushes",
    ),
    "BranchProtectionRuleConnection": CONNECTION,
    "BranchProtectionRuleEdge": EDGE,
    "DiscussionConnection": CONNECTION,
    "DiscussionEdge": EDGE,
    "DiscussionCommentConnection": CONNECTION,
    "DiscussionCommentEdge": EDGE,
    "DiscussionCategoryConnection": CONNECTION,
    "DiscussionCategoryEdge": EDGE,
    "PageInfo": ("endCursor", "hasNextPage", "hasPreviousPage", "startCursor"),
    "RateLimit": ("cost", "limit", "nodeCount", "remaining", "resetAt", "used"),
    "Ref": ("id", "name", "prefix", "repository", "target"),
    "Commit": (
        *GIT_OBJECT,
        "committedDate",
        "message",
        "messageHeadline",
        "parents",
        "resourcePath",
        "tree",
        "url",
    ),
    "CommitConnection": CONNECTION,
    "CommitEdge": EDGE,
    "Tree": GIT_OBJECT,
    "PullRequest": (
        "activeLockReason",
        "author",
        "baseRefName",
        "baseRefOid",
        "body",
        "createdAt",
        "databaseId",
        "headRef",
        "headRefName",
        "headRefOid",
        "headRepository",
        "id",
        "includesCreatedEdit",
        "lastEditedAt",
        "locked",
        "merged",
        "number",
        "repository",
        "state",
        "title",
        "updatedAt",
        "url",
    ),
    # mutation payloads
    "AddDiscussionCommentPayload": ("clientMutationId", "comment"),
    "CreateCommitOnBranchPayload": ("clientMutationId", "commit", "ref"),
    "CreateDiscussionPayload": ("clientMutationId", "discussion"),
    "CreateRefPayload": ("clientMutationId", "ref"),
    "DeleteDiscussionPayload": ("clientMutationId", "discussion"),
    "DeleteDiscussionCommentPayload": ("clientMutationId", "comment"),
    "DeleteRefPayload": ("clientMutationId",),
    "LockLockablePayload": ("actor", "clientMutationId", "lockedRecord"),
    "MinimizeCommentPayload": ("clientMutationId", "minimizedComment"),
    "UnlockLockablePayload": ("actor", "clientMutationId", "unlockedRecord"),
    "UnminimizeCommentPayload": ("clientMutationId", "unminimizedComment"),
    "UpdateDiscussionCommentPayload": ("clientMutationId", "comment"),
    "UpdateRefsPayload": ("clientMutationId",),
}


class SubsetError(ValueError):
    """The selection names a type or field the published schema does not have, or
    a kept field reaches an object type that is not selected."""


def _named(type_node: TypeNode) -> str:
    while isinstance(type_node, (ListTypeNode, NonNullTypeNode)):
        type_node = type_node.type
    assert isinstance(type_node, NamedTypeNode)
    return type_node.name.value


def _args(args: Iterable[InputValueDefinitionNode] | None) -> list[str]:
    return [_named(a.type) for a in args or ()]


def derive_subset_sdl(published_sdl: str) -> str:
    """Return the subset SDL (text ending in a newline) for ``published_sdl``.

    Raises:
        SubsetError: a selected type or field is not in the published schema, or a
            kept field refers to an object, interface or union type that is neither
            selected nor a union with a selected member.
    """
    document = parse(published_sdl, no_location=True)
    by_name: dict[str, object] = {}
    for definition in document.definitions:
        name = getattr(getattr(definition, "name", None), "value", None)
        if name is not None:
            by_name[name] = definition

    keep: dict[str, object] = {}
    pending: list[str] = []

    def want(name: str) -> None:
        if name in keep or name in pending:
            return
        pending.append(name)

    for name in SELECTION:
        want(name)
    while pending:
        name = pending.pop()
        node = by_name.get(name)
        if node is None:
            if name in ("String", "Int", "Boolean", "ID", "Float"):
                continue
            raise SubsetError(f"type {name!r} is not in the published schema")
        if isinstance(node, (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode)):
            if name not in SELECTION:
                raise SubsetError(
                    f"type {name!r} is reached from a kept field but is not selected; "
                    "add it to SELECTION"
                )
            fields = {f.name.value: f for f in node.fields or ()}
            missing = [f for f in SELECTION[name] if f not in fields]
            if missing:
                raise SubsetError(f"{name} has no field(s) {missing} in the published schema")
            kept_fields: list[FieldDefinitionNode] = [
                f for f in node.fields or () if f.name.value in SELECTION[name]
            ]
            for f in kept_fields:
                want(_named(f.type))
                for arg in _args(f.arguments):
                    want(arg)
            keep[name] = (node, kept_fields)
        elif isinstance(node, InputObjectTypeDefinitionNode):
            for arg in _args(node.fields):
                want(arg)
            keep[name] = node
        elif isinstance(node, UnionTypeDefinitionNode):
            keep[name] = node
        elif isinstance(node, (EnumTypeDefinitionNode, ScalarTypeDefinitionNode)):
            keep[name] = node
        else:  # pragma: no cover - the published schema has no other kinds
            raise SubsetError(f"unexpected definition kind for {name!r}")

    out = []
    for name in sorted(keep):
        item = keep[name]
        if isinstance(item, tuple):
            node, kept_fields = item
            interfaces = tuple(i for i in node.interfaces or () if i.name.value in keep)
            out.append(
                type(node)(
                    name=node.name,
                    description=node.description,
                    directives=node.directives,
                    interfaces=interfaces,
                    fields=tuple(kept_fields),
                )
            )
        elif isinstance(item, UnionTypeDefinitionNode):
            members = tuple(t for t in item.types or () if t.name.value in keep)
            if not members:
                raise SubsetError(f"union {name!r} has no member in the subset")
            out.append(
                UnionTypeDefinitionNode(
                    name=item.name,
                    description=item.description,
                    directives=item.directives,
                    types=members,
                )
            )
        else:
            out.append(item)
    for directive in document.definitions:
        if directive.kind == "directive_definition":
            out.append(directive)
    sdl = print_ast(DocumentNode(definitions=tuple(out))) + "\n"
    # full validation: the subset must be a valid schema on its own
    assert_valid_schema(build_schema(sdl))
    return sdl
