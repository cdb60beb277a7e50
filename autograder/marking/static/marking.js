// The marking page's keys, live mark, drafts and claims. Every form works without this file; it makes marking
// quicker and keeps typing safe:
// - keys: j/n and k/p move between answers, 1-9 tick rubric items, m goes to the points and c to the comment,
//   s or Ctrl+Enter saves, o opens the student's notebook, g the answer's group, q the next question, Esc leaves
//   a text field. Single-letter keys can be turned off (WCAG 2.1.4), and are never taken from a text field, nor
//   with Alt, Ctrl or Meta held (so that the browser's own keys keep working);
// - drafts: what is typed or ticked in the marking form is kept in this browser (localStorage) until it is
//   saved, so that it survives a rubric edit, a reload, moving away and back, and a restarted server; leaving
//   with changes not saved asks first;
// - claims: while an answer is open the page renews its claim on it, and gives it up when the page is left.
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
    const adjusted = number(form.querySelector("#adjustment").value);
    if (adjusted !== null && Math.abs(adjusted) > max) {
      // The server refuses it: say so here rather than show a mark that would not be saved.
      total.textContent = `The adjustment must be from ${format(-max)} to ${format(max)}`;
      return;
    }
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

  // -- what the last action did, said to a screen reader too ---------------------------------------------
  // The message is in the page when it loads, where a screen reader does not announce it: a copy put into a
  // live region a moment later is announced. A form's error takes the focus to the field it is about; the
  // question before unmarking, to its answer.
  const flash = document.getElementById("status");
  if (flash && flash.textContent.trim()) {
    const announcer = document.createElement("div");
    announcer.className = "visually-hidden";
    announcer.setAttribute("role", flash.getAttribute("role") || "status");
    (document.getElementById("main") || document.body).appendChild(announcer);
    window.setTimeout(() => { announcer.textContent = flash.textContent.trim(); }, 400);
    window.setTimeout(() => { announcer.remove(); }, 10000);
  }
  const invalid = document.querySelector("[aria-invalid=true]");
  const unmark = document.getElementById("unmark-yes");
  // A short field's text is selected, to be typed over; a comment's is not, so that one key cannot replace it.
  if (invalid) { invalid.focus(); if (invalid.tagName === "INPUT") { invalid.select(); } }
  else if (unmark) { unmark.focus(); }

  if (form) {
    form.addEventListener("change", updateTotal);
    form.addEventListener("input", (event) => {
      if (event.target.id === "adjustment" || event.target.id === "points") { updateTotal(); }
    });
    form.querySelector("#points").setAttribute("aria-describedby",
      [form.querySelector("#points").getAttribute("aria-describedby"), "total"].filter(Boolean).join(" "));
    updateTotal();
  }

  // -- drafts ------------------------------------------------------------------------------------
  const DRAFTS = "autograder-marking-draft:";
  const status = document.getElementById("draft-status");
  let submitting = false;

  function formValues() {
    return {
      items: [...form.querySelectorAll("input[name=item]:checked")].map((box) => box.value).sort(),
      adjustment: form.querySelector("#adjustment").value,
      points: form.querySelector("#points").readOnly ? (form.querySelector("#points").dataset.typed || "")
        : form.querySelector("#points").value,
      comment: form.querySelector("#comment").value,
      note: form.querySelector("#note") ? form.querySelector("#note").value : "",
    };
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  // The student's answers the form is for, as the page showed them (an answer page's checksum; a group's members):
  // a draft is put back as typed only over the same answers.
  const answersShown = () => [...form.querySelectorAll("input[name=answer][type=hidden], input[name=member]")]
    .map((field) => field.value.replace(/^([^:]*):[^:]*:/, "$1:"));
  const draftKey = form && form.dataset.draft ? DRAFTS + form.dataset.draft : null;
  if (document.body.dataset.saved) {
    try { localStorage.removeItem(DRAFTS + document.body.dataset.saved); } catch (e) { /* */ }
  }
  const initial = draftKey ? formValues() : null;

  function readDraft() {
    try { return JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (e) { return null; }
  }
  let offered = null;  // a draft typed over another version of the mark, offered and neither put back nor discarded
  function keepDraft() {
    // While a draft is offered, it stays what is kept: what is typed meanwhile is guarded by the question on
    // leaving, and kept once the offer is settled.
    if (!draftKey || offered) { return; }
    const values = formValues();
    try {
      if (same(values, initial)) { localStorage.removeItem(draftKey); }
      else {
        localStorage.setItem(draftKey, JSON.stringify({ version: form.dataset.version, base: initial,
          answers: answersShown(), values, at: Date.now() }));
      }
    } catch (e) { /* storage full or private mode: the unsaved-changes prompt still guards */ }
  }
  function putValues(values) {
    form.querySelectorAll("input[name=item]").forEach((box) => { box.checked = values.items.includes(box.value); });
    const points = form.querySelector("#points");
    points.readOnly = false;
    points.value = values.points;
    points.dataset.typed = values.points;
    form.querySelector("#adjustment").value = values.adjustment;
    form.querySelector("#comment").value = values.comment;
    const note = form.querySelector("#note");
    if (note) {
      note.value = values.note || "";
      if (note.value) { note.closest("details").open = true; }
    }
    updateTotal();
  }
  const dirty = () => draftKey && !submitting && !same(formValues(), initial);

  if (draftKey) {
    const draft = readDraft();
    const hasError = document.getElementById("form-error") || document.getElementById("unmark-question");
    if (draft && !hasError && !same(draft.values, initial)) {
      // The same version, or one whose form shows what the draft was typed over, for the same answers (a rubric
      // item's new points re-score the mark and change its version, not what the form holds): the draft goes
      // back as typed. A student's answer changed by a later grading run is a new answer: its draft is offered.
      if (draft.version === form.dataset.version
          || (draft.base && same(draft.base, initial) && same(draft.answers, answersShown()))) {
        putValues(draft.values);
        if (status) { status.textContent = "Your unsaved changes to this mark are back (kept in this browser)."; }
        keepDraft();
      } else if (status) {
        // The mark changed since the draft was typed (someone saved it): offer the draft, never put it over theirs.
        offered = draft;
        status.textContent = "You have unsaved changes typed for an earlier version of this mark. ";
        const restore = document.createElement("button");
        restore.type = "button";
        restore.id = "restore-draft";
        restore.textContent = "Put my unsaved changes back";
        const discard = document.createElement("button");
        discard.type = "button";
        discard.className = "quiet";
        discard.textContent = "Discard them";
        const settled = (text) => {
          offered = null;
          restore.remove();
          discard.remove();
          status.textContent = text;
          keepDraft();  // what the form holds now is the draft
        };
        restore.addEventListener("click", () => {
          if (!same(formValues(), initial)
              && !window.confirm("Put the changes you typed earlier over what you have typed since?")) { return; }
          putValues(draft.values);
          settled("Your unsaved changes are back in the form.");
          form.querySelector("#comment").focus();
        });
        discard.addEventListener("click", () => {
          try { localStorage.removeItem(draftKey); } catch (e) { /* */ }
          settled("Your unsaved changes typed earlier were discarded.");
        });
        status.append(restore, " ", discard);
      }
    }
    form.addEventListener("input", keepDraft);
    form.addEventListener("change", keepDraft);
    form.addEventListener("submit", (event) => {
      if (offered) {
        // Saving now would save the mark without the changes the TA typed, and end their draft: ask first.
        event.preventDefault();
        status.firstChild.textContent = "Not saved: your unsaved changes, typed for an earlier version of this "
          + "mark, are not in the form. Put them back or discard them, then save. ";
        document.getElementById("restore-draft").focus();
        return;
      }
      submitting = true;
      keepDraft();
    });
    window.addEventListener("beforeunload", (event) => {
      if (dirty()) { event.preventDefault(); event.returnValue = ""; }
    });
    // A draft that equals the mark the page shows now (it was saved, by this TA or another) is done with.
    if (same(initial, (readDraft() || {}).values)) { try { localStorage.removeItem(draftKey); } catch (e) { /* */ } }
  }

  // -- the rubric editor stays as it was, and where it was, across its own saves ---------------------------
  const editor = document.getElementById("rubric-editor");
  const EDITOR = "autograder-marking-rubric-editor";
  if (editor) {
    try {
      const kept = JSON.parse(sessionStorage.getItem(EDITOR) || "null");
      if (kept && kept.path === window.location.pathname) {
        editor.open = true;
        sessionStorage.removeItem(EDITOR);
        window.scrollTo(0, kept.y);
        const column = editor.closest(".marking");
        if (column) { column.scrollTop = kept.column; }
      }
    } catch (e) { /* */ }
    editor.querySelectorAll("form").forEach((edit) => edit.addEventListener("submit", () => {
      submitting = true;  // the marking form's draft is kept in storage and comes back after the reload
      keepDraft();
      const column = editor.closest(".marking");
      try {
        sessionStorage.setItem(EDITOR, JSON.stringify({ path: window.location.pathname, y: window.scrollY,
          column: column ? column.scrollTop : 0 }));
      } catch (e) { /* */ }
    }));
  }

  // -- claims: renewed while the page is open, given up when it is left -----------------------------------
  const csrfField = document.querySelector("input[name=csrf]");
  if (form && csrfField) {
    const body = () => { const data = new FormData(); data.append("csrf", csrfField.value); return data; };
    window.setInterval(() => {
      if (document.visibilityState === "visible") {
        fetch("/claims/renew", { method: "POST", body: body(), credentials: "same-origin" }).catch(() => {});
      }
    }, 60000);
    window.addEventListener("pagehide", () => {
      if (submitting || !navigator.sendBeacon) { return; }
      // Only this page's claims: when the page is reloaded, the new page may have claimed the answer first.
      const data = body();
      data.append("page", form.dataset.claim || "");
      navigator.sendBeacon("/claims/give-up", data);
    });
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
    else if (key === "c" && form) {
      // The caret after what the comment holds already, so that typing adds to it.
      event.preventDefault();
      const comment = form.querySelector("#comment");
      comment.focus();
      comment.setSelectionRange(comment.value.length, comment.value.length);
    }
    else if (key === "m" && form) {
      event.preventDefault();
      const points = form.querySelector("#points");
      points.focus();
      points.select();
    }
    else if (key === "o") {
      const notebook = document.getElementById("notebook");
      if (notebook) {
        event.preventDefault();
        notebook.open = !notebook.open;
        if (notebook.open) {
          // The answer's own cell in the middle of the view, the cells before it (the work it refers to) above,
          // and the focus there, where the view is (not on the notebook's summary, far above it).
          const here = notebook.querySelector(".this-answer");
          const target = here || notebook.querySelector("summary");
          if (here) { here.tabIndex = -1; }
          target.focus({ preventScroll: true });
          target.scrollIntoView({ block: here ? "center" : "start" });
        }
      }
    }
    else if (key === "g") { event.preventDefault(); go("group-link"); }
    else if (key === "y") {
      const confirm = document.getElementById("confirm-group");
      if (confirm) { event.preventDefault(); submitting = true; confirm.click(); }
    }
    else if (key === "q") { event.preventDefault(); go("next-question"); }
    else if (/^[0-9]$/.test(key) && form) {  // 1 to 9, and 0 for the tenth item
      const box = form.querySelector(`input[name=item][data-key="${key}"]`);
      if (box) {
        event.preventDefault();
        box.checked = !box.checked;
        updateTotal();
      }
    }
  });
})();
