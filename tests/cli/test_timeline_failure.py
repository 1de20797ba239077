"""The timeline page of a journal with a failure, in a real headless Chromium (issue 23,
section 5): no label runs past the picture's right edge, the failure's reason is on the
picture (not only in the table), cancelled and superseded are told apart by colour, and
the page is named after the pull request, not the discussion.

The journal is written by the CLI against the emulator over HTTP; ``ghattempt show``
writes its page; Chromium lays it out. To measure what Chromium drew, a copy of the page
gets a script (the page itself has none, and its Content-Security-Policy forbids one)
that writes each SVG text's box into the DOM, which ``--dump-dom`` prints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from ghattempt.render._timeline import COLORS

from .conftest import World
from .test_timeline_page import Dom, require_chromium, shot

pytestmark = [pytest.mark.network, pytest.mark.slow]

REASON = ("linker error: undefined reference to the release signing key while packaging "
          "the arm64 build of widgets")
MEASURE = """<script>
const svg = document.querySelector('svg');
const width = svg.getBoundingClientRect().width, left = svg.getBoundingClientRect().left;
const out = [];
for (const t of svg.querySelectorAll('text')) {
  const r = t.getBoundingClientRect();
  out.push({cls: t.getAttribute('class') || '', text: t.firstChild.nodeValue,
            left: r.left - left, right: r.right - left, width: width});
}
const pre = document.createElement('pre');
pre.id = 'measure';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


@pytest.fixture(scope="module")
def failed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    require_chromium()
    tmp = tmp_path_factory.mktemp("failure")
    world = World(tmp)
    try:
        for args in (["admit"], ["record", "--phase", "admission", "--status", "succeeded"],
                     ["record", "--phase", "build", "--status", "started"],
                     ["record", "--phase", "build", "--status", "failed", "--reason", REASON]):
            if args[-1] == REASON:
                # the build ran for minutes: its duration label is wide, at the right edge
                world.emulator.clock.advance(12 * 60 + 5)
            done = world.cli(*args, "--pull-request", "1")
            assert done.returncode == 0, done.stderr.decode()
        page = tmp / "page.html"
        done = world.cli("show", "--pull-request", "1", "--html", str(page))
        assert done.returncode == 0, done.stderr.decode()
        html = page.read_text()
        measured = tmp / "measured.html"
        measured.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                                   html).replace("</body>", MEASURE + "</body>"))
        dom_text = shot.dump_dom(measured)
        found = re.search(r'<pre id="measure">(.*?)</pre>', dom_text, re.S)
        assert found, dom_text[-2000:]
        boxes = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                           .replace("&lt;", "<").replace("&gt;", ">"))
        yield {"html": html, "boxes": boxes, "dom": Dom(shot.dump_dom(page))}
    finally:
        world.close()


def test_no_label_runs_past_the_right_edge(failed: dict[str, Any]) -> None:
    boxes = failed["boxes"]
    assert boxes
    outside = [b for b in boxes if b["right"] > b["width"] + 0.5 or b["left"] < -0.5]
    assert outside == [], outside


def test_the_failure_reason_is_on_the_picture(failed: dict[str, Any]) -> None:
    reasons = [b for b in failed["boxes"] if "reason" in b["cls"].split()]
    assert len(reasons) == 1, failed["boxes"]
    text = reasons[0]["text"]
    # as much of it as fits, ending in an ellipsis when cut; the whole in its tooltip
    assert text.startswith("failed: linker error")
    assert REASON in failed["html"].split("<table", 1)[0]


def test_cancelled_and_superseded_have_their_own_colours(failed: dict[str, Any]) -> None:
    assert COLORS["cancelled"] != COLORS["superseded"]
    assert len(set(COLORS.values())) == len(COLORS)
    legend = re.findall(r'<i style="background:(#[0-9a-f]{6})"></i>([a-z]+)</span>',
                        failed["html"])
    colours = {name: colour for colour, name in legend}
    assert {"cancelled", "superseded", "expired", "failed"} <= set(colours)
    assert len(set(colours.values())) == len(colours)


def test_the_page_names_the_pull_request(failed: dict[str, Any]) -> None:
    title = re.search(r"<title>(.*?)</title>", failed["html"]).group(1)  # type: ignore[union-attr]
    heading = re.search(r"<h1>(.*?)</h1>", failed["html"]).group(1)  # type: ignore[union-attr]
    for text in (title, heading):
        assert "octo-org/widgets pull request #1 into main" in text, text
    # the discussion is still named, after the pull request
    assert "discussion #" in heading
