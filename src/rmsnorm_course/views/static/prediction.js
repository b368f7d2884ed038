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
  const RULES = SHARED.rules, JUDGING = SHARED.judging;

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
    const digits = exponent.replace(/^[+-]/, "").replace(/^0+/, "") || "0";  // 1e+0000000 is 1e0
    const shift = !exponent ? 0 : (digits.length <= 6 ? Number(digits) : 999999) * (exponent[0] === "-" ? -1 : 1);
    return Math.min(Math.max(fraction.length - shift, 0), 999999);
  }

  const toNumber = (token) => {  // float(token): inf, infinity and nan in any case too
    const word = token.replace(/^[+-]/, "").toLowerCase(), sign = token[0] === "-" ? -1 : 1;
    return word === "inf" || word === "infinity" ? sign * Infinity : word === "nan" ? NaN : Number(token);
  };
  const plainWords = (text) => text.replace(/[A-Z]/g, (c) => c.toLowerCase()).split(" ").filter(Boolean).join(" ").replace(/\.+$/, "");

  // --- the kinds (exercises/kinds.py): a reading, or what was found instead ----------------
  class Found { constructor(key, fill) { this.key = key; this.fill = fill || {}; } }
  const listFound = (entries) => entries.length === 1 ? new Found("list of one") : new Found("list", { count: entries.length });
  const FRACTION = whole(RULES.fraction), DECIMAL_COMMA = whole(RULES.decimal_comma), PERCENT = whole(RULES.percent);
  const WITH_WORDS = whole(RULES.with_words), BY = whole(RULES.by), BY_SIGN = new RegExp(RULES.by_sign);

  function size(entry) {  // kinds._size
    if (!WHOLE.test(entry)) return null;
    const digits = entry.replace(/^[+-]/, "").replace(/^0+/, "") || "0";
    return entry[0] === "-" && digits !== "0" ? null : digits;
  }

  function unbracketed(t, by) {  // reading.unbracketed: a list written without its brackets
    if (t.entries !== null) return t;
    if (t.text.includes(",")) return typed("[" + t.text + "]");
    if (by && BY.test(t.text)) return { text: t.text, entries: t.text.split(BY_SIGN) };
    return t;
  }

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
      const t = unbracketed(raw, false);
      if (t.entries === null) return NUMBER.test(t.text) ? new Found("number") : new Found("text", { what: "a list of numbers" });
      if (t.entries.length !== kind.length) return listFound(t.entries);
      const bad = t.entries.findIndex((e) => !NUMBER.test(e));
      if (bad >= 0) return new Found("entry", { index: bad + 1, what: "a number" });
      return { value: t.entries.map(toNumber), shown: "[" + t.entries.join(", ") + "]", decimals: t.entries.map(decimals) };
    },
    shape(raw) {
      const t = unbracketed(raw, true);
      const entries = t.entries === null ? [t.text] : t.entries;
      const sizes = entries.map(size), bad = sizes.indexOf(null), what = "a whole number of 0 or more";
      if (bad >= 0) return t.entries === null ? new Found("text", { what }) : new Found("entry", { index: bad + 1, what });
      return { value: sizes, shown: "(" + sizes.join(", ") + (sizes.length === 1 ? ",)" : ")") };
    },
    place(t) {  // kinds.Place.read: a number as typed, or as the marker wrote it
      return t.entries === null ? number(t.text, { decimals: 0, units: [] }) : listFound(t.entries);
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
  const agree = (g, e, d) => (Number.isFinite(g) && Number.isFinite(e)  // kinds._agree: inf is inf, nan is nan
    ? Math.abs(g - e) <= 0.5 / 10 ** d + JUDGING.slack * Math.max(1, Math.abs(e))
    : g === e || (Number.isNaN(g) && Number.isNaN(e)));
  const nearly = (g, e, d) => Number.isFinite(g) && Math.abs(g - e) < 0.5 / 10 ** d;
  const list = (v) => (Array.isArray(v) ? v : [v]);
  const exact = (kind) => kind.type === "shape" || kind.type === "choice";

  function distance(kind, g, e) {  // kinds.Place.distance: a share of the reference, or degrees the short way
    if (kind.axis.scale === "angle") {
      let mod = (g - e + 180) % 360;
      if (mod !== 0 && mod < 0) mod += 360;  // Python's modulo: the sign of the divisor
      return Math.abs(mod - 180);
    }
    return kind.relative ? Math.abs(g - e) / Math.abs(e) : Math.abs(g - e);
  }
  const within = (kind, g, e) => Number.isFinite(g) && distance(kind, g, e) <= kind.tolerance;

  function compare(kind, given, expected) {
    if (kind.type === "place") return within(kind, given.value[0], expected) ? "correct" : "wrong";
    if (kind.type === "shape") return given.value.join() === expected.join() ? "correct" : "wrong";
    if (kind.type === "choice") return given.value === expected ? "correct" : "wrong";
    const e = list(expected);
    if (given.value.every((g, i) => agree(g, e[i], kind.decimals))) return "correct";
    const soFar = given.value.every((g, i) => nearly(g, e[i], Math.min(given.decimals[i], kind.decimals)));
    const fewer = Math.min(...given.decimals) < kind.decimals && given.value.some((g) => g !== 0);
    return soFar && fewer ? "close" : "wrong";
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
    const exactly = data.pitfalls.filter((p) => matches(data.kind, given, p[0], true));
    if (outcome === "close" && !exactly.length) return { outcome, message: words.close, answer };
    const slips = exactly.length ? exactly : data.pitfalls.filter((p) => matches(data.kind, given, p[0], false));
    if (slips.length) return { outcome: "wrong", message: slips.map((p) => p[1]).join(" "), detail: words.hint, answer };
    if (words.nonfinite && !exact(data.kind) && list(given.value).some((v) => !Number.isFinite(v))) {
      return { outcome: "wrong", message: words.nonfinite, detail: words.hint, answer };  // feedback.judge: inf or nan
    }
    const place = off(data.kind, given, data.answer);
    if (place !== null) return { outcome: "wrong", message: fill(words.near, { place: words.places[place] }), answer };
    return { outcome: "wrong", message: words.wrong, answer };
  }
  window.rmsnormJudge = judge;  // for the browser tests, which hold it to check()

  // --- what stays in this browser: the first and last answer, answers shown, and who --------------
  // firsts[id] is the first prediction ({ text, shown }: shown when "Show the answer" came before it);
  // "Clear my answers" forgets the answers, never the firsts: a cleared box gets no fresh first try.
  const STORE = "rmsnorm-course/answers";
  const READABLE = ["correct", "close", "wrong"];
  const KEYS = ["answers", "shown", "firsts", "student", "variants"];
  let setAside = false;  // a stored entry this page could not use, and said so

  const isTable = (value) => Boolean(value) && typeof value === "object" && !Array.isArray(value);
  const isText = (value) => typeof value === "string" && length(value) <= RULES.longest;

  function load() {  // whatever the store holds, the entries this page can use; the rest set aside, said so
    const clean = { answers: {}, shown: [], firsts: {}, student: null, variants: {} };
    let saved;
    try {
      const text = window.localStorage.getItem(STORE);
      if (text === null) return clean;
      saved = JSON.parse(text);
    } catch (error) { setAside = true; return clean; }
    if (!isTable(saved)) { setAside = true; return clean; }
    if (Object.keys(saved).some((key) => !KEYS.includes(key))) setAside = true;
    const answers = isTable(saved.answers) ? saved.answers : {};
    for (const [id, entry] of Object.entries(answers)) {
      const texts = isTable(entry) && ["first", "last"].every((k) => isText(entry[k]));
      const right = entry && (entry.right === undefined || typeof entry.right === "boolean");
      if (texts && right && READABLE.includes(entry.outcome)) clean.answers[id] = entry;
      else setAside = true;
    }
    if (Array.isArray(saved.shown)) clean.shown = saved.shown.filter((id) => typeof id === "string");
    const firsts = isTable(saved.firsts) ? saved.firsts : {};
    for (const [id, entry] of Object.entries(firsts)) {
      if (isTable(entry) && isText(entry.text) && typeof entry.shown === "boolean") clean.firsts[id] = entry;
      else setAside = true;
    }
    for (const [id, entry] of Object.entries(clean.answers)) {  // a store kept before firsts were: its first answers
      if (!clean.firsts[id]) clean.firsts[id] = { text: entry.first, shown: false };
    }
    const student = saved.student;
    if (isTable(student) && isText(student.name) && isText(student.id)) clean.student = student;
    const tried = isTable(saved.variants) ? saved.variants : {};
    for (const [id, answers] of Object.entries(tried)) {
      if (!isTable(answers)) { setAside = true; continue; }
      for (const [number, entry] of Object.entries(answers)) {
        const kept = /^[1-9][0-9]?$/.test(number) && isTable(entry) && isText(entry.last) && READABLE.includes(entry.outcome);
        if (kept) (clean.variants[id] = clean.variants[id] || {})[number] = entry;
        else setAside = true;
      }
    }
    return clean;
  }
  function save(state) {
    try { window.localStorage.setItem(STORE, JSON.stringify(state)); } catch (error) { /* private mode: keep going */ }
  }

  const chapter = SHARED.chapter;  // every exercise id, in the grader's order
  let panel = null;

  function answersFile(state) {  // saved_answers.typed_answers_file, which the widget saves in a kernel: the same bytes
    const file = SHARED.file, name = fileName(state);
    const quoted = (text) => JSON.stringify(text).replace(/\u007f/g, "\\u007f");  // a JSON string is a TOML string
    const lines = [file.header, file.grade.replace("{file}", name)];
    if (state.student && state.student.name) lines.push(file.name + " = " + quoted(state.student.name));
    if (state.student && state.student.id) lines.push(file.id + " = " + quoted(state.student.id));
    chapter.forEach((id) => lines.push(id + " = " + quoted(state.answers[id] ? state.answers[id].last : "")));
    lines.push("", file.first, "[" + file.first_tries + "]");
    chapter.filter((id) => state.firsts[id] && state.firsts[id].text).forEach((id) => lines.push(id + " = " + quoted(state.firsts[id].text)));
    lines.push("", file.shown, "[" + file.shown_first + "]");
    chapter.filter((id) => state.firsts[id] && state.firsts[id].shown).forEach((id) => lines.push(id + " = true"));
    const practised = chapter.filter((id) => state.variants[id]);
    if (practised.length) lines.push("", file.variants);
    practised.forEach(function (id) {
      lines.push("[" + file.variants_table + "." + id + "]");
      Object.keys(state.variants[id]).sort((a, b) => a - b).forEach((number) => lines.push(number + " = " + quoted(state.variants[id][number].last)));
    });
    return lines.join("\n") + "\n";
  }

  function fileName(state) {  // answers-ana-perez-12345.toml: ASCII letters, digits and hyphens only
    const who = state.student ? state.student.name + " " + state.student.id : "";
    const slug = who.normalize("NFKD").replace(/[^\x00-\x7f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40).replace(/^-+|-+$/g, "");
    return slug ? "answers-" + slug + ".toml" : SHARED.file.file_name;
  }

  function askWho(state) {  // asked once, kept in this browser; an empty answer is kept too, and not asked again
    const asked = (question, kept) => {
      const given = window.prompt(question, kept || "");
      return given === null ? kept || "" : Array.from(given.trim()).slice(0, RULES.longest).join("");
    };
    const name = asked("Your name, for your teacher (optional; kept in this browser only):", state.student && state.student.name);
    const id = asked("Your student id (optional):", state.student && state.student.id);
    state.student = { name, id };
    save(state);
  }

  function updateProgress() {
    if (!panel) return;
    const answers = load().answers;
    const checked = chapter.filter((id) => answers[id]);
    const right = checked.filter((id) => answers[id].outcome === "correct").length;
    panel.querySelector(".prediction-count").textContent = fill(SHARED.count, { checked: checked.length, of: chapter.length, right });
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
    const count = document.createElement("span");
    count.className = "prediction-count";  // not a live region: each box's verdict is the one thing announced
    const download = button("Download my answers", function () {
      const state = load();
      if (!state.student) askWho(state);
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([answersFile(state)], { type: "application/toml" }));
      link.download = fileName(state);
      document.body.append(link);
      link.click();
      link.remove();
    });
    const clear = button("Clear my answers", function () {
      if (!window.confirm("Forget every answer you have given in this chapter, in this browser? " +
                          "Your first predictions stay recorded as they were.")) return;
      const kept = load();
      try { window.localStorage.removeItem(STORE); } catch (error) { /* nothing stored */ }
      save({ answers: {}, shown: [], firsts: kept.firsts, student: kept.student });
      setAside = false;
      document.querySelectorAll(".prediction[data-exercise]").forEach(function (box) {
        box.querySelectorAll(".prediction-variant, .prediction-another").forEach((part) => { part.hidden = true; });
        box.querySelector("input.prediction-input").value = "";
        box.querySelector("input.prediction-input").dispatchEvent(new Event("input"));
        box.querySelector("details.prediction-answer").open = false;
        show(box, null);
      });
      gate();
      updateProgress();
    });
    const note = document.createElement("span");
    note.className = "prediction-note";
    note.textContent = "(kept in this browser only)";
    const aside = document.createElement("span");
    aside.className = "prediction-set-aside";
    aside.textContent = "Some saved answers could not be read and were set aside; the rest are kept.";
    panel.append(count, download, clear, note, aside);
    const anchor = first.closest("details.prediction-review") || first;  // outside a fold, so it is always seen
    anchor.parentNode.insertBefore(panel, anchor);
  }

  function show(box, verdict, data) {  // the verdict in a box, or in its variant panel
    const status = box.querySelector(":scope > [role='status']");
    const more = box.querySelector(":scope > .prediction-more");
    status.textContent = "";
    more.textContent = "";
    status.style.borderLeftColor = "transparent";
    delete status.dataset.outcome;
    if (!verdict) return;
    data = data || JSON.parse(box.querySelector("script.prediction-data").textContent);
    const look = SHARED.looks[verdict.outcome], words = data.words;  // feedback.HEAD, SAID and SENTENCE
    const said = verdict.answer === undefined ? "" : fill(words.said, { answer: verdict.answer });
    const head = fill(words.head, { mark: look.mark, word: look.word }) + said;
    const strong = document.createElement("strong");
    strong.textContent = head;
    status.append(strong, fill(words.sentence, { head: "", message: verdict.message }));
    status.dataset.outcome = verdict.outcome;
    status.style.borderLeftColor = look.colour;
    if (verdict.detail) {  // the reasoning under a right answer, the hint under a named slip: folded
      const fold = document.createElement("details"), summary = document.createElement("summary"), p = document.createElement("p");
      summary.textContent = words.folds[verdict.outcome];
      p.textContent = verdict.detail;
      fold.append(summary, p);
      more.append(fold);
    }
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

  const opened = (state, id) => state.shown.includes(id) || Boolean(state.answers[id] && state.answers[id].right);

  // Each block of the page, with the box that holds it back (null where nothing does).
  function holding(state) {
    const held = [];
    let waiting = null;
    for (const block of blocks()) {
      held.push([block, waiting]);
      const id = block.matches(HOLDS) && block.dataset.exercise;
      if (id && !waiting && !opened(state, id)) waiting = block;
    }
    return held;
  }

  function gate() {
    const held = holding(load());
    for (const [block, box] of held) block.classList.toggle(LATER, box !== null);
    document.querySelectorAll(HOLDS).forEach((box) => {
      const notice = box.querySelector(".prediction-hold");
      const waiting = held.filter(([, holder]) => holder === box).map(([block]) => block);
      notice.textContent = waiting.length ? fill(SHARED.hold, { what: described(waiting) }) : "";
      notice.hidden = !waiting.length;
    });
  }

  function described(waiting) {  // what a box holds back, in the page's own headings: said where it stops
    const words = SHARED.held, parts = [];
    const headings = waiting.flatMap((block) => [...block.querySelectorAll("h2, h3")].concat(block.matches("h2, h3") ? [block] : []));
    const first = waiting[0].matches("h2, h3, section") || waiting[0].querySelector("h2, h3");
    if (!first) parts.push(words.rest);
    headings.forEach((h) => parts.push(fill(words.section, { title: h.textContent.replace(/#$/, "").trim() })));
    const figures = waiting.reduce((n, block) => n + block.querySelectorAll("figure, img").length, 0);
    const boxes = waiting.reduce((n, block) => n + block.querySelectorAll(HOLDS).length + (block.matches(HOLDS) ? 1 : 0), 0);
    if (figures) parts.push(fill(figures === 1 ? words.figure : words.figures, { count: figures }));
    if (boxes) parts.push(fill(boxes === 1 ? words.box : words.boxes, { count: boxes }));
    return parts.length > 1 ? parts.slice(0, -1).join(", ") + words.and + parts[parts.length - 1] : parts[0];
  }

  // A link to something held back (the page's contents, say) goes to the box that holds it.
  function followHeld(target) {
    if (!target) return false;
    const held = holding(load()).find(([block]) => block === target || block.contains(target));
    if (!held || held[1] === null) return false;
    held[1].scrollIntoView({ block: "center" });
    held[1].querySelector("input.prediction-input").focus({ preventScroll: true });
    return true;
  }
  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest("a[href^='#']");
    if (!link) return;
    const target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
    if (followHeld(target)) event.preventDefault();
  });

  // A placed answer's figure: the marker writes into the text field, typing moves the marker,
  // and the truth is drawn once the question is answered right or its answer shown.
  function picture(holder, data, input) {
    if (!holder || data.kind.type !== "place" || !window.rmsnormPicture) return null;
    const figure = window.rmsnormPicture.draw(holder, data, function (value) { input.value = value; });
    input.addEventListener("input", function () { figure.typed(input.value); });
    return figure;
  }

  // "Try another": the same question about fresh inputs, judged alike, counted apart, never scored.
  function variants(box, data) {
    if (!data.variants || !data.variants.length) return null;
    const words = SHARED.variants, area = document.createElement("div");
    area.className = "prediction-variant";
    area.hidden = true;
    area.innerHTML = '<p class="prediction-variant-count"></p><p class="prediction-variant-question"></p>' +
      '<div class="prediction-figure"></div><form class="prediction-form"><input class="prediction-variant-input" type="text" autocomplete="off" spellcheck="false">' +
      '<button type="submit"></button></form><p role="status" aria-live="polite" class="prediction-variant-verdict"></p><div class="prediction-more"></div>';
    const another = button(words.another, function () { ask(next()); });
    another.className = "prediction-another";
    another.hidden = true;
    const input = area.querySelector("input"), question = area.querySelector(".prediction-variant-question");
    input.setAttribute("aria-label", words.answer);
    area.querySelector("button").textContent = words.check;
    box.querySelector("details.prediction-answer").before(another, area);
    let current = -1, figure = null;
    const tried = () => load().variants[data.id] || {};
    function count() {
      const right = Object.values(tried()).filter((entry) => entry.outcome === "correct").length;
      area.querySelector(".prediction-variant-count").textContent = fill(words.count, { number: current + 1, of: data.variants.length, right });
    }
    function next() {  // the first variant not yet right after the current one, round the list
      for (let k = 1; k <= data.variants.length; k++) {
        const candidate = (current + k) % data.variants.length;
        if (!tried()[candidate + 1] || tried()[candidate + 1].outcome !== "correct") return candidate;
      }
      return (current + 1) % data.variants.length;
    }
    function ask(number) {
      current = number;
      const variant = data.variants[number], kept = tried()[number + 1];
      area.hidden = false;
      question.textContent = fill(words.question, { number: number + 1, question: variant.question });
      input.value = kept ? kept.last : "";
      figure = picture(area.querySelector(".prediction-figure"), variant, input);
      show(area, kept ? judge(variant, kept.last) : null, variant);
      if (kept && kept.outcome === "correct" && figure) figure.reveal();
      if (figure && kept) figure.typed(kept.last);
      count();
    }
    area.querySelector("form").addEventListener("submit", function (event) {
      event.preventDefault();
      const variant = data.variants[current], raw = input.value.toWellFormed ? input.value.toWellFormed() : input.value;
      const verdict = judge(variant, raw);
      show(area, verdict, variant);
      if (verdict.outcome === "correct" && figure) figure.reveal();
      if (!READABLE.includes(verdict.outcome)) return;
      const state = load();
      (state.variants[data.id] = state.variants[data.id] || {})[current + 1] = { last: raw, outcome: verdict.outcome };
      save(state);
      count();
    });
    return { offer() { another.hidden = false; } };
  }

  function wire(box) {
    const data = JSON.parse(box.querySelector("script.prediction-data").textContent);
    if (!panel) makePanel(box);
    const input = box.querySelector("input.prediction-input");
    const figure = picture(box.querySelector(":scope > .prediction-figure"), data, input);
    const practice = variants(box, data);
    box.querySelector(":scope > form").addEventListener("submit", function (event) {
      event.preventDefault();
      const raw = input.value.toWellFormed ? input.value.toWellFormed() : input.value;
      const verdict = judge(data, raw);
      show(box, verdict);
      if (verdict.outcome === "correct" && figure) figure.reveal();
      if (!READABLE.includes(verdict.outcome)) return;
      if (practice) practice.offer();
      const state = load();
      const earlier = state.answers[data.id];
      const right = Boolean(earlier && earlier.right) || verdict.outcome === "correct";  // once right, open
      state.answers[data.id] = { first: earlier ? earlier.first : raw, last: raw, outcome: verdict.outcome, right };
      const first = state.firsts[data.id];
      if (!first || !first.text) state.firsts[data.id] = { text: raw, shown: Boolean(first && first.shown) };
      save(state);
      gate();
      updateProgress();
    });
    box.querySelector("details.prediction-answer").addEventListener("toggle", function (event) {
      if (!event.target.open) return;
      if (figure) figure.reveal();
      if (practice) practice.offer();
      const state = load();
      if (!state.shown.includes(data.id)) state.shown.push(data.id);
      if (!state.firsts[data.id]) state.firsts[data.id] = { text: "", shown: true };  // shown before any prediction
      save(state);
      gate();
    });
    const state = load(), earlier = state.answers[data.id];
    if (earlier) {
      input.value = earlier.last;
      show(box, judge(data, earlier.last));
      if (figure) figure.typed(earlier.last);
      if (figure && earlier.right) figure.reveal();
      if (practice) practice.offer();
    }
    if (state.shown.includes(data.id)) {
      if (practice) practice.offer();
      if (figure) figure.reveal();
    }
    const group = box.querySelector("[role='radiogroup']");
    if (group) radios(box, group, input, data);
    box.dataset.ready = "true";
  }

  // A choice's options are a radio group: choosing one types its letter, and what is typed
  // (a letter, or an option's words) checks the option it reads as. Arrow keys move, Enter checks.
  function radios(box, group, input, data) {
    const options = Array.from(group.querySelectorAll("[role='radio']"));
    function mark() {
      const reading = READ.choice(typed(input.value), data.kind);
      const chosen = reading instanceof Found ? null : options[reading.value];
      options.forEach((option) => {
        option.setAttribute("aria-checked", String(option === chosen));
        option.tabIndex = option === (chosen || options[0]) ? 0 : -1;
      });
    }
    function choose(option) {
      input.value = option.dataset.letter;
      mark();
      option.focus();
    }
    options.forEach((option, i) => {
      option.addEventListener("click", () => choose(option));
      option.addEventListener("keydown", (event) => {
        const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
        if (step) choose(options[(i + step + options.length) % options.length]);
        else if (event.key === " ") choose(option);
        else if (event.key === "Enter") box.querySelector(":scope > form").requestSubmit();
        else return;
        event.preventDefault();
      });
    });
    input.addEventListener("input", mark);
    mark();
  }

  function start() {
    try {
      document.querySelectorAll(".prediction[data-exercise]").forEach(wire);
      gate();
      if (window.location.hash) followHeld(document.getElementById(decodeURIComponent(window.location.hash.slice(1))));
    } finally {
      document.documentElement.classList.remove(LOADING);  // a box that fails to wire holds nothing back
    }
    updateProgress();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
