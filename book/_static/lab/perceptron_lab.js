/*
 * The perceptron lab: an interactive perceptron that runs in the page, with no server.
 *
 * Every element <div class="perceptron-lab" data-preset="..."> in a page becomes a lab:
 * a plot of the data (points can be added, dragged, relabelled and removed with the
 * mouse, or focused and moved with the keyboard), a table of the points, the buttons
 * Step, Run, Skip to end and Reset, the current weights, and a log of every visit.
 *
 * The training loop mirrors perceptron_lib.trace_perceptron step for step: the examples
 * are visited in the order of the table, starting from w = 0, b = 0; a visit is a
 * mistake when y * (w . x + b) <= 0, and a mistake adds y x to w (and y to b when the
 * lab learns an offset); the run ends after the first epoch without a mistake, or after
 * the last allowed epoch. Coordinates snap to multiples of 1/4, so every score and
 * weight is an exact binary fraction and the lab's numbers equal numpy's to the bit.
 *
 * Scripts (and the book's browser test) use the same objects the buttons use:
 * window.PerceptronLab.instances holds one Lab per element, with step(), run(),
 * pause(), skipToEnd(), reset(), loadPreset(name), setPoints(points), movePoint(i, dx, dy),
 * flipLabel(i) and snapshot(); window.PerceptronLab.core holds the pure functions
 * (visit, trace, radius, margin, mistakeBound).
 */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  /* The grid coordinates snap to (an exact binary fraction) and the epoch limit the lab starts
     with: book/_ext/perceptron_lab.py writes them into lab/presets.js with the data sets. */
  var SETTINGS = window.PerceptronLabSettings || {};
  var GRID = SETTINGS.grid;
  var DEFAULT_EPOCHS = SETTINGS.maxEpochs;
  var MAX_POINTS = 24;
  var RUN_INTERVAL_MS = 700;
  var LOG_ROWS = 1000;        // the log shows the newest visits only
  var MINUS = "\u2212";

  /* ---------------------------------------------------------------- the algorithm */

  function dot(u, v) {
    // Left to right, as numpy's dot does for these short vectors; with coordinates on
    // the 1/4 grid every partial sum is exact, so the order cannot change the result.
    var s = 0;
    for (var k = 0; k < u.length; k++) s += u[k] * v[k];
    return s;
  }

  /* One visit of the online protocol: the record trace_perceptron makes for it. */
  function visit(w, b, x, y, fitIntercept) {
    var score = dot(x, w) + b;
    var mistake = y * score <= 0;
    var wAfter = w.slice();
    var bAfter = b;
    if (mistake) {
      for (var k = 0; k < w.length; k++) wAfter[k] = w[k] + y * x[k];
      if (fitIntercept) bAfter = b + y;
    }
    return {
      score: score, prediction: score > 0 ? 1 : -1, mistake: mistake, w: wAfter, b: bAfter
    };
  }

  /* The whole run, as trace_perceptron returns it (used for the bound, not for display). */
  function trace(X, y, fitIntercept, maxEpochs) {
    var w = zeros(X.length ? X[0].length : 0);
    var b = 0;
    var steps = [];
    for (var epoch = 1; epoch <= maxEpochs; epoch++) {
      var mistakes = 0;
      for (var i = 0; i < X.length; i++) {
        var r = visit(w, b, X[i], y[i], fitIntercept);
        if (r.mistake) mistakes += 1;
        w = r.w;
        b = r.b;
        steps.push({ epoch: epoch, index: i, x: X[i].slice(), y: y[i], score: r.score,
                     prediction: r.prediction, mistake: r.mistake, w: w.slice(), b: b });
      }
      if (mistakes === 0) return { steps: steps, converged: true };
    }
    return { steps: steps, converged: false };
  }

  function zeros(n) {
    var z = [];
    for (var k = 0; k < n; k++) z.push(0);
    return z;
  }

  function norm(v) {
    return Math.sqrt(dot(v, v));
  }

  /* perceptron_lib.radius: the largest norm of an example. */
  function radius(X) {
    var r = 0;
    for (var i = 0; i < X.length; i++) r = Math.max(r, norm(X[i]));
    return r;
  }

  /* perceptron_lib.margin: min_i y_i (w . x_i + b) / ||w||. */
  function margin(X, y, w, b) {
    var m = Infinity;
    for (var i = 0; i < X.length; i++) m = Math.min(m, y[i] * (dot(w, X[i]) + b));
    return m / norm(w);
  }

  /* The data the bound is about: with an offset, each x with a constant 1 appended
     (perceptron_lib.absorb_offset), because the perceptron with an offset is the
     perceptron through the origin on those lifted points. */
  function lifted(X, fitIntercept) {
    return X.map(function (x) { return fitIntercept ? x.concat([1]) : x.slice(); });
  }

  /* perceptron_lib.mistake_bound(X, y, w) for the lifted data and the stacked (w, b):
     (R / gamma)^2, or null when (w, b) does not separate the data. */
  function mistakeBound(X, y, w, b, fitIntercept) {
    var Z = lifted(X, fitIntercept);
    var theta = fitIntercept ? w.concat([b]) : w.slice();
    if (norm(theta) === 0) return null;
    var gamma = margin(Z, y, theta, 0);
    if (!(gamma > 0)) return null;
    var R = radius(Z);
    return { R: R, gamma: gamma, bound: Math.pow(R / gamma, 2), w: w.slice(), b: b };
  }

  /* ---------------------------------------------------------------- the presets */

  /* The data sets, made by perceptron_lib when the book is built: book/_ext/perceptron_lab.py
     writes them into lab/presets.js, which every page loads before this script, as
     name -> {title, dim, fitIntercept, lift, menu, view, points: [[x, y], ...]}. */
  var PRESETS = window.PerceptronLabPresets || {};
  var MENU_PRESETS = Object.keys(PRESETS).filter(function (name) { return PRESETS[name].menu; });

  /* ---------------------------------------------------------------- formatting */

  function fmt(v) {
    if (Object.is(v, -0)) v = 0;
    var text = Number.isInteger(v) ? String(v) : String(Number(v.toFixed(4)));
    return text.replace("-", MINUS);
  }

  function fmtSigned(v) {
    return (v > 0 ? "+" : "") + fmt(v);
  }

  function fmtVec(v) {
    return "(" + v.map(fmt).join(", ") + ")";
  }

  /* w . x + b written out, e.g. "2 x₁ − x₂ + 1" (w is not zero). */
  function linearForm(w, b) {
    var names = ["x\u2081", "x\u2082"];
    var text = "";
    w.concat([b]).forEach(function (c, k) {
      if (c === 0) return;
      var size = Math.abs(c);
      var term = k < w.length ? (size === 1 ? "" : fmt(size) + " ") + names[k] : fmt(size);
      if (!text) text = (c < 0 ? MINUS : "") + term;
      else text += (c < 0 ? " " + MINUS + " " : " + ") + term;
    });
    return text;
  }

  function snap(v, lo, hi) {
    var s = Math.round(v / GRID) * GRID;
    return Math.min(hi, Math.max(lo, s)) + 0;  // + 0 turns -0 into 0
  }

  var uid = 0;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    for (var key in attrs || {}) {
      if (key === "text") node.textContent = attrs[key];
      else node.setAttribute(key, attrs[key]);
    }
    (children || []).forEach(function (child) { node.appendChild(child); });
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    for (var key in attrs || {}) node.setAttribute(key, attrs[key]);
    return node;
  }

  /* ---------------------------------------------------------------- the lab */

  function Lab(root) {
    this.root = root;
    this.id = "perceptron-lab-" + (++uid);
    this.timer = null;
    this.menu = (root.getAttribute("data-presets") || MENU_PRESETS.join(" ")).split(/\s+/)
      .filter(function (name) { return PRESETS.hasOwnProperty(name); });
    if (!this.menu.length) this.menu = MENU_PRESETS.slice();
    this.build();
    var first = root.getAttribute("data-preset");
    this.loadPreset(PRESETS.hasOwnProperty(first) ? first : this.menu[0], true);
  }

  Lab.prototype.build = function () {
    var self = this;
    var id = this.id;
    this.root.textContent = "";
    this.root.setAttribute("role", "region");
    this.root.setAttribute("aria-labelledby", id + "-title");

    var title = el("p", { "class": "lab-title", id: id + "-title", text: "Perceptron lab" });

    // Controls: the data set, the options and the run.
    this.presetSelect = el("select", { id: id + "-preset" });
    this.menu.forEach(function (name) {
      self.presetSelect.appendChild(el("option", { value: name, text: PRESETS[name].title }));
    });
    this.presetSelect.addEventListener("change", function () {
      self.loadPreset(self.presetSelect.value);
    });
    this.offsetBox = el("input", { type: "checkbox", id: id + "-offset" });
    this.offsetBox.addEventListener("change", function () {
      self.fitIntercept = self.offsetBox.checked;
      self.resetRun("Offset " + (self.fitIntercept ? "on" : "off") + ".");
    });
    this.epochsInput = el("input", { type: "number", id: id + "-epochs", min: "1", max: "1000",
                                     step: "1", value: String(DEFAULT_EPOCHS), inputmode: "numeric" });
    this.epochsInput.addEventListener("change", function () { self.readMaxEpochs(); });
    this.averageBox = el("input", { type: "checkbox", id: id + "-average" });
    if (this.root.getAttribute("data-averaged") === "on") this.averageBox.checked = true;
    this.averageBox.addEventListener("change", function () {
      self.render();
      self.announce(self.averageBox.checked ? self.averageSentence() : "The averaged boundary is hidden.");
    });
    this.newLabel = el("select", { id: id + "-newlabel" });
    this.newLabel.appendChild(el("option", { value: "1", text: "+1 (circle)" }));
    this.newLabel.appendChild(el("option", { value: "-1", text: MINUS + "1 (square)" }));

    var settings = el("div", { "class": "lab-settings" }, [
      el("div", { "class": "lab-field" }, [
        el("label", { "for": id + "-preset", text: "Data set" }), this.presetSelect]),
      el("div", { "class": "lab-field lab-check" }, [
        this.offsetBox, el("label", { "for": id + "-offset", text: "Learn an offset b" })]),
      el("div", { "class": "lab-field" }, [
        el("label", { "for": id + "-epochs", text: "Max epochs" }), this.epochsInput]),
      el("div", { "class": "lab-field" }, [
        el("label", { "for": id + "-newlabel", text: "Label of new points" }), this.newLabel]),
      el("div", { "class": "lab-field lab-check" }, [
        this.averageBox, el("label", { "for": id + "-average", text: "Show the averaged boundary" })])
    ]);

    this.stepButton = el("button", { type: "button", "class": "lab-step", text: "Step" });
    this.runButton = el("button", { type: "button", "class": "lab-run", text: "Run" });
    this.skipButton = el("button", { type: "button", "class": "lab-skip", text: "Skip to end" });
    this.resetButton = el("button", { type: "button", "class": "lab-reset", text: "Reset" });
    this.stepButton.addEventListener("click", function () { self.pause(); self.step(); });
    this.runButton.addEventListener("click", function () {
      if (self.timer) self.pause(); else self.run();
    });
    this.skipButton.addEventListener("click", function () { self.pause(); self.skipToEnd(); });
    this.resetButton.addEventListener("click", function () { self.resetRun("Reset."); });
    var buttons = el("div", { "class": "lab-buttons", role: "group", "aria-label": "Run the perceptron" },
                     [this.stepButton, this.runButton, this.skipButton, this.resetButton]);

    // The plot.
    this.svg = svg("svg", { "class": "lab-plot", role: "group",
                            "aria-label": "Plot of the points and the decision boundary",
                            "aria-describedby": id + "-plot-help" });
    this.plotHelp = el("p", { "class": "lab-help", id: id + "-plot-help" });
    var legend = el("p", { "class": "lab-help", text:
      "Solid line: the boundary now, with the direction of its normal (arrow) and its positive side " +
      "shaded. Dotted: the boundary before the last update. Dashed arrow from the origin: the update " +
      "y x. Ring: the example just visited. Dash-dot: the averaged boundary, when shown." });

    // The state: weights, the last visit, the mistakes against the bound.
    this.weightsText = el("p", { "class": "lab-weights" });
    this.visitText = el("p", { "class": "lab-visit" });
    this.boundText = el("p", { "class": "lab-bound" });
    this.averageText = el("p", { "class": "lab-average" });
    var state = el("div", { "class": "lab-state" },
                   [this.weightsText, this.visitText, this.boundText, this.averageText]);

    // What a screen reader hears after each action.
    this.live = el("p", { "class": "lab-live", role: "status", "aria-live": "polite",
                          "aria-atomic": "true" });

    // The points, as a table of form controls (the keyboard's way to edit exactly).
    this.pointsBody = el("tbody");
    this.pointsHead = el("tr");
    this.addButton = el("button", { type: "button", "class": "lab-add", text: "Add a point" });
    this.addButton.addEventListener("click", function () { self.addPointFromKeyboard(); });
    var pointsTable = el("table", { "class": "lab-points" }, [
      el("caption", { text: "The points, in the order the perceptron visits them" }),
      el("thead", {}, [this.pointsHead]), this.pointsBody]);
    var pointsBox = el("div", { "class": "lab-table-box" }, [pointsTable, this.addButton]);

    // The log of visits.
    this.logBody = el("tbody");
    this.logHead = el("tr");
    var logTable = el("table", { "class": "lab-log" }, [
      el("caption", { text: "The visits so far, the newest at the bottom (at most the last " +
                               LOG_ROWS + ")" }),
      el("thead", {}, [this.logHead]), this.logBody]);
    this.logBox = el("div", { "class": "lab-log-box", tabindex: "0", role: "region",
                              "aria-label": "Log of visits" }, [logTable]);

    var plotColumn = el("div", { "class": "lab-plot-column" }, [this.svg]);
    var sideColumn = el("div", { "class": "lab-side-column" }, [buttons, state, this.live]);
    this.root.appendChild(title);
    this.root.appendChild(settings);
    this.root.appendChild(el("div", { "class": "lab-main" }, [plotColumn, sideColumn]));
    this.root.appendChild(legend);
    this.root.appendChild(this.plotHelp);
    this.root.appendChild(el("details", { "class": "lab-details", open: "" }, [
      el("summary", { text: "Points" }), pointsBox]));
    this.root.appendChild(el("details", { "class": "lab-details" }, [
      el("summary", { text: "Log of visits" }), this.logBox]));

    this.svg.addEventListener("click", function (event) { self.onPlotClick(event); });
  };

  /* ---------------------------------------------------------------- data and state */

  Lab.prototype.loadPreset = function (name, quiet) {
    if (!PRESETS.hasOwnProperty(name)) {
      throw new Error("Unknown preset " + JSON.stringify(name) + "; expected one of " +
                      Object.keys(PRESETS).join(", "));
    }
    var preset = PRESETS[name];
    this.preset = name;
    this.dim = preset.dim;
    this.lift = Boolean(preset.lift);
    this.view = preset.view.slice();
    this.fitIntercept = preset.fitIntercept;
    this.points = preset.points.map(function (p) { return { x: p[0].slice(), y: p[1] }; });
    if (this.menu.indexOf(name) >= 0) this.presetSelect.value = name;
    this.offsetBox.checked = this.fitIntercept;
    this.offsetBox.disabled = this.lift;
    this.plotHelp.textContent = this.lift
      ? "Each point is (x, 1): drag it along the line x\u2082 = 1, or focus it with Tab and move it " +
        "with the left and right arrow keys. Space or Enter flips its label, Delete removes it. " +
        "Click the line to add a point."
      : "Click the plot to add a point. Drag a point to move it, click it to flip its label. " +
        "With the keyboard: Tab to a point, move it with the arrow keys (Shift for whole steps), " +
        "flip its label with Space or Enter, remove it with Delete.";
    this.buildPointsHead();
    this.buildLogHead();
    this.resetRun(quiet ? null : "Loaded " + preset.title + ".");
  };

  Lab.prototype.readMaxEpochs = function () {
    var value = Number(this.epochsInput.value);
    if (!Number.isInteger(value) || value < 1 || value > 1000) {
      value = Math.min(1000, Math.max(1, Math.round(value) || DEFAULT_EPOCHS));
      this.epochsInput.value = String(value);
    }
    this.maxEpochs = value;
    this.resetRun("Max epochs " + value + ".");
  };

  Lab.prototype.X = function () { return this.points.map(function (p) { return p.x.slice(); }); };
  Lab.prototype.Y = function () { return this.points.map(function (p) { return p.y; }); };

  /* Back to w = 0, b = 0 and the first example; the data stay. */
  Lab.prototype.resetRun = function (message) {
    this.pause();
    this.maxEpochs = Number(this.epochsInput.value) || DEFAULT_EPOCHS;
    this.w = zeros(this.dim);
    this.b = 0;
    this.epoch = 1;        // of the next visit (of the last one once the run is over)
    this.next = 0;         // the index of the next example
    this.mistakes = 0;
    this.history = [];
    // Sums of the weights held after each visit, for the averaged perceptron.
    this.sumW = zeros(this.dim);
    this.sumB = 0;
    this.finished = this.points.length === 0;
    this.converged = false;
    // The whole run, computed ahead: Step reveals it one visit at a time, and the bound
    // is computed for the separator it ends with, when it ends with one.
    var X = this.X(), y = this.Y();
    this.ahead = this.points.length ? trace(X, y, this.fitIntercept, this.maxEpochs) : null;
    this.separator = null;
    if (this.ahead && this.ahead.converged) {
      var last = this.ahead.steps[this.ahead.steps.length - 1];
      this.separator = mistakeBound(X, y, last.w, last.b, this.fitIntercept);
    }
    this.logBody.textContent = "";
    this.renderPoints();
    this.render();
    if (message) {
      this.announce(message + " The run starts again from w = " + fmtVec(this.w) +
                    (this.fitIntercept ? ", b = 0." : ", through the origin."));
    }
  };

  /* ---------------------------------------------------------------- running */

  /* One visit: the next visit of the run that resetRun computed with trace(), which holds
     the loop and the stopping rule; the lab only reveals that run one visit at a time. */
  Lab.prototype.step = function () {
    if (this.finished) {
      this.announce(this.endSentence());
      return null;
    }
    var s = this.ahead.steps[this.history.length];
    var record = { epoch: s.epoch, index: s.index, x: s.x.slice(), y: s.y, score: s.score,
                   prediction: s.prediction, mistake: s.mistake, w: s.w.slice(), b: s.b,
                   wBefore: this.w.slice(), bBefore: this.b };
    this.w = s.w.slice();
    this.b = s.b;
    if (s.mistake) this.mistakes += 1;
    this.history.push(record);
    for (var k = 0; k < this.dim; k++) this.sumW[k] += s.w[k];
    this.sumB += s.b;
    var following = this.ahead.steps[this.history.length];
    if (following) {
      this.epoch = following.epoch;
      this.next = following.index;
    } else {
      this.epoch = s.epoch;
      this.finished = true;
      this.converged = this.ahead.converged;
      this.pause();
    }
    if (this.batch) return record;
    this.appendLogRow(record);
    this.render();
    var sentence = this.stepSentence(record);
    if (this.finished) sentence += " " + this.endSentence();
    this.announce(sentence);
    return record;
  };

  Lab.prototype.run = function () {
    var self = this;
    if (this.finished || this.timer) return;
    this.runButton.textContent = "Pause";
    this.step();
    this.timer = window.setInterval(function () {
      if (self.finished) self.pause(); else self.step();
    }, RUN_INTERVAL_MS);
    if (this.finished) this.pause();
  };

  Lab.prototype.pause = function () {
    if (this.timer) window.clearInterval(this.timer);
    this.timer = null;
    if (this.runButton) {
      this.runButton.textContent = "Run";
    }
  };

  Lab.prototype.skipToEnd = function () {
    var count = 0;
    // One drawing and one summary at the end, instead of one per visit.
    this.batch = true;
    try {
      while (!this.finished) { this.step(); count += 1; }
    } finally {
      this.batch = false;
    }
    var rows = this.history.slice(-LOG_ROWS);
    var fragment = document.createDocumentFragment();
    for (var k = 0; k < rows.length; k++) fragment.appendChild(this.logRow(rows[k]));
    this.logBody.textContent = "";
    this.logBody.appendChild(fragment);
    this.logBox.scrollTop = this.logBox.scrollHeight;
    this.render();
    this.announce((count ? "Ran " + count + " more visits. " : "") + this.endSentence());
  };

  Lab.prototype.stepSentence = function (s) {
    var n = this.points.length;
    var head = "Epoch " + s.epoch + ", example " + (s.index + 1) + " of " + n + ": x = " +
      fmtVec(s.x) + ", label " + fmtSigned(s.y) + ". Score " + fmt(s.score) + ", prediction " +
      fmtSigned(s.prediction) + ". ";
    if (!s.mistake) return head + "Correct: no update.";
    var why = s.score === 0 ? "Mistake (a score of 0 is on the boundary, which counts as a mistake). "
                            : "Mistake. ";
    var yx = s.x.map(function (v) { return s.y * v; });
    return head + why + "Update: add y x = " + fmtVec(yx) +
      (this.fitIntercept ? " to w and " + fmtSigned(s.y) + " to b" : " to w") +
      ", giving w = " + fmtVec(s.w) + (this.fitIntercept ? ", b = " + fmt(s.b) : "") +
      ". Mistakes so far: " + this.mistakes + ".";
  };

  Lab.prototype.endSentence = function () {
    if (!this.points.length) return "There are no points: add one to start.";
    if (this.converged) {
      return "Epoch " + this.epoch + " made no mistake: the perceptron has converged after " +
        this.mistakes + " mistakes, with w = " + fmtVec(this.w) +
        (this.fitIntercept ? ", b = " + fmt(this.b) : "") + ".";
    }
    return "Stopped after " + this.maxEpochs + " epochs and " + this.mistakes +
      " mistakes without an epoch free of mistakes: the data may not be linearly separable.";
  };

  /* The averaged perceptron's weights: the mean of the weights held after each visit
     (what perceptron_lib.AveragedPerceptron predicts with), or null before the first. */
  Lab.prototype.average = function () {
    var T = this.history.length;
    if (!T) return null;
    return { w: this.sumW.map(function (v) { return v / T; }), b: this.sumB / T, visits: T };
  };

  Lab.prototype.averageSentence = function () {
    var a = this.average();
    if (!a) return "Averaged boundary (dash-dot): shown after the first visit.";
    var text = "Averaged boundary (dash-dot): the mean of the weights after each of the " + a.visits +
      " visits, w\u0304 = " + fmtVec(a.w) + (this.fitIntercept ? ", b\u0304 = " + fmt(a.b) : "");
    if (norm(a.w) === 0) return text + "; it is zero, so there is no line.";
    var X = this.X(), y = this.Y(), right = 0;
    for (var i = 0; i < X.length; i++) if ((dot(a.w, X[i]) + a.b > 0 ? 1 : -1) === y[i]) right += 1;
    return text + ". It classifies " + right + " of the " + X.length + " points correctly.";
  };

  Lab.prototype.announce = function (text) {
    // Clear first, so that the same sentence twice is still read twice. A sentence still waiting
    // to be written is dropped: after two quick keys a screen reader hears the newer one only,
    // never the older one after it.
    var live = this.live;
    live.textContent = "";
    window.clearTimeout(this.pendingAnnouncement);
    this.pendingAnnouncement = window.setTimeout(function () { live.textContent = text; }, 30);
    live.setAttribute("data-last", text);
  };

  /* ---------------------------------------------------------------- editing */

  Lab.prototype.limits = function () {
    var v = this.view;
    return { x: [v[0], v[1]], y: [v[2], v[3]] };
  };

  Lab.prototype.setPoints = function (points) {
    var lim = this.limits(), dim = this.dim, lift = this.lift;
    if (!Array.isArray(points) || points.length > MAX_POINTS) {
      throw new Error("points must be an array of at most " + MAX_POINTS + " {x, y} objects.");
    }
    this.points = points.map(function (p, i) {
      if (!p || !Array.isArray(p.x) || p.x.length !== dim || (p.y !== 1 && p.y !== -1)) {
        throw new Error("point " + i + " must be {x: [" + dim + " numbers], y: 1 or -1}; got " +
                        JSON.stringify(p));
      }
      var x = p.x.map(function (v, k) {
        return snap(Number(v), k === 0 ? lim.x[0] : lim.y[0], k === 0 ? lim.x[1] : lim.y[1]);
      });
      if (lift) x[1] = 1;
      return { x: x, y: p.y };
    });
    this.resetRun("The data changed.");
  };

  Lab.prototype.movePoint = function (i, dx, dy) {
    var p = this.points[i];
    var lim = this.limits();
    var x = p.x.slice();
    x[0] = snap(x[0] + dx, lim.x[0], lim.x[1]);
    if (this.dim === 2 && !this.lift) x[1] = snap(x[1] + dy, lim.y[0], lim.y[1]);
    if (x.join() === p.x.join()) {
      // Nothing moved: the run goes on.
      this.announce((this.lift || this.dim === 1) && dy
        ? "Point " + (i + 1) + " moves only left and right."
        : "Point " + (i + 1) + " is at the edge of the plot, at " + fmtVec(x) + ".");
      return;
    }
    p.x = x;
    this.resetRun("Point " + (i + 1) + " moved to " + fmtVec(x) + ".");
  };

  Lab.prototype.flipLabel = function (i) {
    var p = this.points[i];
    p.y = -p.y;
    this.resetRun("Point " + (i + 1) + " now has label " + fmtSigned(p.y) + ".");
  };

  Lab.prototype.removePoint = function (i) {
    this.points.splice(i, 1);
    this.resetRun("Point " + (i + 1) + " removed; " + this.points.length + " points left.");
  };

  Lab.prototype.addPoint = function (x, y) {
    if (this.points.length >= MAX_POINTS) {
      this.announce("The lab holds at most " + MAX_POINTS + " points: remove one first.");
      return -1;
    }
    this.points.push({ x: x, y: y });
    this.resetRun("Point " + this.points.length + " added at " + fmtVec(x) + " with label " +
                  fmtSigned(y) + ".");
    return this.points.length - 1;
  };

  Lab.prototype.addPointFromKeyboard = function () {
    var x = this.dim === 1 ? [0] : (this.lift ? [0, 1] : [0, 0]);
    var i = this.addPoint(x, Number(this.newLabel.value));
    if (i >= 0) this.renderPoints(i);
  };

  /* ---------------------------------------------------------------- the points table */

  Lab.prototype.buildPointsHead = function () {
    var cells = ["#", "x\u2081"];
    if (this.dim === 2) cells.push("x\u2082");
    cells.push("label", "remove");
    this.pointsHead.textContent = "";
    var head = this.pointsHead;
    cells.forEach(function (text) { head.appendChild(el("th", { scope: "col", text: text })); });
  };

  /* Rebuilds the rows only when their number or shape changed; otherwise updates the
     values in place, so that the control being edited keeps the keyboard focus. */
  Lab.prototype.renderPoints = function (focusRow) {
    var rows = this.pointsBody.rows;
    var shape = this.points.length + ":" + this.dim + ":" + this.lift;
    if (this.pointsShape !== shape) {
      this.pointsShape = shape;
      this.pointsBody.textContent = "";
      for (var i = 0; i < this.points.length; i++) this.pointsBody.appendChild(this.pointRow(i));
    }
    for (var r = 0; r < this.points.length; r++) {
      var p = this.points[r];
      var inputs = rows[r].querySelectorAll("input");
      for (var k = 0; k < inputs.length; k++) {
        inputs[k].value = String(p.x[k]);
        inputs[k].removeAttribute("aria-invalid");
      }
      rows[r].querySelector("select").value = String(p.y);
    }
    this.addButton.disabled = this.points.length >= MAX_POINTS;
    if (focusRow !== undefined && focusRow >= 0) rows[focusRow].querySelector("input").focus();
  };

  Lab.prototype.pointRow = function (i) {
    var self = this;
    var lim = this.limits();
    var row = el("tr");
    row.appendChild(el("th", { scope: "row", text: String(i + 1) }));
    for (var k = 0; k < this.dim; k++) {
      var lo = k === 0 ? lim.x[0] : lim.y[0], hi = k === 0 ? lim.x[1] : lim.y[1];
      var input = el("input", {
        type: "number", step: String(GRID), min: String(lo), max: String(hi),
        "aria-label": (k === 0 ? "x\u2081" : "x\u2082") + " of point " + (i + 1),
        "class": "lab-coordinate"
      });
      if (this.lift && k === 1) input.setAttribute("readonly", "");
      (function (k, lo, hi, input) {
        input.addEventListener("change", function () {
          var value = Number(input.value);
          if (input.value.trim() === "" || !isFinite(value)) {
            input.setAttribute("aria-invalid", "true");
            self.announce("Point " + (i + 1) + ": enter a number between " + fmt(lo) + " and " +
                          fmt(hi) + ".");
            return;
          }
          var x = self.points[i].x.slice();
          x[k] = snap(value, lo, hi);
          self.points[i].x = x;
          self.resetRun("Point " + (i + 1) + " is now at " + fmtVec(x) + ".");
        });
      })(k, lo, hi, input);
      row.appendChild(el("td", {}, [input]));
    }
    var label = el("select", { "aria-label": "label of point " + (i + 1), "class": "lab-label" });
    label.appendChild(el("option", { value: "1", text: "+1" }));
    label.appendChild(el("option", { value: "-1", text: MINUS + "1" }));
    label.addEventListener("change", function () {
      self.points[i].y = Number(label.value);
      self.resetRun("Point " + (i + 1) + " now has label " + fmtSigned(self.points[i].y) + ".");
    });
    row.appendChild(el("td", {}, [label]));
    var remove = el("button", { type: "button", "class": "lab-remove",
                                "aria-label": "Remove point " + (i + 1), text: "Remove" });
    remove.addEventListener("click", function () {
      self.removePoint(i);
      var buttons = self.pointsBody.querySelectorAll(".lab-remove");
      if (buttons.length) buttons[Math.min(i, buttons.length - 1)].focus();
      else self.addButton.focus();
    });
    row.appendChild(el("td", {}, [remove]));
    return row;
  };

  /* ---------------------------------------------------------------- the log */

  Lab.prototype.buildLogHead = function () {
    var cells = ["epoch", "example", "x", "y", "score", "prediction", "mistake", "w after"];
    cells.push("b after");
    this.logHead.textContent = "";
    var head = this.logHead;
    cells.forEach(function (text) { head.appendChild(el("th", { scope: "col", text: text })); });
  };

  Lab.prototype.logRow = function (s) {
    var cells = [String(s.epoch), String(s.index + 1), fmtVec(s.x), fmtSigned(s.y), fmt(s.score),
                 fmtSigned(s.prediction), s.mistake ? "yes" : "no", fmtVec(s.w), fmt(s.b)];
    var row = el("tr", s.mistake ? { "class": "lab-mistake-row" } : {});
    cells.forEach(function (text) { row.appendChild(el("td", { text: text })); });
    return row;
  };

  Lab.prototype.appendLogRow = function (s) {
    this.logBody.appendChild(this.logRow(s));
    // Only the newest rows stay: a long run on data that are not separable has many.
    while (this.logBody.rows.length > LOG_ROWS) this.logBody.removeChild(this.logBody.rows[0]);
    this.logBox.scrollTop = this.logBox.scrollHeight;
  };

  /* ---------------------------------------------------------------- drawing */

  Lab.prototype.geometry = function () {
    var v = this.view;
    var width = 480;
    var pad = 28;
    var scale = (width - 2 * pad) / (v[1] - v[0]);
    var height = this.dim === 1 ? 150 : Math.round((v[3] - v[2]) * scale + 2 * pad);
    var yMid = height / 2;
    var self = this;
    return {
      width: width, height: height, scale: scale,
      sx: function (x) { return pad + (x - v[0]) * scale; },
      sy: function (y) { return self.dim === 1 ? yMid - y * scale : pad + (v[3] - y) * scale; },
      ix: function (px) { return v[0] + (px - pad) / scale; },
      iy: function (py) { return self.dim === 1 ? 0 : v[3] - (py - pad) / scale; }
    };
  };

  /* The part of the view rectangle where w . x + b >= 0 (Sutherland-Hodgman, one edge). */
  function clipHalfPlane(poly, w, b) {
    var out = [];
    for (var k = 0; k < poly.length; k++) {
      var p = poly[k], q = poly[(k + 1) % poly.length];
      var fp = dot(w, p) + b, fq = dot(w, q) + b;
      if (fp >= 0) out.push(p);
      if ((fp >= 0) !== (fq >= 0)) {
        var t = fp / (fp - fq);
        out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
      }
    }
    return out;
  }

  /* The boundary w . x + b = 0 inside the view rectangle: its two end points, or null. */
  function clipLine(rect, w, b) {
    var ends = [];
    for (var k = 0; k < rect.length; k++) {
      var p = rect[k], q = rect[(k + 1) % rect.length];
      var fp = dot(w, p) + b, fq = dot(w, q) + b;
      if (fp === 0) ends.push(p);
      if (fp * fq < 0) {
        var t = fp / (fp - fq);
        ends.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
      }
    }
    return ends.length >= 2 ? [ends[0], ends[ends.length - 1]] : null;
  }

  function arrow(g, x1, y1, x2, y2, cls, label) {
    var dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy);
    if (len < 1) return;
    var ux = dx / len, uy = dy / len, head = Math.min(10, len / 2);
    g.appendChild(svg("line", { x1: x1, y1: y1, x2: x2 - ux * head * 0.6, y2: y2 - uy * head * 0.6,
                                "class": cls }));
    g.appendChild(svg("polygon", {
      "class": cls + "-head",
      points: [x2, y2, x2 - ux * head - uy * head * 0.5, y2 - uy * head + ux * head * 0.5,
               x2 - ux * head + uy * head * 0.5, y2 - uy * head - ux * head * 0.5].join(" ")
    }));
    if (label) {
      var anchor = ux < -0.3 ? "end" : (ux > 0.3 ? "start" : "middle");
      var text = svg("text", { x: x2 + ux * 6, y: y2 + uy * 14 + 5, "text-anchor": anchor,
                               "class": cls + "-label" });
      text.textContent = label;
      g.appendChild(text);
    }
  }

  Lab.prototype.render = function () {
    var self = this;
    var G = this.geometry();
    var v = this.view;
    var s = this.svg;
    s.setAttribute("viewBox", "0 0 " + G.width + " " + G.height);
    s.textContent = "";
    // The whole drawing area, margins included, in data coordinates.
    var x0 = G.ix(0), x1 = G.ix(G.width);
    var y0 = this.dim === 1 ? -G.height / 2 / G.scale : G.iy(G.height);
    var y1 = this.dim === 1 ? G.height / 2 / G.scale : G.iy(0);
    var plane = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
    var w2 = this.dim === 1 ? [this.w[0], 0] : this.w;
    var last = this.history.length ? this.history[this.history.length - 1] : null;

    // Background, positive side, grid and axes.
    s.appendChild(svg("rect", { x: 0, y: 0, width: G.width, height: G.height, "class": "lab-bg" }));
    var positive = null;
    if (norm(w2) > 0) positive = clipHalfPlane(plane, w2, this.b);
    else if (this.b > 0) positive = plane;
    if (positive && positive.length > 2) {
      s.appendChild(svg("polygon", { "class": "lab-positive-side",
        points: positive.map(function (p) { return G.sx(p[0]) + "," + G.sy(p[1]); }).join(" ") }));
    }
    var grid = svg("g", { "class": "lab-grid" });
    for (var gx = Math.ceil(v[0]); gx <= v[1]; gx++) {
      grid.appendChild(svg("line", { x1: G.sx(gx), x2: G.sx(gx), y1: 0, y2: G.height,
                                     "class": gx === 0 ? "lab-axis" : "lab-gridline" }));
      // Tick labels along the bottom and left edges, where no point hides them.
      var tx = svg("text", { x: G.sx(gx), y: G.height - 6, "text-anchor": "middle", "class": "lab-tick" });
      tx.textContent = fmt(gx);
      grid.appendChild(tx);
    }
    if (this.dim === 2) {
      for (var gy = Math.ceil(v[2]); gy <= v[3]; gy++) {
        grid.appendChild(svg("line", { x1: 0, x2: G.width, y1: G.sy(gy), y2: G.sy(gy),
                                       "class": gy === 0 ? "lab-axis" : "lab-gridline" }));
        var ty = svg("text", { x: 6, y: G.sy(gy) + 4, "class": "lab-tick" });
        ty.textContent = fmt(gy);
        grid.appendChild(ty);
      }
    } else {
      grid.appendChild(svg("line", { x1: 0, x2: G.width, y1: G.sy(0), y2: G.sy(0), "class": "lab-axis" }));
    }
    s.appendChild(grid);
    if (this.lift) {
      s.appendChild(svg("line", { x1: 0, x2: G.width, y1: G.sy(1), y2: G.sy(1), "class": "lab-lift-line" }));
    }

    // The boundary before the last update (dotted), the boundary now, and its normal.
    var layer = svg("g", { "class": "lab-geometry" });
    if (last && last.mistake) this.drawBoundary(layer, G, plane, last.wBefore, last.bBefore, true);
    var average = this.average();
    if (average && this.averageBox.checked) this.drawBoundary(layer, G, plane, average.w, average.b, "average");
    this.drawBoundary(layer, G, plane, this.w, this.b, false);
    // The update y x, drawn from the origin.
    if (last && last.mistake) {
      var yx = last.x.map(function (c) { return last.y * c; });
      var oy = this.dim === 1 ? 0.35 : 0;
      arrow(layer, G.sx(0), G.sy(oy), G.sx(yx[0]), G.sy(this.dim === 1 ? oy : yx[1]),
            "lab-update", "y x");
    }
    s.appendChild(layer);

    // The points: circles with + for label +1, squares with a minus for -1.
    this.pointNodes = [];
    this.points.forEach(function (p, i) {
      var cx = G.sx(p.x[0]), cy = G.sy(self.dim === 1 ? 0 : p.x[1]);
      var g = svg("g", {
        "class": "lab-point " + (p.y > 0 ? "lab-pos" : "lab-neg") +
                 (last && last.index === i ? " lab-visited" : ""),
        tabindex: "0", role: "button",
        "aria-label": "Point " + (i + 1) + " at " + fmtVec(p.x) + ", label " + fmtSigned(p.y),
        transform: "translate(" + cx + "," + cy + ")"
      });
      g.appendChild(svg("circle", { r: 17, "class": "lab-focus-ring" }));
      if (last && last.index === i) g.appendChild(svg("circle", { r: 14, "class": "lab-visit-ring" }));
      if (p.y > 0) g.appendChild(svg("circle", { r: 8.5, "class": "lab-mark" }));
      else g.appendChild(svg("rect", { x: -8, y: -8, width: 16, height: 16, "class": "lab-mark" }));
      g.appendChild(svg("line", { x1: -4.5, y1: 0, x2: 4.5, y2: 0, "class": "lab-sign" }));
      if (p.y > 0) g.appendChild(svg("line", { x1: 0, y1: -4.5, x2: 0, y2: 4.5, "class": "lab-sign" }));
      var number = svg("text", { x: 11, y: -10, "class": "lab-point-number" });
      number.textContent = String(i + 1);
      g.appendChild(number);
      self.attachPointHandlers(g, i);
      s.appendChild(g);
      self.pointNodes.push(g);
    });

    this.renderText();
  };

  Lab.prototype.drawBoundary = function (layer, G, plane, w, b, before) {
    var cls = before === "average" ? "lab-boundary-average" : (before ? "lab-boundary-before" : "lab-boundary");
    if (this.dim === 1) {
      if (w[0] === 0) return;
      var t = -b / w[0];
      if (t < this.view[0] || t > this.view[1]) return;
      layer.appendChild(svg("line", { x1: G.sx(t), x2: G.sx(t), y1: 8, y2: G.height - 8, "class": cls }));
      if (!before) {
        arrow(layer, G.sx(t), G.sy(-0.45), G.sx(t + (w[0] > 0 ? 1 : -1)), G.sy(-0.45), "lab-normal", "w");
      }
      return;
    }
    if (norm(w) === 0) return;
    var ends = clipLine(plane, w, b);
    if (!ends) return;
    layer.appendChild(svg("line", { x1: G.sx(ends[0][0]), y1: G.sy(ends[0][1]),
                                    x2: G.sx(ends[1][0]), y2: G.sy(ends[1][1]), "class": cls }));
    if (!before) {
      // The direction of w (one unit long), from the middle of the visible boundary.
      var mx = (ends[0][0] + ends[1][0]) / 2, my = (ends[0][1] + ends[1][1]) / 2, n = norm(w);
      arrow(layer, G.sx(mx), G.sy(my), G.sx(mx + w[0] / n), G.sy(my + w[1] / n), "lab-normal",
            this.lift ? "\u03b8" : "w");
    }
  };

  Lab.prototype.renderText = function () {
    var weights = this.lift
      ? "\u03b8 = " + fmtVec(this.w) + ", through the origin (for the numbers x: w = " + fmt(this.w[0]) +
        ", b = " + fmt(this.w[1]) + ")"
      : "w = " + fmtVec(this.w) + (this.fitIntercept ? ",  b = " + fmt(this.b) : "  (no offset: b = 0)");
    var boundary;
    if (norm(this.w) === 0) {
      boundary = "w = 0, so there is no boundary: every score equals b = " + fmt(this.b) + ".";
    } else if (this.dim === 1) {
      boundary = "Boundary: the threshold x = " + fmt(-this.b / this.w[0]) + "; the arrow shows the direction of w.";
    } else {
      boundary = "Boundary: " + linearForm(this.w, this.b) +
        " = 0; the arrow shows the direction of " + (this.lift ? "\u03b8" : "w") +
        ", the positive side is shaded.";
      if (this.lift && this.w[0] !== 0) {
        boundary += " It meets the line x\u2082 = 1 at x\u2081 = " + fmt(-this.w[1] / this.w[0]) +
          ", the threshold of the one-dimensional classifier.";
      }
    }
    this.weightsText.textContent = weights + ". " + boundary;

    var last = this.history.length ? this.history[this.history.length - 1] : null;
    if (!last) {
      this.visitText.textContent = this.points.length
        ? "Next: epoch 1, example 1 of " + this.points.length + ". Press Step or Run."
        : "No points yet: click the plot or use \u201cAdd a point\u201d.";
    } else {
      var next = this.finished ? " " + this.endSentence()
        : " Next: epoch " + this.epoch + ", example " + (this.next + 1) + ".";
      this.visitText.textContent = "Last visit (ringed): " + this.stepSentence(last) + next;
    }

    var boundText = "Mistakes so far: " + this.mistakes + ". ";
    var space = this.fitIntercept ? " the points (x, 1) and the vector (w, b)"
      : (this.lift ? " the points (x, 1) and \u03b8" : " the points and w");
    if (this.separator) {
      var sep = this.separator;
      boundText += "Bound (R/\u03b3)\u00b2 = " + fmt(sep.bound) + ", for the separator the run ends with, w = " +
        fmtVec(sep.w) + (this.fitIntercept ? ", b = " + fmt(sep.b) : "") + ": R = " + fmt(sep.R) +
        " and \u03b3 = " + fmt(sep.gamma) + ", measured on" + space + ". No run can make more mistakes.";
    } else if (this.points.length) {
      boundText += "No bound: the perceptron does not separate these points within " + this.maxEpochs +
        " epochs, so they may not be linearly separable" +
        (this.fitIntercept ? "." : " through the origin.");
    }
    this.boundText.textContent = boundText;
    this.averageText.textContent = this.averageBox.checked ? this.averageSentence() : "";
    this.averageText.hidden = !this.averageBox.checked;
    this.stepButton.disabled = false;
    this.skipButton.disabled = false;
  };

  /* ---------------------------------------------------------------- mouse and keyboard */

  Lab.prototype.eventPoint = function (event) {
    var box = this.svg.getBoundingClientRect();
    var G = this.geometry();
    var px = (event.clientX - box.left) * G.width / box.width;
    var py = (event.clientY - box.top) * G.height / box.height;
    var lim = this.limits();
    var x = snap(G.ix(px), lim.x[0], lim.x[1]);
    if (this.dim === 1) return [x];
    if (this.lift) return [x, 1];
    return [x, snap(G.iy(py), lim.y[0], lim.y[1])];
  };

  Lab.prototype.onPlotClick = function (event) {
    if (event.target.closest && event.target.closest(".lab-point")) return;
    if (this.suppressClick) { this.suppressClick = false; return; }
    this.addPoint(this.eventPoint(event), Number(this.newLabel.value));
  };

  Lab.prototype.attachPointHandlers = function (g, i) {
    var self = this;
    g.addEventListener("keydown", function (event) {
      var step = event.shiftKey ? 1 : GRID;
      var moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (moves.hasOwnProperty(event.key)) {
        event.preventDefault();
        self.movePoint(i, moves[event.key][0], moves[event.key][1]);
        self.pointNodes[i].focus();
      } else if (event.key === " " || event.key === "Enter") {
        event.preventDefault();
        self.flipLabel(i);
        self.pointNodes[i].focus();
      } else if (event.key === "Delete" || event.key === "Backspace") {
        event.preventDefault();
        self.removePoint(i);
        if (self.pointNodes.length) self.pointNodes[Math.min(i, self.pointNodes.length - 1)].focus();
        else self.addButton.focus();
      }
    });
    g.addEventListener("pointerdown", function (event) {
      if (event.button !== 0) return;
      event.preventDefault();
      var start = self.points[i].x.slice();
      var moved = false;
      g.setPointerCapture(event.pointerId);
      var onMove = function (e) {
        var x = self.eventPoint(e);
        if (x.join() !== self.points[i].x.join()) {
          moved = true;
          self.points[i].x = x;
          g.setAttribute("transform", "translate(" + self.geometry().sx(x[0]) + "," +
                         self.geometry().sy(self.dim === 1 ? 0 : x[1]) + ")");
        }
      };
      var onUp = function () {
        g.removeEventListener("pointermove", onMove);
        g.removeEventListener("pointerup", onUp);
        g.removeEventListener("pointercancel", onUp);
        self.suppressClick = true;
        window.setTimeout(function () { self.suppressClick = false; }, 0);
        if (moved) {
          self.resetRun("Point " + (i + 1) + " moved to " + fmtVec(self.points[i].x) + ".");
        } else {
          self.points[i].x = start;
          self.flipLabel(i);
        }
        if (self.pointNodes[i]) self.pointNodes[i].focus();
      };
      g.addEventListener("pointermove", onMove);
      g.addEventListener("pointerup", onUp);
      g.addEventListener("pointercancel", onUp);
    });
  };

  /* ---------------------------------------------------------------- for scripts and tests */

  Lab.prototype.snapshot = function () {
    return {
      preset: this.preset, dim: this.dim, fitIntercept: this.fitIntercept, maxEpochs: this.maxEpochs,
      X: this.X(), y: this.Y(), w: this.w.slice(), b: this.b, mistakes: this.mistakes,
      finished: this.finished, converged: this.converged,
      history: this.history.map(function (s) {
        return { epoch: s.epoch, index: s.index, x: s.x, y: s.y, score: s.score,
                 prediction: s.prediction, mistake: s.mistake, w: s.w, b: s.b };
      }),
      bound: this.separator, average: this.average(),
      announced: this.live.getAttribute("data-last") || ""
    };
  };

  function init() {
    var roots = document.querySelectorAll(".perceptron-lab");
    if (roots.length && !(MENU_PRESETS.length && GRID && DEFAULT_EPOCHS)) {
      // The labs keep their "needs JavaScript" text; the console says what is missing.
      throw new Error("perceptron lab: no data sets. lab/presets.js, which the book build writes " +
                      "from perceptron_lib (book/_ext/perceptron_lab.py), did not load.");
    }
    for (var k = 0; k < roots.length; k++) {
      if (!roots[k].perceptronLab) {
        roots[k].perceptronLab = new Lab(roots[k]);
        api.instances.push(roots[k].perceptronLab);
      }
    }
  }

  var api = {
    instances: [], presets: PRESETS, init: init,
    core: { visit: visit, trace: trace, radius: radius, margin: margin, mistakeBound: mistakeBound }
  };
  window.PerceptronLab = api;

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
