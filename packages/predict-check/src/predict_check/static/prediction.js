// The prediction boxes on the page, and a page that waits for them.
//
// Each box is wired to the judge (prediction-judge.js) and the store (prediction-store.js):
// a typed answer gets its verdict, the answer on request (until it is answered right), practice with "Try
// another", and the page's tally and download. Until a box is answered right, or the reader asks for its answer,
// what follows it on the page is out of sight; without the scripts the whole page is there. Printed, the page is
// a worksheet: its text and questions, and what follows each box (its code, its output, the text that says its
// answer) in the answers at the end of the page.
(function () {
  "use strict";
  if (window.predictCheckPage) return;  // one copy serves every box on the page
  window.predictCheckPage = true;
  const SHARED = window.predictCheckData;
  const { judge, typed, fill, READ, Found } = window.predictCheckReading;
  const { load, save, answersFile, fileName, askWho, READABLE } = window.predictCheckStore;
  const store = window.predictCheckStore;

  const chapter = SHARED.chapter;  // every exercise id, in the grader's order
  let panel = null;

  // A first try is right when it was judged right and no answer was shown before it.
  const firstRight = (first) => Boolean(first && first.text && !first.shown && first.outcome === "correct");

  function updateProgress() {
    const state = load();
    standings(state);
    if (!panel) return;
    const checked = chapter.filter((id) => state.answers[id]);
    const right = checked.filter((id) => state.answers[id].outcome === "correct").length;
    const first = checked.filter((id) => firstRight(state.firsts[id])).length;
    const count = { checked: checked.length, of: chapter.length, right, first };
    panel.querySelector(".prediction-count").textContent = fill(SHARED.count, count);
    panel.querySelector(".prediction-set-aside").hidden = !store.setAside;
    panel.querySelector(".prediction-unkept").hidden = !store.unkept;
    panel.querySelector(".prediction-note").hidden = store.unkept;  // "kept in this browser" would not be true
  }

  // How a kept answer is shown: as its outcome, or, for a wrong one judged too coarse to tell, with the coarse look.
  const shownAs = (entry) => (entry.outcome === "wrong" && entry.look === "coarse" ? "coarse" : entry.outcome);

  function standings(state) {  // on the review page, each fold's title says where its exercise stands
    const words = SHARED.standing;
    document.querySelectorAll("details.prediction-review").forEach(function (fold) {
      const id = fold.querySelector(".prediction[data-exercise]").dataset.exercise;
      const answer = state.answers[id], first = state.firsts[id], look = answer && SHARED.looks[shownAs(answer)];
      const parts = [answer ? fill(words.tried, { mark: look.mark, word: look.word }) : words.untried];
      if (first && first.shown) parts.push(words["shown first"]);
      else if (answer) parts.push(firstRight(first) ? words["first right"] : words["first not right"]);
      fold.querySelector(".prediction-standing").textContent = fill(words.joined, { parts: parts.join(", ") });
    });
  }

  function judgedAgain(state, data) {  // the kept outcomes as this page judges them (its judge may be newer)
    let changed = false;
    const answer = state.answers[data.id], first = state.firsts[data.id];
    for (const [entry, text] of [[answer, answer && answer.last], [first, first && first.text]]) {
      const verdict = text ? judge(data, text) : {};
      if (!READABLE.includes(verdict.outcome) || (verdict.outcome === entry.outcome && verdict.look === entry.look)) continue;
      entry.outcome = verdict.outcome;
      if (verdict.look) entry.look = verdict.look;
      else delete entry.look;
      changed = true;
    }
    if (answer && answer.outcome === "correct" && !answer.right) answer.right = true;  // once right, open
    return changed;
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
      if (!(state.student && state.student.name)) askWho(state);  // until a name is given, each download asks
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
      store.forget();
      save({ answers: {}, shown: [], firsts: kept.firsts, student: kept.student });
      store.forgetSetAside();
      document.querySelectorAll(".prediction[data-exercise]").forEach(function (box) {
        box.querySelectorAll(".prediction-variant, .prediction-another").forEach((part) => { part.hidden = true; });
        box.querySelector("input.prediction-input").value = "";
        box.querySelector("input.prediction-input").dispatchEvent(new Event("input"));
        box.querySelector("details.prediction-answer").open = false;
        box.querySelector("details.prediction-answer").hidden = false;
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
    const unkept = document.createElement("span");
    unkept.className = "prediction-unkept";
    unkept.textContent = "This browser does not let the page keep your answers: they will be gone once you close " +
      "or reload this page. Download my answers still saves them as a file.";
    panel.append(count, download, clear, note, aside, unkept);
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
    const look = SHARED.looks[verdict.look || verdict.outcome], words = data.words;  // feedback.HEAD, SAID and SENTENCE
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

  const UNSEEN = "script, style, template, link, meta";  // never drawn: no block of the page's
  function blocks() {  // the page's leaf blocks in reading order; a box is a block of its own
    const root = document.querySelector(".bd-article") || document.querySelector("main") || document.body;
    const found = [];
    (function walk(node) {
      for (const child of node.children) {
        if (child.matches(UNSEEN)) continue;
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

  // A link to something held back (the page's contents, say) goes to the box that holds it: the first block of
  // the target (a section holds many) says whether it waits, and for which box.
  function followHeld(target) {
    if (!target) return false;
    const held = holding(load()).find(([block]) => block === target || block.contains(target) || target.contains(block));
    if (!held || held[1] === null) return false;
    held[1].scrollIntoView({ block: "center" });
    held[1].querySelector("input.prediction-input").focus({ preventScroll: true });
    return true;
  }
  // A link in a drawer (the phone's contents) closes the drawer first, wherever it then goes.
  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest("a[href^='#']");
    if (!link) return;
    const target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
    const drawer = link.closest("dialog[open]");
    if (drawer && target) drawer.close();
    if (followHeld(target)) event.preventDefault();
  });

  // --- on paper: a worksheet ----------------------------------------------------------------------
  // What follows a box, up to the next heading or box, is what its verdict opens: the code that computes its
  // answer, that code's output, the text that says it. Printed, it is left out of the page's text (box.css) and
  // printed instead under that box's answer in the answers that close the page (predict_check.sphinx).
  const AFTER = "prediction-after";
  const HEADING = "h1, h2, h3, h4";
  function worksheet() {
    const key = document.querySelector("details.print-answers");
    let box = null;
    for (const block of blocks()) {
      if (block.matches(".prediction")) box = block.matches(HOLDS) ? block : null;
      else if (block.matches(HEADING) || block.querySelector(HEADING)) box = null;
      else if (box) {
        block.classList.add(AFTER);
        const item = key && key.querySelector(`li[data-exercise="${CSS.escape(box.dataset.exercise)}"]`);
        if (item) item.append(printed(block));
      }
    }
  }
  function printed(block) {  // a copy for the answers: no id of the page's twice, nothing of the screen's gate
    const copy = block.cloneNode(true);
    copy.classList.remove(AFTER, LATER);
    copy.querySelectorAll("[id]").forEach((node) => node.removeAttribute("id"));
    if (copy.id) copy.removeAttribute("id");
    return copy;
  }

  // A placed answer's figure: the marker writes into the text field, typing moves the marker,
  // and the truth is drawn once the question is answered right or its answer shown.
  function picture(holder, data, input) {
    if (!holder || data.kind.type !== "place" || !window.predictCheckPicture) return null;
    const figure = window.predictCheckPicture.draw(holder, data, function (value) { input.value = value; },
      function () { input.form.requestSubmit(); });  // Enter on the marker checks where it stands
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
      '<div class="prediction-figure"></div><form class="prediction-form"><label></label>' +
      '<input class="prediction-variant-input" type="text" autocomplete="off" spellcheck="false">' +
      '<button type="submit"></button></form><p role="status" aria-live="polite" class="prediction-variant-verdict"></p><div class="prediction-more"></div>';
    const another = button(words.another, function () { ask(next()); });
    another.className = "prediction-another";
    another.hidden = true;
    const input = area.querySelector("input"), question = area.querySelector(".prediction-variant-question");
    input.setAttribute("aria-label", words.answer);
    const hint = area.querySelector("label"), field = box.querySelector("input.prediction-input").id + "-variant";
    hint.textContent = box.querySelector(":scope > form label").textContent;  // the same kind, the same format
    Object.assign(hint, { htmlFor: field, id: field + "-hint" });
    input.id = field;
    input.setAttribute("aria-describedby", hint.id);
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
      updateProgress();
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
      const at = new Date().toISOString();  // when the last answer was typed: the newer wins when files merge
      state.answers[data.id] = { first: earlier ? earlier.first : raw, last: raw, outcome: verdict.outcome, right, at };
      if (verdict.look) state.answers[data.id].look = verdict.look;  // "coarse": wrong, but shown as too few digits
      fold.hidden = right;
      const first = state.firsts[data.id];
      if (!first || !first.text) state.firsts[data.id] = { text: raw, shown: Boolean(first && first.shown), outcome: verdict.outcome };
      save(state);
      gate();
      updateProgress();
    });
    const fold = box.querySelector("details.prediction-answer");  // "Show the answer": gone once answered right
    fold.addEventListener("toggle", function (event) {
      if (!event.target.open) return;
      if (figure) figure.reveal();
      if (practice) practice.offer();
      const state = load();
      if (!state.shown.includes(data.id)) state.shown.push(data.id);
      if (!state.firsts[data.id]) state.firsts[data.id] = { text: "", shown: true };  // shown before any prediction
      save(state);
      gate();
      updateProgress();
    });
    const state = load(), earlier = state.answers[data.id];
    if (judgedAgain(state, data)) save(state);
    fold.hidden = Boolean(earlier && earlier.right);
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
      worksheet();
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
