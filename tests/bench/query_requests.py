#!/usr/bin/env python3
"""Writes a batch of `strata query --batch` requests for throughput measurements.

Usage: query_requests.py WORLD.h5 COUNT [--seed S] [--strata PATH] > requests.jsonl

The requests cycle through height, nearest, los (to a point up to 5 m away), component (to a
second point anywhere) and clearance, at points drawn uniformly in the world's bounds (read with
`strata info --json`), so that both positive and negative answers occur. Deterministic for a given
world, count and seed.
"""

import argparse
import json
import random
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world")
    parser.add_argument("count", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strata", default="strata", help="the strata binary (default: strata on PATH)")
    args = parser.parse_args()
    info = subprocess.run([args.strata, "info", args.world, "--json"], capture_output=True, text=True)
    if info.returncode != 0:
        sys.exit(info.stderr.strip() or f"{args.world}: strata info failed")
    bounds = json.loads(info.stdout)["bounds"]
    lo, hi = bounds["min"], bounds["max"]
    rng = random.Random(args.seed)

    def point():
        return [round(rng.uniform(lo[i], hi[i]), 3) for i in range(3)]

    kinds = ["height", "nearest", "los", "component", "clearance"]
    for i in range(args.count):
        kind = kinds[i % len(kinds)]
        p = point()
        if kind == "height":
            request = {"kind": kind, "at": [p[0], p[2]]}
        elif kind == "los":
            to = [round(p[0] + rng.uniform(-5, 5), 3), p[1], round(p[2] + rng.uniform(-5, 5), 3)]
            request = {"kind": kind, "from": p, "to": to}
        elif kind == "component":
            request = {"kind": kind, "at": p, "to": point()}
        else:
            request = {"kind": kind, "at": p}
        print(json.dumps(request, separators=(",", ":")))


if __name__ == "__main__":
    main()
