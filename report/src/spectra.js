// Spectra (uPlot): one plot per spectrum line of the run summary (model file
// `summary: spectra:`), amplitude against frequency on a logarithmic scale,
// its dominant frequencies marked and listed.
import uPlot from "uplot";
import { doubles, element, formatNumber } from "./data.js";

// the dominant frequencies as dotted vertical lines, drawn by uPlot's draw hook
function peakPlugin(peaks) {
  return {
    hooks: {
      draw: [(u) => {
        const { ctx } = u;
        ctx.save();
        ctx.strokeStyle = "rgba(40, 40, 200, 0.6)";
        ctx.lineWidth = devicePixelRatio;
        ctx.setLineDash([2 * devicePixelRatio, 3 * devicePixelRatio]);
        for (const p of peaks) {
          if (p.frequency < u.scales.x.min || p.frequency > u.scales.x.max) continue;
          const x = Math.round(u.valToPos(p.frequency, "x", true));
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
        }
        ctx.restore();
      }],
    },
  };
}

export function buildSpectrum(container, spectrum) {
  const f = doubles(spectrum.frequency);
  const a = doubles(spectrum.amplitude);
  // a log scale needs positive values: the floor is far below the largest
  const top = a.reduce((m, v) => Math.max(m, v), 0);
  const floor = top > 0 ? top * 1e-9 : 1e-300;
  const y = Float64Array.from(a, (v) => Math.max(v, floor));
  const title = `${spectrum.label} over ${formatNumber(spectrum.from)} .. ${formatNumber(spectrum.to)} s ` +
    `(resolution ${formatNumber(spectrum.resolution)} Hz)`;
  const box = element("div", { class: "plot spectrum" }, element("div", { class: "plot-title" }, title));
  container.append(box);
  const width = Math.max(400, container.clientWidth - 10);
  const u = new uPlot({
    width,
    height: 260,
    cursor: { drag: { x: true, y: false } },
    scales: { x: { time: false }, y: { distr: 3 } },
    axes: [{ label: "frequency [Hz]" }, { label: spectrum.unit, size: 80, values: (u, splits) => splits.map((v) => (v == null ? "" : formatNumber(v))) }],
    series: [
      { label: "f [Hz]", value: (u, v) => formatNumber(v) },
      { label: `amplitude of ${spectrum.channel}`, stroke: "#1f77b4", width: 1.5, value: (u, v) => formatNumber(v) },
    ],
    plugins: [peakPlugin(spectrum.peaks)],
  }, [f, y], box);
  box.append(element("div", { class: "note" }, "dominant frequencies: " +
    (spectrum.peaks.length ? spectrum.peaks.map((p) => `${formatNumber(p.frequency)} Hz (${formatNumber(p.amplitude)} ${spectrum.unit})`).join(", ") : "none")));
  u.over.addEventListener("dblclick", () => u.setScale("x", { min: f[0], max: f[f.length - 1] }));
  window.addEventListener("resize", () => u.setSize({ width: Math.max(400, container.clientWidth - 10), height: 260 }));
  return { label: spectrum.label, channel: spectrum.channel, unit: spectrum.unit, uplot: u, peaks: spectrum.peaks, bins: spectrum.bins };
}
