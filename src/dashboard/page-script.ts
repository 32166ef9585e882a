/**
 * The status page's script (inlined by page.ts): polls `status` and
 * `dashboard/history.json?after=<t>` once a second, keeps the last 15
 * minutes of points, draws them as inline SVG and fills the tables.
 */
import { FLEET_SCRIPT } from './fleet-script.js';

export const DASHBOARD_SCRIPT = /* js */ `
(function () {
  'use strict';
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var SPAN_MS = 15 * 60000;
  var COLORS = { blue: '#58a6ff', green: '#3fb950', yellow: '#d29922', red: '#f85149', violet: '#bc8cff' };
  var points = [];
  var startedAt = null;

  function $(id) { return document.getElementById(id); }
  function text(id, v) { $(id).textContent = v; }
  function el(tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
  function cell(tr, v, cls) {
    var td = el('td', cls, v === null || v === undefined ? '-' : String(v));
    tr.appendChild(td);
    return td;
  }
  function pill(tr, v) { var td = el('td'); td.appendChild(el('span', 'pill ' + v, v)); tr.appendChild(td); }
  function fmtBytes(n) {
    if (n === null || n === undefined) return '-';
    var u = ['B', 'KiB', 'MiB', 'GiB'];
    var i = 0;
    while (n >= 1024 && i < 3) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : n) + ' ' + u[i];
  }
  function fmtNum(n) { return n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US'); }
  function fmtRate(v) { return v === null ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2); }
  function fmtPct(v) { return v === null ? '-' : (100 * v).toFixed(1) + ' %'; }
  function fmtMs(v) { return v === null || v === undefined ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1); }
  function clock(t) { return new Date(t).toTimeString().slice(0, 8); }
  function fmtDuration(s) {
    var d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
    return d ? d + 'd ' + h + 'h' : h ? h + 'h ' + m + 'm' : m ? m + 'm ' + (s % 60) + 's' : s + 's';
  }
  function fill(tbody, rows) { tbody.textContent = ''; rows.forEach(function (r) { tbody.appendChild(r); }); }

  /** Until the proxy says so itself: every upstream on this machine is taken for the simulator. */
  /**
   * Values of fn(first, last) over a trailing window of w seconds ending at each point; null where fn has none
   * (a gap).
   */
  function series(fn, w) {
    var out = [];
    var j = 0;
    for (var i = 1; i < points.length; i++) {
      while (j < i - 1 && points[i].t - points[j].t > w * 1000) j++;
      var v = fn(points[j], points[i]);
      out.push({ t: points[i].t, v: v !== null && isFinite(v) ? v : null });
    }
    return out;
  }
  function rateOf(field) {
    return function (a, b) {
      var dt = (b.t - a.t) / 1000;
      return dt > 0 ? Math.max(0, b[field] - a[field]) / dt : null;
    };
  }
  function hitRatio(a, b) { var n = b.requests - a.requests; return n > 0 ? (b.hits - a.hits) / n : null; }
  function field(name) {
    return points
      .filter(function (p) { return p[name] !== null; })
      .map(function (p) { return { t: p.t, v: p[name] }; });
  }
  function last(list) { return list.length ? list[list.length - 1].v : null; }
  function fmtAgo(ms) {
    return ms === null || ms === undefined ? '' : ' (' + fmtDuration(Math.round(ms / 1000)) + ' ago)';
  }
  /** Runs of consecutive non-null values: a line is drawn per run, so idle time is a gap, not a straight line. */
  function runs(data) {
    var out = [], cur = [];
    data.forEach(function (d) { if (d.v === null) { if (cur.length) out.push(cur); cur = []; } else cur.push(d); });
    if (cur.length) out.push(cur);
    return out;
  }

  function niceMax(v) {
    if (!(v > 0)) return 1;
    var e = Math.pow(10, Math.floor(Math.log10(v)));
    var m = v / e;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e;
  }
  function maxOf(data) {
    var values = data.filter(function (d) { return d.v !== null; }).map(function (d) { return d.v; });
    return Math.max.apply(null, [0].concat(values));
  }

  function chart(id, lines, opts) {
    var box = $(id), s = box.querySelector('svg'), legend = box.querySelector('.legend');
    var W = Math.max(300, Math.round(s.getBoundingClientRect().width) || 600), H = 150, L = 46, R = 8, T = 8, B = 18;
    s.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    s.textContent = '';
    var now = points.length ? points[points.length - 1].t : Date.now();
    var max = opts.max || niceMax(Math.max.apply(null, [0].concat(lines.map(function (l) { return maxOf(l.data); }))));
    // The time axis covers what is held: from one minute up to the whole 15.
    var span = Math.min(SPAN_MS, Math.max(60000, points.length ? now - points[0].t : 0));
    function x(t) { return L + (W - L - R) * (1 - (now - t) / span); }
    function y(v) { return T + (H - T - B) * (1 - Math.min(v, max) / max); }
    [0, 0.5, 1].forEach(function (f) {
      s.appendChild(svg('line', { x1: L, x2: W - R, y1: y(max * f), y2: y(max * f), 'class': 'grid' }));
      var label = svg('text', { x: L - 6, y: y(max * f) + 3, 'text-anchor': 'end' });
      label.textContent = opts.fmt(max * f);
      s.appendChild(label);
    });
    [1, 2 / 3, 1 / 3, 0].forEach(function (f) {
      var anchor = f === 1 ? 'start' : f === 0 ? 'end' : 'middle';
      var ago = span * f, t = svg('text', { x: x(now - ago), y: H - 4, 'text-anchor': anchor });
      t.textContent =
        !ago ? 'now' : ago >= 120000 ? '-' + Math.round(ago / 60000) + ' min' : '-' + Math.round(ago / 1000) + ' s';
      s.appendChild(t);
    });
    legend.textContent = '';
    var drawn = 0, segments = 0;
    lines.forEach(function (l) {
      var parts = runs(l.data.filter(function (d) { return now - d.t <= span; }));
      parts.forEach(function (run) {
        if (run.length > 1) {
          var at = run.map(function (d) { return x(d.t).toFixed(1) + ',' + y(d.v).toFixed(1); });
          s.appendChild(svg('polyline', { points: at.join(' '), stroke: l.color }));
        } else {
          var dot = { cx: x(run[0].t).toFixed(1), cy: y(run[0].v).toFixed(1), r: 1.5, fill: l.color };
          s.appendChild(svg('circle', dot));
        }
      });
      segments += parts.length;
      if (parts.some(function (run) { return run.length > 1; })) drawn++;
      var item = el('span'); var sw = el('i'); sw.style.background = l.color; item.appendChild(sw);
      item.appendChild(document.createTextNode(l.name + ' ')); item.appendChild(el('b', null, opts.fmt(last(l.data))));
      legend.appendChild(item);
    });
    if (!drawn) {
      var t = svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' });
      t.textContent = 'collecting...';
      s.appendChild(t);
    }
    box.setAttribute('data-lines', String(drawn));
    box.setAttribute('data-segments', String(segments));
    // The first line has no value now (idle past its window): its run has ended.
    box.setAttribute('data-idle', String(lines.length > 0 && lines[0].data.length > 0 && last(lines[0].data) === null));
    box.setAttribute('data-points', String(points.length));
  }

  function stateOf(u) { return u.sittingOut ? 'benched' : !u.healthy ? 'down' : u.lagging ? 'lagging' : 'up'; }
  function short(hash) { return String(hash).slice(0, 10); }

  function renderConsensus(c) {
    $('consensus').className = c ? '' : 'off';
    if (!c) return;
    text('quorum', String(c.quorum));
    text('disputes', fmtNum(c.disputes));
    var ul = $('disputes-list');
    ul.textContent = '';
    if (!c.recent.length) ul.appendChild(el('li', 'dim', 'no dispute since start'));
    c.recent.slice(-8).reverse().forEach(function (d) {
      var li = el('li'); li.setAttribute('data-outcome', d.outcome);
      li.appendChild(el('span', 'pill ' + (d.outcome === 'majority' ? 'warn' : 'bad'), d.outcome));
      var versions = d.versions.map(function (v) { return v.upstreams.join(', ') + ' \u2192 ' + short(v.hash); });
      li.appendChild(el('span', 'what', d.key + ': ' + versions.join(' | ')));
      li.appendChild(el('time', null, clock(d.at)));
      ul.appendChild(li);
    });
  }

${FLEET_SCRIPT}
  function renderStatus(s) {
    var fromCache = s.ready && s.readyReason === 'cache';
    text('ready', !s.ready ? 'NO' : fromCache ? 'yes: from cache' : 'yes');
    $('ready').className = 'value' + (!s.ready ? ' bad' : fromCache ? ' warn' : '');
    text('ready-why', !s.ready ? s.readyReason
      : fromCache ? 'no up-to-date upstream: serving what the cache holds' : 'an up-to-date upstream answers');
    text('best-head', fmtNum(s.chain.bestHead));
    text('final-height', fmtNum(s.chain.finalHeight));
    text('uptime', fmtDuration(s.uptimeSeconds));
    $('banner').className = s.upstreamIsSimulator === true ? 'on' : '';
    fill($('upstreams').tBodies[0], s.upstreams.map(function (u) {
      var state = stateOf(u), tr = el('tr');
      tr.setAttribute('data-upstream', u.name);
      tr.setAttribute('data-state', state);
      cell(tr, u.name); cell(tr, u.url); pill(tr, state); cell(tr, fmtNum(u.head), 'num'); cell(tr, u.lag, 'num');
      pill(tr, u.breaker); cell(tr, u.inFlight, 'num');
      cell(tr, u.latencyP50Ms === null ? null : Math.round(u.latencyP50Ms), 'num');
      cell(tr, u.latencyP99Ms === null ? null : Math.round(u.latencyP99Ms), 'num');
      var b = u.sittingOut;
      cell(tr, b ? 'benched until ' + clock(b.until) + ' (' + b.reason + '): ' + b.detail
        : u.lastError === null ? null : u.lastError + fmtAgo(u.lastErrorAgoMs), 'err');
      return tr;
    }));
    renderConsensus(s.consensus || null);
    renderFleet(s.fleet || null);
    var cache = s.cache || {};
    var tiers = Object.keys(cache).filter(function (n) {
      return n !== 'redis' && cache[n] && typeof cache[n].entries === 'number';
    });
    fill($('tiers').tBodies[0], tiers.map(function (name) {
      var t = cache[name], tr = el('tr');
      tr.setAttribute('data-tier', name);
      cell(tr, name); cell(tr, fmtNum(t.entries), 'num');
      cell(tr, fmtBytes(t.bytes), 'num'); cell(tr, fmtBytes(t.maxBytes), 'num');
      cell(tr, t.maxBytes ? (100 * t.bytes / t.maxBytes).toFixed(1) + ' %' : '-', 'num');
      return tr;
    }));
    var redis = cache.redis;
    var rs = redis === null || redis === undefined ? 'not configured' : redis.healthy ? 'up' : 'down';
    $('redis').textContent = rs; $('redis').className = 'pill ' + (rs === 'not configured' ? 'closed' : rs);
    var a = s.activity;
    var pg = cache.purge;
    var lastPurge = pg && pg.last;
    text('purges', !pg ? '-' : fmtNum(pg.here) + ' here, ' + fmtNum(pg.fleet) + ' from the fleet, ' + fmtNum(pg.marks) +
      ' marks held' + (lastPurge ? '; last ' + clock(lastPurge.at) + ': ' + lastPurge.kind + ' ' + lastPurge.target +
      ' (' + lastPurge.mode + (lastPurge.origin === 'fleet' ? ', from the fleet' : '') + '), ' +
      fmtNum(lastPurge.entries) + ' entries here' : ''));
    text('passthrough', !s.passthrough ? 'not configured' : s.passthrough.map(function (p) {
      var n = p.answers;
      return p.prefix + ' (' + p.policy + '): ' + fmtNum(n.HIT || 0) + ' hits, ' + fmtNum(n.MISS || 0) + ' misses, ' +
        fmtNum(n.STALE || 0) + ' stale, ' + fmtNum(n.BYPASS || 0) + ' bypass, ' + fmtNum(n.TOO_BIG || 0) + ' too big';
    }).join('; '));
    text('activity', a ? fmtNum(a.streams) + ' open, ' + fmtNum(a.watched) + ' watched (' + fmtNum(a.lingering) +
      ' lingering), history ' + fmtBytes(a.historyBytes) + ' of ' + fmtBytes(a.historyMaxBytes) : 'off');
    renderInvalidation(cache.invalidation || null);
  }

  var GUARDS = {
    'cross-check': 'a block\u2019s pages disagreed',
    'behind-upstream': 'an answer from an upstream behind',
    'future-height': 'an answer about a block above the head',
    'reorg': 'a block replaced (reorg)',
    'joined-late': 'an entry older than this replica\u2019s record',
    'pool-unknown': 'the pending pool unreadable'
  };

  function renderInvalidation(inv) {
    var precise = inv !== null && inv.mode === 'precise';
    text('invalidation', precise
      ? 'blocks read up to ' + fmtNum(inv.coveredHeight) + ', ' + fmtNum(inv.fallbacks) + ' fell back to the head rule'
      : 'off (the head rule)');
    var guarded = precise && inv.guarded ? inv.guarded : {};
    fill($('guarded').tBodies[0], Object.keys(guarded).map(function (k) {
      var tr = el('tr'); tr.setAttribute('data-guard', k);
      cell(tr, k + ': ' + (GUARDS[k] || k)); cell(tr, fmtNum(guarded[k]), 'num');
      return tr;
    }));
  }

  function row(label, value, attr) {
    var tr = el('tr');
    if (attr) tr.setAttribute('data-counter', attr);
    cell(tr, label); cell(tr, value, 'num');
    return tr;
  }

  function renderHistory(h) {
    text('version', h.version);
    // A restarted proxy starts a new history: drop the old one.
    if (startedAt !== null && startedAt !== h.startedAt) points = [];
    startedAt = h.startedAt;
    points = points.concat(h.points).filter(function (p) { return h.now - p.t <= SPAN_MS; });
    var minutes = Math.max(1, Math.round((h.now - h.since) / 60000));
    Array.prototype.forEach.call(document.querySelectorAll('.window'), function (w) {
      w.textContent = '(last ' + minutes + ' min)';
    });
    var hit = series(hitRatio, 10), reqs = series(rateOf('requests'), 5);
    var e5 = series(rateOf('s5xx'), 5), e4 = series(rateOf('s4xx'), 5);
    var shed = series(rateOf('shed'), 5), rl = series(rateOf('rateLimited'), 5);
    var p50 = field('upstreamP50Ms'), p99 = field('upstreamP99Ms');
    text('hit-ratio', fmtPct(last(series(hitRatio, 60))));
    text('req-rate', fmtRate(last(reqs)));
    text('err-rate', fmtRate(last(e5)));
    $('err-rate').className = 'value' + (last(e5) > 0 ? ' bad' : '');
    text('up-p99', p99.length ? fmtMs(last(p99)) + ' ms' : '-');
    chart('chart-hit', [{ name: 'hit ratio', color: COLORS.green, data: hit }], {
      max: 1,
      fmt: function (v) { return v === null ? '-' : Math.round(100 * v) + ' %'; }
    });
    chart('chart-rate', [{ name: 'requests/s', color: COLORS.blue, data: reqs }], { fmt: fmtRate });
    chart('chart-errors', [
      { name: '5xx', color: COLORS.red, data: e5 }, { name: '4xx', color: COLORS.yellow, data: e4 },
      { name: 'shed', color: COLORS.violet, data: shed }, { name: '429', color: COLORS.blue, data: rl }
    ], { fmt: fmtRate });
    chart('chart-latency', [
      { name: 'p50', color: COLORS.blue, data: p50 }, { name: 'p99', color: COLORS.yellow, data: p99 }
    ], { fmt: fmtMs });
    fill($('endpoints').tBodies[0], h.endpoints.map(function (e) {
      var tr = el('tr'); tr.setAttribute('data-endpoint', e.endpoint);
      cell(tr, e.endpoint); cell(tr, fmtNum(e.requests), 'num');
      cell(tr, fmtPct(e.hitRatio), 'num'); cell(tr, fmtMs(e.p99Ms), 'num');
      return tr;
    }));
    var total = 0; Object.keys(h.byStatus).forEach(function (k) { total += h.byStatus[k]; });
    fill($('statuses').tBodies[0], ['2xx', '3xx', '4xx', '5xx'].map(function (k) {
      var n = h.byStatus[k] || 0;
      return row(k, fmtNum(n) + (total ? '  (' + (100 * n / total).toFixed(1) + ' %)' : ''), k);
    }));
    var c = h.counters;
    fill($('counters').tBodies[0], [
      row('shed (503)', fmtNum(c.shed), 'shed'), row('rate limited (429)', fmtNum(c.rateLimited), 'rate-limited'),
      row('miss budget spent (429, 4292)', fmtNum(c.missBudgetRefused), 'miss-budget-refused'),
      row('unknown API key (401)', fmtNum(c.unknownKeys), 'unknown-keys'),
      row('streams open now', fmtNum(c.streamsOpen), 'streams-open'),
      row('stream events sent', fmtNum(c.streamEvents), 'stream-events'),
      row('streams refused', fmtNum(c.streamsRefused), 'streams-refused'),
      row('passthrough requests', fmtNum(c.passthrough), 'passthrough'),
      row('passthrough failures', fmtNum(c.passthroughFailures), 'passthrough-failures'),
      row('head rebases', fmtNum(c.rebases), 'rebases'),
      row('quorum disputes', fmtNum(c.quorumDisputes), 'quorum-disputes')]);
    var ul = $('events');
    ul.textContent = '';
    if (!h.events.length) ul.appendChild(el('li', 'dim', 'nothing happened'));
    h.events.forEach(function (e) {
      var li = el('li'); li.setAttribute('data-kind', e.kind);
      li.appendChild(el('span', 'pill ' + e.severity, e.count > 1 ? '\\u00d7 ' + fmtNum(e.count) : '\\u00d7 1'));
      li.appendChild(el('span', 'what', e.kind));
      var when = e.first === e.last ? clock(e.last) : clock(e.first) + ' \\u2013 ' + clock(e.last);
      li.appendChild(el('time', null, when));
      ul.appendChild(li);
    });
  }

  function setLive(live) {
    $('conn').textContent = live ? 'live' : 'unreachable';
    $('conn').className = live ? 'live' : 'lost';
  }

  function getJson(url) {
    return fetch(url, { cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
      return r.json();
    });
  }

  function tick() {
    var after = points.length ? '?after=' + points[points.length - 1].t : '';
    Promise.all([getJson('status'), getJson('dashboard/history.json' + after)]).then(function (res) {
      renderStatus(res[0].data);
      renderHistory(res[1].data);
      text('updated', clock(res[1].data.now));
      setLive(true);
    }).catch(function () {
      setLive(false);
    }).then(function () { setTimeout(tick, 1000); });
  }
  tick();
})();
`;
