// The scale/epsilon explorer for the book's static pages: it runs in the reader's
// browser, with no kernel. It computes x-hat = x / sqrt(mean(x^2) + eps), the
// formula rms_norm computes; the page carries rms_norm's own values at a few
// settings, and the explorer checks itself against them when the page loads.
(function () {
  "use strict";

  function normalize(x, eps) {
    let sum = 0;
    for (const v of x) sum += v * v;
    const inverseRms = 1 / Math.sqrt(sum / x.length + eps);
    return x.map((v) => v * inverseRms);
  }

  function explore(config, vector, scale, eps) {
    const x = config.vectors[vector];
    const scaledX = x.map((v) => scale * v);
    const normalized = normalize(x, eps);
    const scaledNormalized = normalize(scaledX, eps);
    let maxDifference = 0;
    for (let i = 0; i < x.length; i++) {
      maxDifference = Math.max(maxDifference, Math.abs(scaledNormalized[i] - normalized[i]));
    }
    const meanSquare = (v) => v.reduce((s, a) => s + a * a, 0) / v.length;
    return {
      normalized,
      scaledNormalized,
      maxDifference,
      scaledRms: Math.sqrt(meanSquare(scaledX)),
      scaledNormalizedMeanSquare: meanSquare(scaledNormalized),
    };
  }

  // Numbers as Python's format(v, ".Nf") and format(v, ".Ng") write them, from the double's exact
  // decimal value (m * 2**e is m * 5**-e / 10**-e), rounded half to even as Python rounds.
  function exact(v) {  // |v| = BigInt(digits) / 10**scale
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, Math.abs(v));
    const bits = view.getBigUint64(0), biased = Number(bits >> 52n);
    const m = biased ? (bits & 0xfffffffffffffn) | (1n << 52n) : bits & 0xfffffffffffffn;
    const e = (biased || 1) - 1075;
    return e >= 0 ? { digits: m << BigInt(e), scale: 0 } : { digits: m * 5n ** BigInt(-e), scale: -e };
  }

  function rounded(value, places) {  // the exact value times 10**places, rounded half to even
    const shift = value.scale - places;
    if (shift <= 0) return value.digits * 10n ** BigInt(-shift);
    const unit = 10n ** BigInt(shift), q = value.digits / unit, twice = 2n * (value.digits % unit);
    return twice > unit || (twice === unit && q % 2n === 1n) ? q + 1n : q;
  }

  function withPoint(n, places) {  // a whole number n as n / 10**places, written with its decimals
    if (places <= 0) return n.toString() + "0".repeat(-places);
    const text = n.toString().padStart(places + 1, "0");
    return text.slice(0, -places) + "." + text.slice(-places);
  }

  function format(v, spec) {  // spec: ".6f", ".6g", ".7g" (precision then type)
    if (Number.isNaN(v)) return "nan";
    const sign = v < 0 || Object.is(v, -0) ? "-" : "";
    if (!Number.isFinite(v)) return sign + "inf";
    const precision = Number(spec.slice(1, -1)), value = exact(v);
    if (spec.endsWith("f")) return sign + withPoint(rounded(value, precision), precision);
    if (value.digits === 0n) return sign + "0";
    let power = value.digits.toString().length - 1 - value.scale;  // 10**power <= |v| < 10**(power + 1)
    let n = rounded(value, precision - 1 - power);
    if (n.toString().length > precision) { power += 1; n /= 10n; }  // 9.9999996e-05 rounds up to 0.0001
    const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
    if (power >= -4 && power < precision) return sign + trim(withPoint(n, precision - 1 - power));
    const exponent = (power < 0 ? "-" : "+") + String(Math.abs(power)).padStart(2, "0");
    return sign + trim(withPoint(n, precision - 1)) + "e" + exponent;
  }
  window.rmsnormFormat = format;  // for the browser tests, which hold it to Python's format()
  const vector6 = (v) => "[" + v.map((x) => format(x, ".6f")).join(", ") + "]";

  function readouts(s, scale) {
    // The order of explorer.readout_rows in Python.
    return [
      format(scale, ".6g"),
      vector6(s.normalized),
      vector6(s.scaledNormalized),
      format(s.maxDifference, Math.abs(s.maxDifference) >= 1e-3 ? ".6f" : ".3g"),  // format.difference
      format(s.scaledRms, ".6g"),
      format(s.scaledNormalizedMeanSquare, ".6f"),
    ];
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svgElement(name, attributes, text) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    return element;
  }
  let BLUE, ORANGE, GREY;  // figures.py's palette, from the page's data
  let HEADROOM;  // explorer.BAR_HEADROOM
  // A chart is drawn at the width its column gives it (up to WIDEST), so its 11 px text stays
  // 11 px on a phone; its viewBox is set from the same width and height it is drawn in.
  const WIDEST = 420, NARROWEST = 260, PLOT_HEIGHT = 170, LEFT = 48, RIGHT = 12, BOTTOM = 36, ROW = 16;
  const FONT = { "font-size": 11, fill: "currentColor" };
  const INK = "currentColor";  // the page's text colour, light or dark

  function chartWidth(svg) {
    const column = svg.parentNode.clientWidth;
    return column > 0 ? Math.max(NARROWEST, Math.min(WIDEST, Math.floor(column))) : WIDEST;
  }

  // A chart: its title, a legend wrapped into rows under it, the frame, the axis titles and
  // the y ticks. legend: [swatch(x, y), label] pairs. Returns the frame and a y-to-pixel map.
  function chart(svg, title, legend, xTitle, yTitle, yMin, yMax, ticks) {
    svg.replaceChildren();
    const width = chartWidth(svg);
    svg.append(svgElement("text", { x: width / 2, y: 14, "text-anchor": "middle", ...FONT, "data-role": "title" }, title));
    let x = LEFT + 8, row = 0;
    for (const [swatch, label] of legend) {
      const words = svgElement("text", { ...FONT }, label);
      svg.append(words);
      const room = 18 + words.getComputedTextLength();
      if (x > LEFT + 8 && x + room > width - RIGHT) { x = LEFT + 8; row += 1; }
      svg.append(swatch(x, 24 + ROW * row));
      words.setAttribute("x", x + 18);
      words.setAttribute("y", 33 + ROW * row);
      x += room + 24;
    }
    const top = 52 + ROW * row, height = top + PLOT_HEIGHT + BOTTOM;
    for (const [name, value] of [["viewBox", `0 0 ${width} ${height}`], ["width", width], ["height", height]]) {
      svg.setAttribute(name, value);
    }
    const frame = { left: LEFT, right: width - RIGHT, top, bottom: top + PLOT_HEIGHT, width, height };
    svg.append(svgElement("rect", { x: LEFT, y: top, width: frame.right - LEFT, height: PLOT_HEIGHT,
      fill: "none", stroke: INK, "stroke-opacity": 0.6 }));
    svg.append(svgElement("text", { x: (LEFT + frame.right) / 2, y: height - 4, "text-anchor": "middle", ...FONT }, xTitle));
    const middle = (top + frame.bottom) / 2;
    svg.append(svgElement("text", { x: 12, y: middle, "text-anchor": "middle", ...FONT,
      transform: `rotate(-90 12 ${middle})` }, yTitle));
    const py = (y) => frame.bottom - ((y - yMin) / (yMax - yMin)) * PLOT_HEIGHT;
    for (const y of ticks) {
      svg.append(svgElement("text", { x: LEFT - 6, y: py(y) + 4, "text-anchor": "end", ...FONT }, format(y, ".2g")));
    }
    return { frame, py };
  }

  // x-hat(x) and x-hat(a*x), coordinate by coordinate, on one fixed scale per vector
  // (explorer.bar_limit in Python: the largest |x-hat_i| it reaches), so the bars move as the controls do.
  function drawBars(svg, x, largest, s, scale, eps, hatch) {
    const limit = HEADROOM * largest;
    const yMin = x.some((v) => v < 0) ? -limit : 0;
    const series = [
      { name: "x", values: s.normalized, fill: BLUE, stroke: INK, label: "x-hat(x)" },
      { name: "ax", values: s.scaledNormalized, fill: `url(#${hatch})`, stroke: ORANGE,
        label: `x-hat(a·x), a = ${format(scale, ".3g")}` },
    ];
    const legend = series.map((bar) => [
      (lx, ly) => svgElement("rect", { x: lx, y: ly, width: 12, height: 12, fill: bar.fill, stroke: bar.stroke }),
      bar.label,
    ]);
    const defs = svgElement("defs", {});
    const pattern = svgElement("pattern", { id: hatch, width: 6, height: 6, patternUnits: "userSpaceOnUse",
      patternTransform: "rotate(45)" });
    pattern.append(svgElement("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: ORANGE, "stroke-width": 2 }));
    defs.append(pattern);
    const { frame, py } = chart(svg, `eps = ${format(eps, ".6g")}: max difference ${format(s.maxDifference, ".3g")}`,
      legend, "coordinate i", "x-hat_i (before the gain)", yMin, limit, [yMin, (yMin + limit) / 2, limit]);
    svg.prepend(defs);
    const step = (frame.right - frame.left) / x.length, barWidth = Math.min(0.4 * step, 40);
    svg.append(svgElement("line", { x1: frame.left, x2: frame.right, y1: py(0), y2: py(0), stroke: INK,
      "stroke-opacity": 0.6 }));
    series.forEach((bar, k) => {
      bar.values.forEach((value, i) => {
        const centre = frame.left + (i + 0.5) * step + (k - 0.5) * barWidth;
        svg.append(svgElement("rect", { x: centre - barWidth / 2, width: barWidth,
          y: Math.min(py(value), py(0)), height: Math.abs(py(value) - py(0)), fill: bar.fill, stroke: bar.stroke,
          "data-role": "bar", "data-series": bar.name, "data-index": i, "data-value": value }));
      });
    });
    x.forEach((_, i) => {
      svg.append(svgElement("text", { x: frame.left + (i + 0.5) * step, y: frame.bottom + 14, "text-anchor": "middle",
        ...FONT }, String(i)));
    });
  }

  // mean(x-hat^2) against log10(RMS of the input), with a marker at a*x. The y axis runs a
  // little past 0 and 1, so the marker is always drawn where it is, on the curve. Past either
  // end of the RMS axis the marker becomes a triangle at that edge, pointing the way, and says so.
  function drawCurve(svg, window, eps, s) {
    const [logMin, logMax] = window.map(Math.log10);
    const logRms = Math.log10(s.scaledRms);
    let offAxis = null;  // where the marker leaves the axis, if it does
    if (logRms < logMin) offAxis = "left";
    else if (logRms > logMax) offAxis = "right";
    const direction = offAxis === "left" ? -1 : 1;
    const where = offAxis ? `, off the axis to the ${offAxis}` : "";
    const swatch = offAxis
      ? (lx, ly) => svgElement("polygon", { fill: INK,
          points: `${lx + 6 + 6 * direction},${ly + 6} ${lx + 6 - 6 * direction},${ly} ${lx + 6 - 6 * direction},${ly + 12}` })
      : (lx, ly) => svgElement("path", { d: `M${lx},${ly}l12,12m-12,0l12,-12`, stroke: INK, "stroke-width": 3 });
    const legend = [
      [(lx, ly) => svgElement("line", { x1: lx, x2: lx + 12, y1: ly + 6, y2: ly + 6, stroke: BLUE, "stroke-width": 2 }),
        `eps = ${format(eps, ".6g")}`],
      [swatch, `a·x: RMS ${format(s.scaledRms, ".3g")}${where}`],
    ];
    const { frame, py } = chart(svg, "where a·x sits on the curve", legend, "RMS of the input (log scale)",
      "mean of x-hat squared", -0.06, 1.06, [0, 0.5, 1]);
    const px = (value) => frame.left + ((value - logMin) / (logMax - logMin)) * (frame.right - frame.left);
    let path = "";
    for (let i = 0; i <= 180; i++) {
      const value = logMin + ((logMax - logMin) * i) / 180;
      const y = normalize([Math.pow(10, value)], eps)[0] ** 2;
      path += (i ? "L" : "M") + px(value).toFixed(1) + "," + py(y).toFixed(1);
    }
    svg.append(svgElement("path", { d: path, fill: "none", stroke: BLUE, "stroke-width": 2 }));
    for (let e = Math.ceil(logMin); e <= logMax; e += 3) {
      svg.append(svgElement("text", { x: px(e), y: frame.bottom + 14, "text-anchor": "middle", ...FONT }, "1e" + e));
    }
    // an off-axis triangle sits just inside the frame, clear of the tick labels on both axes
    const inset = offAxis ? 12 * direction * -1 : 0;
    const cx = px(Math.min(logMax, Math.max(logMin, logRms))) + inset;
    const cy = py(s.scaledNormalizedMeanSquare);
    const data = { "data-role": "marker", "data-rms": s.scaledRms, "data-mean-square": s.scaledNormalizedMeanSquare,
      "data-off-axis": offAxis || "", fill: INK };
    svg.append(offAxis
      ? svgElement("polygon", { ...data, points: `${cx + 9 * direction},${cy} ${cx - 3 * direction},${cy - 7} `
          + `${cx - 3 * direction},${cy + 7}` })
      : svgElement("path", { ...data, d: `M${cx - 6},${cy - 6}L${cx + 6},${cy + 6}M${cx - 6},${cy + 6}L${cx + 6},${cy - 6}`,
          stroke: INK, "stroke-width": 3 }));
  }

  // The slider's exponent held to its range (the page's data), whatever the control was made to say:
  // past either end it is that end, and a value that is no number at all is the lowest.
  function heldExponent(value, [low, high]) {
    if (value > high) return high;
    return value >= low ? value : low;
  }

  function init(root) {
    const config = JSON.parse(root.querySelector("script[type='application/json']").textContent);
    ({ blue: BLUE, orange: ORANGE, grey: GREY } = config.palette);
    HEADROOM = config.headroom;
    const controls = {
      vector: root.querySelector("[data-control='vector']"),
      scale: root.querySelector("[data-control='scale']"),
      eps: root.querySelector("[data-control='eps']"),
    };
    const cells = Array.from(root.querySelectorAll("[data-readout]"));
    const [barsSvg, curveSvg] = root.querySelectorAll("svg");
    const hatch = "rmsnorm-hatch-" + document.querySelectorAll(".rmsnorm-explorer[data-ready]").length;

    for (const check of config.checks) {
      const s = explore(config, check.vector, check.scale, check.eps);
      const values = [...s.normalized, ...s.scaledNormalized, s.maxDifference, s.scaledRms];
      const expected = [...check.normalized, ...check.scaled_normalized, check.max_difference, check.scaled_rms];
      values.forEach((v, i) => {
        if (Math.abs(v - expected[i]) > 1e-9 * Math.max(1, Math.abs(expected[i]))) {
          console.error("explorer disagrees with rms_norm", check, values);
        }
      });
    }

    function update() {
      const scale = Math.pow(10, heldExponent(Number(controls.scale.value), config.scale_exponents));
      const eps = Number(controls.eps.value);
      const s = explore(config, controls.vector.value, scale, eps);
      readouts(s, scale).forEach((text, i) => { cells[i].textContent = text; });
      controls.scale.setAttribute("aria-valuetext", "a = " + format(scale, ".6g"));
      const vector = controls.vector.value;
      drawBars(barsSvg, config.vectors[vector], config.bar_limits[vector], s, scale, eps, hatch);
      drawCurve(curveSvg, config.rms_window, eps, s);
    }
    for (const control of Object.values(controls)) control.addEventListener("input", update);
    root.querySelector("fieldset").disabled = false;  // without this script the controls stay off, and say why
    root.querySelector("[data-role='static-figure']").hidden = true;
    for (const svg of [barsSvg, curveSvg]) svg.removeAttribute("hidden");  // an SVG element has no .hidden property
    root.dataset.ready = "true";
    update();
    // drawn again whenever the column's width changes (a phone turned, a page revealed)
    let drawnFor = barsSvg.parentNode.clientWidth;
    new ResizeObserver(() => {
      if (barsSvg.parentNode.clientWidth !== drawnFor) { drawnFor = barsSvg.parentNode.clientWidth; update(); }
    }).observe(barsSvg.parentNode);
  }

  function start() { document.querySelectorAll(".rmsnorm-explorer").forEach(init); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
