"""breaks.py: where the lines of --explain's text break, read from the
text alone (prose: lines of a table, a listing or a command, with two
spaces inside, are left out). Prints one line for each break that splits what should stay
on one line, and exits 1 if there is any:
    - a line that starts with closing punctuation (，。：；、）！？);
    - a number of up to 3 digits at the start of a line after a word, or
      at the end of a line before Chinese (dim / 1, 第 / 1, 到 / 2，,
      1 / 维), unless it starts a formula (1 × 7 = 7);
    - a Chinese run broken at fewer than 32 columns (LONGEST_WORD) with
      Chinese on both sides of the break.
Reads the files named (each line then starts with the file's name), or
standard input. A file whose name ends in .html is a page: the breaks
are the browser's to choose, so its prose (<p class="prose">) must hold
a no-break space, not a space, on either side of such a number.
"""
import re
import sys

CLOSING = "，。：；、）！？"


def wide(c):
    return 0x2E80 <= ord(c) <= 0xFFEF


def cols(s):
    return sum(2 if wide(c) else 1 for c in s)


def bad_breaks(text):
    lines, bad = text.split("\n"), []
    for a, b in zip(lines, lines[1:]):
        head, tail = b.lstrip(), a.rstrip()
        # a command, a table or a listing: not prose; nor the start of
        # an item of a list ("  dim 1: ...")
        if not head or not tail or a.startswith("$ ") or "  " in a.strip() or "  " in b.strip() \
                or re.match(r"  \S", b):
            continue
        why = None
        if head[0] in CLOSING:
            why = "a line starts with closing punctuation"
        elif re.match(r"-?\d{1,3}([%s]|$|\s+[^\s×=+*/<>.-])" % CLOSING, head) and not re.search(r"[.:;,%s]$" % CLOSING, tail) \
                and not re.match(r"\s*-?\d", tail[-1:]):
            why = "a number starts a line, away from the word before it"
        elif re.search(r"(^|\s)-?\d{1,3}$", tail) and wide(head[0]) and head[0] not in CLOSING + "（":
            why = "a number ends a line, away from the Chinese after it"
        elif wide(tail[-1]) and wide(head[0]) and tail[-1] not in CLOSING and head[0] != "（":
            run = re.search(r"[^\x00-\u2e7f]*$", tail).group(0)
            if cols(run) < 32:
                why = "a Chinese run broken at %d columns" % cols(run)
        if why:
            bad.append("%s: %r / %r" % (why, tail[-20:], head[:20]))
    return bad


def bad_spaces(page):
    """The numbers of a page's prose that a browser may break away."""
    bad = []
    for para in re.findall(r'<p class="prose">(.*?)</p>', page, re.S):
        for m in re.finditer(r"[^\s.:;,%s] (-?\d{1,3})(?=[\s,.:;%s]|$)|(?<!\d)(-?\d{1,3}) [\u4e00-\u9fff]"
                             % (CLOSING, CLOSING), para):
            bad.append("a space a browser may break at: %r" % para[max(0, m.start() - 10):m.end() + 10])
    return bad


def check(path, text):
    return bad_spaces(text) if path.endswith(".html") else bad_breaks(text)


def main(argv):
    if len(argv) > 1:
        bad = [p + ": " + line for p in argv[1:] for line in check(p, open(p, encoding="utf-8").read())]
    else:
        bad = bad_breaks(sys.stdin.read())
    for line in bad:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
