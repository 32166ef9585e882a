/** Relative links and heading anchors of markdown files, as GitHub renders them. */

/** `[text](target)` links that point into the repository (no scheme, no mail), with their anchors. */
export function relativeLinks(markdown: string): Array<{ path: string; anchor: string | null }> {
  const out: Array<{ path: string; anchor: string | null }> = [];
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf('#');
    out.push({ path: hash < 0 ? target : target.slice(0, hash), anchor: hash < 0 ? null : target.slice(hash + 1) });
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export function anchorsOf(markdown: string): Set<string> {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}
