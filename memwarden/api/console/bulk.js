// memwarden review console: filter the pending list and decide the selected cards at once.
// console.js renders the cards and hands them here as entries {item, node, pick, pending,
// start(verb), finish(verb, result, refusal)}. Data is written as text nodes, never as HTML.
"use strict";

window.memwardenBulk = (() => {
  const $ = (id) => document.getElementById(id);
  const MAX = 100; // what one POST /v1/review/decisions takes (memwarden/api/schemas.py)
  let entries = [];
  let tools = null; // {api, inWords, formatValue, setStatus, showSignedOut} from console.js

  function text(tag, content, attrs) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    node.textContent = content;
    return node;
  }

  // What the text filter searches: the fact, its subject, its reasons (codes and words) and
  // the evidence sentence, lower-cased (Chinese has no case and is matched as typed).
  function haystack(item) {
    const ev = item.evidence;
    const sentence =
      typeof ev.message_text === "string"
        ? Array.from(ev.message_text).slice(ev.start, ev.end).join("")
        : "";
    const reasons = item.reasons.flatMap((r) => [r, tools.inWords(r)]);
    return [item.normalized_key, tools.formatValue(item.value), item.subject_id, sentence,
      ...reasons].join("\n").toLowerCase();
  }

  function matches(item) {
    const key = $("filter-key").value;
    const reason = $("filter-reason").value;
    const subject = $("filter-subject").value;
    const words = $("filter-text").value.trim().toLowerCase();
    return (!key || item.normalized_key === key) &&
      (!reason || item.reasons.includes(reason)) &&
      (!subject || item.subject_id === subject) &&
      (!words || haystack(item).includes(words));
  }

  // Options from the loaded candidates only, so no choice ever shows an empty list.
  function refill(select, values, label, allLabel) {
    const kept = select.value;
    const sorted = [...new Set(values)].sort();
    select.replaceChildren(text("option", allLabel, { value: "" }),
      ...sorted.map((v) => text("option", label(v), { value: v, title: v })));
    select.value = sorted.includes(kept) ? kept : "";
  }

  // A card can be selected while it waits, is shown, and no decision on it is under way or
  // was refused (a refused card needs a refresh to show what it is now).
  const open = (e) => e.pending && !e.node.hidden && !e.pick.disabled;
  const chosen = () => entries.filter((e) => open(e) && e.pick.checked);

  function showSelection() {
    const shown = entries.filter((e) => !e.node.hidden).length;
    const picked = chosen().length;
    $("shown").textContent = `showing ${shown} of ${entries.length} · ${picked} selected`;
    $("bulk-approve").textContent = `Approve selected (${picked})`;
    $("bulk-reject").textContent = `Reject selected (${picked})`;
    $("bulk-approve").disabled = $("bulk-reject").disabled = picked === 0;
    const selectable = entries.filter(open);
    $("pick-all").checked = selectable.length > 0 && selectable.every((e) => e.pick.checked);
  }

  // A hidden card is unselected: a bulk decision covers only cards the reviewer can see.
  function applyFilter() {
    for (const entry of entries) {
      entry.node.hidden = !matches(entry.item);
      if (entry.node.hidden) entry.pick.checked = false;
    }
    showSelection();
  }

  // The one confirmation: how many candidates, and which keys (with how many of each).
  function confirmOnce(verb, picked) {
    const perKey = new Map();
    for (const { item } of picked) {
      perKey.set(item.normalized_key, (perKey.get(item.normalized_key) || 0) + 1);
    }
    const noun = picked.length === 1 ? "candidate" : "candidates";
    const title = verb === "approve" ? "Approve" : "Reject";
    $("bulk-title").textContent = `${title} ${picked.length} ${noun}?`;
    $("bulk-keys").replaceChildren(...[...perKey].sort().map(([key, n]) =>
      text("li", `${key} × ${n}`, { "data-key": key })));
    $("bulk-confirm").textContent = verb === "approve" ? "Approve all" : "Reject all";
    const dialog = $("bulk-dialog");
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    });
  }

  // Each item carries the payload hash rendered on its own card; the server decides each
  // alone, so a stale one is refused on its card and the others are still decided.
  async function decide(verb) {
    const picked = chosen();
    if (!picked.length || !(await confirmOnce(verb, picked))) return;
    for (const e of picked) e.start(verb);
    showSelection(); // cards under way are no longer selectable: a second click sends nothing
    let decided = 0;
    for (let i = 0; i < picked.length; i += MAX) {
      const chunk = picked.slice(i, i + MAX);
      const byId = new Map(chunk.map((e) => [e.item.proposal_id, e]));
      let unanswered = "no answer: refresh to see its state";
      const decisions = chunk.map((e) => verb === "approve"
        ? { verdict: verb, proposal_id: e.item.proposal_id, payload_hash: e.item.payload_hash }
        : { verdict: verb, proposal_id: e.item.proposal_id });
      try {
        const data = await tools.api("POST", "v1/review/decisions", { decisions });
        for (const r of data.results) {
          const entry = byId.get(r.proposal_id);
          if (!entry) continue;
          byId.delete(r.proposal_id);
          if (r.status === 200) decided += 1;
          entry.finish(verb, r, r.status === 200 ? null : `${r.status} (${r.code})`);
        }
      } catch (error) {
        // Items before a server failure may be decided: never guess, say so on each card.
        unanswered = `request failed — ${error.message}; refresh to see its state`;
        if (error.status === 401) tools.showSignedOut();
      }
      for (const entry of byId.values()) entry.finish(verb, null, unanswered);
    }
    const refused = picked.length - decided;
    const done = verb === "approve" ? "Approved" : "Rejected";
    const more = refused ? `; ${refused} refused or unanswered (see their cards)` : "";
    tools.setStatus(`${done} ${decided} of ${picked.length}${more}`, refused ? "error" : "");
    showSelection();
  }

  function attach(newEntries, newTools) {
    entries = newEntries;
    tools = newTools || tools;
    $("filters").hidden = entries.length === 0;
    if (!entries.length) return;
    const items = entries.map((e) => e.item);
    refill($("filter-key"), items.map((i) => i.normalized_key), (k) => k, "all keys");
    refill($("filter-reason"), items.flatMap((i) => i.reasons), tools.inWords, "all reasons");
    refill($("filter-subject"), items.map((i) => i.subject_id), (s) => s, "all subjects");
    for (const entry of entries) entry.pick.addEventListener("change", showSelection);
    applyFilter();
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const id of ["filter-key", "filter-reason", "filter-subject"]) {
      $(id).addEventListener("change", applyFilter);
    }
    $("filter-text").addEventListener("input", applyFilter);
    $("pick-all").addEventListener("change", () => {
      for (const e of entries.filter(open)) e.pick.checked = $("pick-all").checked;
      showSelection();
    });
    $("bulk-approve").addEventListener("click", () => decide("approve"));
    $("bulk-reject").addEventListener("click", () => decide("reject"));
    $("bulk-confirm").addEventListener("click", () => $("bulk-dialog").close("yes"));
    $("bulk-cancel").addEventListener("click", () => $("bulk-dialog").close("no"));
  });

  return { attach };
})();
