"""The book read in a real browser: every figure legible at page size, no listing cut off.

The book is built into a temporary folder, served over HTTP, and each page is opened in headless
Chromium at 1280 px, a laptop's width. A script in the page measures, after layout:

- each SVG figure: its text drawn at the image's rendered size (font size times the scale from the
  SVG's units to screen pixels); below `SMALLEST_TEXT_PX` a reader at page size cannot read it;
- each raster figure (the benchmark plots): the scale it is shown at, against
  `SMALLEST_RASTER_SCALE`;
- each listing (`pre`): whether its code is wider than its column (`scrollWidth > clientWidth`), so
  that part of a line is scrolled out of view. PTX is exempt: its lines are what the assembler
  reads and are shown as printed.

The check runs wherever Chromium (or Chrome) and mkdocs are installed, and is skipped with the reason
where one is missing; MINITRITON_BROWSER_CHECK=0 turns it off (it takes about a minute). On Debian,
`apt-get install chromium` provides the browser.
`python tests/test_book_browser.py DIR` also writes full-page screenshots of the chapters to DIR.
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 1280  # px: the window the book is read in
SMALLEST_TEXT_PX = 9.0
# A raster figure's text cannot be measured; the book's plots are drawn at 120 dpi with 10-point
# text (about 17 px), which falls under 10 px when the image is shown at less than this scale.
SMALLEST_RASTER_SCALE = 0.6
EXEMPT_LANGUAGES = {"ptx"}
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Runs in each page once it has loaded; writes what it measured into <pre id="legibility">, which
# `--dump-dom` returns (`--virtual-time-budget` lets the page's fetches finish first).
MEASURE = r"""
<script>
window.addEventListener("load", async () => {
  const report = {height: 0, figures: [], rasters: [], listings: []};
  const article = document.querySelector("article") || document.body;
  for (const img of article.querySelectorAll("img")) {
    const src = img.getAttribute("src");
    if (!src.endsWith(".svg")) {
      report.rasters.push({src, width: img.clientWidth, natural: img.naturalWidth});
      continue;
    }
    const svg = new DOMParser().parseFromString(await (await fetch(img.src)).text(), "image/svg+xml").documentElement;
    // Draw the same SVG inline at the image's rendered size, where its text can be measured.
    svg.setAttribute("width", img.clientWidth);
    svg.setAttribute("height", img.clientHeight);
    const box = document.createElement("div");
    box.style.cssText = "position:absolute;left:0;top:0;visibility:hidden";
    box.appendChild(document.importNode(svg, true));
    document.body.appendChild(box);
    let smallest = null, text = "";
    for (const t of box.querySelectorAll("text")) {
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (smallest === null || px < smallest) { smallest = px; text = t.textContent; }
    }
    box.remove();
    report.figures.push({src, width: img.clientWidth, natural: img.naturalWidth, smallest, text});
  }
  for (const pre of article.querySelectorAll("pre")) {
    const block = pre.closest("[class*=language-]");
    const language = block ? [...block.classList].find(c => c.startsWith("language-")).slice(9) : "";
    const code = pre.querySelector("code") || pre;
    const longest = code.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
    report.listings.push({language, overflow: code.scrollWidth - code.clientWidth,
                          width: code.clientWidth, line: longest});
  }
  report.height = document.documentElement.scrollHeight;
  const out = document.createElement("pre");
  out.id = "legibility";
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
});
</script>
"""


def chromium() -> str | None:
    return next((path for path in map(shutil.which, CHROMIUM_NAMES) if path), None)


def chromium_run(url: str, *flags: str, timeout: int = 120) -> str:
    """Run headless Chromium on `url` with `flags`; its standard output."""
    command = [chromium(), "--headless=new", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               "--disable-dev-shm-usage", *flags, url]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stderr[-2000:]}"
    return done.stdout


def build_book(site: Path) -> list[str]:
    """Build the book into `site` with the measuring script in every page; the pages' paths."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    pages = sorted(p.parent.relative_to(site).as_posix() for p in site.glob("*/index.html")
                   if re.match(r"\d\d-|appendix-", p.parent.name))
    for page in pages:
        html = site / page / "index.html"
        html.write_text(html.read_text().replace("</body>", MEASURE + "</body>"))
    return pages


class Server:
    """The built site over HTTP on a free local port (the page's fetches need an origin)."""

    def __init__(self, site: Path):
        handler = functools.partial(Quiet, directory=str(site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measure(url: str) -> dict:
    dom = chromium_run(url, f"--window-size={WIDTH},1000", "--virtual-time-budget=30000", "--dump-dom")
    found = re.search(r'<pre id="legibility">(.*?)</pre>', dom, re.S)
    assert found, f"the measuring script did not report on {url}"
    import html
    return json.loads(html.unescape(found.group(1)))


def problems(report: dict) -> list[str]:
    found = []
    for figure in report["figures"]:
        if figure["smallest"] is not None and figure["smallest"] < SMALLEST_TEXT_PX:
            found.append(f"{figure['src']}: text drawn at {figure['smallest']:.1f} px ({figure['text']!r}); "
                         f"the figure is {figure['natural']} px wide, shown at {figure['width']} px")
    for raster in report["rasters"]:
        if raster["natural"] and raster["width"] / raster["natural"] < SMALLEST_RASTER_SCALE:
            found.append(f"{raster['src']}: {raster['natural']} px wide, shown at {raster['width']} px "
                         f"(scale {raster['width'] / raster['natural']:.2f}): its text is too small to read")
    for listing in report["listings"]:
        if listing["overflow"] > 0 and listing["language"] not in EXEMPT_LANGUAGES:
            found.append(f"a {listing['language'] or 'plain'} listing is {listing['overflow']} px wider than its "
                         f"column ({listing['width']} px); its longest line: {listing['line']!r}")
    return found


def _skip_reason() -> str | None:
    if os.environ.get("MINITRITON_BROWSER_CHECK", "") == "0":
        return "MINITRITON_BROWSER_CHECK=0 turns the browser check off"
    if chromium() is None:
        return f"no Chromium to read the book with (looked for {', '.join(CHROMIUM_NAMES)})"
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        return "mkdocs and mkdocs-material are not installed (`make test` installs them)"
    return None


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    site = tmp_path_factory.mktemp("book") / "site"
    pages = build_book(site)
    server = Server(site)
    yield server.url, pages
    server.close()


CHAPTERS = sorted(p.stem for pattern in ("[0-9][0-9]-*.md", "appendix-*.md")
                  for p in (ROOT / "chapters").glob(pattern))


@pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_is_legible_at_page_size(book, chapter):
    url, pages = book
    assert chapter in pages, f"the book has no page for {chapter}"
    report = measure(f"{url}/{chapter}/")
    found = problems(report)
    assert not found, f"{chapter} at {WIDTH} px:\n" + "\n".join(found)


def screenshots(folder: Path, chapters=CHAPTERS) -> list[Path]:
    """Full-page screenshots at WIDTH of `chapters`, written to `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build_book(site)
        server = Server(site)
        try:
            for chapter in chapters:
                url = f"{server.url}/{chapter}/"
                height = measure(url)["height"]
                path = folder / f"{chapter}.png"
                chromium_run(url, f"--window-size={WIDTH},{height}", "--virtual-time-budget=30000",
                             f"--screenshot={path}")
                written.append(path)
        finally:
            server.close()
    return written


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python tests/test_book_browser.py DIR [CHAPTER...]  (full-page screenshots)")
    if _skip_reason():
        sys.exit(_skip_reason())
    for path in screenshots(Path(sys.argv[1]), [c for c in CHAPTERS if any(a in c for a in sys.argv[2:])] or CHAPTERS):
        print(path)
