"""assemble.py: write the playground's one HTML file.

    assemble.py --version V --page page.html --glue playground.js
                --module bcastgen.js --wasm bcastgen.wasm -o OUT.html

Puts into the page template, in place of its marks: @VERSION@ (V,
escaped for HTML), @WASM@ (the wasm's bytes, gzipped, in base64, in a data
block the page decompresses and compiles) and @SCRIPT@ (emscripten's module factory, then the
glue). Fails when a mark is missing, or when a script holds what would
end its <script> element early.
"""
import argparse
import base64
import gzip
import html
import os
import re
import sys


def fail(msg):
    sys.stderr.write("assemble.py: %s\n" % msg)
    sys.exit(1)


def script_text(text, name):
    """TEXT made safe inside <script>...</script>: '</script' and '<!--'
    occur in JS only within strings, regular expressions and comments,
    where '<\\/' and '<\\!--' mean the same."""
    text = re.sub(r"</(script)", r"<\\/\1", text, flags=re.I)
    text = text.replace("<!--", "<\\!--")
    if re.search(r"</script", text, re.I):
        fail("%s: cannot be inlined" % name)
    return text


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--version", "--page", "--glue", "--module", "--wasm", "-o"):
        ap.add_argument(opt, required=True)
    args = ap.parse_args()
    with open(args.page, encoding="utf-8") as f:
        page = f.read()
    with open(args.module, encoding="utf-8") as f:
        module = f.read()
    with open(args.glue, encoding="utf-8") as f:
        glue = f.read()
    with open(args.wasm, "rb") as f:
        # gzip without a name or a time, so that the page is the same bytes
        wasm = base64.b64encode(gzip.compress(f.read(), 9, mtime=0)).decode("ascii")
    parts = {
        "@VERSION@": html.escape(args.version),
        "@WASM@": wasm,
        "@SCRIPT@": script_text(module, args.module) + "\n" + script_text(glue, args.glue),
    }
    for mark, value in parts.items():
        if mark not in page:
            fail("%s: no %s in it" % (args.page, mark))
    # one pass, so that nothing inserted is taken for a mark
    page = re.sub("|".join(map(re.escape, parts)), lambda m: parts[m.group(0)], page)
    if re.search(r"\bhttps?:", page):
        fail("the page names an http: or https: URL; it must not reach the network")
    with open(args.o + ".tmp", "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(args.o + ".tmp", args.o)


if __name__ == "__main__":
    main()
