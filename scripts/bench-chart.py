#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# The chart of a `make bench` run: per case, the ratio of the two drivers
# (sroce/rxe for bandwidth, rxe/sroce for latency: right of 1.0 is better
# for sroce) as a horizontal bar per kernel, on a log2 axis so that 0.5x
# and 2x are as far from 1.0.  Standard library only: the test bed has no
# plotting package.
#
#   bench-chart.py DIR/medians DIR/chart.svg
#
# DIR/medians (scripts/bench.sh) has one line per kernel and case:
#   KERNEL CASE UNIT A B RATIO A_MICS B_MICS MICS_RATIO
# where a figure is "-" or "fail" when there is none.
import math
import sys
from xml.sax.saxutils import escape

# One colour per kernel, in the order they first appear.
COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b']


def number(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return v if v > 0 and math.isfinite(v) else None


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: bench-chart.py MEDIANS OUT.svg')
    kernels, cases, ratio, unit = [], [], {}, {}
    with open(sys.argv[1], encoding='utf-8') as f:
        for line in f:
            w = line.split()
            if len(w) < 6:
                continue
            k, c = w[0], w[1]
            if k not in kernels:
                kernels.append(k)
            if c not in cases:
                cases.append(c)
            unit[c] = w[2]
            ratio[k, c] = number(w[5])

    vals = [v for v in ratio.values() if v]
    # Axis: whole powers of two around every ratio, at least 1/4..4.
    lo = min([0.25] + vals)
    hi = max([4.0] + vals)
    e_lo, e_hi = math.floor(math.log2(lo)), math.ceil(math.log2(hi))

    bar, gap = 12, 10
    left, right, top = 190, 60, 70
    plot_w = 560
    group = bar * len(kernels) + gap
    height = top + group * len(cases) + 50
    width = left + plot_w + right

    def x(v):
        return left + (math.log2(v) - e_lo) / (e_hi - e_lo) * plot_w

    out = []
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
               f'height="{height}" font-family="sans-serif" font-size="11">')
    out.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    out.append(f'<text x="{left}" y="20" font-size="14" font-weight="bold">'
               'sroce against rdma_rxe, per case and kernel</text>')
    out.append(f'<text x="{left}" y="36">ratio of medians: sroce/rxe for '
               'MB/s, rxe/sroce for latency (us); right of 1.0 is better '
               'for sroce</text>')
    # Legend.
    for i, k in enumerate(kernels):
        lx = left + i * 90
        out.append(f'<rect x="{lx}" y="46" width="10" height="10" '
                   f'fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(f'<text x="{lx + 14}" y="55">{escape(k)}</text>')
    # Every other case on a grey band, under the grid.
    bottom = top + group * len(cases)
    for j in range(1, len(cases), 2):
        out.append(f'<rect x="0" y="{top + j * group - gap / 2}" '
                   f'width="{width}" height="{group}" fill="#f4f4f4"/>')
    # Grid at every power of two, labelled.
    for e in range(e_lo, e_hi + 1):
        v = 2.0 ** e
        gx = x(v)
        label = f'{v:g}x' if v >= 1 else f'1/{2 ** -e:g}x'
        out.append(f'<line x1="{gx:.1f}" y1="{top - 4}" x2="{gx:.1f}" '
                   f'y2="{bottom}" stroke="#ddd"/>')
        out.append(f'<text x="{gx:.1f}" y="{bottom + 14}" '
                   f'text-anchor="middle">{label}</text>')
    # Cases: a label, then a bar per kernel from 1.0 to the ratio.
    for j, c in enumerate(cases):
        y0 = top + j * group
        out.append(f'<text x="{left - 8}" y="{y0 + bar * len(kernels) / 2 + 4}" '
                   f'text-anchor="end">{escape(c)} ({escape(unit[c])})</text>')
        for i, k in enumerate(kernels):
            y = y0 + i * bar
            v = ratio.get((k, c))
            if not v:
                out.append(f'<text x="{x(1) + 4:.1f}" y="{y + bar - 3}" '
                           f'fill="#888">no ratio ({escape(k)})</text>')
                continue
            x1, x2 = sorted((x(1), x(v)))
            out.append(f'<rect x="{x1:.1f}" y="{y + 1}" width="{max(x2 - x1, 1):.1f}" '
                       f'height="{bar - 2}" fill="{COLOURS[i % len(COLOURS)]}">'
                       f'<title>{escape(c)} on {escape(k)}: {v:.2f}</title></rect>')
            tx, anchor = (x2 + 3, 'start') if v >= 1 else (x1 - 3, 'end')
            out.append(f'<text x="{tx:.1f}" y="{y + bar - 3}" font-size="9" '
                       f'text-anchor="{anchor}">{v:.2f}</text>')
    out.append(f'<line x1="{x(1):.1f}" y1="{top - 4}" x2="{x(1):.1f}" '
               f'y2="{bottom}" stroke="black" stroke-width="1.5"/>')
    out.append(f'<text x="{left + plot_w / 2}" y="{bottom + 32}" '
               'text-anchor="middle">ratio (log2 scale)</text>')
    out.append('</svg>')
    with open(sys.argv[2], 'w', encoding='utf-8') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
