// What stays in the reader's browser: each box's first and last answer, answers shown, practice
// and who the reader is; and the answers file written from them (sheet_writer.py writes
// the same bytes in a kernel). The store is read defensively: an entry this page cannot use is set
// aside (the store as it was is kept apart, for a page that can read it), and the page says so. Where the browser refuses to store anything (site data blocked) or
// its store is full, the answers are kept in this page's memory instead, and the page says so.
(function () {
  "use strict";
  if (window.predictCheckStore) return;
  const SHARED = window.predictCheckData;
  const RULES = SHARED.rules;
  const { length } = window.predictCheckReading;
  const chapter = SHARED.chapter;  // every exercise id, in the grader's order

  // answers[id] is { first, last, outcome, right, at, look }: at, when the last was typed (Date.toISOString); look,
  // "coarse" where a wrong answer was too coarse to judge (shown as too few digits, counted as wrong);
  // firsts[id] is the first prediction ({ text, shown, outcome }: shown when "Show the answer" came before it,
  // outcome its verdict, as answers[id].outcome is the last's);
  // "Clear my answers" forgets the answers, never the firsts: a cleared box gets no fresh first try.
  const STORE = SHARED.store;  // the course's own place in the browser
  const ASIDE = STORE + "/set-aside";  // the last store that held entries this page could not use, as it was
  const READABLE = ["correct", "close", "wrong"];
  const KEYS = ["answers", "shown", "firsts", "student", "variants"];
  let setAside = false;  // a stored entry this page could not use, and said so
  let memory = null;  // the answers, while the browser will not keep them: they last as long as this page
  const MOMENT = new RegExp("^" + SHARED.file.moment + "$");
  const copy = (state) => JSON.parse(JSON.stringify(state));  // what a caller changes is not yet saved

  const isTable = (value) => Boolean(value) && typeof value === "object" && !Array.isArray(value);
  const isText = (value) => typeof value === "string" && length(value) <= RULES.longest;

  const blank = () => ({ answers: {}, shown: [], firsts: {}, student: null, variants: {} });

  function load() {  // whatever the store holds, the entries this page can use; the rest set aside, said so
    if (memory) return copy(memory);
    let text;
    try { text = window.localStorage.getItem(STORE); } catch (error) { memory = blank(); return blank(); }
    if (text === null) return blank();
    const [clean, whole] = usable(text);
    if (!whole) keepAside(text);
    return clean;
  }
  function keepAside(text) {  // the store as it was, kept apart before a save replaces it: nothing set aside is lost
    setAside = true;
    try { window.localStorage.setItem(ASIDE, text); } catch (error) { /* the page still says what it set aside */ }
  }

  function usable(text) {  // [the entries of the stored text this page can use, whether that is all of it]
    const clean = blank();
    let saved;
    try { saved = JSON.parse(text); } catch (error) { return [clean, false]; }
    if (!isTable(saved)) return [clean, false];
    let whole = Object.keys(saved).every((key) => KEYS.includes(key));
    const answers = isTable(saved.answers) ? saved.answers : {};
    for (const [id, entry] of Object.entries(answers)) {
      const texts = isTable(entry) && ["first", "last"].every((k) => isText(entry[k]));
      const right = entry && (entry.right === undefined || typeof entry.right === "boolean");
      if (texts && right && READABLE.includes(entry.outcome)) clean.answers[id] = entry;
      else whole = false;
      if (clean.answers[id] && entry.at !== undefined && !(typeof entry.at === "string" && MOMENT.test(entry.at))) {
        delete entry.at;  // a moment this page did not write: the answer is kept, as older than any timed one
        whole = false;
      }
    }
    if (Array.isArray(saved.shown)) clean.shown = saved.shown.filter((id) => typeof id === "string");
    const firsts = isTable(saved.firsts) ? saved.firsts : {};
    for (const [id, entry] of Object.entries(firsts)) {
      const judged = entry && (entry.outcome === undefined || READABLE.includes(entry.outcome));
      if (isTable(entry) && isText(entry.text) && typeof entry.shown === "boolean" && judged) clean.firsts[id] = entry;
      else whole = false;
    }
    for (const [id, entry] of Object.entries(clean.answers)) {  // a store kept before firsts were: its first answers
      if (!clean.firsts[id]) clean.firsts[id] = { text: entry.first, shown: false };
    }
    const student = saved.student;
    if (isTable(student) && isText(student.name) && isText(student.id)) clean.student = student;
    const tried = isTable(saved.variants) ? saved.variants : {};
    for (const [id, answers] of Object.entries(tried)) {
      if (!isTable(answers)) { whole = false; continue; }
      for (const [number, entry] of Object.entries(answers)) {
        const kept = /^[1-9][0-9]?$/.test(number) && isTable(entry) && isText(entry.last) && READABLE.includes(entry.outcome);
        if (kept) (clean.variants[id] = clean.variants[id] || {})[number] = entry;
        else whole = false;
      }
    }
    return [clean, whole];
  }
  function forget() {
    memory = null;
    try { window.localStorage.removeItem(STORE); } catch (error) { /* nothing stored */ }
  }
  function save(state) {  // into the browser's store; where it refuses (blocked, or full), into this page's memory
    try {
      window.localStorage.setItem(STORE, JSON.stringify(state));
      memory = null;
    } catch (error) { memory = copy(state); }
  }

  function answersFile(state) {  // sheet_writer.typed_answers_file, which the widget saves in a kernel: the same bytes
    const file = SHARED.file, name = fileName(state);
    const quoted = (text) => JSON.stringify(text).replace(/\u007f/g, "\\u007f");  // a JSON string is a TOML string
    const lines = [file.header, file.grade.replace("{file}", name), file.where];
    if (state.student && state.student.name) lines.push(file.name + " = " + quoted(state.student.name));
    if (state.student && state.student.id) lines.push(file.id + " = " + quoted(state.student.id));
    chapter.forEach((id) => lines.push(id + " = " + quoted(state.answers[id] ? state.answers[id].last : "")));
    lines.push("", file.first, "[" + file.first_tries + "]");
    chapter.filter((id) => state.firsts[id] && state.firsts[id].text).forEach((id) => lines.push(id + " = " + quoted(state.firsts[id].text)));
    lines.push("", file.shown, "[" + file.shown_first + "]");
    chapter.filter((id) => state.firsts[id] && state.firsts[id].shown).forEach((id) => lines.push(id + " = true"));
    lines.push("", file.typed, "[" + file.typed_at + "]");
    chapter.filter((id) => state.answers[id] && state.answers[id].at).forEach((id) => lines.push(id + " = " + quoted(state.answers[id].at)));
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

  // Who the reader is, asked at a download while no name is kept: cancelling the name, or leaving it blank, asks
  // nothing more and keeps nothing, so the next download asks again; a name given is kept, with the id asked after it.
  function askWho(state) {
    const asked = (question) => {
      const given = window.prompt(question, "");
      return given === null ? "" : Array.from(given.trim()).slice(0, RULES.longest).join("");
    };
    const name = asked("Your name, for your teacher (optional; kept in this browser only):");
    if (!name) return;
    state.student = { name, id: asked("Your student id (optional):") };
    save(state);
  }

  window.predictCheckStore = {
    load, save, forget, answersFile, fileName, askWho, READABLE,
    get setAside() { return setAside; },
    get unkept() { return memory !== null; },  // the answers last only as long as this page
    forgetSetAside() { setAside = false; },
  };
})();
