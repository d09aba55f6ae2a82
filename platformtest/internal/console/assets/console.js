// The flockd console's only script: it follows the live traffic over a
// WebSocket (with pause and clear) and refreshes parts of a page
// marked data-refresh. Every page works without it.
"use strict";

(function () {
  const maxRows = 500;

  function followTraffic(section) {
    section.hidden = false;
    const rows = document.getElementById("live-rows");
    const state = document.getElementById("live-state");
    const note = document.getElementById("live-note");
    const pause = document.getElementById("pause");
    const compact = section.dataset.compact === "1";
    let paused = false, held = [], dropped = 0;

    function show(ev) {
      const tr = document.createElement("tr");
      tr.className = "dir-" + ev.dir + " kind-" + ev.kind;
      tr.dataset.kind = ev.kind;
      tr.dataset.uri = ev.uri;
      const payload = {};
      if (ev.args) payload.args = ev.args;
      if (ev.kwargs) payload.kwargs = ev.kwargs;
      if (ev.error) payload.error = ev.error;
      const cells = [
        ev.time.replace("T", " ").replace(/(\.\d{3})\d*Z$/, "$1Z"),
        ev.dir === "in" ? "→ in" : "← out",
        ev.kind, ev.realm, String(ev.device_key), ev.uri,
      ];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      const td = document.createElement("td");
      td.className = "payload";
      if (compact) {
        const code = document.createElement("code");
        code.textContent = JSON.stringify(payload);
        code.title = JSON.stringify(payload, null, 2);
        td.appendChild(code);
      } else {
        const pre = document.createElement("pre");
        pre.textContent = JSON.stringify(payload, null, 2);
        td.appendChild(pre);
      }
      tr.appendChild(td);
      rows.insertBefore(tr, rows.firstChild);
      while (rows.childElementCount > maxRows) rows.removeChild(rows.lastChild);
    }

    function describe() {
      const parts = [];
      if (paused) parts.push(held.length + " held while paused");
      if (dropped) parts.push(dropped + " dropped: this viewer fell behind");
      note.textContent = parts.join(" · ");
    }

    function receive(ev) {
      if (paused) {
        held.push(ev);
        if (held.length > maxRows) held.shift();
        describe();
        return;
      }
      show(ev);
    }

    // A WebSocket (/traffic/live), not the event stream of
    // /traffic/stream: a browser counts an open event stream as a fetch
    // still loading, so a page following one never finishes loading for
    // a headless browser waiting for the network to go idle.
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + section.dataset.live;
    function connect() {
      const ws = new WebSocket(url);
      ws.onopen = function () { state.textContent = "watching"; section.dataset.state = "open"; };
      ws.onclose = function () {
        state.textContent = "reconnecting…";
        section.dataset.state = "reconnecting";
        setTimeout(connect, 1000);
      };
      ws.onmessage = function (m) {
        const frame = JSON.parse(m.data);
        if (frame.dropped) { dropped = frame.dropped; describe(); }
        if (frame.event) receive(frame.event);
      };
    }
    connect();
    pause.addEventListener("click", function () {
      paused = !paused;
      pause.textContent = paused ? "Resume" : "Pause";
      if (!paused) {
        for (const ev of held) show(ev);
        held = [];
      }
      describe();
    });
    document.getElementById("clear").addEventListener("click", function () {
      rows.textContent = "";
      held = [];
      describe();
    });
  }

  function refresh(el) {
    const every = Number(el.dataset.refresh);
    async function tick() {
      try {
        const res = await fetch(location.href, { headers: { "Accept": "text/html" } });
        if (res.ok) {
          const doc = new DOMParser().parseFromString(await res.text(), "text/html");
          const fresh = doc.getElementById(el.id);
          if (fresh) el.innerHTML = fresh.innerHTML;
        }
      } catch (e) {
        // The platform may be restarting; try again at the next tick.
      }
      setTimeout(tick, every);
    }
    setTimeout(tick, every);
  }

  document.addEventListener("DOMContentLoaded", function () {
    const live = document.getElementById("live-traffic");
    if (live) followTraffic(live);
    for (const el of document.querySelectorAll("[data-refresh]")) refresh(el);
  });
})();
