/** The fleet message table of docs/architecture.md, from the table of kinds (src/fleet/messages.ts). */
import { encodeRedis } from '../../src/fleet/bus.js';
import { KINDS, type Kind, type MessagePayload } from '../../src/fleet/messages.js';

export function fleetMessageTable(): string {
  const rows = ['| kind | what, from whom, where | on Redis (its example) | to its sender too |', '|---|---|---|---|'];
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const row = KINDS[kind];
    const wire = encodeRedis('<replica id>', kind, row.example as unknown as MessagePayload<typeof kind>);
    rows.push(`| \`${kind}\` | ${row.doc} | \`${wire}\` | ${row.echo ? 'yes' : 'no'} |`);
  }
  return rows.join('\n');
}
