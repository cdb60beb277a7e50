// The marking page's keys and live mark. Every form works without this file; it only makes marking quicker:
// j/n and k/p move between answers, 1-9 tick rubric items, c goes to the comment, s or Ctrl+Enter saves,
// Esc leaves a text field. Single-letter keys can be turned off (WCAG 2.1.4), and are never taken from a
// text field, nor with Alt, Ctrl or Meta held (so that the browser's own keys keep working).
(function () {
  "use strict";
  const STORE = "autograder-marking-single-keys";
  const form = document.getElementById("mark-form");
  const toggle = document.getElementById("keys-toggle");
  const singleKeysOn = () => { try { return localStorage.getItem(STORE) !== "off"; } catch (e) { return true; } };

  function showToggle() {
    if (!toggle) { return; }
    const on = singleKeysOn();
    toggle.hidden = false;
    toggle.setAttribute("aria-pressed", on ? "true" : "false");
    toggle.textContent = on ? "Single-letter keys: on" : "Single-letter keys: off";
  }
  if (toggle) {
    toggle.addEventListener("click", () => {
      try { localStorage.setItem(STORE, singleKeysOn() ? "off" : "on"); } catch (e) { /* private mode */ }
      showToggle();
    });
    showToggle();
  }

  const format = (value) => String(Math.round(value * 1000) / 1000);
  const number = (text) => {
    const value = Number(String(text || "").trim());
    return String(text || "").trim() === "" || !Number.isFinite(value) ? null : value;
  };

  function updateTotal() {
    if (!form) { return; }
    const max = Number(form.dataset.max);
    const ticked = [...form.querySelectorAll("input[name=item]:checked")];
    const points = form.querySelector("#points");
    const total = form.querySelector("#total");
    if (ticked.length) {
      const clamp = (value) => Math.min(Math.max(value, 0), max);
      const sum = ticked.reduce((acc, box) => acc + Number(box.dataset.points), 0);
      const mark = clamp(clamp(sum) + (number(form.querySelector("#adjustment").value) || 0));
      if (!points.readOnly) { points.dataset.typed = points.value; }
      points.readOnly = true;
      points.value = format(mark);
      const items = `${ticked.length} rubric item${ticked.length === 1 ? "" : "s"}`;
      total.textContent = `Mark: ${format(mark)} / ${format(max)}, from ${items}`;
    } else {
      if (points.readOnly) { points.value = points.dataset.typed || ""; }
      points.readOnly = false;
      const typed = number(points.value);
      total.textContent = typed === null ? "Not marked yet" : `Mark: ${format(typed)} / ${format(max)}, typed`;
    }
  }

  function save() {
    if (form) { form.requestSubmit(document.getElementById("save")); }
  }

  function go(id) {
    const link = document.getElementById(id);
    if (link) { window.location.assign(link.href); }
  }

  if (form) {
    form.addEventListener("change", updateTotal);
    form.addEventListener("input", (event) => {
      if (event.target.id === "adjustment" || event.target.id === "points") { updateTotal(); }
    });
    form.querySelector("#points").setAttribute("aria-describedby",
      [form.querySelector("#points").getAttribute("aria-describedby"), "total"].filter(Boolean).join(" "));
    updateTotal();
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) { return; }
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || target.tagName === "TEXTAREA"
      || target.tagName === "SELECT"
      || (target.tagName === "INPUT" && !["checkbox", "radio", "submit", "button", "reset"].includes(target.type)));
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && form) {
      event.preventDefault();
      save();
      return;
    }
    if (event.key === "Escape" && typing) {
      target.blur();
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey || !singleKeysOn()) { return; }
    const key = event.key;
    if (key === "j" || key === "n") { event.preventDefault(); go("next"); }
    else if (key === "k" || key === "p") { event.preventDefault(); go("previous"); }
    else if (key === "s" && form) { event.preventDefault(); save(); }
    else if (key === "c" && form) { event.preventDefault(); form.querySelector("#comment").focus(); }
    else if (/^[1-9]$/.test(key) && form) {
      const box = form.querySelector(`input[name=item][data-key="${key}"]`);
      if (box) {
        event.preventDefault();
        box.checked = !box.checked;
        updateTotal();
      }
    }
  });
})();
