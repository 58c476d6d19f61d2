#!/usr/bin/env bash
# scripts/demo on the simulated GPUs (this build, as it is: DEMO_BUILD_DIR), shortened (DEMO_STEPS, and
# a short window and start-up through the arguments it passes to gpumon run): the loop under gpumon
# run ends with the summary (the ledger first), the input-wait verdict and its advice; the fixed loop and gpumon compare
# follow; it says where the report is (written), how to see the same GPUs with nvidia-smi from another
# shell (the command it prints works, while nothing plays the scenario too), and how to run a real job.
. "$(dirname "$0")/lib.sh"
GPUMON_NVML=/nonexistent/libnvidia-ml.so.1 DEMO_BUILD_DIR="$BUILD" DEMO_STEPS=60 \
  "$SRC/scripts/demo" --window 10s --threshold startup.seconds=5 > "$T/out" 2> "$T/err"; rc=$?
all=$(cat "$T/err" "$T/out")
expect_eq "demo: status" "$rc" 0
expect_match "demo: says it runs on the simulated GPUs" "$all" "running on the bundled simulated GPUs instead"
expect_match "demo: the summary" "$all" "Summary: [0-9]+ s of records"
expect_match "demo: the ledger first" "$all" "GPU time by cause \(1 GPU, .*"$'\n'"  compute .*"$'\n'"  input wait .* steps up to [0-9.]+x faster if the input kept up"
expect_match "demo: the verdict" "$all" "WARNING +input-wait"
expect_match "demo: the advice" "$all" "advice: The loop spends this share of its time waiting"
expect_match "demo: the steps" "$all" "waiting for input (3[5-9]|4[0-5])% of the time"
expect_match "demo: the comparison" "$all" "Summary: 1\.[67]x faster, input wait (3[5-9]|4[0-5])% -> [0-2]%"
expect_match "demo: where the report is" "$all" "The HTML report of the first run: $BUILD/demo/report.html"
[ -s "$BUILD/demo/report.html" ] && ok || fail "demo: no report at $BUILD/demo/report.html"
expect_match "demo: how to run a real job" "$all" "gpumon run --output run.jsonl --report report.html -- python3 train.py"
smi=$(printf '%s\n' "$all" | grep -m1 'demo/nvidia-smi$' | sed 's/^ *//')
expect_match "demo: the nvidia-smi line" "$smi" "^GPUMON_NVML=.* GPUMON_SIM_SCENARIO=.*input-bound.scn .*/nvidia-smi$"
out=$(env $smi --query-gpu=index,name --format=csv,noheader 2>&1)
expect_eq "demo: its nvidia-smi command" "$out" "0, NVIDIA A100-SXM4-80GB"
done_tests
