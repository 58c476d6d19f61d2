# %%gpumon in a real Jupyter kernel (tests/cli/notebook_kernel.py): the live display while the cell
# trains under the real gpumon on the simulator, then the summary and the report inline.
. "$(dirname "$0")/lib.sh"
if ! "$PY" -c 'import ipykernel, jupyter_client' 2> /dev/null; then
  fail "ipykernel or jupyter_client is missing (scripts/deps.sh installs python3-ipykernel and python3-jupyter-client)"
  done_tests; exit 1
fi
if [ "${HAVE_SERVE:-1}" = 0 ] || [ ! -e "$BUILD/gpumon-serve.so" ]; then
  echo "SKIP: gpumon was built without the exporter module, which serves the live display's data"; done_tests; exit 0
fi
HOME="$T" JUPYTER_RUNTIME_DIR="$T/jupyter" IPYTHONDIR="$T/ipython" timeout 240 "$PY" "$SRC/tests/cli/notebook_kernel.py" \
  "$GPUMON" "$SIM" "$SRC/examples/scenarios/healthy-hopper.scn" "$SRC/python" > "$T/kernel.out" 2>&1
rc=$?
CHECKS=$((CHECKS + $(grep -c '^ok: ' "$T/kernel.out")))
[ "$rc" -eq 0 ] || fail "the kernel's checks (exit $rc): $(grep -v '^ok: ' "$T/kernel.out" | tail -20)"
done_tests
