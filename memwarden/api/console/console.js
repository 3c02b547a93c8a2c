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
    const outcome = el("p", { class: "outcome", role: "status" });
    const node = el(
      "article",
      { class: "candidate", "data-proposal": item.proposal_id },
      el(
        "h2",
        {},
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
        row("decision", item.decision),
        row("reasons", ...(item.reasons.length ? item.reasons : ["—"]).flatMap((r, i) =>
          i ? [" ", el("code", { class: "reason" }, r)] : [el("code", { class: "reason" }, r)]
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
    const settle = async (verb, body) => {
      approve.disabled = true;
      reject.disabled = true;
      outcome.textContent = verb === "approve" ? "approving…" : "rejecting…";
      try {
        const result = await api(
          "POST",
          `v1/review/${encodeURIComponent(item.proposal_id)}/${verb}`,
          body
        );
        node.classList.add("done", verb === "approve" ? "approved" : "rejected");
        outcome.textContent =
          verb === "approve"
            ? `approved: ${result.memory_id} version ${result.memory_version}`
            : "rejected";
      } catch (error) {
        outcome.textContent = `${verb} refused — ${error.message}`;
        outcome.classList.add("error");
        if (error.status === 401) showSignedOut();
      }
    };
    // The hash sent is the one rendered on this card: what the reviewer saw is what executes.
    approve.addEventListener("click", () => settle("approve", { payload_hash: item.payload_hash }));
    reject.addEventListener("click", () => settle("reject", undefined));
    return node;
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

  async function loadActions(scopes) {
    const admin = scopes.includes("memory:admin");
    const approver = admin || scopes.includes("action:approve");
    const repairer = approver || admin || scopes.includes("memory:read") ||
      scopes.includes("memory:review");
    $("actions-panel").hidden = !approver;
    $("repair-panel").hidden = !repairer;
    if (!approver) return;
    const data = await api("GET", "v1/actions/pending");
    $("actions-queue").replaceChildren(
      ...(data.actions.length ? data.actions.map(actionCard) : [el("p", {}, "No action awaits approval.")])
    );
  }

  function showSignedOut() {
    $("toolbar").hidden = true;
    $("who").textContent = "";
  }

  async function load() {
    if (!sessionStorage.getItem(KEY)) {
      setStatus("Enter an API key to see pending confirmations.", "");
      return;
    }
    setStatus("loading…", "");
    try {
      const me = await api("GET", "v1/whoami");
      $("who").textContent = `${me.principal_id} · tenant ${me.tenant_id} · ${me.scopes.join(", ")}`;
      await loadActions(me.scopes);
      if (!me.scopes.includes("memory:review") && !me.scopes.includes("memory:admin")) {
        $("queue").replaceChildren();
        $("toolbar").hidden = false;
        $("count").textContent = "";
        setStatus("", "");
        return;
      }
      const data = await api("GET", "v1/review/pending");
      const queue = $("queue");
      queue.replaceChildren(...data.pending.map(card));
      $("toolbar").hidden = false;
      $("count").textContent = `${data.pending.length} pending`;
      setStatus(data.pending.length ? "" : "Nothing awaits confirmation.", "");
    } catch (error) {
      $("queue").replaceChildren();
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
      $("queue").replaceChildren();
      $("actions-queue").replaceChildren();
      $("repair-list").replaceChildren();
      $("actions-panel").hidden = true;
      $("repair-panel").hidden = true;
      showSignedOut();
      setStatus("Key forgotten.", "");
    });
    $("refresh").addEventListener("click", load);
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
