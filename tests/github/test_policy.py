"""Properties of the pure retry decision and of the redactor."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ghattempt.github import AmbiguousOutcome, RateLimited, RetryPolicy
from ghattempt.github._redact import REDACTED, redact
from ghattempt.github.retry import NOT_JSON, Answer, Request, decide

POLICY = RetryPolicy()
MUTATION = Request("AddDiscussionComment", True, {"body": "x"}, b'{"query":"..."}')
READ = Request("JournalPage", False, {}, b"{}")

error_types = st.sampled_from([None, "RATE_LIMITED", "RATE_LIMIT", "NOT_FOUND", "FORBIDDEN",
                               "UNPROCESSABLE", "STALE_DATA", "INTERNAL"])
messages = st.sampled_from([
    "Could not resolve to a node with the global id of 'x'", "secondary rate limit",
    "Something went wrong while executing your query. This may be the result of a timeout",
    "API rate limit exceeded", "Bad credentials", "whatever"])
payloads = st.one_of(
    st.none(), st.just(NOT_JSON), st.just({}),
    st.fixed_dictionaries({"data": st.one_of(st.none(), st.just({"x": 1}))},
                          optional={"errors": st.lists(st.fixed_dictionaries(
                              {"message": messages}, optional={"type": error_types}),
                              min_size=1, max_size=3)}))
headers = st.fixed_dictionaries({}, optional={
    "retry-after": st.sampled_from(["0", "5", "bad"]),
    "x-ratelimit-remaining": st.sampled_from(["0", "10"]),
    "x-ratelimit-reset": st.sampled_from(["1800000100", "x"]),
    "date": st.just("Fri, 15 Jan 2027 08:00:00 GMT")})
answers = st.one_of(
    st.builds(Answer, st.sampled_from([200, 201, 400, 401, 403, 404, 422, 429, 500, 502, 503,
                                       504]), headers, payloads),
    st.builds(Answer, st.none(), failure=st.sampled_from(["connect", "after_send"])),
    st.builds(Answer, st.none(), failure=st.just("auth_exchange"),
              exchange_status=st.sampled_from([401, 403, 500, 502])),
)


@settings(max_examples=400, deadline=None)
@given(answers, st.integers(1, 6))
def test_a_mutation_is_only_ever_resent_when_nothing_executed(answer, attempt):
    d = decide(answer, MUTATION, attempt=attempt, secondary_count=0, policy=POLICY,
               wall_now=1_800_000_000.0)
    if d.action == "retry":
        lag = answer.payload not in (None, NOT_JSON) and any(
            "Could not resolve to a node" in e["message"]
            for e in answer.payload.get("errors", []))
        assert answer.failure in ("connect", "auth_exchange") or lag, answer
    if isinstance(d.error, AmbiguousOutcome):
        assert d.error.body == MUTATION.body and d.error.variables == MUTATION.variables
    if isinstance(d.error, RateLimited):
        assert d.action == "raise" and d.error.retry_after >= 0


@settings(max_examples=300, deadline=None)
@given(answers, st.integers(1, 6))
def test_a_read_is_never_ambiguous(answer, attempt):
    d = decide(answer, READ, attempt=attempt, secondary_count=0, policy=POLICY,
               wall_now=1_800_000_000.0)
    assert not isinstance(d.error, AmbiguousOutcome)
    assert d.action in ("ok", "retry", "raise") and d.wait >= 0
    if d.action != "ok":
        assert d.error is not None


def test_redact_known_and_shaped_secrets():
    text = ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 and ghs_ABCDEFGHIJ0123456789 "
            "github_pat_11ABCDEFG0123456789_xyz Bearer eyJhbGciOi.eyJpc3MiOi.c2lnbmF0dXJl "
            "mine=hunter22hunter")
    out = redact(text, ["hunter22hunter"])
    for secret in ("ghp_abc", "ghs_ABC", "github_pat_11", "eyJhbGciOi", "hunter22hunter"):
        assert secret not in out
    assert out.count(REDACTED) >= 5
    plain = "no secrets here: DC_kwDOA sha256:00ff"
    assert redact(plain) == plain
