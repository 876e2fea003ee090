// Time histories (uPlot): one plot per unit, the events drawn on the time
// axis with their details on hover, zoom (drag, wheel), pan (shift-drag or
// the middle button), values on hover (the legend), cursors in sync.
import uPlot from "uplot";
import { doubles, element, formatNumber } from "./data.js";

const palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

function describe(event) {
  return `t = ${event.t} s\n` + event.records.map((r) => `${r.kind}${r.name ? " " + r.name : ""}: ${r.detail}`).join("\n");
}

// the events as vertical lines, drawn by uPlot's draw hook
function eventPlugin(events, tooltip, drawnTimes) {
  return {
    hooks: {
      draw: [(u) => {
        const { ctx } = u;
        const [min, max] = [u.scales.x.min, u.scales.x.max];
        drawnTimes.length = 0;
        ctx.save();
        ctx.strokeStyle = "rgba(200, 40, 40, 0.7)";
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
        for (const e of events) {
          if (e.t < min || e.t > max) continue;
          const x = Math.round(u.valToPos(e.t, "x", true));
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          drawnTimes.push(e.t);
        }
        ctx.restore();
      }],
      setCursor: [(u) => {
        const left = u.cursor.left;
        if (left == null || left < 0) { tooltip.style.display = "none"; return; }
        let best = null;
        for (const e of events) {
          const d = Math.abs(u.valToPos(e.t, "x") - left);
          if (d <= 4 && (best === null || d < best.d)) best = { d, e };
        }
        if (best === null) { tooltip.style.display = "none"; return; }
        const rect = u.over.getBoundingClientRect();
        tooltip.textContent = describe(best.e);
        tooltip.style.left = `${rect.left + left + 12}px`;
        tooltip.style.top = `${rect.top + (u.cursor.top ?? 0) + 12}px`;
        tooltip.style.display = "block";
      }],
    },
  };
}

// wheel: zoom the time axis about the cursor; shift-drag or middle button: pan
function panZoomPlugin() {
  return {
    hooks: {
      ready: [(u) => {
        const over = u.over;
        over.addEventListener("wheel", (ev) => {
          ev.preventDefault();
          const { min, max } = u.scales.x;
          const at = u.posToVal(ev.offsetX, "x");
          const f = ev.deltaY < 0 ? 0.8 : 1.25;
          u.setScale("x", { min: at - (at - min) * f, max: at + (max - at) * f });
        }, { passive: false });
        over.addEventListener("mousedown", (ev) => {
          if (!(ev.button === 1 || (ev.button === 0 && ev.shiftKey))) return;
          ev.preventDefault();
          ev.stopPropagation();
          const x0 = ev.clientX;
          const { min, max } = u.scales.x;
          const perPixel = (max - min) / u.bbox.width * devicePixelRatio;
          const move = (e) => {
            const dt = (e.clientX - x0) * perPixel;
            u.setScale("x", { min: min - dt, max: max - dt });
          };
          const up = () => { window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); };
          window.addEventListener("mousemove", move);
          window.addEventListener("mouseup", up);
        }, true);
      }],
    },
  };
}

// a cursor line at the animation's time
function timePlugin(state) {
  return {
    hooks: {
      draw: [(u) => {
        if (state.time === null) return;
        const x = Math.round(u.valToPos(state.time, "x", true));
        const { ctx } = u;
        ctx.save();
        ctx.strokeStyle = "rgba(0, 0, 0, 0.45)";
        ctx.lineWidth = devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      }],
    },
  };
}

export function buildPlot(container, plot, events, onPick, state) {
  const tooltip = element("div", { class: "tooltip" });
  document.body.append(tooltip);
  const x = doubles(plot.x);
  const ys = plot.series.map((s) => doubles(s.y));
  const drawnTimes = [];
  const box = element("div", { class: "plot" },
    element("div", { class: "plot-title" }, plot.title.startsWith(plot.unit) ? plot.title : `${plot.title} [${plot.unit}]`));
  container.append(box);
  const width = Math.max(400, container.clientWidth - 10);
  const options = {
    width,
    height: 260,
    cursor: { sync: { key: "ictus" }, drag: { x: true, y: false } },
    scales: { x: { time: false } },
    axes: [{ label: "t [s]" }, { label: plot.unit, size: 70 }],
    series: [
      { label: "t [s]", value: (u, v) => formatNumber(v) },
      ...plot.series.map((s, k) => ({
        label: s.name, stroke: palette[k % palette.length], width: 1.5,
        value: (u, v) => formatNumber(v),
      })),
    ],
    plugins: [eventPlugin(events, tooltip, drawnTimes), panZoomPlugin(), timePlugin(state)],
  };
  const u = new uPlot(options, [x, ...ys], box);
  // the time axis spans the events too (a failure after the last sample)
  const span = events.reduce((r, e) => ({ min: Math.min(r.min, e.t), max: Math.max(r.max, e.t) }), { min: x[0], max: x[x.length - 1] });
  if (span.min < x[0] || span.max > x[x.length - 1]) u.setScale("x", span);
  u.over.addEventListener("dblclick", () => u.setScale("x", span));
  u.over.addEventListener("click", (ev) => {
    if (ev.shiftKey) return;
    onPick(u.posToVal(ev.offsetX, "x"));
  });
  window.addEventListener("resize", () => u.setSize({ width: Math.max(400, container.clientWidth - 10), height: 260 }));
  return { title: plot.title, unit: plot.unit, uplot: u, drawnTimes, rows: plot.rows };
}
