#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw a flame graph (SVG) from folded stacks.

    scripts/flamegraph.py TITLE < FOLDED > OUT.svg

FOLDED has one line per distinct stack, "ROOT;...;LEAF COUNT" (what
userland-tests/fold.awk makes of perf script's output).  Each frame is a
box as wide as the samples whose stack goes through it, callers below
their callees, siblings in name order; hovering a box shows its name,
samples and share.  Small on purpose: what make demo needs, no options.
"""
import hashlib
import html
import sys

WIDTH = 1200
ROW = 17
PAD_TOP = 40
PAD_SIDE = 10
MIN_WIDTH = 0.5     # boxes narrower than this (pixels) are left out
CHAR = 6.6          # average width of a character at font-size 11


def parse(lines):
    root = {"name": "all", "count": 0, "kids": {}}
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        stack, _, count = line.rpartition(" ")
        try:
            n = int(count)
        except ValueError:
            continue
        node = root
        node["count"] += n
        for frame in stack.split(";"):
            node = node["kids"].setdefault(
                frame, {"name": frame, "count": 0, "kids": {}})
            node["count"] += n
    return root


def depth(node):
    return 1 + max((depth(k) for k in node["kids"].values()), default=0)


def color(name):
    h = int(hashlib.md5(name.encode()).hexdigest()[:6], 16)
    r = 205 + h % 50
    g = 80 + (h >> 8) % 130
    b = (h >> 16) % 55
    return "rgb(%d,%d,%d)" % (r, g, b)


def boxes(node, x, level, scale, total, out):
    w = node["count"] * scale
    if w < MIN_WIDTH:
        return
    out.append((x, level, w, node["name"], node["count"],
                100.0 * node["count"] / total))
    for kid in sorted(node["kids"].values(), key=lambda k: k["name"]):
        boxes(kid, x, level + 1, scale, total, out)
        x += kid["count"] * scale


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "Flame graph"
    root = parse(sys.stdin)
    total = max(root["count"], 1)
    levels = depth(root)
    height = PAD_TOP + levels * ROW + 2 * PAD_SIDE
    scale = (WIDTH - 2 * PAD_SIDE) / total
    out = []
    boxes(root, PAD_SIDE, 0, scale, total, out)
    w = sys.stdout.write
    w('<?xml version="1.0" standalone="no"?>\n')
    w('<svg version="1.1" width="%d" height="%d" '
      'xmlns="http://www.w3.org/2000/svg" '
      'font-family="Verdana, sans-serif" font-size="11">\n'
      % (WIDTH, height))
    w('<rect x="0" y="0" width="100%" height="100%" fill="#f8f8f0"/>\n')
    w('<text x="%d" y="24" font-size="15" text-anchor="middle">%s '
      '(%d samples)</text>\n' % (WIDTH // 2, html.escape(title), total))
    for x, level, bw, name, count, pct in out:
        y = height - PAD_SIDE - (level + 1) * ROW
        label = name if level else "all"
        w('<g><title>%s (%d samples, %.2f%%)</title>'
          % (html.escape(label), count, pct))
        w('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" '
          'rx="2"/>' % (x, y, bw, ROW - 1,
                        color(name) if level else "rgb(220,220,220)"))
        fit = int((bw - 6) / CHAR)
        if fit >= 3:
            text = label if len(label) <= fit else label[:fit - 2] + ".."
            w('<text x="%.1f" y="%d">%s</text>'
              % (x + 3, y + ROW - 5, html.escape(text)))
        w('</g>\n')
    w('</svg>\n')


if __name__ == "__main__":
    main()
