// BuzzKit console: plain JavaScript over the management API, no build step, no packages.
// Everything that came from apps and backends is put on the page as text (textContent), never
// as HTML; the secret key lives in this tab's sessionStorage and goes only into the
// Authorization header of same-origin requests.
"use strict";

const KEY = "buzzkit.console.key";
const $ = (id) => document.getElementById(id);

// Builds an element; strings and numbers become text nodes, never markup.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "onclick" || name === "onsubmit" || name === "onchange") node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  return node;
}

class APIError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

async function api(path, options = {}) {
  const key = sessionStorage.getItem(KEY);
  const response = await fetch(path, {
    method: options.method || "GET",
    headers: Object.assign({ "Authorization": "Bearer " + key }, options.body ? { "Content-Type": "application/json" } : {}),
    body: options.body ? JSON.stringify(options.body) : undefined,
    credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer",
  });
  if (response.status === 204) return null;
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  if (!response.ok) {
    const error = (body && body.error) || {};
    throw new APIError(response.status, error.code || "http_" + response.status, error.message || response.statusText);
  }
  return body;
}

// Times: in the subscriber's zone and in UTC, side by side.
function formatIn(zone, iso) {
  if (!iso) return "";
  const date = new Date(iso);
  try {
    return new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
      hour12: false, timeZoneName: "short",
    }).format(date);
  } catch (_) {
    return date.toISOString();
  }
}
const utc = (iso) => iso ? new Date(iso).toISOString().replace(".000Z", "Z") : "";
const statusBadge = (status) => el("span", { class: "status " + status, text: status });
// A run's first local window (its `local` member), or undefined.
const firstLocal = (run) => run.steps.map((s) => s.local).filter(Boolean)[0];
const runLink = (id) => el("a", { href: "#/run/" + encodeURIComponent(id), class: "mono", text: id });
const subscriberLink = (id) => id ? el("a", { href: "#/subscriber/" + encodeURIComponent(id), text: id }) : el("span", { class: "muted", text: "none" });

function show(...nodes) {
  if (!sessionStorage.getItem(KEY)) return;  // signed out meanwhile (a 401): the sign-in stays alone
  const view = $("view");
  view.replaceChildren(...nodes);
  view.hidden = false;
}

function failure(error) {
  if (error instanceof APIError && error.status === 401) {
    signOut("The key was refused: " + error.message);
    return el("p");
  }
  return el("p", { class: "error", role: "alert", text: error.message || String(error) });
}

// ---- Sign-in -------------------------------------------------------------------------------

function signOut(message) {
  sessionStorage.removeItem(KEY);
  $("nav").hidden = true;
  $("view").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = message || "";
  stopRefresh();
}

async function signIn(event) {
  event.preventDefault();
  const key = $("secret-key").value.trim();
  $("secret-key").value = "";
  if (!key.startsWith("sk_")) {
    $("sign-in-error").textContent = "That is not a secret key: it starts with sk_.";
    return;
  }
  sessionStorage.setItem(KEY, key);
  try {
    await api("/v1/settings");
  } catch (error) {
    signOut(error instanceof APIError && error.status === 401 ? "The key was refused: " + error.message : "Could not sign in: " + error.message);
    return;
  }
  $("sign-in").hidden = true;
  $("nav").hidden = false;
  if (!location.hash || location.hash === "#/") location.hash = "#/runs";
  else route();
}

// ---- Routing ---------------------------------------------------------------------------------

let refreshTimer = null;
let generation = 0;

// What a view draws with: `show` puts its nodes on the page only while it is still the view
// asked for, so a slow answer never covers the page the person has moved to since.
function viewContext() {
  const mine = ++generation;
  return { live: () => mine === generation, show: (...nodes) => { if (mine === generation) show(...nodes); } };
}
function stopRefresh() { if (refreshTimer) { clearInterval(refreshTimer); refreshTimer = null; } }

function route() {
  if (!sessionStorage.getItem(KEY)) { signOut(); return; }
  stopRefresh();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const ctx = viewContext();
  let parts;
  try {
    parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  } catch (_) {
    ctx.show(el("p", { class: "error", role: "alert", text: "That address is not one the console made." }));
    return;
  }
  const params = new URLSearchParams(query || "");
  for (const link of document.querySelectorAll("#nav a")) link.classList.toggle("active", link.dataset.view === (parts[0] === "run" ? "runs" : parts[0] === "workflow" ? "workflows" : parts[0]));
  const views = { runs: () => Views.runs(ctx, params), run: () => Views.run(ctx, parts[1]), subscriber: () => Views.subscriber(ctx, parts[1]),
                  workflows: () => Views.workflows(ctx), workflow: () => Views.workflow(ctx, parts[1]), health: () => Views.health(ctx) };
  // "view-ready" marks when the page showed its data, on the browser's navigation clock
  // (`make bench` reads it with the navigation timing entry).
  const started = performance.now();
  (views[parts[0]] || views.runs)().catch((error) => ctx.show(failure(error))).finally(() => {
    performance.mark("view-ready", { detail: { view: parts[0] || "runs", since: started } });
  });
}

window.addEventListener("hashchange", route);
document.addEventListener("DOMContentLoaded", () => {
  $("sign-in-form").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", () => signOut("Signed out."));
  if (sessionStorage.getItem(KEY)) { $("nav").hidden = false; route(); } else signOut();
});

const Views = {};
