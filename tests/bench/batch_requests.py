#!/usr/bin/env python3
"""Writes a batch of `strata path --batch` requests for throughput measurements.

Usage: batch_requests.py WORLD.h5 COUNT [--method M] [--seed S] > requests.jsonl

Each request joins the column centres of two floor nodes drawn at random from the largest
region of the world's first agent (nodes of one region always reach each other:
docs/format.md), at the nodes' heights. Deterministic for a given world, count and seed.
"""

import argparse
import json
import random
import sys

import h5py
import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world")
    parser.add_argument("count", type=int)
    parser.add_argument("--method", default=None, help="method of every request (default: the batch's own)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with h5py.File(args.world, "r") as f:
        if "navigation" not in f or "agent_names" not in f["navigation"]:
            sys.exit(f"{args.world}: not baked: no agents")
        name = f["navigation/agent_names"][0].decode().rstrip("\0")
        a = f["navigation/agents"][name]
        ox, oz = a["grid_origin_xz"][...]
        cell = float(a["cell_size"][0])
        width = int(a["grid_cells"][0])
        offsets = a["column_offsets"][...]
        height = a["height"][...]
        region = a["region"][...]
    if len(height) == 0:
        sys.exit(f"{args.world}: agent {name} has no floor nodes")
    kx, kz = round(ox / cell), round(oz / cell)
    column = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    largest = np.argmax(np.bincount(region))
    nodes = np.nonzero(region == largest)[0]
    rng = random.Random(args.seed)

    def position(node):
        c = int(column[node])
        return [round((c % width + kx + 0.5) * cell, 6), round(float(height[node]), 6), round((c // width + kz + 0.5) * cell, 6)]

    out = sys.stdout
    for _ in range(args.count):
        request = {"from": position(rng.choice(nodes)), "to": position(rng.choice(nodes))}
        if args.method:
            request["method"] = args.method
        out.write(json.dumps(request, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
