// The data block that ictus writes into the page (apps/report/report_page.cpp).
export function readData() {
  return JSON.parse(document.getElementById("ictus-data").textContent);
}

// base64 of little-endian doubles -> Float64Array
export function doubles(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
  return new Float64Array(bytes.buffer);
}

export function formatNumber(v) {
  if (v === null || v === undefined) return "–";
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e6 ? String(Number(v.toPrecision(7))) : v.toExponential(5);
}

export function element(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
