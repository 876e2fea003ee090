// Opens report.html in headless Chromium (Debian's chromium, driven by
// playwright-core) and checks what the page shows against the run's files
// (issue 12; docs/report.md):
//   node report_browser_test.js --ictus BIN --model MODEL.yaml --out DIR --shots DIR
//   node report_browser_test.js --ictus BIN --large --out DIR --shots DIR
// --large generates a model of 100 bodies (spheres on a ground plane) with
// 10^5 samples and checks that its page opens within the time limit.
// --incomplete: the run fails midway; its DIR.incomplete holds the report of
// what was computed, marked incomplete.
// --report-command: report.html is written again by `ictus report DIR`.
// --spectra N: the run has N spectrum lines (summary: spectra:), each shown
// as a plot whose dominant frequency is that of `ictus spectrum` on results.csv.
// Prints "N passed, N failed" and exits non-zero on any failure.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { chromium } = require("playwright-core");

const arg = (name, fallback) => {
  const k = process.argv.indexOf(name);
  return k >= 0 ? process.argv[k + 1] : fallback;
};
const ictus = arg("--ictus");
const outRoot = arg("--out");
const shots = arg("--shots");
const large = process.argv.includes("--large");
const incomplete = process.argv.includes("--incomplete");
const reportCommand = process.argv.includes("--report-command");
const wantSpectra = Number(arg("--spectra", "0"));
const browserPath = process.env.ICTUS_CHROMIUM || "/usr/bin/chromium";
let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) ++passed;
  else { ++failed; console.log(`FAILED: ${what}`); }
}

// CSV with quoted cells (events.csv)
function parseCsv(text) {
  const rows = [];
  let row = [], cell = "", quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; ++i; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { row.push(cell); cell = ""; }
    else if (c === "\n") { row.push(cell); rows.push(row); row = []; cell = ""; }
    else cell += c;
  }
  if (cell !== "" || row.length) { row.push(cell); rows.push(row); }
  return rows;
}
function readTable(file) {
  const rows = parseCsv(fs.readFileSync(file, "utf8"));
  const names = rows[0];
  const columns = names.map(() => []);
  for (const r of rows.slice(1)) r.forEach((v, k) => columns[k].push(Number(v)));
  return { names, columns, rows: rows.length - 1, col: (n) => columns[names.indexOf(n)] };
}

function largeModel(file) {
  let y = "ictus: 1\nname: a hundred spheres\ngravity: [0, 0, -9.81]\nbodies:\n";
  for (let k = 0; k < 100; ++k)
    y += `  b${k}: {mass: 1, inertia: [0.004, 0.004, 0.004], position: [${(k % 10) * 0.5}, ${Math.floor(k / 10) * 0.5}, 2], velocity: [0, 0, ${(k % 7) * 0.3}]}\n`;
  y += "shapes:\n  floor: {body: ground, type: plane, normal: [0, 0, 1]}\n";
  for (let k = 0; k < 100; ++k) y += `  s${k}: {body: b${k}, type: sphere, radius: 0.1}\n`;
  y += "joints:\n  pin: {type: spherical, between: [ground, b0], at: [0, 0, 2.5], until: t > 0.25}\n";
  y += "simulate:\n  until: 1\n  output_step: 1e-5\n  outputs: [b0.z, b1.z, b2.vz, pin.Fz, energy.*]\n";
  fs.writeFileSync(file, y);
}

(async () => {
  fs.mkdirSync(shots, { recursive: true });
  fs.mkdirSync(outRoot, { recursive: true });
  let model = arg("--model");
  if (large) { model = path.join(outRoot, "hundred_spheres.yaml"); largeModel(model); }
  const stem = path.basename(model, ".yaml");
  let dir = path.join(outRoot, stem);
  const t0run = Date.now();
  let status = 0;
  try {
    execFileSync(ictus, ["run", model, "--out", dir, "--report", "--quiet", "--max-output", "2G"], { stdio: "inherit" });
  } catch (e) {
    status = e.status;
  }
  check(incomplete ? status === 3 : status === 0, `${stem}: ictus run exited with ${status}`);
  if (incomplete) dir += ".incomplete";
  if (reportCommand) {
    fs.rmSync(path.join(dir, "report.html"));
    const said = execFileSync(ictus, ["report", dir]).toString();
    check(said.includes("report.html") && fs.existsSync(path.join(dir, "report.html")), `${stem}: ictus report said '${said}'`);
    check(!fs.existsSync(path.join(dir, "report.html.partial")), `${stem}: ictus report left report.html.partial`);
  }
  const suffix = incomplete ? ".incomplete.csv" : ".csv";
  console.log(`${stem}: run with --report in ${((Date.now() - t0run) / 1000).toFixed(2)} s; report.html ${(fs.statSync(path.join(dir, "report.html")).size / 1e6).toFixed(2)} MB`);

  const results = readTable(path.join(dir, "results" + suffix));
  const poses = readTable(path.join(dir, "poses" + suffix));
  const eventLines = parseCsv(fs.readFileSync(path.join(dir, "events.csv"), "utf8")).slice(1);
  const eventTimes = [...new Set(eventLines.filter((r) => r[1] !== "end" && r[1] !== "incomplete").map((r) => Number(r[0])))].sort((a, b) => a - b);
  const units = {};
  for (const line of execFileSync(ictus, ["channels", model]).toString().split("\n")) {
    // "name (32 columns) unit (10 columns) description"; a unit may hold spaces
    const name = line.split(/\s+/)[0];
    if (name) units[name] = name.length <= 32 ? line.slice(33, 43).trim() : line.slice(name.length + 1).trim().split(/\s+/)[0];
  }
  const bodies = poses.names.filter((n) => n.endsWith(".qw")).map((n) => n.slice(0, -3));

  const browser = await chromium.launch({ executablePath: browserPath, headless: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const opened = Date.now();
  await page.goto("file://" + path.resolve(dir, "report.html"), { waitUntil: "load" });
  await page.waitForFunction(() => window.ictusReport !== undefined, null, { timeout: 60000 });
  const loadSeconds = (Date.now() - opened) / 1000;
  console.log(`${stem}: page opened in ${loadSeconds.toFixed(2)} s (${results.rows} samples, ${bodies.length} bodies)`);
  check(errors.length === 0, `${stem}: console errors: ${errors.join(" | ")}`);
  if (large) check(loadSeconds < 10, `${stem}: the page took ${loadSeconds} s to open`);
  const marked = await page.evaluate(() => window.ictusReport.incomplete && document.getElementById("incomplete") !== null);
  check(marked === incomplete, `${stem}: the page is ${marked ? "" : "not "}marked incomplete`);

  // plots: the expected grouping, from the results and the channels' units
  const plots = await page.evaluate(() => window.ictusReport.plots());
  const expected = [];
  const byUnit = new Map(), energy = [];
  for (const name of results.names.slice(1)) {
    const v = results.col(name);
    if (Math.min(...v) === Math.max(...v)) continue;  // a constant: shown as a value
    if (name.startsWith("energy.")) energy.push(name);
    else { if (!byUnit.has(units[name])) byUnit.set(units[name], []); byUnit.get(units[name]).push(name); }
  }
  if (energy.length) expected.push({ title: "energy audit", series: energy });
  for (const [unit, names] of byUnit) {
    const parts = Math.ceil(names.length / 8);
    for (let p = 0; p < parts; ++p)
      expected.push({ title: parts > 1 ? `${unit} (${p + 1} of ${parts})` : unit, series: names.slice(8 * p, 8 * p + 8) });
  }
  check(plots.length === expected.length, `${stem}: ${plots.length} plots, expected ${expected.length}`);
  plots.forEach((p, k) => {
    const e = expected[k] || { title: "?", series: [] };
    check(p.title === e.title && JSON.stringify(p.series) === JSON.stringify(e.series),
      `${stem}: plot ${k} is '${p.title}' with ${p.series}, expected '${e.title}' with ${e.series}`);
    if (results.rows <= 4000) check(p.points === results.rows, `${stem}: plot '${p.title}' has ${p.points} points, results.csv ${results.rows}`);
    else check(p.points < 0.2 * results.rows && p.points >= 1000, `${stem}: plot '${p.title}' decimated to ${p.points} of ${results.rows} points`);
    check(JSON.stringify([...p.markers].sort((a, b) => a - b)) === JSON.stringify(eventTimes),
      `${stem}: plot '${p.title}' marks events at ${p.markers}, events.csv has ${eventTimes}`);
  });
  const constants = await page.evaluate(() => window.ictusReport.constants().map((c) => c.name));
  for (const name of results.names.slice(1)) {
    const v = results.col(name);
    if (Math.min(...v) === Math.max(...v)) check(constants.includes(name), `${stem}: constant ${name} not listed as a value`);
  }

  // the spectra: one plot each, its peaks those of `ictus spectrum` on the
  // same samples
  const spectra = await page.evaluate(() => window.ictusReport.spectra());
  check(spectra.length === wantSpectra, `${stem}: ${spectra.length} spectrum plots, expected ${wantSpectra}`);
  for (const [k, sp] of spectra.entries()) {
    check(sp.points > 0 && sp.points <= Math.min(sp.bins, 4000), `${stem}: spectrum '${sp.label}' has ${sp.points} points of ${sp.bins} bins`);
    check(sp.peaks.length > 0, `${stem}: spectrum '${sp.label}' lists no dominant frequency`);
    if (!results.names.includes(sp.channel) || sp.peaks.length === 0) continue;
    const data = await page.evaluate((i) => { const d = JSON.parse(document.getElementById("ictus-data").textContent).spectra[i]; return { from: d.from, to: d.to }; }, k);
    const said = execFileSync(ictus, ["spectrum", dir, sp.channel, "--from", String(data.from), "--to", String(data.to), "--peaks", "1",
      "--out", path.join(outRoot, `${stem}_spectrum_${k}.csv`)]).toString();
    const match = said.match(/dominant frequencies: ([0-9.eE+-]+) Hz/);
    const f = match ? Number(match[1]) : NaN;
    check(Math.abs(f - sp.peaks[0].frequency) <= 1e-5 * Math.abs(f), `${stem}: spectrum '${sp.label}' peaks at ${sp.peaks[0].frequency} Hz, ictus spectrum says '${said.trim()}'`);
  }
  if (spectra.length) {
    await page.evaluate(() => document.getElementById("spectra").scrollIntoView());
    await page.screenshot({ path: path.join(shots, `${stem}_spectra.png`) });
    await page.evaluate(() => window.scrollTo(0, 0));
  }

  // the extrema: one row per written channel
  const extremaRows = await page.evaluate(() => document.querySelectorAll("#extrema tr").length - 1);
  check(extremaRows === results.names.length - 1, `${stem}: ${extremaRows} rows of extrema, ${results.names.length - 1} channels`);
  // an event's details on hover over its marker
  if (eventTimes.length && plots.length) {
    const te = eventTimes[eventTimes.length - 1];
    const at = await page.evaluate((t) => window.ictusReport.pointOf(0, t), te);
    await page.mouse.move(at.x, at.y);
    const tip = await page.evaluate(() => [...document.querySelectorAll(".tooltip")].filter((e) => e.style.display === "block").map((e) => e.textContent).join(""));
    const kinds = eventLines.filter((r) => Number(r[0]) === te && r[1] !== "end" && r[1] !== "incomplete").map((r) => r[1]);
    check(tip.startsWith(`t = ${te} s`) && kinds.every((k) => tip.includes(k)), `${stem}: hovering the marker at ${te} shows '${tip}'`);
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  // play: the time runs
  {
    await page.evaluate(() => window.ictusReport.setTime(-1e300));  // the first sample
    const before = await page.evaluate(() => window.ictusReport.time());
    await page.selectOption("#speed", "0.05");  // slow: the run does not end meanwhile
    await page.click("#play");
    const playing = await page.textContent("#play");
    await page.waitForTimeout(500);
    await page.click("#play");
    const paused = await page.textContent("#play");
    check(playing === "Pause" && paused === "Play", `${stem}: the play button read '${playing}' when playing, '${paused}' when paused`);
    const after = await page.evaluate(() => window.ictusReport.time());
    check(after > before, `${stem}: playing for 0.5 s moved the time from ${before} to ${after}`);
    await page.evaluate(() => window.ictusReport.setTime(-1e300));
  }

  // the animation: the slider moved to each event time puts the bodies at
  // the poses written at that time (the last row of that time: after the event)
  check(await page.evaluate(() => window.ictusReport.hasAnimation()), `${stem}: no animation`);
  const start = await page.evaluate(() => window.ictusReport.bodyPoses());
  check(start.length === bodies.length, `${stem}: ${start.length} bodies animated, ${bodies.length} in poses.csv`);
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * (1 + Math.abs(b));
  let shot = false;
  for (const te of eventTimes) {
    await page.evaluate((t) => {
      const s = document.getElementById("time-slider");
      s.value = String(t);
      s.dispatchEvent(new Event("input", { bubbles: true }));
    }, te);
    // an event after the last sample (a failure) shows the last one
    const lastT = poses.columns[0][poses.rows - 1];
    const tShown = Math.min(te, lastT);
    const shown = await page.evaluate(() => ({ t: window.ictusReport.time(), poses: window.ictusReport.bodyPoses() }));
    check(shown.t === tShown, `${stem}: the slider set to ${te} shows t = ${shown.t}, expected ${tShown}`);
    const row = poses.columns[0].lastIndexOf(tShown);
    check(row >= 0, `${stem}: poses.csv has no row at the event time ${te}`);
    const resultRow = results.columns[0].lastIndexOf(tShown);
    let moved = false;
    for (const [k, b] of bodies.entries()) {
      const p = shown.poses[k];
      const want = ["x", "y", "z"].map((c) => poses.col(`${b}.${c}`)[row]);
      const q = ["qw", "qx", "qy", "qz"].map((c) => poses.col(`${b}.${c}`)[row]);
      const sign = p.quaternion[0] * q[0] + p.quaternion[1] * q[1] + p.quaternion[2] * q[2] + p.quaternion[3] * q[3] < 0 ? -1 : 1;
      check(p.name === b && want.every((w, i) => close(p.position[i], w)) && q.every((w, i) => close(sign * p.quaternion[i], w)),
        `${stem}: at t = ${te} body ${b} is at ${p.position} ${p.quaternion}, poses.csv ${want} ${q}`);
      for (const [i, c] of ["x", "y", "z"].entries())  // results.csv, where it holds the position
        if (results.names.includes(`${b}.${c}`) && resultRow >= 0)
          check(close(p.position[i], results.col(`${b}.${c}`)[resultRow]), `${stem}: at t = ${te} ${b}.${c} = ${p.position[i]}, results.csv ${results.col(`${b}.${c}`)[resultRow]}`);
      if (p.position.some((v, i) => Math.abs(v - start[k].position[i]) > 1e-9)) moved = true;
    }
    if (te > eventTimes[0] || eventTimes.length === 1) check(moved || te === Number(poses.columns[0][0]), `${stem}: no body moved between t0 and ${te}`);
    if (!shot && te === eventTimes[eventTimes.length - 1]) {
      await page.waitForTimeout(300);  // a few animation frames
      await page.screenshot({ path: path.join(shots, `${stem}_t${te.toFixed(3)}.png`) });
      shot = true;
    }
  }
  if (!shot) await page.screenshot({ path: path.join(shots, `${stem}.png`) });
  check(errors.length === 0, `${stem}: console errors after moving the slider: ${errors.join(" | ")}`);
  await browser.close();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
})().catch((e) => { console.log(`FAILED: ${e.stack || e}`); console.log(`${passed} passed, ${failed + 1} failed`); process.exit(1); });
