// Prediction boxes that answer back without a kernel.
//
// Each box (class "prediction") carries its exercise's data, written by the package at
// build time: the kind of answer, the reference answer, the tolerance, the hint, the
// pitfalls and the explanation. This script reads what the reader typed by the rules of
// kinds.read_typed, then judges it as feedback.judge does, with the same words. The
// browser tests type the same strings here and into check() and compare the verdicts.
(function () {
  "use strict";
  if (window.rmsnormPredictions) return;  // one copy serves every box on the page
  window.rmsnormPredictions = true;

  // --- what was typed, as a value (kinds.read_typed) ---------------------------------
  const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
  const WHOLE = /^[+-]?\d+$/;
  const BRACKETS = { "[": "]", "(": ")" };

  function num(value, whole, text) { return { num: value, whole: whole, text: whole ? BigInt(text).toString() : text }; }
  function isNum(v) { return v !== null && typeof v === "object" && "num" in v; }

  const INT_DIGITS = 4300;  // Python turns at most this many digits into an int; more read as a float

  function scalar(text) {
    if (WHOLE.test(text) && text.replace(/^[+-]/, "").length > INT_DIGITS) return num(Number(text), false, text);
    if (WHOLE.test(text)) return num(Number(text), true, text);
    if (NUMBER.test(text)) return num(Number(text), false, text);
    if (text.length >= 2 && text[0] === text[text.length - 1] && (text[0] === '"' || text[0] === "'")) {
      return text.slice(1, -1);
    }
    return text;
  }

  function readTyped(raw) {
    const text = raw.replace(/\u2212/g, "-").trim();
    if (!text) return null;
    if (BRACKETS[text[0]] && text[text.length - 1] === BRACKETS[text[0]]) {
      const items = text.slice(1, -1).split(",").map(function (item) { return item.trim(); });
      if (items.length && !items[items.length - 1]) items.pop();
      return items.map(scalar);
    }
    return scalar(text);
  }

  // --- Python's way of writing values, for messages that match check()'s --------------
  function pyStr(s) {
    const quote = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    let out = quote;
    for (const ch of s) {
      const code = ch.codePointAt(0);
      if (ch === "\\") out += "\\\\";
      else if (ch === quote) out += "\\" + quote;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0xad) out += "\\x" + code.toString(16).padStart(2, "0");
      else if (code === 0x2028 || code === 0x2029 || (code >= 0xd800 && code <= 0xdfff)) out += "\\u" + code.toString(16).padStart(4, "0");
      else out += ch;
    }
    return out + quote;
  }

  function digitsAndExponent(x) {
    const [mantissa, exponent] = x.toExponential().split("e");
    return { digits: mantissa.replace("-", "").replace(".", ""), exponent: Number(exponent), negative: x < 0 || Object.is(x, -0) };
  }

  function pyFloatRepr(x) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    const { digits, exponent, negative } = digitsAndExponent(x);
    const sign = negative ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
      const mantissa = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
      return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String(Math.abs(exponent)).padStart(2, "0");
    }
    let whole, fraction;
    if (exponent < 0) { whole = "0"; fraction = "0".repeat(-exponent - 1) + digits; }
    else {
      const padded = digits.padEnd(exponent + 1, "0");
      whole = padded.slice(0, exponent + 1); fraction = padded.slice(exponent + 1);
    }
    return sign + whole + "." + (fraction || "0");
  }

  function pyG(x, precision) {  // Python's format(x, ".6g")
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    const exponent = Number(x.toExponential(precision - 1).split("e")[1]);
    if (exponent < -4 || exponent >= precision) {
      let [mantissa, e] = x.toExponential(precision - 1).split("e");
      if (mantissa.indexOf(".") >= 0) mantissa = mantissa.replace(/0+$/, "").replace(/\.$/, "");
      const n = Number(e);
      return mantissa + "e" + (n < 0 ? "-" : "+") + String(Math.abs(n)).padStart(2, "0");
    }
    let fixed = x.toFixed(Math.max(0, precision - 1 - exponent));
    if (fixed.indexOf(".") >= 0) fixed = fixed.replace(/0+$/, "").replace(/\.$/, "");
    return fixed;
  }

  function pyFixed6(x) {
    if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
    const text = x.toFixed(6);
    return Object.is(x, -0) || (x < 0 && Number(text) === 0) ? "-" + text.replace("-", "") : text;
  }

  const SHOWN_TEXT = 60;

  function shortened(text) {  // kinds.shortened, counting characters as Python does
    const chars = Array.from(text);
    if (chars.length <= SHOWN_TEXT) return pyStr(text);
    return pyStr(chars.slice(0, SHOWN_TEXT).join("")) + "... (" + chars.length + " characters)";
  }

  function described(raw) {  // kinds._described
    if (typeof raw === "string") return "the text " + shortened(raw);
    if (Array.isArray(raw)) return "a list of " + raw.length + " value" + (raw.length === 1 ? "" : "s");
    return raw.whole ? String(raw.num) : pyFloatRepr(raw.num);
  }

  class Unreadable extends Error {}

  function unquoted(text) {  // kinds._unquoted
    const t = text.trim();
    if (t.length >= 2 && t[0] === t[t.length - 1] && (t[0] === '"' || t[0] === "'")) return t.slice(1, -1);
    return t;
  }

  function asTyped(raw) {  // kinds._as_typed: text that reads as a number or a list is that value
    if (typeof raw === "string") {
      const value = readTyped(unquoted(raw));
      if (value !== null && typeof value !== "string") return value;
    }
    return raw;
  }

  function items(raw, what) {
    if (Array.isArray(raw)) return raw;
    throw new Unreadable("expected " + what + ", got " + described(raw));
  }

  // --- the four kinds (kinds.Number, Vector, Shape, Choice) ---------------------------
  const KINDS = {
    number: {
      describe: function () { return "a number, like 0.5"; },
      read: function (raw) {
        const value = asTyped(raw);
        if (isNum(value)) return value.num;
        throw new Unreadable("expected " + this.describe() + ", got " + described(raw));
      },
      agrees: function (given, expected, tolerance) { return Number.isFinite(given) && Math.abs(given - expected) <= tolerance; },
      show: function (value) { return pyG(value, 6); },
    },
    vector: {
      describe: function (kind) {
        return "a list of " + kind.length + " numbers, like [" + ["0.5", "-1.25", "2.0", "0.75"].slice(0, kind.length).join(", ") + "]";
      },
      read: function (raw, kind) {
        const what = this.describe(kind);
        const list = items(asTyped(raw), what);
        if (list.length !== kind.length) {
          throw new Unreadable("expected " + what + ", got " + list.length + " value" + (list.length === 1 ? "" : "s"));
        }
        return list.map(function (item, position) {
          const value = asTyped(item);
          if (!isNum(value)) throw new Unreadable("expected " + what + "; entry " + position + " is " + described(item));
          return value.num;
        });
      },
      agrees: function (given, expected, tolerance) {
        return given.every(function (g, i) { return KINDS.number.agrees(g, expected[i], tolerance); });
      },
      show: function (value) { return "[" + value.map(pyFixed6).join(", ") + "]"; },
    },
    shape: {
      describe: function () { return "a list of whole numbers, one per axis, like [4, 7]"; },
      read: function (raw) {
        const what = this.describe();
        const value = asTyped(raw);
        const list = items(isNum(value) && value.whole ? [value] : value, what);
        return list.map(function (item, position) {
          const size = asTyped(item);
          if (!isNum(size) || !size.whole || size.num < 0) {
            throw new Unreadable("expected " + what + "; entry " + position + " is " + described(item));
          }
          return size.num;
        });
      },
      agrees: function (given, expected) { return given.length === expected.length && given.every(function (g, i) { return g === expected[i]; }); },
      show: function (value) { return "(" + value.join(", ") + (value.length === 1 ? ",)" : ")"); },
    },
    choice: {
      letters: function (kind) { return "ABCDEFGHIJKLMNOPQRSTUVWXYZ".slice(0, kind.options.length); },
      describe: function (kind) {
        const letters = this.letters(kind);
        return "a letter from " + letters[0] + " to " + letters[letters.length - 1] + " in quotes, or the words of an option";
      },
      read: function (raw, kind) {
        const letters = this.letters(kind);
        if (typeof raw !== "string") {
          const hint = isNum(raw) && raw.whole ? "; answer with the option's letter in quotes" : "";
          throw new Unreadable("expected " + this.describe(kind) + ", got " + described(raw) + hint);
        }
        const text = unquoted(raw);
        const letter = /^\(?\s*([A-Za-z])(?:\s*[).])?$/.exec(text);
        if (letter && letters.indexOf(letter[1].toUpperCase()) >= 0) return letters.indexOf(letter[1].toUpperCase());
        const labelled = /^\(?\s*([A-Za-z])\s*[).]\s+(\S.*)$/.exec(text);
        if (labelled && letters.indexOf(labelled[1].toUpperCase()) >= 0) {
          const index = letters.indexOf(labelled[1].toUpperCase());
          if (plainWords(labelled[2]) === plainWords(kind.options[index])) return index;
        }
        const wanted = plainWords(text);
        for (let index = 0; index < kind.options.length; index++) {
          if (plainWords(kind.options[index]) === wanted) return index;
        }
        throw new Unreadable("expected " + this.describe(kind) + ", got " + described(raw));
      },
      agrees: function (given, expected) { return given === expected; },
      show: function (value, kind) { return this.letters(kind)[value] + ") " + kind.options[value]; },
    },
  };

  function plainWords(text) {  // kinds._plain_words (str.casefold, close enough to lowercase here)
    return text.toLowerCase().split(/\s+/).filter(Boolean).join(" ").replace(/\.+$/, "");
  }

  // --- the verdict (feedback.judge) ----------------------------------------------------
  function judge(data, typed) {
    const kind = data.kind, rules = KINDS[kind.type];
    const raw = readTyped(typed);
    if (raw === null || (typeof raw === "string" && !raw.trim())) return { outcome: "not_answered", message: data.prompt + " Answer with " + rules.describe(kind) + "." };
    let given;
    try {
      given = rules.read(raw, kind);
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      return { outcome: "unreadable", message: error.message + "." };
    }
    const shown = rules.show(given, kind);
    if (rules.agrees(given, data.answer, data.tolerance)) return { outcome: "correct", message: data.explanation, answer: shown };
    const slips = data.pitfalls.filter(function (p) { return rules.agrees(given, p[0], data.tolerance); }).map(function (p) { return p[1]; });
    return { outcome: "wrong", message: slips.concat(["Hint: " + data.hint]).join(" "), answer: shown };
  }

  // --- an answers file in the grader's format (TOML) ----------------------------------
  function tomlString(text) {
    let out = '"';
    for (const ch of text) {
      const code = ch.codePointAt(0);
      if (ch === "\\") out += "\\\\";
      else if (ch === '"') out += '\\"';
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (code < 0x20 || code === 0x7f) out += "\\u" + code.toString(16).padStart(4, "0");
      else if (code >= 0xd800 && code <= 0xdfff) out += "\\ufffd";
      else out += ch;
    }
    return out + '"';
  }

  function tomlValue(value) {  // the value read_typed gives, written so the grader reads it back
    if (value === null) return '""';
    if (Array.isArray(value)) return "[" + value.map(tomlValue).join(", ") + "]";
    if (typeof value === "string") return tomlString(value);
    return value.whole ? value.text : pyFloatRepr(value.num);
  }

  // --- progress that stays in this browser ----------------------------------------------
  const STORE = "rmsnorm-course/answers";
  function stored() {
    try { return JSON.parse(window.localStorage.getItem(STORE)) || {}; } catch (error) { return {}; }
  }
  function store(answers) {
    try { window.localStorage.setItem(STORE, JSON.stringify(answers)); } catch (error) { /* private mode: keep going */ }
  }

  let chapter = [];  // every exercise id, in the grader's order
  let panel = null;

  function answersFile() {
    const answers = stored();
    const lines = [
      "# My predictions, typed in the RMSNorm chapter's prediction boxes.",
      "# Grade them with:  pytest exercises --answers answers.toml",
    ];
    for (const id of chapter) {
      const typed = Object.prototype.hasOwnProperty.call(answers, id) ? answers[id] : "";
      lines.push(id + " = " + tomlValue(readTyped(typed)));
    }
    return lines.join("\n") + "\n";
  }

  function updateProgress() {
    if (!panel) return;
    const answers = stored();
    const checked = chapter.filter(function (id) { return readTyped(answers[id] || "") !== null; }).length;
    panel.querySelector(".prediction-count").textContent = checked + " of " + chapter.length + " predictions checked";
  }

  function makePanel(first) {
    panel = document.createElement("div");
    panel.className = "prediction-progress";
    panel.setAttribute("role", "region");
    panel.setAttribute("aria-label", "Your predictions");
    panel.style.cssText = "display: flex; gap: 0.8em; align-items: center; flex-wrap: wrap; margin: 0.6em 0;";
    const count = document.createElement("span");
    count.className = "prediction-count";
    const download = document.createElement("button");
    download.type = "button";
    download.textContent = "Download my answers";
    download.addEventListener("click", function () {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([answersFile()], { type: "application/toml" }));
      link.download = "answers.toml";
      document.body.append(link);
      link.click();
      link.remove();
    });
    const clear = document.createElement("button");
    clear.type = "button";
    clear.textContent = "Clear my answers";
    clear.addEventListener("click", function () {
      try { window.localStorage.removeItem(STORE); } catch (error) { /* nothing stored */ }
      document.querySelectorAll(".prediction[data-exercise]").forEach(function (box) {
        box.querySelector("input").value = "";
        const status = box.querySelector("[role='status']");
        status.textContent = "";
        delete status.dataset.outcome;
        status.style.borderLeftColor = "transparent";
      });
      updateProgress();
    });
    const note = document.createElement("span");
    note.textContent = "(kept in this browser only)";
    note.style.opacity = "0.75";
    panel.append(count, download, clear, note);
    first.parentNode.insertBefore(panel, first);
  }

  function show(box, data, verdict) {
    const status = box.querySelector("[role='status']");
    const look = data.looks[verdict.outcome];
    status.textContent = "";
    const word = document.createElement("strong");
    word.textContent = look.word;
    const mark = document.createElement("span");
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = " " + look.mark;
    const message = document.createElement("span");
    message.textContent = (verdict.answer !== undefined ? " (you said " + verdict.answer + ")" : "") + ": " + verdict.message;
    status.append(word, mark, message);
    status.dataset.outcome = verdict.outcome;
    status.style.borderLeftColor = look.colour;
  }

  function wire(box) {
    const data = JSON.parse(box.querySelector("script.prediction-data").textContent);
    if (!chapter.length) chapter = data.chapter;
    if (!panel) makePanel(box);
    const form = box.querySelector("form");
    const input = box.querySelector("input");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      show(box, data, judge(data, input.value));
      const answers = stored();
      answers[data.id] = input.value;
      store(answers);
      updateProgress();
    });
    const earlier = stored()[data.id];
    if (typeof earlier === "string" && earlier.trim()) {
      input.value = earlier;
      show(box, data, judge(data, earlier));
    }
    box.dataset.ready = "true";
  }

  function start() {
    document.querySelectorAll(".prediction[data-exercise]").forEach(wire);
    updateProgress();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
