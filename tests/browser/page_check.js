// page_check.js: gpumon's live page in Debian's headless Chromium, as a person would look at it
// (tests/cli/test_page.sh runs it; puppeteer-core drives the browser and never downloads one).
//
//   node page_check.js live   URL SHOT   a running gpumon serve on tests/cli/page.scn: reads the
//        rendered values, checks them against /metrics of the same collection, waits until GPU 0's
//        utilization changes as the scenario does (80% <-> 20%), reads and checks again; a process
//        name made of markup is shown as text; the ledger section shows the exporter's ledger;
//        no console error; a full-page screenshot in SHOT.
//   node page_check.js scale  URL SHOT N every one of N GPUs has its row, values and charts.
//   node page_check.js ledger URL SHOT   the state answered with a ledger (intercepted): its section
//        shows each cause with its share.
//   node page_check.js proxy  URL SHOT   the page served under a path prefix (Jupyter's /proxy/PORT/):
//        it renders from its API there, asking nothing outside the prefix.
// Prints "ok: ..." per check and "FAIL: ..." per failure; exits 1 on any failure. Every wait is on a
// condition with a generous limit, never on a speed.
"use strict";
const puppeteer = require("puppeteer-core");

const [mode, url, shot, arg] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const AUTH = process.env.PAGE_AUTH || "";   // user:password for basic auth
let failures = 0;
const ok = (what) => console.log("ok: " + what);
const fail = (what) => { console.log("FAIL: " + what); failures++; };
const expect = (what, cond, detail) => (cond ? ok(what) : fail(what + (detail ? ": " + detail : "")));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, limitMs) {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting for " + what);
    await sleep(200);
  }
}

// /metrics as {name{labels}: value}
async function metrics() {
  const headers = AUTH ? { Authorization: "Basic " + Buffer.from(AUTH).toString("base64") } : {};
  const text = await (await fetch(new URL("metrics", url), { headers })).text();
  const out = {};
  for (const line of text.split("\n")) {
    if (!line || line[0] === "#") continue;
    const i = line.lastIndexOf(" ");
    out[line.slice(0, i)] = Number(line.slice(i + 1));
  }
  return out;
}
function gpuMetric(m, name, gpu, extra) {
  for (const k in m)
    if (k.startsWith(name + "{") && k.includes('gpu="' + gpu + '"') && (!extra || k.includes(extra))) return m[k];
  return undefined;
}
// what the page shows: per GPU row, data-value of each cell; and the record's time
function reading(page) {
  return page.evaluate(() => {
    const rows = {};
    document.querySelectorAll("#gpus tbody tr").forEach((tr) => {
      const cells = {};
      tr.querySelectorAll("td.cell").forEach((td) => {
        cells[td.dataset.key] = { value: td.dataset.value === "" ? null : Number(td.dataset.value),
                                  text: td.querySelector(".num").textContent, charted: !!td.querySelector("canvas").title };
      });
      rows[tr.dataset.gpu] = cells;
    });
    return { time: Number(document.getElementById("updated").dataset.time), rows,
             rendered: Number(document.body.dataset.rendered || 0) };
  });
}
// The page's values against /metrics of the same collection (the page's record time is the collection's
// start; the exporter's last success is its end): tries again until the two are of one collection.
async function readMatched(page, label) {
  for (let i = 0; i < 400; i++) {   // 60 s or more: a loaded machine may be slow to render
    const r = await reading(page), m = await metrics();
    const done = m["gpumon_exporter_last_success_timestamp_seconds"];
    // (the state's time is rounded to the millisecond and a collection may take less than one: a start
    // at .0076 reads .008, past its end at .0078; at a fixed interval that phase holds for the whole run)
    if (Object.keys(r.rows).length && done >= r.time - 0.001 && done - r.time < 0.5) return [r, m];
    await sleep(150);
  }
  const r = await reading(page), m = await metrics();
  throw new Error(label + ": the page never showed the collection /metrics serves (last: page " + r.time +
                  ", /metrics done " + m["gpumon_exporter_last_success_timestamp_seconds"] + ")");
}
const PAIRS = [   // page key, /metrics name, label filter, scale from base units to the page's
  ["utilization.gpu", "gpumon_gpu_utilization_ratio", "", 100],
  ["gpm.sm_active", "gpumon_gpu_sm_active_ratio", "", 100],
  ["memory.used", "gpumon_gpu_memory_used_bytes", "", 1 / 1048576],
  ["power.draw", "gpumon_gpu_power_watts", "", 1],
  ["temperature.gpu", "gpumon_gpu_temperature_celsius", "", 1],
  ["clocks.sm", "gpumon_gpu_clock_hertz", 'clock="sm"', 1e-6],
];
function compare(r, m, label) {
  for (const gpu of Object.keys(r.rows))
    for (const [key, name, extra, scale] of PAIRS) {
      const shown = r.rows[gpu][key] && r.rows[gpu][key].value, want = gpuMetric(m, name, gpu, extra) * scale;
      expect(label + ": GPU " + gpu + " " + key + " as /metrics", Math.abs(shown - want) < 1e-6,
             "page " + shown + ", /metrics " + want);
    }
}

async function open(browser, intercept) {
  const page = await browser.newPage();
  const problems = [];
  page.on("console", (msg) => { if (msg.type() === "error" || msg.type() === "warning") problems.push(msg.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("dialog", (d) => { problems.push("dialog: " + d.message()); d.dismiss(); });
  if (AUTH) await page.authenticate({ username: AUTH.split(":")[0], password: AUTH.split(":").slice(1).join(":") });
  if (intercept) {
    await page.setRequestInterception(true);
    page.on("request", intercept);
  }
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(url, { waitUntil: "load" });
  await waitFor("the first rendering", () => page.evaluate(() => Number(document.body.dataset.rendered || 0) > 0), 60000);
  return [page, problems];
}

// A matched reading whose GPU 0 utilization is one of the scenario's levels (20 or 80) and passes test:
// the driver's period averages over a step of the square wave, so a collection that a loaded machine
// takes late, across a step, reads a value between the two.
async function readLevel(page, label, test) {
  const deadline = Date.now() + 90000;
  for (;;) {
    const [r, m] = await readMatched(page, label);
    const u = r.rows["0"] && r.rows["0"]["utilization.gpu"].value;
    if ((u === 80 || u === 20) && test(u)) return [r, m];
    if (Date.now() > deadline) throw new Error(label + ": GPU 0 never read a level of the scenario (last " + u + ")");
    await sleep(250);
  }
}

async function live(browser) {
  const [page, problems] = await open(browser);
  const [r1, m1] = await readLevel(page, "first reading", () => true);
  compare(r1, m1, "first reading");
  const u1 = r1.rows["0"]["utilization.gpu"].value;
  expect("the value is written out", r1.rows["0"]["utilization.gpu"].text === String(u1), r1.rows["0"]["utilization.gpu"].text);
  // the other level, as the scenario changes (readLevel fails if the page never shows it)
  const [r2, m2] = await readLevel(page, "second reading", (u) => u === 100 - u1);
  compare(r2, m2, "second reading");
  // a later collection (2 s apart; record times are in milliseconds, so allow their rounding)
  expect("seconds apart", r2.time - r1.time >= 1.5, (r2.time - r1.time) + " s");
  expect("GPU 1 stays idle", r2.rows["1"]["utilization.gpu"].value === 0);
  expect("charts drawn", Object.values(r2.rows["0"]).every((c) => c.charted));
  // the verdicts the API says hold are the ones shown (the test runs the rules over a short window)
  const shown = await waitFor("a verdict", async () => {
    const v = await page.evaluate(() => Array.from(document.querySelectorAll("#verdicts .verdict")).map((d) => d.dataset.rule));
    return v.length ? v : null;
  }, 60000);
  const st = await page.evaluate(() => fetch("api/v1/state").then((r) => r.json()));
  const rules = Array.from(new Set(st.verdicts.map((v) => v.rule))).sort();
  expect("the verdicts that hold are shown", JSON.stringify(shown.slice().sort()) === JSON.stringify(rules),
         "page " + JSON.stringify(shown) + ", API " + JSON.stringify(rules));
  const badge = await page.evaluate(() => Array.from(document.querySelectorAll("#gpus [data-verdict]")).map((b) => b.dataset.verdict));
  expect("each GPU row with a verdict has its badge", badge.length === new Set(st.verdicts.map((v) => v.gpu)).size, JSON.stringify(badge));
  const procs = await page.evaluate(() => Array.from(document.querySelectorAll("#procs tbody tr")).map((tr) => tr.cells[2].textContent));
  expect("processes listed", procs.length === 2 && procs.includes("python3 train.py"), JSON.stringify(procs));
  expect("markup in a process name is text", procs.includes("<img src=x onerror=document.title='xss'>"), JSON.stringify(procs));
  const injected = await page.evaluate(() => document.querySelectorAll("img").length + (document.title === "xss" ? 1 : 0));
  expect("no element made from it", injected === 0);
  // the exporter's own ledger (gpumon's, in the state): its section shows the GPU time by cause
  await waitFor("the ledger section", () => page.evaluate(() => !document.getElementById("ledger").hidden), 30000);
  const shares = await page.evaluate(() => Array.from(document.querySelectorAll("#ledger [data-cause]")).map((e) => e.dataset.cause));
  expect("the ledger's causes shown, compute among them", shares.includes("compute"), JSON.stringify(shares));
  const header = await page.evaluate(() => document.getElementById("where").textContent);
  expect("the header names the host and the source", /· gpumon serve$/.test(header), header);
  await page.screenshot({ path: shot, fullPage: true });
  expect("no console error or warning", problems.length === 0, problems.join(" | "));
}

async function scale(browser, n) {
  const [page, problems] = await open(browser);
  await waitFor(n + " rows", async () => Object.keys((await reading(page)).rows).length === n, 60000);
  await waitFor("a second rendering", () => page.evaluate(() => Number(document.body.dataset.rendered) > 1), 60000);
  const r = await reading(page);
  const rows = Object.values(r.rows);
  expect("every GPU has a value in every cell", rows.every((c) => Object.values(c).every((x) => x.value !== null || x.text === "–")));
  expect("every GPU's utilization known", rows.every((c) => c["utilization.gpu"].value !== null));
  expect("every chart drawn", rows.every((c) => Object.values(c).every((x) => x.charted)));
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect("no page-wide horizontal scroll at 1400 px", width <= 1400, width + " px");
  await page.screenshot({ path: shot, fullPage: false });
  expect("no console error or warning", problems.length === 0, problems.join(" | "));
}

async function ledger(browser) {
  const fake = { gpu_seconds: 1000, seconds: { compute: 550, input_wait: 300, startup: 50, idle: 100 },
                 gain: { input_wait: { speedup: 1.54, gpu_seconds: 300 } } };
  const [page, problems] = await open(browser, async (req) => {
    if (!req.url().endsWith("/api/v1/state")) return req.continue();
    const headers = Object.assign({}, req.headers());
    if (AUTH) headers.authorization = "Basic " + Buffer.from(AUTH).toString("base64");
    const r = await fetch(req.url(), { headers });
    const st = await r.json();
    st.ledger = fake;
    req.respond({ status: 200, contentType: "application/json", body: JSON.stringify(st) });
  });
  await waitFor("the ledger section", () => page.evaluate(() => !document.getElementById("ledger").hidden), 30000);
  const causes = await page.evaluate(() => Array.from(document.querySelectorAll("#ledger [data-cause]")).map((e) => e.textContent));
  expect("each cause with its share", causes.length === 4 && causes[0].startsWith("compute 55%") &&
         causes.some((c) => c.startsWith("input wait 30%") && c.includes("1.54x")), JSON.stringify(causes));
  await page.screenshot({ path: shot, fullPage: false });
  expect("no console error or warning", problems.length === 0, problems.join(" | "));
}

async function proxy(browser) {
  const prefix = new URL(url).pathname, asked = [];
  const [page, problems] = await open(browser, (req) => { asked.push(new URL(req.url()).pathname); req.continue(); });
  const r = await reading(page);
  expect("rendered under " + prefix, Object.keys(r.rows).length === 2 && r.rows["0"]["utilization.gpu"].value !== null);
  expect("nothing asked outside the prefix", asked.length >= 3 && asked.every((p) => p.startsWith(prefix)), JSON.stringify(asked));
  await page.screenshot({ path: shot, fullPage: false });
  expect("no console error or warning", problems.length === 0, problems.join(" | "));
}

(async () => {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, ignoreHTTPSErrors: true, acceptInsecureCerts: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", "--ignore-certificate-errors"],
  });
  try {
    if (mode === "live") await live(browser);
    else if (mode === "scale") await scale(browser, Number(arg));
    else if (mode === "ledger") await ledger(browser);
    else if (mode === "proxy") await proxy(browser);
    else fail("unknown mode " + mode);
  } catch (e) {
    fail(String(e && e.stack || e));
  } finally {
    await browser.close();
  }
  console.log(failures ? failures + " browser check(s) failed" : "browser checks passed");
  process.exit(failures ? 1 : 0);
})();
