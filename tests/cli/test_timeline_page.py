"""The journal timeline page in a real headless Chromium (Debian's ``chromium``).

The demo writes the page of its journal; the same journal with one record edited is
rendered with ``ghattempt show``. Both are screenshot and their DOM dumped by Chromium
(the steps of ``scripts/timeline-shot``, which makes the README's picture), then:
the picture is not blank, the phases' colours are there, the tampered mark is visible on
the tampered page only; the DOM holds every attempt and phase, the supersede link, the
generation that changed, the runs linked, and nothing that reaches the network.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ghattempt.render._timeline import COLORS, TAMPERED_COLOR

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.network, pytest.mark.slow]


def _shot() -> Any:
    loader = importlib.machinery.SourceFileLoader("timeline_shot",
                                                  str(ROOT / "scripts" / "timeline-shot"))
    spec = importlib.util.spec_from_loader("timeline_shot", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


shot = _shot()


def require_chromium() -> None:
    if shot.chromium() is not None:
        return
    message = "chromium not found (apt-get install -y chromium): the timeline page is NOT tested"
    if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
        pytest.fail(message)
    pytest.skip(message)


class Dom(HTMLParser):
    """The elements of a dumped DOM: (tag, attributes) in document order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def having(self, cls: str, tag: str | None = None) -> list[dict[str, str]]:
        return [a for t, a in self.elements
                if cls in a.get("class", "").split() and (tag is None or t == tag)]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, demo_run: Any) -> dict[str, Any]:
    require_chromium()
    work = tmp_path_factory.mktemp("timeline")
    # the session's one demo run (tests/conftest.py), as `scripts/timeline-shot` runs it
    assert demo_run.proc.returncode == 0, demo_run.proc.stdout[-2000:] + demo_run.proc.stderr
    capture, page = demo_run.kept / "capture.json", demo_run.kept / "timeline.html"
    stdout = demo_run.proc.stdout
    assert f"timeline page: {page.resolve()}" in stdout  # the demo prints where it is
    pages_ = json.loads(capture.read_text())
    edited, node = shot.tamper(pages_)
    tampered_capture = work / "tampered.json"
    tampered_capture.write_text(json.dumps(edited))
    tampered = work / "tampered.html"
    done = shot.render(tampered_capture, tampered)
    assert done.returncode == 3, done.stderr  # an invalid journal: its page is still written
    out: dict[str, Any] = {"node": node}
    for name, path in (("clean", page), ("tampered", tampered)):
        png = work / f"{name}.png"
        shot.screenshot(path, png)
        out[name] = {"html": path.read_text(), "dom": Dom(shot.dump_dom(path)),
                     "png": shot.read_png(png)}
    return out


def test_the_picture_is_not_blank_and_shows_the_phases(pages: dict[str, Any]) -> None:
    width, height, pixels = pages["clean"]["png"]
    assert (width, height) == (1240, 660)
    white = sum(1 for p in pixels if p == (255, 255, 255))
    assert white < 0.95 * len(pixels)
    assert len(set(pixels)) > 50
    # every phase of the succeeded attempt is drawn: started then succeeded segments,
    # and the review waited
    assert shot.count_color(pixels, COLORS["succeeded"]) > 8 * 60
    assert shot.count_color(pixels, COLORS["started"]) > 8 * 150
    assert shot.count_color(pixels, COLORS["waiting"]) > 50
    assert shot.count_color(pixels, TAMPERED_COLOR) == 0


def test_the_tampered_mark_is_visible(pages: dict[str, Any]) -> None:
    _w, _h, pixels = pages["tampered"]["png"]
    assert shot.count_color(pixels, TAMPERED_COLOR) > 400  # the banner and the mark


def test_the_dom_of_the_demo_journal(pages: dict[str, Any]) -> None:
    dom: Dom = pages["clean"]["dom"]
    attempts = dom.having("attempt", "g")
    assert [a["data-status"] for a in attempts] == ["superseded", "succeeded"]
    phases = dom.having("phase", "g")
    assert len(phases) == 16  # eight plan phases in each of the two attempts
    assert [p["data-status"] for p in phases[8:]] == ["succeeded"] * 8
    assert [p["data-phase"] for p in phases[8:]] == [
        "admission", "build", "review", "warrant", "merge", "publication", "distribution",
        "next-development"]
    assert phases[0]["data-status"] == "started"  # the first attempt stopped there
    assert dom.having("supersede") and not dom.having("successor")
    assert len(dom.having("generation-changed")) == 1
    runs = [a["href"] for a in dom.having("run", "a")]
    assert runs and all(h.startswith("https://github.com/octo-org/widgets/actions/runs/")
                        for h in runs)
    assert not dom.having("tampered") and not dom.having("banner")


def test_the_dom_of_the_tampered_journal(pages: dict[str, Any]) -> None:
    dom: Dom = pages["tampered"]["dom"]
    marks = dom.having("tampered", "g")
    assert [m["data-node"] for m in marks if "mark" in m["class"].split()] == [pages["node"]]
    assert "edited" in marks[-1]["data-why"]
    assert dom.having("banner", "p")
    assert "gap" in pages["tampered"]["html"]  # the reader's reason, in the banner
    assert len(dom.having("attempt", "g")) == 2


@pytest.mark.parametrize("name", ["clean", "tampered"])
def test_the_page_is_self_contained(pages: dict[str, Any], name: str) -> None:
    text = pages[name]["html"]
    dom: Dom = pages[name]["dom"]
    tags = {t for t, _ in dom.elements}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    for tag, attrs in dom.elements:
        assert "src" not in attrs, tag
        if "href" in attrs and tag != "a":
            assert attrs["href"].startswith(("#", "url(#")), (tag, attrs["href"])
    assert "default-src 'none'" in text
    assert "@import" not in text and "url(http" not in text and "@font-face" not in text
