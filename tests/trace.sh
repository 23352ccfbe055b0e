#!/bin/sh
# SPDX-License-Identifier: MIT
# The trace plugin's timeline (XRT_TRACE_JSON): a known program
# (tests/trace/timeline.c: two streams, copies, a host function, an event, a
# rejected copy) leaves a file that is valid JSON (jq and python3), whose spans
# nest on each host thread and follow one another on each stream, each after
# the call that queued it, in the order the program implies; the rejected
# copy is there, xrt's own questions (a pointer lookup, a device) are not,
# copy kinds are named. The same with exit() instead of xrt_shutdown(),
# under ASan, and on every target backend that is available. With XRT_CHECK=streams, the stream-order
# checker's reports are marked on the timeline: a known racy program
# (tests/trace/race.c) gets marks on exactly the two operations of each of
# its two reports, on their calls' and their streams' spans, and the known
# program above, which has no race, gets none, and the same calls as with
# the checker off: the checker's own queries of the backend are not on it
# (XRT_TRACE_LOOKUPS=1 logs them as xrt's own). A tool this needs that is
# missing fails under CI (CI is set) and is skipped elsewhere.
set -eu
B=build
T=$B/trace
MAKE=${MAKE:-make}
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v python3 > /dev/null; then
    [ -z "${CI:-}" ] || fail "python3 is needed (CI installs it)"
    echo "skipped: trace timeline (python3 is not installed)"
    exit 0
fi
$MAKE -s $T/timeline $T/timeline_asan $T/race $B/plugins/libxrt_trace.so $B/plugins/asan/libxrt_trace.so
mkdir -p $T

# check FILE: the timeline of tests/trace/timeline.c, complete.
check() {
    if command -v jq > /dev/null; then jq -e '.traceEvents | length > 0' "$1" > /dev/null || fail "$1: jq rejects it"; fi
    python3 - "$1" <<'PY' || fail "$1: the timeline is wrong (above)"
import json, sys
path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    doc = json.load(f)
ev = doc["traceEvents"]
def bad(msg):
    print("%s: %s" % (path, msg)); sys.exit(1)
calls = [e for e in ev if e.get("cat") == "call"]
ops = [e for e in ev if e.get("cat") == "stream"]
names = {(e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
if doc["otherData"]["tool"] != "xrt trace plugin": bad("otherData")
for e in calls + ops:
    if e["ph"] != "X" or e["dur"] < 0 or e["ts"] < 0: bad("not a span: %r" % e)
    if e["tid"] not in names: bad("track %d has no name" % e["tid"])
# on each host thread, spans nest or follow one another
for tid in {e["tid"] for e in calls}:
    open_ = []
    for e in sorted((e for e in calls if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
        while open_ and open_[-1] <= e["ts"]: open_.pop()
        end = e["ts"] + e["dur"]
        if open_ and end > open_[-1] + 0.002: bad("span %s overlaps its parent on thread %d" % (e["name"], tid))
        open_.append(end)
# the main thread's calls, in program order
main = [e["name"] for e in sorted(calls, key=lambda e: e["ts"]) if names[e["tid"]].startswith("timeline")]
want = ["memcpy_async", "launch_host_func", "event_record", "stream_wait_event", "memcpy_async", "memcpy_async",
        "stream_synchronize", "stream_synchronize", "memcpy"]
it = iter(main)
if not all(w in it for w in want): bad("main thread calls out of order: %s" % main)
if "pointer_get_attributes" in main: bad("xrt's pointer lookup is on the timeline")
if "get_device" in main: bad("xrt's own question (the device of a new allocation) is on the timeline")
seq = {e["args"]["seq"]: e for e in calls}
# each stream: operations one after another, each after the call that queued it
tracks = {}
for e in sorted(ops, key=lambda e: e["ts"]):
    tracks.setdefault(e["tid"], []).append(e)
    call = seq.get(e["args"]["call"])
    if call is None: bad("%s has no call" % e["name"])
    if e["ts"] < call["ts"]: bad("%s starts before %s queued it" % (e["name"], call["name"]))
for tid, spans in tracks.items():
    for a, b in zip(spans, spans[1:]):
        if b["ts"] < a["ts"] + a["dur"] - 0.002: bad("%s and %s overlap on %s" % (a["name"], b["name"], names[tid]))
by = lambda n: [t for t, s in tracks.items() if [x["name"] for x in s] == n]
s1 = by(["copy host-to-device", "host function", "record"])
s2 = by(["wait", "copy device-to-device", "copy device-to-host"])
dflt = [t for t in tracks if names[t].startswith("default stream")]
if len(s1) != 1 or len(s2) != 1: bad("streams: %s" % {names[t]: [x["name"] for x in s] for t, s in tracks.items()})
if [x["name"] for x in tracks[dflt[0]]] != ["copy host-to-device"]: bad("the synchronous copy is not on the default stream")
h2d, fn, rec = tracks[s1[0]]
wait, d2d, d2h = tracks[s2[0]]
if fn["dur"] < 3000: bad("the host function slept 3 ms, its span is %.1f us" % fn["dur"])
# host functions are timed on the host clock, the rest through a reference
# event: across the two, allow the placement error (20 us at most; see trace.c)
if rec["ts"] < fn["ts"] + fn["dur"] - 0.002: bad("the event was recorded before the host function ended")
if wait["ts"] + wait["dur"] < fn["ts"] + fn["dur"] - 20: bad("s2 stopped waiting before the event")
if d2d["ts"] < fn["ts"] + fn["dur"] - 20: bad("the copy after the wait started before the event")
if h2d["args"]["args"].split()[0] != "1048576": bad("copy size: %r" % h2d["args"])
rej = [e for e in ev if e.get("cat") == "rejected"]
if len(rej) != 1 or rej[0]["name"] != "xrt_memcpy rejected" or "overrun its allocation" not in rej[0]["args"]["detail"]:
    bad("the rejected copy: %r" % rej)
if any("not supported" in e.get("args", {}).get("status", "") for e in calls): bad("a call failed as unsupported")
PY
}

# run TARGET FLAVOUR [exit]: the program on the tracer over TARGET.
run() {
    bin=$T/timeline plugin=$B/plugins/libxrt_trace.so
    [ "$2" = asan ] && bin=$T/timeline_asan plugin=$B/plugins/asan/libxrt_trace.so
    out=$T/$1-$2${3:+-$3}.json
    rm -f $out $T/$1.txt
    env XRT_PLUGINS=$plugin XRT_TRACE_BACKEND=$1 XRT_TRACE_JSON=$out XRT_TRACE_FILE=$T/$1.txt XRT_LOG=none \
        ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 $bin ${3:-} || fail "timeline on $1 ($2${3:+, $3})"
    check $out
    grep -q "^trace: rejected: xrt_memcpy: 1048577 bytes at dst 0x[0-9a-f]* overrun its allocation" $T/$1.txt ||
        fail "the text trace lacks the rejected copy"
    grep -q "kind=device-to-device" $T/$1.txt || fail "copy kinds are not named in the text trace"
    ! grep -q "pointer_get_attributes" $T/$1.txt || fail "xrt's pointer lookup is in the text trace"
    ! grep -q "get_device(" $T/$1.txt || fail "xrt's own question (the device of a new allocation) is in the text trace"
    rm -f $T/$1.txt
}

# races FILE: the marks of tests/trace/race.c's two reports, and no other.
races() {
    python3 - "$1" <<'PY' || fail "$1: the races are not marked right (above)"
import json, sys
path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    ev = json.load(f)["traceEvents"]
def bad(msg):
    print("%s: %s" % (path, msg)); sys.exit(1)
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
calls = {e["args"]["seq"]: e for e in ev if e.get("cat") == "call"}
ops = {e["args"]["call"]: e for e in ev if e.get("cat") == "stream"}
marks = [e for e in ev if e.get("cat") == "race"]
main = sorted((e for e in calls.values() if names[e["tid"]].startswith("race")), key=lambda e: e["ts"])
by = lambda n: [e["args"]["seq"] for e in main if e["name"] == n]
copies, sets, syncs = by("memcpy_async"), by("memset_async"), by("memcpy")
if len(copies) != 2 or len(sets) != 2 or len(syncs) != 1: bad("calls: %s" % [e["name"] for e in main])
want = {1: (copies[1], sets[0], "xrt: race: xrt_memcpy_async and xrt_memset_async "),
        2: (sets[1], syncs[0], "xrt: race: xrt_memset_async and xrt_memcpy ")}
if {m["args"]["race"] for m in marks if m["ph"] == "i"} != set(want): bad("races marked: %r" % marks)
for race, (a, b, text) in want.items():
    spans = [(k, side, span[seq]) for k, span in enumerate((calls, ops)) for side, seq in enumerate((a, b))
             if seq in span]
    if len(spans) != 4: bad("race %d: spans of calls %d and %d: %r" % (race, a, b, spans))
    got = sorted((m["args"]["operation"], m["args"]["call"], m["tid"]) for m in marks
                 if m["ph"] == "i" and m["args"]["race"] == race)
    exp = sorted((("earlier", "later")[side], (a, b)[side], s["tid"]) for k, side, s in spans)
    if got != exp: bad("race %d: marks %r, want %r" % (race, got, exp))
    for k, side, s in spans:
        flow = [m for m in marks if m["ph"] == "sf"[side] and m["id"] == 2 * race + k]
        if len(flow) != 1 or flow[0]["tid"] != s["tid"] or not s["ts"] <= flow[0]["ts"] <= s["ts"] + s["dur"]:
            bad("race %d: the arrow's %s end is not in %s (%r)" % (race, ("first", "last")[side], s["name"], flow))
    for m in marks:
        if m["ph"] == "i" and m["args"]["race"] == race and not m["args"]["report"].startswith(text):
            bad("race %d: report %r" % (race, m["args"]["report"]))
if len(marks) != 16: bad("%d marks, want 16" % len(marks))
PY
}

# race TARGET: the racy program's marks; the known program with no race, none.
race() {
    out=$T/$1-race.json
    rm -f $out $T/$1-race.txt
    env XRT_PLUGINS=$B/plugins/libxrt_trace.so XRT_TRACE_BACKEND=$1 XRT_TRACE_JSON=$out XRT_CHECK=streams \
        XRT_CHECK_EXITCODE=0 XRT_LOG=none $T/race 2> $T/$1-race.txt || fail "the racy program on $1"
    [ "$(grep -c '^xrt: race:' $T/$1-race.txt)" = 2 ] || fail "the racy program on $1: not two reports"
    races $out
    out=$T/$1-clean.json
    rm -f $out $T/$1-clean.txt
    env XRT_PLUGINS=$B/plugins/libxrt_trace.so XRT_TRACE_BACKEND=$1 XRT_TRACE_JSON=$out XRT_CHECK=streams \
        XRT_TRACE_FILE=$T/$1-clean.txt XRT_TRACE_LOOKUPS=1 XRT_LOG=none $T/timeline ||
        fail "timeline on $1 under XRT_CHECK=streams"
    grep -q "^trace: xrt's own stream_get_flags(" $T/$1-clean.txt ||
        fail "timeline on $1: XRT_TRACE_LOOKUPS=1 does not log the checker's own questions"
    check $out
    ! grep -q '"cat":"race"' $out || fail "timeline on $1: a race is marked where there is none"
    python3 - $T/$1-plain.json $out <<'PY' || fail "timeline on $1: the checker's own queries are on it (above)"
import json, sys
def calls(path):
    with open(path, encoding="utf-8") as f:
        return sorted(e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "call")
off, on = calls(sys.argv[1]), calls(sys.argv[2])
if off != on: print("calls with the checker off %s, on %s" % (off, on)); sys.exit(1)
PY
    rm -f $T/$1-race.txt $T/$1-clean.txt
}

for target in cpu cuda hip; do
    if ! XRT_BACKEND=$target $B/examples/xrt_info > /dev/null 2>&1; then
        echo "skipped: trace timeline on $target (unavailable here)"
        continue
    fi
    run $target plain
    run $target plain exit
    run $target asan
    run $target asan exit
    race $target
done
echo "trace timeline: ok"
