"""``ghattempt app send EVENT FIXTURE``: sign a webhook payload and post it, as GitHub does.

The delivery carries the headers GitHub sends (GitHub docs, "Webhook events and
payloads", delivery headers; "Validating webhook deliveries"): ``X-GitHub-Event``,
``X-GitHub-Delivery`` (a GUID), ``X-Hub-Signature-256`` = ``sha256=`` + the hex
HMAC-SHA256 of the exact body bytes keyed with the webhook secret, ``User-Agent:
GitHub-Hookshot/...`` and ``Content-Type: application/json``. Like ``probot receive``,
it is for trying an App by hand: the body is the fixture file's bytes, unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from ghattempt.cli._errors import CliError
from ghattempt.errors import Fault

__all__ = ["app_send", "sign"]


def sign(secret: bytes, body: bytes) -> str:
    """The ``X-Hub-Signature-256`` value of ``body``."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def _secret(name: str) -> bytes:
    value = os.environ.get(name, "")
    if value:
        return value.encode("utf-8")
    path = os.environ.get(name + "_FILE", "")
    if path:
        try:
            return Path(path).read_bytes().strip()
        except OSError as exc:
            raise CliError(Fault.BAD_INPUT, f"{name}_FILE names {path!r}, which cannot be read "
                              f"({exc.strerror})") from None
    raise CliError(Fault.BAD_INPUT,
                   f"no webhook secret: set {name} (or {name}_FILE), the secret the App "
                      "server checks deliveries with")


def app_send(args: Any) -> int:
    """Post one signed delivery; prints ``EVENT DELIVERY -> HTTP STATUS``."""
    import json

    if not args.event or not all(c.isalnum() or c == "_" for c in args.event):
        raise CliError(Fault.BAD_INPUT, "EVENT must be a webhook event name, e.g. pull_request or "
                          "workflow_job")
    try:
        body = sys.stdin.buffer.read() if args.fixture == "-" else Path(args.fixture).read_bytes()
    except OSError as exc:
        raise CliError(Fault.BAD_INPUT,
                       f"{args.fixture}: {exc.strerror}; give a JSON payload file") from None
    try:
        json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CliError(Fault.BAD_INPUT,
                       f"{args.fixture} is not UTF-8 JSON ({str(exc)[:80]})") from None
    if not args.url.startswith(("http://", "https://")):
        raise CliError(Fault.BAD_INPUT, "--url must be an http:// or https:// URL")
    delivery = args.delivery or str(uuid.uuid4())
    headers = {"X-GitHub-Event": args.event, "X-GitHub-Delivery": delivery,
               "X-Hub-Signature-256": sign(_secret(args.secret_env), body),
               "User-Agent": "GitHub-Hookshot/ghattempt-app-send",
               "Content-Type": "application/json"}
    from ghattempt.github import httpx

    try:
        answer = httpx.post(args.url, content=body, headers=headers, timeout=args.timeout)
    except httpx.HTTPError as exc:
        raise CliError(Fault.GITHUB_UNAVAILABLE,
                       f"{args.url}: {type(exc).__name__}: the App server did not answer "
                          "(is `ghattempt app serve` running there?)") from None
    print(f"{args.event} {delivery} -> HTTP {answer.status_code} {answer.text[:200].strip()}")
    return 0 if 200 <= answer.status_code < 300 else 4
