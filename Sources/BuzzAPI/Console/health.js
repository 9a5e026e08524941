// Health: queue depths and consumers, dead letters (list and replay), and the last hour by
// minute, refreshed every five seconds.
"use strict";

// A bar chart of `series` (one value per minute) as SVG; `stacks` names the parts of a bar.
function barChart(id, minutes, stacks) {
  const width = 600, height = 120, pad = 4;
  const chart = svg("svg", { viewBox: "0 0 " + width + " " + height, class: "chart", id, role: "img" });
  const totals = minutes.map((m) => stacks.reduce((sum, s) => sum + s.value(m), 0));
  const peak = Math.max(1, ...totals);
  const slot = width / Math.max(1, minutes.length);
  minutes.forEach((m, i) => {
    let y = height - pad;
    for (const s of stacks) {
      const h = (s.value(m) / peak) * (height - 2 * pad);
      if (h <= 0) continue;
      y -= h;
      const bar = svg("rect", { x: i * slot + 1, y, width: Math.max(1, slot - 2), height: h, fill: s.color });
      const title = svg("title", {});
      title.textContent = utc(m.minute) + ": " + s.label + " " + s.value(m);
      bar.append(title);
      chart.append(bar);
    }
  });
  const label = (x, anchor, text) => {
    const node = svg("text", { x, y: 14, "font-size": 11, fill: "#667085", "text-anchor": anchor });
    node.textContent = text;
    chart.append(node);
  };
  label(6, "start", "60 min ago · peak " + peak + " a minute");
  label(width - 6, "end", "now");
  return chart;
}

const sum = (counts) => Object.values(counts || {}).reduce((a, b) => a + b, 0);

function lettersPanel(queue) {
  const panel = el("div", { class: "card", id: "letters-" + queue });
  async function load() {
    const found = await api("/v1/dead-letters/" + encodeURIComponent(queue));
    const replay = el("button", { type: "button", id: "replay-" + queue }, "Replay all of yours in " + queue);
    replay.disabled = found.letters.length === 0;
    replay.addEventListener("click", async () => {
      replay.disabled = true;
      try {
        const result = await api("/v1/dead-letters/" + encodeURIComponent(queue) + "/replay", { method: "POST" });
        panel.replaceChildren(el("p", { id: "replayed-" + queue, text: result.replayed + " dead letter(s) of " + queue + " replayed." }));
      } catch (error) { panel.replaceChildren(failure(error)); }
    });
    panel.replaceChildren(el("h3", {}, "Your dead letters in " + queue),
      found.letters.length === 0 ? el("p", { class: "muted", text: "None of yours (letters of other tenants are counted above, not shown)." }) :
      el("table", {}, el("thead", {}, el("tr", {}, ["Message", "Routing key", "Why"].map((h) => el("th", {}, h)))),
        el("tbody", {}, found.letters.map((l) => el("tr", {},
          el("td", { class: "mono", text: l.messageId || "" }), el("td", { class: "mono", text: l.routingKey }),
          el("td", {}, l.reason, el("pre", { text: l.body })))))),
      replay);
  }
  load().catch((error) => panel.replaceChildren(failure(error)));
  return panel;
}

Views.health = async function (ctx) {
  const queues = el("tbody"), charts = el("div", { class: "grid" }), detail = el("div", { id: "letters" });
  const stamp = el("p", { class: "muted", id: "health-as-of" });
  ctx.show(el("h2", {}, "Health"), stamp,
    el("table", { id: "queues" }, el("thead", {}, el("tr", {}, ["Queue", "Ready", "Consumers", "Dead letters", ""].map((h) => el("th", {}, h)))), queues),
    el("h3", {}, "The last hour, by minute"), charts, detail);
  async function refresh() {
    const health = await api("/v1/health");
    stamp.textContent = (health.brokerAnswered ? "" : "RabbitMQ did not answer; queue depths unknown. ") + "As of " + utc(health.asOf) + ", refreshed every 5 s.";
    queues.replaceChildren(...health.queues.map((q) => {
      const open = el("button", { type: "button", id: "open-letters-" + q.queue, hidden: q.deadLetters === 0 }, "Dead letters");
      open.addEventListener("click", () => detail.replaceChildren(lettersPanel(q.queue)));
      return el("tr", { "data-queue": q.queue }, el("td", { class: "mono", text: q.queue }), el("td", { text: q.messages }),
        el("td", { text: q.consumers }), el("td", { class: q.deadLetters ? "error" : "", text: q.deadLetters }), el("td", {}, open));
    }));
    const m = health.minutes;
    const windows = m.reduce((a, x) => a + x.acknowledged + x.fallback, 0);
    charts.replaceChildren(
      el("div", {}, el("h3", {}, "Windows decided: " + windows),
        el("p", { class: "legend" }, el("span", {}, el("span", { class: "swatch local" }), "acknowledged"), el("span", {}, el("span", { class: "swatch fallback" }), "fallback")),
        barChart("chart-windows", m, [{ label: "acknowledged", color: "#2f6fde", value: (x) => x.acknowledged },
                                      { label: "fallback", color: "#d9822b", value: (x) => x.fallback }])),
      el("div", {}, el("h3", {}, "Pushes: " + m.reduce((a, x) => a + sum(x.sent), 0) + " sent, " + m.reduce((a, x) => a + sum(x.failed), 0) + " failed"),
        el("p", { class: "legend" }, el("span", {}, el("span", { class: "swatch ok" }), "sent"), el("span", {}, el("span", { class: "swatch bad" }), "failed")),
        barChart("chart-pushes", m, [{ label: "sent", color: "#1f9d55", value: (x) => sum(x.sent) },
                                     { label: "failed", color: "#c8372d", value: (x) => sum(x.failed) }])));
  }
  await refresh();
  if (!ctx.live()) return;  // the person moved on while the first answer came
  stopRefresh();
  refreshTimer = setInterval(() => {
    if (!ctx.live()) { stopRefresh(); return; }
    refresh().catch((error) => stamp.replaceChildren(failure(error)));
  }, 5000);
};
