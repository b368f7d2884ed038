// Prediction boxes that answer back without a kernel, and a page that waits for them.
//
// What an answer is comes from the package as data, in prediction-data.js: the reading rules
// (exercises/reading.py), every exercise id in the grader's order and each verdict's look
// (window.rmsnormPredictionData); and, in each box, its exercise's kind, reference, known
// slips and every text a verdict can say (exercises/feedback.py).
// This script applies them as they are: it reads, compares and picks; it composes no words.
// Until a box has a verdict, or the reader asks for its answer, what follows it on the page
// is out of sight; without this script, or in print, the whole page is there.
(function () {
  "use strict";
  if (window.rmsnormPredictions) return;  // one copy serves every box on the page
  window.rmsnormPredictions = true;
  const SHARED = window.rmsnormPredictionData;
  const RULES = SHARED.rules;

  // --- reading (exercises/reading.py) --------------------------------------------------
  const TABLE = new Map(Object.entries(RULES.characters.single).map(([c, p]) => [c.codePointAt(0), p]));
  for (const [first, count, to] of RULES.characters.runs) {
    for (let k = 0; k < count; k++) TABLE.set(first + k, String.fromCodePoint(to + k));
  }
  const whole = (pattern) => new RegExp("^(?:" + pattern + ")$");
  const NUMBER = whole(RULES.number), WHOLE = whole(RULES.whole);
  const LETTER = whole(RULES.letter), LABELLED = whole(RULES.labelled);

  const plain = (text) => Array.from(text, (c) => TABLE.get(c.codePointAt(0)) ?? c).join("");
  const trim = (text) => text.replace(/^ +| +$/g, "");
  const length = (text) => Array.from(text).length;

  function typed(raw) {  // reading.typed: { text, entries }
    let text = trim(plain(raw));
    if (text.length >= 2 && text[0] === text[text.length - 1] && RULES.quotes.includes(text[0])) text = trim(text.slice(1, -1));
    if (text.length >= 2 && ((text[0] === "[" && text.endsWith("]")) || (text[0] === "(" && text.endsWith(")")))) {
      const entries = text.slice(1, -1).split(",").map(trim);
      if (entries.length && !entries[entries.length - 1]) entries.pop();
      return { text, entries };
    }
    return { text, entries: null };
  }

  function decimals(token) {  // reading.decimals
    const [mantissa, exponent = ""] = token.toLowerCase().split("e");
    const fraction = mantissa.split(".")[1] || "";
    const digits = exponent.replace(/^[+-]/, "");
    const shift = !exponent ? 0 : (digits.length <= 6 ? Number(digits) : 999999) * (exponent[0] === "-" ? -1 : 1);
    return Math.min(Math.max(fraction.length - shift, 0), 999999);
  }

  const plainWords = (text) => text.replace(/[A-Z]/g, (c) => c.toLowerCase()).split(" ").filter(Boolean).join(" ").replace(/\.+$/, "");

  // --- the kinds (exercises/kinds.py): a reading, or what was found instead ----------------
  class Found { constructor(key, fill) { this.key = key; this.fill = fill || {}; } }
  const listFound = (entries) => entries.length === 1 ? new Found("list of one") : new Found("list", { count: entries.length });

  function size(entry) {  // kinds._size
    if (!WHOLE.test(entry)) return null;
    const digits = entry.replace(/^[+-]/, "").replace(/^0+/, "") || "0";
    return entry[0] === "-" && digits !== "0" ? null : digits;
  }

  const READ = {
    number(t) {
      if (t.entries === null && NUMBER.test(t.text)) return { value: [Number(t.text)], shown: t.text, decimals: [decimals(t.text)] };
      return t.entries === null ? new Found("text", { what: "a number" }) : listFound(t.entries);
    },
    vector(t, kind) {
      if (t.entries === null) return NUMBER.test(t.text) ? new Found("number") : new Found("text", { what: "a list of numbers" });
      if (t.entries.length !== kind.length) return listFound(t.entries);
      const bad = t.entries.findIndex((e) => !NUMBER.test(e));
      if (bad >= 0) return new Found("entry", { index: bad + 1, what: "a number" });
      return { value: t.entries.map(Number), shown: "[" + t.entries.join(", ") + "]", decimals: t.entries.map(decimals) };
    },
    shape(t) {
      const entries = t.entries === null ? [t.text] : t.entries;
      const sizes = entries.map(size), bad = sizes.indexOf(null), what = "a whole number of 0 or more";
      if (bad >= 0) return t.entries === null ? new Found("text", { what }) : new Found("entry", { index: bad + 1, what });
      return { value: sizes, shown: "(" + sizes.join(", ") + (sizes.length === 1 ? ",)" : ")") };
    },
    choice(t, kind) {
      let index = -1;
      const letter = LETTER.exec(t.text), labelled = LABELLED.exec(t.text);
      if (letter) index = kind.letters.indexOf(letter[1].toUpperCase());
      if (index < 0 && labelled) {
        const at = kind.letters.indexOf(labelled[1].toUpperCase());
        if (at >= 0 && plainWords(labelled[2]) === kind.words[at]) index = at;
      }
      if (index < 0) index = kind.words.indexOf(plainWords(t.text));
      return index < 0 ? new Found("no option") : { value: index, shown: kind.letters[index] };
    },
  };

  // --- comparing (kinds._compare) and the verdict (feedback.judge) ---------------------------
  const agree = (g, e, d) => Number.isFinite(g) && Math.abs(g - e) <= 0.5 / 10 ** d + 1e-12 * Math.max(1, Math.abs(e));
  const nearly = (g, e, d) => Number.isFinite(g) && Math.abs(g - e) < 0.5 / 10 ** d;
  const list = (v) => (Array.isArray(v) ? v : [v]);

  function compare(kind, given, expected) {
    if (kind.type === "shape") return given.value.join() === expected.join() ? "correct" : "wrong";
    if (kind.type === "choice") return given.value === expected ? "correct" : "wrong";
    const e = list(expected);
    if (given.value.every((g, i) => agree(g, e[i], kind.decimals))) return "correct";
    const soFar = given.value.every((g, i) => nearly(g, e[i], Math.min(given.decimals[i], kind.decimals)));
    const fewer = Math.min(...given.decimals) < kind.decimals && given.value.some((g) => g !== 0);
    return soFar && fewer ? "close" : "wrong";
  }

  function matches(kind, given, value) {  // kinds.*.matches: a known slip, to the decimals given
    if (kind.type === "shape" || kind.type === "choice") return compare(kind, given, value) === "correct";
    const v = list(value);
    return given.value.every((g, i) => agree(g, v[i], Math.min(given.decimals[i], kind.decimals)));
  }

  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
  const shortened = (text) => (length(text) <= 60 ? text : Array.from(text).slice(0, 60).join("") + "… (" + length(text) + " characters)");

  function judge(data, raw) {
    const words = data.words;
    const unreadable = (found) => ({ outcome: "unreadable", message: fill(words.unreadable, { expected: words.expected, found }) });
    if (length(raw) > RULES.longest) return unreadable(fill(words.found.long, { count: length(raw), longest: RULES.longest }));
    const t = typed(raw);
    if (!t.text && t.entries === null) return { outcome: "not_answered", message: words.not_answered };
    const given = READ[data.kind.type](t, data.kind);
    if (given instanceof Found) return unreadable(fill(words.found[given.key], given.fill));
    const outcome = compare(data.kind, given, data.answer), shown = shortened(given.shown);
    if (outcome !== "wrong") return { outcome, message: words[outcome], answer: shown };
    const slips = data.pitfalls.filter((p) => matches(data.kind, given, p[0])).map((p) => p[1]);
    return { outcome, message: slips.concat([words.wrong]).join(" "), answer: shown };
  }
  window.rmsnormJudge = judge;  // for the browser tests, which hold it to check()

  // --- what stays in this browser: the first and last answer, and answers shown ---------------
  const STORE = "rmsnorm-course/answers";
  const READABLE = ["correct", "close", "wrong"];
  let setAside = false;  // a stored entry this page could not use, and said so

  function load() {  // whatever the store holds, the entries this page can use; the rest set aside, said so
    const clean = { answers: {}, shown: [] };
    let saved;
    try {
      const text = window.localStorage.getItem(STORE);
      if (text === null) return clean;
      saved = JSON.parse(text);
    } catch (error) { setAside = true; return clean; }
    if (!saved || typeof saved !== "object" || Array.isArray(saved)) { setAside = true; return clean; }
    if (Object.keys(saved).some((key) => key !== "answers" && key !== "shown")) setAside = true;
    const answers = saved.answers && typeof saved.answers === "object" && !Array.isArray(saved.answers) ? saved.answers : {};
    for (const [id, entry] of Object.entries(answers)) {
      const texts = entry && typeof entry === "object" && ["first", "last"].every((k) => typeof entry[k] === "string" && length(entry[k]) <= RULES.longest);
      if (texts && READABLE.includes(entry.outcome)) clean.answers[id] = entry;
      else setAside = true;
    }
    if (Array.isArray(saved.shown)) clean.shown = saved.shown.filter((id) => typeof id === "string");
    return clean;
  }
  function save(state) {
    try { window.localStorage.setItem(STORE, JSON.stringify(state)); } catch (error) { /* private mode: keep going */ }
  }

  const chapter = SHARED.chapter;  // every exercise id, in the grader's order
  let panel = null;

  function answersFile() {
    const state = load();
    const quoted = (text) => JSON.stringify(text).replace(/\u007f/g, "\\u007f");  // a JSON string is a TOML string
    const lines = ["# My predictions, typed in the RMSNorm chapter's prediction boxes.",
                   "# Grade them with:  pytest exercises --answers answers.toml"];
    const entry = (id, key) => id + " = " + quoted(state.answers[id] ? state.answers[id][key] : "");
    chapter.forEach((id) => lines.push(entry(id, "last")));
    lines.push("", "# Each exercise's first prediction, before any second try.", "[first-tries]");
    chapter.filter((id) => state.answers[id]).forEach((id) => lines.push(entry(id, "first")));
    return lines.join("\n") + "\n";
  }

  function updateProgress() {
    if (!panel) return;
    const answers = load().answers;
    const checked = chapter.filter((id) => answers[id]);
    const right = checked.filter((id) => answers[id].outcome === "correct").length;
    panel.querySelector(".prediction-count").textContent =
      checked.length + " of " + chapter.length + " predictions checked, " + right + " right";
    panel.querySelector(".prediction-set-aside").hidden = !setAside;
  }

  function button(text, action) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", action);
    return b;
  }

  function makePanel(first) {
    panel = document.createElement("div");
    panel.className = "prediction-progress";
    panel.setAttribute("role", "region");
    panel.setAttribute("aria-label", "Your predictions");
    panel.style.cssText = "display: flex; gap: 0.8em; align-items: center; flex-wrap: wrap; margin: 0.6em 0;";
    const count = document.createElement("span");
    count.className = "prediction-count";
    count.setAttribute("aria-live", "polite");
    const download = button("Download my answers", function () {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([answersFile()], { type: "application/toml" }));
      link.download = "answers.toml";
      document.body.append(link);
      link.click();
      link.remove();
    });
    const clear = button("Clear my answers", function () {
      if (!window.confirm("Forget every answer you have given in this chapter, in this browser?")) return;
      try { window.localStorage.removeItem(STORE); } catch (error) { /* nothing stored */ }
      setAside = false;
      document.querySelectorAll(".prediction[data-exercise]").forEach(function (box) {
        box.querySelector("input").value = "";
        box.querySelector("details").open = false;
        show(box, null);
      });
      gate();
      updateProgress();
    });
    const note = document.createElement("span");
    note.textContent = "(kept in this browser only)";
    note.style.opacity = "0.75";
    const aside = document.createElement("span");
    aside.className = "prediction-set-aside";
    aside.textContent = "Some saved answers could not be read and were set aside; the rest are kept.";
    panel.append(count, download, clear, note, aside);
    const anchor = first.closest("details.prediction-review") || first;  // outside a fold, so it is always seen
    anchor.parentNode.insertBefore(panel, anchor);
  }

  function show(box, verdict) {
    const status = box.querySelector("[role='status']");
    status.textContent = "";
    status.style.borderLeftColor = "transparent";
    delete status.dataset.outcome;
    if (!verdict) return;
    const data = JSON.parse(box.querySelector("script.prediction-data").textContent);
    const look = SHARED.looks[verdict.outcome], words = data.words;  // feedback.HEAD, SAID and SENTENCE
    const said = verdict.answer === undefined ? "" : fill(words.said, { answer: verdict.answer });
    const head = fill(words.head, { mark: look.mark, word: look.word }) + said;
    const strong = document.createElement("strong");
    strong.textContent = head;
    status.append(strong, fill(words.sentence, { head: "", message: verdict.message }));
    status.dataset.outcome = verdict.outcome;
    status.style.borderLeftColor = look.colour;
  }

  // --- the page waits: what follows an open box stays out of sight ----------------------------
  const LATER = "prediction-later";
  // While the page is still arriving, everything after a box that holds back waits too
  // (the script runs in the head, before any of it is drawn); once the page is in,
  // gate() decides box by box. In print, and without scripts, nothing waits.
  const LOADING = "prediction-loading";
  const HOLDS = ".prediction[data-gate='true']";
  const style = document.createElement("style");
  style.textContent =
    "@media screen { ." + LATER + " { display: none !important; } " +
    "html." + LOADING + " .bd-article :is(" + HOLDS + ", :has(" + HOLDS + ")) ~ * { display: none !important; } }";
  document.head.append(style);
  if (document.readyState === "loading") document.documentElement.classList.add(LOADING);

  function blocks() {  // the page's leaf blocks in reading order; a box is a block of its own
    const root = document.querySelector(".bd-article") || document.querySelector("main") || document.body;
    const found = [];
    (function walk(node) {
      for (const child of node.children) {
        if (child.matches(".prediction") || !child.querySelector(".prediction")) found.push(child);
        else walk(child);
      }
    })(root);
    return found;
  }

  function gate() {
    const state = load();
    let waiting = false;
    for (const block of blocks()) {
      block.classList.toggle(LATER, waiting);
      const id = block.matches(".prediction[data-gate='true']") && block.dataset.exercise;
      if (id && !state.answers[id] && !state.shown.includes(id)) waiting = true;
    }
  }

  function wire(box) {
    const data = JSON.parse(box.querySelector("script.prediction-data").textContent);
    if (!panel) makePanel(box);
    const input = box.querySelector("input");
    box.querySelector("form").addEventListener("submit", function (event) {
      event.preventDefault();
      const raw = input.value.toWellFormed ? input.value.toWellFormed() : input.value;
      const verdict = judge(data, raw);
      show(box, verdict);
      if (!READABLE.includes(verdict.outcome)) return;
      const state = load();
      const earlier = state.answers[data.id];
      state.answers[data.id] = { first: earlier ? earlier.first : raw, last: raw, outcome: verdict.outcome };
      save(state);
      gate();
      updateProgress();
    });
    box.querySelector("details").addEventListener("toggle", function (event) {
      if (!event.target.open) return;
      const state = load();
      if (!state.shown.includes(data.id)) state.shown.push(data.id);
      save(state);
      gate();
    });
    const earlier = load().answers[data.id];
    if (earlier) {
      input.value = earlier.last;
      show(box, judge(data, earlier.last));
    }
    box.dataset.ready = "true";
  }

  function start() {
    try {
      document.querySelectorAll(".prediction[data-exercise]").forEach(wire);
      gate();
    } finally {
      document.documentElement.classList.remove(LOADING);  // a box that fails to wire holds nothing back
    }
    updateProgress();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
