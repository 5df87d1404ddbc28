#!/usr/bin/env python
"""Make the viewer's screenshot in the docs (docs/viewer.png) from a page ``fcsurvey show`` writes.

Run from the repository root with the package and Playwright installed (the test extra) and
Debian's Chromium (``apt-get install -y chromium``)::

    python scripts/screenshot_viewer.py                  # deal 164 at move 30 -> docs/viewer.png
    python scripts/screenshot_viewer.py --deal 617 --step 12 --out /tmp/617.png

The page is written by the library (:func:`fcsurvey.walkthrough`), opened in headless
Chromium, stepped with the right arrow key as a player would, and photographed.  With Pillow
installed (it comes with the report extra's matplotlib) the PNG is cut down to a palette of
``--colours`` colours, which keeps it small enough to ship (about a third of the size).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import fcsurvey

#: Where Debian's package puts Chromium.
CHROMIUM = "/usr/bin/chromium"
#: The window the page is photographed in: the board and the move list side by side.
VIEWPORT = {"width": 1180, "height": 640}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deal", type=int, default=164)
    parser.add_argument("--step", type=int, default=30, help="Moves to step on from the start.")
    parser.add_argument("--out", type=Path, default=Path("docs/viewer.png"))
    parser.add_argument("--colours", type=int, default=128, help="Palette size (needs Pillow).")
    parser.add_argument("--chromium", default=CHROMIUM, help="Chromium's executable.")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        page_path = fcsurvey.walkthrough(args.deal).write_html(Path(scratch) / "page.html")
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            try:
                page = browser.new_page(viewport=VIEWPORT, reduced_motion="reduce")
                page.goto(page_path.as_uri())
                for _ in range(args.step):
                    page.keyboard.press("ArrowRight")
                page.screenshot(path=str(args.out))
            finally:
                browser.close()
    try:
        from PIL import Image
    except ImportError:
        print("Pillow is not installed: the PNG keeps its full colours", file=sys.stderr)
    else:
        with Image.open(args.out) as image:
            small = image.convert("RGB").quantize(colors=args.colours, method=Image.Quantize.MEDIANCUT)
        small.save(args.out, optimize=True)
    print(f"{args.out}: {os.path.getsize(args.out):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
