"""tap.py: TAP output for the Python tests, one line a test.

ok() prints "ok N - NAME" or "not ok N - NAME" and, for a failure, what
went wrong as "# " lines; skip() a test that cannot run, with the reason;
done() the plan, last. fresh() makes the directory of one check's files.
Import it from a script in tests/ (Python puts the script's directory
first on the path).
"""
import sys
import tempfile

DIAG_LINES = 30     # what a failure prints at most


def fresh(parent):
    """A new, empty directory under PARENT (the test's scratch directory)
    for the files of one check, as lib.sh's fresh for the shell tests: no
    file that another check left, or changed, is seen there."""
    return tempfile.mkdtemp(prefix="check.", dir=parent)


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None):
        """One test: COND passed; DIAG (a text, or a list of them) says why not."""
        self.n += 1
        if not cond:
            self.failed += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        if not cond and diag:
            items = [diag] if isinstance(diag, str) else diag
            lines = [part for item in items for part in str(item).strip().splitlines() or [""]]
            for line in lines[:DIAG_LINES]:
                print("#   " + line[:300])
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # skip %s" % (self.n, name, why))
        sys.stdout.flush()

    def comment(self, text):
        print("# " + text)

    def done(self):
        """Print the plan; return the exit status: 1 if a test failed."""
        print("1..%d" % self.n)
        sys.stdout.flush()
        return 1 if self.failed else 0
