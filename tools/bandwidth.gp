# Bandwidth against copy size from the CSV of tools/bandwidth --csv:
# one panel per mode (sync, async), one line per transfer (the median, with
# the min-max range of the batches as error bars); colour is the direction,
# a dashed line pageable host memory. The title and a footer carry the
# device, host, date and versions of the CSV's "# key: value" lines.
# Device-to-device pairs (rows whose peer is another device) are not drawn.
# Writes OUT.png (1280x720) and OUT.svg.
#   gnuplot -e "csv='build/bandwidth.csv'; out='build/bandwidth'" tools/bandwidth.gp
if (!exists("csv")) csv = "build/bandwidth.csv"
if (!exists("out")) out = "build/bandwidth"

set datafile separator ","
# backend,device,peer,direction,memory,mode,bytes,gbps_min,gbps_median,gbps_max,iterations
rows(mode) = int(system(sprintf("grep -c ',%s,[0-9]' '%s' || true", mode, csv)))
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
where = meta("backend") . " device " . meta("device")
footer = meta("host") . ", " . meta("date") . "; " . meta("versions")
if (rows("sync") + rows("async") == 0) { print "bandwidth.gp: no measurements in ", csv; exit status 1 }
stats csv using 7:10 nooutput
set xrange [STATS_min_x / 1.3:STATS_max_x * 1.3]
set yrange [0:STATS_max_y * 1.08]

N = 9
dirs = "h2d h2d d2h d2h bidir bidir d2d h2h h2h"
mems = "pinned pageable pinned pageable pinned pageable device pinned pageable"
names = "'H2D pinned' 'H2D pageable' 'D2H pinned' 'D2H pageable' 'Bidir pinned' 'Bidir pageable' 'D2D' 'H2H pinned' 'H2H pageable'"
colour(i) = word("#1f77b4 #1f77b4 #d62728 #d62728 #ff7f0e #ff7f0e #2ca02c #7f3c8d #7f3c8d", i)
dash(i) = word(mems, i) eq "pageable" ? 2 : 1
mine(i, mode) = strcol(2) eq strcol(3) && strcol(4) eq word(dirs, i) && strcol(5) eq word(mems, i) && strcol(6) eq mode
pick(i, mode, col) = mine(i, mode) ? column(col) : NaN
count(i) = int(system(sprintf("grep -c ',%s,%s,' '%s' || true", word(dirs, i), word(mems, i), csv)))
shown = ""
do for [i = 1:N] { shown = shown . (count(i) > 0 ? " 1" : " 0") }
legend(i) = word(shown, i) eq "1" ? word(names, i) : ""
panels = (rows("sync") > 0 ? "sync" : "") . " " . (rows("async") > 0 ? "async" : "")
titles = "'sync: xrt\\_memcpy' 'async: xrt\\_memcpy\\_async, back to back on one stream'"

# Axes of a panel (the legend below the panels turns them off).
axes = 'set xtics ("1 B" 1, "4 B" 4, "16 B" 16, "64 B" 64, "256 B" 256, "1 KiB" 1024, "4 KiB" 4096, \
    "16 KiB" 16384, "64 KiB" 65536, "256 KiB" 262144, "1 MiB" 1048576, "4 MiB" 4194304, \
    "16 MiB" 16777216, "64 MiB" 67108864, "256 MiB" 268435456, "1 GiB" 1073741824, \
    "4 GiB" 4294967296, "16 GiB" 17179869184, "64 GiB" 68719476736, "256 GiB" 274877906944); \
    set ytics; set tics nomirror; set border 3; set grid xtics ytics lc rgb "#dddddd"; \
    set xlabel "bytes per copy"; set ylabel "GB/s (10^9 bytes per second)"; unset key'
set logscale x 2
set style data linespoints
set style function linespoints

do for [t in "png svg"] {
    if (t eq "png") { set terminal pngcairo size 1280,720 font "sans,11" linewidth 1.5 }
    else { set terminal svg size 1280,720 font "sans,11" linewidth 1.5 background "white" }
    set output out . "." . t
    set multiplot title "xrt bandwidth: " . where . "\n" . footer noenhanced font ",13"
    do for [p = 1:words(panels)] {
        mode = word(panels, p)
        @axes
        set title word(titles, mode eq "sync" ? 1 : 2)
        set lmargin at screen 0.06 + (p - 1) * 0.94 / words(panels)
        set rmargin at screen 0.06 + p * 0.94 / words(panels) - 0.04
        set tmargin at screen 0.85
        set bmargin at screen 0.2
        plot for [i = 1:N] csv using 7:(pick(i, mode, 9)):(pick(i, mode, 8)):(pick(i, mode, 10)) \
            with yerrorlines title word(names, i) lc rgb colour(i) dt dash(i) pt 7 ps 0.6
    }
    # the legend: an empty plot across the bottom with its key in one row
    set lmargin at screen 0.02
    set rmargin at screen 0.98
    set tmargin at screen 0.09
    set bmargin at screen 0.03
    unset title; unset xlabel; unset ylabel; unset tics; unset grid; unset border
    set key center center horizontal maxrows 1 reverse Left samplen 3 width 1
    plot for [i = 1:N] NaN title legend(i) lc rgb colour(i) dt dash(i) pt 7 ps 0.6
    unset multiplot
    set output
}
