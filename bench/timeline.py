#!/usr/bin/env python3
"""timeline.py: where a short `jobtrace run` spends its wall time.

    python3 bench/timeline.py JOBTRACE [N [RUN FLAGS...]]

runs `JOBTRACE run --summary off --out DIR [RUN FLAGS] -- true` N times
(default 100), each into a fresh DIR, and prints the median time of each
step, in ms from the run's start time (the job span's start): the events
of the "jobtrace startup" span (configuration loaded, telemetry ready,
first sample taken, job started, ...), the "jobtrace shutdown" span, the
job span's end, and when this script's wait for the process returned.
Run it at real-time priority (chrt -f 10) on a quiet machine to compare
two builds.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def spans_of(path):
    out = {}
    with open(path) as f:
        for line in f:
            for rs in json.loads(line).get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    for s in ss.get("spans", []):
                        out[s["name"]] = s
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    flags = sys.argv[3:]
    work = tempfile.mkdtemp(prefix="jobtrace-timeline.")
    out = os.path.join(work, "out")
    steps = {}
    try:
        for _ in range(n):
            shutil.rmtree(out, ignore_errors=True)
            t0 = time.time_ns()
            subprocess.run([binary, "run", "--summary", "off", "--out", out, *flags, "--", "true"],
                           stderr=subprocess.DEVNULL, check=False)
            t1 = time.time_ns()
            spans = spans_of(os.path.join(out, "spans.otlp.jsonl"))
            start = spans.get("jobtrace startup")
            if start is None:
                continue
            base = int(start["startTimeUnixNano"])

            def add(name, ns):
                steps.setdefault(name, []).append((int(ns) - base) / 1e6)

            add("process started (this script's fork)", t0)
            for e in start.get("events", []):
                add(e["name"], e["timeUnixNano"])
            if "jobtrace shutdown" in spans:
                add("shutdown start", spans["jobtrace shutdown"]["startTimeUnixNano"])
                add("shutdown end", spans["jobtrace shutdown"]["endTimeUnixNano"])
            add("process reaped", t1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name, v in sorted(steps.items(), key=lambda kv: statistics.median(kv[1])):
        print(f"{statistics.median(v):8.2f}  {name}")


if __name__ == "__main__":
    main()
