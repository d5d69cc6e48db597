// The gammae query page: plain JavaScript, no build step, no dependencies.
// State for automated checks lives in <body data-state="idle|loading|done|error">.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const form = $("form"), input = $("q"), kInput = $("k"), runButton = $("run");
  const suggestBox = $("suggest");

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }

  // api calls the JSON API; a failure throws {status, message, line, column}.
  async function api(path, options) {
    let resp;
    try {
      resp = await fetch(path, options);
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw { status: 0, message: "cannot reach the server: " + e.message };
    }
    let body = null;
    try { body = await resp.json(); } catch (_) { /* not JSON */ }
    if (!resp.ok) {
      const err = (body && body.error) || { message: resp.status + " " + resp.statusText };
      throw Object.assign({ status: resp.status }, err);
    }
    return body;
  }

  // ---- model info, syntax help and examples -------------------------------

  async function loadInfo() {
    let info;
    try { info = await api("/v1/info"); } catch (_) { return; }
    const facts = [
      ["model", info.model], ["data", info.dataset],
      ["entities", fmtInt(info.entities)], ["relations", fmtInt(info.relations)],
      ["dim", info.dim], ["union", info.union],
      ["steps", info.trained_steps ? fmtInt(info.trained_steps) : ""],
    ];
    const dl = $("info");
    dl.replaceChildren();
    for (const [k, v] of facts) {
      if (v === undefined || v === null || v === "") continue;
      dl.append(el("div", {}, el("dt", { text: k }), el("dd", { text: String(v) })));
    }
    if (info.limits && info.limits.max_k) kInput.max = info.limits.max_k;
    if (info.syntax) { $("syntax").textContent = info.syntax; $("syntax").hidden = false; }
    const ex = $("examples");
    ex.replaceChildren();
    for (const e of info.examples || []) {
      const b = el("button", { type: "button", class: "chip", title: "Run this example" },
        el("span", { class: "t", text: e.title }), el("code", { text: e.query }));
      b.addEventListener("click", () => { input.value = e.query; closeSuggest(); run(); });
      ex.append(b);
    }
    $("examples-box").hidden = ex.children.length === 0;
  }

  // ---- running a query ------------------------------------------------------

  let running = null; // AbortController of the query in flight

  async function run() {
    const query = input.value;
    if (!query.trim()) { input.focus(); return; }
    const k = clampK(kInput.value);
    kInput.value = k;
    if (running) running.abort();
    const ctl = running = new AbortController();
    document.body.dataset.state = "loading";
    runButton.disabled = true;
    const url = new URL(location.href);
    url.searchParams.set("q", query);
    url.searchParams.set("k", k);
    history.replaceState(null, "", url);
    try {
      const res = await api("/v1/query", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ query, k, explain: true }),
        signal: ctl.signal,
      });
      if (ctl !== running) return;
      showResult(res, k);
    } catch (err) {
      if (ctl !== running || err.name === "AbortError") return;
      showError(err, query);
    } finally {
      if (ctl === running) { running = null; runButton.disabled = false; }
    }
  }

  function clampK(v) {
    const max = Number(kInput.max) || 1000;
    const n = Math.round(Number(v));
    return Number.isFinite(n) ? Math.min(Math.max(n, 1), max) : 10;
  }

  function showResult(res, k) {
    $("error").hidden = true;
    $("r-structure").textContent = res.structure || "—";
    $("r-entropy").textContent = fmtNum(res.entropy);
    // Absent when the model's loss leaves σ(logit) uncalibrated (/info's estimates).
    $("r-estimated").textContent = res.estimated_answers === undefined ? "n/a" : fmtNum(res.estimated_answers);
    const observed = res.answers.filter((a) => a.observed).length;
    $("r-k").textContent = res.answers.length;
    $("r-observed").textContent = observed + " / " + res.answers.length;
    $("r-took").textContent = fmtNum(res.took_ms) + " ms";
    $("r-explain").textContent = res.explain || "—";
    showTree(res.nodes || []);
    showVariables(res.variables || []);
    $("r-query").textContent = res.query || "";

    const scores = res.answers.map((a) => a.score);
    const lo = Math.min(...scores), hi = Math.max(...scores);
    const tbody = $("answers").tBodies[0];
    tbody.replaceChildren();
    for (const a of res.answers) {
      const width = hi > lo ? 8 + 92 * (a.score - lo) / (hi - lo) : 100;
      const who = el("td", { class: "entity" });
      if (a.label && a.label !== a.name) {
        who.append(el("span", { class: "ent-label", text: a.label }), el("span", { class: "ent-name", text: a.name }));
      } else {
        who.append(el("span", { class: "ent-label", text: a.name }));
      }
      const bar = el("i");
      bar.style.width = width.toFixed(1) + "%";
      const kind = a.observed ? "observed" : "predicted";
      tbody.append(el("tr", { "data-id": a.id, "data-observed": a.observed },
        el("td", { class: "num", text: a.rank }),
        who,
        el("td", { class: "score" }, el("div", { class: "bar" }, el("span", { text: fmtScore(a.score) }), bar)),
        el("td", {}, el("span", { class: "badge " + kind, text: kind }))));
    }
    if (res.answers.length === 0) {
      tbody.append(el("tr", {}, el("td", { colspan: 4, class: "empty", text: "No answers." })));
    }
    $("result").hidden = false;
    document.body.dataset.state = "done";
  }

  // showVariables lists the query's existential variables, each opening to
  // its best answers.
  function showVariables(vars) {
    const list = $("r-vars");
    list.replaceChildren();
    for (const v of vars) {
      list.append(nodeItem(v.name + " = " + v.node, v));
    }
    $("r-vars-wrap").hidden = vars.length === 0;
  }

  // nodeItem is a list item that opens to a node's (or variable's) answers.
  function nodeItem(text, n) {
    const li = el("li", { class: "node" });
    const details = el("details", {},
      el("summary", {}, el("span", { class: "node-text", text }),
        el("span", { class: "node-meta", text: n.error ? "cannot answer" : n.observed_answers + " observed · " + (n.estimated_answers === undefined ? "" : "~" + fmtNum(n.estimated_answers) + " estimated · ") + "entropy " + fmtNum(n.entropy) })));
    const list = el("ol", { class: "node-answers" });
    if (n.error) list.append(el("li", { class: "empty", text: n.error }));
    for (const a of n.answers || []) {
      const kind = a.observed ? "observed" : "predicted";
      list.append(el("li", { "data-id": a.id },
        el("span", { class: "ent-label", text: a.label || a.name }), " ",
        el("span", { class: "badge " + kind, text: kind })));
    }
    details.append(list);
    li.append(details);
    return li;
  }

  // showTree draws the query tree from its nodes in pre-order (depth
  // first): every node but an anchor opens to its own best answers.
  function showTree(nodes) {
    const root = $("r-tree");
    root.replaceChildren();
    const stack = [root];
    for (const n of nodes) {
      stack.length = n.depth + 1;
      const parent = stack[n.depth] || root;
      let li;
      if (n.answers || n.error) {
        li = nodeItem(n.node, n);
      } else {
        li = el("li", { class: "node" }, el("span", { class: "node-text anchor", text: n.node }));
      }
      li.dataset.depth = n.depth;
      const kids = el("ul");
      li.append(kids);
      parent.append(li);
      stack[n.depth + 1] = kids;
    }
  }

  function showError(err, query) {
    $("error-status").textContent = err.status ? String(err.status) : "error";
    $("error-message").textContent = err.message || "unknown error";
    const snippet = $("error-snippet");
    snippet.replaceChildren();
    snippet.hidden = true;
    if (err.line > 0 && err.column > 0) {
      const lines = query.split("\n");
      const text = lines[err.line - 1];
      if (text !== undefined) {
        const chars = Array.from(text); // columns count characters, not UTF-16 units
        const at = Math.min(err.column - 1, chars.length);
        const bad = chars[at] === undefined ? " " : chars[at];
        const prefix = (lines.length > 1 ? err.line + " | " : "");
        snippet.append(prefix + chars.slice(0, at).join(""), el("mark", { text: bad }),
          chars.slice(at + 1).join("") + "\n",
          el("span", { class: "caret", text: " ".repeat(Array.from(prefix).length + at) + "^ " }),
          "line " + err.line + ", column " + err.column);
        snippet.hidden = false;
        moveCaret(lines, err.line, at);
      }
    }
    $("error").hidden = false;
    $("result").hidden = true;
    document.body.dataset.state = "error";
  }

  // moveCaret puts the text cursor on the error (line, 0-based char index).
  function moveCaret(lines, line, at) {
    let off = 0;
    for (let i = 0; i < line - 1; i++) off += lines[i].length + 1;
    off += Array.from(lines[line - 1]).slice(0, at).join("").length;
    input.focus();
    input.setSelectionRange(off, Math.min(off + 1, input.value.length));
  }

  function fmtInt(n) { return typeof n === "number" ? n.toLocaleString("en-US") : n; }
  function fmtNum(x) {
    if (typeof x !== "number" || !Number.isFinite(x)) return "—";
    if (Math.abs(x) >= 100) return x.toLocaleString("en-US", { maximumFractionDigits: 1 });
    return x.toLocaleString("en-US", { maximumFractionDigits: 3 });
  }
  function fmtScore(x) { return typeof x === "number" ? x.toFixed(3) : "—"; }

  // ---- autocompletion -------------------------------------------------------

  // The token being typed: a run of name characters before the cursor, or,
  // inside an open quote (" or '), everything from the quote on.
  const nameChar = /[\p{L}\p{M}\p{N}_.:\/+\-]/u;

  function currentToken() {
    const text = input.value, caret = input.selectionStart;
    if (caret !== input.selectionEnd) return null;
    let quote = "", qstart = -1;
    for (let i = 0; i < caret; i++) {
      const c = text[i];
      if (quote) {
        if (c === "\\") i++;
        else if (c === quote) quote = "";
      } else if (c === '"' || c === "'") {
        quote = c;
        qstart = i;
      }
    }
    if (quote) {
      let end = caret;
      while (end < text.length && text[end] !== quote && text[end] !== "\n") end++;
      if (text[end] === quote) end++;
      return { start: qstart, end, prefix: text.slice(qstart + 1, caret) };
    }
    let start = caret;
    while (start > 0 && nameChar.test(text[start - 1])) start--;
    let end = caret;
    while (end < text.length && nameChar.test(text[end])) end++;
    return { start, end, prefix: text.slice(start, caret) };
  }

  let items = [], active = -1, token = null, seq = 0, timer = 0;

  function scheduleSuggest(force) {
    clearTimeout(timer);
    const t = currentToken();
    if (!t || (!force && t.prefix.length === 0)) { closeSuggest(); return; }
    timer = setTimeout(() => fetchSuggest(t), force ? 0 : 90);
  }

  async function fetchSuggest(t) {
    const my = ++seq;
    let body;
    try {
      body = await api("/v1/entities?limit=8&prefix=" + encodeURIComponent(t.prefix));
    } catch (_) { return; }
    if (my !== seq) return; // a newer keystroke won
    const now = currentToken();
    if (!now || now.start !== t.start || now.prefix !== t.prefix) return;
    token = t;
    items = body.suggestions || [];
    if (items.length === 0 || (items.length === 1 && insertText(items[0]) === input.value.slice(t.start, t.end))) {
      closeSuggest();
      return;
    }
    renderSuggest();
  }

  // insertText is what a suggestion puts in the query: the engine's quoting
  // when it gives one, else the name, quoted when it is not a bare name.
  function insertText(s) {
    if (s.insert) return s.insert;
    return /^[\p{L}\p{M}\p{N}_.:\/+\-]+$/u.test(s.name) ? s.name : JSON.stringify(s.name);
  }

  function renderSuggest() {
    suggestBox.replaceChildren();
    active = 0;
    const plen = token.prefix.length;
    items.forEach((s, i) => {
      const name = el("span", { class: "name" });
      if (plen > 0 && s.name.toLowerCase().startsWith(token.prefix.toLowerCase())) {
        name.append(el("b", { text: s.name.slice(0, plen) }), s.name.slice(plen));
      } else {
        name.textContent = s.name;
      }
      const li = el("li", { role: "option", id: "sugg-" + i, "data-name": s.name, "aria-selected": i === active },
        el("span", { class: "kind " + (s.kind || "entity"), text: (s.kind || "entity")[0].toUpperCase(), title: s.kind || "entity" }),
        name);
      if (s.label && s.label !== s.name) li.append(el("span", { class: "sublabel", text: s.label }));
      li.addEventListener("mousedown", (ev) => { ev.preventDefault(); accept(i); });
      suggestBox.append(li);
    });
    placeSuggest();
    suggestBox.hidden = false;
    input.setAttribute("aria-activedescendant", "sugg-0");
  }

  function setActive(i) {
    if (items.length === 0) return;
    active = (i + items.length) % items.length;
    Array.from(suggestBox.children).forEach((li, j) => li.setAttribute("aria-selected", j === active));
    suggestBox.children[active].scrollIntoView({ block: "nearest" });
    input.setAttribute("aria-activedescendant", "sugg-" + active);
  }

  function accept(i) {
    const s = items[i];
    if (!s || !token) return;
    const text = insertText(s);
    input.setRangeText(text, token.start, token.end, "end");
    closeSuggest();
    input.focus();
  }

  function closeSuggest() {
    clearTimeout(timer);
    seq++;
    suggestBox.hidden = true;
    items = [];
    token = null;
    input.removeAttribute("aria-activedescendant");
  }

  // placeSuggest puts the list under the cursor, measured with a hidden copy
  // of the textarea that has the same text layout.
  function placeSuggest() {
    const style = getComputedStyle(input);
    const mirror = el("div");
    for (const p of ["fontFamily", "fontSize", "fontWeight", "lineHeight", "letterSpacing", "paddingTop",
      "paddingRight", "paddingBottom", "paddingLeft", "borderTopWidth", "borderLeftWidth", "boxSizing", "tabSize"]) {
      mirror.style[p] = style[p];
    }
    Object.assign(mirror.style, {
      position: "absolute", visibility: "hidden", whiteSpace: "pre-wrap", overflowWrap: "break-word",
      width: input.clientWidth + "px", top: "0", left: "0",
    });
    mirror.textContent = input.value.slice(0, token.start);
    const mark = el("span", { text: "\u200b" });
    mirror.append(mark);
    input.parentNode.append(mirror);
    const lineHeight = parseFloat(style.lineHeight) || 20;
    const top = mark.offsetTop - input.scrollTop + lineHeight + 4;
    const left = Math.min(mark.offsetLeft, Math.max(0, input.clientWidth - 260));
    mirror.remove();
    suggestBox.style.top = top + "px";
    suggestBox.style.left = left + "px";
  }

  // ---- wiring -----------------------------------------------------------------

  input.addEventListener("input", () => scheduleSuggest(false));
  // The list closes a moment after the query loses focus; focus coming
  // back first cancels that, or it would drop the suggestions of text
  // typed right after a click elsewhere.
  let blurTimer = 0;
  input.addEventListener("blur", () => { blurTimer = setTimeout(closeSuggest, 100); });
  input.addEventListener("focus", () => clearTimeout(blurTimer));
  input.addEventListener("click", closeSuggest);
  input.addEventListener("keydown", (ev) => {
    const open = !suggestBox.hidden && items.length > 0;
    if (ev.key === " " && ev.ctrlKey) { ev.preventDefault(); scheduleSuggest(true); return; }
    if (open) {
      switch (ev.key) {
        case "ArrowDown": ev.preventDefault(); setActive(active + 1); return;
        case "ArrowUp": ev.preventDefault(); setActive(active - 1); return;
        case "Tab":
        case "Enter":
          if (!ev.ctrlKey && !ev.metaKey) { ev.preventDefault(); accept(active); return; }
          break;
        case "Escape": ev.preventDefault(); closeSuggest(); return;
      }
    }
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      closeSuggest();
      run();
    }
  });
  form.addEventListener("submit", (ev) => { ev.preventDefault(); closeSuggest(); run(); });

  // A link with ?q=...&k=... runs its query on load.
  const params = new URLSearchParams(location.search);
  if (params.get("k")) kInput.value = clampK(params.get("k"));
  loadInfo().finally(() => {
    if (params.get("q")) { input.value = params.get("q"); run(); }
    else input.focus();
  });
})();
