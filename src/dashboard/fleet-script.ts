/**
 * The status page's fleet section (inlined into page-script.ts, whose helpers
 * it uses): the members from `/status` `fleet`, this replica marked, those on
 * another PUBLIC_BASE_URL flagged, and a warning line when there are any;
 * each member's clock skew from this replica's, flagged past 1 s.
 * Hidden without Redis.
 */
export const FLEET_SCRIPT = /* js */ `
  function renderFleet(f) {
    $('fleet').className = f ? '' : 'off';
    if (!f) return;
    var others = f.members.filter(function (m) { return !m.sameNamespace; });
    var ago = fmtDuration(Math.round((f.checkedAgoMs || 0) / 1000));
    var asOf = f.checkedAgoMs === null ? ' (no heartbeat reached Redis yet)'
      : f.checkedAgoMs > 3 * f.heartbeatMs ? ' (as of ' + ago + ' ago: Redis unreachable)' : '';
    var replicas = f.members.length + (f.members.length === 1 ? ' replica' : ' replicas');
    text('fleet-summary', replicas + ' on this Redis' + asOf);
    var warn = $('fleet-mismatch');
    warn.className = f.namespaceMismatch ? 'on' : '';
    var self = f.members.filter(function (m) { return m.self; })[0];
    text('fleet-mismatch', f.namespaceMismatch ? 'Namespace mismatch: ' + others.length + ' of the other replicas ' +
      (others.length === 1 ? 'has' : 'have') + ' another PUBLIC_BASE_URL than this one' +
      (self ? ' (' + self.publicBaseUrl + ')' : '') + ', so they share no cached entries with it. ' +
      'Give every replica of the fleet the same PUBLIC_BASE_URL.' : '');
    fill($('fleet-members').tBodies[0], f.members.map(function (m) {
      var tr = el('tr');
      tr.setAttribute('data-replica', m.id);
      tr.setAttribute('data-namespace', m.sameNamespace ? 'same' : 'other');
      var id = cell(tr, m.id.slice(0, 8));
      if (m.self) id.appendChild(el('span', 'dim', ' (this one)'));
      cell(tr, m.role); cell(tr, m.version);
      var ns = el('td'); ns.appendChild(document.createTextNode(m.publicBaseUrl + ' '));
      var pillText = m.sameNamespace ? 'shared' : 'other namespace';
      ns.appendChild(el('span', 'pill ' + (m.sameNamespace ? 'ok' : 'bad'), pillText));
      tr.appendChild(ns);
      cell(tr, m.host); cell(tr, m.pid, 'num'); cell(tr, clock(m.startedAt));
      cell(tr, m.self ? '-' : fmtDuration(Math.round(m.lastSeenAgoMs / 1000)) + ' ago', 'num');
      var skewed = !m.self && m.skewMs !== null && Math.abs(m.skewMs) > 1000;
      var skew = cell(tr, m.self ? '-' : m.skewMs === null ? '?' :
        (m.skewMs > 0 ? '+' : '') + (m.skewMs / 1000).toFixed(1) + ' s', skewed ? 'num bad' : 'num');
      skew.setAttribute('data-skew', skewed ? 'past' : 'within');
      return tr;
    }));
  }
`;
