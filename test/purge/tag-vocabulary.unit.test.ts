/** The tag vocabulary: every dependency an answer can carry a tag for has a kind; how `tag=` values parse. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { ENDPOINTS } from '../../src/endpoints/index.js';
import { kindOf } from '../../src/purge/request.js';
import { canonicalTarget, parseTag, TAG_KINDS } from '../../src/purge/tag-vocabulary.js';

const limits = defaultConfig().limits;
const ADDRESS = 'n1XAAaHtBiHjSd6kVqGBDFsvUAYh86qmcPd';

describe('tag vocabulary', () => {
  it('every dependency of every endpoint is the source of a kind', () => {
    const sources = new Set(Object.values(TAG_KINDS).flatMap((k) => k.from));
    for (const e of ENDPOINTS) for (const d of e.dependsOn) expect(sources, `${e.path}: ${d.on}`).toContain(d.on);
  });

  it.each([
    ['head', 'head'],
    ['pending', 'pending'],
    ['day', 'day'],
    ['nax-stage', 'nax-stage'],
    ['contract:deployed', 'contract:deployed'],
    [`contract:${ADDRESS}`, `address:${ADDRESS}`],
    [`address:${ADDRESS}`, `address:${ADDRESS}`],
    ['token:NAX', 'token:NAX'],
    ['finality:12', 'finality:12'],
    [`finality:${'ab'.repeat(32)}`, `finality:${'ab'.repeat(32)}`],
    ['height:12', 'finality:12'],
    ['stage-end:4848000', 'stage-end:4848000'],
  ])('%s names %s', (raw, tag) => expect(parseTag(raw, limits)).toEqual({ ok: true, tag }));

  it.each([
    ['wallet:x', /^one of head, address:<address>, contract:deployed, contract:<address>, token:<name>/],
    ['head:1', /^head$/],
    ['finality', /^finality:<n or hash>$/],
    ['finality:-1', /^finality:<n or hash>$/],
    ['finality:abc', /^finality:<n or hash>$/],
    ['address:nope', /^address:<address>$/],
    ['constructor', /^one of /],
    ['toString:1', /^one of /],
  ])('%s is refused', (raw, expected) => {
    const r = parseTag(raw, limits);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.expected).toMatch(expected);
  });

  it("an older replica's spelling is heard in today's", () => {
    expect(canonicalTarget('height:5')).toBe('finality:5');
    expect(canonicalTarget('contract:deployed')).toBe('contract:deployed');
    expect(canonicalTarget('tx/detail?hash=ab')).toBe('tx/detail?hash=ab');
    expect(canonicalTarget('*')).toBe('*');
    expect(canonicalTarget('head')).toBe('head');
  });

  it('a target is a tag when its kind is in the vocabulary, else a key', () => {
    expect(kindOf('head')).toBe('tag');
    expect(kindOf('finality:1')).toBe('tag');
    expect(kindOf('contract:deployed')).toBe('tag');
    expect(kindOf('*')).toBe('all');
    expect(kindOf('tx/detail?hash=ab')).toBe('key');
    expect(kindOf('/legacy/x?at=10:30')).toBe('key');
  });
});
