"""browse.py: pictures and pages seen in one headless Chromium, driven
over its DevTools pipe (--remote-debugging-pipe) with Python's standard
library alone.

    browse.py CHROMIUM SHOTS SIZES FILE...
        SIZES is a comma-separated list of windows, WxH. For each window
        and each FILE (an .svg, or an .html page with its picture in
        #picture), loads the file in a window of that size, saves a
        screenshot of what the window shows as
        SHOTS/NAME-WxH.png (NAME: the file's path with / as -), and
        prints one line:
            OK FILE WxH
        or  BAD FILE WxH: why
        A file is BAD when it does not parse (an .xhtml copy of a page is
        read as XML), and a picture when it is drawn below its natural
        width, when its right edge is past the window and no frame of
        its own scrolls it there, when the page scrolls sideways, when
        what it draws (its bounding box, text measured in the fonts the
        browser chose) passes the width and height it declares, or when
        the pixels of its box hold too little ink or no colour (blank or
        unstyled).

The browser runs in a private profile under SHOTS; exits 2 with a message
when the browser does not answer within 60 seconds a step.
"""
import base64
import fcntl
import json
import os
import select
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png  # noqa: E402

STEP_SECONDS = 60

# Where the picture is and whether it is seen whole; run in the page.
MEASURE = r"""
(function () {
  var svg = document.querySelector("#picture svg") || document.documentElement;
  var natural = parseFloat(svg.getAttribute("width")), tall = parseFloat(svg.getAttribute("height"));
  var r = svg.getBoundingClientRect(), frame = document.getElementById("picture");
  var root = document.scrollingElement || document.documentElement;
  var why = "";
  if (document.getElementsByTagName("parsererror").length) why = "a parse error";
  else if (!(natural > 0)) why = "no picture";
  else if (r.width < natural - 0.5) why = "scaled to " + r.width + " of " + natural;
  else if (r.right > innerWidth + 0.5 && !(frame && frame.scrollWidth > frame.clientWidth
           && /auto|scroll/.test(getComputedStyle(frame).overflowX)))
    why = "cut off: right edge " + r.right + " in a window of " + innerWidth;
  else if (root.scrollWidth > innerWidth + 0.5)
    why = "the page scrolls sideways: " + root.scrollWidth + " wide in " + innerWidth;
  else {
    var b = svg.getBBox();
    if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > natural + 0.5 || b.y + b.height > tall + 0.5)
      why = "drawn outside its " + natural + "x" + tall + " box: (" + b.x + "," + b.y + ") " +
            b.width + "x" + b.height;
  }
  var box = r.right <= innerWidth || !frame ? r : frame.getBoundingClientRect();
  return JSON.stringify({why: why, x: box.left + scrollX, y: box.top + scrollY,
                         w: Math.min(box.width, innerWidth - box.left), h: box.height});
})()
"""


def fail(msg):
    sys.stderr.write("browse.py: %s\n" % msg)
    sys.exit(2)


def high(fds):
    """The pair of fds moved above 9, so that the child's dup2 to 3 and 4
    cannot overwrite one of them."""
    moved = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds)
    for fd in fds:
        os.close(fd)
    return moved


class Browser:
    """One headless Chromium and one page in it, spoken to over fds 3, 4."""

    def __init__(self, chromium, profile):
        to_browser, self.out = high(os.pipe())
        self.inp, from_browser = high(os.pipe())

        def wire():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        # no background work: updates, sync, extensions, sound
        args = [chromium, "--headless", "--disable-gpu", "--hide-scrollbars",
                "--force-device-scale-factor=1", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
                "--allow-file-access-from-files", "--remote-debugging-pipe",
                "--user-data-dir=" + profile, "about:blank"]
        if os.getuid() == 0:
            args.insert(1, "--no-sandbox")
        env = dict(os.environ, HOME=profile)
        self.proc = subprocess.Popen(args, preexec_fn=wire, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        os.close(to_browser)
        os.close(from_browser)
        self.buf, self.next_id, self.events = b"", 0, []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)

    def message(self):
        """The next message from the browser, waiting at most a step."""
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.inp], [], [], STEP_SECONDS)
            chunk = os.read(self.inp, 1 << 20) if ready else b""
            if not chunk:
                fail("chromium did not answer" if not ready else "chromium closed its pipe")
            self.buf += chunk
        text, self.buf = self.buf.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, session=False, **params):
        """Send one command and return its result; events are kept."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self.message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            self.events.append(reply.get("method"))

    def load(self, url):
        """Navigate and wait for the load event."""
        self.events = []
        self.call("Page.navigate", session=True, url=url)
        while "Page.loadEventFired" not in self.events:
            self.events.append(self.message().get("method"))

    def evaluate(self, expr):
        got = self.call("Runtime.evaluate", session=True, expression=expr, returnByValue=True)
        return got.get("result", {}).get("value")

    def shoot(self, **params):
        """A PNG of the page: the window, or params' clip."""
        got = self.call("Page.captureScreenshot", session=True, format="png", optimizeForSpeed=True, **params)
        return base64.b64decode(got["data"])

    def close(self):
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        self.proc.wait()


def ink_of(data):
    """png.ink of a PNG's bytes, with the image's size in front."""
    width, height, rows = png.decode(data, "a screenshot")
    return (width, height) + png.ink(rows, 0, 0, width, height)


def see(browser, path, width, height, shots):
    """Load one file in a WxH window, save its screenshot, judge it."""
    browser.load("file://" + os.path.abspath(path))
    got = json.loads(browser.evaluate(MEASURE))
    name = os.path.normpath(path).lstrip("./").replace("/", "-")
    with open(os.path.join(shots, "%s-%dx%d.png" % (name, width, height)), "wb") as f:
        f.write(browser.shoot())
    if got["why"]:
        return got["why"]
    # The picture's box, small: is anything drawn in it?
    scale = min(1.0, 160.0 / max(1.0, got["w"]))
    clip = dict(x=got["x"], y=got["y"], width=got["w"], height=got["h"], scale=scale)
    w, h, n, _, _, _, _, colour = ink_of(browser.shoot(clip=clip, captureBeyondViewport=True))
    if n < 0.01 * w * h or colour < 20:
        return "blank: %d of its %dx%d pixels inked, %d coloured" % (n, w, h, colour)
    return ""


def main(argv):
    if len(argv) < 5:
        fail("usage: browse.py CHROMIUM SHOTS WxH[,WxH...] FILE...")
    chromium, shots, sizes, files = argv[1], argv[2], argv[3], argv[4:]
    os.makedirs(shots, exist_ok=True)
    browser = Browser(chromium, os.path.join(shots, ".profile"))
    for size in sizes.split(","):
        width, height = (int(v) for v in size.split("x"))
        browser.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                     height=height, deviceScaleFactor=1, mobile=False)
        for path in files:
            why = see(browser, path, width, height, shots)
            print("%s %s %s%s" % ("BAD" if why else "OK", path, size, ": " + why if why else ""))
            sys.stdout.flush()
    browser.close()


if __name__ == "__main__":
    main(sys.argv)
