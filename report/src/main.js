// report.html: the page of one run (docs/report.md). The data block is
// written by ictus (apps/report/report_page.cpp); window.ictusReport lets
// tests (tests/report/) read back what the page shows.
import { readData, element, formatNumber } from "./data.js";
import { buildPlot } from "./plots.js";
import { buildSpectrum } from "./spectra.js";
import { Animation } from "./animation.js";

const data = readData();
const app = document.getElementById("app");
const manifest = data.manifest || {};
const state = { time: null };

// --- header: what run, and whether it is whole
const status = manifest.status || (data.complete ? "completed" : "incomplete");
const badge = status === "completed" ? "ok" : status === "audit_failed" ? "warn" : "bad";
app.append(element("h1", {}, `ictus report: ${data.title}`, element("span", { class: `badge ${badge}` }, status)));
app.append(element("div", { class: "meta" },
  `model ${manifest.model ? manifest.model.file : "?"} · ${data.samples} samples from t = ${data.t0} to ${data.t1} s` +
  ` · ${data.results_file}` + (manifest.ictus_version ? ` · ictus ${manifest.ictus_version}` : "") +
  (manifest.ended ? ` · ${manifest.ended}` : "")));
const incomplete = !data.complete || !["completed", "audit_failed"].includes(status);
if (incomplete)
  app.append(element("div", { class: "incomplete", id: "incomplete" },
    `INCOMPLETE: the run did not complete (${status}${manifest.simulated_until !== undefined ? `, reached t = ${manifest.simulated_until} s` : ""}). ` +
    `${manifest.message || ""} This report shows what was computed up to there.`));

// --- the animation
app.append(element("h2", {}, "Animation"));
let animation = null;
const tEnd = data.events.reduce((t, e) => Math.max(t, e.t), data.t1);
const slider = element("input", { type: "range", id: "time-slider", min: String(data.t0), max: String(tEnd), step: "any", value: String(data.t0) });
const timeLabel = element("span", { class: "time", id: "time-label" });
const play = element("button", { id: "play" }, "Play");
const speed = element("select", { id: "speed" },
  ...[0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10].map((s) => { const o = element("option", { value: String(s) }, `${s}×`); if (s === 1) o.selected = true; return o; }));
const plots = [];
function setTime(t) {
  if (!animation) return;
  animation.setTime(t);
  state.time = animation.time;
  slider.value = String(animation.time);
  timeLabel.textContent = `t = ${formatNumber(animation.time)} s`;
  for (const p of plots) p.uplot.redraw(false, false);
}
let playing = false, last = null;
play.addEventListener("click", () => {
  playing = !playing;
  play.textContent = playing ? "Pause" : "Play";
  if (playing && animation && animation.time >= data.t1) setTime(data.t0);
  last = null;
});
// a range input keeps about 15 digits: a value that close to a written frame
// (an event's instant) is taken as that frame's time
slider.addEventListener("input", () => setTime(animation ? animation.snap(parseFloat(slider.value)) : 0));
if (data.poses) {
  const viewer = element("div", { id: "viewer" });
  app.append(viewer);
  app.append(element("div", { class: "controls" }, play, slider, timeLabel, element("label", {}, "speed ", speed)));
  app.append(element("div", { class: "note" },
    "Drag to turn the camera, wheel to zoom, right-drag to pan. Bodies without a shape are drawn as the uniform box of their mass and inertia; " +
    "joints in orange (along their axis), markers in black."));
  animation = new Animation(viewer, data);
  if (animation.t.length < data.poses.rows)
    app.append(element("div", { class: "note" }, `The animation holds ${animation.t.length} of the ${data.poses.rows} samples (every sample at an event kept).`));
  setTime(data.t0);
  const frame = (now) => {
    if (playing && last !== null) {
      let t = animation.time + ((now - last) / 1000) * parseFloat(speed.value);
      if (t >= data.t1) { t = data.t1; playing = false; play.textContent = "Play"; }
      setTime(t);
    }
    last = now;
    animation.render();
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
} else {
  app.append(element("div", { class: "note", id: "no-animation" }, data.poses_note || "no body poses"));
}

// --- events
app.append(element("h2", {}, `Events (${data.events.length} instants)`));
if (data.events.length === 0) app.append(element("div", { class: "note" }, "no events"));
else {
  const rows = [];
  for (const e of data.events)
    e.records.forEach((r, k) => rows.push(element("tr", { class: "event-row", onclick: () => setTime(e.t) },
      element("td", { class: "num" }, k === 0 ? String(e.t) : ""), element("td", {}, r.kind), element("td", {}, r.name), element("td", {}, r.detail))));
  app.append(element("table", { id: "events" }, element("tr", {}, element("th", {}, "t [s]"), element("th", {}, "kind"), element("th", {}, "name"), element("th", {}, "detail")), ...rows));
}

// --- energy audit
app.append(element("h2", {}, "Energy audit"));
const audit = manifest.energy_audit;
if (audit)
  app.append(element("div", { id: "audit" },
    `max |energy.balance| = ${formatNumber(audit.error)} J, ${formatNumber(audit.relative)} of the largest kinetic + potential energy; tolerance ${formatNumber(audit.tolerance)}: `,
    element("span", { class: `badge ${audit.exceeded_between ? "bad" : "ok"}` }, audit.exceeded_between ? `failed (first between t = ${audit.exceeded_between.join(" and ")} s)` : "passed"),
    audit.dissipation_fall === undefined ? "" : element("span", {}, `; largest fall of the energy dissipated (less energy.switching) ${formatNumber(audit.dissipation_fall)} J, ${formatNumber(audit.dissipation_fall_relative)} of that energy: `),
    audit.dissipation_fall === undefined ? "" : element("span", { class: `badge ${audit.fell_between ? "bad" : "ok"}` }, audit.fell_between ? `failed (first between t = ${audit.fell_between.join(" and ")} s)` : "passed")));
const plotArea = element("div", { id: "plots" });
const energyArea = element("div", { id: "energy" });
app.append(energyArea);
const energyPlot = data.plots.find((p) => p.title === "energy audit");
if (!energyPlot) app.append(element("div", { class: "note" }, "energy.* channels are not in the outputs (simulate: outputs)"));

// --- time histories
app.append(element("h2", {}, "Time histories"));
app.append(element("div", { class: "note" }, "Drag to zoom, wheel to zoom about the cursor, shift-drag to pan, double-click to reset; click to move the animation there. Dashed red lines: events (hover for details)."));
app.append(plotArea);
for (const p of data.plots)
  plots.push(buildPlot(p === energyPlot ? energyArea : plotArea, p, data.events, setTime, state));

// --- spectra (summary: spectra:)
const spectra = [];
if (data.spectra && data.spectra.length) {
  app.append(element("h2", {}, "Spectra"));
  app.append(element("div", { class: "note" }, "Amplitude spectra of the run summary's spectrum lines (model file summary: spectra:), from the samples in each window; dotted lines: the dominant frequencies. Drag to zoom, double-click to reset."));
  const spectrumArea = element("div", { id: "spectra" });
  app.append(spectrumArea);
  for (const s of data.spectra) spectra.push(buildSpectrum(spectrumArea, s));
}

// --- constants
if (data.constants.length) {
  app.append(element("h2", {}, "Constant channels"));
  app.append(element("table", { id: "constants" }, element("tr", {}, element("th", {}, "channel"), element("th", {}, "value"), element("th", {}, "unit")),
    ...data.constants.map((c) => element("tr", {}, element("td", {}, c.name), element("td", { class: "num" }, formatNumber(c.value)), element("td", {}, c.unit)))));
}

// --- extrema
app.append(element("h2", {}, "Extrema"));
app.append(element("div", { class: "note" }, data.extrema_located ? "located on the integrator's dense output (ictus run's summary)" : "of the written samples (run with --report for the extrema located on the dense output)"));
app.append(element("table", { id: "extrema" },
  element("tr", {}, ...["channel", "unit", "min", "at t [s]", "", "max", "at t [s]", "", "final"].map((h) => element("th", {}, h))),
  ...data.extrema.map((e) => element("tr", {}, element("td", {}, e.name), element("td", {}, e.unit),
    element("td", { class: "num" }, formatNumber(e.min)), element("td", { class: "num" }, formatNumber(e.t_min)), element("td", {}, e.how_min),
    element("td", { class: "num" }, formatNumber(e.max)), element("td", { class: "num" }, formatNumber(e.t_max)), element("td", {}, e.how_max),
    element("td", { class: "num" }, formatNumber(e.final))))));

// --- what tests read back
window.ictusReport = {
  incomplete,
  plots: () => plots.map((p) => ({ title: p.title, unit: p.unit, rows: p.rows, series: p.uplot.series.slice(1).map((s) => s.label), points: p.uplot.data[0].length, markers: p.drawnTimes.slice() })),
  spectra: () => spectra.map((s) => ({ label: s.label, channel: s.channel, unit: s.unit, points: s.uplot.data[0].length, bins: s.bins, peaks: s.peaks })),
  events: () => data.events.map((e) => e.t),
  constants: () => data.constants,
  hasAnimation: () => animation !== null,
  setTime,
  time: () => (animation ? animation.time : null),
  bodyPoses: () => (animation ? animation.poses() : []),
  frames: () => (animation ? animation.t.length : 0),
  // where plot k draws time t, in the viewport (the plot scrolled into view)
  pointOf: (k, t) => {
    const u = plots[k].uplot;
    u.over.scrollIntoView({ block: "center" });
    const r = u.over.getBoundingClientRect();
    const x = Math.min(Math.max(u.valToPos(t, "x"), 1), r.width - 2);  // inside the plot at its edges
    return { x: r.left + x, y: r.top + r.height / 2 };
  },
};
