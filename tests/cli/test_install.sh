# The install target puts the binary, the man page, the simulated library and
# the scenarios and the deployment kit under a prefix, and the installed gpumon
# finds its simulator.
. "$(dirname "$0")/lib.sh"
cmake --install "$BUILD" --prefix "$T/prefix" > /dev/null 2>&1; rc=$?
expect_eq "install exit" "$rc" 0
for f in bin/gpumon share/man/man1/gpumon.1 lib/gpumon/sim/libnvidia-ml.so.1 share/gpumon/scenarios/healthy.scn \
         share/gpumon/deploy/systemd/gpumon.service share/gpumon/deploy/prometheus/gpumon-alerts.yml \
         share/gpumon/deploy/grafana/gpumon-dashboard.json; do
  [ -f "$T/prefix/$f" ] && ok || fail "not installed: $f"
done
[ ! -e "$T/prefix/bin/nvidia-smi" ] && ok || fail "nvidia-smi link installed without being asked for"
"$T/prefix/bin/gpumon" --sim --scenario "$T/prefix/share/gpumon/scenarios/healthy.scn" --once --format csv \
  --fields name > "$T/out" 2> "$T/err"; rc=$?
expect_eq "installed gpumon --sim exit" "$rc" 0
expect_match "installed gpumon uses its own simulator" "$(cat "$T/out")" "H100"
done_tests
