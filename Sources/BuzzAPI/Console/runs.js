// Runs: the search, and a run's timeline (the heart of the console: why did Maya not get her
// 07:00 reminder?).
"use strict";

Views.runs = async function (ctx, params) {
  const filters = el("form", { class: "filters", id: "run-filters" },
    el("label", {}, "Subscriber", el("input", { name: "subscriberId", id: "filter-subscriber", value: params.get("subscriberId") || "" })),
    el("label", {}, "Workflow", el("input", { name: "workflow", id: "filter-workflow", value: params.get("workflow") || "" })),
    el("label", {}, "Status", el("select", { name: "status", id: "filter-status" },
      ["", "running", "waiting", "completed", "cancelled", "failed"].map((s) =>
        el("option", { value: s, selected: s === (params.get("status") || "") }, s || "any")))),
    el("button", { type: "submit", id: "run-search" }, "Search"));
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(filters)) if (value) query.set(name, value);
    location.hash = "#/runs?" + query.toString();
  });
  const body = el("tbody");
  const more = el("button", { type: "button", id: "more-runs", hidden: true }, "Older runs");
  ctx.show(el("h2", {}, "Runs"), filters,
       el("table", { id: "runs" }, el("thead", {}, el("tr", {}, ["Run", "Workflow", "Subscriber", "Status", "Began", "Local window"].map((h) => el("th", {}, h)))), body),
       el("p", {}, more));
  let cursor = null;
  async function page() {
    const query = new URLSearchParams();
    for (const name of ["subscriberId", "workflow", "status"]) if (params.get(name)) query.set(name, params.get(name));
    query.set("limit", "25");
    if (cursor) query.set("cursor", cursor);
    const list = await api("/v1/runs?" + query.toString());
    for (const run of list.runs) {
      const local = firstLocal(run);
      const began = run.steps[0] ? utc(run.steps[0].startedAt) : "";
      body.append(el("tr", { "data-run": run.id },
        el("td", {}, runLink(run.id)), el("td", { text: run.workflow }), el("td", {}, subscriberLink(run.subscriberId)),
        el("td", {}, statusBadge(run.status)), el("td", { class: "mono", text: began }),
        el("td", { text: local ? windowVerdict(local) : "" })));
    }
    if (list.runs.length === 0 && !cursor) body.append(el("tr", {}, el("td", { colspan: 6, class: "muted", text: "No runs match." })));
    cursor = list.nextCursor;
    more.hidden = !cursor;
  }
  more.addEventListener("click", () => page().catch((error) => more.replaceWith(failure(error))));
  await page();
};

function windowVerdict(local) {
  if (!local.fallback) return local.acknowledged ? "acknowledged, moment ahead" : "waiting for " + utc(local.moment);
  if (local.fallback.sent) return "fallback sent: " + local.fallback.reason;
  return local.fallback.reason;
}

const pad = (n, width) => String(n).padStart(width, "0");
// A floating wall clock (`fireAt`): the phone shows it at this time in whatever zone it is in.
function wallClock(f) { return pad(f.year, 4) + "-" + pad(f.month, 2) + "-" + pad(f.day, 2) + " " + pad(f.hour, 2) + ":" + pad(f.minute, 2) + ":" + pad(f.second, 2); }

// One row of the timeline: when, and what happened on the local path, the server's decision
// or the fallback path.
function entry(at, lane, title, detail) { return { at, lane, title, detail }; }

function timelineEntries(timeline) {
  const run = timeline.run, entries = [];
  entries.push(entry(timeline.trigger.timestamp, "server", "Triggered by " + timeline.trigger.event,
                     JSON.stringify(timeline.trigger.properties, null, 2)));
  for (const step of run.steps) {
    entries.push(entry(step.startedAt, "server", "Step " + step.name + " began", ""));
    const local = step.local;
    if (local) {
      entries.push(entry(step.startedAt, "server", "Wait until " + wallClock(local.fireAt) + " on the phone's clock",
                         (local.shiftedByQuietHours ? "moved by quiet hours; " : "") + "moment " + utc(local.moment)));
      for (const holding of timeline.devices.filter((d) => d.localId === local.localId)) {
        if (holding.scheduledAt) entries.push(entry(holding.acknowledgedAt, "local", "Acknowledged by device …" + holding.tokenSuffix,
          "scheduled on the phone at " + utc(holding.scheduledAt) + (holding.counts ? "" : " (this device no longer counts)")));
        if (holding.releasedAt) entries.push(entry(holding.releasedAt, "local", "Released by device …" + holding.tokenSuffix, "the phone let go of the plan"));
      }
      if (local.fallback) {
        const decision = local.fallback.sent ? "Fallback decided: " + local.fallback.reason : "Decided: " + local.fallback.reason;
        entries.push(entry(local.moment, local.fallback.sent ? "fallback" : "local", "At the moment: " + decision,
                           "idempotency key " + local.fallback.idempotencyKey));
      } else if (local.acknowledged) {
        entries.push(entry(local.acknowledgedAt, "local", "Counted as acknowledged", "the fallback is not needed unless every device releases it"));
      }
    }
    for (const delivery of step.deliveries) {
      const lane = delivery.kind === "plan" ? "local" : delivery.kind === "fallback" ? "fallback" : "server";
      const what = { plan: "Plan sent (silent push)", fallback: "Fallback push", alert: "Push", cancel: "Cancel sent (silent push)" }[delivery.kind] || delivery.kind;
      entries.push(entry(delivery.at, lane, what + " to device …" + (delivery.tokenSuffix || "(erased)"),
        "APNs: " + delivery.status + (delivery.apnsId ? " · apns-id " + delivery.apnsId : "") + (delivery.reason ? " · " + delivery.reason : "")));
    }
    if (step.opened) entries.push(entry(step.opened.at, "server", "Opened by the person", "message " + step.opened.messageId));
    for (const action of step.actions) entries.push(entry(action.at, "server", "Button chosen: " + action.actionId, ""));
    if (step.finishedAt) entries.push(entry(step.finishedAt, "server", "Step " + step.name + " " + step.status, ""));
  }
  if (run.cancelled) entries.push(entry(run.cancelled.at, "server", "Cancelled by " + run.cancelled.by + (run.cancelled.event ? " (" + run.cancelled.event + ")" : ""), ""));
  return entries.filter((e) => e.at).sort((a, b) => new Date(a.at) - new Date(b.at));
}

// "Shown once" in one sentence: which path showed the reminder.
function shownVerdict(run) {
  const local = run.steps.map((s) => s.local).filter(Boolean);
  if (local.length === 0) return { text: "This run has no local window.", warn: false };
  return local.map((w) => {
    if (!w.fallback) return { text: w.localId + ": the moment is ahead; " + (w.acknowledged ? "a device holds the plan." : "no device has acknowledged yet."), warn: false };
    if (w.fallback.sent) return { text: w.localId + ": shown once, by the fallback push (" + w.fallback.reason + ").", warn: false };
    if (w.acknowledged) return { text: w.localId + ": shown once, by the phone's own local notification; no fallback was sent.", warn: false };
    return { text: w.localId + ": " + w.fallback.reason + ".", warn: false };
  }).reduce((a, b) => ({ text: a.text + " " + b.text, warn: a.warn || b.warn }));
}

Views.run = async function (ctx, id) {
  const timeline = await api("/v1/runs/" + encodeURIComponent(id) + "/timeline");
  const run = timeline.run, zone = timeline.timezone;
  const verdict = shownVerdict(run);
  const rows = timelineEntries(timeline).map((e) => el("tr", { class: "lane-" + e.lane },
    el("td", { class: "mono", text: formatIn(zone, e.at) }), el("td", { class: "mono", text: utc(e.at) }),
    ["local", "server", "fallback"].map((lane) => el("td", { class: "lane-" + lane },
      e.lane === lane ? [el("strong", { text: e.title }), e.detail ? el("pre", { text: e.detail }) : null] : null))));
  const cancel = el("button", { type: "button", class: "danger", id: "cancel-run", hidden: run.status !== "waiting" && run.status !== "running" }, "Cancel this run");
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try { await api("/v1/runs/" + encodeURIComponent(id) + "/cancel", { method: "POST" }); route(); } catch (error) { cancel.replaceWith(failure(error)); }
  });
  ctx.show(el("h2", {}, "Run ", el("span", { class: "mono", id: "run-id", text: run.id })),
    el("div", { class: "card" },
      el("p", {}, "Workflow ", el("strong", { text: run.workflow }), " · subscriber ", subscriberLink(run.subscriberId), " · ", statusBadge(run.status),
         run.dryRun ? " · dry run" : "", " · times in ", el("strong", { text: zone }), " and UTC"),
      el("p", { class: "verdict" + (verdict.warn ? " warn" : ""), id: "verdict", text: verdict.text }), cancel),
    el("p", { class: "legend" }, el("span", {}, el("span", { class: "swatch local" }), "local path: plan, acknowledgments, releases"),
      el("span", {}, el("span", { class: "swatch fallback" }), "fallback path: the ordinary push at the moment")),
    el("table", { class: "timeline", id: "timeline" },
      el("thead", {}, el("tr", {}, ["Subscriber's time", "UTC", "On the device (local)", "Server", "Fallback"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)));
};
