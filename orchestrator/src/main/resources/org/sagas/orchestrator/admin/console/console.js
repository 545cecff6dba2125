// The operations console: plain JavaScript over the /admin API, no framework, no build step.
// Every value from the server is rendered through textContent / text nodes (el() below), never as
// HTML: order fields and reasons are user input. Times are ISO instants shown in the browser's zone.
"use strict";
(() => {
  const view = document.getElementById("view");
  const message = document.getElementById("message");
  const STATUSES = ["PENDING_CONFIRMATION", "AWAITING_PAYMENT", "PAYMENT_UNKNOWN", "COMPENSATING", "CONFIRMED",
    "CANCELLED", "REJECTED"];
  const TERMINAL = new Set(["CONFIRMED", "CANCELLED", "REJECTED"]);
  const FILTERS = [
    ["customerId", "Customer", "text"], ["idempotencyKey", "Idempotency key", "text"],
    ["step", "Step (e.g. RESERVE_STOCK)", "text"], ["parkedOn", "Parked on (e.g. inventory)", "text"],
    ["incident", "Incident cause or 'any'", "text"], ["stuckForSeconds", "Stuck for (seconds)", "number"],
    ["createdFrom", "Created from", "datetime-local"], ["createdTo", "Created to", "datetime-local"],
    ["version", "Saga definition version", "number"]];
  let me = {mayWrite: false};
  let generation = 0;

  // ---- DOM, text only -------------------------------------------------------------------------
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) { continue; }
      if (k === "class") { e.className = v; }
      else if (k === "text") { e.textContent = String(v); }
      else if (k.startsWith("on")) { e.addEventListener(k.slice(2), v); }
      else { e.setAttribute(k, v === true ? "" : String(v)); }
    }
    add(e, children);
    return e;
  }
  function add(parent, ...children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) { continue; }
      parent.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return parent;
  }
  /** Replaces a container's children, keeping keyboard focus on the element with the same data-key. */
  function rebuild(container, children) {
    const focused = container.contains(document.activeElement) ? document.activeElement.dataset.key : undefined;
    container.replaceChildren();
    add(container, children);
    if (focused !== undefined) {
      const again = [...container.querySelectorAll("[data-key]")].find(n => n.dataset.key === focused);
      if (again) { again.focus(); }
    }
  }
  function when(iso) {
    if (!iso) { return el("span", {class: "muted", text: "—"}); }
    const d = new Date(iso);
    return el("time", {datetime: iso, title: iso, text: isNaN(d) ? iso : d.toLocaleString()});
  }
  function age(seconds) {
    if (seconds === null || seconds === undefined) { return "—"; }
    const s = Math.round(seconds);
    if (s < 60) { return s + " s"; }
    if (s < 3600) { return Math.floor(s / 60) + " min " + (s % 60) + " s"; }
    if (s < 86400) { return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min"; }
    return Math.floor(s / 86400) + " d " + Math.floor((s % 86400) / 3600) + " h";
  }
  const badge = (value, extra) => el("span", {class: "badge " + String(value) + (extra ? " " + extra : ""), text: value});
  const money = (cents, currency) => cents === null || cents === undefined ? "" : (cents / 100).toFixed(2) + " "
      + (currency || "");
  const orderLink = (id, key) => el("a", {href: "#/saga/" + encodeURIComponent(id), class: "mono", "data-key": key
      || "order:" + id, text: id});
  const isUuid = (s) => typeof s === "string" && /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s);
  function table(columns, rows, empty) {
    if (!rows || rows.length === 0) { return el("p", {class: "muted", text: empty || "None."}); }
    return el("table", {},
      el("thead", {}, el("tr", {}, columns.map(c => el("th", {scope: "col", class: c.num ? "num" : null, text: c.title})))),
      el("tbody", {}, rows.map(r => el("tr", {}, columns.map(c => el("td", {class: c.num ? "num" : c.mono ? "mono" : null},
        c.render ? c.render(r) : (r[c.key] === null || r[c.key] === undefined ? "" : String(r[c.key]))))))));
  }
  function facts(pairs) {
    return el("dl", {class: "facts"}, pairs.filter(p => p).map(([k, v]) => [el("dt", {text: k}),
      el("dd", {}, v === null || v === undefined || v === "" ? el("span", {class: "muted", text: "—"}) : v)]));
  }
  const card = (title, ...body) => el("section", {class: "card", "aria-label": title}, el("h3", {text: title}), body);
  const wide = (title, ...body) => el("section", {class: "card wide", "aria-label": title}, el("h3", {text: title}), body);
  function say(text, info) {
    if (!text) { message.hidden = true; message.textContent = ""; return; }
    message.textContent = text;
    message.className = "message" + (info ? " info" : "");
    message.hidden = false;
  }

  // ---- API ------------------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, problem, text) {
      super(status + " " + (problem && problem.title ? problem.title : "") + (problem && problem.detail
          ? ": " + problem.detail : text ? ": " + text.slice(0, 300) : ""));
      this.status = status;
      this.problem = problem || {};
    }
  }
  async function api(method, path, body) {
    const options = {method, credentials: "same-origin", headers: {"X-Sagas-Console": "1"}};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const r = await fetch(path, options);
    const text = await r.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (r.status === 401) { location.assign("/console/"); }
    if (!r.ok) { throw new ApiError(r.status, json, text); }
    return json;
  }

  // ---- confirmation dialog --------------------------------------------------------------------
  const dialog = document.getElementById("confirm");
  const reasonBox = document.getElementById("confirm-reason");
  let answer = null;
  let confirmed = false;
  document.getElementById("confirm-cancel").addEventListener("click", () => dialog.close());
  // Decided here, not from the dialog's returnValue: a form submitted by Enter has no submitter button.
  document.getElementById("confirm-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!reasonBox.value.trim()) { reasonBox.focus(); return; }
    confirmed = true;
    dialog.close();
  });
  reasonBox.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); document.getElementById("confirm-form").requestSubmit(); }
  });
  dialog.addEventListener("close", () => {
    const resolve = answer;
    answer = null;
    if (resolve) { resolve(confirmed ? reasonBox.value.trim() : null); }
  });
  /** Asks for confirmation and the reason the audit keeps; resolves to the reason, or null when cancelled. */
  function confirmAction(title, text, confirmLabel) {
    document.getElementById("confirm-title").textContent = title;
    document.getElementById("confirm-text").textContent = text;
    document.getElementById("confirm-ok").textContent = confirmLabel || "Confirm";
    reasonBox.value = "";
    confirmed = false;
    const opener = document.activeElement;
    return new Promise(resolve => {
      answer = (reason) => { if (opener && opener.isConnected) { opener.focus(); } resolve(reason); };
      dialog.showModal();
      reasonBox.focus();
    });
  }

  // ---- routing --------------------------------------------------------------------------------
  const routes = [
    [/^#\/overview$/, "overview", overviewPage],
    [/^#\/search(?:\?(.*))?$/, "search", searchPage],
    [/^#\/saga\/([0-9a-fA-F-]{36})$/, "search", sagaPage],
    [/^#\/batches(?:\?(.*))?$/, "batches", batchesPage],
    [/^#\/batches\/([0-9a-fA-F-]{36})$/, "batches", batchPage],
    [/^#\/dead-letters$/, "dead-letters", deadLettersPage],
    [/^#\/audit$/, "audit", auditPage],
    [/^#\/definitions$/, "definitions", definitionsPage]];
  async function route(focus, keepMessage) {
    const g = ++generation;
    const hash = location.hash || "#/overview";
    const found = routes.map(([re, nav, page]) => [re.exec(hash), nav, page]).find(([m]) => m);
    if (!keepMessage) { say(null); }
    view.replaceChildren();
    if (!found) { add(view, el("h2", {text: "Not found"}), el("p", {}, "No page ", el("code", {text: hash}), ". ",
      el("a", {href: "#/overview", text: "Overview"}))); return; }
    const [m, nav, page] = found;
    document.querySelectorAll("header nav a").forEach(a => {
      if (a.dataset.page === nav) { a.setAttribute("aria-current", "page"); } else { a.removeAttribute("aria-current"); }
    });
    if (focus) { view.focus(); }
    try { await page(m.slice(1), g); } catch (e) { if (g === generation) { say(e.message); } }
  }
  const alive = (g) => g === generation;
  /** Runs load now and every ms while the page is shown (paused while the dialog is open); load may answer false to stop. */
  async function live(g, ms, load) {
    let failing = false;
    const tick = async () => {
      if (!alive(g)) { return; }
      let again = true;
      if (!dialog.open && !document.hidden) {
        try { again = (await load()) !== false; if (alive(g) && failing) { failing = false; say(null); } }
        catch (e) { if (alive(g)) { failing = true; say(e.message); } }
      }
      if (again && alive(g)) { setTimeout(tick, ms); }
    };
    await tick();
  }
  const params = (query) => new URLSearchParams(query || "");

  // ---- overview -------------------------------------------------------------------------------
  async function overviewPage(_, g) {
    const updated = el("p", {class: "updated"});
    const body = el("div");
    add(view, el("h2", {text: "Overview"}), updated, body);
    await live(g, 3000, async () => {
      const [o, attention, findings] = await Promise.all([api("GET", "/admin/overview"),
        api("GET", "/admin/sagas?status=PENDING_CONFIRMATION&status=PAYMENT_UNKNOWN&status=COMPENSATING&limit=10"),
        api("GET", "/admin/reconciliation/findings?open=true&limit=5")]);
      if (!alive(g)) { return false; }
      rebuild(body, overviewCards(o, attention.items, findings.items || []));
      updated.replaceChildren("Updated ", when(o.at), " · refreshed every 3 s");
      return true;
    });
  }
  function unavailable(o, part) {
    return o.unavailable && o.unavailable[part] ? el("p", {class: "error", text: "Unavailable: " + o.unavailable[part]}) : null;
  }
  function overviewCards(o, attention, findings) {
    const pending = o.pendingConfirmation;
    const incidents = Object.entries(o.incidents || {});
    const incidentTotal = incidents.reduce((n, [, c]) => n + c, 0);
    const kafka = o.kafkaDeadLetters || [];
    const kafkaTotal = kafka.reduce((n, t) => n + t.records, 0);
    const findingsOpen = Object.entries(o.openFindings || {});
    return [el("div", {class: "grid"},
      card("Pending confirmation", el("div", {class: "big", id: "pending-count", text: pending.count}),
        facts([["Oldest", pending.oldestAgeSeconds === null ? null : age(pending.oldestAgeSeconds)],
          ["Since", pending.oldestCreatedAt ? when(pending.oldestCreatedAt) : null]]),
        el("p", {}, el("a", {href: "#/search?status=PENDING_CONFIRMATION", "data-key": "pending-link",
          text: "Show pending orders"}))),
      card("Incidents", el("div", {class: "big", text: incidentTotal}),
        table([{title: "Cause", render: r => el("a", {href: "#/search?incident=" + encodeURIComponent(r[0]),
          "data-key": "incident:" + r[0], text: r[0]})}, {title: "Sagas", num: true, render: r => String(r[1])}],
          incidents, "No saga needs an operator.")),
      card("Dependencies", unavailable(o, "breakers"), table([{title: "Dependency", key: "dependency"},
        {title: "Breaker", render: r => badge(r.state)}], o.breakers || [], "No breakers.")),
      card("Outbox", unavailable(o, "outbox"), o.outbox ? facts([
        ["Waiting for Kafka", String(o.outbox.pendingRows) + " rows"],
        ["Oldest waits", o.outbox.pendingRows ? age(o.outbox.oldestAgeMillis / 1000) : null],
        ["Dead letters", el("a", {href: "#/dead-letters", "data-key": "outbox-dead", text: String(o.outbox.deadLetters)})]])
        : null),
      card("Kafka dead letters", unavailable(o, "kafkaDeadLetters"), el("div", {class: "big", text: kafkaTotal}),
        table([{title: "Topic", key: "topic", mono: true}, {title: "Records", key: "records", num: true}],
          kafka.filter(t => t.records > 0), "No dead-lettered records.")),
      card("Reconciliation findings", unavailable(o, "openFindings"),
        table([{title: "Open, by kind", render: r => r[0]}, {title: "Count", num: true, render: r => String(r[1])}],
          findingsOpen, "No open findings.")),
      card("Orders by status", table([{title: "Status", render: r => el("a", {href: "#/search?status=" + r[0],
        "data-key": "status:" + r[0]}, badge(r[0]))}, {title: "Orders", num: true, render: r => String(r[1])}],
        Object.entries(o.orders || {}))),
      wide("Orders that need attention (newest first)", ordersTable(attention, "None: nothing pending, unknown or compensating.")),
      wide("Latest open findings", table([{title: "Kind", key: "kind"},
        {title: "Order", render: r => isUuid(r.orderId) ? orderLink(r.orderId, "finding:" + r.findingId) : r.orderId || ""},
        {title: "Detail", key: "detail"}, {title: "Opened", render: r => when(r.openedAt)}], findings, "No open findings.")))];
  }
  function ordersTable(items, empty) {
    return table([{title: "Order", render: r => orderLink(r.orderId)}, {title: "Status", render: r => badge(r.status)},
      {title: "Customer", key: "customerId"}, {title: "Total", num: true, render: r => money(r.totalCents, r.currency)},
      {title: "Step", key: "step"}, {title: "Saga", key: "sagaStatus"},
      {title: "Definition", render: r => r.definitionVersion ? "v" + r.definitionVersion : ""},
      {title: "Parked on", key: "parkedOn"},
      {title: "Incident", render: r => r.incidentCause ? badge(r.incidentCause, "incident") : ""},
      {title: "Created", render: r => when(r.createdAt)}, {title: "Updated", render: r => when(r.updatedAt)}], items,
      empty || "No orders match.");
  }

  // ---- filters (search and batches) -----------------------------------------------------------
  function localInput(iso) {
    const d = new Date(iso);
    if (!iso || isNaN(d)) { return ""; }
    const p = (n) => String(n).padStart(2, "0");
    return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + "T" + p(d.getHours()) + ":" + p(d.getMinutes());
  }
  function filterFields(q, prefix) {
    const chosen = new Set(q.getAll("status").flatMap(s => s.split(",")));
    return [el("fieldset", {}, el("legend", {text: "Status"}), STATUSES.map(s => el("label", {},
      el("input", {type: "checkbox", name: "status", value: s, checked: chosen.has(s), id: prefix + "-status-" + s}), " ", s))),
      FILTERS.map(([name, label, type]) => el("div", {}, el("label", {for: prefix + "-" + name, text: label}),
        el("input", {id: prefix + "-" + name, name, type, min: type === "number" ? "0" : null,
          value: type === "datetime-local" ? localInput(q.get(name)) : q.get(name) || ""})))];
  }
  /** The filter as query parameters, times as ISO instants of the browser's zone. */
  function filterQuery(form) {
    const q = new URLSearchParams();
    form.querySelectorAll("input[name=status]:checked").forEach(i => q.append("status", i.value));
    for (const [name, , type] of FILTERS) {
      const v = form.elements[name].value.trim();
      if (v) { q.set(name, type === "datetime-local" ? new Date(v).toISOString() : v); }
    }
    return q;
  }

  // ---- search ---------------------------------------------------------------------------------
  async function searchPage([query], g) {
    const q = params(query);
    const form = el("form", {class: "filters", role: "search", "aria-label": "Find orders"}, filterFields(q, "f"),
      el("div", {}, el("label", {for: "f-limit", text: "Per page"}),
        el("input", {id: "f-limit", name: "limit", type: "number", min: "1", max: "500", value: q.get("limit") || "50"})),
      el("div", {class: "buttons"}, el("button", {type: "submit", class: "primary", text: "Search"}),
        el("a", {href: "#/search", text: "Clear"})));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const next = filterQuery(form);
      if (form.elements.limit.value) { next.set("limit", form.elements.limit.value); }
      const target = "#/search?" + next.toString();
      if (location.hash === target) { route(false); } else { location.hash = target; }
    });
    const results = el("div", {"aria-live": "polite"});
    add(view, el("h2", {text: "Search orders"}), form, results);
    const page = await api("GET", "/admin/sagas?" + q.toString());
    if (!alive(g)) { return; }
    const base = new URLSearchParams(q);
    base.delete("cursor");
    const batchQuery = new URLSearchParams(base);
    batchQuery.delete("limit");
    add(results, el("p", {}, page.items.length + " order(s) on this page",
      q.get("cursor") ? [" · ", el("a", {href: "#/search?" + base.toString(), text: "First page"})] : null,
      batchQuery.toString() ? [" · ", el("a", {href: "#/batches?" + batchQuery.toString(),
        text: "Act on all matching orders as a batch"})] : null),
      ordersTable(page.items),
      page.nextCursor ? el("p", {}, el("a", {href: "#/search?" + (() => { const n = new URLSearchParams(base);
        n.set("cursor", page.nextCursor); return n.toString(); })(), id: "next-page", text: "Next page →"})) : null);
  }

  // ---- one saga -------------------------------------------------------------------------------
  async function sagaPage([id], g) {
    const body = el("div");
    add(view, body);
    await live(g, 3000, async () => {
      const v = await api("GET", "/admin/sagas/" + id);
      if (!alive(g)) { return false; }
      rebuild(body, sagaView(id, v, g));
      return !TERMINAL.has(v.order.status);
    });
  }
  function sagaView(id, v, g) {
    const o = v.order;
    const s = v.saga || {};
    const terminal = TERMINAL.has(o.status);
    const why = !me.mayWrite ? "Your token may read, not write." : null;
    const action = (label, cls, path, extra, text, key) => el("button", {type: "button", class: cls, "data-key": key,
      disabled: !me.mayWrite, title: why, text: label, onclick: async () => {
        const reason = await confirmAction(label + " — order " + id, text, label);
        if (reason === null) { return; }
        try {
          const r = await api("POST", "/admin/sagas/" + id + "/" + path, Object.assign({reason}, extra));
          say(label + ": " + r.outcome + " — the order is now " + r.saga.status + ".", true);
        } catch (e) { console.error(label, e); say(label + " refused: " + e.message); }
        if (alive(g)) { route(false, true); }
      }});
    const actions = el("div", {class: "buttons", role: "group", "aria-label": "Actions"},
      terminal ? el("span", {class: "muted", text: "The saga has ended: no action applies."}) : [
        action("Retry now", "primary", "retry", {}, "Runs the saga's current step now (a parked order is tried again at once).", "retry"),
        action("Cancel order", "danger", "cancel", {}, "Compensates: releases the stock, refunds a captured charge, and ends the order CANCELLED with a notice to the customer.", "cancel"),
        o.status === "PAYMENT_UNKNOWN" ? [
          action("Settle payment: captured", null, "payment-outcome", {outcome: "CAPTURED"}, "Applies a CAPTURED payment reply, as the provider would: the order is confirmed. Only when you know the provider captured it.", "captured"),
          action("Settle payment: declined", "danger", "payment-outcome", {outcome: "DECLINED"}, "Applies a DECLINED payment reply: the order is compensated and cancelled. Only when you know the provider did not capture it.", "declined")] : null]);
    const participants = Object.entries(v.participants || {});
    const outbox = (v.outbox || []);
    const dead = (v.deadLetters && v.deadLetters.outbox) || [];
    return [
      el("h2", {}, "Order ", el("span", {class: "mono", text: id}), " ", badge(o.status, "order-status")),
      actions,
      el("div", {class: "grid"},
        card("Order", facts([["Customer", o.customerId], ["Total", money(o.totalCents, o.currency)],
          ["Created", when(o.createdAt)]]),
          table([{title: "SKU", key: "sku", mono: true}, {title: "Qty", key: "quantity", num: true},
            {title: "Unit price", num: true, render: r => money(r.unitPriceCents, o.currency)}], o.lines || [], "No lines.")),
        card("Saga", facts([["Definition", s.type ? s.type + " v" + s.definitionVersion : null],
          ["Engine status", s.status], ["Step", s.step], ["Label", s.label], ["Version (moves)", s.version],
          ["Parked on", s.parkedOn], ["Park reason", s.parkReason], ["Parked times", s.parkCount],
          ["Next attempt", s.nextAttemptAt ? when(s.nextAttemptAt) : null],
          ["Step deadline", s.stepDeadlineAt ? when(s.stepDeadlineAt) : null],
          ["Expires", s.expiresAt ? when(s.expiresAt) : null], ["Updated", s.updatedAt ? when(s.updatedAt) : null]])),
        s.incident ? card("Incident", badge(s.incident.cause, "incident"), facts([["Since", when(s.incident.at)],
          ["Detail", s.incident.detail]])) : null,
        wide("Timeline", (v.history || []).length === 0 ? el("p", {class: "muted", text: "No transitions yet."})
          : el("ol", {class: "timeline"}, v.history.map(h => el("li", {}, when(h.at), " ", badge(h.status), " ",
            el("span", {class: "mono", text: [h.step, h.label].filter(x => x).join(" · ")}),
            h.code ? [" ", el("span", {class: "muted", text: "(" + h.code + ")"})] : null,
            h.reason ? el("span", {class: "reason", text: h.reason}) : null)))),
        wide("What the participants hold", participants.length === 0 ? el("p", {class: "muted", text: "No participant view."})
          : el("div", {class: "grid"}, participants.map(([name, snap]) => el("div", {},
            el("h4", {}, name, " ", snap && snap.stale ? badge("stale", "HALF_OPEN") : badge("live", "CLOSED")),
            snap ? facts([["Fetched", when(snap.fetchedAt)], ["Error", snap.error]]) : null,
            el("pre", {text: snap && snap.value !== null && snap.value !== undefined ? JSON.stringify(snap.value, null, 2) : "(nothing)"}))))),
        wide("Outbox", table([{title: "Id", key: "id", num: true}, {title: "Topic", key: "topic", mono: true},
          {title: "Message", key: "messageType"}, {title: "Created", render: r => when(r.createdAt)}], outbox,
          "No rows waiting for Kafka."),
          dead.length ? [el("h4", {text: "Dead-lettered"}), table([{title: "Id", key: "id", num: true},
            {title: "Topic", key: "topic", mono: true}, {title: "Message", key: "messageType"},
            {title: "Error", key: "error"}, {title: "Created", render: r => when(r.createdAt)}], dead),
            el("a", {href: "#/dead-letters", text: "Replay or discard on the dead letters page"})] : null),
        wide("Operators' actions on this order", auditTable(v.audit && v.audit.items ? v.audit.items : v.audit || [])))];
  }

  // ---- batches --------------------------------------------------------------------------------
  async function batchesPage([query], g) {
    const q = params(query);
    const form = el("form", {class: "filters", "aria-label": "New batch"},
      el("fieldset", {}, el("legend", {text: "Action"}), ["retry", "cancel"].map(a => el("label", {},
        el("input", {type: "radio", name: "action", value: a, checked: (q.get("action") || "retry") === a}), " ", a))),
      filterFields(q, "b"),
      el("div", {}, el("label", {for: "b-rate", text: "Max rate (orders/s)"}),
        el("input", {id: "b-rate", name: "maxRatePerSecond", type: "number", min: "0.1", max: "1000", step: "any", value: "50"})),
      el("div", {class: "buttons"}, el("button", {type: "submit", class: "primary", text: "Dry run"})));
    const result = el("div", {"aria-live": "polite"});
    const list = el("div");
    add(view, el("h2", {text: "Batches"}), el("p", {class: "hint",
      text: "A dry run counts the matching orders and shows a sample; nothing is written until you start the batch."}),
      form, result, el("h3", {text: "Recent batches"}), list);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const filter = Object.fromEntries([...filterQuery(form).keys()].map(k => [k, k === "status"
        ? filterQuery(form).getAll("status") : filterQuery(form).get(k)]));
      const request = {action: form.elements.action.value, filter,
        maxRatePerSecond: Number(form.elements.maxRatePerSecond.value || 50)};
      try {
        const dry = await api("POST", "/admin/batches", Object.assign({dryRun: true, reason: "dry run"}, request));
        say(null);
        const start = el("button", {type: "button", class: "danger", id: "batch-start", disabled: !me.mayWrite || dry.matched === 0,
          text: "Start: " + request.action + " " + dry.matched + " order(s)", onclick: async () => {
            const reason = await confirmAction("Start a batch", request.action + " " + dry.matched
              + " order(s) at most " + request.maxRatePerSecond + " per second. Orders that moved meanwhile are skipped.", "Start");
            if (reason === null) { return; }
            try {
              const started = await api("POST", "/admin/batches", Object.assign({dryRun: false, reason}, request));
              location.hash = "#/batches/" + started.batchId;
            } catch (e) { say("Batch refused: " + e.message); }
          }});
        rebuild(result, [el("h3", {text: "Dry run"}), el("p", {}, el("strong", {id: "dry-run-count", text: dry.matched}),
          " order(s) match; a sample of the oldest:"), ordersTable(dry.sample), el("div", {class: "buttons"}, start)]);
        start.focus();
      } catch (e) { say(e.message); }
    });
    const batches = await api("GET", "/admin/batches?limit=20");
    if (!alive(g)) { return; }
    add(list, table([{title: "Batch", render: r => el("a", {href: "#/batches/" + r.batchId, class: "mono", text: r.batchId})},
      {title: "Action", key: "action"}, {title: "State", render: r => badge(r.state)}, {title: "By", key: "actor"},
      {title: "Matched", key: "matched", num: true}, {title: "Processed", key: "processed", num: true},
      {title: "Created", render: r => when(r.createdAt)}], batches.items, "No batches yet."));
  }
  async function batchPage([id], g) {
    const body = el("div");
    add(view, el("p", {}, el("a", {href: "#/batches", text: "← Batches"})), body);
    await live(g, 2000, async () => {
      const b = await api("GET", "/admin/batches/" + id);
      if (!alive(g)) { return false; }
      const running = b.state === "RUNNING";
      rebuild(body, [el("h2", {}, "Batch ", el("span", {class: "mono", text: id}), " ", badge(b.state, "batch-state")),
        el("progress", {max: Math.max(1, b.matched), value: b.processed, "aria-label": "Progress"}),
        el("p", {id: "batch-progress", text: b.processed + " of " + b.matched + " processed"}),
        el("div", {class: "grid"}, card("Outcomes", facts([["Applied", String(b.applied)], ["Refused", String(b.refused)],
          ["Conflicts", String(b.conflicts)], ["Not found", String(b.notFound)], ["Failed", String(b.failed)]])),
          card("Batch", facts([["Action", b.action], ["By", b.actor], ["Reason", b.reason], ["Max rate", b.maxRatePerSecond + "/s"],
            ["Created", when(b.createdAt)], ["Finished", b.finishedAt ? when(b.finishedAt) : null], ["Error", b.error]]),
            el("pre", {text: JSON.stringify(b.filter, null, 2)}))),
        running ? el("div", {class: "buttons"}, el("button", {type: "button", class: "danger", "data-key": "stop",
          disabled: !me.mayWrite, text: "Stop batch", onclick: async () => {
            const reason = await confirmAction("Stop batch", "Orders not yet processed are left as they are.", "Stop");
            if (reason === null) { return; }
            try { await api("POST", "/admin/batches/" + id + "/stop", {reason}); } catch (e) { say(e.message); }
            if (alive(g)) { route(false, true); }
          }})) : null]);
      return running;
    });
  }

  // ---- dead letters ---------------------------------------------------------------------------
  async function deadLettersPage(_, g) {
    const outbox = el("div", {id: "outbox-dead-letters"});
    const kafka = el("div", {id: "kafka-dead-letters"});
    add(view, el("h2", {text: "Dead letters"}), el("h3", {text: "Outbox rows the broker refused"}), outbox,
      el("h3", {text: "Kafka dead-letter topics"}), kafka);
    const [o, k] = await Promise.all([api("GET", "/admin/outbox/dead-letters?limit=200"),
      api("GET", "/admin/kafka/dead-letters").catch(e => ({error: e.message}))]);
    if (!alive(g)) { return; }
    const act = (label, cls, text, run) => el("button", {type: "button", class: cls, disabled: !me.mayWrite, text: label,
      onclick: async () => {
        const reason = await confirmAction(label, text, label);
        if (reason === null) { return; }
        try { await run(reason); say(label + ": done.", true); } catch (e) { say(label + " refused: " + e.message); }
        if (alive(g)) { route(false, true); }
      }});
    add(outbox, el("p", {text: o.count + " row(s). While one waits here, its order's later messages wait behind it."}),
      table([{title: "Id", key: "id", num: true}, {title: "Order", render: r => isUuid(r.aggregateId) ? orderLink(r.aggregateId) : r.aggregateId},
        {title: "Topic", key: "topic", mono: true}, {title: "Message", key: "messageType"}, {title: "Bytes", key: "payloadBytes", num: true},
        {title: "Error", key: "error"}, {title: "Failed", render: r => when(r.failedAt)},
        {title: "Actions", render: r => el("div", {class: "buttons"},
          act("Replay " + r.id, "primary", "Puts the row back into the outbox, ahead of its order's later rows.",
            reason => api("POST", "/admin/outbox/dead-letters/" + r.id + "/replay", {reason})),
          act("Discard " + r.id, "danger", "Drops the row for good: it is never published.",
            reason => api("DELETE", "/admin/outbox/dead-letters/" + r.id, {reason})))}], o.deadLetters, "No dead-lettered outbox rows."));
    if (k.error) { add(kafka, el("p", {class: "error", text: "Unavailable: " + k.error})); return; }
    const topics = (k.topics || []);
    add(kafka, table([{title: "Topic", key: "topic", mono: true}, {title: "Source", key: "sourceTopic", mono: true},
      {title: "Records", key: "records", num: true}], topics, "No dead-letter topics."));
    for (const t of topics.filter(t => t.records > 0)) {
      const records = await api("GET", "/admin/kafka/dead-letters?topic=" + encodeURIComponent(t.topic) + "&limit=100");
      if (!alive(g)) { return; }
      add(kafka, el("h4", {class: "mono", text: t.topic}), table([{title: "At", render: r => r.partition + "@" + r.offset, mono: true},
        {title: "Key", key: "key", mono: true}, {title: "Reason", key: "reason"}, {title: "Value", render: r => el("pre", {text: r.value})},
        {title: "Time", render: r => when(r.timestamp)},
        {title: "Action", render: r => act("Redrive " + r.partition + "@" + r.offset, "primary",
          "Sends the record back to " + t.sourceTopic + " with the same key, value and headers.", async (reason) => {
            try { await redriveOnce(t.topic, r, reason, false); }
            catch (e) {
              if (e.status === 409 && String(e.problem.type || "").endsWith("already-redriven")) {
                const again = await confirmAction("Redriven before", e.message + " Send it again anyway?", "Send again");
                if (again !== null) { await redriveOnce(t.topic, r, again, true); return; }
              }
              throw e;
            }
          })}], records.records || []));
    }
  }
  function redriveOnce(topic, r, reason, force) {
    return api("POST", "/admin/kafka/dead-letters/redrive", Object.assign({topic, partition: r.partition, offset: r.offset,
      reason}, force ? {force: true} : {}));
  }

  // ---- audit ----------------------------------------------------------------------------------
  function auditTable(items) {
    return table([{title: "When", render: r => when(r.at)}, {title: "Who", render: r => r.actor + " (" + r.role + ")"},
      {title: "Action", key: "action"}, {title: "Target", render: r => isUuid(r.target) ? orderLink(r.target, "audit:" + r.id) : r.target || ""},
      {title: "Outcome", render: r => badge(r.outcome)}, {title: "Reason", key: "reason"}], items, "No actions recorded.");
  }
  async function auditPage(_, g) {
    const page = await api("GET", "/admin/audit?limit=200");
    if (!alive(g)) { return; }
    add(view, el("h2", {text: "Audit"}), el("p", {class: "hint", text: "Every write through the operator API, newest first."}),
      auditTable(page.items));
  }

  // ---- saga definition versions -----------------------------------------------------------------
  async function definitionsPage(_, g) {
    const page = await api("GET", "/admin/definitions");
    if (!alive(g)) { return; }
    add(view, el("h2", {text: "Saga definitions"}),
      el("p", {class: "hint", text: "Each version of each saga, its live sagas by status and the live processes that have it."
        + " A version without live sagas that new sagas do not start on may leave a later build."}),
      table([{title: "Saga", key: "type"}, {title: "Version", num: true, render: r => "v" + r.version},
        {title: "New sagas start here", render: r => r.startsNewInstances ? "yes" : ""},
        {title: "Live processes", num: true, key: "liveProcesses"},
        {title: "Live sagas", num: true, render: r => r.liveTotal > 0 && r.type === "order"
          ? el("a", {href: "#/search?version=" + r.version + "&status=PENDING_CONFIRMATION,AWAITING_PAYMENT,PAYMENT_UNKNOWN,COMPENSATING",
            text: String(r.liveTotal)}) : String(r.liveTotal)},
        {title: "By status", render: r => Object.entries(r.liveInstances).map(([s, n]) => s + " " + n).join(" · ")},
        {title: "", render: r => r.liveTotal > 0 && r.liveProcesses === 0 ? badge("no live process has it", "incident")
          : r.liveTotal === 0 && !r.startsNewInstances ? el("span", {class: "muted", text: "may be retired"}) : ""}],
        page.items, "No saga definitions."));
  }

  // ---- start ----------------------------------------------------------------------------------
  // The skip link focuses the page; followed as a link it would change the route (#view).
  document.querySelector("a.skip").addEventListener("click", (ev) => { ev.preventDefault(); view.focus(); });
  window.addEventListener("hashchange", () => route(true));
  api("GET", "/admin/whoami").then(w => {
    me = w;
    document.getElementById("who").textContent = w.name + " · " + w.role + (w.readOnly ? " · read-only" : "");
  }).catch(e => say(e.message)).finally(() => route(false));
})();
