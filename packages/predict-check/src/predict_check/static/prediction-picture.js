// A picture to answer on: a marker placed on an axis (or around a circle) by pointer or by keys.
//
// The axis, the tolerance and, once judged, the truth to draw come from the package as each
// box's data (kinds.py Place, exercises.py Solution.picture). The marker writes the value
// it stands at into the box's text field, so a placed answer is read, judged, kept and
// downloaded exactly as a typed one; typing moves the marker too, and Enter on the marker checks it. Its labels
// never overlap: each is laid out again whenever the marker moves or the truth is drawn (layout below).
// An axis is drawn with its ticks and name, a circle with its degrees. Until the truth is drawn a straight
// axis shows only its own strip (WAITING_TOP down), with no empty space above it; the truth opens the figure to
// its whole height, with a y axis where it draws a curve.
(function () {
  "use strict";
  if (window.predictCheckPicture) return;
  const NS = "http://www.w3.org/2000/svg";
  const W = 400, H = 230, LEFT = 44, RIGHT = 24, TOP = 18, BASE = 168;  // the drawing's frame, viewBox units: narrow, so text stays legible on a phone
  const CX = W / 2, CY = 108, R = 80;  // the circle of an angle axis
  const WAITING_TOP = BASE - 40;  // a straight axis before the truth: the axis, its ticks, its name and the guess's label
  const DEGREES = [0, 90, 180, 270], LEAD = (14 * Math.PI) / 180;  // the circle's ticks, each named just past its axis

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

  // --- labels that never overlap ------------------------------------------------------------
  // A label is a text with the places it may stand, in the order it prefers them. Each takes the
  // first place that lies inside the drawing, clear of everything placed before it (the ticks,
  // the axis's name, the marker, then the truth's labels, then the guess's), and clear of the
  // truth's strokes other than its own: a label that spans another mark's line would read as its
  // name. Where no place is clear it takes the one that leaves the least amiss, in that order.
  // Sizes are measured from the font itself, so a figure laid out off screen is laid out right.
  const GAP = 3;  // viewBox units kept clear around a label
  let ruler = null;
  function extent(node, x, y, anchor) {
    const size = Number(node.getAttribute("font-size")), style = getComputedStyle(node);
    ruler = ruler || document.createElement("canvas").getContext("2d");
    ruler.font = `${style.fontStyle} ${style.fontWeight} ${size}px ${style.fontFamily}`;
    const m = ruler.measureText(node.textContent);
    const width = m.width, ascent = m.fontBoundingBoxAscent || 0.8 * size, descent = m.fontBoundingBoxDescent || 0.25 * size;
    const left = anchor === "middle" ? x - width / 2 : anchor === "end" ? x - width : x;
    return { left: left - GAP, right: left + width + GAP, top: y - ascent - GAP, bottom: y + descent + GAP };
  }
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
    Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const inside = (b, top) => b.left >= 0 && b.right <= W && b.top >= top && b.bottom <= H;
  // what a label stays clear of: the marks' lines (x), and the points along a drawn stroke
  const clear = (lines = [], points = []) => ({ lines, points });
  function along(points) {  // a polyline's points, one every 3 units
    return points.slice(1).flatMap(([x2, y2], k) => {
      const [x1, y1] = points[k], n = Math.max(1, Math.ceil(Math.hypot(x2 - x1, y2 - y1) / 3));
      return Array.from({ length: n }, (_, i) => [x1 + ((x2 - x1) * i) / n, y1 + ((y2 - y1) * i) / n]);
    });
  }
  function place(node, spots, taken, avoid, top = 0) {
    let best = null;
    for (const [x, y, anchor] of spots) {
      const b = extent(node, x, y, anchor);
      const crossed = avoid.lines.filter((at) => b.left < at && at < b.right).length +
        avoid.points.filter(([px, py]) => b.left < px && px < b.right && b.top < py && py < b.bottom).length;
      const covered = taken.reduce((sum, t) => sum + overlap(t, b), 0);
      const cost = (inside(b, top) ? 0 : 1e12) + covered * 1e3 + crossed;  // leaving the figure, then covering, then crossing
      if (!best || cost < best.cost) best = { x, y, anchor, b, cost };
      if (cost === 0) break;
    }
    node.setAttribute("x", best.x.toFixed(1));
    node.setAttribute("y", best.y.toFixed(1));
    node.setAttribute("text-anchor", best.anchor);
    taken.push(best.b);
  }
  const sides = (x, y, gap, order) => order.map((anchor) => [anchor === "start" ? x + gap : anchor === "end" ? x - gap : x, y, anchor]);
  // around a point: above, below, right, left, then farther out
  const around = (x, y) => [1, 2, 3].flatMap((k) => [
    [x, y - 20 * k, "middle"], [x, y + 12 + 20 * k, "middle"], [x + 17, y + 5 - 20 * (k - 1), "start"],
    [x - 17, y + 5 - 20 * (k - 1), "end"], [x + 17, y + 5 + 20 * k, "start"], [x - 17, y + 5 + 20 * k, "end"]]);

  function degreeTicks(svg) {  // a short tick where each axis meets the circle, its degrees beside it
    for (const degrees of DEGREES) {
      const a = (degrees * Math.PI) / 180, c = Math.cos(a), s = Math.sin(a);
      el("line", { x1: CX + (R - 5) * c, y1: CY - (R - 5) * s, x2: CX + (R + 5) * c, y2: CY - (R + 5) * s, stroke: "currentColor" }, svg);
      const toward = Math.cos(a + LEAD), up = Math.sin(a + LEAD);  // just counter-clockwise of the tick
      const anchor = toward > 0.1 ? "start" : toward < -0.1 ? "end" : "middle";
      text(degrees + "\u00b0", { x: CX + (R + 10) * toward, y: CY - (R + 10) * up + 5, "text-anchor": anchor, "font-size": 13, fill: "currentColor" }, svg);
    }
  }

  function yAxis(svg, picture) {  // once a curve is drawn: its axis from 0 to 1, the level it asks about, its name
    el("line", { x1: x(0), y1: TOP, x2: x(0), y2: BASE, stroke: "currentColor" }, svg);
    const level = picture.level, near = (v) => level !== undefined && v !== level && Math.abs(v - level) < 0.15;
    const levels = [0, 0.5, 1].filter((v) => !near(v)).concat(level === undefined ? [] : [level]);  // none crowds the level
    for (const v of new Set(levels)) {
      const at = BASE - v * (BASE - TOP);
      el("line", { x1: x(0) - 5, y1: at, x2: x(0), y2: at, stroke: "currentColor" }, svg);
      text(String(v), { x: x(0) - 7, y: at + 4, "text-anchor": "end", "font-size": 12, fill: "currentColor" }, svg);
    }
    if (picture.y) text(picture.y, { x: x(0) + 6, y: TOP - 5, "text-anchor": "start", "font-size": 12, fill: "currentColor" }, svg);
  }

  // Draw the figure and its marker into `holder`; `placed(value)` is told of every move, `entered()` of Enter.
  function draw(holder, data, placed, entered) {
    holder.textContent = "";
    const axis = data.kind.axis, s = scale(axis), angle = axis.scale === "angle";
    let top = angle ? 0 : WAITING_TOP;  // the figure's top edge, in viewBox units
    const svg = el("svg", { viewBox: `0 ${top} ${W} ${H - top}`, width: "100%", class: "prediction-picture-svg", role: "group" }, holder);
    svg.setAttribute("aria-label", axis.label);
    const truth = el("g", { class: "prediction-picture-truth" }, svg);
    if (angle) {
      el("circle", { cx: CX, cy: CY, r: R, fill: "none", stroke: "currentColor", "stroke-opacity": 0.5 }, svg);
      el("line", { x1: CX - R - 20, y1: CY, x2: CX + R + 20, y2: CY, stroke: "currentColor", "stroke-opacity": 0.35 }, svg);
      el("line", { x1: CX, y1: CY - R - 20, x2: CX, y2: CY + R + 20, stroke: "currentColor", "stroke-opacity": 0.35 }, svg);
      degreeTicks(svg);
    } else {
      el("line", { x1: x(0), y1: BASE, x2: x(1), y2: BASE, stroke: "currentColor" }, svg);
      for (const v of ticks(axis)) {
        const at = x(s.at(v));
        el("line", { x1: at, y1: BASE, x2: at, y2: BASE + 6, stroke: "currentColor" }, svg);
        text(tickLabel(v), { x: at, y: BASE + 22, "text-anchor": "middle", "font-size": 14, fill: "currentColor" }, svg);
      }
    }
    text(axis.label, { x: W / 2, y: H - 6, "text-anchor": "middle", "font-size": 14, fill: "currentColor" }, svg);

    let fixed = [...svg.querySelectorAll("text")];  // the ticks and the axis's name: they stay where they are
    const marker = el("g", { class: "prediction-marker", tabindex: 0, role: "slider", focusable: "true" }, svg);
    el("circle", { r: 11, fill: "var(--pst-color-primary, #0969da)", "fill-opacity": 0.25, stroke: "var(--pst-color-primary, #0969da)", "stroke-width": 3 }, marker);
    const guess = text("your guess", { "font-size": 14, fill: "currentColor", class: "prediction-picture-guess" }, svg);
    marker.setAttribute("aria-label", "Your guess: " + axis.label);
    marker.setAttribute("aria-valuemin", String(axis.low));
    marker.setAttribute("aria-valuemax", String(axis.high));

    let t = 0.5, mx = 0, my = 0, shown = { labels: [], avoid: clear() };
    function layout() {
      const taken = fixed.map((node) => extent(node, Number(node.getAttribute("x")), Number(node.getAttribute("y")), node.getAttribute("text-anchor")));
      taken.push({ left: mx - 13, right: mx + 13, top: my - 13, bottom: my + 13 });  // the marker's ring, stroke and all
      for (const label of shown.labels) place(label.node, label.spots, taken, label.avoid, top);
      place(guess, angle ? around(mx, my) : [0, 1, 2, 3, 4].flatMap((k) => [[mx, BASE - 20 - 20 * k, "middle"],
        ...sides(mx, BASE - 20 - 20 * k, 14, ["end", "start"])]), taken, shown.avoid, top);
    }
    function put(position, tell) {
      t = angle ? ((position % 1) + 1) % 1 : Math.min(1, Math.max(0, position));
      const value = s.value(t);
      [mx, my] = angle ? [CX + R * Math.cos(2 * Math.PI * t), CY - R * Math.sin(2 * Math.PI * t)] : [x(t), BASE];
      marker.setAttribute("transform", `translate(${mx.toFixed(2)} ${my.toFixed(2)})`);
      layout();
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
      else if (event.key === "Enter" && entered) entered();
      else return;
      event.preventDefault();
    });
    function pointed(event) {
      const box = svg.getBoundingClientRect(), k = W / box.width;
      const px = (event.clientX - box.left) * k, py = top + (event.clientY - box.top) * k;
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
      reveal() {
        if (!angle && top !== 0) {  // the whole figure, with a y axis under a curve
          top = 0;
          svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
          if (data.picture && data.picture.curve) yAxis(svg, data.picture);
          fixed = [...svg.querySelectorAll(":scope > text")].filter((node) => node !== guess);
        }
        shown = drawTruth(truth, data, s, angle);
        layout();
      },
    };
  }

  // The truth, drawn over the guess once the box has a right verdict or its answer is shown.
  // Returns its labels, each with the places it may stand and what it stays clear of, and what
  // the guess's label stays clear of: every stroke of the truth.
  function drawTruth(group, data, s, angle) {
    group.textContent = "";
    const picture = data.picture || {}, colour = "var(--pst-color-success, #1a7f37)";
    const strokes = [];
    if (picture.curve) {
      const y = (v) => BASE - v * (BASE - TOP);
      const curve = picture.curve.map(([r, v]) => [x(s.at(r)), y(v)]);
      el("polyline", { points: curve.map((p) => p.map((c) => c.toFixed(1)).join(",")).join(" "), fill: "none", stroke: colour, "stroke-width": 2.5 }, group);
      strokes.push(...along(curve));
      if (picture.level !== undefined) {
        el("line", { x1: x(0), y1: y(picture.level), x2: x(1), y2: y(picture.level), stroke: colour, "stroke-dasharray": "5 4" }, group);
        strokes.push(...along([[x(0), y(picture.level)], [x(1), y(picture.level)]]));
      }
    }
    if (angle) {
      const t = s.at(data.answer), px = CX + R * Math.cos(2 * Math.PI * t), py = CY - R * Math.sin(2 * Math.PI * t);
      el("line", { x1: CX, y1: CY, x2: px, y2: py, stroke: colour, "stroke-width": 2.5 }, group);
      el("circle", { cx: px, cy: py, r: 6, fill: colour }, group);
      const name = text("x-hat", { "font-size": 14, fill: colour }, group);
      const ray = clear([], along([[CX, CY], [px, py]]));
      return { labels: [{ node: name, spots: around(px, py), avoid: ray }], avoid: ray };
    }
    // a line's name stands beside its line: the first of several leans left, the last right
    const leaning = (k, n) => (n > 1 && k === 0 ? ["end", "middle", "start"] : n > 1 && k === n - 1 ? ["start", "middle", "end"] : ["middle", "start", "end"]);
    const marks = (picture.marks || []).map(([name, value]) => ({ name, at: x(s.at(value)) })).sort((a, b) => a.at - b.at);
    const at = x(s.at(data.answer)), lines = [at, ...marks.map((mark) => mark.at)];
    const others = (own) => clear(lines.filter((line) => Math.abs(line - own) > 1), strokes);
    const labels = marks.map((mark, k) => {
      el("line", { x1: mark.at, y1: TOP + 20, x2: mark.at, y2: BASE, stroke: colour, "stroke-dasharray": "3 3" }, group);
      const node = text(mark.name, { "font-size": 13, fill: colour }, group);
      const order = leaning(k, marks.length);
      return { node, spots: [0, 1, 2, 3, 4, 5].flatMap((row) => sides(mark.at, TOP + 14 + 20 * row, 5, order)), avoid: others(mark.at) };
    });
    el("line", { x1: at, y1: TOP, x2: at, y2: BASE, stroke: colour, "stroke-width": 2.5 }, group);
    const answer = text("answer", { "font-size": 14, fill: colour }, group);
    labels.push({ node: answer, spots: [0, 1, 2, 3, 4].flatMap((row) => sides(at, TOP + 40 + 20 * row, 6, ["start", "end"])), avoid: others(at) });
    return { labels, avoid: clear(lines, strokes) };
  }

  window.predictCheckPicture = { draw };
})();
