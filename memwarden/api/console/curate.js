// memwarden curate console: the catalogue of a run, a sampling helper, approve and attest.
// Memory values are user-controlled text: everything is written with textContent.
"use strict";

(() => {
  const KEY = "memwarden.apiKey";
  const $ = (id) => document.getElementById(id);
  let plan = null;

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

  function say(text, kind) {
    $("status").textContent = text || "";
    $("status").className = kind || "";
  }

  async function api(method, path, body) {
    const headers = { Authorization: "Bearer " + (sessionStorage.getItem(KEY) || "") };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method, headers, cache: "no-store", credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) {
      const code = data && data.code ? ` (${data.code})` : "";
      throw new Error(`${response.status}${code}: ${(data && data.detail) || "refused"}`);
    }
    return data;
  }

  const runPath = () => "/v1/curate/runs/" + encodeURIComponent($("run-id").value.trim());
  const show = (v) => (typeof v === "string" ? v : JSON.stringify(v));

  function render() {
    const summary = $("summary");
    summary.replaceChildren();
    const counts = {};
    for (const d of plan.dispositions) counts[d.disposition] = (counts[d.disposition] || 0) + 1;
    for (const [name, value] of [
      ["stage", plan.stage],
      ["plan hash", plan.plan_hash],
      ["sources", plan.sources.length],
      ["dispositions", Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(", ")],
      ["disagreements", plan.disagreements.length],
    ]) {
      summary.append(el("div", { class: "row" }, el("dt", {}, name), el("dd", {}, value)));
    }
    const bySource = new Map(plan.dispositions.map((d) => [d.source, d]));
    const targets = new Map(plan.targets.map((t) => [t.target, t]));
    const values = new Map(plan.sources.map((s) => [s.source, s.value]));
    const body = $("catalogue").querySelector("tbody");
    body.replaceChildren();
    for (const s of plan.sources) {
      const d = bySource.get(s.source) || { disposition: "(none)" };
      let target = "";
      if (d.disposition === "merge" && targets.has(d.target)) target = show(targets.get(d.target).value);
      else if (d.disposition === "duplicate") target = show(values.get(d.target));
      const box = el("input", { type: "checkbox", class: "pick", "data-source": s.source, "data-kind": s.kind });
      body.append(el("tr", { "data-disposition": d.disposition },
        el("td", {}, box), el("td", { class: "hash" }, s.source),
        el("td", {}, `${s.kind} · ${s.normalized_key}`), el("td", { class: "value" }, show(s.value)),
        el("td", {}, d.disposition), el("td", { class: "target" }, target)));
    }
    $("run").hidden = false;
  }

  // One preference, one decision or procedure (task_fact), and up to three rewritten rows.
  function sample() {
    const boxes = Array.from(document.querySelectorAll("input.pick"));
    const pickFirst = (pred) => { const b = boxes.find(pred); if (b) b.checked = true; };
    pickFirst((b) => b.dataset.kind === "preference");
    pickFirst((b) => b.dataset.kind === "decision" || b.dataset.kind === "task_fact");
    boxes.filter((b) => b.closest("tr").dataset.disposition !== "keep").slice(0, 3)
      .forEach((b) => { b.checked = true; });
    $("sample-note").textContent = `${boxes.filter((b) => b.checked).length} sampled`;
  }

  async function load(event) {
    event.preventDefault();
    const key = $("api-key").value.trim();
    if (key) sessionStorage.setItem(KEY, key);
    try {
      plan = await api("GET", runPath() + "/plan");
      render();
      say("");
    } catch (err) { say(err.message, "error"); }
  }

  async function approve() {
    try {
      const out = await api("POST", runPath() + "/review", { approve: true });
      $("outcome").textContent = `review: ${out.verdict} for ${out.plan_hash}`;
    } catch (err) { $("outcome").textContent = err.message; }
  }

  async function attest() {
    const sampled = Array.from(document.querySelectorAll("input.pick:checked")).map((b) => b.dataset.source);
    try {
      const out = await api("POST", runPath() + "/attest", {
        plan_hash: plan.plan_hash, saw_catalogue: $("saw-catalogue").checked, sampled,
      });
      $("outcome").textContent = `attested: ${out.stage} (${out.plan_hash})`;
    } catch (err) { $("outcome").textContent = err.message; }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("run-form").addEventListener("submit", load);
    $("sample").addEventListener("click", sample);
    $("approve").addEventListener("click", approve);
    $("attest").addEventListener("click", attest);
    $("api-key").value = sessionStorage.getItem(KEY) || "";
  });
})();
