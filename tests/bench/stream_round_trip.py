#!/usr/bin/env python3
"""Round-trip time of `strata path WORLD --batch - --stream` against one process per request.

Usage: stream_round_trip.py WORLD.h5 REQUESTS.jsonl [--strata PATH] [--spawn N] [--threads T]

Writes each request to one streaming co-process and waits for its result before writing the next
(as a script asking one route at a time does), then runs the first N requests as separate
`strata path WORLD --from .. --to ..` processes. Prints the median, mean and 99th percentile of
the round trips (the first one, which reads the world, apart) and the median per process.
Requests as tests/bench/batch_requests.py writes them.
"""

import argparse
import json
import statistics
import subprocess
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world")
    parser.add_argument("requests")
    parser.add_argument("--strata", default="strata")
    parser.add_argument("--spawn", type=int, default=20, help="requests also run one process each")
    parser.add_argument("--threads", default="1")
    args = parser.parse_args()
    with open(args.requests) as f:
        requests = [line for line in f if line.strip()]
    co = subprocess.Popen([args.strata, "path", args.world, "--batch", "-", "--stream", "--threads", args.threads],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    trips = []
    for line in requests:
        start = time.perf_counter()
        co.stdin.write(line if line.endswith("\n") else line + "\n")
        co.stdin.flush()
        if not co.stdout.readline():
            raise SystemExit("the co-process ended early")
        trips.append(time.perf_counter() - start)
    co.stdin.close()
    co.wait()
    rest = sorted(trips[1:]) or trips
    print(f"stream: {len(trips)} requests, first {trips[0] * 1e3:.1f} ms, then median {statistics.median(rest) * 1e3:.3f} ms, "
          f"mean {statistics.mean(rest) * 1e3:.3f} ms, p99 {rest[int(0.99 * (len(rest) - 1))] * 1e3:.3f} ms")
    spawned = []
    for line in requests[:args.spawn]:
        request = json.loads(line)
        command = [args.strata, "path", args.world, "--from", ",".join(map(repr, request["from"])),
                   "--to", ",".join(map(repr, request["to"])), "--json"]
        if "method" in request:
            command += ["--method", request["method"]]
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
        spawned.append(time.perf_counter() - start)
    if spawned:
        print(f"one process per request: {len(spawned)} requests, median {statistics.median(spawned) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
