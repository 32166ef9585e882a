/**
 * The status page: one self-contained HTML document (inline CSS, inline script
 * and SVG drawn in the page, nothing loaded from elsewhere), polling `status`
 * and `dashboard/history.json` (relative URLs, so it works under a path
 * prefix) once a second. The history (last 15 minutes) lives in the proxy, so
 * a reload loses nothing. All text is inserted with textContent.
 */
import { DASHBOARD_SCRIPT } from './page-script.js';

const STYLE = /* css */ `
  :root { --bg:#0f1419; --panel:#171d24; --line:#2a333d; --text:#d8dee6; --dim:#8a96a3; --ok:#3fb950; --warn:#d29922;
    --bad:#f85149; --blue:#58a6ff; --violet:#bc8cff; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg);
    color:var(--text); }
  header { display:flex; gap:18px; align-items:baseline; padding:12px 20px; border-bottom:1px solid var(--line);
    flex-wrap:wrap; }
  header h1 { font-size:18px; margin:0; }
  .dim { color:var(--dim); }
  #banner { display:none; margin:12px 20px 0; padding:8px 14px; border-radius:6px; background:rgba(88,166,255,.12);
    border:1px solid rgba(88,166,255,.4); color:var(--blue); }
  #banner.on { display:block; }
  main { padding:16px 20px; display:grid; gap:16px; }
  .cards { display:grid; grid-template-columns:repeat(auto-fit, minmax(140px, 1fr)); gap:12px; }
  .card, section { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:10px 14px;
    min-width:0; }
  .card .label { color:var(--dim); font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
  .card .value { font-size:22px; font-variant-numeric:tabular-nums; }
  .card .value.bad { color:var(--bad); }
  .card .value.warn { color:var(--warn); }
  .card .why { color:var(--dim); font-size:12px; }
  section h2 { font-size:13px; margin:0 0 8px; color:var(--dim); text-transform:uppercase; letter-spacing:.04em; }
  .charts { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
  .chart svg { width:100%; height:150px; display:block; }
  .chart .legend { display:flex; gap:14px; font-size:12px; color:var(--dim); flex-wrap:wrap; }
  .chart .legend b { font-weight:600; font-variant-numeric:tabular-nums; }
  .chart .legend i { display:inline-block; width:10px; height:3px; margin-right:5px; vertical-align:middle; }
  svg text { fill:var(--dim); font-size:10px; }
  svg .grid { stroke:var(--line); stroke-width:1; }
  svg polyline { fill:none; stroke-width:1.6; stroke-linejoin:round; }
  table { width:100%; border-collapse:collapse; font-variant-numeric:tabular-nums; }
  th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
  th { color:var(--dim); font-weight:normal; font-size:12px; }
  td.num, th.num { text-align:right; }
  td.err { white-space:normal; color:var(--dim); max-width:420px; overflow-wrap:anywhere; }
  .pill { display:inline-block; padding:0 8px; border-radius:10px; font-size:12px; font-weight:600; }
  .up, .ok { background:rgba(63,185,80,.15); color:var(--ok); }
  .lagging, .half-open, .warn, .benched { background:rgba(210,153,34,.15); color:var(--warn); }
  .down, .open, .bad { background:rgba(248,81,73,.15); color:var(--bad); }
  .closed { color:var(--dim); }
  #conn.live { color:var(--ok); } #conn.lost { color:var(--bad); }
  #consensus.off, #fleet.off { display:none; }
  #fleet-mismatch { display:none; margin:0 0 8px; padding:6px 10px; border-radius:6px; background:rgba(248,81,73,.12);
    border:1px solid rgba(248,81,73,.4); color:var(--bad); }
  #fleet-mismatch.on { display:block; }
  ul#disputes-list { list-style:none; margin:0; padding:0; max-height:200px; overflow:auto; font-size:13px; }
  ul#disputes-list li { display:flex; gap:10px; align-items:baseline; padding:3px 0;
    border-bottom:1px solid var(--line); }
  ul#disputes-list li .what { flex:1; overflow-wrap:anywhere; font-family:ui-monospace, monospace; font-size:12px; }
  ul#disputes-list li time { color:var(--dim); font-size:12px; }
  ul#events { list-style:none; margin:0; padding:0; max-height:300px; overflow:auto; font-size:13px; }
  ul#events li { display:flex; gap:10px; align-items:baseline; padding:3px 0; border-bottom:1px solid var(--line); }
  ul#events li .what { flex:1; overflow-wrap:anywhere; }
  ul#events li time { color:var(--dim); font-size:12px; font-variant-numeric:tabular-nums; }
  .grid2 { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
  .grid3 { display:grid; grid-template-columns:2fr 1fr 1fr; gap:16px; }
  @media (max-width: 900px) { .grid2, .grid3, .charts { grid-template-columns:1fr; } }
`;

const chart = (id: string, title: string): string =>
  `<section class="chart" id="${id}"><h2>${title}</h2><svg role="img" ` +
  `aria-label="${title}"></svg><div class="legend"></div></section>`;

export const DASHBOARD_HTML = /* html */ `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chainproxy status</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>chainproxy</h1>
  <span class="dim">version <span id="version">-</span></span>
  <span class="dim">up <span id="uptime">-</span></span>
  <span id="conn" class="lost">connecting</span>
  <span class="dim">updated <span id="updated">never</span></span>
</header>
<div id="banner" role="status">The upstream is the chain simulator on this machine: answers are simulated, not a real
  chain. Set UPSTREAM_URLS to serve one.</div>
<main>
  <div class="cards">
    <div class="card"><div class="label">Ready</div><div class="value" id="ready">-</div>
      <div class="why" id="ready-why"></div></div>
    <div class="card"><div class="label">Best head</div><div class="value" id="best-head">-</div></div>
    <div class="card"><div class="label">Final height</div><div class="value" id="final-height">-</div></div>
    <div class="card"><div class="label">Hit ratio (1 min)</div><div class="value" id="hit-ratio">-</div></div>
    <div class="card"><div class="label">Requests/s</div><div class="value" id="req-rate">-</div></div>
    <div class="card"><div class="label">5xx/s</div><div class="value" id="err-rate">-</div></div>
    <div class="card"><div class="label">Upstream p99</div><div class="value" id="up-p99">-</div></div>
  </div>
  <div class="charts">
    ${chart('chart-hit', 'Hit ratio')}
    ${chart('chart-rate', 'Requests/s')}
    ${chart('chart-errors', 'Errors/s')}
    ${chart('chart-latency', 'Upstream latency (ms)')}
  </div>
  <section>
    <h2>Upstreams</h2>
    <table id="upstreams">
      <thead><tr><th>name</th><th>url</th><th>state</th><th class="num">head</th><th class="num">lag</th>
        <th>breaker</th><th class="num">in flight</th><th class="num">p50 ms</th><th class="num">p99 ms</th>
        <th>last error</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section id="consensus" class="off">
    <h2>Quorum: <span id="quorum">-</span> upstreams must agree before a final answer is kept &middot; disputes since
      start: <span id="disputes">-</span></h2>
    <ul id="disputes-list"></ul>
  </section>
  <section id="fleet" class="off">
    <h2>Fleet: <span id="fleet-summary">-</span></h2>
    <p id="fleet-mismatch" role="alert"></p>
    <table id="fleet-members">
      <thead><tr><th>replica</th><th>role</th><th>version</th><th>PUBLIC_BASE_URL</th><th>host</th>
        <th class="num">pid</th><th>started</th><th class="num">last seen</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <div class="grid3">
    <section>
      <h2>Endpoints <span class="window"></span></h2>
      <table id="endpoints"><thead><tr><th>endpoint</th><th class="num">requests</th><th class="num">hit ratio</th>
        <th class="num">p99 ms</th></tr></thead><tbody></tbody></table>
    </section>
    <section>
      <h2>Answers by status <span class="window"></span></h2>
      <table id="statuses"><tbody></tbody></table>
    </section>
    <section>
      <h2>Counters <span class="window"></span></h2>
      <table id="counters"><tbody></tbody></table>
    </section>
  </div>
  <div class="grid2">
    <section>
      <h2>Events <span class="window"></span></h2>
      <ul id="events"></ul>
    </section>
    <section>
      <h2>Cache tiers</h2>
      <table id="tiers"><thead><tr><th>tier</th><th class="num">entries</th><th class="num">bytes</th>
        <th class="num">capacity</th><th class="num">fill</th></tr></thead><tbody></tbody></table>
      <p>Redis: <span id="redis" class="pill">-</span></p>
      <p>Activity streams: <span id="activity">-</span></p>
      <p>Purges: <span id="purges">-</span></p>
      <p>Passthrough: <span id="passthrough">-</span></p>
      <p>Precise invalidation: <span id="invalidation">-</span></p>
      <table id="guarded"><thead><tr><th>facts not trusted (head rule instead)</th><th class="num">since start</th>
        </tr></thead><tbody></tbody></table>
    </section>
  </div>
</main>
<script>${DASHBOARD_SCRIPT}</script>
</body>
</html>
`;
