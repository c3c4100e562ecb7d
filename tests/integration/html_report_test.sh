#!/usr/bin/env bash
# The HTML report in a real browser: the main job (llama70b explore), a comm sweep, a --baseline run, a compare, the
# platform check, a verdict of an imported log and a history with a change point are written with -o FILE.html and
# opened in one headless Chromium (Debian's chromium, installed by scripts/install-deps.sh; driven by
# chromium_pages.py). Each page must load without a console message or script error, and draw every chart canvas (its
# own self-test, #selftest, counts drawn canvases and pixels) with a plot area its labels leave room for (the
# platform check's plan: long reference labels, horizontal bars); a screenshot of each is kept under ARTIFACTS.
# The explore's log axes must label more than their decades, a budget and a deadline must be drawn as lines on the
# charts they bound, price providers' lines must be each provider's own (the days they share one line, named for all),
# and `dgxhost report` must render a saved results file (an old one of ABI 1.0, and a run's own JSON as the run drew
# it).
# Usage: html_report_test.sh DGXHOST ARTIFACTS. Exit 77 (skipped) without chromium.
set -euo pipefail
dgxhost=$1
artifacts=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIPPED: chromium is not installed (scripts/install-deps.sh installs Debian's chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"

echo "== writing the reports"
"$dgxhost" --plugin llama70b -q -o "$work/explore.html" > /dev/null
"$dgxhost" --plugin all_reduce -e 4M -q -o "$work/comm.html" > /dev/null
"$dgxhost" --plugin llama70b --mode project --set gpus=64 --set precision=fp8 --set parallel.tp=4 \
  --set parallel.pp=8 --set parallel.cp=1 --set parallel.vp=5 --set train.gbs=256 --baseline published -q \
  -o "$work/baseline.html" > /dev/null
# Frameworks and providers compared: each framework (and provider) is its own series, one recommendation.
"$dgxhost" --plugin llama70b --set framework=nemo-24.07,nemo-26.02.01 --set precision=fp8 \
  --set explore.gpus=512,1024,2048 -q -o "$work/frameworks.html" > /dev/null
"$dgxhost" --plugin llama70b --set cost.provider=aws,gcp,nebius --set precision=fp8 \
  --set explore.gpus=512,1024,2048 -q -o "$work/providers.html" > /dev/null
# A budget and a deadline: lines on the charts of cost and days. Written as JSON too, which `dgxhost report` draws
# again; and a results file of an older dgxhost (ABI 1.0: no charts declared).
limits=(--plugin llama70b --set explore.budget_usd=3000000 --set explore.deadline_days=30 --set precision=fp8
  --set explore.gpus=512,1024,2048 -q)
"$dgxhost" "${limits[@]}" -o "$work/limits.html" > /dev/null
"$dgxhost" "${limits[@]}" -o "$work/limits.json" > /dev/null
"$dgxhost" report "$work/limits.json" -o "$work/rerendered.html" > /dev/null
"$dgxhost" report "$(dirname "$0")/data/mpijob-results.json" -o "$work/old.html" > /dev/null
# A serving explore with its objectives: each SLO a line on the latency chart's axis of its metric.
"$dgxhost" --plugin llm-inference --mode explore --set model=llama3.1-8b --set system=h100-sxm \
  --set serve.slo.ttft=0.5 --set serve.slo.tpot=0.02 -q -o "$work/serving.html" > /dev/null
quick=(--set runner.min_time=0.02 --set runner.min_samples=9 --set runner.max_time=2 -q)
"$dgxhost" --plugin spin --set spin.us=500 "${quick[@]}" -o "$work/a.json" > /dev/null
"$dgxhost" --plugin spin --set spin.us=600 "${quick[@]}" -o "$work/b.json" > /dev/null
"$dgxhost" compare "$work/a.json" "$work/b.json" -o "$work/compare.html" > /dev/null || [ $? -eq 5 ]
# The platform check: its plan without a GPU (exit 4), the merged report of its steps with one.
rc=0
"$dgxhost" --plugin platform-check -q -o "$work/check.html" > /dev/null 2>&1 || rc=$?
case $rc in 0 | 4 | 5) ;; *) echo "platform-check exited $rc"; exit 1 ;; esac
# A real run's verdict: two imported logs, each against its projection band and the published reference (exit 5 when
# one is slower than its configuration should run).
data="$(dirname "$0")/../core/import/data"
rc=0
"$dgxhost" verdict "$data/megatron-lm/llama70b_tp4pp4.log" --set system=h100-sxm --set model=llama3.1-70b -q \
  -o "$work/verdict.html" > /dev/null || rc=$?
case $rc in 0 | 5) ;; *) echo "verdict exited $rc"; exit 1 ;; esac
# A history: fourteen nightly results in a store, the bandwidth 10% lower from night 11 on (exit 5: a regression),
# drawn over time with the change point marked.
python3 - "$work" <<'PY'
import json, sys
for n in range(1, 15):
    busbw = (432.0 if n >= 11 else 480.0) + (n % 3 - 1) * 0.8
    doc = {"schema": "dgx.results/1", "status": {"exit_code": 0, "ok": True},
           "context": {"time": "2026-11-%02dT02:00:00Z" % n, "host": {"hostname": "gpu-node-17"},
                       "plugin": {"name": "comm"}, "workload": "all_reduce", "config": {}},
           "results": [{"workload": "all_reduce", "plugin": "comm", "mode": "measured", "label": "1 GiB",
                        "config": {"comm.bytes": 1073741824}, "metrics": {"busbw": {"value": busbw, "unit": "GB/s"}}}]}
    json.dump(doc, open("%s/night-%d.json" % (sys.argv[1], n), "w"))
PY
"$dgxhost" store add --store "$work/store.sqlite" "$work"/night-*.json > /dev/null
rc=0
"$dgxhost" history --store "$work/store.sqlite" --detect -o "$work/history.html" > /dev/null || rc=$?
case $rc in 5) ;; *) echo "history --detect exited $rc, not 5"; exit 1 ;; esac

# Every page in one headless Chromium, offline, with a fresh profile, as CI can run it as root without a display
# (chromium_pages.py): its self-test (#selftest), its console messages and a screenshot.
pages=(explore comm baseline compare check frameworks providers verdict history limits rerendered old serving)
files=()
for page in "${pages[@]}"; do files+=("$work/$page.html"); done
failed=0
if ! python3 "$(dirname "$0")/chromium_pages.py" "$browser" "$work" "$artifacts" "${files[@]}"; then
  echo "headless Chromium failed"
  exit 1
fi
# The series each compared page must draw in its days chart, and a single recommended star.
expected_series() {
  case $1 in
    frameworks) echo '["fp8 nemo-24.07", "fp8 nemo-26.02.01"]' ;;
    *) echo '' ;;
  esac
}

for page in "${pages[@]}"; do
  html="$work/$page.html"
  result=$(cat "$work/$page.selftest")
  console=$(wc -l < "$work/$page.console")
  echo "$page: self-test $result, console messages $console"
  if [ -z "$result" ]; then
    echo "  no self-test result: the page's script did not run"; failed=1
  elif ! python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
ok = r["charts"] > 0 and r["drawn"] == r["charts"] and not r["blank"] and not r["errors"]
sys.exit(0 if ok else 1)
PY
  then
    echo "  not every chart was drawn, or the page reported errors"; failed=1
  fi
  expected=$(expected_series "$page")
  if [ -n "$expected" ] && ! python3 - "$result" "$expected" <<'PY'
import json, sys
r, expected = json.loads(sys.argv[1]), json.loads(sys.argv[2])
days = next(c for c in r["datasets"] if c["title"] == "Days to train against GPU count")
labels = [s["label"] for s in days["series"]]
stars = sum(s["points"] for c in r["datasets"] for s in c["series"] if s["label"] == "recommended")
ok = labels == expected and all(s["points"] == 3 for s in days["series"]) and stars == 1
if not ok:
    print("  days chart series", days["series"], "recommended points", stars, "expected", expected)
sys.exit(0 if ok else 1)
PY
  then
    echo "  the compared series are not one line each, or there is not exactly one recommendation"; failed=1
  fi
  # The history: the metric over time, one line for the series and the change point marked on it.
  if [ "$page" = history ] && ! python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
chart = next((c for c in r["datasets"] if c["title"] == "busbw over time"), None)
ok = chart is not None and [(s["label"], s["points"]) for s in chart["series"]] == [
    ("1 GiB on gpu-node-17", 14), ("change point", 1)]
if not ok:
    print("  history chart", chart)
sys.exit(0 if ok else 1)
PY
  then
    echo "  the history chart does not draw the series and its change point"; failed=1
  fi
  # Log axes label more than their decades (Chart.js alone kept only 10, 100): three values at least, one of them
  # not a power of ten.
  if ! python3 - "$result" <<'PY'
import json, re, sys
r = json.loads(sys.argv[1])
decade = re.compile(r"^\$?(0\.0*1|10*)[kMBT]?$")
bad = [(c["title"], name, a["labels"]) for c in r["datasets"] for name, a in c["axes"].items()
       if a["type"] == "logarithmic" and (len(a["labels"]) < 3 or all(decade.match(l) for l in a["labels"]))]
for b in bad:
    print("  a log axis labelled only at its decades:", b)
sys.exit(1 if bad else 0)
PY
  then
    failed=1
  fi
  # The budget and the deadline: a line on each chart whose axis they bound, drawn inside the plot, also when the
  # page is rendered again from the run's JSON.
  if [ "$page" = limits ] || [ "$page" = rerendered ]; then
    if ! python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
want = {"Days to train against GPU count": ["deadline 30 days (explore.deadline_days)"],
        "Cost against GPU count": ["budget $3.00M (explore.budget_usd)"],
        "Pareto front: days against cost": ["budget $3.00M (explore.budget_usd)",
                                            "deadline 30 days (explore.deadline_days)"]}
bad = []
for title, labels in want.items():
    chart = next((c for c in r["datasets"] if c["title"] == title), None)
    drawn = chart and [l["label"] for l in chart["lines"] if l.get("limit") and l["drawn"]]
    if drawn != labels:
        bad.append((title, chart and chart["lines"]))
for b in bad:
    print("  limits not drawn:", b)
sys.exit(1 if bad else 0)
PY
    then
      failed=1
    fi
  fi
  # Price providers: each provider's own cost line; the days, which a price does not change, one line named for all.
  if [ "$page" = providers ] && ! python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
chart = lambda title: next(c for c in r["datasets"] if c["title"] == title)
cost = chart("Cost against GPU count")["series"]
days = chart("Days to train against GPU count")["series"]
data = [json.dumps(s["data"]) for s in cost]
stars = sum(s["points"] for c in r["datasets"] for s in c["series"] if s["label"] == "recommended")
ok = stars == 1 and ([s["label"] for s in cost] == ["fp8 aws", "fp8 gcp", "fp8 nebius"] and len(set(data)) == 3 and
      [(s["label"], s["points"]) for s in days if s["label"] != "recommended"] == [("fp8 aws/gcp/nebius", 3)])
if not ok:
    print("  provider charts: cost", cost, "days", days, "recommended points", stars)
sys.exit(0 if ok else 1)
PY
  then
    echo "  the providers' lines are not their own data"; failed=1
  fi
  if [ "$page" = serving ] && ! python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
chart = next((c for c in r["datasets"] if c["title"].startswith("Latency")), None)
drawn = chart and sorted(l["label"] for l in chart["lines"] if l.get("limit") and l["drawn"])
if drawn != ["SLO 0.02 s (serve.slo.tpot)", "SLO 0.5 s (serve.slo.ttft)"]:
    print("  SLO lines not drawn:", chart and chart["lines"])
    sys.exit(1)
PY
  then
    failed=1
  fi
  if [ "$page" = providers ] && ! grep -q "fp8 aws, fp8 gcp and fp8 nebius have the same days, drawn as one line" "$html"; then
    echo "  the days chart does not say that the providers share its line"; failed=1
  fi
  # Long labels (the platform check's references, the verdict rows): each bar chart keeps a plot area of its own
  # (not squeezed into a corner by its labels) and draws a label for every bar.
  if ! python3 - "$result" "$page" <<'PY'
import json, sys
r, page = json.loads(sys.argv[1]), sys.argv[2]
bad = [c for c in r["layout"] if c["kind"] == "bar" and (
    c["plot_width"] < 0.4 * c["width"] or c["labels"] != c["categories"] or
    c["plot_height"] < 14 * c["lines"] * c["categories"])]  # each bar's slot holds its label's lines
for c in bad:
    print("  squeezed chart", c)
horizontal = sum(1 for c in r["layout"] if c["horizontal"])
if page == "check" and horizontal == 0:
    print("  the platform check's plan has no horizontal bar chart for its long labels", r["layout"])
sys.exit(1 if bad or (page == "check" and horizontal == 0) else 0)
PY
  then
    failed=1
  fi
  if [ "$console" != "0" ]; then cat "$work/$page.console"; failed=1; fi
  if [ ! -s "$artifacts/$page.png" ]; then echo "  no screenshot"; failed=1; fi
  cp "$html" "$artifacts/$page.html"
done
# dgxhost report draws a run's JSON as the run drew its page: the same charts.
charts_of() { python3 -c 'import re, sys; print(re.search(r"id=\"dgx-charts\">(.*?)</script>", open(sys.argv[1]).read()).group(1))' "$1"; }
if [ "$(charts_of "$work/limits.html")" != "$(charts_of "$work/rerendered.html")" ]; then
  echo "dgxhost report drew other charts than the run"; failed=1
fi
echo "screenshots and pages: $artifacts"
exit $failed
