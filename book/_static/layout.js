// Display math that is wider than its column (a phone's, say) is drawn smaller until it fits, down to
// SMALLEST of its size; wider still, it scrolls sideways with the cue layout.css draws. Measured once
// MathJax has drawn the page, and again whenever the column changes width (a phone turned, a window resized).
(function () {
  "use strict";
  const SMALLEST = 0.7;  // 70% of 16 px still reads; below it, scrolling is the better way to see it
  const DISPLAY = ".bd-article mjx-container[display='true'], .print-answers mjx-container[display='true']";

  // MathJax sizes the container to the text: the formula inside it is scaled, and its copy for screen readers
  // (MathML laid out at the formula's size, out of sight) with it, so that neither reaches past the column.
  function fit(container) {
    const parts = container.querySelectorAll(":scope > mjx-math, :scope > mjx-assistive-mml");
    if (!parts.length) return;
    parts.forEach((part) => { part.style.fontSize = ""; });
    const room = container.clientWidth;
    const needs = [...parts].map((part) => Math.max(part.scrollWidth, part.getBoundingClientRect().width));
    parts.forEach((part, k) => {  // each at its own scale: the MathML copy's fonts are not MathJax's
      if (needs[k] <= room + 1) return;
      const share = Math.max(SMALLEST, Math.floor(((room - 1) / needs[k]) * 1000) / 1000);
      part.style.fontSize = (share * 100).toFixed(1) + "%";
    });
  }
  const fitAll = () => document.querySelectorAll(DISPLAY).forEach(fit);

  function start() {
    const typeset = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    Promise.resolve(typeset).then(fitAll);
    const article = document.querySelector(".bd-article");
    if (!article || !window.ResizeObserver) return;
    let width = article.clientWidth, pending = false;
    new ResizeObserver(function () {
      if (article.clientWidth === width || pending) return;
      width = article.clientWidth;
      pending = true;
      requestAnimationFrame(function () { pending = false; fitAll(); });
    }).observe(article);
  }
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
