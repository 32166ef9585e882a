/**
 * The status page: one self-contained HTML document (inline CSS and script, no
 * external resources), polling `status` and `dashboard/data.json` (relative
 * URLs, so it also works under a path prefix) once a second. Rates and the hit
 * ratio are computed in the browser over the last minute of samples.
 * All text is inserted with textContent (upstream errors are not trusted HTML).
 */
export const DASHBOARD_HTML = /* html */ `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chainproxy status</title>
<link rel="icon" href="data:,">
<style>
  :root { --bg:#0f1419; --panel:#171d24; --line:#2a333d; --text:#d8dee6; --dim:#8a96a3; --ok:#3fb950; --warn:#d29922; --bad:#f85149; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--text); }
  header { display:flex; gap:16px; align-items:baseline; padding:12px 20px; border-bottom:1px solid var(--line); }
  header h1 { font-size:18px; margin:0; }
  header .dim { color:var(--dim); }
  main { padding:16px 20px; display:grid; gap:16px; }
  .cards { display:grid; grid-template-columns:repeat(auto-fit, minmax(150px, 1fr)); gap:12px; }
  .card, section { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:10px 14px; }
  .card .label { color:var(--dim); font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
  .card .value { font-size:22px; font-variant-numeric:tabular-nums; }
  section h2 { font-size:13px; margin:0 0 8px; color:var(--dim); text-transform:uppercase; letter-spacing:.04em; }
  table { width:100%; border-collapse:collapse; font-variant-numeric:tabular-nums; }
  th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
  th { color:var(--dim); font-weight:normal; font-size:12px; }
  td.err { white-space:normal; color:var(--dim); max-width:420px; overflow-wrap:anywhere; }
  .pill { display:inline-block; padding:0 8px; border-radius:10px; font-size:12px; font-weight:600; }
  .up { background:rgba(63,185,80,.15); color:var(--ok); }
  .lagging, .half-open { background:rgba(210,153,34,.15); color:var(--warn); }
  .down, .open { background:rgba(248,81,73,.15); color:var(--bad); }
  .closed { color:var(--dim); }
  #conn.live { color:var(--ok); } #conn.lost { color:var(--bad); }
  ul#errors { list-style:none; margin:0; padding:0; max-height:260px; overflow:auto; font-family:ui-monospace, monospace; font-size:12px; }
  ul#errors li { padding:2px 0; border-bottom:1px solid var(--line); overflow-wrap:anywhere; }
  ul#errors li time { color:var(--dim); margin-right:8px; }
  .grid2 { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
  @media (max-width: 800px) { .grid2 { grid-template-columns:1fr; } }
</style>
</head>
<body>
<header>
  <h1>chainproxy</h1>
  <span id="conn" class="lost">connecting</span>
  <span class="dim">updated <span id="updated">never</span></span>
  <span class="dim">uptime <span id="uptime">-</span></span>
</header>
<main>
  <div class="cards">
    <div class="card"><div class="label">Ready</div><div class="value" id="ready">-</div></div>
    <div class="card"><div class="label">Best head</div><div class="value" id="best-head">-</div></div>
    <div class="card"><div class="label">Final height</div><div class="value" id="final-height">-</div></div>
    <div class="card"><div class="label">Hit ratio <span id="window"></span></div><div class="value" id="hit-ratio">-</div></div>
    <div class="card"><div class="label">Requests/s</div><div class="value" id="req-rate">-</div></div>
    <div class="card"><div class="label">Proxy errors/s</div><div class="value" id="err-rate">-</div></div>
  </div>
  <section>
    <h2>Upstreams</h2>
    <table id="upstreams">
      <thead><tr><th>name</th><th>url</th><th>state</th><th>head</th><th>lag</th><th>breaker</th><th>in flight</th><th>p50 ms</th><th>p99 ms</th><th>last error</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <div class="grid2">
    <section>
      <h2>Cache tiers</h2>
      <table id="tiers"><thead><tr><th>tier</th><th>entries</th><th>bytes</th><th>capacity</th><th>fill</th></tr></thead><tbody></tbody></table>
      <p>Redis: <span id="redis" class="pill">-</span></p>
    </section>
    <section>
      <h2>Recent errors</h2>
      <ul id="errors"></ul>
    </section>
  </div>
</main>
<script>
(function () {
  'use strict';
  var WINDOW_MS = 60000;
  var samples = [];
  var lastUp = {};
  var lastOutcomes = {};
  var lastSnap = null;
  var errors = [];
  var wasLive = null;

  function $(id) { return document.getElementById(id); }
  function text(id, v) { $(id).textContent = v; }
  function cell(tr, v, cls) { var td = document.createElement('td'); td.textContent = v === null || v === undefined ? '-' : String(v); if (cls) td.className = cls; tr.appendChild(td); return td; }
  function pill(tr, v) { var td = document.createElement('td'); var s = document.createElement('span'); s.className = 'pill ' + v; s.textContent = v; td.appendChild(s); tr.appendChild(td); }
  function fmtBytes(n) { if (n === null || n === undefined) return '-'; var u = ['B','KiB','MiB','GiB']; var i = 0; while (n >= 1024 && i < 3) { n /= 1024; i++; } return (i ? n.toFixed(1) : n) + ' ' + u[i]; }
  function fmtNum(n) { return n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US'); }
  function clock(t) { return new Date(t).toTimeString().slice(0, 8); }
  function fmtDuration(s) { var h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60); return h ? h + 'h ' + m + 'm' : m ? m + 'm ' + (s % 60) + 's' : s + 's'; }

  function note(t, msg) {
    errors.unshift({ t: t, msg: msg });
    if (errors.length > 50) errors.length = 50;
    var ul = $('errors');
    ul.textContent = '';
    errors.forEach(function (e) {
      var li = document.createElement('li');
      var tm = document.createElement('time'); tm.textContent = clock(e.t);
      li.appendChild(tm); li.appendChild(document.createTextNode(e.msg));
      ul.appendChild(li);
    });
  }

  function stateOf(u) { return !u.healthy ? 'down' : u.lagging ? 'lagging' : 'up'; }

  function renderStatus(s, now) {
    text('ready', s.ready ? 'yes' : 'NO');
    text('best-head', fmtNum(s.chain.bestHead));
    text('final-height', fmtNum(s.chain.finalHeight));
    text('uptime', fmtDuration(s.uptimeSeconds));
    var tbody = $('upstreams').tBodies[0];
    tbody.textContent = '';
    s.upstreams.forEach(function (u) {
      var state = stateOf(u);
      var tr = document.createElement('tr');
      tr.setAttribute('data-upstream', u.name);
      tr.setAttribute('data-state', state);
      cell(tr, u.name); cell(tr, u.url); pill(tr, state); cell(tr, fmtNum(u.head)); cell(tr, u.lag);
      pill(tr, u.breaker); cell(tr, u.inFlight);
      cell(tr, u.latencyP50Ms === null ? null : Math.round(u.latencyP50Ms));
      cell(tr, u.latencyP99Ms === null ? null : Math.round(u.latencyP99Ms));
      cell(tr, u.lastError, 'err');
      tbody.appendChild(tr);
      var prev = lastUp[u.name];
      if (prev && prev.state !== state && state !== 'up') note(now, u.name + ' is ' + state + (u.lastError ? ': ' + u.lastError : ''));
      else if (prev && prev.state !== 'up' && state === 'up') note(now, u.name + ' is up again');
      if (u.lastError && (!prev || prev.lastError !== u.lastError) && !(prev && prev.state !== state)) note(now, u.name + ': ' + u.lastError);
      lastUp[u.name] = { state: state, lastError: u.lastError };
    });
    var tiers = $('tiers').tBodies[0];
    tiers.textContent = '';
    var cache = s.cache || {};
    Object.keys(cache).forEach(function (name) {
      var t = cache[name];
      if (name === 'redis' || !t || typeof t.entries !== 'number') return;
      var tr = document.createElement('tr');
      tr.setAttribute('data-tier', name);
      cell(tr, name); cell(tr, fmtNum(t.entries)); cell(tr, fmtBytes(t.bytes)); cell(tr, fmtBytes(t.maxBytes));
      cell(tr, t.maxBytes ? (100 * t.bytes / t.maxBytes).toFixed(1) + ' %' : '-');
      tiers.appendChild(tr);
    });
    var r = $('redis');
    var redis = cache.redis;
    var rs = redis === null || redis === undefined ? 'not configured' : redis.healthy ? 'up' : 'down';
    r.textContent = rs; r.className = 'pill ' + (rs === 'not configured' ? 'closed' : rs);
    if (lastSnap && lastSnap.redis !== rs && rs === 'down') note(now, 'Redis is down');
  }

  function renderTraffic(d) {
    var hits = (d.requests.byCache.HIT || 0) + (d.requests.byCache.STALE || 0);
    samples.push({ t: d.time, total: d.requests.total, hits: hits, err: d.requests.byCache.ERROR || 0 });
    while (samples.length > 2 && samples[1].t <= d.time - WINDOW_MS) samples.shift();
    var first = samples[0], last = samples[samples.length - 1];
    var dt = (last.t - first.t) / 1000;
    var dTotal = last.total - first.total;
    text('window', dt > 0 ? '(' + Math.round(dt) + ' s)' : '');
    text('req-rate', dt > 0 ? (dTotal / dt).toFixed(1) : '-');
    text('err-rate', dt > 0 ? ((last.err - first.err) / dt).toFixed(2) : '-');
    text('hit-ratio', dTotal > 0 ? (100 * (last.hits - first.hits) / dTotal).toFixed(1) + ' %' : '-');
    if (lastSnap) {
      var dErr = (d.requests.byCache.ERROR || 0) - lastSnap.err;
      if (dErr > 0) note(d.time, dErr + ' request(s) answered with a proxy error (5xx)');
      var dRl = d.rateLimited - lastSnap.rateLimited;
      if (dRl > 0) note(d.time, dRl + ' request(s) rate limited');
      var dPt = d.passthrough.failures - lastSnap.ptFailures;
      if (dPt > 0) note(d.time, dPt + ' passthrough failure(s)');
    }
    Object.keys(d.upstreams).forEach(function (name) {
      var now = d.upstreams[name], before = lastOutcomes[name] || {};
      Object.keys(now).forEach(function (outcome) {
        if (outcome === 'ok' || outcome === 'cancelled') return;
        var delta = now[outcome] - (before[outcome] || 0);
        if (delta > 0 && lastSnap) note(d.time, name + ': ' + delta + ' upstream ' + outcome.replace('_', ' '));
      });
      lastOutcomes[name] = now;
    });
    lastSnap = { err: d.requests.byCache.ERROR || 0, rateLimited: d.rateLimited, ptFailures: d.passthrough.failures, redis: $('redis').textContent };
  }

  function setLive(live, why) {
    var c = $('conn');
    c.textContent = live ? 'live' : 'unreachable';
    c.className = live ? 'live' : 'lost';
    if (wasLive === true && !live) note(Date.now(), 'proxy unreachable: ' + why);
    wasLive = live;
  }

  function getJson(url) {
    return fetch(url, { cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
      return r.json();
    });
  }

  function tick() {
    Promise.all([getJson('status'), getJson('dashboard/data.json')]).then(function (res) {
      var now = res[1].data.time;
      renderStatus(res[0].data, now);
      renderTraffic(res[1].data);
      text('updated', clock(now));
      setLive(true);
    }).catch(function (e) {
      setLive(false, e && e.message ? e.message : String(e));
    }).then(function () { setTimeout(tick, 1000); });
  }
  tick();
})();
</script>
</body>
</html>
`;
