"""check.py: the playground page (make playground) against the generator
it was built from, in one headless Chromium driven over its DevTools pipe
(tests/pictures/browse.py's Browser).

    check.py GEN PAGE TOP WORK

GEN is build/bcastgen, PAGE build/playground/bcastgen.html, TOP the
repository, WORK a scratch directory. Prints TAP, its plan last: for each case, whether #kernel, #header, #explain,
#error and #status are byte for byte what GEN gives for the same words
under the page's mapping (playground/README.md), and checks of the page
itself: its size, no http(s) URL in it and no request but the page's own,
the time to its first results, the URL fragment both ways, keyboard
use, labels in both languages, text contrast, the version, the spec box
and screenshots at 1200x900 that are not blank.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pictures"))
import browse  # noqa: E402

PAGE_LIMIT = 2 * 1024 * 1024
READY_MS = 1000
SEED = 250
RANDOM_CASES = 50

n = 0
failed = 0


def tap(ok, name, detail=""):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:30]:
            print("# " + line)
    sys.stdout.flush()


# --- the generator, as a shell runs it -------------------------------------

def sh_words(text):
    """The words a POSIX shell (sh) makes of TEXT."""
    got = subprocess.run(["sh", "-c", "printf '%s\\0' _ " + text], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    if got.returncode != 0:
        raise ValueError("sh cannot split %r: %s" % (text, got.stderr.decode()))
    return [w.decode("utf-8") for w in got.stdout.split(b"\0")[1:-1]]


def given(words, opt):
    return any(w == opt or w.startswith(opt + "=") for w in words)


def with_defaults(words, add):
    out = list(words)
    for opt, value in add:
        if not given(words, opt):
            out += [opt, value]
    return out


FILE_OPTIONS = ("-o", "--output", "-M", "--depfile", "-MT", "--depfile-target")


def without_files(words):
    """WORDS without the options that name files to write, nor --timings."""
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in FILE_OPTIONS:
            skip = True
        elif w != "--timings" and not (w.startswith("--") and w.split("=")[0] in FILE_OPTIONS):
            out.append(w)
    return out


def run_gen(gen, words, work, spec=None):
    """GEN WORDS in a fresh empty directory: (stdout, stderr, status, .c, .h)."""
    d = tempfile.mkdtemp(dir=work)
    if spec is not None:
        with open(os.path.join(d, "spec.lua"), "w", encoding="utf-8") as f:
            f.write(spec)
    got = subprocess.run([gen] + words, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    found = {}
    for root, _, names in os.walk(d):
        for name in names:
            path = os.path.join(root, name)
            if os.path.relpath(path, d) != "spec.lua" and os.path.isfile(path):
                with open(path, "rb") as f:
                    found[os.path.relpath(path, d)] = f.read().decode("utf-8", "replace")
    shutil.rmtree(d)

    def pick(ext):
        for path in sorted(found):
            if path.endswith(ext):
                return found[path]
        return ""
    return (got.stdout.decode("utf-8", "replace"), got.stderr.decode("utf-8", "replace"),
            str(got.returncode), pick(".c"), pick(".h"))


def expected(gen, words, lang, depth, work):
    """What the page must show for WORDS, by its mapping."""
    out, err, status, c, h = run_gen(gen, words, work)
    explain = with_defaults(words, [("--explain", depth), ("--lang", lang)])
    text = out if explain == words else run_gen(gen, explain, work)[0]
    svg = run_gen(gen, with_defaults(without_files(words), [("--explain", depth), ("--lang", lang),
                                                          ("--format", "svg")]), work)[0]
    return {"kernel": c, "header": h, "explain": text, "error": err, "status": status,
            "output": out, "picture-source": svg}


# --- the cases ---------------------------------------------------------------

def first_line(path):
    with open(path, encoding="utf-8") as f:
        line = f.readline().rstrip("\n")
    if not line.startswith("$ bcastgen "):
        raise ValueError("%s: no '$ bcastgen' command on its first line" % path)
    return line[len("$ bcastgen "):]


def quoted(word, rng):
    """WORD as a shell would take it, quoted one of several ways."""
    plain = re.fullmatch(r"[A-Za-z0-9_=,.:/+-]+", word) is not None
    how = rng.randrange(5)
    if plain and how < 2:
        return word
    if how == 2 or (not plain and how < 2):
        return "'" + word.replace("'", "'\\''") + "'"
    if how == 3:
        return '"' + re.sub(r'([$`"\\])', r"\\\1", word) + '"'
    return "".join("\\" + c if not c.isalnum() else c for c in word) or "''"


def random_line(rng):
    """One command line: shapes, ops, dtypes, strategies, and errors."""
    names = rng.sample(["x", "y", "a", "b", "m", "v"], 3)
    nops = rng.choice([1, 2, 2, 2, 3])
    rank = rng.choice([0, 1, 2, 2, 3, 3, 4])
    base = [rng.choice([1, 2, 3, 4, 5, 6]) for _ in range(rank)]
    words = []
    for k in range(nops):
        r = rank if rng.random() < 0.6 else rng.randrange(0, rank + 1)
        dims = [d if rng.random() < 0.6 else 1 for d in base[rank - r:]]
        if rng.random() < 0.1 and dims:
            dims[rng.randrange(len(dims))] = rng.choice([7, 8])
        typed = ":" + rng.choice(["f32", "i16", "u8", "f64"]) if rng.random() < 0.1 else ""
        words.append("%s%s=%s" % (names[k], typed, ",".join(map(str, dims))))
    if rng.random() < 0.7:
        words = ["-o", rng.choice(["k.c", "kern.c", "out_1.c"])] + words
    ops = {1: ["neg", "abs", "sqrt", "exp", "copy", "not", "invert"],
           2: ["add", "sub", "mul", "div", "max", "min", "eq", "lt", "pow", "atan2",
               "bitwise_and", "shl", "floordiv"],
           3: ["add", "mul", "where", "max"]}
    expr = rng.random() < 0.1 and nops >= 2
    if expr:
        words += ["--expr", "(%s - %s) * 2" % (names[0], names[1])]
    elif rng.random() < 0.85:
        words += ["--op", rng.choice(ops[nops])]
    if rng.random() < 0.5:
        words += ["--dtype", rng.choice(["f32", "f64", "f16", "i8", "i16", "i32", "i64", "u8",
                                         "u16", "u32", "u64"])]
    if rng.random() < 0.4:
        words += ["--strategy", rng.choice(["unroll", "loops", "block", "auto"])]
    if rng.random() < 0.15:
        words += ["--target", rng.choice(["x86-64-v3", "cortex-m4f", "rv32imac", "generic"])]
    if rng.random() < 0.1:
        words += ["--optimize", "size"]
    if rng.random() < 0.1 and nops == 2:
        words += ["--axis", str(rng.randrange(-2, 3))]
    if rng.random() < 0.1:
        words += ["--inplace"]
    if rng.random() < 0.15:
        words += ["--explain"] + ([rng.choice(["rule", "strides", "kernel"])] if rng.random() < 0.7
                                  else [])
    if rng.random() < 0.15:
        words += ["--lang", rng.choice(["en", "zh"])]
    if rng.random() < 0.12:   # an error of usage or input
        bad = rng.choice([["--frobnicate"], ["--dtype", "f8"], ["--op"], ["z=2,,3"],
                          ["--strategy", "fast"], ["--lang", "fr"], ["x=3"]])
        words += bad
    return " ".join(quoted(w, rng) for w in words)


def cases(top):
    out = []
    seeds = sorted(f for f in os.listdir(os.path.join(top, "tests", "explain"))
                   if f.startswith("seed") and f.endswith(".txt"))
    for f in seeds:
        out.append(("seed " + f, first_line(os.path.join(top, "tests", "explain", f)),
                    "zh" if f.endswith(".zh.txt") else "en"))
    lessons = os.path.join(top, "examples", "teaching")
    for d in sorted(os.listdir(lessons)):
        for lang in ("en", "zh"):
            path = os.path.join(lessons, d, lang + ".txt")
            if os.path.isfile(path):
                out.append(("lesson %s/%s.txt" % (d, lang), first_line(path), lang))
    rng = random.Random(SEED)
    for i in range(RANDOM_CASES):
        out.append(("random %d" % i, random_line(rng), rng.choice(["en", "zh"])))
    for line in ["--version", "--help", "--list ops", "", "x=2,3 y=3", "-o k.c x=2,3 y=4",
                 "-o k.c -M k.d x=4,1 y=3 --explain kernel"]:
        out.append(("fixed %r" % line, line, "en"))
    return out


# --- the page ------------------------------------------------------------------

class Watched(browse.Browser):
    """A Browser that keeps the URL of every request the page makes."""

    def __init__(self, chromium, profile):
        self.requests = []
        browse.Browser.__init__(self, chromium, profile)

    def message(self):
        msg = browse.Browser.message(self)
        if msg.get("method") == "Network.requestWillBeSent":
            self.requests.append(msg["params"]["request"]["url"])
        return msg

    def wait(self, expr):
        got = self.call("Runtime.evaluate", session=True, expression=expr, awaitPromise=True,
                        returnByValue=True)
        if "exceptionDetails" in got:
            raise RuntimeError(json.dumps(got["exceptionDetails"])[:2000])
        return got.get("result", {}).get("value")

    def key(self, key, code, vk, text=None, modifiers=0):
        params = dict(key=key, code=code, windowsVirtualKeyCode=vk, modifiers=modifiers)
        down = dict(params, type="keyDown")
        if text:
            down.update(text=text)
        self.call("Input.dispatchKeyEvent", session=True, **down)
        self.call("Input.dispatchKeyEvent", session=True, type="keyUp", **params)


SHOW = """(function (lang, depth, words, spec) {
  var $ = function (id) { return document.getElementById(id); };
  if ($("lang").value !== lang) { $("lang").value = lang; $("lang").dispatchEvent(new Event("change")); }
  $("depth").value = depth;
  $("words").value = words;
  $("spec").value = spec;
  return bcastgenPlayground.settled().then(function () {
    var r = {words: bcastgenPlayground.split(words).words || null,
             svg: !!$("picture").querySelector("svg")};
    ["kernel", "header", "explain", "error", "status", "output", "picture-source"].forEach(function (id) {
      r[id] = $(id).textContent;
    });
    return JSON.stringify(r);
  });
})(ARGS)"""


def show(browser, lang, depth, words, spec=""):
    args = ", ".join(json.dumps(v) for v in (lang, depth, words, spec))
    return json.loads(browser.wait(SHOW.replace("ARGS", args)))


def fragment(text):
    """TEXT URL-encoded as JavaScript's encodeURIComponent does it."""
    return urllib.parse.quote(text, safe="-_.!~*'()")


def compare(got, want, ids=("kernel", "header", "explain", "error", "status")):
    bad = []
    for id_ in ids:
        if got[id_] != want[id_]:
            bad.append("#%s differs: page %r, bcastgen %r" % (id_, got[id_][:300], want[id_][:300]))
    return bad


def ready_state(browser):
    deadline = time.time() + 30
    while time.time() < deadline:
        if browser.evaluate("document.documentElement.getAttribute('data-state')") == "ready":
            return True
        time.sleep(0.01)
    return False


CONTRAST = r"""(function () {
  function rgb(s) { var m = s.match(/[\d.]+/g) || []; return m.map(Number); }
  function lum(c) { var v = c.slice(0, 3).map(function (x) { x /= 255;
    return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; }
  function bg(el) { for (; el; el = el.parentElement) { var c = rgb(getComputedStyle(el).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c; } return [255, 255, 255]; }
  var worst = 99, where = "", els = document.body.querySelectorAll("*");
  for (var i = 0; i < els.length; i++) {
    var el = els[i];
    if (el.closest("svg") || el.closest("[hidden]")) continue;
    var own = false;
    for (var k = 0; k < el.childNodes.length; k++)
      if (el.childNodes[k].nodeType === 3 && /\S/.test(el.childNodes[k].data)) own = true;
    if (!own && !/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(el.tagName)) continue;
    var a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
    var r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (r < worst) { worst = r; where = el.tagName + (el.id ? "#" + el.id : "") + " " +
      getComputedStyle(el).color + " on " + bg(el).join(","); }
  }
  return JSON.stringify({ratio: worst, where: where});
})()"""


def screenshot(browser, path, what):
    """Save the window's screenshot at PATH; a test that it is not blank."""
    shot = browser.shoot()
    with open(path, "wb") as f:
        f.write(shot)
    w, h, inked, _, _, _, _, colour = browse.ink_of(shot)
    tap(inked > 0.02 * w * h and colour > 20, "%s is not blank (%.1f%% inked, %d coloured pixels)"
        % (what, 100.0 * inked / max(1, w * h), colour))


def main():
    gen, page, top, work = (os.path.abspath(a) for a in sys.argv[1:5])
    shots = os.path.join(work, "shots")
    os.makedirs(shots, exist_ok=True)
    url = "file://" + page
    start = time.time()

    # the file itself
    size = os.path.getsize(page)
    tap(size <= PAGE_LIMIT, "the page is at most 2 MB (%d bytes)" % size)
    with open(page, encoding="utf-8") as f:
        source = f.read()
    urls = re.findall(r"https?:[^\s\"'<>]{0,60}", source, re.I)
    tap(not urls, "the page's source names no http: or https: URL", "\n".join(urls[:10]))

    version = subprocess.run([gen, "--version"], stdout=subprocess.PIPE).stdout.decode()

    # the expected results, from the generator itself
    all_cases = cases(top)
    rng = random.Random(SEED + 1)
    prepared = []
    for name, line, lang in all_cases:
        depth = rng.choice(["rule", "strides", "kernel"])
        try:
            words = sh_words(line)
        except ValueError as e:
            tap(False, "%s: sh splits %r" % (name, line), e)
            continue
        prepared.append((name, line, lang, depth, words, expected(gen, words, lang, depth, work)))

    browser = Watched(os.environ.get("CHROMIUM", "/usr/bin/chromium"), os.path.join(work, "profile"))
    browser.call("Network.enable", session=True)
    browser.call("Runtime.enable", session=True)
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=1200, height=900,
                 deviceScaleFactor=1, mobile=False)

    # first load: the words from the fragment, and the time to the results
    frag_text = "-o k.c x=2,3,1,5 y=3,4,1 --op add"
    # (the best of three loads, so that a busy machine, as under make
    # check's parallel jobs, does not fail it: the first is the coldest)
    times = []
    for attempt in range(3):
        browser.load(url + ("?%d" % attempt if attempt else "") + "#" + fragment(frag_text))
        ok = ready_state(browser)
        ms = browser.evaluate("Number(document.documentElement.getAttribute('data-ready-ms'))")
        times.append(ms if ok and ms is not None else 1e9)
        if times[-1] < READY_MS:
            break
    tap(min(times) < READY_MS, "the first results are shown %s ms after the navigation "
        "(under %d; tries: %s)" % (min(times), READY_MS, ", ".join("%g" % t for t in times)))
    got = json.loads(browser.evaluate(
        "JSON.stringify({w: document.getElementById('words').value, s: document.getElementById"
        "('status').textContent, k: document.getElementById('kernel').textContent})"))
    want = expected(gen, sh_words(frag_text), "en", "rule", work)
    tap(got["w"] == frag_text and got["s"] == want["status"] and got["k"] == want["kernel"],
        "the words come from the URL fragment on load, and are run", json.dumps(got)[:500])
    tap(browser.evaluate("document.getElementById('version').textContent") == version.strip(),
        "the page shows the version bcastgen --version gives (%s)" % version.strip())

    screenshot(browser, os.path.join(shots, "en-1200x900.png"), "a screenshot at 1200x900")

    # the keyboard: Tab reaches every control in order; typing updates the
    # fragment; Enter runs the words typed
    browser.wait("document.activeElement && document.activeElement.blur(), 0")
    order = []
    for _ in range(5):
        browser.key("Tab", "Tab", 9)
        order.append(browser.evaluate("document.activeElement.id"))
    tap(order == ["words", "lang", "depth", "run", "spec"],
        "Tab goes through the words, the language, the depth, Run and the spec", order)
    browser.wait("document.getElementById('words').focus(), document.getElementById('words')"
                 ".select(), 0")
    typed = "-o t.c x=4,1 y='3'"
    browser.call("Input.insertText", session=True, text=typed)
    browser.key("Enter", "Enter", 13, text="\r")
    ok = ready_state(browser)
    got = json.loads(browser.evaluate(
        "JSON.stringify({h: location.hash, w: document.getElementById('words').value, "
        "k: document.getElementById('kernel').textContent, s: document.getElementById('status')"
        ".textContent, n: history.length})"))
    want = expected(gen, sh_words(typed), "en", "rule", work)
    tap(ok and got["w"] == typed and got["h"] == "#" + fragment(typed)
        and got["k"] == want["kernel"] and got["s"] == want["status"],
        "words typed are run (Enter), and the fragment is rewritten to them", json.dumps(got)[:600])
    browser.key("Tab", "Tab", 9)
    browser.key("ArrowDown", "ArrowDown", 40)
    ok = ready_state(browser)
    label = browser.evaluate("document.querySelector('label[for=words]').textContent + '|' + "
                             "document.documentElement.lang + '|' + document.getElementById('lang')"
                             ".value")
    tap(ok and label.endswith("|zh-CN|zh") and re.search("[\u4e00-\u9fff]", label),
        "the arrow key in the language control turns the labels to Chinese", label)
    screenshot(browser, os.path.join(shots, "zh-1200x900.png"), "a screenshot in Chinese at 1200x900")
    got = json.loads(browser.evaluate(CONTRAST))
    tap(got["ratio"] >= 4.5, "every text has a contrast of at least 4.5:1 (lowest %.2f: %s)"
        % (got["ratio"], got["where"]))
    show(browser, "en", "rule", "x=2 y=2")
    got = json.loads(browser.evaluate(CONTRAST))
    tap(got["ratio"] >= 4.5, "in English too (lowest %.2f: %s)" % (got["ratio"], got["where"]))
    tap(not browser.evaluate("document.querySelector('label[for=words]').textContent")
        .startswith("命令"), "and back to English labels")

    # the spec box replaces the words
    spec = 'kernel "bias" { op = "add", "x=2,3", "b=3" }\nkernel "scale" { op = "mul", "x=4,1", "s=" }\n'
    for what, text in (("a spec", spec), ("a bad spec", 'kernel "k" { op = "add", "x=2", }\n')):
        want = run_gen(gen, ["spec.lua", "-o", "spec.c"], work, spec=text)
        got = show(browser, "en", "rule", "x=9 y=9", text)
        bad = compare(got, dict(zip(("output", "error", "status", "kernel", "header"), want),
                                explain=""))
        tap(not bad, "%s in the spec box runs as bcastgen spec.lua -o spec.c" % what, "\n".join(bad))

    # every case, against the generator
    slow, statuses = 0.0, {}
    for name, line, lang, depth, words, want in prepared:
        t = time.time()
        got = show(browser, lang, depth, line)
        slow = max(slow, time.time() - t)
        statuses[want["status"]] = statuses.get(want["status"], 0) + 1
        bad = compare(got, want)
        if got["words"] != words:
            bad.insert(0, "the page splits it into %r, sh into %r" % (got["words"], words))
        if got["output"] != want["output"]:
            bad.append("#output differs")
        if got["picture-source"] != want["picture-source"]:
            bad.append("the picture differs: page %r, bcastgen %r"
                       % (got["picture-source"][:200], want["picture-source"][:200]))
        if got["svg"] != want["picture-source"].startswith("<svg"):
            bad.append("#picture %s an SVG picture" % ("holds" if got["svg"] else "lacks"))
        tap(not bad, "%s (%s, --explain %s): %s" % (name, lang, depth, line), "\n".join(bad))

    # no request but the page itself
    others = [u for u in browser.requests if u.split("?")[0].split("#")[0] != url]
    tap(not others and browser.requests, "the page makes no request but its own load (%d seen)"
        % len(browser.requests), "\n".join(others[:10]))
    browser.close()
    print("# %d cases in %.1f s, the slowest %.2f s; exit statuses: %s"
          % (len(prepared), time.time() - start, slow,
             ", ".join("%s: %d" % kv for kv in sorted(statuses.items()))))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
