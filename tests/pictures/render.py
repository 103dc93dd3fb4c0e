"""render.py: t170's checks of the pictures and pages bcastgen draws, in
one process (two renderings at a time) instead of a dozen commands a
rendering.

    render.py GEN PICTURES < JOBS

Each line of JOBS is NAME, FORMAT (svg or html), LANG (en or zh), the
exit status wanted and the arguments, separated by tabs, the arguments
by \\037 among themselves. For each, runs GEN --format FORMAT --lang LANG
ARGS twice and prints one line, in the order of JOBS, its fields
separated by tabs:
    OK    NAME: FORMAT, LANG
or  BAD   NAME: FORMAT, LANG    why; why...
It is BAD when the exit status is not the one wanted, the second
rendering differs from the first, it is not well-formed XML, its fonts do
not name the common CJK fonts before sans-serif, it refers to anything
outside itself (a script, href=, src=, url(, @import), it does not begin
as a picture (<svg xmlns=... width height viewBox lang xml:lang) or a
page (<!DOCTYPE html>, <html xmlns=... lang xml:lang>, with an <svg> in
#picture) in that language, or it does not say "Broadcasting" / "广播".
A picture over 400000 bytes is BAD; each picture is copied into
PICTURES as N.svg, for contrast.py and the width check after.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

CJK = "Noto Sans CJK SC, Source Han Sans SC, Microsoft YaHei, PingFang SC, WenQuanYi Micro Hei, sans-serif"
OUTSIDE = re.compile(r"<script|href=|src=|url\(|@import", re.I)
WORD = {"en": "Broadcasting", "zh": "广播"}


def render(gen, fmt, lang, args):
    cmd = [gen, "--format", fmt, "--lang", lang] + args
    first = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    second = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    return first, second.stdout


def judge(job, first, again):
    """The reasons JOB's rendering is wrong, none when it is right."""
    fmt, lang, want = job[1], job[2], int(job[3])
    tag = "zh-CN" if lang == "zh" else lang
    out, why = first.stdout, []
    if first.returncode != want:
        why.append("exit status %d, want %d: %s" % (first.returncode, want,
                                                  first.stderr.decode("utf-8", "replace")[:300]))
    if again != out:
        why.append("the second rendering differs from the first")
    try:
        ElementTree.fromstring(out)
    except ElementTree.ParseError as e:
        why.append("not well-formed XML: %s" % e)
    text = out.decode("utf-8", "replace")
    if CJK not in text:
        why.append("its fonts do not name the common CJK fonts before sans-serif")
    if OUTSIDE.search(text):
        why.append("it refers to something outside itself: %s" % OUTSIDE.search(text).group(0))
    head = text.split("\n", 2)
    if fmt == "svg":
        if not re.match(r'<svg xmlns="http://www.w3.org/2000/svg" [^>]*width="[0-9]+" height="[0-9]+" '
                        r'viewBox="0 0 [0-9]+ [0-9]+" lang="%s" xml:lang="%s"' % (tag, tag), head[0]):
            why.append("it does not begin with <svg xmlns=... width height viewBox lang=\"%s\" "
                       "xml:lang=\"%s\">: %s" % (tag, tag, head[0][:200]))
        if len(out) > 400000:
            why.append("%d bytes: more than the 400000 a picture may have" % len(out))
    else:
        if head[0] != "<!DOCTYPE html>" or len(head) < 2 or not head[1].startswith(
                '<html xmlns="http://www.w3.org/1999/xhtml" lang="%s" xml:lang="%s">' % (tag, tag)):
            why.append('it does not begin with <!DOCTYPE html> and <html xmlns=... lang="%s">' % tag)
        if 'id="picture"' not in text or "<svg xmlns=" not in text:
            why.append('it has no picture (id="picture" with an <svg>)')
    if WORD[lang] not in text:
        why.append('no "%s" in it: not in the language %s' % (WORD[lang], lang))
    return why


def main(argv):
    gen, pictures = argv[1], argv[2]
    jobs = [line.rstrip("\n").split("\t") for line in sys.stdin if line.strip()]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda j: render(gen, j[1], j[2], [a for a in j[4].split("\037") if a]), jobs))
    drawn = len(os.listdir(pictures))
    for job, (first, again) in zip(jobs, done):
        if job[1] == "svg":
            with open(os.path.join(pictures, "%d.svg" % drawn), "wb") as f:
                f.write(first.stdout)
            drawn += 1
        why = judge(job, first, again)
        print("%s\t%s: %s, %s\t%s" % ("BAD" if why else "OK", job[0], job[1], job[2],
                                      "; ".join(why).replace("\n", " / ")))


if __name__ == "__main__":
    main(sys.argv)
