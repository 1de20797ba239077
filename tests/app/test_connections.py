"""The store sink's clients: lent to one thread at a time and reused across threads; one
shared transport that honours the proxy environment."""

from __future__ import annotations

import itertools
import threading

from ghattempt.app.connections import ClientPool, SharedTransport, _proxy_for


def test_a_client_is_lent_to_one_thread_at_a_time_and_reused_after():
    pool: ClientPool[int] = ClientPool()
    made = itertools.count(1)
    inside = threading.Barrier(2, timeout=30)
    got: dict[str, int] = {}

    def work(name: str, meet: bool) -> None:
        with pool.using():
            got[name] = pool.get("inst-1", lambda: next(made))
            assert pool.get("inst-1", lambda: next(made)) == got[name]  # the same, held
            if meet:
                inside.wait()  # both threads hold a client at once

    def run(*names: str, meet: bool) -> None:
        threads = [threading.Thread(target=work, args=(n, meet)) for n in names]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)

    run("a", "b", meet=True)
    assert sorted(got.values()) == [1, 2]  # two at once: two clients
    for name in ("c", "d", "e"):  # one after another, any thread: no new client
        run(name, meet=False)
        assert got[name] in (1, 2)
    with pool.using():
        with pool.using():  # a nested block (a request inside a burst) joins the outer
            held = pool.get("inst-1", lambda: next(made))
        assert pool.get("inst-1", lambda: next(made)) == held  # still held
    assert sorted(pool.drain()) == [1, 2]


def test_the_shared_transport_takes_the_proxy_from_the_environment(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "ghes.internal")
    assert _proxy_for("https://api.github.com/") == "http://proxy.example:3128"
    assert _proxy_for("https://ghes.internal/api/v3/") is None
    monkeypatch.delenv("HTTPS_PROXY")
    assert _proxy_for("https://api.github.com/") is None
    transport = SharedTransport("https://api.github.com/")
    transport.close()  # a client closing leaves it open
    transport.shut()
