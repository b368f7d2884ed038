// A picture to answer on: a marker placed on an axis (or around a circle) by pointer or by keys.
//
// The axis, the tolerance and, once judged, the truth to draw come from the package as each
// box's data (kinds.py Place, exercises.py Solution.picture). The marker writes the value
// it stands at into the box's text field, so a placed answer is read, judged, kept and
// downloaded exactly as a typed one; typing moves the marker too.
(function () {
  "use strict";
  if (window.predictCheckPicture) return;
  const NS = "http://www.w3.org/2000/svg";
  const W = 400, H = 230, LEFT = 44, RIGHT = 24, TOP = 18, BASE = 168;  // the drawing's frame, viewBox units: narrow, so text stays legible on a phone
  const CX = W / 2, CY = 108, R = 80;  // the circle of an angle axis

  function el(name, attributes, parent) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    if (parent) parent.append(node);
    return node;
  }
  function text(content, attributes, parent) {
    const node = el("text", attributes, parent);
    node.textContent = content;
    return node;
  }

  // Position t in [0, 1] along the axis, and back.
  function scale(axis) {
    if (axis.scale === "log") {
      const lo = Math.log10(axis.low), hi = Math.log10(axis.high);
      return { at: (v) => (Math.log10(v) - lo) / (hi - lo), value: (t) => 10 ** (lo + t * (hi - lo)), steps: (hi - lo) * 100 };
    }
    return { at: (v) => (v - axis.low) / (axis.high - axis.low), value: (t) => axis.low + t * (axis.high - axis.low), steps: axis.scale === "angle" ? 360 : 200 };
  }
  const x = (t) => LEFT + t * (W - LEFT - RIGHT);
  const written = (v) => String(Number(v.toPrecision(4)));

  function ticks(axis) {  // decades on a log axis, five steps on a linear one
    if (axis.scale === "log") {
      const out = [];
      for (let k = Math.ceil(Math.log10(axis.low)); k <= Math.floor(Math.log10(axis.high)); k++) out.push(10 ** k);
      return out;
    }
    return [0, 1, 2, 3, 4, 5].map((i) => axis.low + (i * (axis.high - axis.low)) / 5);
  }
  const tickLabel = (v) => (v >= 1e4 || v < 1e-3 ? "1e" + Math.round(Math.log10(v)) : String(Number(v.toPrecision(3))));

  // Draw the empty figure and its marker into `holder`; `placed(value)` is told of every move.
  function draw(holder, data, placed) {
    holder.textContent = "";
    const axis = data.kind.axis, s = scale(axis), angle = axis.scale === "angle";
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "prediction-picture-svg", role: "group" }, holder);
    svg.setAttribute("aria-label", axis.label);
    const truth = el("g", { class: "prediction-picture-truth" }, svg);
    if (angle) {
      el("circle", { cx: CX, cy: CY, r: R, fill: "none", stroke: "currentColor", "stroke-opacity": 0.5 }, svg);
      el("line", { x1: CX - R - 20, y1: CY, x2: CX + R + 20, y2: CY, stroke: "currentColor", "stroke-opacity": 0.35 }, svg);
      el("line", { x1: CX, y1: CY - R - 20, x2: CX, y2: CY + R + 20, stroke: "currentColor", "stroke-opacity": 0.35 }, svg);
    } else {
      el("line", { x1: x(0), y1: BASE, x2: x(1), y2: BASE, stroke: "currentColor" }, svg);
      for (const v of ticks(axis)) {
        const at = x(s.at(v));
        el("line", { x1: at, y1: BASE, x2: at, y2: BASE + 6, stroke: "currentColor" }, svg);
        text(tickLabel(v), { x: at, y: BASE + 22, "text-anchor": "middle", "font-size": 14, fill: "currentColor" }, svg);
      }
    }
    text(axis.label, { x: W / 2, y: H - 6, "text-anchor": "middle", "font-size": 14, fill: "currentColor" }, svg);

    const marker = el("g", { class: "prediction-marker", tabindex: 0, role: "slider", focusable: "true" }, svg);
    el("circle", { r: 11, fill: "var(--pst-color-primary, #0969da)", "fill-opacity": 0.25, stroke: "var(--pst-color-primary, #0969da)", "stroke-width": 3 }, marker);
    text("your guess", { y: -18, "text-anchor": "middle", "font-size": 14, fill: "currentColor" }, marker);
    marker.setAttribute("aria-label", "Your guess: " + axis.label);
    marker.setAttribute("aria-valuemin", String(axis.low));
    marker.setAttribute("aria-valuemax", String(axis.high));

    let t = 0.5;
    function put(position, tell) {
      t = angle ? ((position % 1) + 1) % 1 : Math.min(1, Math.max(0, position));
      const value = s.value(t);
      const [mx, my] = angle ? [CX + R * Math.cos(2 * Math.PI * t), CY - R * Math.sin(2 * Math.PI * t)] : [x(t), BASE];
      marker.setAttribute("transform", `translate(${mx.toFixed(2)} ${my.toFixed(2)})`);
      marker.setAttribute("aria-valuenow", written(value));
      marker.setAttribute("aria-valuetext", written(value) + (angle ? " degrees" : ""));
      if (tell) placed(written(value));
    }
    put(angle ? 0 : 0.5, false);

    const step = 1 / s.steps;
    marker.addEventListener("keydown", function (event) {
      const moves = { ArrowRight: step, ArrowUp: step, ArrowLeft: -step, ArrowDown: -step, PageUp: 10 * step, PageDown: -10 * step };
      if (event.key in moves) put(t + moves[event.key], true);
      else if (event.key === "Home") put(0, true);
      else if (event.key === "End") put(angle ? 1 - step : 1, true);
      else return;
      event.preventDefault();
    });
    function pointed(event) {
      const box = svg.getBoundingClientRect(), k = W / box.width;
      const px = (event.clientX - box.left) * k, py = (event.clientY - box.top) * k;
      put(angle ? Math.atan2(CY - py, px - CX) / (2 * Math.PI) : (px - LEFT) / (W - LEFT - RIGHT), true);
    }
    svg.addEventListener("pointerdown", function (event) {
      svg.setPointerCapture(event.pointerId);
      pointed(event);
      marker.focus({ preventScroll: true });
    });
    svg.addEventListener("pointermove", function (event) { if (svg.hasPointerCapture(event.pointerId)) pointed(event); });

    return {
      typed(raw) {  // a typed number moves the marker too
        const v = Number(raw);
        if (Number.isFinite(v) && (axis.scale !== "log" || v > 0)) put(s.at(angle ? ((v % 360) + 360) % 360 : v), false);
      },
      reveal() { drawTruth(truth, data, s, angle); },
    };
  }

  // The truth, drawn over the guess once the box has a right verdict or its answer is shown.
  function drawTruth(group, data, s, angle) {
    group.textContent = "";
    const picture = data.picture || {}, colour = "var(--pst-color-success, #1a7f37)";
    if (picture.curve) {
      const y = (v) => BASE - v * (BASE - TOP);
      const points = picture.curve.map(([r, v]) => `${x(s.at(r)).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
      el("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5 }, group);
      if (picture.level !== undefined) {
        el("line", { x1: x(0), y1: y(picture.level), x2: x(1), y2: y(picture.level), stroke: colour, "stroke-dasharray": "5 4" }, group);
      }
    }
    if (angle) {
      const t = s.at(data.answer), px = CX + R * Math.cos(2 * Math.PI * t), py = CY - R * Math.sin(2 * Math.PI * t);
      el("line", { x1: CX, y1: CY, x2: px, y2: py, stroke: colour, "stroke-width": 2.5 }, group);
      el("circle", { cx: px, cy: py, r: 6, fill: colour }, group);
      text("x-hat", { x: px + 10, y: py - 8, "font-size": 14, fill: colour }, group);
      return;
    }
    for (const [name, value] of picture.marks || []) {
      const at = x(s.at(value));
      el("line", { x1: at, y1: TOP + 20, x2: at, y2: BASE, stroke: colour, "stroke-dasharray": "3 3" }, group);
      text(name, { x: at, y: TOP + 14, "text-anchor": "middle", "font-size": 13, fill: colour }, group);
    }
    const at = x(s.at(data.answer));
    el("line", { x1: at, y1: TOP, x2: at, y2: BASE, stroke: colour, "stroke-width": 2.5 }, group);
    text("answer", { x: at + 6, y: TOP + 40, "font-size": 14, fill: colour }, group);
  }

  window.predictCheckPicture = { draw };
})();
