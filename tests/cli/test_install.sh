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
# the Python package, where the prefix's interpreter looks; importable, and a no-op outside gpumon run
pkg=$(ls -d "$T"/prefix/lib/python3*/*-packages/gpumon 2>/dev/null | head -1)
[ -f "$pkg/__init__.py" ] && [ -f "$pkg/torch.py" ] && [ -f "$pkg/keras.py" ] && [ -f "$pkg/notebook.py" ] &&
  [ -f "$pkg/_version.py" ] && [ -f "$pkg/py.typed" ] && ok ||
  fail "the Python package is not installed under $T/prefix/lib/python3*/*-packages"
# ... in the directory the distribution's Python searches under the configured prefix (Debian 11's python3.9
# looks in lib/python3.9/dist-packages under /usr/local, not site-packages)
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
if [ "$prefix" = /usr/local ] && [ -x /usr/bin/python3 ]; then
  want=$(/usr/bin/python3 -c 'import site; print([d for d in site.getsitepackages() if d.startswith("/usr/local/lib/")][0])')
  expect_eq "the package where /usr/bin/python3 looks under /usr/local" "${pkg#$T/prefix}" "${want#/usr/local}/gpumon"
fi
expect_eq "one version: gpumon --version and the package's" "$("$T/prefix/bin/gpumon" --version)" \
  "gpumon $(PYTHONPATH="$(dirname "$pkg")" "$PY" -c 'import gpumon; print(gpumon.__version__)')"
out=$(cd "$T" && env -u GPUMON_STEPS PYTHONPATH="$(dirname "$pkg")" "$PY" -c \
  'import gpumon; print(gpumon.__file__, gpumon.enabled()); gpumon.mark("data"); gpumon.mark("compute")')
expect_match "installed Python package: imported from the prefix, off outside gpumon run" "$out" "^$T/prefix/.*gpumon/__init__.py False$"
[ ! -e "$T/prefix/bin/nvidia-smi" ] && ok || fail "nvidia-smi link installed without being asked for"
if [ "$HAVE_SERVE" = 1 ]; then
  [ -f "$T/prefix/lib/gpumon/gpumon-serve.so" ] && ok || fail "not installed: lib/gpumon/gpumon-serve.so"
  "$T/prefix/bin/gpumon" serve --help > "$T/out" 2> "$T/err"; rc=$?
  expect_eq "installed gpumon serve finds its module" "$rc:$(grep -c web.listen-address "$T/out")" "0:1"
fi
# gpumon and the libraries it loads when needed: not linked, found at run time
# (a sanitizer build links libcrypt, for ASan's crypt_r interceptor).
libs=$(ldd "$T/prefix/bin/gpumon")
printf '%s' "$libs" | grep -q libasan && libs=$(printf '%s\n' "$libs" | grep -v libcrypt)
expect_no_match "gpumon is not linked with the exporter's libraries" "$libs" "microhttpd|gnutls|yaml|crypt|zstd|cjson"
"$T/prefix/bin/gpumon" --sim --scenario "$T/prefix/share/gpumon/scenarios/healthy.scn" --once --format csv \
  --fields name > "$T/out" 2> "$T/err"; rc=$?
expect_eq "installed gpumon --sim exit" "$rc" 0
expect_match "installed gpumon uses its own simulator" "$(cat "$T/out")" "H100"
# A packager's build: no tests (no cmocka needed), no exporter: gpumon alone,
# and serve says how to get it.
cmake -S "$SRC" -B "$T/alone" -DGPUMON_TESTS=OFF -DGPUMON_SERVE=OFF > "$T/cfg.log" 2>&1; rc=$?
expect_eq "configure without tests and exporter" "$rc" 0
grep -q CMOCKA "$T/alone/CMakeCache.txt" && fail "cmocka looked for without tests" || ok
cmake --build "$T/alone" --target gpumon -j"$(nproc)" > "$T/build.log" 2>&1; rc=$?
expect_eq "build gpumon alone" "$rc" 0
"$T/alone/gpumon" serve > /dev/null 2> "$T/err"; rc=$?
expect_eq "serve without the exporter: exit" "$rc" 1
expect_match "serve without the exporter: how to get it" "$(cat "$T/err")" "built without the Prometheus exporter: install libmicrohttpd-dev"
"$T/alone/gpumon" --version > /dev/null && ok || fail "gpumon alone does not run"
done_tests
