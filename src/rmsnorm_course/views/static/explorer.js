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

  // Python's "{:.Ng}" and "{:.6f}", so the page prints what the notebook prints.
  function g(v, digits) {
    if (v === 0) return "0";
    const exponent = Math.floor(Math.log10(Math.abs(v)));
    if (exponent < -4 || exponent >= digits) {
      const [mantissa, power] = v.toExponential(digits - 1).split("e");
      const sign = power[0] === "-" ? "-" : "+";
      const powerDigits = power.replace(/^[+-]/, "").padStart(2, "0");
      return mantissa.replace(/\.?0+$/, "") + "e" + sign + powerDigits;
    }
    return v.toPrecision(digits).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  }
  const g6 = (v) => g(v, 6);
  const f6 = (v) => v.toFixed(6);
  const vector6 = (v) => "[" + v.map(f6).join(", ") + "]";

  function readouts(s, scale) {
    // The order of explorer.readout_rows in Python.
    return [
      g6(scale),
      vector6(s.normalized),
      vector6(s.scaledNormalized),
      g(s.maxDifference, 7),
      g6(s.scaledRms),
      f6(s.scaledNormalizedMeanSquare),
    ];
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svgElement(name, attributes) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    return element;
  }

  // mean(x-hat^2) against log10(RMS of the input), with a marker at a*x.
  function drawCurve(svg, eps, s) {
    const width = 420, height = 220, left = 48, bottom = 36, top = 12, right = 12;
    const logMin = -6, logMax = 3;
    const px = (logRms) => left + ((logRms - logMin) / (logMax - logMin)) * (width - left - right);
    const py = (y) => height - bottom - y * (height - bottom - top);
    svg.replaceChildren();
    svg.append(svgElement("rect", { x: left, y: top, width: width - left - right, height: height - top - bottom,
      fill: "none", stroke: "#555" }));
    let path = "";
    for (let i = 0; i <= 180; i++) {
      const logRms = logMin + ((logMax - logMin) * i) / 180;
      const y = normalize([Math.pow(10, logRms)], eps)[0] ** 2;
      path += (i ? "L" : "M") + px(logRms).toFixed(1) + "," + py(y).toFixed(1);
    }
    svg.append(svgElement("path", { d: path, fill: "none", stroke: "#0072B2", "stroke-width": 2 }));
    for (let e = logMin; e <= logMax; e += 3) {
      const label = svgElement("text", { x: px(e), y: height - bottom + 16, "text-anchor": "middle", "font-size": 11 });
      label.textContent = "1e" + e;
      svg.append(label);
    }
    for (const y of [0, 0.5, 1]) {
      const label = svgElement("text", { x: left - 6, y: py(y) + 4, "text-anchor": "end", "font-size": 11 });
      label.textContent = String(y);
      svg.append(label);
    }
    const xTitle = svgElement("text", { x: (left + width) / 2, y: height - 4, "text-anchor": "middle", "font-size": 11 });
    xTitle.textContent = "RMS of the input (log scale)";
    const yTitle = svgElement("text", { x: 12, y: (top + height - bottom) / 2, "text-anchor": "middle",
      "font-size": 11, transform: `rotate(-90 12 ${(top + height - bottom) / 2})` });
    yTitle.textContent = "mean of x-hat squared";
    svg.append(xTitle, yTitle);
    const logRms = Math.min(logMax, Math.max(logMin, Math.log10(s.scaledRms)));
    const marker = svgElement("circle", { cx: px(logRms), cy: py(s.scaledNormalizedMeanSquare), r: 6,
      fill: "black", "data-role": "marker", "data-rms": s.scaledRms, "data-mean-square": s.scaledNormalizedMeanSquare });
    svg.append(marker);
  }

  function init(root) {
    const config = JSON.parse(root.querySelector("script[type='application/json']").textContent);
    const controls = {
      vector: root.querySelector("[data-control='vector']"),
      scale: root.querySelector("[data-control='scale']"),
      eps: root.querySelector("[data-control='eps']"),
    };
    const cells = Array.from(root.querySelectorAll("[data-readout]"));
    const svg = root.querySelector("svg");

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
      const scale = Math.pow(10, Number(controls.scale.value));
      const eps = Number(controls.eps.value);
      const s = explore(config, controls.vector.value, scale, eps);
      readouts(s, scale).forEach((text, i) => { cells[i].textContent = text; });
      controls.scale.setAttribute("aria-valuetext", "a = " + g6(scale));
      drawCurve(svg, eps, s);
    }
    for (const control of Object.values(controls)) control.addEventListener("input", update);
    root.querySelector("[data-role='static-figure']").hidden = true;
    svg.removeAttribute("hidden");  // an SVG element has no .hidden property
    root.dataset.ready = "true";
    update();
  }

  function start() { document.querySelectorAll(".rmsnorm-explorer").forEach(init); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
