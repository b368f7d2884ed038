// In JupyterLab, a notebook's prediction boxes hold back what follows them, as the book's page does,
// and a picture box draws its figure.
//
// A box is a code cell tagged "prediction" (page_cells.BOX_TAG, written by make boxes). Every cell after
// the first box that is not yet open (right once, or its answer shown: the widget then carries the
// class box.LAB_OPEN) is hidden, up to the end of the page; the next box is among them, so each box
// releases the cells up to the next one. Hiding is the widget's own (Lumino's hide()), never the cells'
// metadata: nothing of it is saved, so the page's source stays as it was, and a page opened again waits
// again. Run All still runs every cell; the active cell never stays on a hidden one (Shift+Enter on a
// box that waits stays on the box, whose note says why).
//
// JupyterLab loads an installed extension as a module container: the script it names sets
// window._JUPYTERLAB[name] = {init, get}, and get("./extension") gives a factory of the module, whose
// default export is the plugin. This plugin needs no other module, so the container is these few lines;
// postBuild installs it, with prediction-picture.js before it (window.predictCheckPicture draws the figure).
(function () {
  "use strict";
  const NAME = "predict-check";
  const TAG = "prediction"; // page_cells.BOX_TAG
  const BOX = "predict-check-box"; // box.LAB_BOX: the widget's outermost element
  const OPEN = "predict-check-open"; // box.LAB_OPEN: set once the box lets the page go on
  const HOLD = "predict-check-hold"; // box.LAB_HOLD: the box's note, shown only while cells wait
  const FIGURE = "predict-check-figure"; // box.LAB_FIGURE: where a picture box's figure goes, its data on it
  const WAITING = "predict-check-waiting"; // on the box cell that holds the cells after it back
  const STOPPED = "predict-check-stopped"; // ... and that the learner tried to go past
  const UNRUN = "Run this cell (Shift+Enter) to draw its prediction box: what follows waits until you answer " +
    "it right or show its answer.";

  const STYLE =
    `.${HOLD} { display: none !important; }` +
    `.jp-Cell.${WAITING} .${HOLD} { display: flex !important; }` +
    `.jp-Cell.${STOPPED} .${HOLD} { font-weight: bold; border-left: 4px solid var(--jp-warn-color1, #f57c00); ` +
    "padding-left: 0.5em; }" +
    `.jp-Cell.${WAITING}:not(:has(.${BOX}))::after { content: ${JSON.stringify(UNRUN)}; display: block; ` +
    "margin: 0.3em 0 0.3em var(--jp-cell-prompt-width, 64px); font-style: italic; }" +
    `.${FIGURE} { max-width: 420px; }`;

  const isBox = (cell) => {
    const tags = cell.model && cell.model.getMetadata ? cell.model.getMetadata("tags") : null;
    return Array.isArray(tags) && tags.includes(TAG);
  };
  const isOpen = (cell) => Boolean(cell.node.querySelector(`.${BOX}.${OPEN}`));
  const holding = (notebook) => notebook.widgets.findIndex((cell) => isBox(cell) && !isOpen(cell));

  // Hide what the first waiting box holds back; show again what this plugin hid and no box holds now.
  function gate(notebook, hidden) {
    const first = holding(notebook), cells = notebook.widgets;
    cells.forEach((cell, index) => {
      const wait = first >= 0 && index > first;
      if (wait && !cell.isHidden) {
        cell.hide();
        hidden.add(cell);
      } else if (!wait && hidden.has(cell)) {
        hidden.delete(cell);
        cell.show();
      }
      // toggle() leaves a class that is already as asked untouched; add() and remove() would not, and each
      // change would call this again
      cell.node.classList.toggle(WAITING, index === first && first < cells.length - 1);
      if (index !== first) cell.node.classList.toggle(STOPPED, false);
    });
  }

  // A picture box's figure: the marker writes into the box's text field (and the kernel reads it when the
  // learner checks; Enter on the marker checks), typing moves the marker, and the truth is drawn once the box is open.
  const figures = new WeakMap();
  function draw(notebook) {
    if (!window.predictCheckPicture) return;
    for (const holder of notebook.node.querySelectorAll(`.${FIGURE}`)) {
      const box = holder.closest(`.${BOX}`), input = box && box.querySelector(".widget-text input");
      if (!input) continue;
      if (!figures.has(holder)) {
        const data = JSON.parse(holder.dataset.picture);
        const tell = () => input.dispatchEvent(new Event("change", { bubbles: true }));
        const check = () => {  // Enter on the marker: the value goes to the kernel, then Check judges it
          tell();
          const button = input.closest(".widget-hbox") && input.closest(".widget-hbox").querySelector("button");
          if (button) button.click();
        };
        const figure = window.predictCheckPicture.draw(holder, data, (value) => {
          input.value = value;
          input.dispatchEvent(new Event("input", { bubbles: true }));
        }, check);
        holder.addEventListener("pointerup", tell);
        holder.addEventListener("keyup", tell);
        input.addEventListener("input", () => figure.typed(input.value));
        if (input.value) figure.typed(input.value);
        figures.set(holder, { figure, revealed: false });
      }
      const drawn = figures.get(holder);
      if (!drawn.revealed && box.classList.contains(OPEN)) {
        drawn.revealed = true;
        drawn.figure.reveal();
      }
    }
  }

  const watched = new WeakSet();
  function watch(widget) {
    const notebook = widget && widget.content;
    if (watched.has(widget) || !notebook || !notebook.widgets || !notebook.activeCellChanged) return;
    watched.add(widget);
    const hidden = new WeakSet();
    const update = () => {
      gate(notebook, hidden);
      draw(notebook);
    };
    // Outputs arriving, a box opening, a heading expanded over held cells: each changes the notebook's DOM.
    const observer = new MutationObserver(update);
    observer.observe(notebook.node, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
    notebook.activeCellChanged.connect((_, cell) => {
      if (!cell || !hidden.has(cell)) return;
      const first = holding(notebook);
      if (first < 0) return;
      notebook.widgets[first].node.classList.add(STOPPED);
      notebook.activeCellIndex = first;
    });
    widget.disposed.connect(() => observer.disconnect());
    update();
  }

  const plugin = {
    id: `${NAME}:wait`,
    description: "What follows a prediction box waits until the box is answered right or its answer shown.",
    autoStart: true,
    activate(app) {
      const style = document.createElement("style");
      style.textContent = STYLE;
      document.head.append(style);
      const scan = () => {
        for (const widget of app.shell.widgets("main")) watch(widget);
      };
      app.shell.layoutModified.connect(scan);
      app.shell.currentChanged.connect(scan);
      app.restored.then(scan);
    },
  };

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: () => Promise.resolve(),
    get: (module) =>
      module === "./extension"
        ? Promise.resolve(() => ({ __esModule: true, default: plugin }))
        : Promise.reject(new Error(`${NAME} has no module ${module}`)),
  };
})();
