"""What the engine triage scripts (ci/triage-leveldb, ci/triage-rocksdb) share.

A triage replays every failure file of a campaign with --trace, reads the
facts the trace records up to the failing check (injected faults, what a
power loss took back, the logs created and reopened), and asks the
engine's own signatures which bugs of the README's table the run reached.
A signature names the trigger of one bug: a necessary condition, so a
failure it matches is one that bug can explain. A failure no signature
matches is unexplained: it is printed and the exit status is 1 until it
is explained (a new row in the table) or fixed (a false alarm of Shale's).
A failure several signatures match is counted under all of them, as one
class ("L3+L6").

A neutralizer is a pin that takes one bug's trigger away while the seed
draws as before: with --confirm, every single-bug failure that has one is
rerun from its seed with it, and should then pass.
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys

LOG = re.compile(r"/\d{6}\.log$")
FAULT = re.compile(r"^  fault t=\d+ task '([^']*)' (\S+) (\S+)$")
IO = re.compile(r"^  io t=\S+ task '([^']*)' (\S+) (\S+) ")
DROPPED = re.compile(r"^  disk: power loss dropped name (\S+)$")
LOST = re.compile(r"^  disk: power loss kept \d+ of \d+ unsynced sectors of (\S+) "
                  r"\((\d+) torn, (\d+) garbage\), lost (\d+)$")
# The properties a lost, reordered or resurrected write fails.
LOSING = {"durability", "prefix recovery", "resurrection", "atomicity", "recovery"}
# Faults that fail an append or leave part of it in the file, as prefixes
# of the trace's fault names (enospc_disk_full, enospc_short_write, ...).
WRITE_FAULTS = ("eio_write", "enospc")
# Faults that fail a sync; the last two also take unsynced pages back.
SYNC_FAULTS = ("eio_sync", "fsync_drops_pages", "fsync_marks_clean")
# Faults that fail a read (an I/O error, or fewer bytes than asked).
READ_FAULTS = ("eio_read", "short_read")


def log_number(path):
    return int(os.path.basename(path).split(".")[0])


class Facts:
    """What a replay's trace shows up to its failing check. Power-loss facts
    are those of every crash since the last check that passed (a crash may
    land in recovery, before any check). note(line) is called for every
    line first, so an engine's own facts can be added by a subclass."""

    def __init__(self, trace):
        self.faults = []  # (task, kind, path), of the whole run
        self.recent_faults = []  # those since the last check that passed
        self.reopened = set()  # logs and MANIFESTs reopened to append
        self.created_logs = set()
        self.power_loss = False  # a crash since the last passing check was one
        self.checked_power_loss = False  # one was, before the last passing check
        self.dropped = []  # names those power losses took back
        self.lost_logs = []  # logs whose unsynced sectors they lost or tore
        self.paranoid_relaxed = False  # a refusal turned paranoid_checks off
        for line in trace.splitlines():
            if line.startswith("  check: "):
                if "FAILED" in line:
                    break
                self.checked_power_loss = self.power_loss
                self.power_loss, self.dropped, self.lost_logs = False, [], []
                self.recent_faults = []
            if line == "  disk: power loss":
                self.power_loss = True
            if "reopening with paranoid_checks off" in line:
                self.paranoid_relaxed = True
            self.note(line)
            self.note_io(line)
            m = DROPPED.match(line)
            if m:
                self.dropped.append(m.group(1))
            m = LOST.match(line)
            if m and LOG.search(m.group(1)) and sum(int(g) for g in m.group(2, 3, 4)) > 0:
                self.lost_logs.append(m.group(1))

    def note(self, line):
        pass

    def note_io(self, line):
        m = FAULT.match(line)
        if m:
            self.faults.append(m.groups())
            self.recent_faults.append(m.groups())
        m = IO.match(line)
        if m and m.group(2) == "reopen" and (LOG.search(m.group(3)) or "MANIFEST" in m.group(3)):
            self.reopened.add(m.group(3))
        if m and m.group(2) == "create" and LOG.search(m.group(3)):
            self.created_logs.add(m.group(3))

    def faulted(self, kinds, path_test, tasks=None, recent=False):
        """Whether any injected fault whose name starts with one of kinds
        hit a path path_test accepts: in a task whose name starts with one
        of tasks (None: any task), since the last passing check if recent."""
        faults = self.recent_faults if recent else self.faults
        return any(k.startswith(tuple(kinds)) and path_test(p)
                   and (tasks is None or t.startswith(tuple(tasks))) for t, k, p in faults)

    def lost_older_log(self):
        """Whether a power loss since the last passing check lost or tore
        unsynced sectors of a log older than the newest one created."""
        newest = max((log_number(p) for p in self.created_logs), default=0)
        return self.power_loss and any(log_number(p) < newest for p in self.lost_logs)

    def dropped_older_log(self):
        """Whether a failed sync since the last passing check took back
        unsynced pages of a log older than the newest one created."""
        newest = max((log_number(p) for p in self.created_logs), default=0)
        return any(k in ("fsync_drops_pages", "fsync_marks_clean") and is_log(p)
                   and log_number(p) < newest for _, k, p in self.recent_faults)


def is_log(path):
    return LOG.search(path) is not None


class Triage:
    """One engine's triage: its name, its Facts class, its signatures
    (candidates(failure, facts) -> bug ids; facts is None when the failure
    is one whose trace the triage does not read) and its neutralizers."""

    def __init__(self, engine, facts_class, candidates, neutralizers, traced=lambda f: True):
        self.engine = engine
        self.facts_class = facts_class
        self.candidates = candidates
        self.neutralizers = neutralizers
        self.traced = traced

    def classify(self, shale, path, confirm):
        with open(path) as f:
            failure = json.load(f)
        facts = None
        if self.traced(failure):
            facts = self.facts_class(replay(shale, path, "--trace"))
        cls = "+".join(self.candidates(failure, facts)) or "unexplained"
        check = self.confirmed(shale, path, failure, cls) if confirm else None
        return failure["seed"], failure["failure"].get("property", ""), cls, check

    def confirmed(self, shale, path, failure, cls):
        """For a single-bug class with a neutralizer: whether the seed, rerun
        from its seed with the trigger pinned away, passes (None: no test)."""
        if cls not in self.neutralizers:
            return None
        pins = dict(failure.get("pins") or {})  # an empty map is written as []
        name, value = self.neutralizers[cls].split("=")
        pins[name] = value
        pin = ",".join(f"{k}={v}" for k, v in pins.items())
        return "verdict: PASS" in replay(shale, path, "--from_seed", "--pin", pin)

    def main(self, doc):
        parser = argparse.ArgumentParser(description=doc.splitlines()[0])
        parser.add_argument("out_dir")
        parser.add_argument("--shale", default="build/shale")
        parser.add_argument("--jobs", type=int, default=2)
        parser.add_argument("--list", action="store_true", help="print each seed's class")
        parser.add_argument("--confirm", action="store_true",
                            help="rerun single-bug seeds with that bug's trigger pinned away")
        args = parser.parse_args()
        name = f"triage-{self.engine}"
        if not os.path.isdir(args.out_dir) or not os.access(args.shale, os.X_OK):
            print(f"{name}: need a campaign directory and {args.shale}", file=sys.stderr)
            return 2
        files = sorted(p for p in glob.glob(os.path.join(args.out_dir, "failures", "*.json"))
                       if not p.endswith(".shrunk.json"))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(lambda p: self.classify(args.shale, p, args.confirm), files))
        report(args.out_dir, rows, args.list)
        return 1 if any(cls == "unexplained" for _, _, cls, _ in rows) else 0


def replay(shale, path, *extra):
    return subprocess.run([shale, "replay", path, *extra], capture_output=True, text=True,
                          timeout=600).stdout


def report(out_dir, rows, listed):
    by_class = collections.Counter(cls for _, _, cls, _ in rows)
    print(f"{len(rows)} failures in {out_dir}")
    for cls, n in sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0])):
        tested = [ok for _, _, c, ok in rows if c == cls and ok is not None]
        note = f"  (trigger pinned away: {sum(tested)} of {len(tested)} pass)" if tested else ""
        print(f"  {n:6d}  {cls}{note}")
    for seed, prop in sorted((seed, prop) for seed, prop, cls, _ in rows if cls == "unexplained"):
        print(f"  unexplained: seed {seed} ({prop})")
    if listed:
        for seed, prop, cls, ok in sorted(rows):
            print(f"seed {seed}: {prop}: {cls}" + ("" if ok is None else f" (pinned away: {ok})"))
