// A subscriber (devices, live plans, recent runs, erasure) and the workflows.
"use strict";

// Asks for the name typed again before a destructive call: no browser dialog, nothing to
// click through by accident.
function confirmStep(label, expected, action) {
  const input = el("input", { id: "confirm-input", placeholder: expected, spellcheck: "false", autocomplete: "off" });
  const go = el("button", { type: "submit", class: "danger", id: "confirm-go" }, label);
  const form = el("form", { class: "filters", id: "confirm-form" }, el("label", {}, "Type " + expected + " to confirm", input), go);
  input.addEventListener("input", () => input.setCustomValidity(""));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (input.value !== expected) { input.setCustomValidity("type " + expected); input.reportValidity(); return; }
    go.disabled = true;
    try { await action(); } catch (error) { form.replaceWith(failure(error)); }
  });
  return form;
}

Views.subscriber = async function (ctx, id) {
  const find = el("form", { class: "filters", id: "subscriber-find" },
    el("label", {}, "Subscriber id", el("input", { name: "id", id: "subscriber-id", value: id || "", required: true })),
    el("button", { type: "submit" }, "Open"));
  find.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = "#/subscriber/" + encodeURIComponent(new FormData(find).get("id"));
  });
  if (!id) { ctx.show(el("h2", {}, "Subscriber"), find); return; }
  const path = "/v1/subscribers/" + encodeURIComponent(id);
  const [profile, plans, runs] = await Promise.all([api(path), api(path + "/plans"), api("/v1/runs?limit=20&subscriberId=" + encodeURIComponent(id))]);
  const zone = profile.timezone || "UTC";
  const devices = el("table", { id: "devices" },
    el("thead", {}, el("tr", {}, ["Token", "Platform", "Environment", "Notifications", "State"].map((h) => el("th", {}, h)))),
    el("tbody", {}, profile.devices.length ? profile.devices.map((d) => el("tr", {},
      el("td", { class: "mono", text: "…" + d.tokenSuffix }), el("td", { text: d.platform }), el("td", { text: d.environment }),
      el("td", { text: d.authorization || "unknown" }), el("td", {}, statusBadge(d.active ? "active" : "logged out or unregistered"))))
      : el("tr", {}, el("td", { colspan: 5, class: "muted", text: "No devices." }))));
  const planRows = plans.plans.map((p) => el("tr", {},
    el("td", {}, runLink(p.id.split("/")[0]), el("span", { class: "mono", text: "/" + p.id.split("/").slice(1).join("/") })),
    el("td", { class: "mono", text: wallClock(p.fireAt) }), el("td", { text: p.title || "" }), el("td", { text: p.body || "" })));
  const erase = el("div", { id: "erase" }, el("button", { type: "button", class: "danger", id: "erase-start" }, "Erase this subscriber…"));
  erase.firstChild.addEventListener("click", () => erase.replaceChildren(
    el("p", { class: "error", text: "Erasure removes the subscriber, its devices, runs and plans for good (DESIGN §4b)." }),
    confirmStep("Erase", id, async () => {
      await api(path, { method: "DELETE" });
      ctx.show(el("h2", {}, "Subscriber"), el("p", { id: "erased", text: "Subscriber " + id + " was erased." }), find);
    })));
  ctx.show(el("h2", {}, "Subscriber ", el("span", { id: "subscriber-title", text: id })), find,
    el("div", { class: "card" }, el("p", {}, "Time zone ", el("strong", { text: zone })),
      el("h3", {}, "Properties"), el("pre", { text: JSON.stringify(profile.properties, null, 2) })),
    el("h3", {}, "Devices"), devices,
    el("h3", {}, "Live plans (as a device's sync lists them)"),
    el("table", { id: "plans" }, el("thead", {}, el("tr", {}, ["Plan", "Wall clock", "Title", "Body"].map((h) => el("th", {}, h)))),
      el("tbody", {}, planRows.length ? planRows : el("tr", {}, el("td", { colspan: 4, class: "muted", text: "No live plans." })))),
    el("h3", {}, "Recent runs"),
    el("table", { id: "subscriber-runs" }, el("tbody", {}, runs.runs.map((r) => el("tr", {},
      el("td", {}, runLink(r.id)), el("td", { text: r.workflow }), el("td", {}, statusBadge(r.status)),
      el("td", { text: firstLocal(r) ? windowVerdict(firstLocal(r)) : "" }))))),
    el("h3", {}, "Erasure"), erase);
};

Views.workflows = async function (ctx) {
  const list = await api("/v1/workflows");
  ctx.show(el("h2", {}, "Workflows"),
    el("table", { id: "workflows" }, el("thead", {}, el("tr", {}, ["Key", "Version", "Updated"].map((h) => el("th", {}, h)))),
      el("tbody", {}, list.workflows.length ? list.workflows.map((w) => el("tr", {},
        el("td", {}, el("a", { href: "#/workflow/" + encodeURIComponent(w.key), text: w.key })), el("td", { text: w.version }),
        el("td", { class: "mono", text: w.updatedAt })))
        : el("tr", {}, el("td", { colspan: 3, class: "muted", text: "No workflows yet." })))));
};

Views.workflow = async function (ctx, key) {
  const path = "/v1/workflows/" + encodeURIComponent(key);
  const history = await api(path + "/versions");
  const definition = el("pre", { id: "definition" });
  const picker = el("select", { id: "version-picker" }, history.versions.map((v) =>
    el("option", { value: v.version }, "version " + v.version + " · " + utc(v.createdAt) + (v.version === history.current ? " (current)" : ""))));
  const pick = () => {
    const chosen = history.versions.find((v) => String(v.version) === picker.value) || history.versions[0];
    definition.textContent = JSON.stringify(chosen.definition, null, 2);
  };
  picker.addEventListener("change", pick);
  pick();
  const retire = el("div", { id: "retire" });
  if (history.current !== null) {
    const start = el("button", { type: "button", class: "danger", id: "retire-start" }, "Retire…");
    start.addEventListener("click", () => retire.replaceChildren(
      el("p", { text: "A retired workflow starts no new runs; runs already going finish as they began." }),
      confirmStep("Retire", key, async () => { await api(path, { method: "DELETE" }); route(); })));
    retire.append(start);
  }
  ctx.show(el("h2", {}, "Workflow ", el("span", { text: key })),
    el("p", {}, history.current === null ? el("strong", { id: "workflow-state", class: "error", text: "Retired" })
                                         : ["Current version ", el("strong", { id: "workflow-version", text: history.current })],
      " · ", el("a", { href: "#/runs?workflow=" + encodeURIComponent(key) }, "its runs")),
    el("h3", {}, "Definition"), el("label", {}, "Version", picker), definition, retire);
};
