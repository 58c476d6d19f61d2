"""notebook_kernel.py GPUMON SIM SCENARIO PYTHON_DIR: %%gpumon in a real Jupyter kernel (ipykernel,
driven by jupyter_client as a notebook front end drives it), under the real gpumon on the simulator:
four simulated H100s (healthy-hopper); a training loop of 50 ms steps (20 ms waiting for input) runs for a while in the cell; the front end
must receive one live display, updated in place while the cell runs with sparklines and the job's
steps per second, then gpumon's summary text and the report inline. Prints one "ok: ..." or
"FAIL: ..." line per check (tests/cli/test_notebook.sh counts them) and exits 1 on a failure."""
import os
import sys
import time

from jupyter_client.manager import start_new_kernel

gpumon, sim, scenario, pydir = sys.argv[1:5]
failures = 0


def check(what, cond, detail=""):
    global failures
    print(("ok: " if cond else "FAIL: ") + what + ("" if cond else ": " + str(detail)))
    failures += 0 if cond else 1


env = dict(os.environ, PYTHONPATH=pydir, PYDEVD_DISABLE_FILE_VALIDATION="1", GPUMON=gpumon, GPUMON_SIM_SCENARIO=scenario, PYTHONDONTWRITEBYTECODE="1")
km, kc = start_new_kernel(kernel_name="python3", env=env, stdin=False)
try:
    kc.execute_interactive("%load_ext gpumon", timeout=60)
    cell = ("%%%%gpumon --nvml %s --interval 500ms\n"
            "import time, gpumon\n"
            "end = time.monotonic() + 9\n"
            "while time.monotonic() < end:\n"
            "    time.sleep(0.02)\n"
            "    with gpumon.step():\n"
            "        time.sleep(0.03)\n"
            "print('cell done')\n" % sim)
    msgs = []
    t0 = time.monotonic()

    def hook(msg):
        msgs.append((time.monotonic() - t0, msg))
    reply = kc.execute_interactive(cell, timeout=120, output_hook=hook)
    check("the cell ran", reply["content"]["status"] == "ok", reply["content"])
    kinds = [(t, m["msg_type"], m["content"]) for t, m in msgs]
    html = lambda c: (c.get("data") or {}).get("text/html", "")
    live = [(t, k, c) for t, k, c in kinds if k in ("display_data", "update_display_data") and "gpumon-live" in html(c)]
    firsts = [x for x in live if x[1] == "display_data"]
    updates = [x for x in live if x[1] == "update_display_data"]
    check("one live display", len(firsts) == 1, [k for _, k, _ in kinds])
    ids = set((c.get("transient") or {}).get("display_id") for _, _, c in live)
    check("updated in place (one display id)", len(ids) == 1 and None not in ids, ids)
    done_at = min([t for t, k, c in kinds if k == "stream" and "cell done" in c.get("text", "")] or [1e9])
    during = [x for x in updates if x[0] < done_at]
    check("several updates while the cell ran", len(during) >= 3, len(during))
    frames = [html(c) for _, _, c in during]
    check("the updates change", len(set(frames)) >= 2)
    with_steps = [f for f in frames if "steps/s" in f]
    check("steps per second shown", bool(with_steps), frames[-1][:400] if frames else "")
    check("per GPU sparklines of utilization and SM activity",
          frames and frames[-1].count("<svg") == 2 * frames[-1].count("<tr>") == 8 and
          'data-key="gpm.sm_active"' in frames[-1],
          frames[-1][:400] if frames else "")
    check("the last frame marked ended", updates and "ended" in html(updates[-1][2]))
    text = "".join(c.get("text", "") for _, k, c in kinds if k == "stream")
    check("the summary as text", "Summary:" in text and "Training steps" in text, text[-600:])
    check("the page's address is not left in the output", "the live page is at" not in text)
    reports = [c for _, k, c in kinds if k == "display_data" and "<iframe srcdoc=" in html(c)]
    check("the report inline", len(reports) == 1)
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    del kc, km
print("%d failed" % failures)
sys.exit(1 if failures else 0)
