"""contrast.py: whether each text of an SVG picture stands out from what is
drawn under it, by the WCAG 2.x contrast ratio; standard library alone.

    contrast.py [--min 4.5] FILE...
        FILE an SVG picture, or an XHTML page with <svg>s inline. Prints
        "FILE: text 'CONTENT' at (X,Y): fill #rrggbb on #rrggbb: ratio R.RR"
        for each text below the minimum (unrounded), then "FILE: N texts,
        lowest ratio R.RR ('CONTENT')". Exits 1 if some text is below it.
    contrast.py --self-test
        checks the formulas on known values; exits 0, or 1 naming a failure

Attributes only, no CSS: fill, fill-opacity, font-size and text-anchor
inherit (fill black, font-size 16 by default), opacity multiplies down the
tree; colours #rrggbb, #rgb, none, white, black. A text's fill is blended at
its fill-opacity over the background at one point: 0.35 font-size above the
baseline, across from the middle of its estimated width (0.6 font-size a
character, 1.0 a wide CJK one). That is white with each <rect> containing
the point that comes before the text composited over it in document order
(other shapes are ignored), rounding to 8 bits. Texts with fill none or in
<title>, <defs> and the like are not checked. Exits 2 for a usage error, a
file that does not parse or has no <svg>, another colour, or a transform.
"""
import argparse
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET
from html.entities import entitydefs

WHITE = (255, 255, 255)
HIDDEN = {"title", "desc", "metadata", "defs", "clipPath", "mask", "symbol", "pattern", "marker"}
INHERITED = {"fill": "#000000", "fill-opacity": "1", "font-size": "16", "text-anchor": "start"}


def local(tag):
    """The tag without its namespace: '{http://...svg}rect' -> 'rect'."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def colour(value):
    """(r, g, b) of a colour attribute, or None for none."""
    v = value.strip().lower()
    if v in ("none", "white", "black"):
        return {"white": WHITE, "black": (0, 0, 0)}.get(v)
    if re.fullmatch(r"#([0-9a-f]{3}){1,2}", v):
        hexes = v[1:] if len(v) == 7 else "".join(c * 2 for c in v[1:])
        return tuple(int(hexes[i:i + 2], 16) for i in (0, 2, 4))
    raise ValueError("colour %r not handled" % value)


def number(value, default=0.0):
    """The first number in an attribute ('12', '12px', '10 20 30'), or default."""
    m = re.match(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)", value or "", re.I)
    return float(m.group(1)) if m else default


def blend(fg, bg, a):
    """fg over bg at alpha a, per channel, rounded to 8 bits."""
    return tuple(int(a * f + (1 - a) * b + 0.5) for f, b in zip(fg, bg))


def luminance(rgb):
    """WCAG 2.x relative luminance of an 8-bit sRGB colour."""
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
               for c in (v / 255 for v in rgb))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b):
    """WCAG contrast ratio of two colours, lighter over darker (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def content(el):
    """The text of a <text>, its <tspan>s' included, spaces collapsed."""
    parts = [el.text or ""] + [(content(child) if local(child.tag) not in HIDDEN else "")
                               + (child.tail or "") for child in el]
    return " ".join("".join(parts).split())


def width(text, size):
    """Estimated advance of text at font-size size."""
    return sum(size * (1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.6) for ch in text)


def walk(el, style, opacity, rects, texts):
    """Collect, in document order, the drawn rects as (x, y, w, h, rgb, alpha)
    and texts as (content, x, y, rgb, alpha, point, how many rects before)."""
    tag = local(el.tag)
    if tag in HIDDEN or el.get("display") == "none":
        return
    if el.get("transform"):
        raise ValueError("transform on <%s> not handled" % tag)
    style = {**style, **{k: el.get(k).strip() for k in INHERITED if el.get(k)}}
    opacity *= number(el.get("opacity"), 1.0)
    alpha = opacity * number(style["fill-opacity"], 1.0)
    fill = colour(style["fill"]) if tag in ("rect", "text") else None
    if tag == "rect" and fill is not None:
        rects.append(tuple(number(el.get(k)) for k in ("x", "y", "width", "height")) + (fill, alpha))
    elif tag == "text":
        text = content(el)
        if text and fill is not None:
            x, y, size = number(el.get("x")), number(el.get("y")), number(style["font-size"], 16.0)
            shift = {"middle": 0, "end": -0.5}.get(style["text-anchor"], 0.5)
            point = (x + shift * width(text, size), y - 0.35 * size)
            texts.append((text, x, y, fill, alpha, point, len(rects)))
        return
    for child in el:
        walk(child, style, opacity, rects, texts)


def outermost(el):
    """The <svg> elements at or under el not inside another, in document order."""
    return [el] if local(el.tag) == "svg" else [s for child in el for s in outermost(child)]


def check(root):
    """(content, x, y, colour, background, ratio) for each text of each
    outermost <svg> under root, its fill blended over its background."""
    out, svgs = [], outermost(root)
    if not svgs:
        raise ValueError("no <svg> element")
    for svg in svgs:
        rects, texts = [], []
        walk(svg, INHERITED, 1.0, rects, texts)
        for text, x, y, fill, alpha, (px, py), before in texts:
            bg = WHITE
            for rx, ry, rw, rh, rgb, a in rects[:before]:
                if rx <= px <= rx + rw and ry <= py <= ry + rh:
                    bg = blend(rgb, bg, a)
            fg = blend(fill, bg, alpha)
            out.append((text, x, y, fg, bg, ratio(fg, bg)))
    return out


def read(path):
    """The root element of an SVG or XHTML file, HTML entities (&nbsp;) allowed."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    html = {name: c for name, c in entitydefs.items() if c not in "<&>\"'"}
    return ET.fromstring(re.sub(r"&(\w+);", lambda m: html.get(m.group(1), m.group(0)), text))


def hexa(rgb):
    """'#rrggbb' of (r, g, b)."""
    return "#%02x%02x%02x" % rgb


def self_test():
    """Check the formulas on known values; return a list of failures."""
    bad = []
    for fg, want in (("#000000", 21.0), ("#777777", 4.48), ("#767676", 4.54), ("#fff", 1.0)):
        got = ratio(colour(fg), WHITE)
        if round(got, 2) != want:
            bad.append("%s on #ffffff: ratio %.4f, expected %.2f" % (fg, got, want))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><title>t</title><g fill="#3366cc" fill-opacity="0.5">'
           '<rect x="0" y="0" width="100" height="40"/></g><g font-size="10" fill="#000"><text x="10" '
           'y="20">in <tspan>it</tspan></text><text x="90" y="80" text-anchor="end">below</text></g>'
           '<rect x="0" y="60" width="100" height="40" fill="black"/><text x="1" y="1"> </text></svg>')
    got = [(t, hexa(fg), hexa(bg)) for t, _, _, fg, bg, _ in check(ET.fromstring(svg))]
    want = [("in it", "#000000", "#99b3e6"), ("below", "#000000", "#ffffff")]
    if got != want:
        bad.append("blend or document order: got %s, expected %s" % (got, want))
    return bad


def main(argv):
    ap = argparse.ArgumentParser(prog="contrast.py", description=__doc__.split("\n")[0])
    ap.add_argument("--min", type=float, default=4.5, help="lowest ratio allowed (4.5)")
    ap.add_argument("--self-test", action="store_true", help="check the formulas and exit")
    ap.add_argument("files", nargs="*", metavar="FILE.svg")
    args = ap.parse_args(argv[1:])
    if args.self_test:
        bad = self_test()
        for msg in bad + ["FAILED" if bad else "ok"]:
            print("contrast.py: self-test: %s" % msg)
        return 1 if bad else 0
    if not args.files:
        ap.error("no FILE.svg given")
    status = 0
    for path in args.files:
        try:
            results = check(read(path))
        except (ValueError, ET.ParseError, OSError) as e:
            sys.stderr.write("contrast.py: %s: %s\n" % (path, e))
            return 2
        for text, x, y, fg, bg, r in results:
            if r < args.min:
                status = 1
                print("%s: text '%s' at (%g,%g): fill %s on %s: ratio %.2f"
                      % (path, text, x, y, hexa(fg), hexa(bg), r))
        low = min(results, key=lambda t: t[5], default=("", 0, 0, 0, 0, 21.0))
        print("%s: %d texts, lowest ratio %.2f ('%s')" % (path, len(results), low[5], low[0]))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
