"""gnuplot charts of a policy sweep, and index.md with one reading per chart.

make_plots() writes DIR/plots/*.png (plus the .gp scripts and data files
that made them, so a chart can be re-drawn or tweaked by hand) and
returns what index.md lists. Standard library only; gnuplot does the
drawing.
"""

import math
import os
import shutil
import subprocess

import inputlat_stats as st

# One colour per policy, the same on every chart (no pale yellow: it vanishes).
POLICY_COLOURS = ["#000000", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                  "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
# Twelve distinguishable colours, one per hop (Tableau 20, darker half).
HOP_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a"]


def human_us(us):
    """812 µs, 3.14 ms, 1.20 s."""
    if us is None:
        return "-"
    if us < 1000:
        return f"{us:.0f} µs"
    if us < 1e6:
        return f"{us / 1e3:.3g} ms"
    return f"{us / 1e6:.3g} s"


class Gnuplot:
    """Runs gnuplot scripts into PNGs; pngcairo when it is there."""

    def __init__(self, plotdir):
        self.exe = shutil.which("gnuplot")
        self.dir = plotdir
        self.cairo = self.exe is not None and subprocess.run(
            [self.exe, "-e", "set terminal pngcairo"], capture_output=True).returncode == 0
        self.us = "µs" if self.cairo else "us"

    def terminal(self, width=960, height=600):
        if self.cairo:
            return f"set terminal pngcairo size {width},{height} noenhanced font 'sans,11'"
        return f"set terminal png size {width},{height} noenhanced"

    def draw(self, name, body, width=960, height=600):
        """Writes plots/NAME.gp and runs it; returns the PNG's path or None."""
        script = os.path.join(self.dir, name + ".gp")
        with open(script, "w", encoding="utf-8") as f:
            f.write(f"set encoding utf8\n{self.terminal(width, height)}\n"
                    f"set output '{name}.png'\nset grid\n{body}\n")
        r = subprocess.run([self.exe, name + ".gp"], cwd=self.dir, capture_output=True, text=True)
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["?"])[-1]
            raise RuntimeError(f"gnuplot {name}.gp failed: {last}")
        return os.path.join(self.dir, name + ".png")

    def data(self, name, rows):
        """Writes plots/data/NAME.dat (whitespace columns); returns its relative path."""
        os.makedirs(os.path.join(self.dir, "data"), exist_ok=True)
        rel = f"data/{name}.dat"
        with open(os.path.join(self.dir, rel), "w", encoding="utf-8") as f:
            for row in rows:
                f.write(" ".join(str(v) for v in row) + "\n")
        return rel


def _q(s):
    """A gnuplot single-quoted string."""
    return "'" + str(s).replace("'", "''") + "'"


def _with_data(cells, scenario, policies):
    return [p for p in policies if cells.get((p, scenario), {}).get("merged")]


def _policy_lines(policies):
    """Linetype per policy, by its position in the whole sweep's list."""
    return "\n".join(f"set linetype {i + 1} lc rgb '{POLICY_COLOURS[i % len(POLICY_COLOURS)]}' lw 2"
                      f"{' dt 2' if i >= len(POLICY_COLOURS) else ''}" for i in range(len(policies)))


def _xrange(cells, scenario, pols):
    ubs = [ub for p in pols for ub, _ in cells[(p, scenario)]["merged"]]
    lo, hi = min(ubs) * 0.8, max(ubs) * 1.25
    # Labels at 1-2-5 steps: a log axis over one decade otherwise shows one number.
    tics = [m * 10 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            for m in (1, 2, 5) if lo <= m * 10 ** e <= hi]
    return (f"set xrange [{lo:g}:{hi:g}]\n"
            "set xtics (" + ", ".join(f"'{t:.0f}' {t:g}" for t in tics) + ")")


def cdf_chart(gp, cells, scenario, policies):
    pols = _with_data(cells, scenario, policies)
    if not pols:
        return None
    plots = []
    for p in pols:
        points = st.cdf_points(cells[(p, scenario)]["merged"])
        rel = gp.data(f"cdf-{scenario}-{p}", [(points[0][0], 0)] + points)
        plots.append(f"{_q(rel)} using 1:2 with steps lt {policies.index(p) + 1} title {_q(p)}")
    name = f"cdf-{scenario}"
    gp.draw(name, f"""{_policy_lines(policies)}
{_xrange(cells, scenario, pols)}
set title {_q(f'Processing latency CDF, scenario {scenario} (all rounds merged)')}
set logscale x
set xlabel {_q(f'processing latency, mouse-down to page-flip request ({gp.us}, log scale)')}
set ylabel 'fraction of mouse-downs at or below x'
set yrange [0:1.02]
set key bottom right box opaque
plot {', '.join(plots)}""")

    # The same ratios as summary.md (mean of per-round p50s over cfs's).
    ratios = [f"{p} {c['p50_ratio']:.2f}×" + (" (no clear difference)" if c["p50_lo"] is not None
                                               and c["p50_lo"] <= 1 <= c["p50_hi"] else "")
              for p in pols if p != "cfs" and (c := cells[(p, scenario)]).get("p50_ratio") is not None]
    worst = max(pols, key=lambda p: cells[(p, scenario)]["proc_p99_us"])
    reading = f"under {scenario}, "
    if ratios:
        reading += f"p50 relative to cfs: {', '.join(ratios)}; "
    else:
        best = min(pols, key=lambda p: cells[(p, scenario)]["proc_p50_us"])
        reading += f"lowest p50: {best} ({human_us(cells[(best, scenario)]['proc_p50_us'])}); "
    reading += f"highest p99: {worst} ({human_us(cells[(worst, scenario)]['proc_p99_us'])})."
    return name, f"Processing latency CDF, {scenario}", reading


def histogram_chart(gp, cells, scenario, policies):
    pols = _with_data(cells, scenario, policies)
    if not pols:
        return None
    plots = []
    for p in pols:
        bins = st.log_rebin(cells[(p, scenario)]["merged"])
        rows = [(lo, hi, 100 * frac) for lo, hi, frac in bins] + [(bins[-1][1], bins[-1][1], 0)]
        rel = gp.data(f"hist-{scenario}-{p}", rows)
        plots.append(f"{_q(rel)} using 1:3 with steps lt {policies.index(p) + 1} title {_q(p)}")
    name = f"hist-{scenario}"
    gp.draw(name, f"""{_policy_lines(policies)}
{_xrange(cells, scenario, pols)}
set title {_q(f'Processing latency histogram, scenario {scenario} (all rounds merged)')}
set logscale x
set xlabel {_q(f'processing latency ({gp.us}, log scale, 20 bins per decade)')}
set ylabel 'share of mouse-downs per bin (%)'
set yrange [0:*]
set key top right box opaque
plot {', '.join(plots)}""")

    def spread(p):
        c = cells[(p, scenario)]
        return c["proc_p99_us"] / c["proc_p50_us"] if c["proc_p50_us"] else float("inf")
    narrow, wide = min(pols, key=spread), max(pols, key=spread)
    reading = (f"under {scenario}, the tail (p99/p50) is tightest for {narrow} "
               f"({spread(narrow):.2f}×) and longest for {wide} ({spread(wide):.2f}×).")
    return name, f"Processing latency histogram, {scenario}", reading


def hops_chart(gp, cells, scenario, policies):
    pols = [p for p in policies if cells.get((p, scenario), {}).get("hop_p50_us")]
    if not pols:
        return None
    # Hops 1-11 add up to processing latency; hop 12 is the wait for vblank,
    # up to a frame, which would dwarf the rest.
    hops = sorted({k for p in pols for k in cells[(p, scenario)]["hop_p50_us"] if k < 12})
    names = {}
    for p in pols:
        for k, (n, _) in cells[(p, scenario)]["hop_p50_us"].items():
            names.setdefault(k, n)
    header = ["policy"] + ['"%d %s"' % (k, names[k].replace('"', "")) for k in hops]
    rows = [header]
    for p in pols:
        h = cells[(p, scenario)]["hop_p50_us"]
        rows.append([p] + [h[k][1] if k in h else 0 for k in hops])
    rel = gp.data(f"hops-{scenario}", rows)
    colours = "\n".join(f"set linetype {i + 1} lc rgb '{c}'" for i, c in enumerate(HOP_COLOURS))
    name = f"hops-{scenario}"
    gp.draw(name, f"""{colours}
set title {_q(f'Where the time goes: median latency of hops 1-11 (processing), scenario {scenario}')}
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb 'black'
set boxwidth 0.6
set key outside right top title 'hop (stamp k - stamp k-1)'
set xlabel 'policy'
set ylabel {_q(f'median per-hop latency ({gp.us}), stacked')}
set yrange [0:*]
set grid noxtics ytics
plot for [i=2:{len(hops) + 1}] {_q(rel)} using i:xtic(1) title columnheader(i)""", width=1100)

    policy, hop, value = max(((p, k, v) for p in pols
                              for k, (_, v) in cells[(p, scenario)]["hop_p50_us"].items() if k in hops),
                             key=lambda t: t[2])
    total = sum(v for k, (_, v) in cells[(policy, scenario)]["hop_p50_us"].items() if k in hops)
    reading = (f"under {scenario}, the largest median hop is {hop} ({names[hop]}) with {policy}: "
               f"{human_us(value)} of its {human_us(total)} stacked total "
               f"({100 * value / total:.0f}%).")
    return name, f"Median per-hop latency, {scenario}", reading


def canary_chart(gp, cells, scenarios, policies):
    stalls = {(p, s): cells[(p, s)]["canary_max_stall_ms"] for p in policies for s in scenarios
              if cells.get((p, s), {}).get("canary_max_stall_ms") is not None}
    if not stalls:
        return None
    rows = [["policy"] + [f'"{s}"' for s in scenarios]]
    for p in policies:
        rows.append([p] + [stalls.get((p, s), "-") for s in scenarios])
    rel = gp.data("canary", rows)
    positive = [v for v in stalls.values() if v > 0]
    logy = positive and max(positive) / min(positive) > 50
    yrange = (f"set logscale y\nset yrange [{min(positive) / 2:g}:{max(positive) * 2:g}]" if logy
              else "set yrange [0:*]")
    name = "canary"
    gp.draw(name, f"""set title 'Canary (CFS, wakes every 1 ms): longest scheduling stall per policy'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb 'black'
set datafile missing '-'
set key top left box opaque title 'scenario'
set xlabel 'policy'
set ylabel 'longest canary stall (ms{", log scale" if logy else ""})'
{yrange}
set grid noxtics ytics
plot for [i=2:{len(scenarios) + 1}] {_q(rel)} using i:xtic(1) title columnheader(i)""")

    (wp, ws), (bp, bs) = max(stalls, key=stalls.get), min(stalls, key=stalls.get)
    reading = (f"the longest canary stall is {stalls[(wp, ws)]:.1f} ms ({wp} under {ws}); "
               f"the shortest is {stalls[(bp, bs)]:.1f} ms ({bp} under {bs}).")
    return name, "Canary stall per policy", reading


def make_plots(outdir, cells, policies, scenarios):
    """Draws every chart; returns ([(png, title, reading)], [problems])."""
    plotdir = os.path.join(outdir, "plots")
    os.makedirs(plotdir, exist_ok=True)
    gp = Gnuplot(plotdir)
    if gp.exe is None:
        return [], ["gnuplot not found: install gnuplot-nox for the charts"]
    charts, problems = [], []
    jobs = [(f, s) for s in scenarios for f in (cdf_chart, histogram_chart, hops_chart)]
    for f, s in jobs + [(canary_chart, None)]:
        try:
            made = (f(gp, cells, scenarios, policies) if s is None
                    else f(gp, cells, s, policies))
        except (RuntimeError, OSError) as e:
            problems.append(str(e))
            continue
        if made is None:
            problems.append(f"{f.__name__.replace('_chart', '')} chart"
                            f"{' for ' + s if s else ''}: no data in the run reports")
            continue
        name, title, reading = made
        charts.append((f"plots/{name}.png", title, reading))
    return charts, problems


def write_index(path, charts, problems, header_lines):
    lines = ["# inputlat policy sweep: charts", ""] + [f"- {h}" for h in header_lines]
    lines += ["", "Table: [summary.md](summary.md) ([CSV](summary.csv)).", ""]
    for png, title, reading in charts:
        lines += [f"## {title}", "", f"![{title}]({png})", "", f"[{png}]({png}): {reading}", ""]
    if problems:
        lines += ["## Not drawn", ""] + [f"- {p}" for p in problems] + [""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
