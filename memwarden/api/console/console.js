// memwarden review console. Every piece of data is written with textContent / text nodes,
// never as HTML: candidate values and messages are user-controlled text.
"use strict";

(() => {
  const KEY = "memwarden.apiKey";
  const $ = (id) => document.getElementById(id);

  // el("div", {class: "x", title: "y"}, child, "text", ...): children are nodes or text.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (name === "class") node.className = value;
      else node.setAttribute(name, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // Reason codes in words (GET console/reasons.json, memwarden/reasons.py), in the browser's
  // language when it is Chinese, else English; the code stays as the tooltip.
  const LANG = (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
  let WORDS = {};
  async function loadWords() {
    try {
      const response = await fetch("console/reasons.json", { cache: "no-store", credentials: "omit" });
      if (response.ok) WORDS = await response.json();
    } catch (_) {
      WORDS = {}; // the codes are shown instead
    }
  }
  function inWords(code) {
    const entry = Object.prototype.hasOwnProperty.call(WORDS, code) ? WORDS[code] : null;
    return entry ? entry[LANG] : code;
  }
  function reasonTag(code) {
    return el("span", { class: "reason", title: code, "data-code": code }, inWords(code));
  }
  // The pending count follows every approval and rejection without a reload.
  let pendingLeft = 0;
  function showCount() {
    $("count").textContent = `${pendingLeft} pending`;
  }

  function setStatus(text, kind) {
    const status = $("status");
    status.textContent = text || "";
    status.className = kind || "";
  }

  class ApiError extends Error {
    constructor(status, problem) {
      const code = problem && problem.code ? ` (${problem.code})` : "";
      const detail = problem && (problem.detail || problem.title);
      super(`${status}${code}${detail ? ": " + detail : ""}`);
      this.status = status;
      this.problem = problem || {};
    }
  }

  async function api(method, path, body) {
    const key = sessionStorage.getItem(KEY) || "";
    const headers = { Authorization: "Bearer " + key, Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    });
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  // Offsets are Unicode code points (SPEC §4); JavaScript strings index UTF-16 units.
  function evidenceBlock(evidence) {
    const text = evidence.message_text;
    if (typeof text !== "string") {
      return el("p", { class: "evidence missing" }, "message text unavailable");
    }
    const points = Array.from(text);
    const start = Math.max(0, Math.min(evidence.start, points.length));
    const end = Math.max(start, Math.min(evidence.end, points.length));
    return el(
      "blockquote",
      { class: "evidence" },
      points.slice(0, start).join(""),
      el("mark", { title: "the evidence sentence" }, points.slice(start, end).join("")),
      points.slice(end).join("")
    );
  }

  function formatValue(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  function formatExpiry(iso) {
    if (!iso) return "never";
    const when = new Date(iso);
    return Number.isNaN(when.getTime()) ? iso : when.toISOString().replace(".000Z", "Z");
  }

  function row(label, ...value) {
    return el("div", { class: "row" }, el("dt", {}, label), el("dd", {}, ...value));
  }

  // A pending candidate's card, and the entry bulk.js filters and decides with: the same
  // finish() shows a decision made on this card or in bulk, so no outcome goes unshown.
  function card(item) {
    const shortHash = item.payload_hash.slice(0, 12);
    const approve = el(
      "button",
      { type: "button", class: "approve", "data-proposal": item.proposal_id },
      "Approve"
    );
    const reject = el(
      "button",
      { type: "button", class: "reject", "data-proposal": item.proposal_id },
      "Reject"
    );
    const pick = el("input", {
      type: "checkbox",
      class: "pick",
      "aria-label": `select ${item.normalized_key} = ${formatValue(item.value)}`,
    });
    const outcome = el("p", { class: "outcome", role: "status" });
    const node = el(
      "article",
      { class: "candidate", "data-proposal": item.proposal_id },
      el(
        "h2",
        {},
        pick,
        el("span", { class: "key" }, item.normalized_key),
        " = ",
        el("span", { class: "value" }, formatValue(item.value))
      ),
      el(
        "dl",
        {},
        row("subject", item.subject_id),
        row("scope", `${item.scope.kind}: ${item.scope.key}`),
        row("expires", formatExpiry(item.expires_at)),
        row("decision", el("span", { title: item.decision }, inWords(item.decision))),
        row("reasons", ...(item.reasons.length ? item.reasons : ["—"]).flatMap((r, i) =>
          i ? ["; ", reasonTag(r)] : [reasonTag(r)]
        )),
        row("confidence", item.confidence.toFixed(2)),
        row(
          "message",
          el("code", {}, item.evidence.message_id),
          ` rev ${item.evidence.revision}`,
          item.evidence.message_status && item.evidence.message_status !== "active"
            ? el("span", { class: "warn" }, ` (${item.evidence.message_status})`)
            : null
        )
      ),
      evidenceBlock(item.evidence),
      el(
        "div",
        { class: "actions" },
        approve,
        reject,
        el(
          "span",
          { class: "hash", title: "approval binds this payload hash: " + item.payload_hash },
          "payload ",
          el("code", {}, shortHash + "…")
        )
      ),
      outcome
    );
    const entry = { item, node, pick, pending: true };
    entry.start = (verb) => {
      approve.disabled = true;
      reject.disabled = true;
      pick.disabled = true;
      outcome.textContent = verb === "approve" ? "approving…" : "rejecting…";
    };
    // result: what the route answered (200); refusal: why not, in words a reviewer can act on
    entry.finish = (verb, result, refusal) => {
      pick.checked = false;
      if (refusal) {
        outcome.textContent = `${verb} refused — ${refusal}`;
        outcome.classList.add("error");
        node.classList.add("refused");
      } else {
        entry.pending = false;
        node.classList.add("done", verb === "approve" ? "approved" : "rejected");
        pendingLeft = Math.max(0, pendingLeft - 1);
        showCount();
        outcome.textContent =
          verb === "approve"
            ? `approved: ${result.memory_id} version ${result.memory_version}`
            : "rejected";
      }
      pick.dispatchEvent(new Event("change")); // the selection count follows this card too
    };
    const settle = async (verb, body) => {
      entry.start(verb);
      try {
        const result = await api(
          "POST",
          `v1/review/${encodeURIComponent(item.proposal_id)}/${verb}`,
          body
        );
        entry.finish(verb, result, null);
      } catch (error) {
        entry.finish(verb, null, error.message);
        if (error.status === 401) showSignedOut();
      }
    };
    // The hash sent is the one rendered on this card: what the reviewer saw is what executes.
    approve.addEventListener("click", () => settle("approve", { payload_hash: item.payload_hash }));
    reject.addEventListener("click", () => settle("reject", undefined));
    return entry;
  }

  // An action awaiting approval: what would be done, with which memories, by whom.
  function actionCard(item) {
    const approve = el(
      "button",
      { type: "button", class: "approve-action", "data-action": item.action_id },
      "Approve action"
    );
    const outcome = el("p", { class: "outcome", role: "status" });
    const node = el(
      "article",
      { class: "action", "data-action": item.action_id },
      el("h2", {}, el("span", { class: "intent" }, item.intent), " for ", item.subject_id),
      el(
        "dl",
        {},
        row("params", el("code", { class: "params" }, JSON.stringify(item.params))),
        row("memories", ...(item.memory_versions.length ? item.memory_versions : ["none"])
          .flatMap((m, i) => (i ? [" ", el("code", {}, m)] : [el("code", {}, m)]))),
        row("requested by", item.requested_by),
        row("reasons", ...item.reasons.map((r) => el("code", { class: "reason" }, r)))
      ),
      el(
        "div",
        { class: "actions" },
        approve,
        el(
          "span",
          { class: "hash", title: "approval binds this request hash: " + item.request_hash },
          "request ",
          el("code", {}, item.request_hash.slice(0, 12) + "…")
        )
      ),
      outcome
    );
    approve.addEventListener("click", async () => {
      approve.disabled = true;
      outcome.textContent = "approving…";
      try {
        const result = await api(
          "POST",
          `v1/actions/${encodeURIComponent(item.action_id)}/approve`,
          { request_hash: item.request_hash }
        );
        node.classList.add("done", result.state === "allowed" ? "approved" : "cancelled");
        outcome.textContent =
          result.state === "allowed"
            ? `approved: ${result.action_id} is allowed`
            : `not approved: ${result.state} (${result.state_reason})`;
      } catch (error) {
        outcome.textContent = `approve refused — ${error.message}`;
        outcome.classList.add("error");
      }
    });
    return node;
  }

  function repairList(data) {
    const memories = data.memories.map((m) =>
      el("li", { class: "memory" }, el("code", {}, `${m.memory_id}:${m.version}`),
        ` ${m.normalized_key} — ${m.status} (${m.via})`)
    );
    const actions = data.actions.map((a) =>
      el("li", { class: `repair-action ${a.state}` }, el("code", {}, a.action_id),
        ` ${a.intent} — `, el("strong", { class: "state" }, a.state),
        ` · owner ${a.owner}`, a.external_ref ? ` · ref ${a.external_ref}` : null)
    );
    return [
      el("h3", {}, `${data.memories.length} memory versions`),
      el("ul", { class: "memories" }, ...memories),
      el("h3", {}, `${data.actions.length} actions (${data.needs_repair} need repair, ` +
        `${data.cancelled} cancelled)`),
      el("ul", { class: "repair-actions" }, ...actions),
    ];
  }

  function list(title, items, render) {
    return [
      el("h3", {}, `${title} (${items.length})`),
      items.length ? el("ul", {}, ...items.map((item) => el("li", {}, ...render(item))))
        : el("p", { class: "quiet" }, "none"),
    ];
  }

  function checksLine(receipt) {
    if (!receipt || !receipt.checks) return null;
    const failed = Object.entries(receipt.checks).filter(([, v]) => v !== "passed");
    return el("div", { class: "checks" },
      `checks: ${Object.keys(receipt.checks).length - failed.length} passed`,
      failed.length ? ` · ${failed.map(([k, v]) => `${k} ${v}`).join(", ")}` : null);
  }

  // A memory's page: everything GET /v1/memories/{id}/provenance answers, as text nodes.
  function memoryPage(p) {
    const current = p.versions.find((v) => v.current);
    return [
      el("h3", {}, el("code", {}, p.memory_id),
        current ? ` v${current.version} · ${current.normalized_key} = ${formatValue(current.value)}`
          : " · no current version"),
      ...list("versions", p.versions, (v) => [
        el("code", {}, `v${v.version}`), ` ${v.status}${v.status_reason ? " (" + v.status_reason + ")" : ""}`,
        v.auto ? " · auto" : " · reviewed", ` · proposal ${v.proposal_id.slice(0, 12)}`]),
      ...list("proposals and receipts", p.proposals, (d) => [
        el("strong", {}, d.decision), ` ${d.reasons.join(", ")} · by ${d.proposed_by}`,
        ` · producer ${d.producer_version} · message `, el("code", {}, d.evidence.message_id),
        d.evidence.quote ? el("blockquote", {}, d.evidence.quote)
          : el("p", { class: "quiet" }, `evidence ${d.evidence.message_status || "missing"}`),
        checksLine(d.receipt),
        ...d.reviews.map((r) => el("div", { class: "review" },
          `${r.verdict} by ${r.approver}: ${r.outcome} · pending receipt `,
          el("code", {}, (r.pending_fingerprint || "").slice(0, 12)))),
      ]),
      ...list("approvals", p.approvals, (a) => [
        `${a.approver} approved hash `, el("code", {}, a.approval_hash.slice(0, 12)), ` at ${a.at}`]),
      ...list("derived from", p.derived_from, (d) => [el("code", {}, d)]),
      ...list("derived by", p.derived_by, (d) => [el("code", {}, d)]),
      ...list("actions that used it", p.used_by_actions, (a) => [
        el("code", {}, a.action_id), ` ${a.intent} · ${a.decision} · ${a.state} · v${a.memory_version}`]),
      ...list("recent reads", p.recent_reads, (r) => [
        `${r.read_at} · ${r.surface} by ${r.principal_id} · `, el("code", {}, r.memory)]),
      el("h3", {}, "take it back"),
      el("pre", {}, [p.revoke.reject_memory.cli,
        ...p.revoke.revoke_messages.map((m) => m.cli)].join("\n")),
    ];
  }

  async function showMemory(memoryId) {
    $("memory-id").value = memoryId;
    try {
      const data = await api("GET", `v1/memories/${encodeURIComponent(memoryId)}/provenance`);
      $("memory-page").replaceChildren(...memoryPage(data));
    } catch (error) {
      $("memory-page").replaceChildren(el("p", { class: "error" }, error.message));
    }
  }

  function memoryFromHash() {
    const match = /^#memory=([^&]+)$/.exec(window.location.hash);
    return match ? decodeURIComponent(match[1]) : null;
  }

  function repairCard(item) {
    const note = el("input", { class: "note", placeholder: "what was done / what remains",
      "aria-label": `note for ${item.action_id}` });
    const result = el("span", { class: "result" });
    const mark = (verb) => async () => {
      if (!note.value.trim()) { result.textContent = "a note is required"; return; }
      try {
        const done = await api("POST", `v1/repairs/${encodeURIComponent(item.action_id)}/${verb}`,
          { note: note.value.trim() });
        result.textContent = `${done.state} by ${done.recorded_by}`;
      } catch (error) {
        result.textContent = error.message;
      }
    };
    const irreversible = el("button", { type: "button" }, "Irreversible");
    irreversible.addEventListener("click", mark("irreversible"));
    const close = el("button", { type: "button" }, "Close repair");
    close.addEventListener("click", mark("close"));
    return el("article", { class: `card repair ${item.state}` },
      el("h3", {}, el("code", {}, item.action_id), ` ${item.intent} — `, el("strong", {}, item.state)),
      row("memory versions", item.memory_versions.join(", ")),
      row("external ref", item.external_ref || "—"),
      row("since", item.needs_repair_since || "—"),
      item.note ? row("note", item.note) : null,
      el("div", { class: "actions" }, note, irreversible, close, result));
  }

  // The same scopes the API asks for GET /v1/repairs. A panel that cannot load says so in
  // itself: it never blanks the confirmation queue.
  async function loadRepairs(scopes) {
    const reader = ["memory:admin", "memory:review", "memory:read"].some((s) => scopes.includes(s));
    $("repairs-panel").hidden = !reader;
    if (!reader) return;
    try {
      const data = await api("GET", "v1/repairs");
      $("repairs-queue").replaceChildren(
        ...(data.repairs.length ? data.repairs.map(repairCard) : [el("p", {}, "No open repair.")])
      );
    } catch (error) {
      if (error.status === 401) throw error;
      $("repairs-queue").replaceChildren(el("p", { class: "error" }, error.message));
    }
  }

  async function loadActions(scopes) {
    const admin = scopes.includes("memory:admin");
    const approver = admin || scopes.includes("action:approve");
    const repairer = approver || admin || scopes.includes("memory:read") ||
      scopes.includes("memory:review");
    $("actions-panel").hidden = !approver;
    $("repair-panel").hidden = !repairer;
    $("memory-panel").hidden = !(admin || scopes.includes("memory:read"));
    const linked = memoryFromHash();
    if (linked && !$("memory-panel").hidden) await showMemory(linked);
    if (!approver) return;
    const data = await api("GET", "v1/actions/pending");
    $("actions-queue").replaceChildren(
      ...(data.actions.length ? data.actions.map(actionCard) : [el("p", {}, "No action awaits approval.")])
    );
  }

  // The queue and bulk.js's filter and selection always hold the same cards.
  function showQueue(entries) {
    $("queue").replaceChildren(...entries.map((entry) => entry.node));
    window.memwardenBulk.attach(entries, { api, inWords, formatValue, setStatus, showSignedOut });
  }

  function showSignedOut() {
    $("toolbar").hidden = true;
    window.memwardenBulk.attach([], null);
    $("who").textContent = "";
  }

  async function load() {
    if (!sessionStorage.getItem(KEY)) {
      setStatus("Enter an API key to see pending confirmations.", "");
      return;
    }
    setStatus("loading…", "");
    if (!Object.keys(WORDS).length) await loadWords();
    try {
      const me = await api("GET", "v1/whoami");
      $("who").textContent = `${me.principal_id} · tenant ${me.tenant_id} · ${me.scopes.join(", ")}`;
      await loadActions(me.scopes);
      await loadRepairs(me.scopes);
      if (!me.scopes.includes("memory:review") && !me.scopes.includes("memory:admin")) {
        showQueue([]);
        $("toolbar").hidden = false;
        $("count").textContent = "";
        setStatus("", "");
        return;
      }
      const data = await api("GET", "v1/review/pending");
      $("toolbar").hidden = false;
      pendingLeft = data.pending.length;
      showCount();
      showQueue(data.pending.map(card));
      setStatus(data.pending.length ? "" : "Nothing awaits confirmation.", "");
    } catch (error) {
      showQueue([]);
      setStatus(error.message, "error");
      if (error.status === 401) showSignedOut();
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("key-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const key = $("api-key").value.trim();
      $("api-key").value = "";
      if (key) sessionStorage.setItem(KEY, key);
      load();
    });
    $("forget-key").addEventListener("click", () => {
      sessionStorage.removeItem(KEY);
      showQueue([]);
      $("actions-queue").replaceChildren();
      $("repair-list").replaceChildren();
      $("actions-panel").hidden = true;
      $("repair-panel").hidden = true;
      $("memory-panel").hidden = true;
      $("repairs-panel").hidden = true;
      $("repairs-queue").replaceChildren();
      $("memory-page").replaceChildren();
      showSignedOut();
      setStatus("Key forgotten.", "");
    });
    $("refresh").addEventListener("click", load);
    $("memory-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const memoryId = $("memory-id").value.trim();
      if (memoryId) showMemory(memoryId);
    });
    $("repair-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const message = $("repair-message").value.trim();
      if (!message) return;
      try {
        const data = await api("GET", `v1/actions/affected?message=${encodeURIComponent(message)}`);
        $("repair-list").replaceChildren(...repairList(data));
      } catch (error) {
        $("repair-list").replaceChildren(el("p", { class: "error" }, error.message));
      }
    });
    load();
  });
})();
