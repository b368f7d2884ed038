// The judge of the prediction boxes: what an answer is, and its verdict, without a kernel.
//
// Laid out like its Python counterparts, section by section: reading (reading.py),
// the kinds (kinds.py) and the verdict (verdicts.py). What an answer is comes
// from the package as data (prediction-data.js: window.predictCheckData), and each box
// carries its exercise's kind, reference, known slips and every text a verdict can say. This
// script reads, compares and picks; it fills those texts in and adds no words of its own.
(function () {
  "use strict";
  if (window.predictCheckReading) return;
  const SHARED = window.predictCheckData;
  const RULES = SHARED.rules, JUDGING = SHARED.judging;

  // --- reading (reading.py) --------------------------------------------------
  const CHARACTERS = new Map(Object.entries(RULES.characters));  // reading.CHARACTERS: what students type for ASCII
  const whole = (pattern) => new RegExp("^(?:" + pattern + ")$");
  const NUMBER = whole(RULES.number), WHOLE = whole(RULES.whole);
  const LETTER = whole(RULES.letter), LABELLED = whole(RULES.labelled), PRINTED = whole(RULES.printed);

  const plain = (text) => Array.from(text, (c) => CHARACTERS.get(c) ?? c).join("");
  const trim = (text) => text.replace(/^ +| +$/g, "");
  const length = (text) => Array.from(text).length;

  function typed(raw) {  // reading.typed: { text, entries }
    let text = trim(plain(raw));
    if (text.length >= 2 && text[0] === text[text.length - 1] && RULES.quotes.includes(text[0])) text = trim(text.slice(1, -1));
    const printed = PRINTED.exec(text);  // numpy's and PyTorch's print formats around a value
    if (printed) text = trim(printed[1]);
    if (text.length >= 2 && ((text[0] === "[" && text.endsWith("]")) || (text[0] === "(" && text.endsWith(")")))) {
      const inside = text.slice(1, -1);  // split at commas, or, with none, at spaces as numpy prints
      const entries = inside.includes(",") ? inside.split(",").map(trim) : trim(inside).split(" ").filter(Boolean);
      if (entries.length && !entries[entries.length - 1]) entries.pop();
      return { text, entries };
    }
    return { text, entries: null };
  }

  function decimals(token) {  // reading.decimals
    const [mantissa, exponent = ""] = token.toLowerCase().split("e");
    const fraction = mantissa.split(".")[1] || "";
    if (!exponent) return Math.min(fraction.length, 999999);
    const digits = exponent.replace(/^[+-]/, "").replace(/^0+/, "") || "0";  // 1e+0000000 is 1e0
    const size = digits.length <= 6 ? Number(digits) : 999999;
    const shift = exponent[0] === "-" ? -size : size;
    return Math.min(Math.max(fraction.length - shift, 0), 999999);
  }

  const toNumber = (token) => {  // float(token): inf, infinity and nan in any case too
    const word = token.replace(/^[+-]/, "").toLowerCase(), sign = token[0] === "-" ? -1 : 1;
    if (word === "inf" || word === "infinity") return sign * Infinity;
    if (word === "nan") return NaN;
    return Number(token);
  };
  const lower = (text) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());  // reading.ascii_lower
  const plainWords = (text) => lower(text).split(" ").filter(Boolean).join(" ").replace(/\.+$/, "");

  // --- the kinds (kinds.py): a reading, or what was found instead ----------------
  class Found { constructor(key, fill) { this.key = key; this.fill = fill || {}; } }
  const listFound = (entries) => entries.length === 1 ? new Found("list of one") : new Found("list", { count: entries.length });
  const FRACTION = whole(RULES.fraction), DECIMAL_COMMA = whole(RULES.decimal_comma), PERCENT = whole(RULES.percent);
  const WITH_WORDS = whole(RULES.with_words), BY = whole(RULES.by), BY_SIGN = new RegExp(RULES.by_sign);
  const SPACED = whole(RULES.spaced);

  function size(entry) {  // kinds._size
    if (!WHOLE.test(entry)) return null;
    const digits = entry.replace(/^[+-]/, "").replace(/^0+/, "") || "0";
    return entry[0] === "-" && digits !== "0" ? null : digits;
  }

  function unbracketed(t, by) {  // reading.unbracketed: a list written without its brackets
    if (t.entries !== null) return t;
    if (t.text.includes(",")) return typed("[" + t.text + "]");
    if (by && BY.test(t.text)) return { text: t.text, entries: t.text.split(BY_SIGN) };
    if (SPACED.test(t.text)) return typed("[" + t.text + "]");  // 0.8 1.1: numbers apart by spaces
    return t;
  }

  const COMMA_APART = new RegExp(RULES.comma_apart);
  function decimalCommas(text, count) {  // reading.decimal_commas: [1,27, 0,57], count numbers with decimal commas
    const parts = text.replace(/^[\[\]() ]+|[\[\]() ]+$/g, "").split(COMMA_APART), written = parts.map((p) => DECIMAL_COMMA.test(p));
    return parts.length === count && written.some(Boolean) && parts.every((p, i) => written[i] || NUMBER.test(p));
  }
  const opened = (t) => (t.entries === null && /^[[(]/.test(t.text) ? new Found("open", { close: t.text[0] === "[" ? "]" : ")" }) : null);

  function number(text, kind) {  // kinds._number: a decimal, a fraction, a number in the unit asked
    if (NUMBER.test(text)) return { value: [toNumber(text)], shown: text, decimals: [decimals(text)] };
    const percent = PERCENT.exec(text);
    const fraction = FRACTION.exec(text);
    if (fraction) {
      if (Number(fraction[2]) === 0) return new Found("zero below");
      return { value: [Number(fraction[1]) / Number(fraction[2])], shown: fraction[1] + "/" + fraction[2], decimals: [kind.decimals] };
    }
    const worded = WITH_WORDS.exec(text);
    if (worded && kind.units.includes(plainWords(worded[2]))) {
      return { value: [Number(worded[1])], shown: worded[1] + " " + kind.units[0], decimals: [decimals(worded[1])] };
    }
    if (percent) return { value: [Number(percent[1]) / 100], shown: percent[1] + "%", decimals: [decimals(percent[1]) + 2] };
    if (worded) return new Found("words");
    if (DECIMAL_COMMA.test(text)) return new Found("comma");
    return new Found("text", { what: "a number" });
  }

  const READ = {
    number(t, kind) {
      return t.entries === null ? number(t.text, kind) : listFound(t.entries);
    },
    vector(raw, kind) {
      if (opened(raw)) return opened(raw);  // kinds._unclosed: a list begun and never closed
      const t = unbracketed(raw, false);
      if (t.entries === null) return NUMBER.test(t.text) ? new Found("number") : new Found("text", { what: "a list of numbers" });
      if (t.entries.length !== kind.length) return decimalCommas(t.text, kind.length) ? new Found("list comma") : listFound(t.entries);
      const bad = t.entries.findIndex((e) => !NUMBER.test(e));
      if (bad >= 0) return new Found("entry", { index: bad + 1, what: "a number" });
      return { value: t.entries.map(toNumber), shown: "[" + t.entries.join(", ") + "]", decimals: t.entries.map(decimals) };
    },
    shape(raw) {
      if (opened(raw)) return opened(raw);
      const t = unbracketed(raw, true);
      const entries = t.entries === null ? [t.text] : t.entries;
      const sizes = entries.map(size), bad = sizes.indexOf(null), what = "a whole number of 0 or more";
      if (bad >= 0) return t.entries === null ? new Found("text", { what }) : new Found("entry", { index: bad + 1, what });
      return { value: sizes, shown: "(" + sizes.join(", ") + (sizes.length === 1 ? ",)" : ")") };
    },
    place(t, kind) {  // kinds.Place.read: a number as typed (in degrees on an angle), or as the marker wrote it
      return t.entries === null ? number(t.text, { decimals: 0, units: kind.units }) : listFound(t.entries);
    },
    choice(t, kind) {
      let index = -1;
      const letter = LETTER.exec(lower(t.text)), labelled = LABELLED.exec(lower(t.text));
      if (letter) index = kind.letters.indexOf(letter[1].toUpperCase());
      if (index < 0 && labelled) {
        const at = kind.letters.indexOf(labelled[1].toUpperCase());
        if (at >= 0 && plainWords(labelled[2]) === kind.words[at]) index = at;
      }
      if (index < 0) index = kind.words.indexOf(plainWords(t.text));
      return index < 0 ? new Found("no option") : { value: index, shown: kind.letters[index] };
    },
  };

  // --- comparing (kinds._compare) and the verdict (verdicts.judge) ---------------------------
  const unit = (d) => 1 / Number("1e" + d);  // kinds._unit
  function rounded(v, d) {  // kinds._rounded: half up, by the same float steps
    const scale = Number("1e" + d);
    if (!(Number.isFinite(v) && Math.abs(v) * scale < 2 ** 52)) return v;
    return Math.floor(v * scale + 0.5) / scale;
  }
  const figures = (v, d) => (!Number.isFinite(v) || v === 0 ? 0  // kinds.figures: from the shortest text of v
    : d + Number(Math.abs(v).toExponential().split("e")[1]) + 1);
  const agree = (g, e, d) => (Number.isFinite(g) && Number.isFinite(e)  // kinds._agree: inf is inf, nan is nan
    ? Math.abs(rounded(g, d) - e) <= 0.5 * unit(d) + JUDGING.slack * Math.max(1, Math.abs(e))
    : g === e || (Number.isNaN(g) && Number.isNaN(e)));
  const nearly = (g, e, d) => Number.isFinite(g) && Math.abs(g - e) < 0.5 * unit(d);
  const soFar = (g, d, e, asked) => d < asked && figures(g, d) >= JUDGING.figures && nearly(g, e, d);  // kinds._so_far
  const list = (v) => (Array.isArray(v) ? v : [v]);
  const exact = (kind) => kind.type === "shape" || kind.type === "choice";

  function distance(kind, g, e) {  // kinds.Place.distance: a share of the reference, or degrees the short way
    if (kind.axis.scale === "angle") {
      let mod = (g - e + 180) % 360;
      if (mod !== 0 && mod < 0) mod += 360;  // Python's modulo: the sign of the divisor
      return Math.abs(mod - 180);
    }
    if (!kind.relative) return Math.abs(g - e);
    if (e === 0) return g === 0 ? 0 : Infinity;  // a slip at zero: only zero itself is there
    return Math.abs(g - e) / Math.abs(e);
  }
  const within = (kind, g, e) => Number.isFinite(g) && distance(kind, g, e) <= kind.tolerance;

  function compare(kind, given, expected) {
    if (kind.type === "place") return within(kind, given.value[0], expected) ? "correct" : "wrong";
    if (kind.type === "shape") return given.value.join() === expected.join() ? "correct" : "wrong";
    if (kind.type === "choice") return given.value === expected ? "correct" : "wrong";
    const e = list(expected), right = given.value.map((g, i) => agree(g, e[i], kind.decimals));
    if (right.every(Boolean)) return "correct";
    const close = given.value.every((g, i) => right[i] || soFar(g, given.decimals[i], e[i], kind.decimals));
    return close ? "close" : "wrong";
  }

  function matches(kind, given, value, asked) {  // kinds.*.matches (to the decimals given) and exactly (asked)
    if (exact(kind) || kind.type === "place") return compare(kind, given, value) === "correct";
    const v = list(value);
    return given.value.every((g, i) => agree(g, v[i], asked ? kind.decimals : Math.min(given.decimals[i], kind.decimals)));
  }

  function off(kind, given, expected) {  // kinds._off: where a near miss first differs, or null
    if (exact(kind) || kind.type === "place") return null;
    const e = list(expected);
    if (given.value.some((g, i) => e[i] === 0 || !Number.isFinite(g) || !Number.isFinite(e[i]) || Math.abs(g - e[i]) > JUDGING.near * Math.abs(e[i]))) return null;
    for (let place = 0; place <= kind.decimals; place++) {
      if (!given.value.every((g, i) => nearly(g, e[i], place))) return place;
    }
    return null;
  }

  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
  const shortened = (text) => (length(text) <= JUDGING.shown ? text : Array.from(text).slice(0, JUDGING.shown).join("") + "… (" + length(text) + " characters)");

  function judge(data, raw) {
    const words = data.words;
    const unreadable = (found) => ({ outcome: "unreadable", message: fill(words.unreadable, { expected: words.expected, found }) });
    if (length(raw) > RULES.longest) return unreadable(fill(words.found.long, { count: length(raw), longest: RULES.longest }));
    const t = typed(raw);
    if (!t.text && t.entries === null) return { outcome: "not_answered", message: words.not_answered };
    const given = READ[data.kind.type](t, data.kind);
    if (given instanceof Found) return unreadable(fill(words.found[given.key], given.fill));
    const outcome = compare(data.kind, given, data.answer), answer = shortened(given.shown);
    if (outcome === "correct") return { outcome, message: words.correct, detail: words.detail, answer };
    const noted = (slips) => [...new Set(slips.map((p) => p[1]))].join(" ");  // verdicts._notes: each note once
    const exactly = data.slips.filter((p) => matches(data.kind, given, p[0], true));
    if (exactly.length) return { outcome: "wrong", message: noted(exactly), detail: words.hint, answer };
    const slips = data.slips.filter((p) => matches(data.kind, given, p[0], false)), notes = noted(slips);
    const agrees = matches(data.kind, given, data.answer, false);
    if (slips.length && agrees) return { outcome: "wrong", look: "coarse", message: fill(words.coarse, { slips: notes }), answer };
    if (outcome === "close") return { outcome, message: words.close, answer };
    if (slips.length) return { outcome: "wrong", message: notes, detail: words.hint, answer };
    if (words.nonfinite && !exact(data.kind) && list(given.value).some((v) => !Number.isFinite(v))) {
      return { outcome: "wrong", message: words.nonfinite, detail: words.hint, answer };  // verdicts.judge: inf or nan
    }
    const place = off(data.kind, given, data.answer);
    if (place !== null && agrees) return { outcome: "wrong", look: "coarse", message: words.few, answer };  // too few figures
    if (place !== null) return { outcome: "wrong", message: fill(words.near, { place: words.places[place] }), answer };
    return { outcome: "wrong", message: words.wrong, answer };
  }

  window.predictCheckReading = { judge, typed, fill, length, READ, Found };
  window.predictCheckJudge = judge;  // for the browser tests, which hold it to check()
})();
