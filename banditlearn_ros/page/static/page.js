// Copyright 2026 banditlearn_ros contributors. Licensed under the Apache License, Version 2.0.
// The teaching page: the state arrives on a WebSocket whenever it changes (no polling);
// each tap goes back with the question it was about, and the server says whether it counted.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let socket = null, state = null, retry = 500, shown = "";

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = TOKEN ? "?token=" + encodeURIComponent(TOKEN) : "";
    socket = new WebSocket(scheme + "//" + location.host + "/ws" + query);
    socket.onopen = () => { retry = 500; link(true); };
    socket.onclose = () => {
      link(false);
      setTimeout(connect, retry);  // a phone that slept or lost the network comes back
      retry = Math.min(retry * 2, 8000);
    };
    socket.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (data.type === "state") { state = data; render(); }
      else if (data.type === "reply") { say(data.message, !data.ok); }
    };
  }

  function link(up) {
    $("link").textContent = up ? "connected" : "reconnecting\u2026";
    $("link").className = "link " + (up ? "up" : "down");
    if (!up) { $("yes").disabled = $("no").disabled = true; }
  }

  function say(text, refused) {
    $("message").textContent = text || "";
    $("message").className = "message" + (refused ? " refused" : "");
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) { socket.send(JSON.stringify(message)); }
    else { say("not connected: the page reconnects by itself", true); }
  }

  function asked() { return state && state.question ? state.question : null; }

  function answer(button, yes) {  // about the question the button showed when tapped
    const [id, question] = button.dataset.for.split("/").map(Number);
    if (button.dataset.for) { send({action: "answer", id: id, question: question, yes: yes}); }
  }

  function name(text) {
    const q = asked();
    if (state && state.unknown !== null && (!q || q.id === state.unknown)) {
      send({action: "name", id: state.unknown, question: null, name: text});
    } else if (q && state.open) {
      send({action: "name", id: q.id, question: q.question, name: text});
    } else {
      send({action: "name", id: null, question: null, name: text});
    }
  }

  function render() {
    const q = asked();
    const key = q ? q.id + "/" + q.question : "";
    if (key !== shown && $("message").className === "message") { say(""); }  // a refusal stays
    shown = key;
    const ask = $("ask");
    ask.dataset.id = q ? q.id : "";
    ask.dataset.question = q ? q.question : "";
    $("asking").textContent = q ? "Is it \u201c" + q.label + "\u201d?" : "Waiting for a gesture\u2026";
    let which = q ? "gesture " + (q.id + 1) + ", question " + q.question : "";
    if (q && q.rejected.length) { which += " \u2014 not " + q.rejected.join(", "); }
    if (q && !state.open) {
      const by = state.counted ? " " + (state.counted.yes ? "yes" : "no") + " (" + state.counted.source + ")" : "";
      which += state.naming ? " \u2014 that's " + state.naming : " \u2014 answered" + by;
    }
    if (state.unknown !== null) { which = "I didn't get that one: what was it?"; }
    $("which").textContent = which;
    if (state.notice && $("message").textContent !== state.notice) { say(state.notice, true); }
    $("yes").disabled = $("no").disabled = !(q && state.open);
    $("yes").dataset.for = $("no").dataset.for = key;  // the question a tap is about
    const thumb = $("thumb");
    if (state.thumbnail) { thumb.src = state.thumbnail; thumb.hidden = false; }
    else { thumb.hidden = true; thumb.removeAttribute("src"); }
    const names = $("names");
    names.textContent = "";
    const best = q ? q.next : [];
    const order = best.concat(state.labels.filter((l) => best.indexOf(l) < 0));
    for (const label of order) {
      const b = document.createElement("button");
      b.textContent = label;
      b.dataset.label = label;
      if (best.indexOf(label) >= 0) { b.className = "best"; }
      b.onclick = () => name(label);
      names.appendChild(b);
    }
    const list = $("labels");
    list.textContent = "";
    for (const label of state.labels) {
      const li = document.createElement("li");
      li.textContent = label + " \u00d7 " + (state.counts[label] || 0);
      list.appendChild(li);
    }
    const acc = state.accuracy === null ? "\u2013" : Math.round(100 * state.accuracy) + " %";
    const qpi = state.questions_per_interaction === null ? "\u2013" : state.questions_per_interaction.toFixed(2);
    $("progress").textContent = state.interactions + " gestures \u00b7 right " + acc + " \u00b7 " + qpi + " q/gesture";
    $("progress").dataset.accuracy = state.accuracy === null ? "" : state.accuracy;
    $("win").textContent = state.window;
    draw(state.curve);
  }

  function draw(curve) {
    const canvas = $("curve"), g = canvas.getContext("2d");
    const w = canvas.width, h = canvas.height, left = 30, right = 30, top = 8, bottom = 18;
    g.clearRect(0, 0, w, h);
    g.font = "10px sans-serif";
    g.strokeStyle = "#ddd"; g.fillStyle = "#888"; g.lineWidth = 1;
    for (const v of [0, 0.5, 1]) {
      const y = top + (1 - v) * (h - top - bottom);
      g.beginPath(); g.moveTo(left, y); g.lineTo(w - right, y); g.stroke();
      g.fillText(Math.round(100 * v) + "%", 2, y + 3);
    }
    const n = Math.max(2, ...curve.right.map((p) => p[0]), ...curve.questions.map((p) => p[0]));
    const qmax = Math.max(2, ...curve.questions.map((p) => Math.ceil(p[1])));
    g.fillText("1", w - right + 4, h - bottom + 3);
    g.fillText(String(qmax), w - right + 4, top + 3);
    g.fillText(String(n), w - right - 12, h - 4);
    const x = (i) => left + (i - 1) / (n - 1) * (w - left - right);
    line(g, curve.right.map((p) => [x(p[0]), top + (1 - p[1]) * (h - top - bottom)]), "#2a5fa8");
    line(g, curve.questions.map((p) => [x(p[0]), top + (1 - (p[1] - 1) / (qmax - 1)) * (h - top - bottom)]), "#d08a1a");
  }

  function line(g, points, colour) {
    if (!points.length) { return; }
    g.strokeStyle = colour; g.lineWidth = 2; g.beginPath();
    points.forEach((p, i) => (i ? g.lineTo(p[0], p[1]) : g.moveTo(p[0], p[1])));
    g.stroke();
  }

  $("yes").onclick = () => answer($("yes"), true);
  $("no").onclick = () => answer($("no"), false);
  $("new").onsubmit = (event) => {
    event.preventDefault();
    const text = $("newname").value.trim();
    if (text) { name(text); $("newname").value = ""; }
  };
  connect();
})();
