#!/usr/bin/env python3
"""Writes Moving AI-format benchmark maps with exact scenarios, for bench_grid on map kinds the
shared data does not hold (STRATA_BENCH_MOVINGAI=DIR bench_grid).

    /usr/bin/python3 tests/bench/make_movingai_maps.py OUT_DIR

Five 512 x 512 maps (fixed seed, so every run writes the same files): random obstacles at 25 %
and 40 % (like Moving AI's random512-25 / -40 sets), rooms of 32 cells with random doors
(room512-32), and mazes with corridors 8 and 2 cells wide (maze512-8 / -2). Each NAME.map gets a
NAME.map.scen of 256 scenarios: 16 starts, 16 goals each, all in the map's largest 4-connected
component; the optimal length of each comes from a Dijkstra over the 8-connected grid without
corner cutting (Moving AI's rule), independent of Strata. Takes a minute or two.
"""
import heapq
import math
import os
import random
import sys

SQRT2 = math.sqrt(2.0)


def largest_component(grid, w, h):
    seen = [[False] * w for _ in range(h)]
    best = []
    for y in range(h):
        for x in range(w):
            if not grid[y][x] or seen[y][x]:
                continue
            seen[y][x] = True
            stack, cells = [(x, y)], []
            while stack:
                cx, cy = stack.pop()
                cells.append((cx, cy))
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < w and 0 <= ny < h and grid[ny][nx] and not seen[ny][nx]:
                        seen[ny][nx] = True
                        stack.append((nx, ny))
            if len(cells) > len(best):
                best = cells
    return best


def dijkstra(grid, w, h, sx, sy):
    def open_(x, y):
        return 0 <= x < w and 0 <= y < h and grid[y][x]

    dist = {(sx, sy): 0.0}
    done = set()
    queue = [(0.0, sx, sy)]
    while queue:
        d, x, y = heapq.heappop(queue)
        if (x, y) in done:
            continue
        done.add((x, y))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx == 0 and dy == 0:
                    continue
                nx, ny = x + dx, y + dy
                if not open_(nx, ny):
                    continue
                if dx and dy and (not open_(x + dx, y) or not open_(x, y + dy)):
                    continue  # no corner cutting
                nd = d + (SQRT2 if dx and dy else 1.0)
                if nd < dist.get((nx, ny), math.inf):
                    dist[(nx, ny)] = nd
                    heapq.heappush(queue, (nd, nx, ny))
    return dist


def write(out, name, grid, w, h, rng, starts=16, goals=16):
    cells = largest_component(grid, w, h)
    with open(os.path.join(out, name + ".map"), "w") as f:
        f.write("type octile\nheight %d\nwidth %d\nmap\n" % (h, w))
        for y in range(h):
            f.write("".join("." if grid[y][x] else "@" for x in range(w)) + "\n")
    lines = []
    for _ in range(starts):
        sx, sy = rng.choice(cells)
        dist = dijkstra(grid, w, h, sx, sy)
        for _ in range(goals):
            gx, gy = rng.choice(cells)
            d = dist[(gx, gy)]
            lines.append("%d\t%s.map\t%d\t%d\t%d\t%d\t%d\t%d\t%.8f\n" % (int(d / 4), name, w, h, sx, sy, gx, gy, d))
    with open(os.path.join(out, name + ".map.scen"), "w") as f:
        f.write("version 1\n")
        f.writelines(lines)


def random_map(w, h, density, rng):
    return [[rng.random() >= density for _ in range(w)] for _ in range(h)]


def rooms(w, h, room, rng):
    grid = [[True] * w for _ in range(h)]
    for y in range(0, h, room):
        for x in range(w):
            grid[y][x] = False
    for x in range(0, w, room):
        for y in range(h):
            grid[y][x] = False
    for ry in range(0, h, room):
        for rx in range(0, w, room):
            for _ in range(2):  # up to two doors in the east and the south wall of each room
                if rx + room < w and rng.random() < 0.75:
                    grid[min(h - 1, ry + rng.randint(1, room - 1))][rx + room] = True
                if ry + room < h and rng.random() < 0.75:
                    grid[ry + room][min(w - 1, rx + rng.randint(1, room - 1))] = True
    return grid


def maze(w, h, corridor, rng):
    pitch = corridor + 1
    cw, ch = w // pitch, h // pitch
    grid = [[False] * w for _ in range(h)]

    def carve(x0, y0, x1, y1):
        for y in range(y0, y1):
            for x in range(x0, x1):
                grid[y][x] = True

    seen = {(0, 0)}
    stack = [(0, 0)]
    carve(1, 1, 1 + corridor, 1 + corridor)
    while stack:  # depth-first maze (recursive backtracker)
        x, y = stack[-1]
        options = [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                   if 0 <= x + dx < cw and 0 <= y + dy < ch and (x + dx, y + dy) not in seen]
        if not options:
            stack.pop()
            continue
        nx, ny = rng.choice(options)
        seen.add((nx, ny))
        stack.append((nx, ny))
        carve(1 + min(x, nx) * pitch, 1 + min(y, ny) * pitch, 1 + max(x, nx) * pitch + corridor,
              1 + max(y, ny) * pitch + corridor)
    return grid


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_movingai_maps.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(7)
    write(out, "gen-random512-25", random_map(512, 512, 0.25, rng), 512, 512, rng)
    write(out, "gen-random512-40", random_map(512, 512, 0.40, rng), 512, 512, rng)
    write(out, "gen-room512-32", rooms(512, 512, 32, rng), 512, 512, rng)
    write(out, "gen-maze512-8", maze(512, 512, 8, rng), 512, 512, rng)
    write(out, "gen-maze512-2", maze(512, 512, 2, rng), 512, 512, rng)


if __name__ == "__main__":
    main()
